"""Rendered dice as solids: numbered d6, d10 and d20 (numpy + OpenCV; Pillow's fonts when
installed).

A pip d6 is drawn by `vision.synth` as a textured square. Here the dice with numerals are
real solids: a cube (a numbered d6: digits 1-6, opposite faces summing to 7), a pentagonal
trapezohedron (ten kites, numbered 0-9, opposite faces summing to 9) and an icosahedron
(twenty triangles, numbered 1-20, opposite faces summing to 21). A die rests on a face, so
the face read is the one whose normal points at the camera. `draw()` turns that face up,
spins the die about the vertical, optionally leans the view (an oblique camera), projects
orthographically, culls the faces turned away and paints the others back to front.

How a die looks is a `Look` (`random_look()` draws one):
- material: opaque, translucent (the table shows through, blurred by the plastic), marbled
  (a second colour in swirls) or glitter (sparkles in the body);
- numerals in the fonts real dice use: bold or regular sans, condensed, serif (TrueType
  fonts through Pillow when it and the fonts are installed, else OpenCV's Hershey fonts),
  printed flat, engraved and inked (a recess with a shadowed and a lit edge) or engraved
  bare (the recess only, body-coloured); 6 and 9 underlined, dotted or left plain;
  `reshaped()` also narrows or widens, slants and thins or thickens them (`Look.shape`), so
  that training meets numeral shapes beyond the few fonts at hand;
- rounded edges (a soft highlight along every edge, a rounded outline), a specular
  highlight (glare), and a soft shadow on the table when asked.

Used by the training scenes (`vision.training.scenes.random_scene`, `vision.training.onedie`) and
the demo table; nothing here runs at the table.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.detector import FACES

SIDES = (6, 10, 20)
#: Total of two opposite faces.
OPPOSITE = {6: 7, 10: 9, 20: 21}
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
           cv2.FONT_HERSHEY_COMPLEX)
#: TrueType fonts like those on real dice (bold sans, condensed, serif), found by Pillow
#: in the system's font folders; those missing are skipped. Which of them a machine has
#: decides the numerals a seed draws: the render commands' `--fonts` names them instead
#: (`named_fonts()`), the same on every machine that has them.
TRUETYPE = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf",
            "LiberationSansNarrow-Bold.ttf", "DejaVuSerif-Bold.ttf", "LiberationSerif-Bold.ttf",
            "DejaVuSans.ttf", "LiberationSans-Regular.ttf", "LiberationSerif-Regular.ttf")
MATERIALS = ("opaque", "translucent", "marbled", "glitter")
INKINGS = ("printed", "engraved", "bare")
SIX_NINE = ("underline", "dot", "plain")
#: The steps of `reshaped()`: a numeral's width (x its font's), slant (x shift per unit of
#: height, to the right) and stroke weight (change of the stroke's width, a share of the
#: numeral's height; thinning stops short of breaking a stroke).
WIDTHS = (0.72, 0.86, 1.0, 1.18)
SLANTS = (0.0, 0.1, 0.2)
WEIGHTS = (-0.04, 0.0, 0.03, 0.06)


def values(sides: int) -> range:
    """The values printed on a die of `sides` sides: 1-6 on a d6, 0-9 on a d10, 1-20 on a d20."""
    if sides not in SIDES:
        raise ValueError(f"a rendered die with numerals has 6, 10 or 20 sides, got {sides!r}")
    return FACES[sides]


@lru_cache(maxsize=None)
def fonts(names: tuple[str, ...] = TRUETYPE) -> tuple[tuple, ...]:
    """The numeral fonts: ("ttf", file) for each of `names` that Pillow finds, then
    ("hershey", OpenCV font, thickness) for the Hershey fonts (thin and bold)."""
    out: list[tuple] = []
    try:
        from PIL import ImageFont
    except ImportError:
        ImageFont = None
    if ImageFont is not None:
        for name in names:
            try:
                ImageFont.truetype(name, 16)
            except OSError:
                continue
            out.append(("ttf", name))
    out += [("hershey", f, t) for f in HERSHEY for t in (2, 4)]
    return tuple(out)


def named_fonts(text: str) -> tuple[str, ...]:
    """The TrueType fonts named in `text`, comma-separated (files Pillow finds in the system's
    font folders, or paths), for `fonts()`. A ValueError names those Pillow cannot load:
    a render that quietly drew other numerals would not be the set it claims to be."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise ValueError("no font named")
    found = {f[1] for f in fonts(names) if f[0] == "ttf"}
    missing = [n for n in names if n not in found]
    if missing:
        raise ValueError(f"Pillow cannot load {', '.join(missing)} (is Pillow installed, and the font in "
                         "the system's font folders?)")
    return names


