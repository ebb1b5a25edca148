"""Walk every page of the built site in Chromium, as the site walk test does, and time it.

Each walk (a viewport, every page loaded once and checked in each colour mode) prints
its time, and for each mode where the time went: loading pages, injecting axe-core,
settling and running the checks. The walk itself, and why it is
shaped the way it is, is ``tools/sitewalk.py``, which ``tests/test_site_walk.py`` runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from sitewalk import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MODES,
    SITE,
    TABS,
    VIEWPORTS,
    Visit,
    pages,
    serve,
    walk,
)


def _summary(name: str, visits: dict[str, Visit]) -> str:
    loads = [v.load_s for v in visits.values()]
    axes = [v.axe_s for v in visits.values()]
    slowest = max(visits.values(), key=lambda v: v.axe_s)
    return (
        f"{name:8s} {len(visits)} pages  "
        f"load {sum(loads):6.1f} s (median {statistics.median(loads):.2f})  "
        f"inject {sum(v.inject_s for v in visits.values()):5.1f} s  "
        f"axe {sum(axes):6.1f} s (median {statistics.median(axes):.2f}, "
        f"slowest {slowest.axe_s:.1f} on {slowest.page})  "
        f"largest shift {max(v.layout_shift for v in visits.values()):.3f}"
        + "".join(f"\n  {v.page} loaded again after: {'; '.join(v.stalled)}"
                  for v in visits.values() if v.stalled)
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Walk the built site in every viewport and mode; print the time each walk took."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, nargs="+", default=[TABS],
                        help=f"pages in flight at once; several values compare them (default {TABS})")  # fmt: skip
    parser.add_argument("--only", nargs="+", default=[], choices=list(VIEWPORTS),
                        help="viewports to walk (default: both)")  # fmt: skip
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES),
                        help="colour modes, in the order each page shows them (default: both)")  # fmt: skip
    parser.add_argument("pages", nargs="*", help="pages to visit (default: every page)")
    args = parser.parse_args(argv)
    if not (SITE / "index.html").exists():
        sys.exit(f"no built site at {SITE}: build it first with `nox -s docs`")
    from playwright.sync_api import sync_playwright

    server = serve(SITE)
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    paths = args.pages or pages(SITE)
    print(f"{len(paths)} pages, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for tabs in args.tabs:
            total = 0.0
            for viewport in args.only or list(VIEWPORTS):
                start = time.perf_counter()
                walked = walk(browser, base_url, paths, viewport, tuple(args.modes), tabs=tabs)
                seconds = time.perf_counter() - start
                total += seconds
                print(f"{viewport} x{tabs}: {seconds:.1f} s for {len(paths)} pages in "
                      f"{len(walked)} mode(s)", flush=True)  # fmt: skip
                for mode, visits in walked.items():
                    print(_summary(f"  {mode}", visits), flush=True)
            print(f"{'all':12s} {total:7.1f} s with {tabs} tab(s)", flush=True)
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
