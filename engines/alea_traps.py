"""Sky City ALEA trap cards (トラップカード): their conditions, the deck file, exact odds.

A condition is text, parsed once at load into a small tree whose nodes test face
counts. Every test takes an integer array ``counts`` of shape (6, M) -- row f-1 holds
the number of dice showing f in each of M throws -- and returns M booleans, so the
engine (M = 1, the table) and the odds (M = every possible throw of n dice) share one
implementation.

Condition grammar (one term, or terms joined by ``and`` / ``or``; ``and`` binds tighter;
letters may be lower case, ``≥`` is read as ``>=`` and ``count(3) = 2`` as ``== 2``):

========================  ===========  ==============================================
text                      kind         triggered when the table holds ...
========================  ===========  ==============================================
``1 1 2``                 faces        at least these faces, counted with multiplicity
``A A B``, ``6 A A``      letters      letters = faces, different letters = different
                                       faces; a letter may equal a listed digit, and
                                       then the counts add (``6 A A`` with A = 6 needs
                                       three 6s)
``total >= 20``           total        a sum of faces of 20 or more
``? (2,3,4) >= 5``        any_of       5 or more dice showing any of 2, 3, 4
``count(3) == 2/4``       count_is     exactly 2 or exactly 4 dice showing 3
``count(6) > count(1)``   count_more   more 6s than 1s (one 6 and no 1 triggers)
========================  ===========  ==============================================
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from engines.core import Command, read_toml

__all__ = [
    "CardError",
    "Card",
    "Condition",
    "parse_condition",
    "card_from",
    "cards_from",
    "load_deck",
    "triggered",
    "trap_odds",
    "trap_odds_exact",
    "odds_table",
    "KINDS",
    "MAX_DICE",
]

#: Every kind of condition term, as ``Condition.kinds()`` names them.
KINDS = ("faces", "letters", "total", "any_of", "count_is", "count_more", "and", "or")
#: The most dice a table can hold (5 seats x 5 dice); odds are given for 0..MAX_DICE.
MAX_DICE = 25
PLAYER_COUNTS = (3, 4, 5)


class CardError(ValueError):
    """A trap card that cannot be used; the message names the file, the card and why."""


# --- condition tree ----------------------------------------------------------------------


class Condition:
    """A node of a parsed trap condition."""

    kind = "?"

    def test(self, counts: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def kinds(self) -> set[str]:
        return {self.kind}


@dataclass(frozen=True)
class Faces(Condition):
    """Listed faces (``digits``: how many of each face, 1..6) and letters (``letters``:
    how many times each letter is written, largest first).

    Digits are taken first; the letters then need pairwise different faces among what
    is left. Giving the largest letter group the face with the most dice left is always
    best, so comparing both sides sorted decides it without trying every assignment.
    """

    digits: tuple[int, ...]
    letters: tuple[int, ...]

    @property
    def kind(self) -> str:  # type: ignore[override]
        return "letters" if self.letters else "faces"

    def test(self, counts: np.ndarray) -> np.ndarray:
        result = np.ones(counts.shape[1], dtype=bool)
        for f, d in enumerate(self.digits):
            if d:
                result &= counts[f] >= d
        if self.letters:
            left = counts - np.asarray(self.digits, dtype=counts.dtype)[:, None] if any(self.digits) else counts
            # Sorted residuals r1 >= r2 >= ... cover the letters iff, for each letter
            # size m, at least (number of letters of size >= m) faces have m or more left.
            for m in sorted(set(self.letters)):
                needed = sum(1 for x in self.letters if x >= m)
                result &= (left >= m).sum(axis=0) >= needed
        return result


@dataclass(frozen=True)
class Total(Condition):
    at_least: int
    kind = "total"

    def test(self, counts: np.ndarray) -> np.ndarray:
        total = counts[0].astype(np.int32)
        for f in range(1, 6):
            total = total + (f + 1) * counts[f]
        return total >= self.at_least


@dataclass(frozen=True)
class AnyOf(Condition):
    faces: tuple[int, ...]
    at_least: int
    kind = "any_of"

    def test(self, counts: np.ndarray) -> np.ndarray:
        return counts[[f - 1 for f in self.faces]].sum(axis=0) >= self.at_least


@dataclass(frozen=True)
class CountIs(Condition):
    face: int
    values: tuple[int, ...]
    kind = "count_is"

    def test(self, counts: np.ndarray) -> np.ndarray:
        return np.isin(counts[self.face - 1], self.values)


@dataclass(frozen=True)
class CountMore(Condition):
    face: int
    than: int
    kind = "count_more"

    def test(self, counts: np.ndarray) -> np.ndarray:
        return counts[self.face - 1] > counts[self.than - 1]


@dataclass(frozen=True)
class Combined(Condition):
    op: str  # "and" | "or"
    parts: tuple[Condition, ...]

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.op

    def test(self, counts: np.ndarray) -> np.ndarray:
        results = [p.test(counts) for p in self.parts]
        out = results[0]
        for r in results[1:]:
            out = (out & r) if self.op == "and" else (out | r)
        return out

    def kinds(self) -> set[str]:
        out = {self.op}
        for p in self.parts:
            out |= p.kinds()
        return out


# --- parsing -----------------------------------------------------------------------------

_GRAMMAR_HINT = (
    "write faces/letters like '1 1 2' or '6 A A', 'total >= N', '? (2,3,4) >= N', "
    "'count(F) == N' or 'count(F) == N/M', 'count(F) > count(G)', joined by 'and' / 'or'"
)
_TOTAL = re.compile(r"total\s*>=\s*(\d+)", re.I)
_ANY_OF = re.compile(r"\?\s*\(\s*([1-6](?:\s*,\s*[1-6])*)\s*\)\s*>=\s*(\d+)")
_COUNT_IS = re.compile(r"count\(\s*([1-6])\s*\)\s*==?\s*(\d+(?:\s*/\s*\d+)*)", re.I)
_COUNT_MORE = re.compile(r"count\(\s*([1-6])\s*\)\s*>\s*count\(\s*([1-6])\s*\)", re.I)
_TOKEN = re.compile(r"[1-6]|[A-Za-z]")


def _faces(digits: list[int], letters: list[str]) -> Faces:
    counts = [0] * 6
    for d in digits:
        counts[d - 1] += 1
    groups = sorted((letters.count(x) for x in set(letters)), reverse=True)
    return Faces(tuple(counts), tuple(groups))


def _parse_term(text: str) -> Condition:
    term = text.strip()
    if m := _TOTAL.fullmatch(term):
        return Total(int(m.group(1)))
    if m := _ANY_OF.fullmatch(term):
        faces = tuple(sorted({int(f) for f in m.group(1).split(",")}))
        return AnyOf(faces, int(m.group(2)))
    if m := _COUNT_IS.fullmatch(term):
        values = tuple(sorted({int(v) for v in m.group(2).split("/")}))
        if max(values) > MAX_DICE:
            raise ValueError(f"'{term}' asks for more than {MAX_DICE} dice, which no table holds")
        return CountIs(int(m.group(1)), values)
    if m := _COUNT_MORE.fullmatch(term):
        a, b = int(m.group(1)), int(m.group(2))
        if a == b:
            raise ValueError(f"'{term}' compares a face with itself and can never trigger")
        return CountMore(a, b)
    tokens = term.split()
    if tokens and all(_TOKEN.fullmatch(t) for t in tokens):
        digits = [int(t) for t in tokens if t.isdigit()]
        letters = [t.upper() for t in tokens if not t.isdigit()]
        if len(set(letters)) > 6:
            raise ValueError(f"'{term}' uses more than 6 different letters, but a die has 6 faces")
        if len(tokens) > MAX_DICE:
            raise ValueError(f"'{term}' needs more than {MAX_DICE} dice, which no table holds")
        return _faces(digits, letters)
    raise ValueError(f"cannot read '{term}'; {_GRAMMAR_HINT}")


def parse_condition(text: str) -> Condition:
    """Parse a condition (see the module docstring); ``ValueError`` says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"the condition is empty; {_GRAMMAR_HINT}")
    ors = []
    for alternative in re.split(r"\s+or\s+", text.strip().replace("≥", ">="), flags=re.I):
        ands = [_parse_term(t) for t in re.split(r"\s+and\s+", alternative, flags=re.I)]
        ors.append(ands[0] if len(ands) == 1 else Combined("and", tuple(ands)))
    return ors[0] if len(ors) == 1 else Combined("or", tuple(ors))