@dataclass(frozen=True)
class Look:
    """How one die looks. `alpha` < 1 lets the table show through the body (the numerals
    stay opaque); `vein` is a marbled die's second colour; `sparkle` the share of a glitter
    die's body that sparkles; `rounding` the edges' radius as a share of the die's size."""

    material: str = "opaque"
    alpha: float = 1.0
    vein: tuple[int, int, int] | None = None
    sparkle: float = 0.0
    font: tuple = ("hershey", cv2.FONT_HERSHEY_DUPLEX, 2)
    numeral: float = 0.92  # the numerals' size, relative to the face
    inking: str = "printed"
    six_nine: str = "underline"
    rounding: float = 0.05
    edge_light: float = 0.3  # strength of the highlight along the edges
    glare: float = 0.0  # strength of the specular highlight
    shape: tuple[float, float, float] = (1.0, 0.0, 0.0)  # the numerals' width, slant and weight


def random_look(rng: np.random.Generator, alpha: float = 1.0, plain: bool = False,
                truetype: tuple[str, ...] = TRUETYPE) -> Look:
    """A random look. With `alpha` < 1 the die is translucent; `plain` leaves out marbled and
    glitter bodies (a die of one clear colour, as the demo table draws); the numerals in one
    of `fonts(truetype)`."""
    if alpha < 1.0:
        material = "translucent" if plain or rng.random() < 0.7 else "glitter"
    elif plain:
        material = "opaque"
    else:
        material = str(rng.choice(MATERIALS, p=[0.45, 0.2, 0.2, 0.15]))
    if material == "translucent" and alpha >= 1.0:
        alpha = float(rng.uniform(0.35, 0.8))
    if material == "glitter" and alpha >= 1.0 and rng.random() < 0.6:
        alpha = float(rng.uniform(0.5, 0.85))
    all_fonts = fonts(truetype)
    ttf = [f for f in all_fonts if f[0] == "ttf"]
    font = ttf[int(rng.integers(len(ttf)))] if ttf and rng.random() < 0.8 else all_fonts[int(rng.integers(len(all_fonts)))]
    return Look(
        material=material, alpha=alpha,
        vein=tuple(int(v) for v in rng.uniform(0, 255, 3)) if material == "marbled" else None,
        sparkle=float(rng.uniform(0.01, 0.06)) if material == "glitter" else 0.0,
        font=font,
        numeral=float(rng.uniform(0.75, 1.1)),
        inking=str(rng.choice(INKINGS, p=[0.45, 0.45, 0.1])),
        six_nine=str(rng.choice(SIX_NINE, p=[0.6, 0.3, 0.1])),
        rounding=float(rng.uniform(0.02, 0.09)),
        edge_light=float(rng.uniform(0.0, 0.6)),
        glare=float(rng.uniform(0.15, 0.6)) if rng.random() < 0.5 else 0.0,
    )


def reshaped(look: Look, rng: np.random.Generator, share: float = 1.0) -> Look:
    """`look` with its numerals drawn wider or narrower, slanted, thinner or bolder (one of
    the steps `WIDTHS`, `SLANTS`, `WEIGHTS` each, at random), for a `share` of the calls;
    `look` as it is for the others. A share of 0 draws no random number."""
    if share <= 0 or rng.random() >= share:
        return look
    shape = tuple(float(steps[int(rng.integers(len(steps)))]) for steps in (WIDTHS, SLANTS, WEIGHTS))
    return replace(look, shape=shape)


