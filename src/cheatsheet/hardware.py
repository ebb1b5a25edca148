"""What the machine is, read without torch: CPU model and signature, memory.

The stamp of a machine (``cheatsheet.environment``), its id in the records
(:func:`machine_id`) and the build's page inputs (``docs/_ext/sitebuild.py``) all
read the CPU here, so that they agree.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
from typing import Any

__all__ = ["cpu_model", "cpu_signature", "machine_id", "memory_gib"]

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


def machine_id(machine: dict[str, Any]) -> str:
    """Return a short, stable, file-name-safe name for a machine stamp.

    Built from the CPU model, the core count and the GPUs, e.g.
    ``amd-epyc-9454-2c`` or ``intel-xeon-8480-16c-nvidia-h100-80gb``. A stamp that
    carries the CPU's signature or the memory (``cheatsheet.environment`` writes both)
    adds six hex digits of them: two VMs that both show "AMD EPYC" with two cores, on
    other CPU generations or with other memory, get different ids
    (``amd-epyc-2c-3f9a1c``) and their records do not hide each other.
    """
    parts = [machine["cpu"], f"{machine['logical_cores']}c", *machine.get("gpus", [])]
    text = "-".join(parts).lower()
    text = re.sub(r"\(r\)|\(tm\)|processor|cpu @ [\d.]+ghz|\d+-core", "", text)
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:80].rstrip("-") or "unknown-machine"
    signature, memory = machine.get("cpu_signature", ""), machine.get("memory_gib", 0)
    if not (signature or memory):
        return slug  # a stamp from before they were recorded
    told = f"{machine['cpu']}|{signature}|{memory}|{'|'.join(machine.get('gpus', []))}"
    return f"{slug}-{hashlib.sha256(told.encode()).hexdigest()[:6]}"
