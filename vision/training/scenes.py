"""Training scenes: varied synthetic top-down dice scenes with their labels (numpy + OpenCV
only; the runtime never imports this package).

`random_scene(rng, mix=SceneMix())` draws a varied scene: opaque, translucent and clear
dice in many colours, four pip colours, symbol faces, tilt, perspective, shadows, uneven
light, trays, felt, wood, paper, cluttered, carpet, printed cloth, photographed textures
and cards with printed pips as backgrounds, blur, noise, JPEG artefacts, dice of about
20-150 px, crowded and touching dice. The `SceneMix` says which share of the scenes hold
d10 and d20 among the d6 (`poly`), a keyboard or printed labels beside the dice
(`lookalikes`), hard negatives painted on the background (`negatives`,
`vision.training.negatives`), and, in a training pool, real dice laid on rendered tables
(`collages`, `vision.training.cutouts`).

A label is `(box, face, colour_name)` as in `vision.synth`; `Scene.sides` says which dice
are d10 (face 0-9) or d20 (1-20), drawn by `vision.polyhedra`.

    python -m vision.training.scenes DATA/synth_test --n 100 --seed 999

writes random scenes as a labelled folder (images + annotations.json), e.g. a synthetic
test set for `dicetable evaluate`.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision import polyhedra
from vision.colours import DEFAULT_PALETTE
from vision.synth import (PIP_COLOURS, Box, DieStyle, Label, _lowfreq, _paste, _quad, _table_style, draw_die,
                          layout, pip_layout)


@dataclass(frozen=True)
class SceneMix:
    """The shares of the training scenes that hold something beyond d6 on a table, and the
    fonts of the numbered dice. With the defaults the scenes are drawn exactly as before the
    look-alikes and the negatives existed (older pools render again alike): a share of 0
    draws no random number."""

    #: d10 and d20 (`vision.polyhedra`) among the d6.
    poly: float = 0.3
    #: A keyboard or keypad, or printed labels and tags, beside the dice.
    lookalikes: float = 0.0
    #: Real dice cut out of labelled photos laid on rendered tables instead of drawn dice
    #: (a training pool's share; `vision.training.train --collages`).
    collages: float = 0.0
    #: Hard negatives on the background before the dice are drawn: specks, round platforms,
    #: coins, tokens, buttons (`vision.training.negatives`).
    negatives: float = 0.0
    #: Scenes whose d10 and d20 take any look of `vision.polyhedra.random_look` (marbled,
    #: glitter, TrueType numerals, engraved, glare) instead of the plain one, and where about a
    #: third of the d6 carry numerals instead of pips (a numbered cube).
    looks: float = 0.0
    #: Of the dice of those scenes, the share whose numerals are drawn narrower or wider,
    #: slanted, thinner or bolder than their font (`vision.polyhedra.reshaped`).
    shapes: float = 0.0
    #: The TrueType fonts of every numbered die's numerals, of which those Pillow finds are
    #: drawn (`vision.polyhedra.fonts`; the commands' `--fonts`).
    truetype: tuple[str, ...] = polyhedra.TRUETYPE

    def __post_init__(self) -> None:
        for name in ("poly", "lookalikes", "collages", "negatives", "looks", "shapes"):
            share = getattr(self, name)
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"the share of {name} is between 0 and 1, got {share!r}")


# ---------------------------------------------------------------------------------------
# Backgrounds


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
# Dice and things that look like dice


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


_KEY_GLYPHS = ["A", "S", "D", "F", "Q", "W", "E", "R", "Z", "X", "1", "2", "5", "6", "9", "0", "fn", "esc",
               "^", "<", ">", "v", "?", "!", "#", "&", "*", "+", "=", "/", "ctrl", "alt", "@", "%", "."]
_KEY_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_DUPLEX)


def lookalikes(img: np.ndarray, rng: np.random.Generator) -> None:
    """Draw things that are not dice but look like a die with a symbol into `img` (float
    BGR, in place): a keyboard, printed labels, or both. The first model trained without
    the webcam frames took laptop keys and a cable's label for dice (docs/model-history.md,
    "The unseen set")."""
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


def decorate(img: np.ndarray, rng: np.random.Generator, mix: SceneMix) -> None:
    """What lies on the table beside the dice in their shares of the scenes (`img`, float
    BGR, in place, before the dice are drawn): look-alikes, then hard negatives."""
    if mix.lookalikes > 0 and rng.random() < mix.lookalikes:
        lookalikes(img, rng)
    if mix.negatives > 0 and rng.random() < mix.negatives:
        from vision.training.negatives import negatives  # only where a share asks for them

        negatives(img, rng)


def random_scene(rng: np.random.Generator, size: tuple[int, int] | None = None, mix: SceneMix = SceneMix()) -> Scene:
    """One varied training scene with its labels (boxes around whole dice), with d10 and
    d20, look-alikes and hard negatives in their shares `mix` of the scenes."""
    if size is None:
        size = [(640, 480), (640, 640), (480, 640), (800, 600), (640, 480)][int(rng.integers(0, 5))]
    w, h = size
    img = background(rng, h, w)
    decorate(img, rng, mix)
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
    poly_mix = [1.0, 0.0, 0.0] if rng.random() >= mix.poly else [0.4, 0.3, 0.3]
    # Real dice of every look, and numbered d6 among the pip ones, in a share of the scenes.
    looks = mix.looks > 0 and rng.random() < mix.looks
    dice = []
    shadow = np.zeros((h, w), np.float32)
    for cx, cy in centres:
        side = die_px * rng.uniform(0.9, 1.1)
        angle = rng.uniform(0, 360)
        q = _quad(cx, cy, side, angle)
        q = q + rng.normal(0, side * 0.025, q.shape).astype(np.float32)  # slight perspective
        # Tilt: a camera above the frame's middle sees a die off the middle at an angle: its
        # top lies further out than its foot, and the sides that face the middle show.
        if oblique:
            rel = q - np.array([cx, cy], np.float32)
            along = rel @ view
            q = q - (1 - squash) * along[:, None] * view[None]
            tilt = view * side * side_depth * rng.uniform(0.85, 1.15)
        elif tilt_amount > 0:
            radial = np.array([w / 2 - cx, h / 2 - cy], np.float32) / max(w, h)  # towards the middle
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
        solid = sides != 6 or (looks and rng.random() < 0.35)  # drawn by vision.polyhedra
        if solid:
            if oblique:
                lean = (rng.uniform(20, 45), tilt_dir)
            elif tilt is not None:
                lean = (min(40.0, float(np.hypot(*tilt)) / side * 60), float(np.arctan2(tilt[1], tilt[0])))
            else:
                lean = (0.0, 0.0)
            q = (cx, cy, side * rng.uniform(1.0, 1.25), lean)
        dice.append((q, face, style, colour, tilt, sides, solid))
        sv = np.array([math.cos(sh_dir), math.sin(sh_dir)], np.float32) * side * sh_len
        foot = _quad(cx, cy, side, angle) if solid else np.array(q, np.float32)
        cv2.fillConvexPoly(shadow, np.round(foot + sv).astype(np.int32), 1.0)
    if dice:
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, die_px * rng.uniform(0.03, 0.12)))
        img *= (1 - sh_strength * shadow)[..., None]
    labels: list[Label] = []
    outlines = []
    for q, face, style, colour, tilt, sides, solid in dice:
        if not solid:
            pts = draw_die(img, q, face, style, rng, tilt)
        else:
            alpha = {"opaque": 1.0, "translucent": style.alpha, "clear": 0.35}[style.kind]
            if looks:
                look = polyhedra.reshaped(polyhedra.random_look(rng, alpha, truetype=mix.truetype), rng, mix.shapes)
            else:  # what `draw` draws without a look, in the mix's fonts
                look = polyhedra.random_look(rng, alpha, plain=True, truetype=mix.truetype)
            pts = polyhedra.draw(img, sides, face, q[0], q[1], q[2], style.body, style.pip, rng, lean=q[3],
                                 alpha=alpha, look=look)
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


def write_folder(folder, n: int, seed: int, scene_of=random_scene) -> None:
    """Write `n` scenes of `scene_of(rng)` (default: `random_scene` with the default mix) as a
    labelled folder (images + annotations.json in the shared format), e.g. a synthetic test
    set for `dicetable evaluate`."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ann = {}
    for i in range(n):
        scene = scene_of(rng)
        name = f"synth_{seed}_{i:04d}.png"
        cv2.imwrite(str(out / name), scene.image)
        h, w = scene.image.shape[:2]
        ann[name] = {"width": w, "height": h,
                     "dice": [[round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1), f]
                              + ([] if scene.sides_of(k) == 6 else [scene.sides_of(k)])
                              for k, (b, f, _) in enumerate(scene.labels)]}
    with open(out / "annotations.json", "w") as f:
        json.dump(ann, f, indent=1)


