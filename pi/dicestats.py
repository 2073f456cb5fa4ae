"""Are the table's dice fair? Faces seen per colour and a chi-square test of fairness.

Pearson's chi-square test compares the counts of each face with the counts a fair die
gives (n / sides each). Its p-value is the chance that a fair die scatters at least this
much: a small p-value (below 0.01, say) means the die or the way it is thrown is likely
biased. The chi-square approximation only means something once every face is expected at
least 5 times, so a d6 needs 30 throws of that colour, a d20 100 (``rolls_needed``).

The faces counted are those the games applied (a corrected throw's corrected faces, a
throw typed because the camera was down), and, outside a game, those the camera read
(``store.thrown()``).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from engines.core import FACES

#: The smallest expected count per face for the chi-square approximation to hold.
MIN_EXPECTED = 5


@dataclass(frozen=True)
class FaceStats:
    colour: str
    sides: int
    counts: dict[int, int]
    rolls: int
    chi2: float
    p_value: float | None  # None until the test means something
    rolls_needed: int

    def as_dict(self) -> dict[str, Any]:
        return {"colour": self.colour, "sides": self.sides, "counts": self.counts, "rolls": self.rolls,
                "chi2": round(self.chi2, 3), "p_value": None if self.p_value is None else round(self.p_value, 4),
                "rolls_needed": self.rolls_needed}


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with ``dof`` degrees of freedom: the regularised
    upper incomplete gamma function Q(dof/2, x/2) (series below a+1, continued fraction above)."""
    if x <= 0:
        return 1.0
    a, z = dof / 2.0, x / 2.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:  # the series of P(a, z)
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= z / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction of Q(a, z)
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def face_stats(colour: str, sides: int, faces: Iterable[int]) -> FaceStats:
    counts = Counter(faces)
    n = sum(counts.values())
    expected = n / sides if sides else 0
    chi2 = sum((counts.get(f, 0) - expected) ** 2 / expected for f in FACES[sides]) if n else 0.0
    needed = MIN_EXPECTED * sides
    p_value = chi2_sf(chi2, sides - 1) if n >= needed else None
    return FaceStats(colour, sides, {f: counts.get(f, 0) for f in FACES[sides]}, n, chi2, p_value, needed)


def from_store(store: Any) -> list[FaceStats]:
    """Statistics per colour and kind of die from every throw the store counts
    (``store.thrown()``): each die a game applied, and each freshly thrown, readable die of
    a camera read outside a game (a die lying still since the last roll is the same throw)."""
    faces: dict[tuple[str, int], list[int]] = {}
    for dice in store.thrown():
        for die in dice:
            die = _as_dict(die)
            if _fresh(die):
                faces.setdefault((die["colour"], int(die.get("sides", 6) or 6)), []).append(int(die["face"]))
    return [face_stats(colour, sides, values) for (colour, sides), values in sorted(faces.items())]


def _as_dict(die: Any) -> dict[str, Any]:
    """A die as events write it, ``[colour, face(, sides)]`` or a dict, as a dict."""
    if isinstance(die, Mapping):
        return dict(die)
    if isinstance(die, list) and len(die) >= 2:
        return {"colour": die[0], "face": die[1], "sides": die[2] if len(die) > 2 else 6}
    return {}


def _fresh(die: Mapping[str, Any]) -> bool:
    """A readable die just thrown: an applied throw's (no status), or a read one new or rethrown."""
    sides = int(die.get("sides", 6) or 6)
    return (die.get("status", "new") in ("new", "rethrown") and isinstance(die.get("colour"), str)
            and bool(die.get("colour")) and not die.get("cocked") and sides in FACES and die.get("face") in FACES[sides])