@lru_cache(maxsize=None)
def solid(sides: int) -> tuple[np.ndarray, tuple[tuple[int, ...], ...], np.ndarray, tuple[int, ...]]:
    """(vertices V x 3, faces as vertex indices counter-clockwise seen from outside,
    unit outward normals F x 3, the value printed on each face)."""
    if sides == 20:
        p = (1 + 5 ** 0.5) / 2
        v = np.array([(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p),
                      (0, -1, -p), (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)], np.float64)
        v /= np.linalg.norm(v[0])
        faces = ((0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
                 (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
                 (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1))
    elif sides == 10:
        c = math.cos(math.pi / 5)
        z0 = 0.105
        h = z0 * (1 + c) / (1 - c)  # the apex height that makes every kite flat
        upper = [(math.cos(2 * math.pi * k / 5), math.sin(2 * math.pi * k / 5), z0) for k in range(5)]
        lower = [(math.cos(2 * math.pi * k / 5 + math.pi / 5), math.sin(2 * math.pi * k / 5 + math.pi / 5), -z0)
                 for k in range(5)]
        v = np.array([(0, 0, h), (0, 0, -h)] + upper + lower, np.float64)
        v /= np.abs(v).max()
        faces = tuple((0, 2 + k, 7 + k, 2 + (k + 1) % 5) for k in range(5)) + \
            tuple((1, 7 + (k + 1) % 5, 2 + (k + 1) % 5, 7 + k) for k in range(5))
    elif sides == 6:
        v = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], np.float64)
        faces = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
    else:
        values(sides)  # raises
        raise AssertionError
    normals = []
    fixed = []
    for f in faces:
        pts = v[list(f)]
        n = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        n /= np.linalg.norm(n)
        if np.dot(n, pts.mean(0)) < 0:  # make the order counter-clockwise from outside
            f, n = tuple(reversed(f)), -n
        fixed.append(f)
        normals.append(n)
    normals = np.array(normals)
    # Numbers: opposite faces (normals most nearly opposite) sum to OPPOSITE[sides]; the
    # pairs are numbered in a fixed shuffled order.
    total = OPPOSITE[sides]
    printed = [-1] * len(fixed)
    pairs: list[tuple[int, int]] = []
    for i in range(len(fixed)):
        if any(i in p for p in pairs):
            continue
        j = int(np.argmin(normals @ normals[i]))
        pairs.append((i, j))
    lows = list(values(sides))[: len(pairs)]
    order = np.random.default_rng(sides).permutation(len(pairs))
    for (i, j), k in zip(pairs, order):
        printed[i], printed[j] = lows[k], total - lows[k]
    return v, tuple(fixed), normals, tuple(printed)


def _turn_up(normal: np.ndarray) -> np.ndarray:
    """A rotation taking `normal` to +z (towards the camera)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(normal, z)
    s, c = np.linalg.norm(axis), float(np.dot(normal, z))
    if s < 1e-9:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    k = axis / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def pose(top_normal: np.ndarray, spin: float, lean: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The rotation that turns the face with `top_normal` up (+z, towards an overhead
    camera), spins the die by `spin` radians about the vertical and leans the view by
    `lean` = (degrees, direction). The direction is the image's (x right, y down) in which
    the die's sides show, as `vision.synth.draw_die`'s `tilt`: a camera in front of the
    table, looking down at it, sees the sides below the top face (direction pi / 2), and
    the top face lies above the die's middle."""
    R = _rot_z(spin) @ _turn_up(top_normal)
    deg, direction = lean
    if deg:
        # _rot_z(a) @ _rot_x(t) @ _rot_z(-a) tips +z towards (sin a, -cos a) in the solid's
        # frame, whose y is the image's upwards: the top goes up the image, away from
        # the sides, for a = -direction - pi / 2.
        a = -direction - math.pi / 2
        R = _rot_z(a) @ _rot_x(math.radians(deg)) @ _rot_z(-a) @ R
    return R


