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

How a die is named (`ColourTable.name`):
  * each solid colour entry is an ellipsoid in lightness / chroma / hue around its
    centre: ``d = sqrt((dL/sL)^2 + (dC/sC)^2 + (dH/sH)^2)`` where dH is the CIE94 hue
    difference (the chord between the two hues, which shrinks to 0 for grey colours, so
    white and black are judged by lightness and chroma alone). The die gets the nearest
    entry with ``d <= 1``; a die outside every ellipsoid is unknown (None), never forced
    into the nearest colour.
  * the default scales are wide in lightness (light varies) and narrower in hue (a white
    balance shift moves hue little for strongly coloured dice), see `DEFAULT_SCALES`.
    Some default colours have second ellipsoids (`DEFAULT_DARK`) where real dice sit far
    from the first: navy and violet blues, dark purples (hue ~320, chroma ~8-15, which
    a neutral black must not take), translucent and maroon reds, dark teal greens.
  * see-through rule: a die looks like the table when its body is within
    `SEE_THROUGH_DISTANCE` (CIE76 delta E) of its surroundings, or, on a coloured surface
    (chroma >= `TINT_MIN_CHROMA`), when its body is a paler or greyer version of the
    surface's own hue (a and b a fraction `TINT_FRACTION` of the surface's, off that hue
    by at most `TINT_RESIDUAL`, lighter by `TINT_LIGHTNESS`): clear plastic shows the
    cloth under it, lightened and desaturated by reflections. Such a die is
      - "clear" when the table knows "clear" (else unknown) and either it glints (at
        least `CLEAR_MIN_GLINTS`) or it is such a tint and no solid colour accepts it;
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
#: see-through red). Measured on Byler photos (models/MODEL.md, "Colours").
DEFAULT_DARK: tuple[tuple[str, tuple[float, float, float], tuple[float, float, float]], ...] = (
    ("blue", (24.0, 4.0, -24.0), (14.0, 12.0, 10.0)),
    ("blue", (14.0, 22.0, -39.0), (12.0, 16.0, 9.0)),
    ("purple", (12.0, 9.5, -8.0), (12.0, 7.0, 5.0)),
    ("purple", (38.0, 19.0, -13.0), (10.0, 10.0, 6.0)),
    ("red", (28.0, 28.0, 13.0), (13.0, 12.0, 8.0)),
    ("red", (28.0, 17.0, 3.5), (10.0, 7.0, 6.0)),
    ("green", (32.0, -24.0, 6.0), (11.0, 10.0, 7.0)),
)
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

_INNER = 0.70  # the central part of the box that is measured
_BAND = 0.76  # the outer band of the box (outside its central 76%) is searched for glints
_RING = (0.10, 0.40)  # ring around the box, as fractions of the die's size
_MAX_SIDE = 32  # pixels across die + ring that colour statistics are measured on
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


def _lab(image_bgr: np.ndarray) -> np.ndarray:
    pixels = image_bgr.astype(np.float32) / 255.0
    return cv2.cvtColor(pixels, cv2.COLOR_BGR2Lab)


