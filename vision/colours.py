"""Naming a die's colour: the default palette, per-table calibration and classification.

How a die is measured (`describe`):
  * the inner 70% of its box is converted to CIE Lab (OpenCV, float: L 0-100, a/b about
    -128..127);
  * pips, highlights and shadows are dropped by keeping the pixels closest to the region's
    median colour (two rounds of "keep the nearer 60%"); the mean of what is left is the
    body colour;
  * a ring just outside the box (from 10% to 40% of the die's size around it) gives the
    colour of the table around the die. A clear (see-through) die shows that table through
    itself, so its body colour is close to the ring's;
  * glints: the share of the box's outer band (outside its inner 76%, where no pips lie)
    that is much lighter than both the body and the table and nearly grey. Clear dice
    light up along their edges; a white die on a white tray or a grey die on a grey board
    does not.

White balance from the scene (`ColourTable.name_dice`, `vision.light`): the light of a photo
is estimated once, from the whole frame and all its dice (`estimate_light`), and undone
before each die is measured as above; `vision.light` says how.
`ColourTable.name(image, box)` is `name_dice(image, [box])[0]`: the same, knowing one die; to
name every die of a frame, call `name_dice` once (the light is estimated once, about 0.4 ms for
a 640x640 frame, and all the dice vote). `describe(image, box)` without a light measures
the pixels as they are. Calibration measures its throws under the median of their lights.

How a die is named (`ColourTable.classify`):
  * each solid colour entry is an ellipsoid in lightness / chroma / hue around its
    centre: ``d = sqrt((dL/sL)^2 + (dC/sC)^2 + (dH/sH)^2)`` where dH is the CIE94 hue
    difference (the chord between the two hues, which shrinks to 0 for grey colours, so
    white and black are judged by lightness and chroma alone). The die gets the nearest
    entry with ``d <= 1``. A die outside every ellipsoid but near one (``d <=
    NEAR_REACH``) gets that colour only when it is clearly the nearest: every other colour
    at least `NEAR_MARGIN` times as far (a green photographed a little darker than any
    green the palette knows, not a die between blue and purple). Any other die is unknown
    (None), never forced into the nearest colour.
  * the default scales are wide in lightness (light varies) and narrower in hue (a white
    balance shift moves hue little for strongly coloured dice), see `DEFAULT_SCALES`.
    Some default colours have second ellipsoids (`DEFAULT_DARK`) where real dice sit far
    from the first: navy and violet blues, dark purples (hue ~320, chroma ~5-15, which
    a neutral black must not take), translucent and maroon reds, dark teal greens, and
    opaque greens and yellows as a phone photographs them (darker and greyer).
  * see-through rule: a die looks like the table when its body is within
    `SEE_THROUGH_DISTANCE` (CIE76 delta E) of its surroundings, or, on a coloured surface
    (chroma >= `TINT_MIN_CHROMA`), when its body is a paler or greyer version of the
    surface's own hue (a and b a fraction `TINT_FRACTION` of the surface's, off that hue
    by at most `TINT_RESIDUAL`, lighter by `TINT_LIGHTNESS`): clear plastic shows the
    cloth under it, lightened and desaturated by reflections. Such a die is
      - "clear" when the table knows "clear" (else unknown) and either it glints (at
        least `CLEAR_MIN_GLINTS`) or it is such a tint and no solid colour's first
        ellipsoid accepts it (the second ones are for real dice on a light tray; a dull
        clear die on green felt looks like a dark green die);
      - otherwise, when the table knows "clear": "white" for a light, nearly grey body
        (`WHITE_MIN_LIGHTNESS`, `WHITE_MAX_CHROMA`: a white die on a light tray; a clear
        die there would glint, but on a tray as white as its glints a dull clear die is
        read as white too), else unknown (a grey die on a grey board could be clear);
        without "clear", the solid colour that accepts it (a die on a cloth of nearly its
        own colour) or unknown.
    Calibration refuses a colour whose dice look like the surface when "clear" is
    calibrated too: use a tray that contrasts with the dice.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import ArrayLike

from vision.evaluate import iou
from vision.light import _INNER, SceneLight, _clip_box, _Correction, _middle, estimate_light
from vision.photos import read_photo

# Reference body colours (BGR, as OpenCV stores pixels) of the default palette's dice.
# The synthetic renderer draws named dice with these; classification compares with them.
DEFAULT_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (35, 25, 180),
    "orange": (30, 130, 245),
    "yellow": (30, 195, 215),
    "green": (70, 160, 40),
    "blue": (190, 90, 30),
    "purple": (120, 40, 100),
    "pink": (180, 130, 245),
    "white": (235, 235, 235),
    "black": (35, 35, 35),
    "clear": (0, 0, 0),  # translucent: drawn see-through, classified by its own rule
}

#: The name of the see-through colour, classified by `SEE_THROUGH_DISTANCE`, not by Lab.
CLEAR = "clear"

#: Acceptance scales (lightness, chroma, hue) of the default palette, in Lab units. A die
#: is accepted by a colour when its normalised distance is at most 1. Chosen so that
#: neighbouring colours do not overlap (red/orange/pink, purple/blue) and odd colours such
#: as brown (dark orange hue) and teal (between green and blue) fall outside every entry.
DEFAULT_SCALES: dict[str, tuple[float, float, float]] = {
    "red": (24.0, 40.0, 18.0),
    "orange": (20.0, 32.0, 18.0),
    "yellow": (24.0, 36.0, 20.0),
    "green": (24.0, 32.0, 22.0),
    "blue": (24.0, 30.0, 22.0),
    "purple": (22.0, 32.0, 18.0),
    "pink": (20.0, 28.0, 20.0),
    "white": (22.0, 20.0, 16.0),
    "black": (18.0, 12.0, 14.0),
}
#: Where the default white and black are centred (L, a, b): a white die in a photo is
#: rarely at the camera's white point, a black one is lifted by reflections.
DEFAULT_CENTRES: dict[str, tuple[float, float, float]] = {
    "white": (85.0, 0.0, 0.0),
    "black": (18.0, 0.0, 0.0),
}

#: Second centres of the default palette (name, (L, a, b), scales) for dice the first
#: centres miss in real photos: dark and translucent dice keep their hue but lose
#: lightness and chroma (a navy or marbled blue, a dark purple that is not black, a
#: see-through red). Measured on Byler photos (docs/model-history.md, "Colours").
DEFAULT_DARK: tuple[tuple[str, tuple[float, float, float], tuple[float, float, float]], ...] = (
    ("blue", (24.0, 4.0, -24.0), (14.0, 12.0, 10.0)),
    ("blue", (14.0, 22.0, -39.0), (12.0, 16.0, 9.0)),
    ("purple", (12.0, 9.5, -8.0), (12.0, 7.0, 5.0)),
    ("purple", (38.0, 19.0, -13.0), (10.0, 10.0, 6.0)),
    ("red", (28.0, 28.0, 13.0), (16.0, 14.0, 8.0)),
    ("red", (28.0, 17.0, 3.5), (10.0, 7.0, 6.0)),
    ("green", (32.0, -24.0, 6.0), (11.0, 10.0, 7.0)),
    # 2026-11, from the Byler sample of tests/fixtures/colours, white balanced: opaque
    # greens and yellows as a phone photographs them (darker and greyer than the palette's,
    # at the edge of its ellipsoid, out of it in a warm cast), teal-green marbled dice,
    # navy blues and near-black purples.
    ("green", (42.0, -39.9, 24.9), (14.0, 14.0, 9.0)),
    ("yellow", (64.0, -8.5, 58.4), (12.0, 14.0, 8.0)),
    ("green", (34.0, -22.5, 13.0), (16.0, 14.0, 10.0)),
    ("blue", (12.0, 6.9, -17.1), (10.0, 8.0, 5.0)),
    ("purple", (22.0, 4.8, -3.8), (14.0, 3.5, 3.0)),
)
#: A die in no colour's ellipsoid is still named by the nearest colour when it lies within
#: this normalised distance of it, and every other colour is `NEAR_MARGIN` times as far.
#: Chosen on the tuned Byler sample of tests/fixtures/colours (1,013 of 1,100 right over
#: five casts instead of 997, gold dice still unknown 34 of 40 times instead of 36);
#: measured on the held-out sample (docs/model-history.md, "Colours").
NEAR_REACH = 1.25
NEAR_MARGIN = 1.25

#: A die that looks like the table (see-through) but does not glint, with a light and
#: nearly grey body, is white: a white die on a white or grey tray (a clear die glints).
WHITE_MIN_LIGHTNESS = 60.0

WHITE_MAX_CHROMA = 15.0

#: Body colour within this CIE76 distance of the surroundings: the die is see-through.
SEE_THROUGH_DISTANCE = 12.0
#: Tinted see-through: on a surface of at least this chroma, a body whose (a, b) is
#: TINT_FRACTION times the surface's (a, b), within TINT_RESIDUAL across the surface's
#: hue, and lighter by TINT_LIGHTNESS (clear plastic lightens what it covers).
TINT_MIN_CHROMA = 20.0
TINT_FRACTION = (0.3, 1.1)
TINT_RESIDUAL = 6.0
TINT_LIGHTNESS = (-5.0, 16.0)
#: A glint pixel is this much lighter (L) than both body and surroundings, and greyish.
GLINT_LIGHTER = 20.0
GLINT_MAX_CHROMA = 25.0
#: Share of glint pixels in the box's outer band that marks a clear die's lit edges.
CLEAR_MIN_GLINTS = 0.04

#: Calibration: an entry's scale on each axis is max(CALIBRATION_K * spread, floor).
CALIBRATION_K = 3.0
CALIBRATION_FLOORS = (20.0, 20.0, 14.0)
#: Two calibrated colours whose ellipsoids would overlap (centre distance measured with
#: the sum of both scales below this) are refused as too close to tell apart.
CALIBRATION_MIN_SEPARATION = 1.0

# _INNER (vision.light, which samples the same middle of a die): the central part of the
# box that is measured.
_BAND = 0.76  # the outer band of the box (outside its central 76%) is searched for glints
_RING = (0.10, 0.40)  # ring around the box, as fractions of the die's size
_MAX_SIDE = 24  # die + ring are measured on about 24-47 px across (see _patch)
_KEEP = 0.60  # fraction of pixels nearest the median kept as body in each round
_MAX_BODY_PIXELS = 1200  # at most about this many pixels are used for the body colour

_FORMAT = "dicetable-colours"
_VERSION = 1


class ColourTableError(ValueError):
    """A colour table file or a calibration that cannot be used; the message says why."""


@dataclass(frozen=True)
class ColourDescriptor:
    """A die's measured body colour.

    `lab` is the body colour (L, a, b), `chroma` and `hue` (degrees) derive from it,
    `background` is the median Lab colour of the ring around the die (None when the die
    fills the image), `background_distance` the CIE76 distance between them (inf without
    a background), `see_through` whether the die looks like its surroundings (see the
    module's see-through rule), `tinted` whether it is a paler version of a coloured
    surface's hue, and `glints` the share of the box's outer band lit like a clear die's
    edges.
    """

    lab: tuple[float, float, float]
    chroma: float
    hue: float
    background: tuple[float, float, float] | None
    background_distance: float
    see_through: bool = False
    tinted: bool = False
    glints: float = 0.0

    @property
    def clear_like(self) -> bool:
        """Looks like the table and glints along its edges: a clear die."""
        return self.see_through and self.glints >= CLEAR_MIN_GLINTS


def _lab(image_bgr: np.ndarray, correction: _Correction | None = None) -> np.ndarray:
    if correction is None:
        pixels = image_bgr.astype(np.float32) * np.float32(1.0 / 255.0)
    else:
        pixels = correction.apply(image_bgr)  # the light undone
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2Lab)


def _body_colour(pixels: np.ndarray) -> np.ndarray:
    """Mean of the pixels (N x 3 Lab) nearest their median: drops pips and highlights."""
    step = max(1, len(pixels) // _MAX_BODY_PIXELS)
    kept = pixels[::step]  # big dice: a regular sample of their pixels is enough
    for _ in range(2):
        # Order statistics by partition (cheaper than np.median / np.quantile's sorts), on
        # squared distances (the same order as the distances, without their square roots).
        centre = np.partition(kept, len(kept) // 2, axis=0)[len(kept) // 2]
        offset = kept - centre
        dist = np.einsum("ij,ij->i", offset, offset)
        k = int(_KEEP * (len(dist) - 1))
        limit = np.partition(dist, k)[k]
        kept = kept[dist <= limit]
    return kept.sum(axis=0) / len(kept)  # the mean, without np.mean's overhead


def _median(pixels: np.ndarray) -> np.ndarray:
    """np.median(pixels, axis=0) by one partition (a third of its time on small arrays)."""
    n = len(pixels)
    half = n // 2
    if n % 2:
        return np.partition(pixels, half, axis=0)[half]
    part = np.partition(pixels, (half - 1, half), axis=0)
    return (part[half - 1] + part[half]) / 2


def describe(
    image_bgr: np.ndarray, box: Sequence[float], light: SceneLight | None = None
) -> ColourDescriptor:
    """Measure the body colour of the die in `box` (x0, y0, x1, y1, image pixels), under
    `light` (`estimate_light`; None: the pixels as they are)."""
    patch, inside = _patch(image_bgr, box)
    return _describe(patch, inside, _Correction.of(light))


def _patch(image_bgr: np.ndarray, box: Sequence[float]) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """The pixels a die is measured on, and its box in them."""
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"describe needs a BGR colour image, got an array of shape {image_bgr.shape}")
    height, width = image_bgr.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"box {tuple(box)} is empty: expected (x0, y0, x1, y1) with x1 > x0 and y1 > y0")
    # Colour statistics need no more than a few dozen pixels across the die and its ring:
    # measure on a copy of just that patch averaged over whole k x k blocks, to between
    # _MAX_SIDE and 2 * _MAX_SIDE px across (a whole factor costs a third of any other; a die
    # of 150 px, or a 12 MP photo, costs the same as a small one). A patch under _MAX_SIDE
    # is measured as it is; k stays small enough to keep the die and the patch 8 px across.
    ox0, oy0, ox1, oy1 = _clip_box((x0, y0, x1, y1), _RING[1], width, height)
    if ox1 <= ox0 or oy1 <= oy0:
        raise ValueError(f"box {tuple(box)} lies outside the {width}x{height} image")
    k = int(max(ox1 - ox0, oy1 - oy0) // _MAX_SIDE)
    while k > 1 and min(x1 - x0, y1 - y0, ox1 - ox0, oy1 - oy0) < 8 * k:
        k -= 1
    if k > 1:
        w, h = (ox1 - ox0) // k, (oy1 - oy0) // k
        patch = cv2.resize(image_bgr[oy0 : oy0 + h * k, ox0 : ox0 + w * k], (w, h), interpolation=cv2.INTER_AREA)
        return patch, ((x0 - ox0) / k, (y0 - oy0) / k, (x1 - ox0) / k, (y1 - oy0) / k)
    return image_bgr, (x0, y0, x1, y1)


def _describe(
    image_bgr: np.ndarray, box: tuple[float, float, float, float], correction: _Correction | None
) -> ColourDescriptor:
    height, width = image_bgr.shape[:2]
    x0, y0, x1, y1 = box
    ix0, iy0, ix1, iy1 = _middle(box, _INNER, width, height)
    if ix1 - ix0 < 2 or iy1 - iy0 < 2:
        raise ValueError(
            f"box {tuple(box)} has too few pixels inside the {width}x{height} image to measure a colour"
        )
    # Lab of the die and its surroundings in one conversion.
    ox0, oy0, ox1, oy1 = _clip_box((x0, y0, x1, y1), _RING[1], width, height)
    lab = _lab(image_bgr[oy0:oy1, ox0:ox1], correction).reshape(oy1 - oy0, ox1 - ox0, 3)
    region = lab[iy0 - oy0 : iy1 - oy0, ix0 - ox0 : ix1 - ox0].reshape(-1, 3)
    body = _body_colour(region)

    mask = np.ones(lab.shape[:2], dtype=bool)
    hx0, hy0, hx1, hy1 = _clip_box((x0, y0, x1, y1), _RING[0], width, height)
    mask[hy0 - oy0 : hy1 - oy0, hx0 - ox0 : hx1 - ox0] = False
    ring = lab[mask]
    if len(ring) >= 16:
        background = _median(ring)
        background_t: tuple[float, float, float] | None = tuple(background.tolist())
        background_distance = math.dist(body.tolist(), background_t)
        lightest = max(float(body[0]), float(background[0]))
        tinted = _tinted(body, background)
        see_through = background_distance <= SEE_THROUGH_DISTANCE or tinted
    else:
        background_t, background_distance, lightest = None, math.inf, float(body[0])
        see_through = tinted = False
    bx0, by0, bx1, by1 = _clip_box((x0, y0, x1, y1), 0.0, width, height)
    band = np.zeros(lab.shape[:2], dtype=bool)
    band[by0 - oy0 : by1 - oy0, bx0 - ox0 : bx1 - ox0] = True
    cx0, cy0, cx1, cy1 = _middle(box, _BAND, width, height)
    band[cy0 - oy0 : cy1 - oy0, cx0 - ox0 : cx1 - ox0] = False
    band_pixels = lab[band]
    glints = 0.0
    if len(band_pixels):
        lit = (band_pixels[:, 0] > lightest + GLINT_LIGHTER) & (
            np.hypot(band_pixels[:, 1], band_pixels[:, 2]) < GLINT_MAX_CHROMA
        )
        glints = np.count_nonzero(lit) / len(lit)
    L, a, b = body.tolist()
    return ColourDescriptor(
        lab=(L, a, b),
        chroma=math.hypot(a, b),
        hue=math.degrees(math.atan2(b, a)) % 360.0,
        background=background_t,
        background_distance=background_distance,
        see_through=see_through,
        tinted=tinted,
        glints=glints,
    )


def _tinted(body: np.ndarray, background: np.ndarray) -> bool:
    """Is the body a paler or greyer version of a coloured surface's hue?"""
    surface = background[1:].astype(float)
    chroma = float(np.hypot(*surface))
    lighter = float(body[0] - background[0])
    if chroma < TINT_MIN_CHROMA or not TINT_LIGHTNESS[0] <= lighter <= TINT_LIGHTNESS[1]:
        return False
    direction = surface / chroma
    along = float(np.dot(body[1:], direction))
    across = abs(float(body[1] * direction[1] - body[2] * direction[0]))
    low, high = TINT_FRACTION
    return low * chroma <= along <= high * chroma and across <= TINT_RESIDUAL


def _bgr_to_lab(bgr: Sequence[int]) -> tuple[float, float, float]:
    pixel = np.array([[bgr]], dtype=np.uint8)
    L, a, b = _lab(pixel)[0, 0]
    return float(L), float(a), float(b)


def _differences(lab: ArrayLike, centre: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dL, dC, dH) between Lab colours (arrays of ... x 3, broadcast against each other),
    dH the CIE94 hue difference."""
    lab, centre = np.asarray(lab, np.float64), np.asarray(centre, np.float64)
    dL = lab[..., 0] - centre[..., 0]
    dC = np.hypot(lab[..., 1], lab[..., 2]) - np.hypot(centre[..., 1], centre[..., 2])
    dH2 = np.square(lab[..., 1:] - centre[..., 1:]).sum(-1) - dC**2
    return dL, dC, np.sqrt(np.maximum(dH2, 0.0))


def _distances(labs: ArrayLike, centres: ArrayLike, scales: ArrayLike) -> np.ndarray:
    """Normalised distances (N x M, accepted when <= 1) of N Lab colours from M ellipsoids
    (their centres and their scales (sL, sC, sH), M x 3 each)."""
    dL, dC, dH = _differences(np.asarray(labs, np.float64)[:, None], np.asarray(centres, np.float64)[None])
    sL, sC, sH = np.asarray(scales, np.float64).T
    return np.sqrt((dL / sL) ** 2 + (dC / sC) ** 2 + (dH / sH) ** 2)


@dataclass(frozen=True)
class ColourEntry:
    """One known colour: an ellipsoid of acceptance around `lab` with `scales` (sL, sC, sH)
    in lightness, chroma and hue, or (`see_through=True`) the see-through rule."""

    name: str
    lab: tuple[float, float, float] = (0.0, 0.0, 0.0)
    scales: tuple[float, float, float] = (1.0, 1.0, 1.0)
    see_through: bool = False
    #: further ellipsoids of the same colour, ((L, a, b), (sL, sC, sH)) each
    also: tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...] = ()

    def distance(self, lab: Sequence[float], first_only: bool = False) -> float:
        """Normalised distance of a Lab colour from this entry (its nearest ellipsoid, or
        with `first_only` its first): accepted when <= 1."""
        if self.see_through:
            return math.inf
        ellipsoids = ((self.lab, self.scales), *(() if first_only else self.also))
        return float(_distances([lab], [c for c, _ in ellipsoids], [sc for _, sc in ellipsoids]).min())

    def to_json(self) -> dict:
        if self.see_through:
            return {"name": self.name, "see_through": True}
        out = {"name": self.name, "lab": list(self.lab), "scales": list(self.scales)}
        if self.also:
            out["also"] = [[list(c), list(sc)] for c, sc in self.also]
        return out


class ColourTable:
    """The colours a table knows, and how to name a die by them."""

    def __init__(self, entries: Iterable[ColourEntry]):
        self.entries: tuple[ColourEntry, ...] = tuple(entries)
        names = [e.name for e in self.entries]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ColourTableError(f"colour table names {', '.join(duplicates)} more than once")
        # Every ellipsoid of every solid colour as rows of arrays, each colour's rows from
        # self._starts on: the dice of a frame are measured against all at once (`_nearest`).
        solid = [e for e in self.entries if not e.see_through]
        ellipsoids = [((e.lab, e.scales), *e.also) for e in solid]
        self._solid = [e.name for e in solid]
        self._starts = np.cumsum([0, *(len(group) for group in ellipsoids[:-1])]).astype(np.intp)
        self._centres = np.array([c for group in ellipsoids for c, _ in group], np.float64).reshape(-1, 3)
        self._scales = np.array([sc for group in ellipsoids for _, sc in group], np.float64).reshape(-1, 3)

    def __repr__(self) -> str:
        return f"ColourTable({', '.join(e.name for e in self.entries)})"

    def names(self) -> list[str]:
        """The names of the colours this table knows, in order."""
        return [e.name for e in self.entries]

    def name_dice(self, image_bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> list[str | None]:
        """Each die's colour name (None: unknown) in one photo: the light estimated once
        from the whole frame (`estimate_light`) and undone before every die is measured;
        then each die is named as `classify` names it."""
        boxes = [tuple(float(v) for v in box[:4]) for box in boxes]
        if not boxes:
            return []
        try:
            correction = _Correction.of(estimate_light(image_bgr, boxes))
        except ValueError:
            correction = None  # not a colour photo: every die below is unknown
        descriptors: list[ColourDescriptor | None] = []
        for box in boxes:
            try:
                patch, inside = _patch(image_bgr, box)
                descriptors.append(_describe(patch, inside, correction))
            except ValueError:
                descriptors.append(None)  # a box too small to measure, or outside the photo
        measured = [d for d in descriptors if d is not None]
        names = iter(map(self._judged, measured, self._nearest([d.lab for d in measured])))
        return [None if d is None else next(names) for d in descriptors]

    def _measured_name(self, image_bgr: np.ndarray, box: Sequence[float]) -> str | None:
        """The name of the die in `box` measured as the photo is (no scene light)."""
        try:
            return self.classify(describe(image_bgr, box))
        except ValueError:
            return None

    @classmethod
    def default(cls) -> ColourTable:
        """The default palette: common dice colours under ordinary indoor light."""
        entries = []
        for name, bgr in DEFAULT_PALETTE.items():
            if name == CLEAR:
                entries.append(ColourEntry(name, see_through=True))
            else:
                lab = DEFAULT_CENTRES.get(name, _bgr_to_lab(bgr))
                also = tuple((c, sc) for n, c, sc in DEFAULT_DARK if n == name)
                entries.append(ColourEntry(name, lab=lab, scales=DEFAULT_SCALES[name], also=also))
        return cls(entries)

    # naming ----------------------------------------------------------------------------

    def classify(self, descriptor: ColourDescriptor) -> str | None:
        """The colour name of a measured die, or None when it is far from every entry."""
        return self._judged(descriptor, self._nearest([descriptor.lab])[0])

    def _nearest(self, labs: Sequence[Sequence[float]]) -> list[str | None]:
        """For each Lab colour, the solid colour whose ellipsoid it lies deepest in (the
        smallest `ColourEntry.distance`); outside them all, the nearest colour when it is
        near and clearly nearest (`NEAR_REACH`, `NEAR_MARGIN`); else None."""
        if not labs or not self._solid:
            return [None] * len(labs)
        by_colour = np.minimum.reduceat(_distances(labs, self._centres, self._scales), self._starts, axis=1)
        by_colour = np.c_[by_colour, np.full(len(by_colour), np.inf)]  # a second colour for one-colour tables
        first, second = np.partition(by_colour, 1, axis=1)[:, :2].T
        near = (first <= 1.0) | ((first <= NEAR_REACH) & (second >= NEAR_MARGIN * first))
        return [self._solid[j] if ok else None for j, ok in zip(by_colour.argmin(1).tolist(), near.tolist())]

    def _judged(self, descriptor: ColourDescriptor, best: str | None) -> str | None:
        """The name of a die whose nearest solid colour is `best`: a die that looks like
        the table around it may be a clear one."""
        if not descriptor.see_through:
            return best
        clear = next((e.name for e in self.entries if e.see_through), None)
        if descriptor.clear_like or (descriptor.tinted and best is None):
            return clear  # None when the table knows no clear dice
        if descriptor.tinted and clear is not None:
            if not any(e.distance(descriptor.lab, first_only=True) <= 1.0 for e in self.entries):
                # Only a second ellipsoid (a dark or translucent die of the default palette)
                # accepts this paler tint of a coloured cloth: it is the cloth under clear
                # plastic.
                return clear
        if clear is None:
            return best  # a solid die on a cloth of nearly its own colour
        white = any(e.name == "white" for e in self.entries)
        if white and descriptor.lab[0] >= WHITE_MIN_LIGHTNESS and descriptor.chroma <= WHITE_MAX_CHROMA:
            return "white"  # a white die on a white or grey tray: a clear die would glint
        return None  # a dull die that looks like the table: cannot tell which

    def name(self, image_bgr: np.ndarray, box: Sequence[float]) -> str | None:
        """The colour name of the die in `box`, or None (unknown: far from every colour,
        or a box too small to measure): `name_dice(image_bgr, [box])[0]`, the light estimated
        from the frame with only this die known. Naming every die of a frame, call
        `name_dice` once: it estimates the light once, and knows where all the dice are."""
        return self.name_dice(image_bgr, [box])[0]

    # calibration -----------------------------------------------------------------------

    @classmethod
    def calibrate(
        cls, samples: Iterable[tuple[str, np.ndarray, Sequence[Sequence[float]]]]
    ) -> ColourTable:
        """Learn a table's colours from one throw of each colour.

        `samples` is a list of (colour_name, image_bgr, boxes): the image of a throw of the
        dice of that colour only, and their boxes. Each colour's centre is the mean of its
        dice; its scales are max(CALIBRATION_K x spread, CALIBRATION_FLOORS). "clear" (the
        see-through rule) is checked, not measured. The dice are measured as `name_dice`
        measures them, under one light for all the throws (the median of each throw's
        `estimate_light`): the throws share the table's light, and one throw of dice that
        show little grey says less about it than all of them. Raises ColourTableError for a
        colour without dice, dice that look like the table, or two colours too close to tell
        apart.
        """
        samples = list(samples)
        lights = []
        for name, image, boxes in samples:
            if not isinstance(name, str) or not name:
                raise ColourTableError(f"calibration sample names no colour: {name!r}")
            try:
                lights.append(estimate_light(image, boxes))
            except ValueError as exc:
                raise ColourTableError(f"calibration throw for {name}: {exc}") from None
        light = None
        if lights:
            light = SceneLight(
                float(np.median([one.warmth for one in lights])),
                float(np.median([one.tint for one in lights])),
                float(np.median([one.brightness for one in lights])),
            )
        measured: dict[str, list[ColourDescriptor]] = {}
        for name, image, boxes in samples:
            try:
                measured.setdefault(name, []).extend(describe(image, box, light) for box in boxes)
            except ValueError as exc:
                raise ColourTableError(f"calibration throw for {name}: {exc}") from None
        if not measured:
            raise ColourTableError("calibration needs one throw of each colour; none was given")
        entries = []
        for name, descriptors in measured.items():
            if not descriptors:
                raise ColourTableError(
                    f"no {name} dice were seen in the calibration throw for {name}: "
                    "throw them inside the camera's view and calibrate again"
                )
            see_through = sum(d.see_through for d in descriptors)
            if name == CLEAR:
                dull = sum(not (d.clear_like or d.tinted) for d in descriptors)
                if dull:
                    raise ColourTableError(
                        f"{dull} of the {len(descriptors)} clear dice do not show the table "
                        "through them (no lit edges, not a tint of the surface): calibrate "
                        "clear dice alone, on the table's own surface, under the table's light"
                    )
                entries.append(ColourEntry(CLEAR, see_through=True))
                continue
            if see_through and CLEAR in measured:
                raise ColourTableError(
                    f"{see_through} of the {len(descriptors)} {name} dice look like the table "
                    f"surface around them, so the camera cannot tell them from clear dice; "
                    "use a tray or cloth of a contrasting colour"
                )
            entries.append(_entry_from(name, [d.lab for d in descriptors]))
        _refuse_close(entries)
        return cls(entries)

    # files -----------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        data = {
            "format": _FORMAT,
            "version": _VERSION,
            "colours": [e.to_json() for e in self.entries],
        }
        Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ColourTable:
        """Read a table saved by `save`; a malformed file raises ColourTableError naming it."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ColourTableError(
                f"{path}: no such colour table; run `dicetable calibrate` to make one"
            ) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ColourTableError(f"{path}: not a readable JSON colour table ({exc})") from None
        try:
            return cls(_entries_from_json(data))
        except ColourTableError as exc:
            raise ColourTableError(f"{path}: {exc}; run `dicetable calibrate` again") from None


