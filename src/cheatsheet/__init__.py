"""Helpers for the runnable PyTorch 2 cheat sheet: devices, timing, comparisons and tables, statistics, the machine stamp.

What readers use is here, in ``__all__``, and in the public modules (``device``,
``timing``, ``stats``, ``report``, ``hardware``). The modules whose names start with an
underscore serve the site's build and tests only (running blocks and torchrun scripts,
entries, records, the environment variables) and may change without notice;
``import cheatsheet`` loads none of them but ``_records`` and ``_variables``.
"""

from cheatsheet.device import ENV_VAR, available_devices, check_device, pick_device, synchronize
from cheatsheet.hardware import machine_id
from cheatsheet.report import (
    SAME_BAND,
    SESSIONS,
    Comparison,
    Environment,
    Ratio,
    compare,
    environment,
)
from cheatsheet.stats import median_interval, quartiles
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
    "machine_id",
    "median_interval",
    "pick_device",
    "quartiles",
    "startup_cost",
    "synchronize",
]