def _rot_z(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_x(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def _fit(glyph: np.ndarray, size: int, height: float, width: float) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """`glyph` (uint8, the ink's bounding box) scaled to `height` x size px high (at most
    `width` x size wide) and centred in a size x size canvas; returns the canvas and the
    glyph's box (x0, y0, x1, y1) in it."""
    gh, gw = glyph.shape
    s = min(height * size / gh, width * size / gw)
    nh, nw = max(1, int(round(gh * s))), max(1, int(round(gw * s)))
    small = cv2.resize(glyph, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size), np.uint8)
    x0, y0 = (size - nw) // 2, (size - nh) // 2
    out[y0:y0 + nh, x0:x0 + nw] = small
    return out, (x0, y0, x0 + nw, y0 + nh)


@lru_cache(maxsize=4096)
def _glyph(text: str, font: tuple, shape: tuple[float, float, float] = (1.0, 0.0, 0.0)) -> np.ndarray:
    """`text` in `font`, large (about 100 px high), drawn in `shape` (`Look.shape`), cut to
    its ink."""
    if font[0] == "ttf":
        from PIL import Image, ImageDraw, ImageFont

        f = ImageFont.truetype(font[1], 100)
        canvas = Image.new("L", (100 * len(text) + 60, 160), 0)
        ImageDraw.Draw(canvas).text((20, 10), text, fill=255, font=f)
        m = np.asarray(canvas, np.uint8)
    else:
        _, face, thick = font
        m = np.zeros((160, 100 * len(text) + 60), np.uint8)
        cv2.putText(m, text, (20, 130), face, 3.0, 255, thick * 3, cv2.LINE_AA)
    if shape != (1.0, 0.0, 0.0):
        m = _reshape(m, *shape)
    ys, xs = np.nonzero(m > 40)
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy()


def _reshape(m: np.ndarray, width: float, slant: float, weight: float) -> np.ndarray:
    """A glyph mask (uint8, about 100 px high on a 160 px canvas) widened by `width`, slanted
    right by `slant` and its strokes `weight` x 100 px wider (negative: thinner, by at most
    0.4 of the widest stroke's half-width, so that no stroke breaks)."""
    h, w = m.shape
    M = np.float32([[width, -slant, slant * h + 10], [0, 1, 0]])  # x += slant x the height above the foot
    m = cv2.warpAffine(m, M, (int(round(w * width + slant * h)) + 20, h), flags=cv2.INTER_LINEAR)
    k = int(round(abs(weight) * 100 / 2))
    if k and weight < 0:
        half = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3).max()
        k = min(k, int(0.4 * half))
    if k:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
        if weight > 0:
            m = cv2.copyMakeBorder(m, k, k, k, k, cv2.BORDER_CONSTANT, value=0)
            m = cv2.dilate(m, kernel)
        else:
            m = cv2.erode(m, kernel)
    return m


