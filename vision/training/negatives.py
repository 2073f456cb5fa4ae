"""Hard negatives: what a camera sees on a dice table that is not a die (numpy + OpenCV).

`negatives(img, rng)` paints, in place on a float32 BGR background before the dice are
drawn, some of:
- a dark tray (black or grey felt, its fibres and nap) instead of the background, with
  dust, lint and white specks, the specks the shipped models took for a d6 showing 1 or 2;
- a rolling rig: a round platform with a rim seen at an angle (an ellipse), often under a
  glass dome (its outline, bright reflections along it and a faint mirror of the room);
- coins, tokens, buttons (two or four holes: pip-like) and counters (poker chips).

`dark_tray(rng, h, w)` and `specks(img, rng)` are also the table of the one-die scenes
(`vision.training.onedie`). Sizes follow the frame: everything is drawn for its longer side.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

#: The kinds of negatives and the chance of each in a scene that has negatives (a scene
#: draws each kind by its chance; at least one).
KINDS = {"dark_tray": 0.35, "specks": 0.5, "rig": 0.3, "coins": 0.35, "buttons": 0.3, "counters": 0.2}


def dark_tray(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A float32 BGR dark felt or rubber tray: near black or a dark grey (slightly tinted),
    with felt fibres, a low-frequency nap and sometimes its rim in the frame."""
    level = rng.uniform(8, 50) if rng.random() < 0.8 else rng.uniform(50, 100)
    tint = rng.uniform(-0.12, 0.12, 3).astype(np.float32)
    base = (level * (1 + tint)).astype(np.float32)
    small = (max(8, h // 4), max(8, w // 4))  # texture drawn at a quarter size, then scaled: fast at 12 MP
    fibres = cv2.GaussianBlur(rng.standard_normal(small).astype(np.float32), (0, 0), rng.uniform(0.4, 1.0))
    nap = cv2.GaussianBlur(rng.standard_normal((max(4, small[0] // 16), max(4, small[1] // 16))).astype(np.float32),
                           (0, 0), 1.0)
    nap = cv2.resize(nap, (small[1], small[0]), interpolation=cv2.INTER_CUBIC)
    tex = 1 + rng.uniform(0.05, 0.3) * fibres + rng.uniform(0.05, 0.25) * nap
    tex = cv2.resize(tex, (w, h), interpolation=cv2.INTER_LINEAR)
    img = base[None, None] * tex[..., None]
    img += rng.uniform(0.5, 3.0) * rng.standard_normal((h, w, 1)).astype(np.float32)  # grain at full size
    if rng.random() < 0.3:  # the tray's rim along an edge
        t = int(max(h, w) * rng.uniform(0.02, 0.08))
        rim = (base * rng.uniform(1.3, 2.5)).astype(np.float32)
        side = int(rng.integers(4))
        sl = [(slice(0, t), slice(None)), (slice(h - t, h), slice(None)),
              (slice(None), slice(0, t)), (slice(None), slice(w - t, w))][side]
        img[sl] = rim
    return np.ascontiguousarray(img, np.float32)


def specks(img: np.ndarray, rng: np.random.Generator, n: int | None = None) -> None:
    """Dust, lint and white specks (mostly tiny, some the size of a pip) on `img` in place."""
    h, w = img.shape[:2]
    u = max(h, w) / 640.0
    n = int(rng.integers(5, 80)) if n is None else n
    for _ in range(n):
        x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        bright = float(rng.uniform(120, 255))
        col = (bright * rng.uniform(0.85, 1.0), bright * rng.uniform(0.85, 1.0), bright * rng.uniform(0.85, 1.0))
        r = rng.random()
        if r < 0.65:  # a speck: a blob, round or ragged, from a fraction of a pip to a pip
            rad = max(0.6, u * rng.uniform(0.4, 3.5) * (3 if rng.random() < 0.1 else 1))
            if rng.random() < 0.5:
                cv2.circle(img, (int(x * 4), int(y * 4)), max(1, int(rad * 4)), col, -1, cv2.LINE_AA, shift=2)
            else:
                k = int(rng.integers(4, 8))
                ang = np.sort(rng.uniform(0, 2 * math.pi, k))
                pts = np.stack([x + rad * rng.uniform(0.5, 1.5, k) * np.cos(ang),
                                y + rad * rng.uniform(0.5, 1.5, k) * np.sin(ang)], 1)
                cv2.fillPoly(img, [np.round(pts * 4).astype(np.int32)], col, cv2.LINE_AA, shift=2)
        elif r < 0.9:  # lint: a short curled fibre
            length = u * rng.uniform(4, 30)
            ang = rng.uniform(0, 2 * math.pi)
            bend = rng.uniform(-0.15, 0.15)
            pts = []
            for t in np.linspace(0, 1, 8):
                a = ang + bend * t * 8
                pts.append((x + length * t * math.cos(a), y + length * t * math.sin(a)))
            cv2.polylines(img, [np.round(np.array(pts) * 4).astype(np.int32)], False, col,
                          max(1, int(u * rng.uniform(0.5, 1.5))), cv2.LINE_AA, shift=2)
        else:  # a crumb or a grain of grit: a small irregular grey-brown lump
            rad = max(1.0, u * rng.uniform(1.0, 4.0))
            grey = float(rng.uniform(50, 200))
            cv2.ellipse(img, (int(x), int(y)), (int(rad), max(1, int(rad * rng.uniform(0.4, 1)))),
                        float(rng.uniform(0, 180)), 0, 360, (grey * 0.8, grey * 0.9, grey), -1, cv2.LINE_AA)
    if rng.random() < 0.5:  # a haze of fine dust
        m = (rng.random((h, w)) < rng.uniform(0.0002, 0.002)).astype(np.float32)
        img += (m * rng.uniform(40, 160))[..., None]


def _ellipse(img: np.ndarray, centre, axes, angle: float, colour, thickness: int = -1) -> None:
    cv2.ellipse(img, (int(centre[0] * 4), int(centre[1] * 4)), (max(1, int(axes[0] * 4)), max(1, int(axes[1] * 4))),
                angle, 0, 360, tuple(float(c) for c in colour), thickness, cv2.LINE_AA, shift=2)


def rig(img: np.ndarray, rng: np.random.Generator) -> None:
    """A rolling rig's round platform with a rim, seen at an angle, often under a glass dome
    that reflects the light and the room."""
    where = platform(img, rng)
    if rng.random() < 0.7:
        dome(img, rng, *where)


def platform(img: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float, float, float]:
    """A rolling rig's round platform with a rim, seen at an angle; returns where its top
    lies: centre x, y, radius, squash (the cosine of the view's angle from overhead) and
    the ellipse's turn in degrees."""
    h, w = img.shape[:2]
    big = max(h, w)
    r = big * rng.uniform(0.2, 0.55)
    squash = rng.uniform(0.35, 1.0)  # cos of the view's angle from overhead
    cx, cy = w * rng.uniform(0.25, 0.75), h * rng.uniform(0.3, 0.8)
    ang = float(rng.uniform(-20, 20))
    rim_h = r * rng.uniform(0.05, 0.25) * math.sqrt(max(0.0, 1 - squash ** 2))
    if rng.random() < 0.6:  # most rigs are black, grey or white plastic, or wood
        base = np.full(3, rng.uniform(15, 220)) * rng.uniform(0.9, 1.1, 3)
    else:
        base = rng.uniform(20, 220, 3)
    rim = base * rng.uniform(0.4, 0.9)
    # The platform's side (seen below the top when leaned), its top, then its rim.
    _ellipse(img, (cx, cy + rim_h), (r, r * squash), ang, rim * 0.7)
    if rng.random() < 0.5:  # the top: felt or the same plastic
        _ellipse(img, (cx, cy), (r, r * squash), ang, rim)
        _ellipse(img, (cx, cy), (r * rng.uniform(0.8, 0.95), r * squash * rng.uniform(0.8, 0.95)), ang, base)
    else:
        _ellipse(img, (cx, cy), (r, r * squash), ang, base)
        _ellipse(img, (cx, cy), (r * 0.97, r * squash * 0.97), ang, rim, max(2, int(r * 0.04 * 4)))
    top = np.zeros(img.shape[:2], np.float32)
    _ellipse(top, (cx, cy), (r, r * squash), ang, (1.0,))
    img += (top * 8 * rng.standard_normal(top.shape).astype(np.float32))[..., None]
    if rng.random() < 0.4:  # screws or feet around the rim
        for k in range(int(rng.integers(3, 7))):
            t = 2 * math.pi * k / 6 + rng.uniform(0, 0.3)
            p = (cx + r * 1.02 * math.cos(t), cy + rim_h + r * squash * 1.02 * math.sin(t))
            _ellipse(img, p, (r * 0.04, r * 0.04 * squash), 0, rim * 0.5)
    return cx, cy, r, squash, ang


def dome(img: np.ndarray, rng: np.random.Generator, cx: float, cy: float, r: float, squash: float,
         ang: float) -> None:
    """A glass dome over the platform at (cx, cy, r, squash, ang): bright arcs along its
    outline and reflections, a faint mirror of the room."""
    big = max(img.shape[:2])
    dr = r * rng.uniform(1.0, 1.15)
    dome_h = dr * rng.uniform(0.6, 1.0) * math.sqrt(max(0.05, 1 - squash ** 2)) + dr * squash
    glass = np.zeros(img.shape[:2], np.float32)
    _ellipse(glass, (cx, cy), (dr, dr * squash), ang, (1.0,), max(1, int(big * 0.003 * 4)))
    shell = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(shell, (int(cx), int(cy - dome_h / 2)), (int(dr), int(max(dome_h / 2 + dr * squash / 2, 1))),
                ang, 0, 360, 1.0, -1)
    edge = shell - cv2.erode(shell, np.ones((max(3, int(big * 0.01)),) * 2, np.uint8))
    glass = np.maximum(glass, edge * rng.uniform(0.3, 0.8))
    for _ in range(int(rng.integers(1, 4))):  # reflections: bright streaks on the glass
        t0 = rng.uniform(0, 360)
        cv2.ellipse(glass, (int(cx), int(cy - dome_h / 2)),
                    (int(dr * rng.uniform(0.7, 0.95)), int(max(dome_h / 2 * rng.uniform(0.7, 0.95), 1))),
                    ang, t0, t0 + rng.uniform(10, 60), float(rng.uniform(0.5, 1.0)), max(1, int(big * rng.uniform(0.004, 0.02))))
    glass = cv2.GaussianBlur(glass, (0, 0), max(0.8, big * 0.002))
    room = cv2.GaussianBlur(np.ascontiguousarray(img[::-1, ::-1]), (0, 0), big * 0.01)
    img[:] = img * (1 - 0.12 * shell[..., None]) + room * 0.12 * shell[..., None]
    img += (glass * rng.uniform(120, 255))[..., None]


def _disc(img: np.ndarray, rng: np.random.Generator, size: float) -> tuple[float, float, float, float]:
    """A place (cx, cy), radius and squash for a disc of about `size` px across."""
    h, w = img.shape[:2]
    return float(rng.uniform(0, w)), float(rng.uniform(0, h)), size / 2, float(rng.uniform(0.75, 1.0))


def coins(img: np.ndarray, rng: np.random.Generator) -> None:
    """Coins: metal discs with a rim, a light and a dark side and a worn relief."""
    big = max(img.shape[:2])
    for _ in range(int(rng.integers(1, 4))):
        cx, cy, r, sq = _disc(img, rng, big * rng.uniform(0.025, 0.09))
        metal = np.array(rng.choice([(60, 140, 190), (140, 150, 160), (80, 110, 170), (170, 175, 180)]), np.float32)
        metal = metal * rng.uniform(0.7, 1.2)
        ang = float(rng.uniform(0, 180))
        _ellipse(img, (cx, cy), (r, r * sq), ang, metal * 0.6)
        _ellipse(img, (cx, cy), (r * 0.9, r * 0.9 * sq), ang, metal)
        x0, y0 = int(max(cx - r - 2, 0)), int(max(cy - r - 2, 0))
        x1, y1 = int(min(cx + r + 3, img.shape[1])), int(min(cy + r + 3, img.shape[0]))
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        m = np.zeros((y1 - y0, x1 - x0), np.float32)
        _ellipse(m, (cx - x0, cy - y0), (r * 0.85, r * 0.85 * sq), ang, (1.0,))
        relief = cv2.GaussianBlur(rng.standard_normal(m.shape).astype(np.float32), (0, 0), max(0.6, r * 0.05))
        relief /= relief.std() + 1e-6
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        t = rng.uniform(0, 2 * math.pi)
        grad = ((xx - cx) * math.cos(t) + (yy - cy) * math.sin(t)) / max(r, 1)
        roi = img[y0:y1, x0:x1]
        roi *= (1 + m * (0.25 * grad + 0.08 * relief))[..., None]


def buttons(img: np.ndarray, rng: np.random.Generator) -> None:
    """Sewing buttons (two or four holes, like a die's 2 or 4) and flat tokens or game pieces."""
    big = max(img.shape[:2])
    for _ in range(int(rng.integers(1, 5))):
        cx, cy, r, sq = _disc(img, rng, big * rng.uniform(0.02, 0.08))
        col = rng.uniform(0, 255, 3)
        ang = float(rng.uniform(0, 180))
        _ellipse(img, (cx, cy), (r, r * sq), ang, col * 0.75)
        _ellipse(img, (cx, cy), (r * 0.85, r * 0.85 * sq), ang, col)
        if rng.random() < 0.7:  # a button: holes
            holes = int(rng.choice([2, 4]))
            t0 = rng.uniform(0, math.pi)
            d = r * rng.uniform(0.25, 0.4)
            hole = col * rng.uniform(0.1, 0.4)
            for k in range(holes):
                t = t0 + 2 * math.pi * k / holes
                _ellipse(img, (cx + d * math.cos(t), cy + d * sq * math.sin(t)), (r * 0.1, r * 0.1), 0, hole)
        else:  # a token: a ring or a star printed on it
            ink = rng.uniform(0, 255, 3)
            if rng.random() < 0.5:
                _ellipse(img, (cx, cy), (r * 0.5, r * 0.5 * sq), ang, ink, max(1, int(r * 0.1 * 4)))
            else:
                pts = [(cx + r * (0.55 if i % 2 == 0 else 0.25) * math.cos(math.pi * i / 5),
                        cy + r * sq * (0.55 if i % 2 == 0 else 0.25) * math.sin(math.pi * i / 5)) for i in range(10)]
                cv2.fillPoly(img, [np.round(np.array(pts) * 4).astype(np.int32)], tuple(float(v) for v in ink),
                             cv2.LINE_AA, shift=2)


def counters(img: np.ndarray, rng: np.random.Generator) -> None:
    """Counters and poker chips: discs with stripes along the edge, or small square tiles."""
    big = max(img.shape[:2])
    for _ in range(int(rng.integers(1, 4))):
        cx, cy, r, sq = _disc(img, rng, big * rng.uniform(0.03, 0.09))
        col = rng.uniform(0, 255, 3)
        ang = float(rng.uniform(0, 180))
        if rng.random() < 0.7:
            _ellipse(img, (cx, cy), (r, r * sq), ang, col)
            stripe = rng.uniform(180, 255, 3)
            for k in range(int(rng.choice([4, 6, 8]))):
                t = 2 * math.pi * k / 8 + ang
                _ellipse(img, (cx + 0.85 * r * math.cos(t), cy + 0.85 * r * sq * math.sin(t)),
                         (r * 0.12, r * 0.08), math.degrees(t), stripe)
            _ellipse(img, (cx, cy), (r * 0.6, r * 0.6 * sq), ang, col * 0.9, max(1, int(r * 0.05 * 4)))
        else:  # a square tile: flat, no bevel, a letter-less face
            box = cv2.boxPoints(((cx, cy), (2 * r, 2 * r * rng.uniform(0.6, 1.0)), ang))
            cv2.fillPoly(img, [np.round(box * 4).astype(np.int32)], tuple(float(v) for v in col), cv2.LINE_AA, shift=2)


_PAINTERS = {"specks": specks, "rig": rig, "coins": coins, "buttons": buttons, "counters": counters}


def negatives(img: np.ndarray, rng: np.random.Generator) -> None:
    """Paint hard negatives on the float32 BGR background `img` (in place), each kind of
    `KINDS` by its chance, at least one; with a dark tray the background is replaced by one
    and always gets specks."""
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.float32:
        raise ValueError(f"negatives paint on a float32 BGR image, got {img.dtype} {img.shape}")
    chosen = [k for k, p in KINDS.items() if rng.random() < p]
    if not chosen:
        chosen = [str(rng.choice(list(KINDS)))]
    if "dark_tray" in chosen:
        img[:] = dark_tray(rng, *img.shape[:2])
        chosen = [k for k in chosen if k != "dark_tray"]
        if "specks" not in chosen:
            chosen.insert(0, "specks")
    for kind in chosen:
        _PAINTERS[kind](img, rng)
