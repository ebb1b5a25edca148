"""The project's layers go one way: the tests and the benchmarks stand on tools/, never on each other.

``tools/`` holds what both use (the site walk, the search's tuning set, the version runs,
the quick reference's printer); ``benchmarks/`` holds scripts that only measure. A test
that imported a benchmark, or a benchmark that imported a test, would tie a
measurement to the suite's fixtures or the suite to a script nobody runs in CI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imported(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def _modules(folder: str) -> set[str]:
    return {p.stem for p in (ROOT / folder).glob("*.py")}


@pytest.mark.parametrize("path", sorted((ROOT / "tests").glob("*.py")), ids=lambda p: p.name)
def test_no_test_imports_a_benchmark(path):
    assert not _imported(path) & _modules("benchmarks")


@pytest.mark.parametrize(
    "path", sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "tools").glob("*.py")]),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)  # fmt: skip
def test_no_benchmark_or_tool_imports_a_test_or_puts_tests_on_the_path(path):
    assert not _imported(path) & _modules("tests")
    lines = path.read_text(encoding="utf-8").splitlines()
    code = [line.split("#")[0] for line in lines]
    assert not [line for line in code if "sys.path" in line and "tests" in line]


def test_pytest_puts_tools_on_the_path_and_not_benchmarks():
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as f:
        paths = tomllib.load(f)["tool"]["pytest"]["ini_options"]["pythonpath"]
    assert "tools" in paths
    assert "benchmarks" not in paths
