"""The helper package's public names: what ``import cheatsheet`` offers, pinned.

A name the pages or readers use must not vanish or appear by accident: adding or
removing one is a change to this list, made on purpose (as httpx pins its own).
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path

import cheatsheet

PUBLIC = {
    "Comparison",
    "ENV_VAR",
    "Environment",
    "Measurement",
    "Ratio",
    "SAME_BAND",
    "SESSIONS",
    "StartupCost",
    "available_devices",
    "benchmark",
    "check_device",
    "compare",
    "environment",
    "format_seconds",
    "interleave",
    "machine_id",
    "median_interval",
    "pick_device",
    "quartiles",
    "startup_cost",
    "synchronize",
}


def test_all_lists_exactly_the_pinned_names():
    assert set(cheatsheet.__all__) == PUBLIC
    assert len(cheatsheet.__all__) == len(PUBLIC), "a name is listed twice in __all__"


def test_every_public_attribute_is_in_all_and_every_listed_name_exists():
    public = {
        name
        for name, value in vars(cheatsheet).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(cheatsheet.__all__)
    assert all(hasattr(cheatsheet, name) for name in cheatsheet.__all__)


def test_each_exported_name_says_where_it_lives():
    for name in cheatsheet.__all__:
        value = getattr(cheatsheet, name)
        if callable(value):
            assert value.__module__.startswith("cheatsheet."), name
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


# The modules readers may import, and those only the build and the tests use.
PUBLIC_MODULES = {"device", "hardware", "report", "stats", "timing"}
BUILD_ONLY = {"_blocks", "_blockserver", "_entries", "_records", "_torchrun", "_variables"}


def test_the_package_holds_exactly_its_public_and_build_only_modules():
    package = Path(cheatsheet.__file__).parent
    modules = {p.stem for p in package.glob("*.py")} - {"__init__", "__main__"}
    assert modules == PUBLIC_MODULES | BUILD_ONLY
    assert all(name.startswith("_") for name in BUILD_ONLY)


def test_import_cheatsheet_loads_no_build_machinery():
    """Readers' ``import cheatsheet`` must not pull in what runs blocks, scripts or entries."""
    import subprocess

    listing = "import cheatsheet, sys; print(sorted(m for m in sys.modules if 'cheatsheet.' in m))"
    loaded = subprocess.run(
        [sys.executable, "-c", listing], capture_output=True, text=True, check=True
    ).stdout
    for name in ("_blocks", "_blockserver", "_entries", "_torchrun"):
        assert f"cheatsheet.{name}" not in loaded, loaded
    for name in PUBLIC_MODULES:
        assert importlib.import_module(f"cheatsheet.{name}").__all__, name  # each says its own
