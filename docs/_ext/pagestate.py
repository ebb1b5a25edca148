"""Each page's start, and what the build reads after it: seeds, warnings as errors, three settings.

Every page that executes runs in a process of its own that runs nothing else
(``freshpage.py``), so nothing a page changes reaches another page, and no reset
between pages is needed. sphinx-gallery calls :func:`reset_state` before and after
each page, in the page's process (``reset_modules`` in conf.py):

- before the page, the random generators are seeded, every warning that would be
  shown becomes an error, and the settings below are noted;
- after the page, those settings are put back, because the page's process goes on to
  write the page and its record, whose machine stamp reads them.

Measured over a whole build (2026-12-06, all 70 pages, with the 40-odd resets this
module used to make): before each page, its process was as the fork left it (no
setting differed from the state noted, nothing was compiled, no logging was set, no
old ``__main__`` was cached), so every reset before a page changed nothing. After the
pages, what they had changed: the warning filters (70 pages, this module's own),
Dynamo's patches of ``torch.nn.Module`` (15), compiled graphs (14), ``os.environ``
(10: Inductor's own variable), ``torch.Tensor.__slotnames__`` (8), an old ``__main__``
alias (4), Inductor's config (2), torch's thread count (2), the fp32 precision
switches (1). Only the filters, the environment and the threads are read after the
page, by what writes it and its record; the rest ends with the process.
"""

from __future__ import annotations

import logging as pylogging
import os
import random
import warnings
from dataclasses import dataclass
from typing import Any

from pagerecords import keep_record

#: Whether a warning a page (or a rank of its scripts) shows fails the build. Under a
#: torch older than the releases the records cover (``nox -s docs -- --installed-torch``
#: with an older one; ``since.py`` decides) that release's own deprecation warnings are
#: a fact about it, not a fault of the page: they are printed in the build's log.
warnings_fail_pages = True


@dataclass(frozen=True)
class PageState:
    """What a page may change that its own process reads after it.

    Attributes
    ----------
    torch_threads : int
        ``torch.get_num_threads()``: the record's machine stamp says it.
    environ : dict
        A copy of ``os.environ``: the stamp reads ``CXX``, the record's commit ``CHEATSHEET_COMMIT``.
    warning_filters : tuple
        ``warnings.filters``: while they turn warnings into errors, a warning from
        what writes the page would fail it.
    """

    torch_threads: int
    environ: dict[str, str]
    warning_filters: tuple[Any, ...]

    @classmethod
    def capture(cls) -> PageState:
        """Record the current state."""
        import torch

        return cls(torch.get_num_threads(), dict(os.environ), tuple(warnings.filters))

    def restore(self) -> None:
        """Put every recorded setting back."""
        import torch

        torch.set_num_threads(self.torch_threads)
        for name in os.environ.keys() - self.environ.keys():
            del os.environ[name]
        for name, value in self.environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        # resetwarnings() also forgets which warnings were already shown once.
        warnings.resetwarnings()
        warnings.filters[:] = self.warning_filters  # type: ignore[index]  # a list at run time


_start: PageState | None = None


def reset_state(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Start the page from seeded generators, warnings as errors; after it, restore the state.

    Before the page, the state (:class:`PageState`) is noted and every warning that
    would be shown becomes an error: a warning the page does not catch fails the build
    instead of being printed into the page. Warnings Python hides by default (a
    library's own ``DeprecationWarning``) stay hidden, as they are for a reader. After
    the page, the state is put back before the page's record is written.
    """
    global _start
    import numpy as np
    import torch

    if when == "before":
        _start = PageState.capture()
        random.seed(0)
        np.random.seed(0)
        torch.manual_seed(0)
        # A CUDA build of torch on a machine without a GPU (this site's pinned wheel on
        # a CPU build machine) logs "No CUDA runtime is found, using CUDA_HOME=..." at
        # every C++ compile: a fact about the build machine, not about the page.
        pylogging.getLogger("torch.utils.cpp_extension").setLevel(pylogging.ERROR)
        if warnings_fail_pages:
            _raise_shown_warnings()
    elif _start is not None:
        _start.restore()
    keep_record(gallery_conf, fname, when)


def _raise_shown_warnings() -> None:
    # Each filter that would print a warning raises it instead, and so does the
    # default action for a warning no filter matches; "ignore" filters stay.
    warnings.filters[:] = [  # type: ignore[index]  # a list at run time
        f if f[0] == "ignore" else ("error", *f[1:]) for f in warnings.filters
    ]
    warnings.simplefilter("error", append=True)  # also tells warnings the filters changed