def calibrate(samples: Iterable[tuple[str, np.ndarray, Sequence[Sequence[float]]]]) -> ColourTable:
    """Module-level alias of `ColourTable.calibrate`."""
    return ColourTable.calibrate(samples)


def _entry_from(name: str, labs: list[tuple[float, float, float]]) -> ColourEntry:
    centre = tuple(float(v) for v in np.mean(np.array(labs), axis=0))
    diffs = np.stack(_differences(labs, centre), axis=1)
    spread = np.sqrt(np.mean(diffs**2, axis=0))
    scales = tuple(
        float(max(CALIBRATION_K * s, floor)) for s, floor in zip(spread, CALIBRATION_FLOORS)
    )
    return ColourEntry(name, lab=centre, scales=scales)  # type: ignore[arg-type]


def _refuse_close(entries: list[ColourEntry]) -> None:
    solid = [e for e in entries if not e.see_through]
    for i, first in enumerate(solid):
        for second in solid[i + 1 :]:
            scales = [p + q for p, q in zip(first.scales, second.scales)]
            separation = float(_distances([first.lab], [second.lab], [scales])[0, 0])
            if separation < CALIBRATION_MIN_SEPARATION:
                raise ColourTableError(
                    f"{first.name} and {second.name} look the same to the camera: "
                    f"{first.name} measures {_fmt(first.lab)}, {second.name} {_fmt(second.lab)} "
                    f"(separation {separation:.2f}, at least {CALIBRATION_MIN_SEPARATION:.2f} "
                    "needed); use dice of more different colours, or brighter, whiter light"
                )


