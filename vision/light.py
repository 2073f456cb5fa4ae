"""The light of a photo: estimated once per frame from the table and the dice, undone before
colours are measured.

`estimate_light(image, boxes)` gives the light of a photo as a `SceneLight`, estimated once
from the whole frame and all its dice (about 0.4 ms for a 640x640 frame); `vision.colours`
(`ColourTable.name_dice`, `describe`) undoes it (per-channel gains, as 8-bit lookup tables,
`_Correction`) before each die is measured. Colour is (log R/G, log B/G) of the 8-bit values,
split into warmth along the way light changes colour from a warm lamp to shade (`WB_LOCUS`)
and tint across it (`WB_ACROSS`, green to magenta):
  * the table: the median of the frame sampled down to `WB_SIDE` pixels, less the dice's
    boxes (grown by 15%), clipped and near-black pixels left out;
  * the dice: in the middle of each die's box, sampled about `WB_FACE_SIDE` pixels across
    (pips stay sharp), its brightest pixels (within `WB_DIE_BRIGHT` of its lightest): white
    pips, a white or grey body, highlights. A die votes when at least half of them could be
    grey under a plausible light; a pixel with one channel clipped (a white pip under a
    strong cast) votes with the other two channels' ratio, on the locus, and only when the
    clipped channel is at least as bright as that light makes it. The dice's estimate is
    the median of the votes;
  * only plausible lights count: an estimate whose warmth is beyond `WB_WARMTH` or tint
    beyond `WB_TINT` (trust fading to none between the two numbers) is a coloured
    surface, not a light (orange wood, green felt, a yellow die), and at most
    `WB_MAX_TINT` of tint is ever corrected;
  * the dice's estimate is trusted fully from `WB_MIN_VOTES` voting dice (half with one),
    the table's for the rest but at most `WB_TABLE_TRUST` (a blue-grey cloth under neutral
    light is a grey one under a cool lamp; the dice tell them apart, the table cannot);
  * dim light: when the bright reference (the frame's `WB_BRIGHT_PERCENTILE` brightest
    channel, or the dice's median lightest value, their pips, whichever is higher) is
    below `WB_DIM`, the photo is brightened towards `WB_BRIGHT_TARGET` (fully from the
    first `WB_DIM` down, at most `WB_MAX_GAIN`): a photo in ordinary light is never
    brightened, and a grey die on a grey board with white pips is not taken for a white
    die in dim light;
  * channels clipped in the photo and scaled down by the correction are kept level with
    the pixel's brightest channel (a white pip stays white, not tinted).
Ambiguous, and left so: a table of a plausible light's colour (pale pine, a blue-grey
cloth) with nothing grey on the dice (only clear dice, or one coloured die at a time) is
partly corrected as if it were a grey table under a lamp.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

# White balance from the scene (`estimate_light`, see the module docstring). Colour is
# (log R/G, log B/G) of the camera's 8-bit (gamma-encoded) values; a lamp's colour moves it
# along the blackbody/daylight locus, whose direction there is about WB_LOCUS (warmer light:
# more red, less blue; from cameras' tungsten, daylight and shade white-balance presets,
# whose gains differ about as much in red as in blue).
#: Direction of warmer light in (log R/G, log B/G), and across it (magenta +, green -).
WB_LOCUS = (0.68, -0.73)
WB_ACROSS = (0.73, 0.68)
#: Side (pixels) of the downscaled frame the light is estimated on.
WB_SIDE = 64
#: An estimate is a plausible light while its warmth (along the locus) is within the first
#: number and its tint (across) within the second; trust fades to none at the third and
#: fourth: a table of a strong colour (green felt, orange wood) is a surface, not a light.
WB_WARMTH = (0.40, 0.55)
WB_TINT = (0.10, 0.20)
#: At most this much tint is corrected (lamps and cameras are a little green or magenta).
WB_MAX_TINT = 0.08
#: The table estimate needs at least this share of the frame outside the dice, and is
#: trusted at most this much (a blue-grey cloth looks like a grey one in cool light): it
#: corrects fully only what the dice agree with.
WB_MIN_TABLE = 0.05
WB_TABLE_TRUST = 0.5
#: The dice estimate: the pixels of each die's face within WB_DIE_BRIGHT of its brightest,
#: when at least half of them could be grey under a plausible light; fully trusted from
#: WB_MIN_VOTES such dice.
WB_DIE_BRIGHT = 0.85
WB_MIN_VOTES = 2
#: The dice estimate samples about this many pixels across the middle of each die.
WB_FACE_SIDE = 24
#: Pixels with a channel at or above this are clipped and say nothing about the light's
#: colour; pixels darker than WB_DARK are mostly noise.
WB_CLIPPED = 250.0
WB_DARK = 12.0
#: Dim light: the bright reference is the WB_BRIGHT_PERCENTILE of the frame's brightest
#: channel, or the median of the dice's lightest values (their pips, which the small frame
#: misses), whichever is higher. At or below the first WB_DIM the frame is brightened until
#: the reference reaches WB_BRIGHT_TARGET (by at most WB_MAX_GAIN); from the second up, not
#: at all; in between, partly (a photo in ordinary light is never brightened).
WB_BRIGHT_PERCENTILE = 98.0
WB_DIM = (150.0, 190.0)
WB_BRIGHT_TARGET = 220.0
WB_MAX_GAIN = 2.5

#: The central part of a die's box: what `vision.colours` measures for the die's colour, and
#: where the dice estimate samples each die.
_INNER = 0.70


@dataclass(frozen=True)
class SceneLight:
    """The light of one photo as the colour step corrects it (`estimate_light`).

    `warmth` is the light's shift along the blackbody/daylight locus (log units, positive:
    warmer than neutral, negative: cooler), `tint` across it (positive: magenta, negative:
    green), `brightness` the gain for dim light (1: none), and `gains` the B, G, R
    multipliers that undo all three, applied to the pixels before they are measured.
    """

    warmth: float = 0.0
    tint: float = 0.0
    brightness: float = 1.0

    @property
    def gains(self) -> tuple[float, float, float]:
        log_r = -(self.warmth * WB_LOCUS[0] + self.tint * WB_ACROSS[0])
        log_b = -(self.warmth * WB_LOCUS[1] + self.tint * WB_ACROSS[1])
        return (
            self.brightness * math.exp(log_b),
            self.brightness,
            self.brightness * math.exp(log_r),
        )


class _Correction:
    """A light's gains as a lookup table from 8-bit values to 0..1, made once per photo."""

    def __init__(self, light: SceneLight):
        gains = np.asarray(light.gains, np.float32)
        levels = np.arange(256, dtype=np.float32)[:, None] * (gains / np.float32(255.0))
        self.table = np.minimum(levels, 1.0).reshape(1, 256, 3)
        self.lowered = gains < 1.0

    @staticmethod
    def of(light: SceneLight | None) -> _Correction | None:
        """The correction for `light`; None when it would change no 8-bit value by more
        than about one level."""
        if light is None or max(abs(g - 1.0) for g in light.gains) < 0.004:
            return None
        return _Correction(light)

    def apply(self, image_bgr: np.ndarray) -> np.ndarray:
        """The pixels of `image_bgr` (8-bit BGR) as 0..1 floats with the light undone (a
        table per channel, clipped at white as the camera would)."""
        pixels = cv2.LUT(image_bgr, self.table)
        if self.lowered.any() and image_bgr.max() >= WB_CLIPPED:
            # A channel clipped in the photo was at least as bright as it shows; scaled
            # down, it would tint a white pip or a white die: keep it level with the
            # pixel's brightest channel.
            clipped = (image_bgr >= WB_CLIPPED) & self.lowered
            pixels = np.where(clipped, _top(pixels)[..., None], pixels)
        return pixels


