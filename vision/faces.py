"""Custom faces: a table's own dice, taught from a few labelled photos (`dicetable teach`).

Some dice carry a logo instead of pips (a maker's emblem on the 6, a star on the 1): the
classifier has never seen that logo and reads the face wrong. A `FaceBook` remembers how
this table's faces look and corrects the classifier where it recognises one.

How it is taught (`FaceBook.teach`): every labelled die of the teaching photos is matched
to the detection whose centre lies in its box, and its crop (the classifier's own 48x48
crop) is stored with the labelled face, as an example of a *taught* face where the model
read it wrong or was unsure, else as a *control* (an ordinary face this table's model reads
right). Each crop is stored turned by `TURNS` even steps, as a grey, blurred, masked
(inner disc of the top face) and normalised `SIDE` x `SIDE` patch, so a die lying at any
angle meets one of its turns.

How it reads (`FaceBook.read`): a detected crop is compared (cosine similarity) with every
stored example; when its nearest example is a taught face and at least `threshold`
similar, that face replaces the classifier's reading. An ordinary die is nearer one of the
controls, so the book never changes what the model already reads right on this table.

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

SIDE = 20  # descriptor patch side (pixels)
TURNS = 12  # stored turns of each example (every 30 degrees)
THRESHOLD = 0.75  # least similarity for a taught face to be taken (ordinary Byler dice: at most 0.68)
MAX_CONTROLS = 400  # ordinary faces kept as controls at most
_FORMAT = "dicetable-faces"
_VERSION = 1


class FaceBookError(ValueError):
    """A faces file or a teaching folder that cannot be used; the message says why."""


def _mask() -> np.ndarray:
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32) - (SIDE - 1) / 2
    return (np.hypot(xx, yy) <= SIDE * 0.36).astype(np.float32)


_MASK = _mask()


def descriptors(crops: np.ndarray, turns: int = 1) -> np.ndarray:
    """(N x turns, SIDE*SIDE) normalised grey patches of N BGR crops (N x H x W x 3), each
    crop turned by `turns` even steps (all turns of crop 0 first)."""
    out = []
    for crop in crops:
        grey = cv2.cvtColor(np.ascontiguousarray(crop, np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
        grey = cv2.GaussianBlur(grey, (0, 0), 1.0)
        h, w = grey.shape
        for k in range(turns):
            turned = grey
            if k:
                turn = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), 360.0 * k / turns, 1.0)
                turned = cv2.warpAffine(grey, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            patch = cv2.resize(turned, (SIDE, SIDE), interpolation=cv2.INTER_AREA) * _MASK
            inside = patch[_MASK > 0]
            patch = (patch - inside.mean()) * _MASK
            norm = float(np.linalg.norm(patch))
            out.append((patch / norm if norm > 1e-6 else patch).ravel())
    return np.asarray(out, np.float32).reshape(-1, SIDE * SIDE)


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


class FaceBook:
    """Stored examples of this table's faces (see the module docstring)."""

    def __init__(self, examples: np.ndarray, faces: np.ndarray, taught: np.ndarray, threshold: float = THRESHOLD):
        self.examples = np.asarray(examples, np.float32).reshape(-1, SIDE * SIDE)
        self.faces = np.asarray(faces, np.int64).ravel()
        self.taught = np.asarray(taught, bool).ravel()
        if not len(self.examples) == len(self.faces) == len(self.taught):
            raise FaceBookError("a faces file must hold as many faces and taught flags as examples")
        if len(self.faces) and not np.isin(self.faces, np.arange(1, 7)).all():
            raise FaceBookError("a faces file holds a face outside 1-6")
        if not 0.0 < threshold <= 1.0:
            raise FaceBookError(f"the similarity threshold must be in (0, 1], got {threshold!r}")
        self.threshold = float(threshold)

    def __repr__(self) -> str:
        taught = sorted({int(f) for f in self.faces[self.taught]})
        return f"FaceBook({int(self.taught.sum()) // TURNS} taught dice, faces {taught}, {int((~self.taught).sum()) // TURNS} controls)"

    # reading -----------------------------------------------------------------------------

    def read(self, crops: np.ndarray) -> list[tuple[int, float] | None]:
        """For each crop, (taught face, similarity) when it is one of the taught faces,
        else None (the classifier's reading stands)."""
        if not len(crops) or not self.taught.any():
            return [None] * len(crops)
        sims = descriptors(crops) @ self.examples.T
        nearest = sims.argmax(1)
        out: list[tuple[int, float] | None] = []
        for row, k in zip(sims, nearest):
            if self.taught[k] and row[k] >= self.threshold:
                out.append((int(self.faces[k]), float(row[k])))
            else:
                out.append(None)
        return out

    # teaching ----------------------------------------------------------------------------

    @classmethod
    def teach(cls, detector, photos: Iterable[tuple[np.ndarray, Sequence[Sequence[float]]]]) -> tuple[FaceBook, Teaching]:
        """A book from labelled photos: (image, [[x0, y0, x1, y1, face], ...]) each.
        `detector` is a `vision.detector.Detector` (without a book of its own)."""
        report = Teaching()
        taught: list[tuple[np.ndarray, int]] = []
        controls: list[tuple[np.ndarray, int]] = []
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
                (controls if read[k] == int(face) else taught).append((crops[k], int(face)))
        report.taught = len(taught)
        rng = np.random.default_rng(0)
        if len(controls) > MAX_CONTROLS:
            keep = rng.choice(len(controls), MAX_CONTROLS, replace=False)
            controls = [controls[i] for i in sorted(keep)]
        report.controls = len(controls)
        if not taught:
            return cls(np.zeros((0, SIDE * SIDE)), np.zeros(0), np.zeros(0, bool)), report
        parts = [(descriptors(np.stack([c for c, _ in group]), TURNS),
                  np.repeat([f for _, f in group], TURNS), np.full(len(group) * TURNS, flag))
                 for group, flag in ((taught, True), (controls, False)) if group]
        examples = np.concatenate([p[0] for p in parts])
        faces = np.concatenate([p[1] for p in parts])
        flags = np.concatenate([p[2] for p in parts])
        return cls(examples, faces, flags), report

    def merged(self, other: FaceBook) -> FaceBook:
        """This book and `other` in one (the host teaching one more face)."""
        return FaceBook(np.concatenate([self.examples, other.examples]), np.concatenate([self.faces, other.faces]),
                        np.concatenate([self.taught, other.taught]), self.threshold)

    # files -------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the book (numpy .npz) atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, format=np.array(_FORMAT), version=np.array(_VERSION),
                            examples=self.examples.astype(np.float16), faces=self.faces.astype(np.int8),
                            taught=self.taught, threshold=np.array(self.threshold))
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
                    raise FaceBookError(f"{path}: not a dicetable faces file (version {_VERSION})")
                return cls(data["examples"], data["faces"], data["taught"], float(data["threshold"]))
        except FaceBookError:
            raise
        except (OSError, ValueError, KeyError) as exc:
            raise FaceBookError(f"{path}: cannot read the taught faces ({exc}); teach them again") from None


def _model_readings(detector, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Every box the detector finds (also those the classifier calls "not a die": an
    unknown logo often is), its crop, and the face the model alone reads there (0: not a
    die, or unsure)."""
    boxes, _ = detector._find(image)
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes):
        return boxes, np.zeros((0, 48, 48, 3), np.uint8), []
    crops = detector._crops(image, boxes)
    read = []
    for p in detector._classify(crops):
        die = 1.0 - float(p[0])
        best = int(np.argmax(p[1:])) + 1
        sure = die >= detector.die_threshold and p[best] / max(die, 1e-6) >= detector.face_min
        read.append(best if sure else 0)
    return boxes, crops, read


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
    best = None
    for k in np.argsort(dist):
        if inside[k] and int(k) not in used:
            best = int(k)
            break
    return best
