"""Watching successive frames: moving / settled, cocked dice, and each die's identity.

Settling. Two frames *agree* when they hold the same number of dice and every die of one
can be paired with a die of the other at the same place (centres closer than
`move_tolerance` times the die's size), with the same face and the same colour. The table
is "settled" once `settle_frames` consecutive frames agree with the first frame of their run
(comparing with that first frame, not only with the previous one, so a die creeping slowly
does not pass for still); before that it is "moving", and with no dice at all "empty".
A `Roll` is reported once, on the frame where the table settles into a layout that differs
from the last reported roll; it is not reported again while the table stays still, nor
when the table settles back into the reported layout (a hand passing over the dice).

Cocked dice. A die whose face was not read (`Detection.readable`: leaning on another die
or on the rim) or with a confidence below `min_confidence` is flagged `cocked=True`, its face kept as read:
the table asks the players to fix it instead of guessing a face. A d6 whose face the
classifier reads at `PLAIN_FACE` or more (`Detection.face_prob`) is not flagged for a low
confidence alone: that is the detector's box score (a die turned 45 degrees fills a
square box least), not doubt about the face (docs/model-history.md, "2026-11-30, at night").

Identity (rule applied when a roll is reported, against the previous reported roll):
  1. still: a die at the place of a previous die (within the tolerance) with the same
     colour, kind and face keeps that die's id; so does one whose face is unsure in either
     reading (the reader's doubt about a die lying still is no throw);
  2. rethrown: each previous die not found at its place is matched to a remaining die of
     the same (known) colour, the nearest ones first, and that die keeps its id; a die of
     unknown colour (None) is never taken for a rethrown one;
  3. new: every other die gets a fresh id. Previous dice left unmatched were taken off the
     table: they vanish (their ids are listed in `Roll.removed`).
Both matchings are optimal assignments (Hungarian algorithm): the most pairs first, then
the smallest total distance. `reset()` starts a new round: what lands next is all new.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from vision.detector import Detection, face_read

Box = tuple[float, float, float, float]

STATES = ("empty", "moving", "settled")
STATUSES = ("new", "rethrown", "still")

_FORBIDDEN = 1e9  # cost of a pair that must not be matched
#: A d6 read with at least this face probability is not cocked for a low confidence alone.
PLAIN_FACE = 0.9


@dataclass(frozen=True)
class TrackedDie:
    """A die of a settled roll: `id` stays the same across rolls while it is the same die;
    `status` is "new", "rethrown" or "still"; `cocked` flags an unreadable face."""

    id: int
    colour: str | None
    face: int
    box: Box
    confidence: float
    status: str
    cocked: bool
    sides: int = 6
    sure: bool = True  # the model read the face (False: unreadable, face 0)

    @property
    def readable(self) -> bool:
        return face_read(self.face, self.sides, self.sure)


@dataclass(frozen=True)
class Roll:
    """A settled layout of the table: its dice sorted by id, the time of the frame that
    settled it, and the ids of previous dice no longer on the table."""

    dice: tuple[TrackedDie, ...]
    t: float
    removed: tuple[int, ...] = ()

    @property
    def cocked(self) -> tuple[TrackedDie, ...]:
        """The dice whose face could not be read reliably."""
        return tuple(d for d in self.dice if d.cocked)

    def with_status(self, status: str) -> tuple[TrackedDie, ...]:
        if status not in STATUSES:
            raise ValueError(f"unknown die status {status!r}; expected one of {', '.join(STATUSES)}")
        return tuple(d for d in self.dice if d.status == status)

    def faces_by_colour(self) -> dict[str | None, list[int]]:
        """Faces of the readable (not cocked) dice by colour name (None = unknown), in id
        order."""
        faces: dict[str | None, list[int]] = {}
        for die in self.dice:
            if not die.cocked:
                faces.setdefault(die.colour, []).append(die.face)
        return faces


@dataclass(frozen=True)
class SettleStatus:
    """What one frame says: `state` in "empty", "moving", "settled"; `roll` only on the
    update that reports a new settled roll, else None."""

    state: str
    roll: Roll | None = None


class Settler:
    """Turns a stream of per-frame detections into settled rolls with die identities."""

    def __init__(self, settle_frames: int = 3, move_tolerance: float = 0.15, min_confidence: float = 0.6):
        if not isinstance(settle_frames, int) or settle_frames < 1:
            raise ValueError(f"settle_frames must be a whole number of frames >= 1, got {settle_frames!r}")
        if not 0.0 < move_tolerance < 1.0:
            raise ValueError(
                f"move_tolerance is a fraction of the die's size, between 0 and 1; got {move_tolerance!r}"
            )
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be between 0 and 1, got {min_confidence!r}")
        self.settle_frames = settle_frames
        self.move_tolerance = move_tolerance
        self.min_confidence = min_confidence
        self._anchor: tuple[Detection, ...] | None = None  # first frame of the agreeing run
        self._run = 0  # frames in the agreeing run
        self._handled = False  # the run's layout was already reported (or found unchanged)
        self._reported: tuple[Detection, ...] | None = None  # layout of the last roll
        self._previous: tuple[TrackedDie, ...] = ()  # dice of the last roll
        self._next_id = 1

    def reset(self) -> None:
        """A new round: forget the dice; everything that lands next is new. Dice lying
        still now are not reported again until the table changes."""
        self._reported = None
        self._previous = ()

    def update(self, detections: Iterable[Detection], t: float) -> SettleStatus:
        """Take one frame's detections (taken at time `t`, seconds)."""
        frame = tuple(detections)
        if self._anchor is not None and self._agree(self._anchor, frame):
            self._run += 1
        else:
            self._anchor, self._run, self._handled = frame, 1, False
        if not frame:
            return SettleStatus("empty")
        if self._run < self.settle_frames:
            return SettleStatus("moving")
        if self._handled:
            return SettleStatus("settled")
        self._handled = True
        if self._reported is not None and self._agree(self._reported, frame):
            return SettleStatus("settled")  # settled back into the reported layout
        roll = self._identify(frame, t)
        self._reported, self._previous = frame, roll.dice
        return SettleStatus("settled", roll)

    # --------------------------------------------------------------------------------

    def _close(self, a: Box, b: Box) -> bool:
        return _distance(a, b) <= self.move_tolerance * (_size(a) + _size(b)) / 2.0

    def _agree(self, first: Sequence[Detection], second: Sequence[Detection]) -> bool:
        if len(first) != len(second):
            return False
        pairs = _match(
            first,
            second,
            lambda a, b: _same_reading(a, b) and self._close(a.box, b.box),
            lambda a, b: _distance(a.box, b.box),
        )
        return len(pairs) == len(first)

    def _identify(self, frame: Sequence[Detection], t: float) -> Roll:
        previous = self._previous
        ids: dict[int, tuple[int, str]] = {}  # frame index -> (id, status)
        still = _match(
            previous,
            frame,
            lambda p, d: _same_die(p, d) and self._close(p.box, d.box),
            lambda p, d: _distance(p.box, d.box),
        )
        for i, j in still:
            ids[j] = (previous[i].id, "still")
        moved = [i for i in range(len(previous)) if i not in {i for i, _ in still}]
        landed = [j for j in range(len(frame)) if j not in ids]
        rethrown = _match(
            [previous[i] for i in moved],
            [frame[j] for j in landed],
            lambda p, d: d.colour is not None and p.colour == d.colour,
            lambda p, d: _distance(p.box, d.box),
        )
        for i, j in rethrown:
            ids[landed[j]] = (previous[moved[i]].id, "rethrown")
        removed = tuple(
            sorted(previous[moved[i]].id for i in range(len(moved)) if i not in {i for i, _ in rethrown})
        )
        dice = []
        for j, detection in enumerate(frame):
            if j not in ids:
                ids[j] = (self._next_id, "new")
                self._next_id += 1
            die_id, status = ids[j]
            read = _readable(detection)
            dice.append(
                TrackedDie(
                    id=die_id,
                    colour=detection.colour,
                    face=detection.face,
                    box=tuple(float(v) for v in detection.box),  # type: ignore[arg-type]
                    confidence=float(detection.confidence),
                    status=status,
                    cocked=not read or (detection.confidence < self.min_confidence and not _plain_d6(detection)),
                    sides=getattr(detection, "sides", 6),
                    sure=read,
                )
            )
        dice.sort(key=lambda d: d.id)
        return Roll(dice=tuple(dice), t=float(t), removed=removed)


