"""The helper package's public names: what ``import cheatsheet`` offers, pinned.

A name the pages or readers use must not vanish or appear by accident: adding or
removing one is a change to this list, made on purpose (as httpx pins its own).
"""

from __future__ import annotations

import types

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
    "pick_device",
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