# --- cards and decks ---------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """One trap card: id, English and Japanese names, the player counts, the condition."""

    id: str
    name: str
    name_ja: str
    players: tuple[int, ...]
    condition: str
    tree: Condition

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "name_ja": self.name_ja,
            "players": list(self.players),
            "condition": self.condition,
        }


_CARD_KEYS = {"id", "name", "name_ja", "players", "condition"}


def card_from(raw: Any, source: str = "options", default_players: tuple[int, ...] | None = None) -> Card:
    """A card from a TOML table or an options dict; ``CardError`` names source, card, reason.

    ``players`` is required unless ``default_players`` is given (cards passed in a game's
    options may leave it out: they are then used with every player count).
    """
    if not isinstance(raw, Mapping):
        raise CardError(f"{source}: a card must be a table with id, name, players, condition; saw {raw!r}")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id.strip():
        raise CardError(f"{source}: a card has no 'id' (saw {card_id!r}); give each card a short id like \"T01\"")

    def fail(reason: str) -> CardError:
        return CardError(f"{source}: card {card_id}: {reason}")

    unknown = sorted(set(raw) - _CARD_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {unknown}; a card has {sorted(_CARD_KEYS)}")
    name = raw.get("name", card_id)
    name_ja = raw.get("name_ja", name)
    if not isinstance(name, str) or not isinstance(name_ja, str):
        raise fail("'name' and 'name_ja' must be text")
    players = raw.get("players", None if default_players is None else list(default_players))
    if (
        not isinstance(players, list)
        or not players
        or any(isinstance(p, bool) or p not in PLAYER_COUNTS for p in players)
    ):
        raise fail(f"'players' must be a list of player counts among 3, 4, 5 (like [3, 4]); saw {players!r}")
    if len(set(players)) != len(players):
        raise fail(f"'players' lists a count twice: {players!r}")
    condition = raw.get("condition")
    if not isinstance(condition, str):
        raise fail(f"'condition' must be text like \"1 1 2\"; saw {condition!r}")
    try:
        tree = parse_condition(condition)
    except ValueError as exc:
        raise fail(str(exc)) from None
    return Card(card_id, name, name_ja, tuple(sorted(players)), condition.strip(), tree)


def cards_from(
    raw_cards: Iterable[Any], source: str = "options", default_players: tuple[int, ...] | None = None
) -> tuple[Card, ...]:
    """Cards from a list of tables; ids must be unique."""
    cards = tuple(card_from(raw, source, default_players) for raw in raw_cards)
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise CardError(f"{source}: card {card.id}: the id is used twice; give each card its own id")
        seen.add(card.id)
    if not cards:
        raise CardError(f"{source}: the deck has no cards")
    return cards


@lru_cache(maxsize=8)
def _load_deck_cached(path: str | None) -> tuple[Card, ...]:
    source, data = read_toml("data/alea.toml", path, CardError)
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list):
        raise CardError(f"{source}: no cards found; write each card as a [[card]] table")
    return cards_from(raw_cards, source)


