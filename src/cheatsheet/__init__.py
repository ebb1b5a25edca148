"""Helpers for the runnable PyTorch 2 cheat sheet: devices, timing, tables, machine stamp."""

from cheatsheet.device import ENV_VAR, available_devices, pick_device, synchronize
from cheatsheet.report import Comparison, Environment, compare, environment, speedup_phrase
from cheatsheet.timing import Measurement, benchmark, format_seconds

__all__ = [
    "ENV_VAR",
    "Comparison",
    "Environment",
    "Measurement",
    "available_devices",
    "benchmark",
    "compare",
    "environment",
    "format_seconds",
    "pick_device",
    "speedup_phrase",
    "synchronize",
]
