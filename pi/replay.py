"""Subcommands: replay, and the commands each game offers (its ``COMMANDS``).

``dicetable replay SCRIPT`` plays a game script (docs/replay.md) through its engine and
prints one JSON line per event, then the final public view.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

#: Exit status for a script that cannot be played (bad JSON, bad first line, unknown game).
EXIT_BAD_SCRIPT = 2


def register(sub) -> None:
    """Add this module's subcommands to the `dicetable` parser, and every game's own."""
    p = sub.add_parser(
        "replay",
        help="play a game script (JSON lines) through the rules and print what happened",
        description="Apply each event of a game script and print one JSON line per event "
        "(accepted, or rejected with the reason), then the final public view. "
        "The format is in docs/replay.md. Exit status 2: the script itself is malformed.",
    )
    p.add_argument("script", help="the script file, or - for standard input")
    p.add_argument("--seat", help="also show this seat's own view (its secrets) in the final line")
    p.set_defaults(handler=run_replay)
    register_game_commands(sub)


def register_game_commands(sub) -> None:
    """Each game engine's ``COMMANDS`` (``engines.core.Command``) as `dicetable` subcommands."""
    import engines

    for name in engines.GAMES:
        try:
            engine = engines.load(name)
        except ValueError:  # a game whose engine is not written yet
            continue
        for command in getattr(engine, "COMMANDS", ()):
            p = sub.add_parser(command.name, help=command.help, description=command.description)
            for flags, kwargs in command.arguments:
                p.add_argument(*flags, **dict(kwargs))
            p.set_defaults(handler=_game_command(command))


def _game_command(command: Any):
    import time

    def handler(args: argparse.Namespace) -> int:
        try:
            return int(command.run(args, sys.stdout, time.perf_counter) or 0)
        except ValueError as exc:  # bad arguments: one line that says what to fix
            print(f"dicetable {command.name}: {exc}", file=sys.stderr)
            return EXIT_BAD_SCRIPT

    return handler


class ScriptError(ValueError):
    """A game script that cannot be played; the message names the line."""


def read_script(stream: TextIO) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """The header and the ``(line number, event)`` pairs of a script.

    Blank lines and lines starting with ``#`` are skipped. Raises ``ScriptError`` for a
    line that is not JSON or a header without a game and seats.
    """
    header: dict[str, Any] | None = None
    events: list[tuple[int, Any]] = []
    try:
        lines = stream.read().removeprefix("\ufeff").split("\n")  # a byte-order mark some editors write
    except UnicodeDecodeError:
        raise ScriptError("the script is not UTF-8 text; save it as UTF-8") from None
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScriptError(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if header is None:
            header = _check_header(number, value)
        else:
            events.append((number, value))
    if header is None:
        raise ScriptError(
            'the script is empty; its first line must be like {"game": NAME, "seats": [...], "options": {}, "seed": 7}'
        )
    return header, events


def _check_header(number: int, value: Any) -> dict[str, Any]:
    example = '{"game": NAME, "seats": [{"name": "Aki", "colour": "red"}, ...], "options": {}, "seed": 7}'
    if not isinstance(value, dict):
        raise ScriptError(f"line {number}: the first line must be an object like {example}")
    unknown = sorted(set(value) - {"game", "seats", "colours", "colors", "options", "seed", "comment"})
    if unknown:
        raise ScriptError(f"line {number}: unknown key(s) {unknown} in the first line; it has game, seats, options, seed")
    if not isinstance(value.get("game"), str):
        raise ScriptError(f"line {number}: the first line has no \"game\"; write it like {example}")
    seats = value.get("seats")
    if not isinstance(seats, list):
        raise ScriptError(f"line {number}: the first line has no \"seats\" list; write it like {example}")
    colours = value.get("colours", value.get("colors"))
    if colours is not None:  # the short form: "seats": ["Aki", ...], "colours": ["red", ...]
        if not isinstance(colours, list) or len(colours) != len(seats) or not all(isinstance(s, str) for s in seats):
            raise ScriptError(
                f"line {number}: with \"colours\", give \"seats\" as a list of names and \"colours\" as a list "
                f"of the same length, like \"seats\": [\"Aki\", \"Ben\", \"Chika\"], \"colours\": [\"red\", \"blue\", \"green\"]"
            )
        seats = [{"name": s, "colour": c} for s, c in zip(seats, colours)]
    options = value.get("options", {})
    if not isinstance(options, dict):
        raise ScriptError(f"line {number}: \"options\" must be an object, saw {options!r}")
    seed = value.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScriptError(f"line {number}: \"seed\" must be a whole number, saw {seed!r}")
    return {"game": value["game"], "seats": seats, "options": options, "seed": seed, "line": number}


def play_script(stream: TextIO, out: TextIO, seat: str | None = None) -> int:
    """Play a script from ``stream``, writing the JSON lines to ``out``; the exit status.

    Raises ``ScriptError`` when the script cannot be played (nothing is written then).
    """
    import engines
    from engines.core import SetupError

    header, events = read_script(stream)
    try:
        game = engines.load(header["game"])
    except ValueError as exc:  # unknown game, or engines.GameNotImplemented
        raise ScriptError(f"line {header['line']}: {exc}") from None
    try:
        state, steps = engines.replay(
            game, header["seats"], header["options"], header["seed"], (e for _, e in events)
        )
    except SetupError as exc:
        raise ScriptError(f"line {header['line']}: the first line cannot start a game: {exc}") from None
    if seat is not None and seat not in [s.name for s in state.seats]:
        raise ScriptError(f"--seat {seat!r} is not at the table; the seats are {', '.join(s.name for s in state.seats)}")
    for (number, _), step in zip(events, steps):
        if step.accepted:
            record = {"line": number, "accepted": True, "event": step.event}
        else:
            record = {"line": number, "accepted": False, "event": step.event, "error": step.error}
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.write(json.dumps({"final": game.view(state, seat)}, ensure_ascii=False) + "\n")
    return 0


def run_replay(args: argparse.Namespace) -> int:
    try:
        if args.script == "-":
            return play_script(sys.stdin, sys.stdout, args.seat)
        try:
            stream = open(args.script, encoding="utf-8")
        except OSError as exc:
            raise ScriptError(f"cannot read {args.script}: {exc.strerror}") from None
        with stream:
            return play_script(stream, sys.stdout, args.seat)
    except ScriptError as exc:
        print(f"dicetable replay: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
