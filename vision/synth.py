"""Synthetic top-down dice scenes with their labels (numpy + OpenCV only).

Two users:
- training (`vision/train.py`): `random_scene(rng)` draws a varied scene (opaque,
  translucent and clear dice in many colours, four pip colours, symbol faces, tilt,
  perspective, shadows, uneven light, trays, felt, wood, paper, cluttered, carpet, printed
  cloth, photographed textures and cards with printed pips as backgrounds, keyboards
  and printed labels beside the dice in a share `LOOKALIKES` of the scenes, blur, noise,
  JPEG artefacts, dice of about 20-150 px, crowded and touching dice);
- the demo camera: `layout()` (dice thrown anywhere), `rows_layout()` (dice laid in
  rows: a pyramid), `tray_die_px()` (a die's size on a tray that takes `TRAY_DICE`) and
  `render_table()`, a clean-ish tray with named dice, fast enough to render per frame.

A label is `(box, face, colour_name)`: `box = (x0, y0, x1, y1)` around the whole die
(top face plus the visible sides) in the image's pixels, face 1-6; in a share of the
training scenes some dice are d10 (face 0-9) or d20 (1-20), drawn by `vision.polyhedra`,
and `Scene.sides` says which.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
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


_mask_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def fill_rounded_rect(m: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int) -> None:
    """Fill the rectangle from (x0, y0) to (x1, y1) (inclusive) with corners rounded by `r`
    with 255 in the uint8 mask `m`."""
    cv2.rectangle(m, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(m, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)


def _face_masks(corner: float) -> tuple[np.ndarray, np.ndarray]:
    """Alpha mask (rounded square) and distance-to-edge map of the canonical face."""
    key = (TEX, int(round(corner * 100)))
    if key not in _mask_cache:
        r = max(1, int(round(corner * TEX)))
        m = np.zeros((TEX * 4, TEX * 4), np.uint8)
        fill_rounded_rect(m, 0, 0, TEX * 4 - 1, TEX * 4 - 1, r * 4)
        mask = cv2.resize(m, (TEX, TEX), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3) / TEX
        _mask_cache[key] = (mask, dist.astype(np.float32))
    return _mask_cache[key]


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


# ---------------------------------------------------------------------------------------
# Backgrounds


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int = 6, ch: int = 1) -> np.ndarray:
    small = rng.standard_normal((cells, max(2, int(cells * w / max(h, 1))), ch)).astype(np.float32)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return out.reshape(h, w, ch)


def _rand_colour(rng: np.random.Generator, lo: int = 0, hi: int = 255) -> np.ndarray:
    return rng.uniform(lo, hi, 3).astype(np.float32)


#: Background kinds of training scenes and their shares: the trays and cloths of a dice
#: table, and busy surfaces that hold no dice (carpet, printed cloth, photographed textures,
#: printed pips on cards and boards).
BACKGROUNDS = {"tray": 0.17, "felt": 0.12, "wood": 0.12, "paper": 0.1, "clutter": 0.1, "plain": 0.07,
               "carpet": 0.09, "cloth": 0.09, "texture": 0.08, "prints": 0.06}


@lru_cache(maxsize=1)
def _texture_bank() -> tuple[np.ndarray, ...]:
    """Grey photographs of textures (scikit-image's sample data, when installed)."""
    try:
        import skimage.data as data
    except ImportError:
        return ()
    out = []
    for name in ("brick", "grass", "gravel", "moon", "camera", "text", "page", "coins", "hubble_deep_field",
                 "rocket", "coffee", "chelsea"):
        try:
            img = np.asarray(getattr(data, name)())
        except Exception:  # a sample missing from this version of scikit-image
            continue
        if img.ndim == 3:
            img = cv2.cvtColor(img[..., :3], cv2.COLOR_RGB2GRAY)
        out.append(img.astype(np.float32))
    return tuple(out)


def _pip_motif(img: np.ndarray, rng: np.random.Generator, cx: float, cy: float, side: float, angle: float,
               ink: tuple[float, ...], paper: tuple[float, ...] | None) -> None:
    """A flat printed die face (no bevel, no sides, no shadow) on a card or a board."""
    q = _quad(cx, cy, side, angle).astype(np.int32)
    if paper is not None:
        cv2.fillConvexPoly(img, q, paper, cv2.LINE_AA)
    face = int(rng.integers(1, 7))
    theta = math.radians(angle)
    for px, py in pip_layout(face):
        ox, oy = (px - 0.5) * side, (py - 0.5) * side
        x = cx + ox * math.cos(theta) - oy * math.sin(theta)
        y = cy + ox * math.sin(theta) + oy * math.cos(theta)
        cv2.circle(img, (int(x), int(y)), max(1, int(side * rng.uniform(0.07, 0.11))), ink, -1, cv2.LINE_AA)


def background(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A float32 BGR background of one of `BACKGROUNDS`."""
    kind = kind or str(rng.choice(list(BACKGROUNDS), p=np.array(list(BACKGROUNDS.values())) / sum(BACKGROUNDS.values())))
    if kind == "texture" and not _texture_bank():
        kind = "carpet"
    if kind == "carpet":
        base = _rand_colour(rng, 20, 220)
        fibres = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), rng.uniform(0.6, 1.5))
        tufts = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), rng.uniform(2.0, 5.0))
        img = base[None, None] * (1 + rng.uniform(0.1, 0.3) * fibres[..., None] + rng.uniform(0.1, 0.4) * tufts[..., None])
        if rng.random() < 0.4:  # a second yarn colour in blotches
            other = _rand_colour(rng, 20, 220)
            blot = (_lowfreq(rng, h, w, int(rng.integers(6, 20)))[..., 0] > 0.6).astype(np.float32)
            blot = cv2.GaussianBlur(blot, (0, 0), 2.0)[..., None]
            img = img * (1 - blot) + other[None, None] * (1 + 0.2 * fibres[..., None]) * blot
    elif kind == "cloth":  # printed cloth: checks, stripes, dots or flowers
        img = np.empty((h, w, 3), np.float32)
        img[:] = _rand_colour(rng, 30, 240)
        ink = tuple(float(v) for v in _rand_colour(rng))
        step = float(rng.uniform(8, 60))
        pattern = str(rng.choice(["checks", "stripes", "dots", "flowers"]))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        if pattern == "checks":
            m = ((np.floor(u / step) + np.floor(v / step)) % 2).astype(np.float32)
        elif pattern == "stripes":
            m = ((u / step) % 1 < rng.uniform(0.2, 0.6)).astype(np.float32)
        else:
            r = step * rng.uniform(0.12, 0.3)
            du, dv = (u % step) - step / 2, (v % step) - step / 2
            m = (du * du + dv * dv < r * r).astype(np.float32)
            if pattern == "flowers":
                for k in range(int(rng.integers(4, 7))):
                    a = 2 * math.pi * k / 6
                    pu, pv = du - 1.6 * r * math.cos(a), dv - 1.6 * r * math.sin(a)
                    m = np.maximum(m, (pu * pu + pv * pv < (0.8 * r) ** 2).astype(np.float32))
        m = cv2.GaussianBlur(m, (0, 0), 0.7)[..., None]
        img = img * (1 - m) + np.array(ink, np.float32)[None, None] * m
        img *= 1 + 0.08 * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0)[..., None]
    elif kind == "texture":
        bank = _texture_bank()
        tex = bank[int(rng.integers(0, len(bank)))]
        zoom = rng.uniform(0.6, 2.5)
        tex = cv2.resize(tex, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR)
        tex = np.rot90(tex, int(rng.integers(0, 4)))
        reps = (int(math.ceil(h / tex.shape[0])) + 1, int(math.ceil(w / tex.shape[1])) + 1)
        tex = np.tile(tex, reps)
        y0, x0 = int(rng.integers(0, tex.shape[0] - h + 1)), int(rng.integers(0, tex.shape[1] - w + 1))
        grey = tex[y0:y0 + h, x0:x0 + w] / 255.0
        dark, light = _rand_colour(rng, 0, 140), _rand_colour(rng, 110, 255)
        img = dark[None, None] + (light - dark)[None, None] * grey[..., None]
    elif kind == "prints":  # cards and boards with printed pips and dice faces
        img = background(rng, h, w, str(rng.choice(["felt", "wood", "paper", "plain", "cloth"])))
        for _ in range(int(rng.integers(1, 5))):
            cw, ch = rng.uniform(60, 260), rng.uniform(60, 260)
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            card = _rand_colour(rng, 150, 255) if rng.random() < 0.7 else _rand_colour(rng)
            box = cv2.boxPoints(((cx, cy), (cw, ch), rng.uniform(0, 90)))
            cv2.fillPoly(img, [box.astype(np.int32)], tuple(float(v) for v in card), cv2.LINE_AA)
            ink = tuple(float(v) for v in (_rand_colour(rng, 0, 80) if rng.random() < 0.6 else _rand_colour(rng)))
            side = rng.uniform(14, min(cw, ch) * 0.7)
            for _k in range(int(rng.integers(1, 5))):
                _pip_motif(img, rng, cx + rng.uniform(-cw, cw) / 3, cy + rng.uniform(-ch, ch) / 3, side,
                           rng.uniform(0, 90), ink, tuple(float(v) for v in _rand_colour(rng)) if rng.random() < 0.4 else None)
        return np.ascontiguousarray(img, np.float32)
    elif kind == "felt":
        base = _rand_colour(rng, 10, 200)
        fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), rng.uniform(0.5, 1.2))
        img = base[None, None] * (1 + rng.uniform(0.05, 0.2) * fine[..., None])
    elif kind == "wood":
        base = np.array([rng.uniform(40, 120), rng.uniform(80, 170), rng.uniform(120, 220)], np.float32)
        if rng.random() < 0.3:
            base = base * rng.uniform(0.3, 0.7)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = _lowfreq(rng, h, w, 4)[..., 0] * rng.uniform(5, 30)
        stripes = np.sin((u + warp) / rng.uniform(3, 15))
        img = base[None, None] * (1 + rng.uniform(0.05, 0.25) * stripes[..., None])
        if rng.random() < 0.5:  # planks
            period = rng.uniform(60, 200)
            seam = (np.abs(((u + 7) % period) - 1) < 1.5).astype(np.float32)
            img *= (1 - 0.5 * seam[..., None])
    elif kind == "paper":
        base = np.array([rng.uniform(190, 255)] * 3, np.float32) + rng.uniform(-15, 15, 3).astype(np.float32)
        img = base[None, None] + 4 * rng.standard_normal((h, w, 1)).astype(np.float32)
        if rng.random() < 0.4:  # ruled or squared paper
            step = int(rng.uniform(15, 40))
            ink = _rand_colour(rng, 80, 200)
            img = img.copy()
            img[::step] = ink
            if rng.random() < 0.5:
                img[:, ::step] = ink
    elif kind == "clutter":
        img = sum(_lowfreq(rng, h, w, int(c), 3) * a for c, a in ((3, 50), (12, 30), (40, 15)))
        img = img + _rand_colour(rng, 40, 200)[None, None]
        img = np.ascontiguousarray(img, np.float32)
        for _ in range(int(rng.integers(2, 12))):
            col = tuple(float(v) for v in _rand_colour(rng))
            p = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            r = int(rng.uniform(5, 80))
            t = int(rng.choice([-1, 1, 2, 3]))
            if rng.random() < 0.5:
                cv2.circle(img, p, r, col, t, cv2.LINE_AA)
            else:
                q = (p[0] + int(rng.uniform(-120, 120)), p[1] + int(rng.uniform(-120, 120)))
                cv2.line(img, p, q, col, int(rng.uniform(1, 6)), cv2.LINE_AA)
    elif kind == "plain":
        img = np.broadcast_to(_rand_colour(rng, 0, 255)[None, None], (h, w, 3)).astype(np.float32)
    else:  # tray: a floor colour inside a rim, the rim sometimes in the frame
        floor = _rand_colour(rng, 20, 240)
        rim = _rand_colour(rng, 0, 255)
        img = np.empty((h, w, 3), np.float32)
        img[:] = rim
        m = rng.uniform(-0.1, 0.12, 4)
        x0, y0 = int(m[0] * w), int(m[1] * h)
        x1, y1 = int(w - m[2] * w), int(h - m[3] * h)
        cv2.rectangle(img, (x0, y0), (x1, y1), tuple(float(v) for v in floor), -1)
        bw = int(rng.uniform(3, 25))
        cv2.rectangle(img, (x0, y0), (x1, y1), tuple(float(v) * 0.7 for v in floor), bw)
        img += rng.uniform(2, 10) * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0)[..., None]
    img = np.ascontiguousarray(img, np.float32)
    # Distractors: flat squares and discs without pips (cards, tokens, coins).
    if rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 4))):
            col = tuple(float(v) for v in _rand_colour(rng))
            s = rng.uniform(15, 120)
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if rng.random() < 0.5:
                cv2.circle(img, (int(cx), int(cy)), int(s / 2), col, -1, cv2.LINE_AA)
            else:
                box = cv2.boxPoints(((cx, cy), (s, s * rng.uniform(0.6, 1.6)), rng.uniform(0, 90)))
                cv2.fillPoly(img, [box.astype(np.int32)], col, cv2.LINE_AA)
    return img


# ---------------------------------------------------------------------------------------
# Dice


def random_style(rng: np.random.Generator, colour: str | None = None) -> tuple[DieStyle, str]:
    """A random die look; with `colour` (a DEFAULT_PALETTE name) the body has that colour."""
    names = list(DEFAULT_PALETTE)
    if colour is None:
        colour = str(rng.choice(names)) if rng.random() < 0.5 else "other"
    if colour == "other":
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(20, 256)]]])
        body = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    elif colour == "clear":
        body = tuple(int(v) for v in rng.uniform(150, 255, 3))
    else:
        ref = np.array(DEFAULT_PALETTE[colour], np.float32)
        body = tuple(int(v) for v in np.clip(ref * rng.uniform(0.8, 1.15) + rng.uniform(-20, 20, 3), 0, 255))
    lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    if colour == "clear":
        kind = "clear"
    else:
        kind = str(rng.choice(["opaque", "translucent"], p=[0.75, 0.25]))
    # Pips contrast with the body most of the time.
    r = rng.random()
    if r < 0.8:
        pip_name = ("black" if lum > 150 else "white") if rng.random() < 0.8 else str(rng.choice(["red", "gold"]))
    else:
        pip_name = str(rng.choice(list(PIP_COLOURS)))
    pip = tuple(int(v) for v in np.clip(np.array(PIP_COLOURS[pip_name]) + rng.uniform(-20, 20, 3), 0, 255))
    if abs((0.114 * pip[0] + 0.587 * pip[1] + 0.299 * pip[2]) - lum) < 40 and kind != "clear":
        pip = (235, 235, 235) if lum < 128 else (25, 25, 25)
    style = DieStyle(
        body=body, pip=pip, kind=kind,
        alpha={"opaque": 1.0, "translucent": float(rng.uniform(0.55, 0.85)), "clear": float(rng.uniform(0.1, 0.3))}[kind],
        corner=float(rng.uniform(0.08, 0.3)),
        bevel=float(rng.uniform(0.1, 0.6)),
        pip_radius=float(rng.uniform(0.075, 0.11)),
        pip_margin=float(rng.uniform(0.22, 0.29)),
        big_one=float(rng.uniform(1.0, 1.8)) if rng.random() < 0.4 else 1.0,
        symbol=str(rng.choice(["star", "ring", "glyph", "skull"])) if rng.random() < 0.3 else None,
        glare=float(rng.uniform(0.2, 0.7)) if rng.random() < 0.2 else 0.0,
        marble=tuple(int(v) for v in _rand_colour(rng)) if (kind == "opaque" and rng.random() < 0.15) else None,
    )
    return style, colour


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
            pts = polyhedra.draw(img, sides[0], int(face), cx, cy, die_px * 1.15, style.body, style.pip,
                                 np.random.default_rng([sides[0], int(face), int(angle * 1000) % 2 ** 32]),
                                 alpha=0.35 if colour == "clear" else 1.0)
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


# ---------------------------------------------------------------------------------------
# Training scenes

#: Share of the training scenes in which d10 and d20 dice (`vision.polyhedra`) lie among the d6.
POLY_SCENES = 0.3
#: Share of the training scenes with look-alikes beside the dice: a keyboard or keypad, or
#: printed labels and tags (`--lookalikes`; 0, the default, draws the scenes exactly as
#: before, so older pools render again alike).
LOOKALIKES = 0.0

_KEY_GLYPHS = ["A", "S", "D", "F", "Q", "W", "E", "R", "Z", "X", "1", "2", "5", "6", "9", "0", "fn", "esc",
               "^", "<", ">", "v", "?", "!", "#", "&", "*", "+", "=", "/", "ctrl", "alt", "@", "%", "."]
_KEY_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX)


def lookalikes(img: np.ndarray, rng: np.random.Generator) -> None:
    """Draw things that are not dice but look like a die with a symbol into `img` (float
    BGR, in place): a keyboard, printed labels, or both. The first model trained without
    the webcam frames took laptop keys and a cable's label for dice (models/MODEL.md, "The
    unseen set")."""
    r = rng.random()
    if r < 0.65:
        keyboard(img, rng)
    if r > 0.45:
        for _ in range(int(rng.integers(1, 4))):
            label(img, rng)


def _place(img: np.ndarray, patch: np.ndarray, rng: np.random.Generator, centre: tuple[float, float]) -> None:
    """Paste a uint8 patch into `img` (float), turned by a random angle about `centre`."""
    ph, pw = patch.shape[:2]
    t = math.radians(rng.uniform(0, 360))
    c, s = math.cos(t), math.sin(t)
    corners = [(-pw / 2, -ph / 2), (pw / 2, -ph / 2), (pw / 2, ph / 2), (-pw / 2, ph / 2)]
    # Turned as cv2.getRotationMatrix2D turns (counter-clockwise on the screen).
    quad = np.array([(centre[0] + x * c + y * s, centre[1] - x * s + y * c) for x, y in corners], np.float32)
    _paste(img, patch, np.ones((ph, pw), np.float32), quad)


def label(img: np.ndarray, rng: np.random.Generator) -> None:
    """A printed label, tag or ticket: a pale (or coloured) rectangle with a line or two of
    text, sometimes a barcode, anywhere in the frame."""
    h, w = img.shape[:2]
    size = rng.uniform(14, 45) * max(w, h) / 640
    lw, lh = int(size * rng.uniform(1.2, 4.0)), int(size * rng.uniform(0.7, 1.6))
    paper = _rand_colour(rng, 170, 255) if rng.random() < 0.75 else _rand_colour(rng)
    ink = tuple(float(v) for v in (_rand_colour(rng, 0, 70) if paper.mean() > 120 else _rand_colour(rng, 190, 255)))
    patch = np.empty((lh, lw, 3), np.uint8)  # 8 bits: OpenCV draws text on those only
    patch[:] = np.clip(paper, 0, 255)
    x = int(lw * rng.uniform(0.05, 0.15))
    if rng.random() < 0.4:  # a barcode on the left
        bar_end = int(lw * rng.uniform(0.25, 0.5))
        while x < bar_end:
            step = int(rng.integers(1, 4))
            if rng.random() < 0.5:
                cv2.rectangle(patch, (x, int(lh * 0.15)), (x + step - 1, int(lh * 0.85)), ink, -1)
            x += step
        x += int(lw * 0.05)
    lines = int(rng.integers(1, 3))
    for k in range(lines):
        text = "".join(str(rng.choice(list("ABCDEFGHKMNPRSTXYZ0123456789.-/"))) for _ in range(int(rng.integers(2, 7))))
        font = _KEY_FONTS[int(rng.integers(0, len(_KEY_FONTS)))]
        scale = lh / lines / rng.uniform(30, 50)
        thick = max(1, int(lh / lines / 20))
        (_, th), _ = cv2.getTextSize(text, font, scale, thick)
        y = int((k + 0.5) * lh / lines + th / 2)
        cv2.putText(patch, text, (x, y), font, scale, ink, thick, cv2.LINE_AA)
    _place(img, patch, rng, (rng.uniform(0, w), rng.uniform(0, h)))


def keyboard(img: np.ndarray, rng: np.random.Generator) -> None:
    """A laptop keyboard or a keypad: a grid of square caps with printed glyphs, some wide
    keys, on the laptop's body, turned and reaching in from anywhere (often an edge). A
    keycap is a rounded square with a symbol, as a die with a logo is."""
    h, w = img.shape[:2]
    key = rng.uniform(16, 60) * max(w, h) / 640
    gap = key * rng.uniform(0.12, 0.4)
    pitch = key + gap
    cols, rows = int(rng.integers(3, 16)), int(rng.integers(2, 7))
    dark = rng.random() < 0.6
    cap = _rand_colour(rng, 10, 70) if dark else _rand_colour(rng, 170, 250)
    ink = _rand_colour(rng, 170, 255) if dark else _rand_colour(rng, 0, 90)
    body = _rand_colour(rng, 60, 220)
    if rng.random() < 0.7:  # most laptops are grey, silver or black
        body = np.full(3, body.mean(), np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
    edge = gap * rng.uniform(1, 4)
    kw, kh = int(cols * pitch + 2 * edge), int(rows * pitch + 2 * edge)
    board = np.empty((kh, kw, 3), np.uint8)  # 8 bits: OpenCV draws text on those only
    board[:] = np.clip(body, 0, 255)
    shade = tuple(float(v) for v in cap * 0.6)
    cap, ink = tuple(float(v) for v in cap), tuple(float(v) for v in ink)
    for r in range(rows):
        x = edge + rng.uniform(0, 0.5) * pitch
        y = edge + r * pitch
        while x + key <= kw - edge:
            width = key if rng.random() < 0.85 else key * rng.uniform(1.5, 2.5)
            if x + width > kw - edge:
                break
            p0, p1 = (int(x), int(y)), (int(x + width), int(y + key))
            cv2.rectangle(board, (p0[0], p0[1] + 2), (p1[0], p1[1] + 2), shade, -1, cv2.LINE_AA)
            cv2.rectangle(board, p0, p1, cap, -1, cv2.LINE_AA)
            text = _KEY_GLYPHS[int(rng.integers(0, len(_KEY_GLYPHS)))]
            font = _KEY_FONTS[int(rng.integers(0, len(_KEY_FONTS)))]
            scale = key / rng.uniform(45, 90)
            thick = max(1, int(key / 30))
            (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
            if rng.random() < 0.5:  # centred, else in a corner
                org = (int(x + (width - tw) / 2), int(y + (key + th) / 2))
            else:
                org = (int(x + key * 0.12), int(y + th + key * 0.12))
            cv2.putText(board, text, org, font, scale, ink, thick, cv2.LINE_AA)
            x += width + gap
    _place(img, board, rng, (rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h))


@dataclass
class Scene:
    """A rendered scene: its labels and, in the same order, each die's number of sides
    (empty: every die is a d6)."""

    image: np.ndarray  # uint8 BGR
    labels: list[Label] = field(default_factory=list)
    sides: list[int] = field(default_factory=list)

    def sides_of(self, i: int) -> int:
        return self.sides[i] if self.sides else 6


def _lighting(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    field_ = 1.0 + rng.uniform(0.05, 0.35) * _lowfreq(rng, h, w, 3)[..., 0]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    field_ += rng.uniform(0, 0.4) * ((xx / w - 0.5) * math.cos(ang) + (yy / h - 0.5) * math.sin(ang))
    gain = rng.uniform(0.6, 1.3)
    cast = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    return img * (field_[..., None] * gain) * cast[None, None]


def random_scene(rng: np.random.Generator, size: tuple[int, int] | None = None) -> Scene:
    """One varied training scene with its labels (boxes around whole dice)."""
    if size is None:
        size = [(640, 480), (640, 640), (480, 640), (800, 600), (640, 480)][int(rng.integers(0, 5))]
    w, h = size
    img = background(rng, h, w)
    if LOOKALIKES > 0 and rng.random() < LOOKALIKES:
        lookalikes(img, rng)
    scale = max(w, h) / 640.0
    r = rng.random()
    if r < 0.35:
        die_px = rng.uniform(20, 45)
    elif r < 0.8:
        die_px = rng.uniform(35, 80)
    else:
        die_px = rng.uniform(70, 150)
    die_px *= scale
    n_max = int(max(1, min(25, (w * h) / (die_px * die_px * 4))))
    n = int(rng.integers(1, n_max + 1))
    crowded = rng.random() < 0.3
    min_d = die_px * (rng.uniform(0.95, 1.2) if crowded else rng.uniform(1.3, 2.5))
    centres: list[tuple[float, float]] = []
    if crowded:
        # A cluster of touching dice around one point.
        ox, oy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    for _ in range(n):
        for _a in range(60):
            if crowded:
                cx, cy = ox + rng.normal(0, die_px * 1.5), oy + rng.normal(0, die_px * 1.5)
            else:
                cx, cy = rng.uniform(die_px * 0.3, w - die_px * 0.3), rng.uniform(die_px * 0.3, h - die_px * 0.3)
            if all((cx - px) ** 2 + (cy - py) ** 2 >= min_d ** 2 for px, py in centres):
                if 0 <= cx < w and 0 <= cy < h:
                    centres.append((cx, cy))
                    break
    # Shared set look: often all dice of a scene are the same make.
    set_style = rng.random() < 0.4
    base_style, base_colour = random_style(rng)
    tilt_dir = rng.uniform(0, 2 * math.pi)
    tilt_amount = rng.uniform(0, 0.2) if rng.random() < 0.6 else 0.0
    # An oblique camera: top faces foreshortened along the view, near sides showing.
    oblique = rng.random() < 0.25
    view = np.array([math.cos(tilt_dir), math.sin(tilt_dir)], np.float32)
    squash = rng.uniform(0.6, 0.95)
    side_depth = rng.uniform(0.15, 0.5)
    sh_dir = rng.uniform(0, 2 * math.pi)
    sh_len = rng.uniform(0.03, 0.2)
    sh_strength = rng.uniform(0.15, 0.6)
    # Ten- and twenty-sided dice among the d6 in a share of the scenes.
    poly_mix = [1.0, 0.0, 0.0] if rng.random() >= POLY_SCENES else [0.4, 0.3, 0.3]
    dice = []
    shadow = np.zeros((h, w), np.float32)
    for cx, cy in centres:
        side = die_px * rng.uniform(0.9, 1.1)
        angle = rng.uniform(0, 360)
        q = _quad(cx, cy, side, angle)
        q = q + rng.normal(0, side * 0.025, q.shape).astype(np.float32)  # slight perspective
        # Tilt: the sides show more towards the frame's edge (a camera above the centre).
        if oblique:
            rel = q - np.array([cx, cy], np.float32)
            along = rel @ view
            q = q - (1 - squash) * along[:, None] * view[None]
            tilt = view * side * side_depth * rng.uniform(0.85, 1.15)
        elif tilt_amount > 0:
            radial = np.array([cx - w / 2, cy - h / 2], np.float32) / max(w, h)
            tv = radial * tilt_amount * 2.5 + tilt_amount * 0.3 * np.array([math.cos(tilt_dir), math.sin(tilt_dir)])
            tilt = tv.astype(np.float32) * side
        else:
            tilt = None
        if set_style and rng.random() < 0.85:
            style, colour = base_style, base_colour
            style = DieStyle(**{**style.__dict__, "symbol": style.symbol if rng.random() < 0.5 else None})
        else:
            style, colour = random_style(rng)
        sides = int(rng.choice([6, 10, 20], p=poly_mix))
        face = int(rng.choice(polyhedra.values(sides))) if sides != 6 else int(rng.integers(1, 7))
        if sides != 6:
            if oblique:
                lean = (rng.uniform(20, 45), tilt_dir)
            elif tilt is not None:
                lean = (min(40.0, float(np.hypot(*tilt)) / side * 60), float(np.arctan2(tilt[1], tilt[0])))
            else:
                lean = (0.0, 0.0)
            q = (cx, cy, side * rng.uniform(1.0, 1.25), lean)
        dice.append((q, face, style, colour, tilt, sides))
        sv = np.array([math.cos(sh_dir), math.sin(sh_dir)], np.float32) * side * sh_len
        foot = np.array(q, np.float32) if sides == 6 else _quad(cx, cy, side, angle)
        cv2.fillConvexPoly(shadow, np.round(foot + sv).astype(np.int32), 1.0)
    if dice:
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, die_px * rng.uniform(0.03, 0.12)))
        img *= (1 - sh_strength * shadow)[..., None]
    labels: list[Label] = []
    outlines = []
    for q, face, style, colour, tilt, sides in dice:
        if sides == 6:
            pts = draw_die(img, q, face, style, rng, tilt)
        else:
            alpha = {"opaque": 1.0, "translucent": style.alpha, "clear": 0.35}[style.kind]
            pts = polyhedra.draw(img, sides, face, q[0], q[1], q[2], style.body, style.pip, rng, lean=q[3], alpha=alpha)
        outlines.append((pts, face, colour, sides))
    img = _lighting(img, rng)
    # Whole-frame perspective (a camera not quite overhead).
    if rng.random() < 0.5:
        j = rng.uniform(0, 0.08)
        src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
        dst = src + (rng.uniform(-j, j, (4, 2)) * [w, h]).astype(np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, H, (w, h), borderMode=cv2.BORDER_REFLECT)
        outlines = [(cv2.perspectiveTransform(p.reshape(-1, 1, 2).astype(np.float32), H).reshape(-1, 2), f, c, n)
                    for p, f, c, n in outlines]
    kinds: list[int] = []
    for pts, face, colour, sides in outlines:
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if not (0 <= cx < w and 0 <= cy < h):
            continue
        box = clipped_box(pts, w, h)
        if box is None:
            continue  # mostly outside: neither a die nor background to learn from; keep it out
        labels.append((box, face, colour))
        kinds.append(sides)
    img = degrade(img, rng)
    return Scene(img, labels, kinds)


def clipped_box(pts: np.ndarray, w: int, h: int) -> Box | None:
    """The box of a die's outline `pts` in a w x h frame: a die cut by the frame's edge keeps
    its clipped box; None when it is mostly outside (less than 60% of its width or height in)."""
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    box = (float(max(x0, 0)), float(max(y0, 0)), float(min(x1, w)), float(min(y1, h)))
    if (box[2] - box[0]) < 0.6 * (x1 - x0) or (box[3] - box[1]) < 0.6 * (y1 - y0):
        return None
    return box


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Camera faults: blur (focus or motion), sensor noise, JPEG artefacts -> uint8."""
    r = rng.random()
    if r < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.6))
    elif r < 0.45:
        k = int(rng.integers(3, 8))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1.0 / k
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, M, (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
    if rng.random() < 0.6:
        img = img + rng.normal(0, rng.uniform(1, 8), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        q = int(rng.uniform(30, 95))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def emblem_tray(rng: np.random.Generator, size: tuple[int, int] = (1600, 1200), n: int = 20,
                share: float = 0.2, colour: str = "blue") -> Scene:
    """A top-down tray of `n` dice of one make (`colour`) whose 6 carries a maker's emblem
    instead of pips (a share `share` of the dice show it), the case `dicetable teach` is for."""
    w, h = size
    die_px = max(w, h) / 18
    img = background(rng, h, w, "tray")
    style = DieStyle(**{**_table_style(colour).__dict__, "symbol": "emblem"})
    labels: list[Label] = []
    for k, (cx, cy, angle) in enumerate(layout(n, rng, size, int(die_px))):
        face = 6 if k < round(n * share) else int(rng.integers(1, 6))
        pts = draw_die(img, _quad(cx, cy, die_px, angle), face, style, rng)
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        labels.append(((float(max(x0, 0)), float(max(y0, 0)), float(min(x1, w)), float(min(y1, h))), face, "emblem"))
    return Scene(np.clip(_lighting(img, rng), 0, 255).astype(np.uint8), labels)


def write_folder(folder, n: int, seed: int, scene_of=None) -> None:
    """Write `n` random scenes as a labelled folder (images + annotations.json in the
    shared format), e.g. a synthetic test set for `dicetable evaluate`."""
    import json
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ann = {}
    for i in range(n):
        scene = (scene_of or random_scene)(rng)
        name = f"synth_{seed}_{i:04d}.png"
        cv2.imwrite(str(out / name), scene.image)
        h, w = scene.image.shape[:2]
        ann[name] = {"width": w, "height": h,
                     "dice": [[round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1), f]
                              + ([] if scene.sides_of(k) == 6 else [scene.sides_of(k)])
                              for k, (b, f, _) in enumerate(scene.labels)]}
    with open(out / "annotations.json", "w") as f:
        json.dump(ann, f, indent=1)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m vision.synth",
                                 description="Write random synthetic dice scenes as a labelled folder.")
    ap.add_argument("folder")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=999)
    ap.add_argument("--poly-scenes", type=float, default=POLY_SCENES,
                    help=f"share of scenes with d10 and d20 among the d6 (default {POLY_SCENES})")
    ap.add_argument("--lookalikes", type=float, default=LOOKALIKES,
                    help=f"share of scenes with a keyboard or printed labels beside the dice (default {LOOKALIKES})")
    ap.add_argument("--collages-of", metavar="FOLDER[:SPLIT]",
                    help="real dice instead of drawn ones: every die of a labelled folder (with :val, "
                         ":train or :all, that split of it; default all) cut out and laid on rendered "
                         "tables (vision.cutouts)")
    a = ap.parse_args()
    POLY_SCENES, LOOKALIKES = a.poly_scenes, a.lookalikes
    scene_of = None
    if a.collages_of:
        import vision.synth as synth_module  # the module cutouts draws with (this one runs as __main__)
        from vision import cutouts

        synth_module.POLY_SCENES, synth_module.LOOKALIKES = a.poly_scenes, a.lookalikes
        source, _, which = a.collages_of.partition(":")
        if which not in ("", "all", "train", "val"):
            ap.error(f"--collages-of {a.collages_of}: the split is all, train or val")
        try:
            cuts = cutouts.cut_folder(source, which or "all")
        except (OSError, ValueError) as exc:
            ap.error(f"--collages-of: {exc}")
        if not cuts:
            ap.error(f"--collages-of: no die of {a.collages_of} could be cut out")
        scene_of = lambda rng: cutouts.collage(cuts, rng)  # noqa: E731
    write_folder(a.folder, a.n, a.seed, scene_of)