def _body_colour(pixels: np.ndarray) -> np.ndarray:
    """Mean of the pixels (N x 3 Lab) nearest their median: drops pips and highlights."""
    step = max(1, len(pixels) // _MAX_BODY_PIXELS)
    kept = pixels[::step]  # big dice: a regular sample of their pixels is enough
    for _ in range(2):
        # Order statistics by partition (cheaper than np.median / np.quantile's sorts).
        centre = np.partition(kept, len(kept) // 2, axis=0)[len(kept) // 2]
        dist = np.linalg.norm(kept - centre, axis=1)
        k = int(_KEEP * (len(dist) - 1))
        limit = np.partition(dist, k)[k]
        kept = kept[dist <= limit]
    return kept.mean(axis=0)


def _clip_box(box: Sequence[float], grow: float, width: int, height: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = (float(v) for v in box)
    size = max(x1 - x0, y1 - y0)
    x0, y0, x1, y1 = x0 - grow * size, y0 - grow * size, x1 + grow * size, y1 + grow * size
    return (
        max(0, int(round(x0))),
        max(0, int(round(y0))),
        min(width, int(round(x1))),
        min(height, int(round(y1))),
    )


def describe(image_bgr: np.ndarray, box: Sequence[float]) -> ColourDescriptor:
    """Measure the body colour of the die in `box` (x0, y0, x1, y1, image pixels)."""
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"describe needs a BGR colour image, got an array of shape {image_bgr.shape}")
    height, width = image_bgr.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"box {tuple(box)} is empty: expected (x0, y0, x1, y1) with x1 > x0 and y1 > y0")
    # Colour statistics need no more than ~_MAX_SIDE pixels across the die and its ring:
    # measure on an area-averaged copy of just that patch (a die of 150 px, or a 12 MP
    # photo, costs the same as a small one).
    ox0, oy0, ox1, oy1 = _clip_box((x0, y0, x1, y1), _RING[1], width, height)
    scale = _MAX_SIDE / max(ox1 - ox0, oy1 - oy0, 1)
    if scale < 1.0 and (x1 - x0) * scale >= 8 and (y1 - y0) * scale >= 8:
        patch = cv2.resize(image_bgr[oy0:oy1, ox0:ox1], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        sy, sx = patch.shape[0] / (oy1 - oy0), patch.shape[1] / (ox1 - ox0)
        return _describe(patch, ((x0 - ox0) * sx, (y0 - oy0) * sy, (x1 - ox0) * sx, (y1 - oy0) * sy))
    return _describe(image_bgr, (x0, y0, x1, y1))


def _describe(image_bgr: np.ndarray, box: tuple[float, float, float, float]) -> ColourDescriptor:
    height, width = image_bgr.shape[:2]
    x0, y0, x1, y1 = box
    shrink = (1.0 - _INNER) / 2.0
    inner = (
        x0 + shrink * (x1 - x0),
        y0 + shrink * (y1 - y0),
        x1 - shrink * (x1 - x0),
        y1 - shrink * (y1 - y0),
    )
    ix0, iy0, ix1, iy1 = _clip_box(inner, 0.0, width, height)
    if ix1 - ix0 < 2 or iy1 - iy0 < 2:
        raise ValueError(
            f"box {tuple(box)} has too few pixels inside the {width}x{height} image to measure a colour"
        )
    # Lab of the die and its surroundings in one conversion.
    ox0, oy0, ox1, oy1 = _clip_box((x0, y0, x1, y1), _RING[1], width, height)
    lab = _lab(image_bgr[oy0:oy1, ox0:ox1]).reshape(oy1 - oy0, ox1 - ox0, 3)
    region = lab[iy0 - oy0 : iy1 - oy0, ix0 - ox0 : ix1 - ox0].reshape(-1, 3)
    body = _body_colour(region)

    mask = np.ones(lab.shape[:2], dtype=bool)
    hx0, hy0, hx1, hy1 = _clip_box((x0, y0, x1, y1), _RING[0], width, height)
    mask[hy0 - oy0 : hy1 - oy0, hx0 - ox0 : hx1 - ox0] = False
    ring = lab[mask]
    if len(ring) >= 16:
        background = np.median(ring, axis=0)
        background_distance = float(np.linalg.norm(body - background))
        background_t: tuple[float, float, float] | None = tuple(float(v) for v in background)
        lightest = max(float(body[0]), float(background[0]))
        tinted = _tinted(body, background)
        see_through = background_distance <= SEE_THROUGH_DISTANCE or tinted
    else:
        background_t, background_distance, lightest = None, math.inf, float(body[0])
        see_through = tinted = False
    bx0, by0, bx1, by1 = _clip_box((x0, y0, x1, y1), 0.0, width, height)
    band = np.zeros(lab.shape[:2], dtype=bool)
    band[by0 - oy0 : by1 - oy0, bx0 - ox0 : bx1 - ox0] = True
    shrink = (1.0 - _BAND) / 2.0
    cx0, cy0, cx1, cy1 = _clip_box(
        (x0 + shrink * (x1 - x0), y0 + shrink * (y1 - y0), x1 - shrink * (x1 - x0), y1 - shrink * (y1 - y0)),
        0.0,
        width,
        height,
    )
    band[cy0 - oy0 : cy1 - oy0, cx0 - ox0 : cx1 - ox0] = False
    band_pixels = lab[band]
    glints = 0.0
    if len(band_pixels):
        lit = (band_pixels[:, 0] > lightest + GLINT_LIGHTER) & (
            np.hypot(band_pixels[:, 1], band_pixels[:, 2]) < GLINT_MAX_CHROMA
        )
        glints = float(lit.mean())
    L, a, b = (float(v) for v in body)
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


def _differences(lab: Sequence[float], centre: Sequence[float]) -> tuple[float, float, float]:
    """(dL, dC, dH) between two Lab colours, dH the CIE94 hue difference."""
    L1, a1, b1 = lab
    L2, a2, b2 = centre
    dL = L1 - L2
    dC = math.hypot(a1, b1) - math.hypot(a2, b2)
    dH2 = (a1 - a2) ** 2 + (b1 - b2) ** 2 - dC**2
    return dL, dC, math.sqrt(max(dH2, 0.0))


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

    def distance(self, lab: Sequence[float]) -> float:
        """Normalised distance of a Lab colour from this entry (its nearest ellipsoid):
        accepted when <= 1."""
        if self.see_through:
            return math.inf
        best = math.inf
        for centre, (sL, sC, sH) in ((self.lab, self.scales), *self.also):
            dL, dC, dH = _differences(lab, centre)
            best = min(best, math.sqrt((dL / sL) ** 2 + (dC / sC) ** 2 + (dH / sH) ** 2))
        return best

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

    def __repr__(self) -> str:
        return f"ColourTable({', '.join(self.names())})"

    def names(self) -> list[str]:
        return [e.name for e in self.entries]

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
        best, best_distance = None, 1.0
        for entry in self.entries:
            d = entry.distance(descriptor.lab)
            if d <= best_distance:
                best, best_distance = entry.name, d
        if not descriptor.see_through:
            return best
        clear = next((e.name for e in self.entries if e.see_through), None)
        if descriptor.clear_like or (descriptor.tinted and best is None):
            return clear  # None when the table knows no clear dice
        if clear is None:
            return best  # a solid die on a cloth of nearly its own colour
        white = "white" in self.names()
        if white and descriptor.lab[0] >= WHITE_MIN_LIGHTNESS and descriptor.chroma <= WHITE_MAX_CHROMA:
            return "white"  # a white die on a white or grey tray: a clear die would glint
        return None  # a dull die that looks like the table: cannot tell which

    def name(self, image_bgr: np.ndarray, box: Sequence[float]) -> str | None:
        """The colour name of the die in `box`, or None (unknown: far from every colour,
        or a box too small to measure)."""
        try:
            descriptor = describe(image_bgr, box)
        except ValueError:
            return None
        return self.classify(descriptor)

    # calibration -----------------------------------------------------------------------

    @classmethod
    def calibrate(
        cls, samples: Iterable[tuple[str, np.ndarray, Sequence[Sequence[float]]]]
    ) -> ColourTable:
        """Learn a table's colours from one throw of each colour.

        `samples` is a list of (colour_name, image_bgr, boxes): the image of a throw of the
        dice of that colour only, and their boxes. Each colour's centre is the mean of its
        dice; its scales are max(CALIBRATION_K x spread, CALIBRATION_FLOORS). "clear" (the
        see-through rule) is checked, not measured. Raises ColourTableError for a colour
        without dice, dice that look like the table, or two colours too close to tell apart.
        """
        measured: dict[str, list[ColourDescriptor]] = {}
        for name, image, boxes in samples:
            if not isinstance(name, str) or not name:
                raise ColourTableError(f"calibration sample names no colour: {name!r}")
            try:
                measured.setdefault(name, []).extend(describe(image, box) for box in boxes)
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
    diffs = np.array([_differences(lab, centre) for lab in labs])
    spread = np.sqrt(np.mean(diffs**2, axis=0))
    scales = tuple(
        float(max(CALIBRATION_K * s, floor)) for s, floor in zip(spread, CALIBRATION_FLOORS)
    )
    return ColourEntry(name, lab=centre, scales=scales)  # type: ignore[arg-type]


def _refuse_close(entries: list[ColourEntry]) -> None:
    solid = [e for e in entries if not e.see_through]
    for i, first in enumerate(solid):
        for second in solid[i + 1 :]:
            dL, dC, dH = _differences(first.lab, second.lab)
            sL, sC, sH = (p + q for p, q in zip(first.scales, second.scales))
            separation = math.sqrt((dL / sL) ** 2 + (dC / sC) ** 2 + (dH / sH) ** 2)
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