@lru_cache(maxsize=4096)
def _number_patch(text: str, font: tuple, mark: str, shape: tuple[float, float, float] = (1.0, 0.0, 0.0),
                  size: int = 64) -> np.ndarray:
    """A float32 mask (size x size) of `text` in `shape` (`Look.shape`) centred and upright,
    about half the patch high (a digit's height, whatever the digit, so a 1 is not
    stretched), with `mark` ("underline", "dot" or "plain") below or after it (cached; never
    written to)."""
    glyph = _glyph(text, font, shape)
    digit_h = _glyph("0", font, shape).shape[0]
    height = 0.5 * glyph.shape[0] / digit_h
    m, (x0, y0, x1, y1) = _fit(glyph, size, height, 0.84)
    stroke = max(2, int(round(0.08 * (y1 - y0))))
    if mark == "underline":
        y = min(size - 2, y1 + stroke + 1)
        cv2.line(m, (x0 + (x1 - x0) // 8, y), (x1 - (x1 - x0) // 8, y), 255, stroke, cv2.LINE_AA)
    elif mark == "dot":
        r = max(1, int(round(stroke * 0.8)))
        cv2.circle(m, (min(size - r - 1, x1 + r + 2), y1 - r), r, 255, -1, cv2.LINE_AA)
    patch = m.astype(np.float32) / 255.0
    patch.flags.writeable = False
    return patch


def _swirl(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A marbled die's second colour: veins of 0..1 from a warped low-frequency field."""
    cells = int(rng.integers(2, 5))
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    f = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    veins = np.abs(np.sin(f * rng.uniform(2.0, 5.0)))
    return np.clip((veins - rng.uniform(0.5, 0.8)) * 4, 0, 1).astype(np.float32)


def _shifted(mask: np.ndarray, dx: float, dy: float) -> np.ndarray:
    M = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(mask, M, (mask.shape[1], mask.shape[0]), flags=cv2.INTER_LINEAR)


def draw(img: np.ndarray, sides: int, value: int, cx: float, cy: float, size: float,
         body: tuple[int, int, int], ink: tuple[int, int, int], rng: np.random.Generator,
         lean: tuple[float, float] = (0.0, 0.0), alpha: float = 1.0, look: Look | None = None,
         shadow: float = 0.0) -> np.ndarray:
    """Draw a d`sides` (6: a d6 with numerals, 10 or 20) showing `value` on its top face onto
    float32 BGR `img` (in place), centred at (cx, cy), `size` px across its widest extent.
    `lean` = (degrees, direction in radians): the camera's view tilted from overhead.
    `look`: how it looks (default: `random_look(rng, alpha, plain=True)`; `alpha` < 1 a
    translucent body). `shadow` > 0 casts a soft shadow of that strength on the table
    first. Returns the outline points (N x 2) of the drawn die."""
    v, faces, normals, printed = solid(sides)
    if value not in printed:
        raise ValueError(f"a d{sides} shows {values(sides).start}-{values(sides).stop - 1}, got {value!r}")
    if look is None:
        look = random_look(rng, alpha, plain=True)
    R = pose(normals[printed.index(value)], rng.uniform(0, 2 * math.pi), lean)
    flip = np.diag([1.0, -1.0, 1.0])  # image rows grow downwards: y is flipped, z still faces the camera
    pv = v @ R.T
    pn = normals @ R.T
    extent = np.ptp(pv[:, :2], axis=0).max()
    k = size / extent
    xy = (pv @ flip)[:, :2] * k + [cx, cy]
    h, w = img.shape[:2]
    light = np.array([rng.uniform(-0.7, 0.7), rng.uniform(-0.7, 0.7), 1.0])
    light /= np.linalg.norm(light)
    pad = int(size * 0.25) + 3  # room for a shadow; the same with or without one (the same blur borders)
    x0, y0 = np.floor(xy.min(0)).astype(int) - pad
    x1, y1 = np.ceil(xy.max(0)).astype(int) + pad + 1
    bx0, by0, bx1, by1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if bx1 <= bx0 or by1 <= by0:
        return xy
    roi = img[by0:by1, bx0:bx1]
    shape = roi.shape[:2]
    local = xy - [bx0, by0]
    ambient = rng.uniform(0.35, 0.6)
    body_c = np.array(body, np.float32)
    ink_c = np.array(ink, np.float32)
    if look.material == "marbled" and look.vein is not None:
        m = _swirl(rng, *shape)[..., None]
        body_field = body_c * (1 - m) + np.array(look.vein, np.float32) * m
    else:
        body_field = np.broadcast_to(body_c, (*shape, 3))
    layer = np.zeros((*shape, 3), np.float32)
    cover = np.zeros(shape, np.float32)
    numerals = np.zeros(shape, np.float32)
    edges = np.zeros(shape, np.uint8)
    spec_power = rng.uniform(8, 40)
    spec_k = look.glare
    half = light + np.array([0.0, 0.0, 1.0])
    half /= np.linalg.norm(half)
    depth = max(0.6, size * rng.uniform(0.006, 0.015))  # an engraving's visible depth, px
    ld = -light[:2] / max(1e-6, np.linalg.norm(light[:2])) * depth * np.array([1.0, -1.0])
    visible = [i for i in range(len(faces)) if pn[i, 2] > 0.02]
    visible.sort(key=lambda i: pv[list(faces[i]), 2].mean())
    edge_px = max(1, int(round(size * look.rounding * 0.5)))
    for i in visible:
        poly = local[list(faces[i])]
        diffuse = max(0.0, float(pn[i] @ light))
        shade = ambient + (1 - ambient) * diffuse
        spec = spec_k * max(0.0, float(pn[i] @ half)) ** spec_power
        m8 = np.zeros(shape, np.uint8)
        pts = np.round(poly * 4).astype(np.int32)
        cv2.fillPoly(m8, [pts], 255, cv2.LINE_AA, shift=2)
        m = m8.astype(np.float32) / 255.0
        colour = body_field * shade + 255.0 * spec
        layer += (colour - layer) * m[..., None]
        cover = np.maximum(cover, m)
        numerals *= 1 - m  # a nearer face hides what lay under it
        cv2.polylines(edges, [pts], True, 255, edge_px, cv2.LINE_AA, shift=2)
        # The number, upright along the face's axis: from the face's centre towards its
        # apex (a d10 kite's apex, a d20 triangle's first corner, a d6 square's first edge).
        face3 = pv[list(faces[i])]
        centre3 = face3.mean(0)
        apex3 = face3[0]
        if sides == 10:  # a kite: the number sits in its wide part, towards the far corner
            centre3 = face3[0] + 0.62 * (face3[2] - face3[0])
            radius = np.linalg.norm(face3[1] - face3[3]) * 0.32
        elif sides == 6:
            apex3 = (face3[0] + face3[1]) / 2
            radius = np.linalg.norm(apex3 - centre3) * 1.05
        else:
            radius = np.linalg.norm(face3 - centre3, axis=1).mean() * 0.52
        up3 = apex3 - centre3
        up3 -= normals[i] @ R.T * float(up3 @ pn[i])
        up3 /= np.linalg.norm(up3)
        right3 = np.cross(up3, pn[i])
        right3 /= np.linalg.norm(right3)
        radius *= look.numeral
        # Patch (64 px, centre 32) -> image: affine from three points.
        src = np.float32([[32, 32], [64, 32], [32, 0]])
        pts3 = [centre3, centre3 + right3 * radius, centre3 + up3 * radius]
        dst = np.float32([(p @ flip)[:2] * k + [cx - bx0, cy - by0] for p in pts3])
        M = cv2.getAffineTransform(src, dst)
        num = printed[i]
        mark = look.six_nine if num in (6, 9) else "plain"
        patch = _number_patch(str(num), look.font, mark, look.shape)
        wm = cv2.warpAffine(patch, M, (shape[1], shape[0]), flags=cv2.INTER_LINEAR) * m
        if look.inking == "printed":
            paint = ink_c * shade
        else:  # engraved: a recess, inked or bare, its edge towards the light in shadow
            paint = ink_c * shade if look.inking == "engraved" else colour * 0.72
            lit = np.clip(wm - cv2.warpAffine(patch, M + np.float32([[0, 0, -ld[0]], [0, 0, -ld[1]]]),
                                              (shape[1], shape[0])) * m, 0, 1)
            dark = np.clip(wm - cv2.warpAffine(patch, M + np.float32([[0, 0, ld[0]], [0, 0, ld[1]]]),
                                               (shape[1], shape[0])) * m, 0, 1)
            layer += (colour * 1.35 + 30 - layer) * lit[..., None] * 0.7
            layer *= 1 - 0.5 * dark[..., None]
            wm = np.clip(wm - 0.6 * (lit + dark), 0, 1)
        layer += (paint - layer) * wm[..., None]
        numerals = np.maximum(numerals, wm)
    # Rounded edges: a soft highlight along every edge and a rounded outline.
    soft = max(0.7, size * look.rounding * 0.35)
    e = cv2.GaussianBlur(edges.astype(np.float32) / 255.0, (0, 0), soft) * cover
    layer = layer * (1 - 0.25 * e[..., None]) + (layer * 1.3 + 40) * (look.edge_light * e)[..., None]
    if look.rounding > 0:
        r = max(0.5, size * look.rounding * 0.5)
        rounded = cv2.GaussianBlur(cover, (0, 0), r)
        cover = np.clip((rounded - 0.5) * 2.5 + 0.5, 0, 1) * cover
    if shadow > 0:
        off = np.array([-light[0], light[1]]) * size * rng.uniform(0.05, 0.15)
        s = cv2.GaussianBlur(_shifted(cover, off[0], off[1]), (0, 0), max(1.0, size * rng.uniform(0.04, 0.1)))
        roi *= (1 - shadow * s)[..., None]
    opacity = cover
    if look.alpha < 1.0:
        # The table shows through, blurred and tinted by the plastic; the numerals, the
        # edges and the glare stay opaque.
        under = cv2.GaussianBlur(roi, (0, 0), max(0.8, size * 0.03)) * 0.55 + body_c * 0.45
        solid_part = np.clip(np.maximum(np.maximum(numerals, e * 0.8), look.alpha), 0, 1)[..., None]
        layer = under * (1 - solid_part) + layer * solid_part
    if look.glare > 0:  # a window's or a lamp's reflection on a face near the light
        g = np.zeros(shape, np.float32)
        c = np.array([cx - bx0, cy - by0]) + light[:2] * [1, -1] * size * rng.uniform(0.1, 0.35)
        axes = (max(1, int(size * rng.uniform(0.04, 0.14))), max(1, int(size * rng.uniform(0.02, 0.07))))
        cv2.ellipse(g, (int(c[0]), int(c[1])), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), max(0.7, size * 0.02)) * cover
        layer += 255.0 * look.glare * g[..., None]
    if look.sparkle > 0:  # glitter: tiny bright flecks through the body
        n = int(look.sparkle * float(cover.sum()) / 4) + 1
        ys, xs = np.nonzero(cover > 0.9)
        if len(ys):
            pick = rng.integers(0, len(ys), n)
            flecks = np.zeros(shape, np.float32)
            flecks[ys[pick], xs[pick]] = rng.uniform(0.4, 1.0, n)
            if size > 120:
                flecks = cv2.dilate(flecks, np.ones((2, 2), np.uint8))
            flecks = cv2.GaussianBlur(flecks, (0, 0), 0.6) * 3 * (1 - numerals)
            tint = 255.0 if rng.random() < 0.6 else np.clip(body_c * 1.5 + 60, 0, 255)
            layer += (tint - layer) * np.clip(flecks, 0, 1)[..., None]
    roi[:] = roi * (1 - opacity[..., None]) + layer * opacity[..., None]
    return xy
