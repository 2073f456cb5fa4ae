"""Subcommands: replay, and the commands each game offers (its ``COMMANDS``).

``dicetable replay SCRIPT`` plays a game script (docs/replay.md) through its engine and
prints one JSON line per event, then the final public view.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from typing import IO, Any, Iterator, TextIO

from engines.core import short

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
    p.add_argument("--speak", metavar="DIR", help="instead, write the table's announcements of the game as "
                   "numbered WAV files and DIR/index.jsonl (docs/voice.md)")
    p.add_argument("--lang", choices=("ja", "en"), default="ja", help="the language spoken with --speak (default ja)")
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


#: The longest script line read (characters, or bytes of a file): an event is a few hundred.
MAX_LINE = 1_000_000
#: The deepest lists and objects inside each other (a pyramid layout is 4 deep); Python's
#: own parser gives up near 1,000 with a RecursionError.
MAX_DEPTH = 100
#: The most digits of a whole number (a seed has at most 19); Python refuses to read an
#: integer of more than 4,300.
MAX_DIGITS = 100


class _Unreadable(ValueError):
    """A line's JSON that replay will not take; the message says why, without the line."""


def _whole_number(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Unreadable(f"a whole number of {digits:,} digits; numbers in a script have at most {MAX_DIGITS}")
    return int(text)


def _finite_number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unreadable(f"the number {text if len(text) <= 30 else text[:27] + '...'} is too large")
    return value


def _no_constant(name: str) -> None:
    raise _Unreadable(f"{name} is not a JSON number; write a number")


#: Strict JSON: no NaN or Infinity (whose echo would not be JSON), no absurd numbers.
_DECODER = json.JSONDecoder(parse_int=_whole_number, parse_float=_finite_number, parse_constant=_no_constant)
_TOO_DEEP = f"lists and objects nested more than {MAX_DEPTH} deep; no script needs that"


def _check_value(value: Any) -> None:
    """Raise ``_Unreadable`` for nesting deeper than ``MAX_DEPTH``, or for text holding a
    lone surrogate (``"\\ud800"``: half of a UTF-16 pair, not a character; UTF-8 output
    cannot hold it)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise _Unreadable(f"the text holds \\u{ord(item[exc.start]):04x}, half of a UTF-16 surrogate pair "
                                  "and not a character; write the character itself") from None
        elif isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise _Unreadable(_TOO_DEEP)
            children = item if isinstance(item, list) else [*item, *item.values()]
            pending.extend((child, depth + 1) for child in children)


def _parse(number: int, text: str) -> Any:
    """The JSON value of script line ``number``; ``ScriptError`` saying what is wrong with it."""
    try:
        value = _DECODER.decode(text)
        _check_value(value)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except _Unreadable as exc:
        raise ScriptError(f"line {number}: {exc}") from None
    except RecursionError:
        raise ScriptError(f"line {number}: {_TOO_DEEP}") from None
    return value


def _lines(stream: IO) -> Iterator[tuple[int, str]]:
    """Each line of a script and its number, from a binary stream (decoded as UTF-8) or a
    text stream; ``ScriptError`` for a line that is too long, not UTF-8 or unreadable."""
    for number in itertools.count(1):
        try:
            line = stream.readline(MAX_LINE + 1)
        except OSError as exc:
            raise ScriptError(f"cannot read line {number}: {exc.strerror}") from None
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
            raise ScriptError(f"line {number} is longer than {MAX_LINE:,} characters; each line holds one event")
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                raise ScriptError(f"line {number} is not UTF-8 text; save the script as UTF-8") from None
        yield number, line.removeprefix("\ufeff") if number == 1 else line  # a byte-order mark some editors write


def read_script(stream: IO) -> tuple[dict[str, Any], list[tuple[int, Any]]]:
    """The header and the ``(line number, event)`` pairs of a script (a binary stream, read
    as UTF-8, or a text stream).

    Blank lines and lines starting with ``#`` are skipped. Raises ``ScriptError`` for a
    line that is not strict JSON within the limits above, or a header without a game and
    seats.
    """
    header: dict[str, Any] | None = None
    events: list[tuple[int, Any]] = []
    for number, line in _lines(stream):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        value = _parse(number, text)
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
        raise ScriptError(f"line {number}: \"options\" must be an object, saw {short(options)}")
    seed = value.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScriptError(f"line {number}: \"seed\" must be a whole number, saw {short(seed)}")
    return {"game": value["game"], "seats": seats, "options": options, "seed": seed, "line": number}


def play_script(stream: IO, out: TextIO, seat: str | None = None) -> int:
    """Play a script from ``stream`` (binary, read as UTF-8, or text), writing the JSON
    lines to ``out``; the exit status.

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
        raise ScriptError(f"--seat {short(seat)} is not at the table; the seats are {', '.join(s.name for s in state.seats)}")
    records = [
        {"line": number, "accepted": True, "event": step.event} if step.accepted
        else {"line": number, "accepted": False, "event": step.event, "error": step.error}
        for (number, _), step in zip(events, steps)
    ]
    records.append({"final": game.view(state, seat)})
    # Every line strict JSON: the script's numbers are finite, and a NaN from an engine
    # stops here with a ValueError rather than being printed; all is written or nothing.
    lines = [json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n" for record in records]
    for line in lines:  # line by line: one huge write to a pipe whose reader left ends short, not with EPIPE
        out.write(line)
    out.flush()  # a reader that went away is seen here (exit 141), not after main returned
    return 0


def run_replay(args: argparse.Namespace) -> int:
    if getattr(args, "speak", None):
        from pi.voice.script import run_speak

        return run_speak(args)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")  # the output is UTF-8 whatever the locale
    try:
        if args.script == "-":
            return play_script(getattr(sys.stdin, "buffer", sys.stdin), sys.stdout, args.seat)
        try:
            stream = open(args.script, "rb")
        except OSError as exc:
            raise ScriptError(f"cannot read {args.script}: {exc.strerror}") from None
        with stream:
            return play_script(stream, sys.stdout, args.seat)
    except ScriptError as exc:
        print(f"dicetable replay: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
