"""Run in a page's process by test_sitebuild.py: it imports nothing itself, unlike that test module."""

from __future__ import annotations

import sys


def imported_by_the_reset() -> list[str]:
    """The modules that the reset before a page imports, in the process it runs in.

    ``pagestate`` comes first: a page's process has imported it (and what it imports)
    with the build's hooks before the page starts.
    """
    import pagestate

    before = set(sys.modules)
    import torch

    pagestate.PageState.capture().restore()
    torch._dynamo.reset()
    return sorted(set(sys.modules) - before)