def add_fonts_argument(ap: argparse.ArgumentParser) -> None:
    """`--fonts`, the TrueType fonts of the rendered numerals (`vision.polyhedra.named_fonts`),
    for every command that renders dice."""
    def parse(text: str) -> tuple[str, ...]:
        try:
            return polyhedra.named_fonts(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    ap.add_argument("--fonts", type=parse, default=polyhedra.TRUETYPE, metavar="FILE[,FILE...]",
                    help="the TrueType fonts of the numerals, each of which must load (default: those of "
                         "vision.polyhedra.TRUETYPE that this machine has; another machine may then draw other "
                         "numerals from the same seed)")


def add_mix_arguments(ap: argparse.ArgumentParser, collages: bool = False) -> None:
    """The shares of a `SceneMix` and `--fonts` as options of every command that renders
    scenes (`mix_of` reads them); with `collages`, `--collages` too (a training pool's share)."""
    default = SceneMix()
    ap.add_argument("--poly-scenes", type=float, default=default.poly,
                    help=f"share of scenes with d10 and d20 among the d6 (default {default.poly})")
    ap.add_argument("--lookalikes", type=float, default=default.lookalikes,
                    help="share of scenes with a keyboard or printed labels beside the dice (not dice; "
                         f"default {default.lookalikes})")
    ap.add_argument("--negatives", type=float, default=default.negatives, metavar="SHARE",
                    help="share of scenes with hard negatives (specks, round platforms, coins, tokens, "
                         f"buttons) on the table (default {default.negatives})")
    ap.add_argument("--looks", type=float, default=default.looks, metavar="SHARE",
                    help="share of scenes whose d10 and d20 take any look (marbled, glitter, fonts, "
                         f"engraved) and where a third of the d6 are numbered (default {default.looks})")
    ap.add_argument("--glyph-shapes", type=float, default=default.shapes, metavar="SHARE",
                    help="of the dice of --looks scenes, the share whose numerals are drawn narrower or wider, "
                         f"slanted, thinner or bolder than their font (default {default.shapes})")
    add_fonts_argument(ap)
    if collages:
        ap.add_argument("--collages", type=float, default=default.collages,
                        help="share of scenes that are collages: real dice cut out of the --real photos "
                             f"and laid on rendered tables (default {default.collages})")


def mix_of(args: argparse.Namespace) -> SceneMix:
    """The `SceneMix` of the options `add_mix_arguments` added (ValueError: a share out of range)."""
    return SceneMix(poly=args.poly_scenes, lookalikes=args.lookalikes,
                    collages=getattr(args, "collages", SceneMix.collages), negatives=args.negatives,
                    looks=args.looks, shapes=args.glyph_shapes, truetype=args.fonts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.scenes",
                                 description="Write random synthetic dice scenes as a labelled folder.")
    ap.add_argument("folder")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=999)
    add_mix_arguments(ap)
    ap.add_argument("--collages-of", metavar="FOLDER[:SPLIT]",
                    help="real dice instead of drawn ones: every die of a labelled folder (with :val, "
                         ":train or :all, that split of it; default all) cut out and laid on rendered "
                         "tables (vision.training.cutouts)")
    a = ap.parse_args(argv)
    try:
        mix = mix_of(a)
    except ValueError as exc:
        ap.error(str(exc))
    scene_of = lambda rng: random_scene(rng, mix=mix)  # noqa: E731
    if a.collages_of:
        from vision.training import cutouts

        source, _, which = a.collages_of.partition(":")
        if which not in ("", "all", "train", "val"):
            ap.error(f"--collages-of {a.collages_of}: the split is all, train or val")
        try:
            cuts = cutouts.cut_folder(source, which or "all")
        except (OSError, ValueError) as exc:
            ap.error(f"--collages-of: {exc}")
        if not cuts:
            ap.error(f"--collages-of: no die of {a.collages_of} could be cut out")
        scene_of = lambda rng: cutouts.collage(cuts, rng, mix=mix)  # noqa: E731
    write_folder(a.folder, a.n, a.seed, scene_of)
    return 0


if __name__ == "__main__":
    sys.exit(main())