def _same_reading(a, b) -> bool:
    """Two readings of a die agree: colour, kind, face and whether the face was read."""
    return (a.face == b.face and a.colour == b.colour and getattr(a, "sides", 6) == getattr(b, "sides", 6)
            and _readable(a) == _readable(b))


def _same_die(a, b) -> bool:
    """A die lying still: colour and kind agree, and so does the face unless one of the two
    readings is unsure (a d10 read in one roll and unsure in the next, at the same place, has
    not moved: taking it for a rethrown die would rethrow a die nobody picked up)."""
    return (a.colour == b.colour and getattr(a, "sides", 6) == getattr(b, "sides", 6)
            and (a.face == b.face or not (_readable(a) and _readable(b))))


def _plain_d6(detection) -> bool:
    """A d6 whose face the classifier reads at `PLAIN_FACE` or more: its low confidence is the
    detector's box score (a die turned 45 degrees in its square box), not a face in doubt."""
    return getattr(detection, "sides", 6) == 6 and (getattr(detection, "face_prob", None) or 0.0) >= PLAIN_FACE


def _readable(detection) -> bool:
    """Whether a detection's face was read (a plain object with box, face, confidence and
    colour counts as a d6, read unless its face is 0)."""
    readable = getattr(detection, "readable", None)
    return bool(readable) if readable is not None else detection.face != 0


def _centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def _size(box: Box) -> float:
    return ((box[2] - box[0]) + (box[3] - box[1])) / 2.0


def _distance(a: Box, b: Box) -> float:
    (ax, ay), (bx, by) = _centre(a), _centre(b)
    return math.hypot(ax - bx, ay - by)


def _match(first: Sequence, second: Sequence, allowed: Callable, cost: Callable) -> list[tuple[int, int]]:
    """Pairs (i, j) of an optimal assignment between `first` and `second` among the allowed
    pairs: as many pairs as possible, then the smallest total cost."""
    if not first or not second:
        return []
    matrix = [[cost(a, b) if allowed(a, b) else _FORBIDDEN for b in second] for a in first]
    return [(i, j) for i, j in _assign(matrix) if matrix[i][j] < _FORBIDDEN]


def _assign(cost: list[list[float]]) -> list[tuple[int, int]]:
    """Minimum-cost assignment of a rectangular matrix (Hungarian algorithm with
    potentials, O(n^2 m)): pairs (row, column), one per row of the smaller side."""
    n, m = len(cost), len(cost[0])
    if n > m:
        transposed = [list(column) for column in zip(*cost)]
        return sorted((i, j) for j, i in _assign(transposed))
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)  # owner[j]: the row (1-based) assigned to column j, 0 = none
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        owner[0] = row
        j0 = 0
        minv = [math.inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], math.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    current = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if current < minv[j]:
                        minv[j], way[j] = current, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    return sorted((owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j])
