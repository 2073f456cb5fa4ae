"""The `dicetable` command.

Each room of the house registers its own subcommands; heavy imports (onnxruntime,
flask, torch) happen inside the handlers, so `dicetable --help` stays fast.
"""
from __future__ import annotations

import argparse
import os
import sys


def build_parser() -> argparse.ArgumentParser:
    from pi import appliance, loadtest, pin, replay
    from vision import cli as vision_cli

    parser = argparse.ArgumentParser(
        prog="dicetable",
        description="A table companion for physical dice games.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay.register(sub)  # replay, odds
    vision_cli.register(sub)  # detect, evaluate, bench, calibrate
    appliance.register(sub)  # demo, run, bench-table
    loadtest.register(sub)  # loadtest
    pin.register(sub)  # pin
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (`dicetable odds | head`): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
