"""Dice drawn top-down for the demo camera and `dicetable bench` (numpy + OpenCV only).

- `layout()` (dice thrown anywhere), `rows_layout()` (dice laid in rows: a pyramid),
  `tray_die_px()` (a die's size on a tray that takes `TRAY_DICE`) and `render_table()`,
  a clean-ish tray with named dice, fast enough to render per frame;
- the drawing they share with the training scenes (`vision.training.scenes`): a d6's face
  texture (`face_texture`, `DieStyle`, `pip_layout`) and `draw_die`, with its visible
  sides when tilted. d10 and d20 are drawn by `vision.polyhedra`.

A label is `(box, face, colour_name)`: `box = (x0, y0, x1, y1)` around the whole die
(top face plus the visible sides) in the image's pixels, face 1-6 (d10: 0-9, d20: 1-20).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision import polyhedra
from vision.colours import DEFAULT_PALETTE
from vision.detector import check_face


Box = tuple[float, float, float, float]
Label = tuple[Box, int, str]

# Pip centres on a unit face for each value (x, y in 0..1, before the die's rotation);
# `a` is the distance of the corner pips from the face's edge.
def pip_layout(face: int, a: float = 0.26) -> list[tuple[float, float]]:
    """Standard d6 pip centres of `face` on a unit square."""
    b, c = 1.0 - a, 0.5
    layouts = {
        1: [(c, c)],
        2: [(a, a), (b, b)],
        3: [(a, a), (c, c), (b, b)],
        4: [(a, a), (b, a), (a, b), (b, b)],
        5: [(a, a), (b, a), (c, c), (a, b), (b, b)],
        6: [(a, a), (a, c), (a, b), (b, a), (b, c), (b, b)],
    }
    if face not in layouts:
        raise ValueError(f"a d6 face is 1-6, got {face!r}")
    return layouts[face]


PIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (240, 240, 240),
    "black": (25, 25, 25),
    "red": (35, 35, 190),
    "gold": (40, 170, 215),
}

TEX = 96  # side of the canonical face texture, in pixels


@dataclass
class DieStyle:
    """How one die looks: body colour, see-through-ness, pips, bevel and symbol face."""

    body: tuple[int, int, int]
    pip: tuple[int, int, int]
    kind: str = "opaque"  # "opaque", "translucent" or "clear"
    alpha: float = 1.0  # body opacity (pips stay opaque)
    corner: float = 0.18  # corner radius / side
    bevel: float = 0.5  # strength of the darker/lighter ring near the edges
    pip_radius: float = 0.095
    pip_margin: float = 0.26
    big_one: float = 1.0  # the 1 pip's radius factor
    symbol: str | None = None  # symbol drawn instead of pips on a 1 or 6 face
    glare: float = 0.0
    marble: tuple[int, int, int] | None = None  # a second, swirled body colour


def fill_rounded_rect(m: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int) -> None:
    """Fill the rectangle from (x0, y0) to (x1, y1) (inclusive) with corners rounded by `r`
    with 255 in the uint8 mask `m`."""
    cv2.rectangle(m, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(m, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)


def _face_masks(corner: float) -> tuple[np.ndarray, np.ndarray]:
    """Alpha mask (rounded square) and distance-to-edge map of the canonical face (never
    written to)."""
    return _rounded_face(max(1, int(round(corner * TEX))))


@lru_cache(maxsize=None)
def _rounded_face(radius: int) -> tuple[np.ndarray, np.ndarray]:
    """`_face_masks` for a corner of `radius` texels, cached by what it is drawn from, so
    that a face looks the same whatever was drawn before it in this process."""
    m = np.zeros((TEX * 4, TEX * 4), np.uint8)
    fill_rounded_rect(m, 0, 0, TEX * 4 - 1, TEX * 4 - 1, radius * 4)
    mask = cv2.resize(m, (TEX, TEX), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3) / TEX
    return mask, dist.astype(np.float32)


def _draw_symbol(tex: np.ndarray, symbol: str, colour: tuple[int, int, int], rng: np.random.Generator) -> None:
    c = TEX // 2
    col = tuple(int(v) for v in colour)
    if symbol == "star":
        n = int(rng.integers(5, 7))
        ro, ri = TEX * rng.uniform(0.28, 0.36), TEX * rng.uniform(0.11, 0.16)
        pts = []
        for i in range(2 * n):
            rad = ro if i % 2 == 0 else ri
            t = math.pi * i / n - math.pi / 2
            pts.append((c + rad * math.cos(t), c + rad * math.sin(t)))
        cv2.fillPoly(tex, [np.round(np.array(pts) * 4).astype(np.int32)], col, cv2.LINE_AA, shift=2)
    elif symbol == "ring":
        cv2.circle(tex, (c, c), int(TEX * rng.uniform(0.25, 0.33)), col, max(2, TEX // 16), cv2.LINE_AA)
        cv2.circle(tex, (c, c), int(TEX * rng.uniform(0.08, 0.14)), col, -1, cv2.LINE_AA)
    elif symbol == "glyph":
        ch = "ABDEGKMRSWXZ"[int(rng.integers(0, 12))]
        scale = TEX / 40.0
        (tw, th), _ = cv2.getTextSize(ch, cv2.FONT_HERSHEY_SIMPLEX, scale, max(2, TEX // 24))
        cv2.putText(tex, ch, (c - tw // 2, c + th // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, col,
                    max(2, TEX // 24), cv2.LINE_AA)
    elif symbol == "emblem":  # a maker's emblem no training scene shows (for `teach`)
        r = TEX * 0.3
        cv2.circle(tex, (c, c), int(r), col, -1, cv2.LINE_AA)
        bg = tuple(int(v) for v in tex[4, c])
        cv2.circle(tex, (int(c + r * 0.45), int(c - r * 0.3)), int(r * 0.8), bg, -1, cv2.LINE_AA)
        cv2.rectangle(tex, (int(c - r), int(c + r * 0.75)), (int(c + r), int(c + r * 0.95)), col, -1)
    else:  # "skull": a round head with two eyes and a jaw
        cv2.circle(tex, (c, int(c - TEX * 0.04)), int(TEX * 0.26), col, -1, cv2.LINE_AA)
        cv2.rectangle(tex, (int(c - TEX * 0.14), c), (int(c + TEX * 0.14), int(c + TEX * 0.3)), col, -1)
        bg = tuple(int(v) for v in tex[4, c])
        for dx in (-0.11, 0.11):
            cv2.circle(tex, (int(c + dx * TEX), int(c - TEX * 0.04)), int(TEX * 0.07), bg, -1, cv2.LINE_AA)


def face_texture(face: int, style: DieStyle, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The top face as a TEX x TEX float32 BGR texture and its float alpha (0..1)."""
    mask, dist = _face_masks(style.corner)
    body = np.array(style.body, np.float32)
    # Bevel: the rounded edge catches light differently: darker (or lighter) ring.
    ring = np.exp(-dist / rng.uniform(0.03, 0.07))
    sign = -1.0 if rng.random() < 0.75 else 0.6
    shade = 1.0 + sign * style.bevel * ring
    tex = body[None, None, :] * shade[..., None]
    if style.marble is not None:
        m = _lowfreq(rng, TEX, TEX, int(rng.integers(3, 7)))[..., 0]
        m = np.clip(m * rng.uniform(1.5, 4) + rng.uniform(-1, 1), 0, 1)
        tex = tex * (1 - m[..., None]) + np.array(style.marble, np.float32)[None, None] * shade[..., None] * m[..., None]
    tex = tex.clip(0, 255)
    alpha = mask * style.alpha
    if style.kind == "clear":
        edge = np.exp(-dist / 0.035)
        tex = tex + 200.0 * edge[..., None]
        alpha = np.maximum(alpha, mask * 0.85 * edge)
    tex = tex.clip(0, 255)
    pip_alpha = np.zeros((TEX, TEX), np.float32)
    pip_layer = np.zeros((TEX, TEX, 3), np.float32)
    # A symbol replaces the pips of one face: logos (star, ring) on the 1, emblems
    # (glyph, skull) on the 6, as on most such dice.
    if (face == 1 and style.symbol in ("star", "ring")) or (face == 6 and style.symbol in ("glyph", "skull", "emblem")):
        m8 = np.zeros((TEX, TEX, 3), np.uint8)
        _draw_symbol(m8, style.symbol, (255, 255, 255), rng)
        pip_alpha = m8[..., 0].astype(np.float32) / 255.0
        pip_layer = np.broadcast_to(np.array(style.pip, np.float32), (TEX, TEX, 3)).copy()
    else:
        pm = np.zeros((TEX * 4, TEX * 4), np.uint8)
        for (px, py) in pip_layout(face, style.pip_margin):
            r = style.pip_radius * (style.big_one if face == 1 else 1.0)
            cv2.circle(pm, (int(px * TEX * 4), int(py * TEX * 4)), int(r * TEX * 4), 255, -1, cv2.LINE_AA)
        pip_alpha = cv2.resize(pm, (TEX, TEX), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        pip_layer = np.broadcast_to(np.array(style.pip, np.float32), (TEX, TEX, 3)).copy()
        # Recessed pips: a slightly darker rim.
        inner = cv2.erode(pip_alpha, np.ones((3, 3), np.uint8))
        pip_layer *= (0.75 + 0.25 * inner)[..., None]
    tex = tex * (1 - pip_alpha[..., None]) + pip_layer * pip_alpha[..., None]
    alpha = np.maximum(alpha, pip_alpha * mask)
    if style.glare > 0:
        g = np.zeros((TEX, TEX), np.float32)
        gx, gy = rng.uniform(0.2, 0.8, 2) * TEX
        cv2.ellipse(g, (int(gx), int(gy)), (int(TEX * rng.uniform(0.05, 0.2)), int(TEX * rng.uniform(0.03, 0.1))),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), TEX * 0.04)
        tex = tex + style.glare * 255 * g[..., None] * mask[..., None]
    return tex.clip(0, 255).astype(np.float32), alpha.astype(np.float32)



