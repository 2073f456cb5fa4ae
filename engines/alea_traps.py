"""Sky City ALEA trap cards (トラップカード): their conditions and the exact odds.

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

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from engines.core import DataError, short, whole

__all__ = [
    "Condition",
    "parse_condition",
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
#: The longest condition text a card may have (a printed card holds a few terms).
MAX_CONDITION = 200


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
        row = counts[self.face - 1]
        hit = row == self.values[0]
        for value in self.values[1:]:  # a few values: cheaper than np.isin on one throw
            hit |= row == value
        return hit


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

_HINT = (
    "write faces/letters like '1 1 2' or '6 A A', 'total >= N', '? (2,3,4) >= N', "
    "'count(F) == N' or 'count(F) == N/M', 'count(F) > count(G)', joined by 'and' / 'or'",
    "「1 1 2」「6 A A」のような目や文字、「total >= N」「? (2,3,4) >= N」「count(F) == N」"
    "「count(F) == N/M」「count(F) > count(G)」を and / or でつないで書いてください",
)
# ASCII only: "²", "①" or a full-width digit is not a number in a condition.
_TOTAL = re.compile(r"total\s*>=\s*(\d+)", re.I | re.A)
_ANY_OF = re.compile(r"\?\s*\(\s*([1-6](?:\s*,\s*[1-6])*)\s*\)\s*>=\s*(\d+)", re.A)
_COUNT_IS = re.compile(r"count\(\s*([1-6])\s*\)\s*==?\s*(\d+(?:\s*/\s*\d+)*)", re.I | re.A)
_COUNT_MORE = re.compile(r"count\(\s*([1-6])\s*\)\s*>\s*count\(\s*([1-6])\s*\)", re.I | re.A)
_TOKEN = re.compile(r"[1-6]|[A-Za-z]", re.A)
_OR = re.compile(r"\s+or\s+", re.I | re.A)
_AND = re.compile(r"\s+and\s+", re.I | re.A)


def _faces(digits: list[int], letters: list[str]) -> Faces:
    counts = [0] * 6
    for d in digits:
        counts[d - 1] += 1
    groups = sorted((letters.count(x) for x in set(letters)), reverse=True)
    return Faces(tuple(counts), tuple(groups))


def _refuse(term: str, en: str, ja: str) -> DataError:
    return DataError(f"'{term}' {en}", f"「{term}」{ja}")


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
            raise _refuse(term, f"asks for more than {MAX_DICE} dice, which no table holds",
                          f"は{MAX_DICE}個より多いダイスを求めていますが、場にそれほどのダイスはありません")
        return CountIs(int(m.group(1)), values)
    if m := _COUNT_MORE.fullmatch(term):
        a, b = int(m.group(1)), int(m.group(2))
        if a == b:
            raise _refuse(term, "compares a face with itself and can never trigger",
                          "は同じ目どうしを比べているので、決して発動しません")
        return CountMore(a, b)
    tokens = term.split()
    if tokens and all(_TOKEN.fullmatch(t) for t in tokens):
        digits = [int(t) for t in tokens if t.isdigit()]
        letters = [t.upper() for t in tokens if not t.isdigit()]
        if len(set(letters)) > 6:
            raise _refuse(term, "uses more than 6 different letters, but a die has 6 faces",
                          "は7種類以上の文字を使っていますが、ダイスの目は6種類です")
        if len(tokens) > MAX_DICE:
            raise _refuse(term, f"needs more than {MAX_DICE} dice, which no table holds",
                          f"には{MAX_DICE}個より多いダイスが要りますが、場にそれほどのダイスはありません")
        return _faces(digits, letters)
    raise DataError(f"cannot read '{term}'; {_HINT[0]}", f"「{term}」は読めません。{_HINT[1]}")


def parse_condition(text: Any) -> Condition:
    """Parse a condition (see the module docstring); ``DataError`` says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise DataError(f"the condition is empty; {_HINT[0]}", f"条件が空です。{_HINT[1]}")
    if len(text) > MAX_CONDITION:
        raise DataError(f"the condition {short(text)} is longer than {MAX_CONDITION} characters",
                        f"条件 {short(text)} が{MAX_CONDITION}文字を超えています")
    ors = []
    for alternative in _OR.split(text.strip().replace("≥", ">=")):
        ands = [_parse_term(t) for t in _AND.split(alternative)]
        ors.append(ands[0] if len(ands) == 1 else Combined("and", tuple(ands)))
    return ors[0] if len(ors) == 1 else Combined("or", tuple(ors))


def counts_of(faces: Iterable[int]) -> np.ndarray:
    """The (6, 1) count array of one set of faces."""
    counts = [0] * 6
    for face in faces:
        counts[face - 1] += 1
    return np.array(counts, dtype=np.int16).reshape(6, 1)


def triggered(card: Any, faces: Iterable[int]) -> bool:
    """Whether the dice showing ``faces`` trigger ``card`` (a card or its condition)."""
    return bool(getattr(card, "tree", card).test(counts_of(faces))[0])


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
            binom[a, b] = comb(a, b)
    weight = np.ones(len(counts), dtype=np.int64)
    running = counts[:, 0].copy()
    for f in range(1, 6):
        running = running + counts[:, f]
        weight = weight * binom[running, counts[:, f]]
    return np.ascontiguousarray(counts.T.astype(np.int16)), weight & 0xFFFFFFFF, weight >> 32


def trap_odds_exact(card: Any, n: int) -> Fraction:
    """The exact probability that n fresh dice trigger the card (a card or its condition),
    by enumeration, not sampling."""
    if not whole(n, 0, MAX_DICE):
        raise DataError(f"n must be a number of dice from 0 to {MAX_DICE}, saw {short(n)}",
                        f"ダイスの数は0〜{MAX_DICE}です（{short(n)}）")
    tree = getattr(card, "tree", card)
    counts, low, high = _throws(n)
    hit = tree.test(counts)
    ways = int(low[hit].sum()) + (int(high[hit].sum()) << 32)
    return Fraction(ways, 6**n)


def trap_odds(card: Any, n: int) -> float:
    """``trap_odds_exact`` as a float (correctly rounded)."""
    return float(trap_odds_exact(card, n))


def odds_table(cards: Iterable[Any], max_dice: int = MAX_DICE) -> dict[str, list[float]]:
    """``{card id: [P(trigger) for n = 0..max_dice]}`` for each card."""
    return {card.id: [trap_odds(card, n) for n in range(max_dice + 1)] for card in cards}
