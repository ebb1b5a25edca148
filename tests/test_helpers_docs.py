"""The examples in the docstrings that the helpers page shows run as a reader copies them."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

HELPERS = Path(__file__).parent.parent / "docs" / "helpers.md"
# `.. autofunction:: cheatsheet.format_seconds` and its kin: what the page renders.
SHOWN = re.findall(r"^\.\. auto\w+:: (cheatsheet[\w.]*)$", HELPERS.read_text(), re.MULTILINE)


def _resolve(dotted: str) -> object:
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError:  # a class's method, say
        return getattr(_resolve(module), name)


def test_the_helpers_page_shows_objects_with_examples():
    examples = [d for d in SHOWN if ">>>" in (getattr(_resolve(d), "__doc__", None) or "")]
    assert "cheatsheet.format_seconds" in examples


@pytest.mark.parametrize("dotted", SHOWN)
def test_a_docstring_example_runs_alone_as_the_page_shows_it(dotted):
    # No module globals: the example imports what it uses, as a pasted snippet must
    # (format_seconds's example once called it without importing it).
    finder = doctest.DocTestFinder(recurse=False)
    for test in finder.find(_resolve(dotted), dotted, globs={}):
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
        assert result.failed == 0, f"{dotted}'s example fails when run on its own"