def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int = 6, ch: int = 1) -> np.ndarray:
    """Smooth noise (h x w x ch): a `cells`-cell random grid, resized cubically."""
    small = rng.standard_normal((cells, max(2, int(cells * w / max(h, 1))), ch)).astype(np.float32)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return out.reshape(h, w, ch)


# ---------------------------------------------------------------------------------------
# Dice


def _quad(cx: float, cy: float, side: float, angle: float) -> np.ndarray:
    """Corners (4x2) of a square of `side` centred at (cx, cy), rotated by `angle` degrees,
    in the order of the texture's corners (0,0), (1,0), (1,1), (0,1)."""
    t = math.radians(angle)
    c, s = math.cos(t), math.sin(t)
    h = side / 2
    pts = [(-h, -h), (h, -h), (h, h), (-h, h)]
    return np.array([(cx + x * c - y * s, cy + x * s + y * c) for x, y in pts], np.float32)


def _paste(img: np.ndarray, tex: np.ndarray, alpha: np.ndarray, quad: np.ndarray) -> None:
    """Warp a texture (TEX x TEX for a die's face, or any size) onto `quad` (its corners
    in the order top-left, top-right, bottom-right, bottom-left) of float32 `img` and blend
    it by its alpha."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = tex.shape[:2]
    src = np.array([(0, 0), (tw, 0), (tw, th), (0, th)], np.float32)
    H = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    wt = cv2.warpPerspective(tex, H, size, flags=cv2.INTER_LINEAR)
    wa = cv2.warpPerspective(alpha, H, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - wa) + wt * wa


def draw_die(img: np.ndarray, quad: np.ndarray, face: int, style: DieStyle, rng: np.random.Generator,
             tilt: np.ndarray | None = None) -> np.ndarray:
    """Draw one die whose top face has corners `quad` onto float32 `img` (in place).
    `tilt` (2,) shifts the bottom of the body: the visible side faces. Returns the points
    of the die's outline (for its box)."""
    h, w = img.shape[:2]
    pts = quad
    if tilt is not None and np.hypot(*tilt) > 0.5:
        # Visible sides: the hull of the top face and the same face shifted by the tilt,
        # drawn in a darker shade of the body before the top face.
        hull = cv2.convexHull(np.concatenate([quad, quad + tilt[None]], 0)).reshape(-1, 2)
        pts = hull
        side_col = np.array(style.body, np.float32) * rng.uniform(0.45, 0.8)
        x0, y0 = np.floor(hull.min(0)).astype(int)
        x1, y1 = np.ceil(hull.max(0)).astype(int) + 1
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 > x0 and y1 > y0:
            m = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(m, [np.round((hull - [x0, y0]) * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
            a = m.astype(np.float32)[..., None] / 255.0 * (style.alpha if style.kind != "clear" else 0.3)
            roi = img[y0:y1, x0:x1]
            roi[:] = roi * (1 - a) + side_col * a
        if style.kind == "opaque" and np.hypot(*tilt) > 3:
            # The visible side faces, with their own pips, foreshortened and darker.
            c = quad.mean(0)
            others = [f for f in range(1, 7) if f not in (face, 7 - face)]
            for i in range(4):
                p0, p1 = quad[i], quad[(i + 1) % 4]
                if float(np.dot((p0 + p1) / 2 - c, tilt)) <= 0:
                    continue
                side_quad = np.array([p0, p1, p1 + tilt, p0 + tilt], np.float32)
                sf = others[int(rng.integers(0, len(others)))]
                stex, salpha = face_texture(sf, DieStyle(**{**style.__dict__, "symbol": None, "glare": 0.0}), rng)
                _paste(img, stex * rng.uniform(0.45, 0.85), salpha, side_quad)
    tex, alpha = face_texture(face, style, rng)
    src = np.array([(0, 0), (TEX, 0), (TEX, TEX), (0, TEX)], np.float32)
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return pts
    H = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    wt = cv2.warpPerspective(tex, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    wa = cv2.warpPerspective(alpha, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)[..., None]
    roi = img[y0:y1, x0:x1]
    if style.kind != "opaque":
        # See-through body: the background shows, lightened by the plastic.
        shape, _ = _face_masks(style.corner)
        ws = cv2.warpPerspective(shape, H, size, flags=cv2.INTER_LINEAR)[..., None]
        under = roi * rng.uniform(0.8, 1.0) + rng.uniform(10, 50)
        under = roi * (1 - ws) + under * ws
        roi[:] = under * (1 - wa) + wt * wa
    else:
        roi[:] = roi * (1 - wa) + wt * wa
    return pts


class TrayFull(ValueError):
    """The dice asked for do not fit in the frame; the message says how many did."""


def layout(n: int, rng: np.random.Generator, size: tuple[int, int] = (640, 480), die_px: int = 48,
           taken: tuple | list = ()) -> list[tuple[float, float, float]]:
    """`n` non-overlapping die places `(cx, cy, angle)` inside a `size` (w, h) frame for dice
    of side `die_px`, avoiding the places in `taken` (same form). Each place is a random
    spot that is free; once random spots keep hitting dice, the free spots left on a fine
    grid are searched, so a crowded tray fills up to its last gap. Raises `TrayFull` when
    they do not fit."""
    w, h = size
    margin = die_px * 0.75
    if w <= 2 * margin or h <= 2 * margin:
        raise TrayFull(f"a {w}x{h} frame is too small for dice of {die_px} px")
    placed = [(float(p[0]), float(p[1])) for p in taken]
    out: list[tuple[float, float, float]] = []
    min_d = die_px * 1.5  # rotated squares of side die_px never touch at this distance
    for k in range(n):
        for _attempt in range(500):
            cx, cy = rng.uniform(margin, w - margin), rng.uniform(margin, h - margin)
            if all((cx - px) ** 2 + (cy - py) ** 2 >= min_d ** 2 for px, py in placed):
                break
        else:
            free = _free_spots(placed, w, h, margin, min_d)
            if not len(free):
                raise TrayFull(f"cannot place {n} dice of {die_px} px in a {w}x{h} frame beside the "
                               f"{len(taken)} there (room for {k}); use fewer or smaller dice")
            cx, cy = free[int(rng.integers(len(free)))]
        placed.append((float(cx), float(cy)))
        out.append((float(cx), float(cy), float(rng.uniform(0, 90))))
    return out


def _free_spots(placed: list[tuple[float, float]], w: int, h: int, margin: float, min_d: float) -> np.ndarray:
    """The points of a grid of min_d / 8 steps inside the margins that lie at least `min_d`
    from every placed centre, as an (n, 2) array."""
    step = min_d / 8
    xs = np.arange(margin, w - margin + 1e-9, step)
    ys = np.arange(margin, h - margin + 1e-9, step)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 2)
    if placed:
        d2 = ((grid[:, None, :] - np.asarray(placed)[None, :, :]) ** 2).sum(-1)
        grid = grid[(d2 >= min_d ** 2).all(1)]
    return grid


#: The most dice the demo tray takes at once (Chiritsumo: 4 players throw 10 dice each).
TRAY_DICE = 40


def tray_die_px(size: tuple[int, int]) -> int:
    """The side of the demo tray's dice in a `size` (w, h) frame: 40 px at 640x480, in
    proportion for other frames, so that `TRAY_DICE` dice always find a place.

    Measured at 640x480 (40 dice, `layout`'s random spots then its grid search): 40 px
    placed 4 throws of 10 in each of 200 seeded trays; 44 px failed 3 trays, 46 px 109. The
    shipped models read such trays at 40 px as they read them at 32 and 36 px: 799 of 800
    d6 right (one unsure, none wrong or missed, 20 trays); a d10 or d20 the reader is
    unsure of in about half the cases at any size from 36 to 56 px (the table has those
    typed), never a sure wrong face.
    """
    w, h = size
    return max(8, int(round(40 * math.sqrt(w * h / (640 * 480)))))


#: Distance between the centres of neighbouring dice laid in rows, in die sides: a
#: player leaves half a die of air between them. Closer, the ring of felt around a die
#: that tells a clear die (`vision.colours`) holds its neighbours: of 586 clear dice in 150
#: laid pyramids (dice turned up to 6 degrees), 3 were misread at 1.4 and 0 at 1.5 (about
#: 1 in 5 at 1.25).
ROW_PITCH = 1.5


def rows_layout(rows, rng: np.random.Generator, size: tuple[int, int] = (640, 480),
                die_px: int = 48) -> list[list[tuple[float, float, float]]]:
    """The places `(cx, cy, angle)` of dice laid flat in rows as a player lays a pyramid:
    `rows` places per row, the first at the bottom of the picture, each row above shifted
    by half a place (brick bond, as `vision.grid` reads it). The rows lie in the middle of
    the frame, turned by up to 12 degrees, each die up to 5% of a side off its place and
    turned by up to 15 degrees. Raises `TrayFull` when they do not fit.

    Measured with the shipped models at 40 px (150 pyramids of faces 1-3, 40% of the dice
    clear): 26 of 1,500 dice read with a confidence under the settler's 0.6, nearly all
    clear 1s and 2s (35 of 1,000 with every die laid square to its row; no better at 48
    or 56 px); `vision.grid` placed every full pyramid of 200 as laid."""
    w, h = size
    pitch = die_px * ROW_PITCH
    flat = [((i + r / 2) * pitch, -r * pitch) for r, n in enumerate(rows) for i in range(int(n))]
    if not flat:
        return [[] for _ in rows]
    pts = np.array(flat, np.float64)
    pts -= (pts.min(0) + pts.max(0)) / 2
    turn = float(rng.uniform(-12, 12))
    t = math.radians(turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    pts = pts @ rot.T + (w / 2, h / 2) + rng.uniform(-0.05, 0.05, pts.shape) * die_px
    margin = die_px * 0.75
    if (pts.min(0) < margin).any() or (pts.max(0) > (w - margin, h - margin)).any():
        raise TrayFull(f"rows of {', '.join(str(n) for n in rows)} dice of {die_px} px do not fit in a {w}x{h} frame")
    out: list[list[tuple[float, float, float]]] = []
    k = 0
    for n in rows:
        out.append([(float(x), float(y), float((turn + rng.uniform(-15, 15)) % 90)) for x, y in pts[k:k + int(n)]])
        k += int(n)
    return out


# Demo-table cache: the tray background and one face texture per (colour, face).
_table_cache: dict = {}


def _table_style(colour: str) -> DieStyle:
    if colour not in DEFAULT_PALETTE:
        raise ValueError(f"unknown die colour {colour!r}; known: {', '.join(DEFAULT_PALETTE)}")
    body = DEFAULT_PALETTE[colour]
    lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    if colour == "clear":
        return DieStyle(body=(225, 225, 230), pip=(30, 30, 30), kind="clear", alpha=0.22, corner=0.18, bevel=0.3)
    pip = (25, 25, 25) if lum > 150 else (240, 240, 240)
    return DieStyle(body=body, pip=pip, corner=0.18, bevel=0.35)


def render_table(dice, rng: np.random.Generator, size: tuple[int, int] = (640, 480),
                 die_px: int = 48) -> tuple[np.ndarray, list[Label]]:
    """A clean-ish top-down tray with `dice` = [(colour_name, face, cx, cy, angle[, sides])]
    (sides 6, 10 or 20; 6 when left out); returns (uint8 BGR image, labels) with labels
    [(box, face, colour_name)] in the same order. `rng` varies only light and noise: a die
    is drawn the same in every frame."""
    w, h = size
    key = ("bg", w, h)
    if key not in _table_cache:
        brng = np.random.default_rng(7)
        bg = np.empty((h, w, 3), np.float32)
        bg[:] = (60, 95, 40)  # green felt
        bg += 6 * cv2.GaussianBlur(brng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.8)[..., None]
        cv2.rectangle(bg, (0, 0), (w - 1, h - 1), (30, 50, 80), max(6, w // 60))
        _table_cache[key] = bg
    img = _table_cache[key].copy()
    labels: list[Label] = []
    shadow = np.zeros((h, w), np.float32)
    quads = []
    for colour, face, cx, cy, angle, *sides in dice:
        face = int(face)
        check_face(sides[0] if sides else 6, face)
        q = _quad(cx, cy, die_px, angle)
        quads.append(q)
        cv2.fillConvexPoly(shadow, np.round(q + die_px * 0.08).astype(np.int32), 1.0)
    if dice:
        shadow = cv2.blur(shadow, (max(3, die_px // 6),) * 2)
        img *= (1 - 0.35 * shadow)[..., None]
    for (colour, face, cx, cy, angle, *sides), q in zip(dice, quads):
        if sides and sides[0] != 6:
            style = _table_style(colour)
            alpha = 0.35 if colour == "clear" else 1.0
            # The demo's d10 and d20 in the classic look (Hershey numerals, flat faces, no
            # edge light): the look the shipped classifier reads best (about 80 of 180 demo
            # d10/d20 read right, against 15 of 180 with polyhedra's plain random look).
            look = polyhedra.Look(material="translucent" if alpha < 1 else "opaque", alpha=alpha,
                                  rounding=0.0, edge_light=0.0)
            pts = polyhedra.draw(img, sides[0], int(face), cx, cy, die_px * 1.15, style.body, style.pip,
                                 np.random.default_rng([sides[0], int(face), int(angle * 1000) % 2 ** 32]),
                                 alpha=alpha, look=look)
            (x0f, y0f), (x1f, y1f) = pts.min(0), pts.max(0)
            labels.append(((float(max(x0f, 0)), float(max(y0f, 0)), float(min(x1f, w)), float(min(y1f, h))),
                           int(face), colour))
            continue
        tkey = ("tex", colour, int(face))
        if tkey not in _table_cache:
            _table_cache[tkey] = face_texture(int(face), _table_style(colour), np.random.default_rng(int(face)))
        tex, alpha = _table_cache[tkey]
        x0, y0 = np.floor(q.min(0)).astype(int) - 1
        x1, y1 = np.ceil(q.max(0)).astype(int) + 2
        bx0, by0, bx1, by1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if bx1 > bx0 and by1 > by0:
            src = np.array([(0, 0), (TEX, 0), (TEX, TEX), (0, TEX)], np.float32)
            H = cv2.getPerspectiveTransform(src, (q - [bx0, by0]).astype(np.float32))
            sz = (bx1 - bx0, by1 - by0)
            wt = cv2.warpPerspective(tex, H, sz, flags=cv2.INTER_LINEAR)
            wa = cv2.warpPerspective(alpha, H, sz, flags=cv2.INTER_LINEAR)[..., None]
            roi = img[by0:by1, bx0:bx1]
            if colour == "clear":
                shape, _ = _face_masks(0.18)
                ws = cv2.warpPerspective(shape, H, sz, flags=cv2.INTER_LINEAR)[..., None]
                roi[:] = (roi + ws * (roi * -0.1 + 30)) * (1 - wa) + wt * wa
            else:
                roi[:] = roi * (1 - wa) + wt * wa
        x0f, y0f = q.min(0)
        x1f, y1f = q.max(0)
        box = (float(max(x0f, 0)), float(max(y0f, 0)), float(min(x1f, w)), float(min(y1f, h)))
        labels.append((box, face, colour))
    # Light: a gentle gradient and a little sensor noise, both from rng.
    nkey = ("noise", w, h)
    if nkey not in _table_cache:
        nrng = np.random.default_rng(11)
        _table_cache[nkey] = (
            nrng.normal(0, 2.0, (h + 32, w + 32, 3)).astype(np.float32),
            np.linspace(-1, 1, w, dtype=np.float32)[None, :, None],
            np.linspace(-1, 1, h, dtype=np.float32)[:, None, None],
        )
    bank, xs, ys = _table_cache[nkey]
    gx, gy = rng.uniform(-0.12, 0.12, 2)
    ox, oy = (int(v) for v in rng.integers(0, 32, 2))
    img *= 1.0 + gx * xs + gy * ys
    img += bank[oy:oy + h, ox:ox + w]
    return cv2.convertScaleAbs(img), labels
