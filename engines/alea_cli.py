"""Sky City ALEA's ``dicetable`` subcommand: ``odds``, the exact chance that n fresh dice
trigger each trap card (``pi.cli`` registers it from ``engines.alea.COMMANDS``)."""
from __future__ import annotations

import json
from typing import Any

from engines.alea_data import deck_for, load_deck
from engines.alea_traps import MAX_DICE, trap_odds_exact
from engines.core import Command, DataError

__all__ = ["ODDS", "COMMANDS"]


def run_odds(args: Any, out: Any, clock: Any = None) -> int:
    """`dicetable odds`: the table of exact odds (a ``DataError``, a ValueError, for bad
    arguments or a deck file that cannot be used)."""
    cards = load_deck(args.deck)
    if args.players is not None:
        cards = deck_for(cards, args.players)
    if args.card is not None:
        cards = tuple(c for c in cards if c.id == args.card)
        if not cards:
            known = ", ".join(c.id for c in load_deck(args.deck))
            raise DataError(f"no card {args.card!r} in the deck; the cards are {known}",
                            f"山札にカード {args.card!r} はありません。カードは {known} です")
    if not 0 <= args.max_dice <= MAX_DICE:
        raise DataError(f"--max must be 0..{MAX_DICE}, saw {args.max_dice}",
                        f"--max は0〜{MAX_DICE}です（{args.max_dice}）")
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
        out.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return 0
    _print_odds_table(cards, table, ns, out)
    return 0


def _print_odds_table(cards: Any, table: Any, ns: Any, out: Any) -> None:
    def print(line: str = "") -> None:
        out.write(line + "\n")

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


ODDS = Command(
    name="odds",
    help="exact chance that n fresh dice trigger each ALEA trap card",
    description="Print, for each trap card, the exact probability that n fresh dice (n = 0..25) trigger it.",
    arguments=(
        (("--card",), {"help": "only this card id (e.g. T05)"}),
        (("--players",), {"type": int, "choices": (3, 4, 5), "help": "only the cards used with this many players"}),
        (("--deck",), {"help": "a deck file instead of the packaged one (same format as engines/data/alea.toml)"}),
        (("--max",), {"type": int, "default": 25, "dest": "max_dice", "help": "largest number of dice (default 25)"}),
        (("--json",), {"action": "store_true", "help": "print JSON instead of a table"}),
    ),
    run=run_odds,
)

COMMANDS = (ODDS,)
