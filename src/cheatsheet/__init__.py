"""Helpers for the runnable PyTorch 2 cheat sheet: devices, timing, tables, machine stamp.

``cheatsheet.distributed.run`` (imported as a submodule, not re-exported as
``run``) launches a function on several local ranks.
"""

from cheatsheet import distributed
from cheatsheet.device import ENV_VAR, available_devices, pick_device, synchronize
from cheatsheet.distributed import DistributedRunError, DistributedTimeoutError, RunResult
from cheatsheet.report import Comparison, Environment, compare, environment, speedup_phrase
from cheatsheet.timing import Measurement, benchmark, format_seconds

__all__ = [
    "ENV_VAR",
    "Comparison",
    "DistributedRunError",
    "DistributedTimeoutError",
    "Environment",
    "Measurement",
    "RunResult",
    "available_devices",
    "benchmark",
    "compare",
    "distributed",
    "environment",
    "format_seconds",
    "pick_device",
    "speedup_phrase",
    "synchronize",
]
