"""Custom faces: a table's own dice, taught from a few labelled photos (`dicetable teach`,
the host page's teaching session).

Some dice carry a logo instead of pips (a maker's emblem on the 6, a star on the 1), a d6
may carry numerals, a d10 or d20 may be written in a font the classifier has never seen:
the classifier reads such a face wrong, or is unsure. A `FaceBook` remembers how this
table's faces look, for each kind of die (6, 10 and 20 sides), and corrects the
classifier where it recognises one.

How it is taught (`FaceBook.teach`): every labelled die of the teaching photos ([x0, y0,
x1, y1, face] for a d6, [..., face, sides] for a d10 or d20) is matched to the detection
whose centre lies in its box, and its crop (the classifier's own 48x48 crop) is stored
with its class (`vision.detector.CLASSES`: the kind of die and its face), in `views`: turned
(a d6 every 45 degrees, a d10 or d20 in `POLY_TURNS` turns) and at the `SCALES` a box
holds a die at. Each view keeps the model's own reading of it (`readings`: the class it is
sure of, else 0) and its opinion (`signatures`), since both change as a numeral turns; a
view is *taught* where the model reads it wrong or is unsure, else a *control* (a face
this table's model reads right). A view's look (`descriptors`) is the crop turned square to
the die's edges and scaled to its top face, grey, normalised, plus its fine detail (what
tells a star from a big pip).

How it reads (`FaceBook.read`): a crop the model reads as a taught view was read (a 1 for
a star on the 6, a d6 for a d10 it does not know), or is unsure of, or is sure is not a
die, is compared with those views: the cosine similarity of their looks, at the crop's best
of `OFFSETS` off its centre (a box with a shadow in it holds its die off centre), and for a
die the model is unsure of also of its `signatures` (`LOOK` of the one, by kind of die,
the rest of the other; a sure reading's signature, or a sure "not a die"'s, is the same
whatever drew it, so there the look alone decides). An unsure die, or what the model calls
no die, must also look at least `UNSURE_LOOK` or `NOT_A_DIE_LOOK` alike. When the nearest
is a taught view and at least `threshold` similar, that die and face replace the
classifier's reading; when it is a control and the model is unsure of the crop, the
control's face does (this table's own die, seen less well than when it was taught: a
numbered d6 whose 2 the model read right in its one teaching photo). A die the model is
sure shows another face is never changed (unless the model was as sure of that reading on a
taught die, and the crop looks at least `SURE_LOOK` like another taught face of its kind),
and an ordinary die of this table is nearer one of its controls. Measured (see
vision/README.md, `python -m vision.teach_check`).

Saved as `faces.npz` beside the colour calibration; `detect`, `evaluate` and the appliance
load it when it is there (`Detector(faces=...)`). A book saved before d10 and d20 could be
taught (version 2: d6 faces only) still loads.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.detector import CLASSES, FACES, NUMBERED_FACE_MIN, best_readings, check_face, class_of

SIDE = 24  # descriptor patch side (pixels)
INNER = 0.86  # share of the top face's side the patch covers (the bevel left out)
DETAIL = 0.3  # weight of the fine detail (what tells a star from a big pip) in a descriptor
THRESHOLD = 0.70  # least similarity for a taught face to be taken (measured in vision/README.md)
MAX_CONTROLS = 100  # dice read right kept as controls at most (each in every view: 2,400 views of d6)
#: Weight of the look (the descriptors) against the model's signature in a similarity, by the
#: example's kind of die: a numeral on a d6 is large and squared to its edges, a d10's or d20's
#: small among its neighbours' (measured with `python -m vision.teach_check`).
LOOK = {6: 0.3, 10: 0.1, 20: 0.1}
TURNS = 4  # stored turns of every d6 in a version-2 book (its first-view marks)
D6_TURNS = 8  # stored turns of a d6's example (every 45 degrees: the model's reading of numerals turns)
POLY_TURNS = 24  # stored turns of a d10's or d20's example (every 15 degrees)
#: Least look similarity, by the example's kind of die, for a crop the model is unsure of (its
#: opinion counts too) or sure is not a die to be a taught die (measured with `python -m
#: vision.teach_check`: the books must leave the real photos of ordinary d6 as they were).
#: A crop the model reads as the taught example was read is compared by its look alone.
UNSURE_LOOK = {6: 0.6, 10: 0.47, 20: 0.3}
NOT_A_DIE_LOOK = {6: 0.8, 10: 0.85, 20: 0.85}
#: Least look similarity, by kind of die, for a crop the model is sure of to be compared with
#: every taught example of that kind, not only those the model read the same: where the
#: model is sure of a reading it gave a taught example (it is known to misread this table's
#: dice that way), a crop that looks this much like another taught face is that face
#: (a numbered d6's 4 the model is sure is a 6, taught as a 4 it read unsure).
SURE_LOOK = {6: 0.85, 10: 0.9, 20: 0.9}
SCALES = (1.0, 0.87, 1.15)  # sizes of the die in its crop an example is stored at (boxes vary; the crop itself first)
OFFSETS = (-4, -2, 0, 2, 4)  # a crop's looks off its centre (patch pixels, across and down)
_MARGIN = max(abs(o) for o in OFFSETS)
# What the model's reading of a crop is, as the detector decides it (Detector defaults).
DIE_THRESHOLD = 0.5
FACE_MIN = 0.6
_CROP = 48
_BOX = _CROP / 1.25  # the detector's box side in its crop (crops are 1.25x the box)
_FORMAT = "dicetable-faces"
_VERSION = 3  # 3: classes of every kind of die; 2: d6 faces only (still loaded)
#: The model reading of a version-2 book's example the model was sure is a d10 or d20 (of
#: any face): such an example replaces any sure d10 or d20 reading.
ANY_NUMBERED = -1
class FaceBookError(ValueError):
    """A faces file or a teaching folder that cannot be used; the message says why."""


def _grids() -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) - (SIDE - 1) / 2
    mask = (np.hypot(xx, yy) <= SIDE * 0.5).astype(np.float32)
    yc, xc = np.mgrid[0:_CROP, 0:_CROP].astype(np.float32) - (_CROP - 1) / 2
    window = np.exp(-(xc ** 2 + yc ** 2) / (2 * 18.0 ** 2)).astype(np.float32)
    return mask, window


_MASK, _WINDOW = _grids()


def _angle(crop: np.ndarray) -> float:
    """The die's turn in its crop (radians, -pi/4..pi/4): the dominant edge direction modulo
    a quarter turn (its four sides), from the colour gradients near the centre."""
    f = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), 1.0)
    z = cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3) + 1j * cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3)
    z4 = (z ** 4 / np.maximum(np.abs(z) ** 2, 1e-6)).sum(2)
    return float(np.angle((z4 * _WINDOW).sum()) / 4)


def descriptors(crops: np.ndarray, turns: int = 1, offsets: Sequence[int] = (0,)) -> np.ndarray:
    """(N x turns x len(offsets)**2, SIDE*SIDE) descriptors of N BGR crops (N x 48 x 48 x 3,
    the classifier's crops): the top face turned square to the patch (its edges' direction)
    and scaled to fill it (the box of a die turned by a then holds a face of side box / (|cos
    a| + |sin a|)), grey, normalised, plus its fine detail; `turns` > 1 adds the crop turned by
    every 360/turns degrees (all turns of crop 0 first); `offsets` (patch pixels, across and
    down) look off the crop's centre (a box off its die's centre: a shadow or a neighbour in
    it), each turn's offsets together."""
    out = np.empty((len(crops) * turns * len(offsets) ** 2, SIDE * SIDE), np.float32)
    c = (_CROP - 1) / 2
    row = 0
    for crop in crops:
        crop = np.ascontiguousarray(crop, np.uint8)
        if crop.shape[:2] != (_CROP, _CROP):
            crop = cv2.resize(crop, (_CROP, _CROP), interpolation=cv2.INTER_AREA)
        a = _angle(crop)
        grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.6)
        side = _BOX / (abs(np.cos(a)) + abs(np.sin(a)))
        base = _patches(grey, np.degrees(a), side, c, offsets)
        for k in range(turns):
            turn = 360.0 * k / turns
            if turn % 90 == 0:  # a quarter turn: the same patches turned (the offsets' grid turns onto itself)
                d = np.rot90(base.reshape(-1, SIDE, SIDE), int(turn // 90), axes=(1, 2)).reshape(-1, SIDE * SIDE)
            else:
                d = _patches(grey, np.degrees(a) + turn, side, c, offsets)
            out[row:row + len(d)] = d
            row += len(d)
    return out


def _patches(grey: np.ndarray, degrees: float, side: float, c: float, offsets: Sequence[int]) -> np.ndarray:
    """The unit descriptor patches (len(offsets)**2 x SIDE*SIDE) of a grey crop turned by
    `degrees` about its centre `c`, its top face of `side`, each moved by (dx, dy) of
    `offsets` patch pixels (dy outer)."""
    big = SIDE + 2 * _MARGIN
    m = cv2.getRotationMatrix2D((c, c), float(degrees), SIDE / (INNER * side))
    m[:, 2] += (big - 1) / 2 - c
    p = cv2.warpAffine(grey, m, (big, big), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    at = [_MARGIN + o for o in offsets]
    mask = _MASK.ravel()
    parts = []
    for image in (p, p - cv2.GaussianBlur(p, (0, 0), 1.5)):  # the patch and its fine detail
        w = sliding_window_view(image, (SIDE, SIDE))[np.ix_(at, at)].reshape(-1, SIDE * SIDE)
        w = (w - (w @ mask / mask.sum())[:, None]) * mask
        parts.append(w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-6))
    d = np.sqrt(1 - DETAIL) * parts[0] + np.sqrt(DETAIL) * parts[1]
    return d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6)


def looks(crops: np.ndarray, examples: np.ndarray) -> np.ndarray:
    """How alike (N x examples, cosine) N crops look to stored examples, each crop at its best
    of `OFFSETS` off its centre."""
    d = descriptors(crops, offsets=OFFSETS).reshape(len(crops), len(OFFSETS) ** 2, -1)
    return (d @ examples.T).max(1)


def views(crop: np.ndarray, turns: int, scales: Sequence[float] = (1.0,)) -> np.ndarray:
    """The crop (48 x 48 x 3) turned by every 360/turns degrees, counter-clockwise as
    `descriptors` turns it, at each of `scales` (the die larger or smaller in its crop, as a
    detection's box varies): (len(scales) x turns) x 48 x 48 x 3, all turns of the first
    scale first; the corners from the crop's edges."""
    c = (_CROP - 1) / 2
    out = []
    for scale in scales:
        for k in range(turns):
            m = cv2.getRotationMatrix2D((c, c), 360.0 * k / turns, float(scale))
            out.append(cv2.warpAffine(crop, m, (_CROP, _CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return np.ascontiguousarray(np.stack(out))


def turns_of(sides: int) -> int:
    """How many turns of an example of a d`sides` are stored."""
    return D6_TURNS if sides == 6 else POLY_TURNS


def readings(probs: np.ndarray) -> np.ndarray:
    """The model's reading of each crop from its class probabilities (N x classes of
    `vision.detector.CLASSES`, the first "not a die"): the class it is sure of (a d6 face
    at `FACE_MIN`, a d10 or d20 face at `NUMBERED_FACE_MIN`, as the detector decides), or
    0 (not a die, or unsure)."""
    probs = np.asarray(probs, np.float32)
    probs = probs.reshape(len(probs), -1)
    die = 1.0 - probs[:, 0]
    best = best_readings(probs, CLASSES[:probs.shape[1]])[0]
    least = np.where(best <= 6, FACE_MIN, NUMBERED_FACE_MIN)
    sure = (die >= DIE_THRESHOLD) & (probs[np.arange(len(probs)), best] >= least * np.maximum(die, 1e-6))
    return np.where(sure, best, 0).astype(np.int64)


def signatures(probs: np.ndarray) -> np.ndarray:
    """What the classifier makes of each crop, as a unit vector: the square roots of its
    class probabilities (N x len(CLASSES); a d6-only classifier's padded with zeros). Two
    crops' signatures' dot product is how alike the model finds them (1: the same opinion),
    whatever it reads them as: a die in a font it never saw still draws a consistent
    opinion, face by face."""
    probs = np.asarray(probs, np.float32)
    probs = probs.reshape(len(probs), -1)
    out = np.zeros((len(probs), len(CLASSES)), np.float32)
    out[:, :probs.shape[1]] = np.sqrt(np.clip(probs, 0, 1))
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)


class Taught(NamedTuple):
    """A taught face recognised on a crop: its class (`vision.detector.CLASSES`), how
    similar the crop is to its nearest example, and the die and face that class is."""

    cls: int
    similarity: float
    sides: int
    face: int


def kind_and_face(label: Sequence[float]) -> tuple[int, int]:
    """The (sides, face) of a label [x0, y0, x1, y1, face] or [..., face, sides]; ValueError
    for a die that does not exist (a d6 showing 7)."""
    sides = int(label[5]) if len(label) > 5 else 6
    face = label[4]
    if isinstance(face, float) and face.is_integer():
        face = int(face)
    if isinstance(face, bool) or not isinstance(face, (int, np.integer)):
        raise ValueError(f"a face is a whole number, got {face!r}")
    check_face(sides, int(face))
    return sides, int(face)


@dataclass
class Teaching:
    """What `FaceBook.teach` found: dice labelled, matched to a detection, taught (read
    wrong or unsure by the model), controls kept, labelled dice no detection found, and the
    faces of each kind of die matched (`shown`: sides -> faces)."""

    photos: int = 0
    labelled: int = 0
    matched: int = 0
    taught: int = 0
    controls: int = 0
    unmatched: int = 0
    shown: dict[int, set[int]] = field(default_factory=dict)

    def missing(self) -> dict[int, list[int]]:
        """The faces of each kind of die taught that no photo showed (sides -> faces)."""
        return {n: [f for f in FACES[n] if f not in faces] for n, faces in sorted(self.shown.items())}


class FaceBook:
    """Stored examples of this table's faces (see the module docstring): descriptors, their
    class (kind of die and face), whether it is taught (else a control), what the model
    alone read there (`readings`), which rows are an example's first turn, and the model's
    `signatures` of them (None in a version-2 book: its examples are compared by their
    look alone), and what the numeral reader read on the example's die (`reader_read`, -1
    where unknown: a book saved before it was kept, or a detector without the reader)."""

    def __init__(self, examples: np.ndarray, classes: np.ndarray, taught: np.ndarray, model_read: np.ndarray,
                 first: np.ndarray | None = None, threshold: float = THRESHOLD,
                 signatures: np.ndarray | None = None, reader_read: np.ndarray | None = None):
        self.examples = np.asarray(examples, np.float32).reshape(-1, SIDE * SIDE)
        self.classes = np.asarray(classes, np.int64).ravel()
        self.taught = np.asarray(taught, bool).ravel()
        self.model_read = np.asarray(model_read, np.int64).ravel()
        n = len(self.examples)
        self.first = np.asarray(first, bool).ravel() if first is not None else np.arange(n) % TURNS == 0
        self.signatures = None if signatures is None else np.asarray(signatures, np.float32).reshape(-1, len(CLASSES))
        self.reader_read = np.full(n, -1, np.int64) if reader_read is None else np.asarray(reader_read, np.int64).ravel()
        if len(self.reader_read) != n:
            raise FaceBookError("a faces file must hold as many reader readings as examples")
        if self.signatures is not None and len(self.signatures) != n:
            raise FaceBookError("a faces file must hold as many signatures as examples")
        if not n == len(self.classes) == len(self.taught) == len(self.model_read) == len(self.first):
            raise FaceBookError("a faces file must hold as many classes, taught flags, readings and turn marks "
                                "as examples")
        if n and not ((self.classes >= 1) & (self.classes < len(CLASSES))).all():
            raise FaceBookError(f"a faces file holds a die class outside 1-{len(CLASSES) - 1}")
        if n and not ((self.model_read >= ANY_NUMBERED) & (self.model_read < len(CLASSES))).all():
            raise FaceBookError(f"a faces file holds a model reading outside {ANY_NUMBERED}-{len(CLASSES) - 1}")
        if n and not ((self.reader_read >= -1) & (self.reader_read < len(CLASSES))).all():
            raise FaceBookError(f"a faces file holds a reader reading outside -1-{len(CLASSES) - 1}")
        if not 0.0 < threshold <= 1.0:
            raise FaceBookError(f"the similarity threshold must be in (0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self._gated = set(np.unique(self.model_read[self.taught]).tolist())  # readings a taught face can replace
        #: The classes taught (not controls), and those of them the numeral reader read right on
        #: every example: a die the book recognised as one of those the reader may move to
        #: another taught face (`vision.detector.TAUGHT_D6_SURE`). A logo is no numeral to the
        #: reader, so a die taught by its logo stays.
        self.taught_classes = frozenset(np.unique(self.classes[self.taught]).tolist())
        #: Every class the book holds, taught or as a control: the faces this table's dice show.
        self.held_classes = frozenset(np.unique(self.classes).tolist())
        self.reader_knows = frozenset(c for c in self.taught_classes if (self.reader_read[self.classes == c] == c).all())

    @classmethod
    def empty(cls) -> FaceBook:
        return cls(np.zeros((0, SIDE * SIDE)), np.zeros(0), np.zeros(0, bool), np.zeros(0), np.zeros(0, bool),
                   signatures=np.zeros((0, len(CLASSES))))

    @property
    def sides(self) -> np.ndarray:
        """The kind of die of each example."""
        return np.array([CLASSES[c][0] for c in self.classes], np.int64)

    @property
    def faces(self) -> np.ndarray:
        """The face of each example."""
        return np.array([CLASSES[c][1] for c in self.classes], np.int64)

    def __len__(self) -> int:
        """How many taught dice (one per labelled die read wrong or unsure)."""
        return int((self.taught & self.first).sum())

    def known(self) -> dict[int, list[int]]:
        """The faces of each kind of die this book holds, taught or as controls (sides -> faces)."""
        out: dict[int, set[int]] = {}
        for c in self.held_classes:
            sides, face = CLASSES[c]
            out.setdefault(sides, set()).add(face)
        return {n: sorted(f) for n, f in sorted(out.items())}

    def __repr__(self) -> str:
        kinds = {}
        for c in np.unique(self.classes[self.taught]):
            sides, face = CLASSES[int(c)]
            kinds.setdefault(sides, []).append(face)
        taught = "; ".join(f"d{n} {sorted(f)}" for n, f in sorted(kinds.items())) or "none"
        return f"FaceBook({len(self)} taught dice, faces {taught}, {int((~self.taught & self.first).sum())} controls)"

    # reading -----------------------------------------------------------------------------

    def read(self, crops: np.ndarray, probs: np.ndarray | None = None) -> list[Taught | None]:
        """For each crop, its `Taught` face (class first: what the detector puts in place of
        the classifier's reading) when it is one of the taught faces, else None (the
        classifier's reading stands). `probs`: the classifier's class probabilities of the
        crops (N x classes); a taught face only replaces the reading the model gave it when
        it was taught (e.g. a 1 for a star on the 6), or an unsure one, and only with a
        class the classifier has (a d6-only classifier takes no taught d10); a control's
        face (one the model read right when taught) only an unsure one. Without `probs`
        every crop counts as unsure."""
        out: list[Taught | None] = [None] * len(crops)
        if not len(crops) or not self.taught.any():
            return out
        read = readings(probs) if probs is not None else np.zeros(len(crops), np.int64)
        n_classes = np.asarray(probs).reshape(len(crops), -1).shape[1] if probs is not None else len(CLASSES)
        gated = np.isin(read, list(self._gated)) | ((read > 6) & (ANY_NUMBERED in self._gated))
        todo = np.nonzero((read == 0) | gated)[0]
        if not len(todo):
            return out
        p = None if probs is None else np.asarray(probs, np.float32).reshape(len(crops), -1)[todo]
        unsure = (read[todo] == 0) & (True if p is None else 1.0 - p[:, 0] >= DIE_THRESHOLD)
        sims = look = looks(np.asarray(crops)[todo], self.examples)
        sides = self.sides

        def by_kind(table: dict[int, float]) -> np.ndarray:  # 1 x examples: each example's kind's value
            return np.array([table[n] for n in sides], np.float32)[None, :]

        if self.signatures is not None and p is not None and unsure.any():
            # A die the model is unsure of: the look and the model's opinion, alike. (A sure
            # reading's signature, or a sure "not a die", is the same whatever drew it: the
            # look alone decides there.)
            w = by_kind(LOOK)
            sims = look.copy()
            sims[unsure] = w * look[unsure] + (1 - w) * (signatures(p[unsure]) @ self.signatures.T)
        r = read[todo, None]
        m = self.model_read[None, :]
        allowed = (m == r) | (r == 0) | ((m == ANY_NUMBERED) & (r > 6))
        kind = np.array([CLASSES[c][0] for c in read[todo]])[:, None]
        allowed |= (r > 0) & self.taught[None, :] & (sides[None, :] == kind) & (look >= by_kind(SURE_LOOK))
        allowed &= (self.classes < n_classes)[None, :]
        # However alike the opinions, a look too unlike is not the taught die (an ordinary die
        # the model is unsure of may share its opinion of a d10 it does not know), and what the
        # model is sure is not a die must look very like one.
        floor = np.where(unsure[:, None], by_kind(UNSURE_LOOK), by_kind(NOT_A_DIE_LOOK))
        allowed &= (read[todo, None] != 0) | (look >= floor)
        sims = np.where(allowed, sims, -2.0)
        for i, row, doubt in zip(todo, sims, unsure):
            k = int(row.argmax())
            if (self.taught[k] or doubt) and row[k] >= self.threshold:
                sides, face = CLASSES[int(self.classes[k])]
                out[i] = Taught(int(self.classes[k]), float(row[k]), sides, face)
        return out

    # teaching ----------------------------------------------------------------------------

    @classmethod
    def teach(cls, detector, photos: Iterable[tuple[np.ndarray, Sequence[Sequence[float]]]]) -> tuple[FaceBook, Teaching]:
        """A book from labelled photos: (image, [[x0, y0, x1, y1, face(, sides)], ...]) each
        (FaceBookError for a label of a die that does not exist). `detector` is a
        `vision.detector.Detector` (its own book is not used). The book holds the taught
        faces and the controls (no example at all when nothing was matched)."""
        report = Teaching()
        taught: list[tuple[np.ndarray, int, int]] = []
        controls: list[tuple[np.ndarray, int, int]] = []
        for image, labels in photos:
            report.photos += 1
            kinds = []
            for label in labels:
                try:
                    kinds.append(kind_and_face(label))
                except (ValueError, TypeError, IndexError) as exc:
                    raise FaceBookError(f"photo {report.photos}, label {list(label)!r}: {exc}") from None
            boxes, crops, probs = _model_readings(detector, image)
            read = readings(probs)
            used: set[int] = set()
            for label, (sides, face) in zip(labels, kinds):
                report.labelled += 1
                k = _match(boxes, tuple(float(v) for v in label[:4]), used)
                if k is None:
                    report.unmatched += 1
                    continue
                used.add(k)
                report.matched += 1
                report.shown.setdefault(sides, set()).add(face)
                c = class_of(sides, face)
                numeral = (-1 if detector._reader is None
                           else int(detector.read_numerals(image, boxes[k:k + 1]).argmax()))
                (controls if read[k] == c else taught).append((crops[k], c, numeral))
        report.taught = len(taught)
        if len(controls) > MAX_CONTROLS:
            keep = np.random.default_rng(0).choice(len(controls), MAX_CONTROLS, replace=False)
            controls = [controls[i] for i in sorted(keep)]
        report.controls = len(controls)
        if not taught and not controls:
            return cls.empty(), report
        columns = cls._rows(taught + controls, detector._classify)
        return cls(*columns[:5], signatures=columns[5], reader_read=columns[6]), report

    @staticmethod
    def _rows(examples: list[tuple[np.ndarray, int, int]], classify) -> tuple[np.ndarray, ...]:
        """(descriptors, classes, taught flags, model readings, first-view marks, signatures,
        reader readings) of examples (crop, class, the numeral reader's reading of the die),
        each in its `views`. `classify` (the detector's classifier: crops -> class
        probabilities) reads every view: the model's reading and opinion of a numeral change
        as it turns, so each view keeps its own, and a view is *taught* where the model reads
        it wrong or is unsure, else a control. A die the model read right is kept in as many
        views as one it misread: where the model also gives its reading to a taught face (a
        numbered d6's 5 it reads as 6), a crop read so is told from that face by its look,
        and the two must be compared in the same views (with its quarter turns alone, a
        numbered d6's 6 looked more like the taught 5 than like itself)."""
        rows = []
        for crop, c, numeral in examples:
            sides = CLASSES[c][0]
            n = turns_of(sides)
            crops = views(crop, n, SCALES)
            probs = classify(crops)
            read = readings(probs)
            # A d6's look is its face squared to its edges: each view's own; a d10's or d20's
            # (no square edges) each size's look turned.
            look = descriptors(crops) if sides == 6 else \
                np.concatenate([descriptors(crops[i * n:i * n + 1], n) for i in range(len(SCALES))])
            m = len(crops)
            rows.append((look, np.full(m, c), read != c, read, np.arange(m) == 0, signatures(probs), np.full(m, numeral)))
        return tuple(np.concatenate([row[i] for row in rows]) for i in range(7))

    def merged(self, other: FaceBook) -> FaceBook:
        """This book and `other` in one (the host teaching one more face); with a version-2
        book, compared by the look alone."""
        both = None if self.signatures is None or other.signatures is None else \
            np.concatenate([self.signatures, other.signatures])
        return FaceBook(*(np.concatenate([getattr(self, a), getattr(other, a)])
                          for a in ("examples", "classes", "taught", "model_read", "first")), self.threshold, both,
                        np.concatenate([self.reader_read, other.reader_read]))

    # files -------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the book (numpy .npz) atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, format=np.array(_FORMAT), version=np.array(_VERSION),
                            examples=self.examples.astype(np.float16), classes=self.classes.astype(np.int8),
                            taught=self.taught, model_read=self.model_read.astype(np.int8), first=self.first,
                            reader_read=self.reader_read.astype(np.int8),
                            threshold=np.array(self.threshold), **({} if self.signatures is None else
                                                                   {"signatures": self.signatures.astype(np.float16)}))
        if path.is_dir():  # found out now, not after the temporary file is written
            raise IsADirectoryError(21, "a folder is there; give a file name, e.g. faces.npz", str(path))
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_bytes(buffer.getvalue())
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)  # gone once replaced; a failed write leaves nothing behind

    @classmethod
    def load(cls, path: str | Path) -> FaceBook:
        """A saved book: this version, or version 2 (d6 faces only: its faces are its classes)."""
        path = Path(path)
        if not path.is_file():
            raise FaceBookError(f"{path}: no taught faces here; teach them with `dicetable teach FOLDER`")
        try:
            with np.load(path, allow_pickle=False) as data:
                version = int(data["version"]) if "version" in data else None
                if "format" not in data or str(data["format"]) != _FORMAT or version not in (2, _VERSION):
                    raise FaceBookError(f"{path}: not a dicetable faces file (version 2 or {_VERSION}); "
                                        "teach the faces again with `dicetable teach FOLDER`")
                if version == 2:
                    return cls(data["examples"], data["faces"], data["taught"], data["model_read"], None,
                               float(data["threshold"]))
                return cls(data["examples"], data["classes"], data["taught"], data["model_read"], data["first"],
                           float(data["threshold"]), data["signatures"] if "signatures" in data else None,
                           data["reader_read"] if "reader_read" in data else None)
        except FaceBookError:
            raise
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise FaceBookError(f"{path}: cannot read the taught faces ({exc}); teach them again") from None


def _model_readings(detector, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every box the detector finds (also those the classifier calls "not a die": an
    unknown logo often is), its crop, and the classifier's class probabilities there."""
    boxes = detector._find(image)[0]
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes):
        return boxes, np.zeros((0, _CROP, _CROP, 3), np.uint8), np.zeros((0, len(detector.classes)), np.float32)
    crops = detector._crops(image, boxes)
    return boxes, crops, detector._classify(crops)


def boxes_seen(detector, image: np.ndarray) -> np.ndarray:
    """The boxes of every candidate die in `image` (for teaching a throw's faces)."""
    return _model_readings(detector, image)[0]


def _match(boxes: np.ndarray, box: tuple[float, float, float, float], used: set[int]) -> int | None:
    """The unused detection whose centre lies inside `box`, nearest its centre."""
    if not len(boxes):
        return None
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    inside = (cx >= box[0]) & (cx <= box[2]) & (cy >= box[1]) & (cy <= box[3])
    dist = np.hypot(cx - (box[0] + box[2]) / 2, cy - (box[1] + box[3]) / 2)
    for k in np.argsort(dist):
        if inside[k] and int(k) not in used:
            return int(k)
    return None
