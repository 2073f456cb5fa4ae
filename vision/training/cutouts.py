"""Real dice on other tables: dice cut out of labelled photos of a plain tray and laid on
rendered tables (training only).

The labelled real photos show real dice (their plastic, their bevels, their pips, the
camera's blur) but always on the same tray; the rendered scenes show every kind of table
but drawn dice. A collage puts the first on the second: each labelled die of a `--real`
folder is cut out of its photo (`cut`), and `collage` lays a few of them, turned, scaled,
recoloured and sometimes foreshortened, with their shadows, on a background of
`vision.training.scenes` (carpet, wood, cloth, photographed textures, boards with printed pips,
keyboards and labels ...), under the same light and camera faults as a rendered scene.

Cutting: the tray's colour is read from a ring just outside the die's box; the die is
what differs from it inside the box in colour, or is lighter, or much darker (a soft
shadow on the tray is only a little darker): the largest such part, closed, and its
convex hull. A white die on a white tray differs only at its rim and pips; when that hull
covers too little of the box, GrabCut inside the box segments it, and when that fails
too, the die is taken as the rounded square inscribed in the box.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.photos import read_photo
from vision.synth import _paste, fill_rounded_rect
from vision.training import scenes
from vision.training.scenes import SceneMix


@dataclass
class Cutout:
    """One real die: a BGR patch (float32) with its alpha (0..1, the die), face and sides."""

    patch: np.ndarray
    alpha: np.ndarray
    face: int
    sides: int = 6


def _rounded_square(h: int, w: int, inset: float = 0.06) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    dx, dy = int(w * inset), int(h * inset)
    fill_rounded_rect(m, dx, dy, w - 1 - dx, h - 1 - dy, int(min(h, w) * 0.18))
    return m


def _hull_of_largest(fg: np.ndarray) -> np.ndarray:
    """The convex hull of the largest connected part of a 0/255 mask, filled."""
    mask = np.zeros_like(fg)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg)
    if n > 1:
        big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        pts = np.argwhere(labels == big)[:, ::-1].astype(np.int32)
        cv2.fillConvexPoly(mask, cv2.convexHull(pts), 255)
    return mask


def cut(image: np.ndarray, box, face: int, sides: int = 6, margin: float = 0.15) -> Cutout | None:
    """The die in `box` (x0, y0, x1, y1) of a photo of a plain tray, or None when the box is
    too small or touches the photo's edge."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    bw, bh = x1 - x0, y1 - y0
    if bw < 12 or bh < 12 or x0 < 1 or y0 < 1 or x1 > w - 1 or y1 > h - 1:
        return None
    m = max(2, int(max(bw, bh) * margin))
    X0, Y0, X1, Y1 = max(x0 - m, 0), max(y0 - m, 0), min(x1 + m, w), min(y1 + m, h)
    region = image[Y0:Y1, X0:X1]
    lab = cv2.cvtColor(region, cv2.COLOR_BGR2LAB).astype(np.float32)
    inner = np.zeros(region.shape[:2], bool)
    inner[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = True
    tray = np.median(lab[~inner], axis=0)
    # The die differs from the tray in colour, or is lighter, or much darker; a soft
    # shadow on the tray is only somewhat darker.
    chroma = np.linalg.norm(lab[..., 1:] - tray[1:], axis=2)
    dl = lab[..., 0] - tray[0]
    fg = (((chroma > 12) | (dl > 12) | (dl < -45)) & inner).astype(np.uint8) * 255
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    mask = _hull_of_largest(fg)
    if mask.sum() / 255 < 0.4 * bw * bh:  # a die much like its tray: segment it by GrabCut
        gc = np.zeros(fg.shape, np.uint8)
        try:
            cv2.grabCut(region, gc, (x0 - X0, y0 - Y0, bw, bh), np.zeros((1, 65)), np.zeros((1, 65)), 3,
                        cv2.GC_INIT_WITH_RECT)
            mask = _hull_of_largest(((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD)).astype(np.uint8) * 255)
        except cv2.error:
            mask[:] = 0
    if not 0.4 * bw * bh <= mask.sum() / 255 <= 1.05 * bw * bh:
        mask[:] = 0
        mask[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = _rounded_square(bh, bw)
    mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
    alpha = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 0.7)
    return Cutout(region.astype(np.float32), alpha, int(face), int(sides))


def cut_all(samples) -> list[Cutout]:
    """Every die of `samples` (`vision.training.train.Sample` with whole-die boxes) that can be cut."""
    out = []
    for s in samples:
        if not s.has_size:
            continue
        for box, face, sides in zip(s.boxes, s.faces, s.sides):
            c = cut(s.image, box, int(face), int(sides))
            if c is not None:
                out.append(c)
    return out


def cut_folder(folder, which: str = "all") -> list[Cutout]:
    """Every die of a labelled folder (whole-die boxes; `which`: "all", "train" or "val",
    the split of `vision.evaluate.split`) that can be cut: real dice never trained on, when
    it is a validation split, for a test set of real dice on other tables."""
    from pathlib import Path

    from vision import evaluate

    gt = evaluate.select(evaluate.load_annotations(folder), which)
    out = []
    for name in sorted(gt):
        image = read_photo(Path(folder) / name)
        if image is None:
            raise ValueError(f"cannot read {folder}/{name}")
        for d in gt[name]["dice"]:
            c = cut(image, d[:4], int(d[4]), int(d[5]) if len(d) > 5 else 6)
            if c is not None:
                out.append(c)
    return out


def _recolour(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A die of another colour: the hue turned (white and black dice stay so)."""
    hsv = cv2.cvtColor(np.clip(patch, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 0] = (hsv[..., 0] + rng.uniform(0, 180)) % 180
    hsv[..., 1] *= rng.uniform(0.7, 1.3)
    return cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)


def collage(cutouts: list[Cutout], rng: np.random.Generator, size: tuple[int, int] | None = None,
            mix: SceneMix = SceneMix()) -> scenes.Scene:
    """A rendered table with real dice from `cutouts` on it, and their labels; look-alikes
    and hard negatives beside them in their shares `mix` of the scenes."""
    if size is None:
        size = [(640, 480), (640, 640), (480, 640), (800, 600)][int(rng.integers(0, 4))]
    w, h = size
    img = scenes.background(rng, h, w)
    scenes.decorate(img, rng, mix)
    die_px = max(w, h) / 640 * float(rng.choice([rng.uniform(22, 45), rng.uniform(35, 80), rng.uniform(70, 130)],
                                                p=[0.35, 0.5, 0.15]))
    n = int(rng.integers(1, int(max(1, min(25, w * h / (die_px * die_px * 4)))) + 1))
    oblique = rng.random() < 0.3
    view = rng.uniform(0, 2 * math.pi)
    squash = rng.uniform(0.6, 0.95)
    recolour = rng.random() < 0.5
    sh_dir, sh_len, sh_strength = rng.uniform(0, 2 * math.pi), rng.uniform(0.03, 0.15), rng.uniform(0.15, 0.5)
    centres: list[tuple[float, float]] = []
    for _ in range(n):
        for _try in range(40):
            cx, cy = rng.uniform(die_px * 0.4, w - die_px * 0.4), rng.uniform(die_px * 0.4, h - die_px * 0.4)
            if all((cx - px) ** 2 + (cy - py) ** 2 >= (die_px * 1.3) ** 2 for px, py in centres):
                centres.append((cx, cy))
                break
    shadow = np.zeros((h, w), np.float32)
    placed = []
    for cx, cy in centres:
        c = cutouts[int(rng.integers(0, len(cutouts)))]
        ph, pw = c.patch.shape[:2]
        ys, xs = np.nonzero(c.alpha > 0.5)
        if len(xs) == 0:
            continue
        k = die_px * rng.uniform(0.9, 1.1) / max(np.ptp(xs) + 1, np.ptp(ys) + 1)
        corners = (np.array([(0, 0), (pw, 0), (pw, ph), (0, ph)], np.float32) - [pw / 2, ph / 2]) * k
        a = rng.uniform(0, 2 * math.pi)
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
        q = corners @ R.T
        if oblique:  # a camera from the side: everything foreshortened along the view
            v = np.array([math.cos(view), math.sin(view)], np.float32)
            q = q - (1 - squash) * (q @ v)[:, None] * v[None]
        q = (q + [cx, cy]).astype(np.float32)
        H = cv2.getPerspectiveTransform(np.array([(0, 0), (pw, 0), (pw, ph), (0, ph)], np.float32), q)
        outline = cv2.perspectiveTransform(np.stack([xs, ys], 1).astype(np.float32)[:, None], H)[:, 0]
        sv = np.array([math.cos(sh_dir), math.sin(sh_dir)], np.float32) * die_px * sh_len
        cv2.fillConvexPoly(shadow, np.round(cv2.convexHull(outline) + sv).astype(np.int32), 1.0)
        placed.append((c, q, outline))
    if placed:
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, die_px * 0.06))
        img *= (1 - sh_strength * shadow)[..., None]
    labels, kinds = [], []
    for c, q, outline in placed:
        box = scenes.clipped_box(outline, w, h)
        if box is None:
            continue  # mostly outside the frame: not laid at all (neither a die nor background)
        _paste(img, _recolour(c.patch, rng) if recolour and rng.random() < 0.7 else c.patch, c.alpha, q)
        labels.append((box, c.face, "real"))
        kinds.append(c.sides)
    img = scenes.degrade(scenes._lighting(img, rng), rng)
    return scenes.Scene(img, labels, kinds)
