"""The `dicetable` command.

Each room of the house registers its own subcommands; heavy imports (onnxruntime,
flask, torch) happen inside the handlers, so `dicetable --help` stays fast.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import sys

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEPT_FREE = 32 << 20  # bytes


def build_parser() -> argparse.ArgumentParser:
    from hardware import wiring
    from pi import __version__, appliance, bench, loadtest, pin, replay
    from pi.voice import script as voice_script
    from vision import cli as vision_cli

    parser = argparse.ArgumentParser(
        prog="dicetable",
        description="A table companion for physical dice games.",
    )
    parser.add_argument("--version", action="version", version=f"dicetable {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    replay.register(sub)  # replay, odds
    vision_cli.register(sub)  # detect, evaluate, bench, calibrate
    appliance.register(sub)  # demo, run, bench-table
    bench.register(sub)  # bench --report
    loadtest.register(sub)  # loadtest
    pin.register(sub)  # pin
    voice_script.register(sub)  # bench-voice
    wiring.register(sub)  # wiring
    return parser


def reuse_frame_buffers() -> bool:
    """Have glibc's malloc keep freed buffers of up to 32 MB for the next frame.

    By default it hands each frame-sized buffer back to the kernel when freed: a decoded
    photo (1.2 MB at 640x640), the detector's input (1.7 MB) and their copies. The next
    frame then faults fresh zeroed pages in again, 1.3 ms of a busy 640x640 photo's 12
    (models/MODEL.md, "Speed"). Kept, they are reused by the next frame; the appliance's
    peak memory grew 9 MB (`dicetable bench-table`). A 12-megapixel photo (36 MB) is still
    given back. Returns whether both settings took: not without glibc (macOS, musl), and
    on 32-bit glibc only the second (its largest mmap threshold is 512 KB)."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    kept = mallopt(_M_MMAP_THRESHOLD, _KEPT_FREE) == 1
    return mallopt(_M_TRIM_THRESHOLD, _KEPT_FREE) == 1 and kept


def main(argv: list[str] | None = None) -> int:
    reuse_frame_buffers()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (`dicetable odds | head`): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (KeyboardInterrupt, EOFError):  # Ctrl-C, or Ctrl-D at a prompt: stop quietly, as other tools do
        print(file=sys.stderr)
        return 130
    except OSError as exc:  # what no handler expects: the output's disk is full, a device went away
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"dicetable {args.command}: {exc.strerror or exc}{where}; nothing more was done", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
