"""Helpers for the runnable PyTorch 2 cheat sheet: devices, timing, tables, machine stamp.

``cheatsheet.torchrun``, which the build and the tests use to run the pages' scripts
for ``torchrun``, is a submodule that ``import cheatsheet`` does not load.
"""

from cheatsheet.device import ENV_VAR, available_devices, check_device, pick_device, synchronize
from cheatsheet.report import (
    SAME_BAND,
    SESSIONS,
    Comparison,
    Environment,
    Ratio,
    compare,
    environment,
)
from cheatsheet.timing import (
    Measurement,
    StartupCost,
    benchmark,
    format_seconds,
    interleave,
    startup_cost,
)

__all__ = [
    "ENV_VAR",
    "SAME_BAND",
    "SESSIONS",
    "Comparison",
    "Environment",
    "Measurement",
    "Ratio",
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
]