def _fmt(lab: Sequence[float]) -> str:
    L, a, b = lab
    return f"L={L:.0f} chroma={math.hypot(a, b):.0f} hue={math.degrees(math.atan2(b, a)) % 360:.0f}"


def _entries_from_json(data: object) -> list[ColourEntry]:
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ColourTableError(f'not a colour table (expected "format": "{_FORMAT}")')
    if data.get("version") != _VERSION:
        raise ColourTableError(f"colour table version {data.get('version')!r} is not {_VERSION}")
    colours = data.get("colours")
    if not isinstance(colours, list) or not colours:
        raise ColourTableError('"colours" must be a non-empty list')
    entries = []
    for i, item in enumerate(colours):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            raise ColourTableError(f"colour {i} has no name")
        name = item["name"]
        if item.get("see_through") is True:
            entries.append(ColourEntry(name, see_through=True))
            continue
        lab, scales = item.get("lab"), item.get("scales")
        if not _numbers(lab, 3):
            raise ColourTableError(f'colour {name!r}: "lab" must be three numbers (L, a, b)')
        if not _numbers(scales, 3) or min(scales) <= 0:
            raise ColourTableError(f'colour {name!r}: "scales" must be three positive numbers')
        entries.append(
            ColourEntry(name, lab=tuple(map(float, lab)), scales=tuple(map(float, scales)))  # type: ignore[arg-type]
        )
    return entries


