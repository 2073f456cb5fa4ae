"""Subcommands: replay, odds.

``dicetable replay SCRIPT`` plays a game script (docs/replay.md) through its engine and
prints one JSON line per event, then the final public view. ``dicetable odds`` prints the
exact chance that n fresh dice trigger each ALEA trap card.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

#: Exit status for a script that cannot be played (bad JSON, bad first line, unknown game).
EXIT_BAD_SCRIPT = 2


def register(sub) -> None:
    """Add this module's subcommands to the `dicetable` parser."""
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

    p = sub.add_parser(
        "odds",
        help="exact chance that n fresh dice trigger each ALEA trap card",
        description="Print, for each trap card, the exact probability that n fresh dice "
        "(n = 0..25) trigger it.",
    )
    p.add_argument("--card", help="only this card id (e.g. T05)")
    p.add_argument("--players", type=int, choices=(3, 4, 5), help="only the cards used with this many players")
    p.add_argument("--deck", help="a deck file instead of the packaged one (same format as engines/data/alea.toml)")
    p.add_argument("--max", type=int, default=25, dest="max_dice", help="largest number of dice (default 25)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=run_odds)


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
            'the script is empty; its first line must be like {"game": "alea", "seats": [...], "options": {}, "seed": 7}'
        )
    return header, events


def _check_header(number: int, value: Any) -> dict[str, Any]:
    example = '{"game": "alea", "seats": [{"name": "Aki", "colour": "red"}, ...], "options": {}, "seed": 7}'
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


def run_odds(args: argparse.Namespace) -> int:
    from engines.alea_traps import MAX_DICE, CardError, load_deck, trap_odds_exact

    try:
        cards = load_deck(args.deck)
    except CardError as exc:
        print(f"dicetable odds: {exc}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    if args.players is not None:
        cards = tuple(c for c in cards if args.players in c.players)
    if args.card is not None:
        cards = tuple(c for c in cards if c.id == args.card)
        if not cards:
            known = ", ".join(c.id for c in load_deck(args.deck))
            print(f"dicetable odds: no card {args.card!r} in the deck; the cards are {known}", file=sys.stderr)
            return EXIT_BAD_SCRIPT
    if not 0 <= args.max_dice <= MAX_DICE:
        print(f"dicetable odds: --max must be 0..{MAX_DICE}, saw {args.max_dice}", file=sys.stderr)
        return EXIT_BAD_SCRIPT
    ns = range(args.max_dice + 1)
    table = {c.id: [trap_odds_exact(c, n) for n in ns] for c in cards}
    if args.json:
        payload = {
            "n": list(ns),
            "cards": [
                {**c.as_dict(), "odds": [float(p) for p in table[c.id]], "exact": [str(p) for p in table[c.id]]}
                for c in cards
            ],
        }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    _print_odds_table(cards, table, ns)
    return 0


def _print_odds_table(cards, table, ns) -> None:
    for c in cards:
        print(f"{c.id}  {c.name} ({', '.join(map(str, c.players))} players): {c.condition}")
    if len(cards) == 1:
        card = cards[0]
        print()
        print(f"{'dice':>4}  {'P(trap)':>8}  exact")
        for n in ns:
            p = table[card.id][n]
            print(f"{n:>4}  {float(p):>8.6f}  {p}")
        return
    print()
    print("Probability that n fresh dice trigger the card:")
    print("dice " + " ".join(f"{c.id:>6}" for c in cards))
    for n in ns:
        print(f"{n:>4} " + " ".join(f"{float(table[c.id][n]):>6.4f}" for c in cards))
