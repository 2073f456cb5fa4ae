"""The empty tray: a background model that keeps prints on the cloth from counting as dice.

A tray may carry things the detector takes for dice: a die printed on the cloth, a pip
pattern woven into it, a token lying there. None of them ever moves, and all of them were
there before the throw. The model keeps a small picture of the tray as it looks without
the dice the table counts, and `filter()` drops every detection whose place looks, in the
current frame, as it looks in that picture: a print is where it was and looks as it did; a
die thrown onto that place (or next to it, its box taking in some of the cloth) changes
the patch.

When it learns (the decision):
  1. The first frame it is given is the tray as it is: everything in view then is
     background (start the table with the tray as it should be, before any throw). A
     throw in the very first second is still read: it differs from that first frame.
  2. After that it learns only from quiet stretches: `learn_frames` frames in a row in which
     no part of the picture changes (no hand, no die rolling). At the end of each such
     stretch, and every `learn_frames` quiet frames while it lasts, the background takes
     the current frame everywhere EXCEPT around the dice the table counts: the detections
     that `filter()` kept (passed on to the settler) during the stretch, and the last ones
     it kept (the camera loop stops detecting once the table has settled, so those are the
     settled dice). So dice that settled from a throw are never absorbed, however long they
     lie still; a die picked up leaves cloth that is learned again at the next stretch; a
     token set down that the detector does not take for a die, slow light drift and the
     cloth under a moved die are learned. The price: something dice-like put down in the
     middle of a game (a printed card) is passed on like a die, so it is never learned;
     the table counts it until it is taken away (or the model is `reset()`).
     Not learning "while the tray is empty" (as the settler sees it): with a print on the
     cloth the settler would never see an empty tray. Not re-learning at a new round
     (`Settler.reset()`): the last round's dice usually still lie there, and dice left for
     the next throw would vanish from it.
  3. A global change refreshes everything: the view moved (the camera was knocked; found by
     phase correlation of the frame with the background) or most of the tray changed
     beyond what a local change of light explains. While the frame differs from the
     background like that, `filter()` passes nothing (a hand over most of the tray, or a
     view no longer comparable); once it has been quiet for `learn_frames` frames the
     whole frame becomes the background, as at the start: dice lying there then become
     background too, and are thrown again.

Measured on the synthetic printed tray of tests/vision/test_background.py (random dice of
every palette colour thrown over and around the prints, light 0.8-1.3x): prints, even
partly covered by a die, differ from the background by at most 0.19 (the `match` measure),
dice by at least 0.24 (a green die on the green cloth, a clear die); hence `match` = 0.2.

Light: patches are compared after a local gain (the ratio of their means, within
`max_gain`), so a lamp switched on or the sun moving does not make a print a die, and
light drift is learned in the quiet stretches anyway.

Everything works on a small, slightly blurred copy of the frame (`width` px wide), so a
frame costs well under a millisecond beside the detector's tens. numpy and OpenCV only.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import cv2
import numpy as np

Box = tuple[float, float, float, float]

#: Side of the blocks (in small-image pixels) the quiet and global-change tests look at.
BLOCK = 8
#: The part of a detection's box (each side, around its centre) compared with the background.
CENTRE = 0.6


class Background:
    """A learned picture of the empty tray; see the module docstring for when it learns.

    `learn_frames`: quiet frames in a row before the background is updated (10 = one second
    at the camera's 10 fps); `width`: width of the small copy the model works on;
    `match`: a detection is background when the middle of its box (`CENTRE` of each side)
    differs from the same place of the background, after the local gain, by less than this
    fraction of the patch's mean level (mean absolute difference); `quiet`: a block
    changed by more than this fraction (same measure) between two frames is movement;
    `global_fraction`: more than this fraction of the tray's blocks changed that much from
    the background, or a shift of the view of more than `max_shift` small pixels, is a
    global change; `margin`: the dice kept out of learning are widened by this fraction of their
    size on every side (shadow, bounce).
    """

    def __init__(self, learn_frames: int = 10, width: int = 320, match: float = 0.2, quiet: float = 0.1,
                 global_fraction: float = 0.4, max_shift: float = 1.5, max_gain: float = 1.6,
                 margin: float = 0.25) -> None:
        if not isinstance(learn_frames, int) or learn_frames < 1:
            raise ValueError(f"learn_frames must be a whole number of frames >= 1, got {learn_frames!r}")
        if width < 32:
            raise ValueError(f"width must be at least 32 px, got {width!r}")
        self.learn_frames = learn_frames
        self.width = int(width)
        self.match = match
        self.quiet = quiet
        self.global_fraction = global_fraction
        self.max_shift = max_shift
        self.max_gain = max_gain
        self.margin = margin
        self.image: np.ndarray | None = None  # the background, small float32 BGR
        self._scale = 1.0  # small pixels per frame pixel
        self._previous: np.ndarray | None = None
        self._quiet = 0  # quiet frames in a row
        self._kept: list[Box] = []  # boxes of the last detections filter() kept
        self._stretch: list[Box] = []  # boxes kept during the current quiet stretch
        self._cache: tuple[Any, np.ndarray] | None = None  # (frame, its small copy)
        self.learned = 0  # how many times the background was updated (for tests and logs)
        self.refreshed = 0  # how many of those were whole refreshes (start, global change)

    @property
    def ready(self) -> bool:
        return self.image is not None

    # ------------------------------------------------------------------ learning

    def observe(self, frame: np.ndarray) -> bool:
        """Take one frame (every frame the camera gives, moving or not). Returns True when
        the background was updated on this frame."""
        small = self._small(frame, reuse=False)
        if self.image is None or self.image.shape != small.shape:
            self._refresh(small)
            self._previous = small
            return True
        previous, self._previous = self._previous, small
        if (previous is None or previous.shape != small.shape
                or bool((_block_change(small, previous, self.max_gain) > self.quiet).any())):
            self._quiet = 0
            self._stretch = []
            return False
        self._quiet += 1
        if self._quiet % self.learn_frames:
            return False
        if self._global_change(small):
            self._refresh(small)
        else:
            keep = self._keep_mask(small.shape[:2])
            self.image[~keep] = small[~keep]
            self.learned += 1
        return True

    def reset(self) -> None:
        """Forget everything: the next frame is the tray as it is (a new camera, a new tray)."""
        self.image = None
        self._previous = None
        self._quiet = 0
        self._kept, self._stretch = [], []
        self._cache = None

    def _refresh(self, small: np.ndarray) -> None:
        self.image = small.copy()
        self._kept, self._stretch = [], []
        self.learned += 1
        self.refreshed += 1

    def _keep_mask(self, shape: tuple[int, int]) -> np.ndarray:
        keep = np.zeros(shape, bool)
        h, w = shape
        for box in self._kept + self._stretch:
            x0, y0, x1, y1 = self._small_box(box, self.margin)
            keep[max(0, y0):min(h, y1), max(0, x0):min(w, x1)] = True
        return keep

    def _global_change(self, small: np.ndarray) -> bool:
        """The view moved, or most of the tray differs from the background."""
        assert self.image is not None
        changed = _block_change(small, self.image, self.max_gain) > self.quiet
        if changed.size and float(changed.mean()) > self.global_fraction:
            return True
        grey_now = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        grey_then = cv2.cvtColor(self.image, cv2.COLOR_BGR2GRAY)
        if grey_now.shape[0] < 8 or grey_now.shape[1] < 8:
            return False
        window = cv2.createHanningWindow(grey_now.shape[::-1], cv2.CV_32F)
        (dx, dy), response = cv2.phaseCorrelate(grey_then, grey_now, window)
        return response > 0.1 and math.hypot(dx, dy) > self.max_shift

    # ------------------------------------------------------------------ filtering

    def is_background(self, frame: np.ndarray, box: Sequence[float]) -> bool:
        """Whether `box` (x0, y0, x1, y1 in the frame's pixels) looks in `frame` as it
        looks in the background. Before any frame, `frame` becomes the background."""
        small = self._small(frame)
        if self.image is None or self.image.shape != small.shape:
            self.observe(frame)
        assert self.image is not None
        return self._difference(small, box) < self.match

    def filter(self, frame: np.ndarray, detections: Iterable[Any]) -> list[Any]:
        """The detections (anything with a `.box`) that are not background, in order; they
        are remembered as the dice the table counts and kept out of learning. Nothing
        passes while the frame differs globally from the background (see the module
        docstring); `frame` should have been given to `observe()` first."""
        detections = list(detections)
        small = self._small(frame)
        if self.image is None or self.image.shape != small.shape:
            self.observe(frame)
        kept = [d for d in detections if not self.is_background(frame, d.box)]
        if kept and self._global_change(small):
            kept = []
        self._kept = [tuple(float(v) for v in d.box) for d in kept]  # type: ignore[misc]
        self._stretch.extend(self._kept)
        return kept

    def difference(self, frame: np.ndarray, box: Sequence[float]) -> float:
        """How much `box` differs from the background (the measure `match` bounds)."""
        small = self._small(frame)
        if self.image is None or self.image.shape != small.shape:
            self.observe(frame)
        return self._difference(small, box)

    def _difference(self, small: np.ndarray, box: Sequence[float]) -> float:
        assert self.image is not None
        h, w = small.shape[:2]
        # The middle of the box: die only, however the die is turned (a die at 45 degrees
        # fills half its box), so the cloth in the corners does not water the measure down
        # and a die lying over part of a print does not make the print's box a die.
        x0, y0, x1, y1 = self._small_box(box, -(1.0 - CENTRE) / 2)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return math.inf  # too small to judge: not background
        now = small[y0:y1, x0:x1]
        then = self.image[y0:y1, x0:x1]
        gain = float(np.clip(now.mean() / max(float(then.mean()), 1.0), 1.0 / self.max_gain, self.max_gain))
        then = then * gain
        return float(np.abs(now - then).mean()) / max(float(then.mean()), 10.0)

    # ------------------------------------------------------------------ helpers

    def _small(self, frame: np.ndarray, reuse: bool = True) -> np.ndarray:
        """The frame's small, slightly blurred float copy. `reuse`: the copy made by the
        last `observe()` when `frame` is the frame it was given (a camera may hand out the
        same buffer again with new pixels, so `observe()` always makes a fresh one)."""
        if reuse and self._cache is not None and self._cache[0] is frame:
            return self._cache[1]
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
            raise TypeError("the background model takes uint8 numpy images (BGR)")
        image = frame
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.ndim == 3 and image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        h, w = image.shape[:2]
        width = min(self.width, w)
        height = max(1, int(round(h * width / w)))
        self._scale = width / w
        small = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA) if width != w else image
        small = cv2.GaussianBlur(small.astype(np.float32), (0, 0), 0.8)
        self._cache = (frame, small)
        return small

    def _small_box(self, box: Sequence[float], margin: float) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = (float(v) * self._scale for v in box[:4])
        mx, my = (x1 - x0) * margin, (y1 - y0) * margin
        return (int(math.floor(x0 - mx)), int(math.floor(y0 - my)),
                int(math.ceil(x1 + mx)), int(math.ceil(y1 + my)))


def _block_change(a: np.ndarray, b: np.ndarray, max_gain: float) -> np.ndarray:
    """Per BLOCK x BLOCK block: mean |a - g b| / mean(g b), g = the block's gain (ratio of
    the means, within `max_gain`)."""
    h, w = a.shape[:2]
    hb, wb = h // BLOCK, w // BLOCK
    if hb == 0 or wb == 0:
        return np.zeros((0,), np.float32)
    a = a[:hb * BLOCK, :wb * BLOCK].reshape(hb, BLOCK, wb, BLOCK, -1)
    b = b[:hb * BLOCK, :wb * BLOCK].reshape(hb, BLOCK, wb, BLOCK, -1)
    ma = a.mean(axis=(1, 3, 4))
    mb = b.mean(axis=(1, 3, 4))
    gain = np.clip(ma / np.maximum(mb, 1.0), 1.0 / max_gain, max_gain)
    scaled = b * gain[:, None, :, None, None]
    diff = np.abs(a - scaled).mean(axis=(1, 3, 4))
    return diff / np.maximum(mb * gain, 10.0)