def load_deck(path: str | Path | None = None) -> tuple[Card, ...]:
    """The trap cards of a deck file (the packaged default deck when ``path`` is None)."""
    return _load_deck_cached(None if path is None else str(path))


def counts_of(faces: Iterable[int]) -> np.ndarray:
    """The (6, 1) count array of one set of faces."""
    counts = np.zeros((6, 1), dtype=np.int16)
    for face in faces:
        counts[face - 1, 0] += 1
    return counts


def triggered(card: Card, faces: Iterable[int]) -> bool:
    """Whether the dice showing ``faces`` trigger ``card``."""
    return bool(card.tree.test(counts_of(faces))[0])


# --- exact odds ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _prefixes() -> tuple[np.ndarray, np.ndarray]:
    """Every (c1..c5) with c1+..+c5 <= MAX_DICE, and their sums."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(5):
        sums = rows.sum(axis=1)
        parts = []
        for v in range(MAX_DICE + 1):
            keep = rows[sums + v <= MAX_DICE]
            parts.append(np.hstack([keep, np.full((len(keep), 1), v, dtype=np.int64)]))
        rows = np.vstack(parts)
    return rows, rows.sum(axis=1)


@lru_cache(maxsize=MAX_DICE + 1)
def _throws(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every face-count vector of n dice, with its multinomial weight split in 32-bit halves.

    The weight n!/(c1!..c6!) is below 2**63 for n <= 25, but the sum of many is not, so
    sums are taken over the low and high halves separately and joined in Python ints.
    """
    prefixes, sums = _prefixes()
    keep = sums <= n
    counts = np.hstack([prefixes[keep], (n - sums[keep])[:, None]])
    binom = np.zeros((MAX_DICE + 1, MAX_DICE + 1), dtype=np.int64)
    for a in range(MAX_DICE + 1):
        for b in range(a + 1):
            binom[a, b] = _comb(a, b)
    weight = np.ones(len(counts), dtype=np.int64)
    running = counts[:, 0].copy()
    for f in range(1, 6):
        running = running + counts[:, f]
        weight = weight * binom[running, counts[:, f]]
    return np.ascontiguousarray(counts.T.astype(np.int16)), weight & 0xFFFFFFFF, weight >> 32