def _numbers(value: object, count: int) -> bool:
    return (
        isinstance(value, list)
        and len(value) == count
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    )


# --- measuring the default palette on labelled photos (python -m vision.colours) ---------

#: Whole-photo casts the measurement applies before naming (B, G, R gains, 8-bit, clipped).
CASTS: dict[str, tuple[float, float, float]] = {
    "none": (1.0, 1.0, 1.0),
    "warm": (0.75, 0.95, 1.2),
    "cool": (1.2, 1.0, 0.8),
    "dim": (0.5, 0.5, 0.5),
    "dim+warm": (0.375, 0.475, 0.6),
}


def cast(image_bgr: np.ndarray, gains: Sequence[float]) -> np.ndarray:
    """The photo under another light: each channel scaled by its gain, rounded, clipped."""
    out = image_bgr.astype(np.float32) * np.asarray(gains, np.float32) + np.float32(0.5)
    return np.clip(out, 0, 255).astype(np.uint8)


def read_labels(path: str | Path) -> list[dict]:
    """Colour labels: {"dice": [{"file": NAME, "box": [x0, y0, x1, y1], "colour": NAME}]};
    colour "skip" for a die with no single right name (marbled, two-tone)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    dice = data.get("dice") if isinstance(data, dict) else None
    if not isinstance(dice, list) or not all(
        isinstance(d, dict)
        and isinstance(d.get("file"), str)
        and _numbers(d.get("box"), 4)
        and isinstance(d.get("colour"), str)
        for d in dice
    ):
        raise ValueError(f'{path}: expected {{"dice": [{{"file": ..., "box": [x0, y0, x1, y1], "colour": ...}}]}}')
    return dice


def evaluate(
    labels: list[dict],
    images: str | Path,
    casts: Sequence[str] = tuple(CASTS),
    table: ColourTable | None = None,
    white_balance: bool = True,
) -> dict[str, dict]:
    """Name the labelled dice of `labels` in the photos of folder `images` under each cast.

    Every die of a photo is named in one `name_dice` call (with the folder's annotations.json,
    all its dice, as the detector would give them; else the labelled ones); without
    `white_balance`, each die is measured as the photo is. Returns, per cast: "right" and
    "total" (labels of the table's colours), "unknown" and "other" (labels of other
    colours, and how many of those were named None), "misses" ((label, name) -> count)
    and "ms" (per-photo times of the colour step, milliseconds)."""
    import time

    table = table or ColourTable.default()
    known = set(table.names())
    folder = Path(images)
    annotations = {}
    if (folder / "annotations.json").is_file():
        annotations = json.loads((folder / "annotations.json").read_text(encoding="utf-8"))
    by_file: dict[str, list[dict]] = {}
    for die in labels:
        if die["colour"] != "skip":
            by_file.setdefault(die["file"], []).append(die)
    photos = {}
    for name, dice in by_file.items():
        image = read_photo(folder / name)
        if image is None:
            raise FileNotFoundError(f"{folder / name}: no such photo, or not one OpenCV can read")
        boxes = [tuple(float(v) for v in d[:4]) for d in annotations.get(name, {}).get("dice", [])]
        where = []
        for die in dice:
            ious = [iou(die["box"], box) for box in boxes]
            if ious and max(ious) >= 0.9:
                where.append(int(np.argmax(ious)))
            else:
                boxes.append(tuple(float(v) for v in die["box"]))
                where.append(len(boxes) - 1)
        photos[name] = (image, boxes, where, dice)
    results = {}
    for cast_name in casts:
        gains = CASTS[cast_name]
        result = {"right": 0, "total": 0, "unknown": 0, "other": 0, "misses": {}, "ms": []}
        for image, boxes, where, dice in photos.values():
            image = cast(image, gains) if cast_name != "none" else image
            start = time.perf_counter()
            if white_balance:
                found = table.name_dice(image, boxes)
            else:
                found = [table._measured_name(image, box) for box in boxes]
            result["ms"].append((time.perf_counter() - start) * 1000.0)
            for die, k in zip(dice, where):
                want, got = die["colour"], found[k]
                if want in known:
                    result["total"] += 1
                    result["right"] += got == want
                else:
                    result["other"] += 1
                    result["unknown"] += got is None
                if got != (want if want in known else None):
                    result["misses"][(want, got)] = result["misses"].get((want, got), 0) + 1
        results[cast_name] = result
    return results


def _machine() -> str:
    import os
    import platform

    from vision.evaluate import cpu_name

    return (
        f"{cpu_name()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, OpenCV {cv2.__version__}"
    )


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m vision.colours",
        description="Measure the default palette's colour names on labelled photos, under casts.",
    )
    parser.add_argument(
        "--evaluate", required=True, metavar="LABELS",
        help="colour labels (JSON), e.g. tests/fixtures/colours/byler_colours.json",
    )
    parser.add_argument(
        "--images", required=True, metavar="FOLDER",
        help="the labelled photos (with annotations.json, all dice of a photo are named together)",
    )
    parser.add_argument(
        "--cast", action="append", choices=list(CASTS),
        help="a cast applied to the whole photo (repeat for several; default: all)",
    )
    parser.add_argument(
        "--no-white-balance", action="store_true", help="measure each die as the photo is (no scene light)"
    )
    parser.add_argument("--colours", metavar="TABLE", help="a calibrated colour table instead of the default palette")
    args = parser.parse_args(argv)
    table = ColourTable.load(args.colours) if args.colours else ColourTable.default()
    results = evaluate(
        read_labels(args.evaluate), args.images, args.cast or list(CASTS), table, not args.no_white_balance
    )
    print(f"machine: {_machine()}")
    print(f"white balance: {'off' if args.no_white_balance else 'from the scene'}")
    print("| cast | right | accuracy | other colours named unknown | colour step ms/photo (median) |")
    print("|---|---|---|---|---|")
    for name, r in results.items():
        other = f"{r['unknown']}/{r['other']}" if r["other"] else "-"
        accuracy = r["right"] / r["total"] if r["total"] else float("nan")
        print(f"| {name} | {r['right']}/{r['total']} | {accuracy:.3f} | {other} | {float(np.median(r['ms'])):.2f} |")
    for name, r in results.items():
        misses = sorted(r["misses"].items(), key=lambda kv: -kv[1])[:6]
        print(f"{name} misses (label -> name): " + ", ".join(f"{w}->{g}: {n}" for (w, g), n in misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
