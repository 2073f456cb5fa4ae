"""Custom faces: a table's own dice, taught from a few labelled photos (`dicetable teach`).

Some dice carry a logo instead of pips (a maker's emblem on the 6, a star on the 1): the
classifier has never seen that logo and reads the face wrong. A `FaceBook` remembers how
this table's faces look and corrects the classifier where it recognises one.

How it is taught (`FaceBook.teach`): every labelled die of the teaching photos is matched
to the detection whose centre lies in its box, and its crop (the classifier's own 48x48
crop) is stored with the labelled face and the model's own reading there (`readings`: the
face it is sure of, else 0), as an example of a *taught* face where the model read it
wrong or was unsure, else as a *control* (an ordinary face this table's model reads
right). An example (`descriptors`) is the crop turned square to the die's edges and scaled
to its top face, grey, normalised, plus its fine detail (what tells a star from a big
pip), stored in its four quarter turns.

How it reads (`FaceBook.read`): a crop the model reads as a taught example was read (a 1
for a star on the 6, say), or is unsure of, is compared (cosine similarity) with those
examples; when the nearest is a taught face and at least `threshold` similar, that face
replaces the classifier's reading. A die the model is sure shows another face is never
changed, and an ordinary die of this table is nearer one of its controls. Measured (see
vision/README.md): taught from 4 trays of 4000x3000 px, logo dice read right 0.98-1.0
where the model alone reads 0.80; books taught on synthetic logo dice change no reading of
the 200 Byler photos at 0.70 (the nearest Byler crop to a taught face: 0.69).

Saved as `faces.npz` beside the colour calibration; `detect`, `evaluate` and the appliance
load it when it is there (`Detector(faces=...)`).
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

SIDE = 24  # descriptor patch side (pixels)
INNER = 0.86  # share of the top face's side the patch covers (the bevel left out)
DETAIL = 0.3  # weight of the fine detail (what tells a star from a big pip) in a descriptor
THRESHOLD = 0.70  # least similarity for a taught face to be taken (measured in the module docstring)
MAX_CONTROLS = 400  # ordinary faces kept as controls at most
# What the model's reading of a crop is, as the detector decides it (Detector defaults).
DIE_THRESHOLD = 0.5
FACE_MIN = 0.6
_CROP = 48
_BOX = _CROP / 1.25  # the detector's box side in its crop (crops are 1.25x the box)
_FORMAT = "dicetable-faces"
_VERSION = 2


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


def _unit(p: np.ndarray) -> np.ndarray:
    p = (p - p[_MASK > 0].mean()) * _MASK
    return p / max(float(np.linalg.norm(p)), 1e-6)


def descriptors(crops: np.ndarray, turns: int = 1) -> np.ndarray:
    """(N x turns, SIDE*SIDE) descriptors of N BGR crops (N x 48 x 48 x 3, the classifier's
    crops): the top face turned square to the patch (its edges' direction) and scaled to fill
    it (the box of a die turned by a then holds a face of side box / (|cos a| + |sin a|)),
    grey, normalised, plus its fine detail; `turns` 4 adds the three quarter turns (all turns
    of crop 0 first)."""
    out = np.empty((len(crops) * turns, SIDE * SIDE), np.float32)
    c = (_CROP - 1) / 2
    for i, crop in enumerate(crops):
        crop = np.ascontiguousarray(crop, np.uint8)
        if crop.shape[:2] != (_CROP, _CROP):
            crop = cv2.resize(crop, (_CROP, _CROP), interpolation=cv2.INTER_AREA)
        a = _angle(crop)
        grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.6)
        side = _BOX / (abs(np.cos(a)) + abs(np.sin(a)))
        m = cv2.getRotationMatrix2D((c, c), float(np.degrees(a)), SIDE / (INNER * side))
        m[:, 2] += (SIDE - 1) / 2 - c
        p = cv2.warpAffine(grey, m, (SIDE, SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        d = np.sqrt(1 - DETAIL) * _unit(p) + np.sqrt(DETAIL) * _unit(p - cv2.GaussianBlur(p, (0, 0), 1.5))
        d /= max(float(np.linalg.norm(d)), 1e-6)
        for k in range(turns):
            out[i * turns + k] = np.rot90(d, k).ravel()
    return out


#: The reading of a crop the model is sure is a d10 or a d20: a taught (d6) face never
#: replaces it, unless it was taught over that very reading.
NOT_A_D6 = -1


def readings(probs: np.ndarray) -> np.ndarray:
    """The model's reading of each crop from its class probabilities (N x classes of
    `vision.detector.CLASSES`, the first 7 "not a die" and the d6 faces 1-6): the d6 face
    it is sure of, `NOT_A_D6` for a d10 or d20 it is sure of, or 0 (not a die, or unsure)."""
    probs = np.asarray(probs, np.float32)
    probs = probs.reshape(len(probs), -1)
    die = 1.0 - probs[:, 0]
    best = probs[:, 1:].argmax(1) + 1
    sure = (die >= DIE_THRESHOLD) & (probs[np.arange(len(probs)), best] >= FACE_MIN * np.maximum(die, 1e-6))
    return np.where(sure, np.where(best <= 6, best, NOT_A_D6), 0).astype(np.int64)


@dataclass
class Teaching:
    """What `FaceBook.teach` found: dice labelled, matched to a detection, taught (read
    wrong or unsure by the model), controls kept, and labelled dice no detection found."""

    photos: int = 0
    labelled: int = 0
    matched: int = 0
    taught: int = 0
    controls: int = 0
    unmatched: int = 0


TURNS = 4  # stored quarter turns of each example (a die face has no up)


class FaceBook:
    """Stored examples of this table's faces (see the module docstring): descriptors, the
    labelled face, whether it is taught (else a control) and what the model alone read
    there (`readings`)."""

    def __init__(self, examples: np.ndarray, faces: np.ndarray, taught: np.ndarray, model_read: np.ndarray,
                 threshold: float = THRESHOLD):
        self.examples = np.asarray(examples, np.float32).reshape(-1, SIDE * SIDE)
        self.faces = np.asarray(faces, np.int64).ravel()
        self.taught = np.asarray(taught, bool).ravel()
        self.model_read = np.asarray(model_read, np.int64).ravel()
        if not len(self.examples) == len(self.faces) == len(self.taught) == len(self.model_read):
            raise FaceBookError("a faces file must hold as many faces, taught flags and readings as examples")
        if len(self.faces) and not np.isin(self.faces, np.arange(1, 7)).all():
            raise FaceBookError("a faces file holds a face outside 1-6")
        if len(self.model_read) and not np.isin(self.model_read, np.arange(NOT_A_D6, 7)).all():
            raise FaceBookError("a faces file holds a model reading outside -1-6")
        if not 0.0 < threshold <= 1.0:
            raise FaceBookError(f"the similarity threshold must be in (0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self._gated = np.unique(self.model_read[self.taught])  # readings a taught face can replace

    @classmethod
    def empty(cls) -> FaceBook:
        return cls(np.zeros((0, SIDE * SIDE)), np.zeros(0), np.zeros(0, bool), np.zeros(0))

    def __len__(self) -> int:
        return int(self.taught.sum()) // TURNS

    def __repr__(self) -> str:
        taught = sorted({int(f) for f in self.faces[self.taught]})
        return f"FaceBook({len(self)} taught dice, faces {taught}, {int((~self.taught).sum()) // TURNS} controls)"

    # reading -----------------------------------------------------------------------------

    def read(self, crops: np.ndarray, probs: np.ndarray | None = None) -> list[tuple[int, float] | None]:
        """For each crop, (taught face, similarity) when it is one of the taught faces,
        else None (the classifier's reading stands). `probs`: the classifier's class
        probabilities of the crops (N x classes); a taught face only replaces the reading the
        model gave it when it was taught (e.g. a 1 for a star on the 6), or an unsure one.
        Without `probs` every crop counts as unsure."""
        out: list[tuple[int, float] | None] = [None] * len(crops)
        if not len(crops) or not self.taught.any():
            return out
        read = readings(probs) if probs is not None else np.zeros(len(crops), np.int64)
        todo = np.nonzero((read == 0) | np.isin(read, self._gated))[0]
        if not len(todo):
            return out
        sims = descriptors(np.asarray(crops)[todo]) @ self.examples.T
        allowed = (self.model_read[None, :] == read[todo, None]) | (read[todo, None] == 0)
        sims = np.where(allowed, sims, -2.0)
        for i, row in zip(todo, sims):
            k = int(row.argmax())
            if self.taught[k] and row[k] >= self.threshold:
                out[i] = (int(self.faces[k]), float(row[k]))
        return out

    # teaching ----------------------------------------------------------------------------

    @classmethod
    def teach(cls, detector, photos: Iterable[tuple[np.ndarray, Sequence[Sequence[float]]]]) -> tuple[FaceBook, Teaching]:
        """A book from labelled photos: (image, [[x0, y0, x1, y1, face], ...]) each.
        `detector` is a `vision.detector.Detector` (its own book is not used)."""
        report = Teaching()
        taught: list[tuple[np.ndarray, int, int]] = []
        controls: list[tuple[np.ndarray, int, int]] = []
        for image, labels in photos:
            report.photos += 1
            boxes, crops, read = _model_readings(detector, image)
            used: set[int] = set()
            for label in labels:
                report.labelled += 1
                x0, y0, x1, y1, face = (float(v) for v in label[:5])
                k = _match(boxes, (x0, y0, x1, y1), used)
                if k is None:
                    report.unmatched += 1
                    continue
                used.add(k)
                report.matched += 1
                (controls if read[k] == int(face) else taught).append((crops[k], int(face), int(read[k])))
        report.taught = len(taught)
        if len(controls) > MAX_CONTROLS:
            keep = np.random.default_rng(0).choice(len(controls), MAX_CONTROLS, replace=False)
            controls = [controls[i] for i in sorted(keep)]
        report.controls = len(controls)
        if not taught:
            return cls.empty(), report
        parts = [(descriptors(np.stack([c for c, _, _ in group]), TURNS),
                  np.repeat([f for _, f, _ in group], TURNS), np.full(len(group) * TURNS, flag),
                  np.repeat([r for _, _, r in group], TURNS))
                 for group, flag in ((taught, True), (controls, False)) if group]
        return cls(*(np.concatenate([p[i] for p in parts]) for i in range(4))), report

    def merged(self, other: FaceBook) -> FaceBook:
        """This book and `other` in one (the host teaching one more face)."""
        return FaceBook(np.concatenate([self.examples, other.examples]), np.concatenate([self.faces, other.faces]),
                        np.concatenate([self.taught, other.taught]),
                        np.concatenate([self.model_read, other.model_read]), self.threshold)

    # files -------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the book (numpy .npz) atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, format=np.array(_FORMAT), version=np.array(_VERSION),
                            examples=self.examples.astype(np.float16), faces=self.faces.astype(np.int8),
                            taught=self.taught, model_read=self.model_read.astype(np.int8),
                            threshold=np.array(self.threshold))
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(buffer.getvalue())
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> FaceBook:
        path = Path(path)
        if not path.is_file():
            raise FaceBookError(f"{path}: no taught faces here; teach them with `dicetable teach FOLDER`")
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != _FORMAT or int(data["version"]) != _VERSION:
                    raise FaceBookError(f"{path}: not a dicetable faces file (version {_VERSION}); "
                                        "teach the faces again with `dicetable teach FOLDER`")
                return cls(data["examples"], data["faces"], data["taught"], data["model_read"],
                           float(data["threshold"]))
        except FaceBookError:
            raise
        except (OSError, ValueError, KeyError) as exc:
            raise FaceBookError(f"{path}: cannot read the taught faces ({exc}); teach them again") from None


def _model_readings(detector, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every box the detector finds (also those the classifier calls "not a die": an
    unknown logo often is), its crop, and the face the model alone reads there
    (`readings`: 0 for not a die, or unsure)."""
    boxes = detector._find(image)[0]
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes):
        return boxes, np.zeros((0, _CROP, _CROP, 3), np.uint8), np.zeros(0, np.int64)
    crops = detector._crops(image, boxes)
    return boxes, crops, readings(detector._classify(crops))


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
