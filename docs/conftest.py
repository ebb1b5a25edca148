"""Run every Python fence of the hand-written pages, in page order, one namespace per page."""

from sybil import Sybil
from sybil.parsers.myst import PythonCodeBlockParser

pytest_collect_file = Sybil(
    parsers=[PythonCodeBlockParser()],
    patterns=["*.md"],
    excludes=["gallery/*"],
).pytest()
