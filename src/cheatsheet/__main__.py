"""Command line: ``python -m cheatsheet info [--json]`` prints this machine's stamp."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from cheatsheet.device import pick_device
from cheatsheet.report import environment


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m cheatsheet",
        description="Helpers of the runnable PyTorch 2 cheat sheet.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    info = commands.add_parser(
        "info",
        help="print the hardware and software stamp of this machine",
        description="Print the hardware and software stamp of this machine.",
    )
    info.add_argument("--json", action="store_true", help="print JSON for machines")
    args = parser.parse_args(argv)

    stamp = environment()
    try:
        device = str(pick_device())
    except ValueError as err:  # a bad CHEATSHEET_DEVICE should not hide the stamp
        device = f"error: {err}"
    if args.json:
        print(json.dumps({**stamp.as_dict(), "picked_device": device}, indent=2))
    else:
        print(repr(stamp))
        print(f"{'picked device:':<22}{device}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
