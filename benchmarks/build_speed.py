"""Time the site build: cold, nothing changed, and one example touched.

Targets, on a 2-core machine: a rebuild with nothing changed in 5 s or
less; after editing one example, 15 s plus that example's own run time.
Run with ``nox -s buildperf``. The cold build deletes ``_build/`` and
``docs/gallery/`` first, so it re-runs every example (several minutes); pass
``--skip-cold`` to reuse the current build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from sitebuild import sphinx_build_command  # found through the path above

SITE_BUILD = sphinx_build_command(ROOT / "noxfile.py")  # `nox -s docs`'s command line
COMMAND = [*SITE_BUILD, "-q"]  # quiet: the build is timed, not read
BUILD = ROOT / SITE_BUILD[-1]
GALLERY = ROOT / "docs" / "gallery"
TOUCHED = ROOT / "examples" / "basics" / "tensor_basics.py"


def _build() -> float:
    start = time.perf_counter()
    subprocess.run(COMMAND, cwd=ROOT, check=True, env={**os.environ, "MPLBACKEND": "agg"})
    return time.perf_counter() - start


def _example_cost(example: Path) -> float:
    """Seconds the example took when sphinx-gallery last ran it."""
    rel = example.relative_to(ROOT / "examples").with_suffix(".cost.json")
    return float(json.loads((GALLERY / rel).read_text(encoding="utf-8"))["time"])


def _per_page_costs() -> list[tuple[str, float]]:
    return [
        (str(example.relative_to(ROOT / "examples")), _example_cost(example))
        for example in sorted((ROOT / "examples").rglob("*.py"))
    ]


def main() -> None:
    """Run the three builds and print their times and each page's run time."""
    results = {}
    if "--skip-cold" not in sys.argv:
        shutil.rmtree(ROOT / "_build", ignore_errors=True)
        shutil.rmtree(GALLERY, ignore_errors=True)
        results["cold build (every example runs)"] = _build()
    elif not (BUILD / "index.html").exists():
        results["first build (every example runs)"] = _build()
    results["rebuild, nothing changed"] = _build()

    original = TOUCHED.read_text(encoding="utf-8")
    try:
        TOUCHED.write_text(
            original + "\n# touched by benchmarks/build_speed.py\n", encoding="utf-8"
        )
        results[f"rebuild, {TOUCHED.name} edited"] = _build()
        own = _example_cost(TOUCHED)
    finally:
        TOUCHED.write_text(original, encoding="utf-8")
    _build()  # leave the site matching the source again

    print("\nPer-page run time (from sphinx-gallery's records):")
    costs = _per_page_costs()
    for name, seconds in costs:
        print(f"  {name:50} {seconds:7.1f} s")
    for topic in sorted({name.split("/")[0] for name, _ in costs}):
        total = sum(s for name, s in costs if name.startswith(topic + "/"))
        print(f"  total of {topic + '/':41} {total:7.1f} s")
    print("\nBuild times:")
    for what, seconds in results.items():
        print(f"  {what:50} {seconds:7.1f} s")
    edited = results[f"rebuild, {TOUCHED.name} edited"]
    print(f"\n  nothing changed: {results['rebuild, nothing changed']:.1f} s (target 5 s)")
    print(
        f"  one example edited: {edited:.1f} s, of which the example itself ran {own:.1f} s; "
        f"overhead {edited - own:.1f} s (target 15 s)"
    )


if __name__ == "__main__":
    main()