@lru_cache(maxsize=None)
def _comb(a: int, b: int) -> int:
    from math import comb

    return comb(a, b)


def trap_odds_exact(card: Card | Condition, n: int) -> Fraction:
    """The exact probability that n fresh dice trigger the card (enumeration, no sampling)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_DICE:
        raise ValueError(f"n must be a number of dice from 0 to {MAX_DICE}, saw {n!r}")
    tree = card.tree if isinstance(card, Card) else card
    counts, low, high = _throws(n)
    hit = tree.test(counts)
    ways = int(low[hit].sum()) + (int(high[hit].sum()) << 32)
    return Fraction(ways, 6**n)


def trap_odds(card: Card | Condition, n: int) -> float:
    """``trap_odds_exact`` as a float (correctly rounded)."""
    return float(trap_odds_exact(card, n))


def odds_table(cards: Iterable[Card], max_dice: int = MAX_DICE) -> dict[str, list[float]]:
    """``{card id: [P(trigger) for n = 0..max_dice]}`` for each card."""
    return {card.id: [trap_odds(card, n) for n in range(max_dice + 1)] for card in cards}


# --- the `dicetable odds` command ------------------------------------------------------


def _run_odds(args: Any, out: Any, clock: Any = None) -> int:
    """`dicetable odds`: the table of exact odds (raises ValueError for bad arguments)."""
    try:
        cards = load_deck(args.deck)
    except CardError as exc:
        raise ValueError(str(exc)) from None
    if args.players is not None:
        cards = tuple(c for c in cards if args.players in c.players)
    if args.card is not None:
        cards = tuple(c for c in cards if c.id == args.card)
        if not cards:
            known = ", ".join(c.id for c in load_deck(args.deck))
            raise ValueError(f"no card {args.card!r} in the deck; the cards are {known}")
    if not 0 <= args.max_dice <= MAX_DICE:
        raise ValueError(f"--max must be 0..{MAX_DICE}, saw {args.max_dice}")
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
    run=_run_odds,
)
