"""Helpers for the runnable PyTorch 2 cheat sheet: devices, timing, tables, machine stamp.

``cheatsheet.distributed.run`` (imported as a submodule, not re-exported as
``run``) launches a function on several local ranks.
"""

from cheatsheet import distributed
from cheatsheet.device import ENV_VAR, available_devices, check_device, pick_device, synchronize
from cheatsheet.distributed import DistributedRunError, DistributedTimeoutError, RunResult
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
    "DistributedRunError",
    "DistributedTimeoutError",
    "Environment",
    "Measurement",
    "Ratio",
    "RunResult",
    "StartupCost",
    "available_devices",
    "benchmark",
    "check_device",
    "compare",
    "distributed",
    "environment",
    "format_seconds",
    "interleave",
    "pick_device",
    "startup_cost",
    "synchronize",
]