def estimate_light(image_bgr: np.ndarray, boxes: Iterable[Sequence[float]] = ()) -> SceneLight:
    """The light of a photo, estimated once from the whole frame and the dice in it (see
    the module docstring). `boxes` are the dice (x0, y0, x1, y1, image pixels)."""
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.size == 0:
        raise ValueError(f"estimate_light needs a BGR colour image, got an array of shape {image_bgr.shape}")
    boxes = [tuple(float(v) for v in box[:4]) for box in boxes]
    height, width = image_bgr.shape[:2]
    # The frame, sampled (not averaged: that costs more than all the rest) to WB_SIDE.
    scale = min(1.0, WB_SIDE / max(height, width))
    small = image_bgr
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        small = cv2.resize(image_bgr, size, interpolation=cv2.INTER_LINEAR)
    sh, sw = small.shape[:2]
    sx, sy = sw / width, sh / height
    pixels = small.reshape(-1, 3)
    # The table: the frame less the dice (grown a little for their shadows and sides).
    surface = np.ones((sh, sw), dtype=bool)
    for x0, y0, x1, y1 in boxes:
        grow = 0.15 * max(x1 - x0, y1 - y0)
        surface[
            max(0, int((y0 - grow) * sy)) : max(0, math.ceil((y1 + grow) * sy)),
            max(0, int((x0 - grow) * sx)) : max(0, math.ceil((x1 + grow) * sx)),
        ] = False
    usable = (_top(pixels) < WB_CLIPPED) & (_bottom(pixels) > WB_DARK) & surface.reshape(-1)
    from_table = None  # (warmth, tint, trust)
    if usable.sum() >= max(16, WB_MIN_TABLE * len(pixels)):
        table = pixels[usable].astype(np.float32)
        chroma = np.log(np.stack((table[:, 2] / table[:, 1], table[:, 0] / table[:, 1])))
        half = chroma.shape[1] // 2
        warmth, tint, trust = _plausible(np.partition(chroma, half, axis=1)[:, half])
        from_table = (warmth, tint, trust * WB_TABLE_TRUST)
    # The dice: the brightest part of each die's face (white pips, white and grey bodies,
    # highlights), sampled without blurring the pips away.
    faces = [f for f in (_face_sample(image_bgr, box) for box in boxes) if f is not None]
    from_dice, lightest = None, None
    if faces:
        votes, lightest = _dice_votes(faces)
        if len(votes):
            w, t = np.median(votes, axis=0)
            from_dice = (float(w), float(t), _fade(abs(w), WB_WARMTH) * min(1.0, len(votes) / WB_MIN_VOTES))
    warmth, tint = _combine(from_table, from_dice)
    gains = np.asarray(SceneLight(warmth, tint).gains, np.float32)
    # Dim light (see WB_DIM). Clipped pixels count (a frame with clipped highlights is not
    # dim); so do the dice's lightest parts (their pips), which the small frame misses.
    levels = _top(pixels * gains)
    rank = min(len(levels) - 1, int(WB_BRIGHT_PERCENTILE / 100.0 * len(levels)))
    reference = float(np.partition(levels, rank)[rank])
    if lightest is not None:
        reference = max(reference, float(np.median(_top(lightest * gains))))
    return SceneLight(warmth, tint, _brightness(reference))


