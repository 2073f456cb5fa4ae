"""Rendered ten- and twenty-sided dice (numpy + OpenCV only).

A d6 is drawn by `vision.synth` as a textured square; a d10 and a d20 are real solids: a
pentagonal trapezohedron (ten kites, numbered 0-9, opposite faces summing to 9) and an
icosahedron (twenty triangles, numbered 1-20, opposite faces summing to 21). A die rests
on a face, so the face read is the one whose normal points at the camera. `draw()`
turns that face up, spins the die about the vertical, optionally leans the view (an
oblique camera), projects orthographically, culls the faces turned away, and paints the
others back to front with flat shading, a thin edge line and each face's number, written
upright along the face's own axis (6 and 9 underlined, as on real dice).

Used by `vision.synth.random_scene` for training and tests; nothing here runs at the table.
"""
from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from vision.detector import FACES

SIDES = (10, 20)
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_COMPLEX)


def values(sides: int) -> range:
    """The values printed on a die of `sides` sides: 0-9 on a d10, 1-20 on a d20."""
    if sides not in SIDES:
        raise ValueError(f"a rendered polyhedral die has 10 or 20 sides, got {sides!r}")
    return FACES[sides]


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
    # Numbers: opposite faces (normals most nearly opposite) sum to sides + 1 (d20) or
    # 9 (d10); the pairs are numbered in a fixed shuffled order.
    total = 21 if sides == 20 else 9
    printed = [-1] * len(fixed)
    pairs = []
    for i in range(len(fixed)):
        if printed[i] != -1 or any(i in p for p in pairs):
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


def _rot_z(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_x(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


@lru_cache(maxsize=None)
def _number_patch(text: str, font: int, thickness: int, underline: bool, size: int = 64) -> np.ndarray:
    """A float32 mask (size x size) of `text` centred, upright, filling about 60% across
    (cached: a die draws the same few numbers again and again; never written to)."""
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = 0.62 * size / max(tw, th * 1.1)
    th_ = max(1, int(round(thickness * scale)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, th_)
    m = np.zeros((size, size), np.uint8)
    org = (int(round((size - tw) / 2)), int(round((size + th) / 2)))
    cv2.putText(m, text, org, font, scale, 255, th_, cv2.LINE_AA)
    if underline:
        y = min(size - 2, org[1] + max(2, int(0.12 * th)))
        cv2.line(m, (org[0] + tw // 6, y), (org[0] + tw - tw // 6, y), 255, max(1, th_), cv2.LINE_AA)
    patch = m.astype(np.float32) / 255.0
    patch.flags.writeable = False
    return patch


def draw(img: np.ndarray, sides: int, value: int, cx: float, cy: float, size: float,
         body: tuple[int, int, int], ink: tuple[int, int, int], rng: np.random.Generator,
         lean: tuple[float, float] = (0.0, 0.0), alpha: float = 1.0) -> np.ndarray:
    """Draw a d`sides` showing `value` on its top face onto float32 BGR `img` (in place),
    centred at (cx, cy), `size` px across its widest extent. `lean` = (degrees, direction
    in radians): the camera's view tilted from overhead. `alpha` < 1 draws a translucent
    body (numbers stay opaque). Returns the outline points (N x 2) of the drawn die."""
    v, faces, normals, printed = solid(sides)
    if value not in printed:
        raise ValueError(f"a d{sides} shows {values(sides).start}-{values(sides).stop - 1}, got {value!r}")
    top = printed.index(value)
    R = _rot_z(rng.uniform(0, 2 * math.pi)) @ _turn_up(normals[top])
    deg, direction = lean
    if deg:
        R = _rot_z(direction) @ _rot_x(math.radians(deg)) @ _rot_z(-direction) @ R
    flip = np.diag([1.0, -1.0, 1.0])  # image rows grow downwards: y is flipped, z still faces the camera
    pv = v @ R.T
    pn = normals @ R.T
    extent = np.ptp(pv[:, :2], axis=0).max()
    k = size / extent
    xy = (pv @ flip)[:, :2] * k + [cx, cy]
    h, w = img.shape[:2]
    x0, y0 = np.floor(xy.min(0)).astype(int) - 2
    x1, y1 = np.ceil(xy.max(0)).astype(int) + 3
    bx0, by0, bx1, by1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if bx1 <= bx0 or by1 <= by0:
        return xy
    roi = img[by0:by1, bx0:bx1]
    local = xy - [bx0, by0]
    light = np.array([rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), 1.0])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.35, 0.6)
    body_c = np.array(body, np.float32)
    ink_c = np.array(ink, np.float32)
    edge_dark = rng.uniform(0.55, 0.85)
    font = FONTS[int(rng.integers(0, len(FONTS)))]
    thick = int(rng.integers(1, 4))
    text_scale = rng.uniform(0.8, 1.05)
    visible = [i for i in range(len(faces)) if pn[i, 2] > 0.02]
    visible.sort(key=lambda i: pv[list(faces[i]), 2].mean())
    shape = roi.shape[:2]
    for i in visible:
        poly = local[list(faces[i])]
        shade = ambient + (1 - ambient) * max(0.0, float(pn[i] @ light))
        colour = body_c * shade
        m = np.zeros(shape, np.uint8)
        cv2.fillPoly(m, [np.round(poly * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
        a = m.astype(np.float32)[..., None] / 255.0 * alpha
        if alpha < 1.0:
            under = roi * rng.uniform(0.85, 1.0) + 25
            roi[:] = roi * (1 - a) + (under * 0.4 + colour * 0.6) * a
        else:
            roi[:] = roi * (1 - a) + colour * a
        edge = np.zeros(shape, np.uint8)
        cv2.polylines(edge, [np.round(poly * 4).astype(np.int32)], True, 255, 1, cv2.LINE_AA, shift=2)
        e = edge.astype(np.float32)[..., None] / 255.0 * 0.6
        roi[:] = roi * (1 - e) + roi * edge_dark * e
        # The number, upright along the face's axis: from the face's centre towards its
        # apex (a d10 kite's apex, a d20 triangle's first corner).
        face3 = pv[list(faces[i])]
        centre3 = face3.mean(0)
        apex3 = face3[0]
        if sides == 10:  # a kite: the number sits in its wide part, towards the far corner
            centre3 = face3[0] + 0.62 * (face3[2] - face3[0])
            radius = np.linalg.norm(face3[1] - face3[3]) * 0.3
        else:
            radius = np.linalg.norm(face3 - centre3, axis=1).mean() * 0.62
        up3 = apex3 - centre3
        up3 -= normals[i] @ R.T * float(up3 @ pn[i])
        up3 /= np.linalg.norm(up3)
        right3 = np.cross(up3, pn[i])
        right3 /= np.linalg.norm(right3)
        radius *= text_scale
        # Patch (64 px, centre 32) -> image: affine from three points.
        src = np.float32([[32, 32], [64, 32], [32, 0]])
        pts3 = [centre3, centre3 + right3 * radius, centre3 + up3 * radius]
        dst = np.float32([(p @ flip)[:2] * k + [cx - bx0, cy - by0] for p in pts3])
        M = cv2.getAffineTransform(src, dst)
        num = printed[i]
        patch = _number_patch(str(num), font, thick, num in (6, 9))
        wm = cv2.warpAffine(patch, M, (shape[1], shape[0]), flags=cv2.INTER_LINEAR)
        wm = (wm * (m.astype(np.float32) / 255.0))[..., None]
        roi[:] = roi * (1 - wm) + ink_c * shade * wm
    return xy
