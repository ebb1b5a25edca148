"""Run one example page as ``__main__`` and print every comparison it made, as JSON.

``verdict_stability.py`` starts this script in a fresh interpreter for each run of a
page: ``python benchmarks/page_comparisons.py examples/<folder>/<page>.py``. It wraps
``cheatsheet.compare`` so that each ``Comparison`` the page makes is kept, runs the page
as sphinx-gallery does (as ``__main__``), and prints the kept comparisons on one line
after :data:`MARK`, below whatever the page itself printed.
"""

from __future__ import annotations

import json
import runpy
import sys

import cheatsheet
from cheatsheet import report

MARK = "CHEATSHEET_COMPARISONS "


def main(page: str) -> None:
    made = []
    plain = report.compare

    def recording(*args, **kwargs):
        table = plain(*args, **kwargs)
        made.append(table.as_dict())
        return table

    # The page imports compare from either name: both must record.
    cheatsheet.compare = report.compare = recording
    runpy.run_path(page, run_name="__main__")
    print(MARK + json.dumps(made))


if __name__ == "__main__":
    main(sys.argv[1])
