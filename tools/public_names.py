"""The public names of this torch, namespace by namespace, and what one release added.

The "What changed" pages list what a release added. This script makes that list from
the releases themselves instead of from release notes: run under each torch, it writes
the public names of the namespaces the pages compare, and ``--diff`` prints what the
newer file has that the older lacks. ::

    python tools/public_names.py results/public-names/torch-2.15.0.json
    python tools/public_names.py --diff results/public-names/torch-2.14.1.json \
        results/public-names/torch-2.15.0.json

A namespace's public names are its ``__all__`` where it has one, otherwise every name of
``dir()`` without a leading underscore, less the modules it imported from outside torch
(``torch.os`` is not an API). ``tests/test_whats_new.py`` holds the newest page to the
committed files: every name added there is named on the page.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import types
import warnings
from pathlib import Path

# The namespaces a reader imports from, and the ones a release page compares.
NAMESPACES = (
    "torch",
    "torch.accelerator",
    "torch.amp",
    "torch.autograd",
    "torch.autograd.graph",
    "torch.compiler",
    "torch.compiler.config",
    "torch.compiler.precompile",
    "torch.cuda",
    "torch.distributed",
    "torch.distributed.checkpoint",
    "torch.distributed.device_mesh",
    "torch.distributed.fsdp",
    "torch.distributed.tensor",
    "torch.export",
    "torch.fft",
    "torch.foreach",
    "torch.func",
    "torch.linalg",
    "torch.mps",
    "torch.nested",
    "torch.nn",
    "torch.nn.attention",
    "torch.nn.functional",
    "torch.nn.utils",
    "torch.optim",
    "torch.optim.functional",
    "torch.profiler",
    "torch.sparse",
    "torch.special",
    "torch.testing",
    "torch.utils.data",
)


def public_names(module: types.ModuleType) -> list[str]:
    """Return the public names of ``module``, sorted (the rule in the module docstring)."""
    declared = getattr(module, "__all__", None)
    names = list(declared) if declared is not None else [n for n in dir(module) if n[:1] != "_"]
    kept = []
    for name in names:
        value = getattr(module, name, None)
        if isinstance(value, types.ModuleType) and not value.__name__.startswith("torch"):
            continue
        kept.append(name)
    return sorted(set(kept))


def inventory() -> dict[str, list[str] | None]:
    """Return ``namespace -> public names`` for this torch; None for one it does not have."""
    found: dict[str, list[str] | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated namespaces warn on import
        for namespace in NAMESPACES:
            try:
                module = importlib.import_module(namespace)
            except ImportError:
                found[namespace] = None
                continue
            found[namespace] = public_names(module)
    return found


def added(old: dict, new: dict) -> dict[str, list[str]]:
    """Return ``namespace -> names`` that ``new`` has and ``old`` lacks (a new namespace whole)."""
    diff = {}
    for namespace, names in new.items():
        if names is None:
            continue
        before = set(old.get(namespace) or ())
        fresh = [n for n in names if n not in before]
        if fresh:
            diff[namespace] = fresh
    return diff


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="write this torch's names here")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = parser.parse_args(argv)
    if args.diff:
        old, new = (json.loads(p.read_text(encoding="utf-8")) for p in args.diff)
        for namespace, names in added(old["names"], new["names"]).items():
            print(f"{namespace}: {len(names)} added")
            print("    " + ", ".join(names))
        return 0
    if args.out is None:
        parser.error("name the file to write, or --diff OLD NEW")
    import torch

    record = {"torch": torch.__version__, "git": torch.version.git_version, "names": inventory()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(len(v or ()) for v in record['names'].values())} names of torch "
          f"{torch.__version__} in {args.out}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
