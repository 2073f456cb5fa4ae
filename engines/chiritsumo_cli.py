"""``dicetable chiritsumo-best``: the highest-scoring Chiritsumo pyramid for the dice given.

The command-line side of ``engines/chiritsumo_pyramid.py``'s ``best_pyramid``; the rules
module re-exports ``COMMANDS`` (``pi.cli`` reads ``engine.COMMANDS``).
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engines.chiritsumo_pyramid import (
    COLOURS,
    JA,
    best_pyramid,
    dice_text,
    layout_dice,
    rows_json,
    score_pyramid,
)
from engines.core import Command, DataError, Die, ascii_int, short

__all__ = ["COMMANDS", "BEST_HELP", "parse_dice", "best_text", "run_best"]

_SHORT = {c[0]: c for c in COLOURS}  # c, y, r, b
_MOST = 10  # dice in a pyramid
BEST_HELP = (
    "Dice as COLOUR:FACE, several faces of one colour as COLOUR:F,F,F; colours clear, yellow, "
    "red, blue (or c, y, r, b); at most 10 dice. Example: clear:3 yellow:4,4,2 red:4,5,3 blue:3,3,4"
)


def parse_dice(words: Sequence[str]) -> list[Die]:
    """Dice from command-line words like ``clear:3`` or ``yellow:4,4,2``; DataError if bad
    (a face is written in ASCII digits)."""
    dice: list[Die] = []
    for word in words:
        colour, sep, faces = word.partition(":")
        colour = _SHORT.get(colour.lower(), colour.lower())
        if not sep or colour not in COLOURS:
            raise DataError(f"cannot read {short(word)}: write each die as COLOUR:FACE, e.g. red:4 or yellow:4,4,2 "
                            "(colours clear, yellow, red, blue)",
                            f"{short(word)} を読めません。ダイスは red:4 や yellow:4,4,2 のように「色:目」で書いてください"
                            "（色は clear, yellow, red, blue）")
        for face in faces.split(","):
            value = ascii_int(face.strip())
            if value is None or not 1 <= value <= 6:
                raise DataError(f"cannot read {short(word)}: a face is 1 to 6, saw {short(face)}",
                                f"{short(word)} を読めません。目は1〜6です（{short(face)}）")
            dice.append(Die(colour, value))
    if not dice:
        raise DataError("no dice given; " + BEST_HELP, f"{JA['dice']}がありません。例: clear:3 yellow:4,4,2 red:4,5,3 blue:3,3,4")
    if len(dice) > _MOST:
        raise DataError(f"a pyramid holds at most {_MOST} dice, saw {len(dice)}",
                        f"{JA['pyramid']}に置ける{JA['dice']}は最大{_MOST}個です（{len(dice)}個）")
    return dice


def _cell(die: Die | None) -> str:
    return " .. " if die is None else f" {die.colour[0].upper()}{die.face} "


def best_text(dice: Sequence[Die], rows: Any, total: int, seconds: float) -> str:
    """The best pyramid as text: the rows (apex on top), the patterns and points, the total."""
    scored = score_pyramid(rows)
    lines = [f"Best pyramid for {dice_text(dice)}: {total} points ({seconds:.3f} s)", ""]
    for r in range(3, -1, -1):
        lines.append("  " * r + "".join(_cell(d) for d in rows[r]))
    lines.append("")
    for p in scored["patterns"]:
        where = " ".join(f"({r},{i})" for r, i in p["places"]) if p["pattern"] != "fuji" else "all 10 places"
        colour = p["colour"] or ""
        lines.append(f"  {p['pattern']:<8} {JA[p['pattern']]:<2} {colour:<7} {where:<24} +{p['points']}")
    if scored["bonus"]:
        apex = rows[3][0]
        lines.append(f"  {'complete':<8} {JA['complete']} {'':<6} apex {apex.face} x 3{'':<15} +{scored['bonus']}")
    if not scored["patterns"] and not scored["bonus"]:
        lines.append("  no pattern")
    lines.append(f"  total {total}")
    unplaced = _unplaced(dice, rows)
    if unplaced:
        lines.append(f"  unplaced: {dice_text(unplaced)}")
    lines.append("  (row, place) from the bottom-left, starting at 0")
    return "\n".join(lines) + "\n"


def _unplaced(dice: Sequence[Die], rows: Any) -> list[Die]:
    left = Counter(layout_dice(rows))
    out = []
    for d in dice:
        if left[d]:
            left[d] -= 1
        else:
            out.append(d)
    return out


def run_best(args: Any, out: Any, clock: Any) -> int:
    """``dicetable chiritsumo-best DICE... [--json]``: exit 0, or 2 for unreadable dice."""
    try:
        dice = parse_dice(args.dice)
    except DataError as exc:
        sys.stderr.write(f"dicetable chiritsumo-best: {exc}\n")
        return 2
    start = clock()
    rows, total, patterns = best_pyramid(dice)
    seconds = clock() - start
    if getattr(args, "json", False):
        scored = score_pyramid(rows)
        payload = {
            "dice": [[d.colour, d.face] for d in dice],
            "rows": rows_json(rows),
            "total": total,
            "patterns": patterns,
            "bonus": scored["bonus"],
            "complete": scored["complete"],
            "fuji": scored["fuji"],
            "unplaced": [[d.colour, d.face] for d in _unplaced(dice, rows)],
            "seconds": round(seconds, 4),
        }
        out.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return 0
    out.write(best_text(dice, rows, total, seconds))
    return 0


COMMANDS = (
    Command(
        name="chiritsumo-best",
        help="the highest-scoring Chiritsumo pyramid for the dice given",
        description="Print the best legal pyramid (exact search) for up to 10 dice: the rows with the apex "
        "on top, each pattern with its points, the completion bonus and the total. " + BEST_HELP + ". "
        "Exit status 2: dice that cannot be read.",
        arguments=(
            (("dice",), {"nargs": "+", "metavar": "COLOUR:FACE", "help": BEST_HELP}),
            (("--json",), {"action": "store_true", "help": "print one JSON object instead of text"}),
        ),
        run=run_best,
    ),
)
