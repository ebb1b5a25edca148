"""What the machine is, read without torch: CPU model and signature, memory.

The stamp of a machine (``cheatsheet.environment``), its id in the records
(``records.machine_id``) and the build's page inputs (``docs/_ext/sitebuild.py``) all
read the CPU here, so that they agree.
"""

from __future__ import annotations

import os
import platform
import sys

__all__ = ["cpu_model", "cpu_signature", "memory_gib"]

# /proc/cpuinfo fields that tell CPUs of one marketing name apart: x86's family, model
# and stepping (a VM may show only "AMD EPYC"), Arm's implementer, part and variant.
_SIGNATURE_FIELDS = (
    ("cpu family", "family"),
    ("model", "model"),
    ("stepping", "stepping"),
    ("CPU implementer", "implementer"),
    ("CPU part", "part"),
    ("CPU variant", "variant"),
)


def _cpuinfo() -> dict[str, str]:
    """Return the first processor's fields of /proc/cpuinfo; empty where there is none."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break  # one processor is enough: they are alike
                    continue
                name, _, value = line.partition(":")
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    return fields


def cpu_model() -> str:
    """Return the CPU's model name ("AMD EPYC 9454 48-Core Processor", "Apple M3 Max")."""
    name = _cpuinfo().get("model name")
    if name:
        return name
    if sys.platform == "darwin":
        import subprocess

        out = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return platform.processor() or platform.machine() or "unknown"


def cpu_signature() -> str:
    """Return what tells CPUs of one model name apart: "family 25 model 1 stepping 1".

    Empty where /proc/cpuinfo does not exist (macOS, Windows): there the model name
    names the chip.
    """
    info = _cpuinfo()
    return " ".join(f"{short} {info[name]}" for name, short in _SIGNATURE_FIELDS if name in info)


def memory_gib() -> int:
    """Return the machine's memory in GiB, rounded; 0 where the OS does not say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0
    return round(pages * size / 2**30) if pages > 0 and size > 0 else 0