def _brightness(reference: float) -> float:
    """The gain for dim light, from the bright reference (see WB_DIM)."""
    dim, normal = WB_DIM
    if reference >= normal:
        return 1.0
    full = math.log(WB_BRIGHT_TARGET / max(reference, 1.0))  # the whole way to the target
    share = min(1.0, (normal - reference) / (normal - dim))  # 1 at `dim` and below
    return min(WB_MAX_GAIN, math.exp(full * share))


def _top(pixels: np.ndarray) -> np.ndarray:
    """The brightest channel of each pixel (elementwise: much faster than max(axis=-1))."""
    return np.maximum(np.maximum(pixels[..., 0], pixels[..., 1]), pixels[..., 2])


def _bottom(pixels: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(pixels[..., 0], pixels[..., 1]), pixels[..., 2])


def _dice_votes(faces: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each die's vote (warmth, tint) from its brightest pixels, when most of them could be
    grey under a plausible light (K x 2), and each die's lightest value of each channel
    (N x 3).

    A pixel with one channel clipped still gives the ratio of the other two, which on the
    locus gives the warmth; the clipped channel must then be at least what it shows."""
    sizes = np.array([len(f) for f in faces])
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pixels = np.concatenate(faces)
    top = _top(pixels)
    die = np.repeat(np.arange(len(faces)), sizes)
    die_top = np.maximum.reduceat(top, starts)
    lightest = np.maximum.reduceat(pixels, starts, axis=0).astype(np.float32)  # per channel
    bright = top.astype(np.float32) >= WB_DIE_BRIGHT * die_top[die]
    pixels, die = pixels[bright].astype(np.float32), die[bright]
    clipped = pixels >= WB_CLIPPED
    count = clipped[:, 0].astype(np.int8) + clipped[:, 1] + clipped[:, 2]
    logs = np.log(np.maximum(pixels, 1.0))
    c1 = logs[:, 2] - logs[:, 1]  # log R/G
    c2 = logs[:, 0] - logs[:, 1]  # log B/G
    u0, u1 = WB_LOCUS
    v0, v1 = WB_ACROSS
    warmth = c1 * u0 + c2 * u1
    tint = c1 * v0 + c2 * v1
    one = count == 1
    r, b, g = one & clipped[:, 2], one & clipped[:, 0], one & clipped[:, 1]
    warmth = np.where(r, c2 / u1, warmth)  # red clipped: blue/green is left
    warmth = np.where(b, c1 / u0, warmth)  # blue clipped: red/green is left
    warmth = np.where(g, (c1 - c2) / (u0 - u1), warmth)  # green clipped: red/blue is left
    slack = WB_TINT[0]
    consistent = ~(r & (warmth * u0 + slack < c1))
    consistent &= ~(b & (warmth * u1 + slack < c2))
    consistent &= ~(g & ((warmth * u0 - slack > c1) | (warmth * u1 - slack > c2)))
    grey = (
        (count <= 1)
        & consistent
        & (_bottom(pixels) > WB_DARK)
        & (np.abs(warmth) <= WB_WARMTH[1])
        & ((np.abs(tint) <= WB_TINT[1]) | one)
    )
    n = np.bincount(die, minlength=len(faces))
    n_grey = np.bincount(die[grey], minlength=len(faces))
    sum_warmth = np.bincount(die[grey], weights=warmth[grey], minlength=len(faces))
    full = grey & (count == 0)
    n_full = np.bincount(die[full], minlength=len(faces))
    sum_tint = np.bincount(die[full], weights=tint[full], minlength=len(faces))
    voting = (n_grey >= 3) & (2 * n_grey >= n)
    votes = np.stack(
        (sum_warmth[voting] / n_grey[voting], sum_tint[voting] / np.maximum(n_full[voting], 1)), axis=1
    )
    return votes, lightest


def _face_sample(image_bgr: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray | None:
    """Pixels (N x 3) of the middle of a die's box, every few pixels: pips stay
    sharp, and a big die costs no more than a small one."""
    height, width = image_bgr.shape[:2]
    ix0, iy0, ix1, iy1 = _middle(box, _INNER, width, height)
    step = max(1, round(max(ix1 - ix0, iy1 - iy0) / WB_FACE_SIDE))
    face = image_bgr[iy0:iy1:step, ix0:ix1:step]
    if face.shape[0] * face.shape[1] < 9:
        return None
    return face.reshape(-1, 3)


def _plausible(chroma: np.ndarray) -> tuple[float, float, float]:
    """(warmth, tint, trust) of a chromaticity (log R/G, log B/G) that may be the light's."""
    warmth = float(chroma[0] * WB_LOCUS[0] + chroma[1] * WB_LOCUS[1])
    tint = float(chroma[0] * WB_ACROSS[0] + chroma[1] * WB_ACROSS[1])
    trust = _fade(abs(warmth), WB_WARMTH) * _fade(abs(tint), WB_TINT)
    return warmth, tint, trust


def _fade(value: float, limits: tuple[float, float]) -> float:
    low, high = limits
    return float(np.clip((high - value) / (high - low), 0.0, 1.0))


def _combine(
    table: tuple[float, float, float] | None, dice: tuple[float, float, float] | None
) -> tuple[float, float]:
    """The light's (warmth, tint) from the table's and the dice's estimates (warmth, tint,
    trust): the dice's as far as they are trusted, the table's for the rest."""
    warmth = tint = 0.0
    rest = 1.0
    for estimate in (dice, table):
        if estimate is None:
            continue
        w, t, trust = estimate
        trust *= rest
        warmth += trust * w
        tint += trust * t
        rest -= trust
    return warmth, float(np.clip(tint, -WB_MAX_TINT, WB_MAX_TINT))


# Boxes in whole pixels (shared with vision.colours, which measures the same middle of a die).


def _clip_box(box: Sequence[float], grow: float, width: int, height: int) -> tuple[int, int, int, int]:
    """A box (x0, y0, x1, y1) grown by `grow` times its size on every side, rounded to whole
    pixels and clipped to a `width` x `height` image."""
    x0, y0, x1, y1 = map(float, box)
    g = grow * max(x1 - x0, y1 - y0)
    return max(0, round(x0 - g)), max(0, round(y0 - g)), min(width, round(x1 + g)), min(height, round(y1 + g))


def _middle(
    box: tuple[float, float, float, float], share: float, width: int, height: int
) -> tuple[int, int, int, int]:
    """The central `share` of a box (x0, y0, x1, y1) across and down, clipped to the image."""
    x0, y0, x1, y1 = box
    shrink = (1.0 - share) / 2.0
    return _clip_box(
        (x0 + shrink * (x1 - x0), y0 + shrink * (y1 - y0), x1 - shrink * (x1 - x0), y1 - shrink * (y1 - y0)),
        0.0,
        width,
        height,
    )
