"""Train the two dice models and export them to ONNX (needs the `train` extra: torch, onnx).

    python -m vision.training.train --out models --real DATA/byler-d6/train:val_every=5 \\
        --centres DATA/matteop65-webcam/train --minutes-detector 35 --minutes-classifier 35

(DATA: the folder of the labelled data sets, models/MODEL.md.) Each model trains for a time
budget (`--minutes-detector`, `--minutes-classifier`) or a fixed number of steps
(`--steps-detector`, `--steps-classifier`: the same run on any machine, as the tests do).

- detector (`dice_detector.onnx`): a tiny CenterNet; input a 1x3xHxW float BGR image
  (0-255, H and W multiples of 32, longer side ~384), outputs at stride 4: `heatmap`
  (1 channel, logits), `size` (log of box width and height in input pixels / 4),
  `offset` (sub-cell centre offset, 0..1).
- classifier (`dice_classifier.onnx`): Nx3x48x48 BGR crops (0-255) around each detected
  box (side 1.25 x the box's longer side), a logit per class of `vision.detector.CLASSES`:
  "not a die", d6 faces 1-6, d10 faces 0-9, d20 faces 1-20.

Training data: synthetic scenes from `vision.training.scenes` (pre-rendered once into a
pool, then augmented; `--poly-scenes`, `--lookalikes`, `--negatives`, `--looks` set their
`SceneMix`), plus labelled real folders: `--real DIR[:val_every=K]` (boxes around whole
dice; with val_every the validation images are left out) and `--centres DIR` (boxes
around the pip pattern only: used for detector centres, without size, and for face crops
with an estimated die size). With `--collages`, a share of the pool's scenes are real dice
cut out of the `--real` photos and laid on rendered tables (`vision.training.cutouts`). torch
is imported by this module only.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import evaluate
from vision.detector import CLASSES, class_of
from vision.photos import read_photo
from vision.light import _middle
from vision.training import cutouts, scenes
from vision.training.scenes import SceneMix

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as exc:  # pragma: no cover - only without the train extra
    raise SystemExit("training needs torch: pip install -e '.[train]' (torch is not needed to detect)") from exc

DET_LONG = 384  # detector input: longer side
STRIDE = 4
CROP = 48  # classifier input side
CROP_EXPAND = 1.25
NOT_A_DIE = 0
#: Share of the "not a die" crops taken inside a die, at INSIDE_SIZE of its crop's side.
INSIDE_SHARE = 0.25
INSIDE_SIZE = (0.08, 0.35)


# ---------------------------------------------------------------------------------------
# Models


class CBR(nn.Module):
    """Conv + BatchNorm + ReLU, with `fuse()` folding the BatchNorm into the conv."""

    def __init__(self, ci: int, co: int, k: int = 3, s: int = 1, groups: int = 1, act: bool = True):
        super().__init__()
        self.conv = nn.Conv2d(ci, co, k, s, k // 2, groups=groups, bias=False)
        self.bn: nn.Module = nn.BatchNorm2d(co)
        self.act: nn.Module = nn.ReLU(inplace=True) if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))

    def fuse(self) -> None:
        if isinstance(self.bn, nn.Identity):
            return
        bn = self.bn
        w = self.conv.weight
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        conv = nn.Conv2d(self.conv.in_channels, self.conv.out_channels, self.conv.kernel_size,
                         self.conv.stride, self.conv.padding, groups=self.conv.groups, bias=True)
        conv.weight.data = w * scale.reshape(-1, 1, 1, 1)
        conv.bias.data = bn.bias - bn.running_mean * scale
        self.conv = conv
        self.bn = nn.Identity()


def dws(ci: int, co: int, s: int = 1) -> nn.Sequential:
    """Depthwise-separable block."""
    return nn.Sequential(CBR(ci, ci, 3, s, groups=ci), CBR(ci, co, 1))


class DiceDetector(nn.Module):
    """Tiny CenterNet: channels 16-24-32-48-64, a top-down path back to stride 4."""

    def __init__(self):
        super().__init__()
        self.stem = CBR(3, 16, 3, 2)
        self.s4 = nn.Sequential(dws(16, 24, 2), dws(24, 24))
        self.s8 = nn.Sequential(dws(24, 32, 2), dws(32, 32))
        self.s16 = nn.Sequential(dws(32, 48, 2), dws(48, 48))
        self.s32 = nn.Sequential(dws(48, 64, 2), dws(64, 64))
        self.lat16 = CBR(64, 48, 1)
        self.lat8 = CBR(48, 32, 1)
        self.lat4 = CBR(32, 24, 1)
        self.ref16 = dws(48, 48)
        self.ref8 = dws(32, 32)
        self.ref4 = dws(24, 24)
        self.head = nn.Sequential(CBR(24, 24, 3, groups=24), CBR(24, 32, 1))
        self.out = nn.Conv2d(32, 5, 1)
        nn.init.constant_(self.out.bias, 0.0)
        with torch.no_grad():
            self.out.bias[0] = -2.19

    def forward(self, x):
        x = (x - 128.0) * (1.0 / 64.0)
        x = self.stem(x)
        c4 = self.s4(x)
        c8 = self.s8(c4)
        c16 = self.s16(c8)
        c32 = self.s32(c16)
        p16 = self.ref16(F.interpolate(self.lat16(c32), scale_factor=2.0, mode="nearest") + c16)
        p8 = self.ref8(F.interpolate(self.lat8(p16), scale_factor=2.0, mode="nearest") + c8)
        p4 = self.ref4(F.interpolate(self.lat4(p8), scale_factor=2.0, mode="nearest") + c4)
        o = self.out(self.head(p4))
        return o[:, 0:1], o[:, 1:3], torch.sigmoid(o[:, 3:5])


class DiceClassifier(nn.Module):
    """Tiny CNN on 48x48 crops: a logit per class of `vision.detector.CLASSES` (not a die,
    d6 faces 1-6, d10 0-9, d20 1-20). `width` multiplies every layer's channels (the
    shipped classifier: 1; a wider numeral reader costs about width squared in time)."""

    def __init__(self, classes: int = len(CLASSES), width: float = 1.0):
        super().__init__()
        c = [max(8, round(n * width)) for n in (16, 24, 32, 48, 48, 64, 96)]
        self.body = nn.Sequential(
            CBR(3, c[0], 3, 1), CBR(c[0], c[1], 3, 2),  # 24
            CBR(c[1], c[2], 3, 1), CBR(c[2], c[3], 3, 2),  # 12
            CBR(c[3], c[4], 3, 1), CBR(c[4], c[5], 3, 2),  # 6
            CBR(c[5], c[6], 3, 1),
        )
        self.fc = nn.Linear(c[6], classes)

    def forward(self, x):
        x = (x - 128.0) * (1.0 / 64.0)
        x = self.body(x)
        return self.fc(x.mean(dim=(2, 3)))


def fuse_all(model: nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, CBR):
            m.fuse()


# ---------------------------------------------------------------------------------------
# Data


class Sample:
    """One training photo: image, whole-die boxes (N x 4, may be empty), faces, each die's
    number of sides (default: all d6), and whether the boxes hold sizes (False: centres
    only, e.g. boxes around pips)."""

    def __init__(self, image: np.ndarray, boxes: np.ndarray, faces: np.ndarray, has_size: bool = True,
                 sides: np.ndarray | None = None):
        self.image = image
        self.boxes = boxes.astype(np.float32).reshape(-1, 4)
        self.faces = faces.astype(np.int64).reshape(-1)
        self.sides = np.full(len(self.faces), 6, np.int64) if sides is None else sides.astype(np.int64).reshape(-1)
        self.has_size = has_size


def load_real(spec: str, has_size: bool = True) -> list[Sample]:
    """A labelled folder `DIR[:val_every=K]`: its training images (validation left out)."""
    folder, _, opt = spec.partition(":")
    val_every = 0
    if opt:
        key, _, value = opt.partition("=")
        if key != "val_every" or not value.isdigit():
            raise SystemExit(f"cannot read {spec!r}: expected DIR or DIR:val_every=K")
        val_every = int(value)
    gt = evaluate.load_annotations(folder)
    names = evaluate.split(gt, val_every)[0] if val_every else sorted(gt)
    out = []
    for name in names:
        img = read_photo(Path(folder) / name)
        if img is None:
            print(f"warning: cannot read {folder}/{name}, skipped", file=sys.stderr)
            continue
        d = np.array([list(x[:5]) + [x[5] if len(x) > 5 else 6] for x in gt[name]["dice"]], np.float32).reshape(-1, 6)
        boxes, faces = d[:, :4], d[:, 4].astype(np.int64)
        if not has_size:
            boxes = pip_boxes_to_die_boxes(boxes, faces)
        out.append(Sample(img, boxes, faces, has_size, d[:, 5]))
    print(f"{folder}: {len(out)} training images, {sum(len(s.faces) for s in out)} dice", flush=True)
    return out


def pip_boxes_to_die_boxes(boxes: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Estimated whole-die boxes from boxes around the pip pattern: about 1.7x the pattern
    for 2-6; for a 1 (one pip), the image's typical die size."""
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * 1.7
    others = side[faces != 1]
    typical = float(np.median(others)) if len(others) else None
    for i in np.where(faces == 1)[0]:
        bs = max(boxes[i, 2] - boxes[i, 0], boxes[i, 3] - boxes[i, 1])
        side[i] = typical if typical else (bs * 1.2 if bs > 30 else bs * 4.5)
    h = side / 2
    return np.stack([cx - h, cy - h, cx + h, cy + h], 1)


def scene_sample(seed_index: tuple[int, int], mix: SceneMix, cut: list | tuple = ()) -> Sample:
    """Scene number `index` of the pool of `seed`: the same whichever process renders it.
    A share `mix.collages` of the scenes lay the real dice `cut` (`cutouts.Cutout`) on
    rendered tables; whether a scene is one is drawn apart, so the other scenes are those
    of a pool without collages."""
    rng = np.random.default_rng(seed_index)
    if cut and mix.collages > 0 and np.random.default_rng((*seed_index, 1)).random() < mix.collages:
        sc = cutouts.collage(list(cut), rng, mix=mix)
    else:
        sc = scenes.random_scene(rng, mix=mix)
    boxes = np.array([lb[0] for lb in sc.labels], np.float32).reshape(-1, 4)
    faces = np.array([lb[1] for lb in sc.labels], np.int64)
    sides = np.array([sc.sides_of(k) for k in range(len(sc.labels))], np.int64)
    return Sample(sc.image, boxes, faces, sides=sides)


# A pool worker's settings: set once in each worker process by `_start_worker` (handed over
# by fork, not pickled with every job: the cut-out dice may weigh hundreds of MB).
_worker: tuple[SceneMix, list] = (SceneMix(), [])


def _start_worker(mix: SceneMix, cut: list) -> None:
    global _worker
    cv2.setNumThreads(1)
    _worker = (mix, cut)


def _worker_sample(seed_index: tuple[int, int]) -> Sample:
    return scene_sample(seed_index, *_worker)


def synth_pool(n: int, seed: int, mix: SceneMix = SceneMix(), workers: int = 0, cut: list | None = None) -> list[Sample]:
    """`n` rendered scenes of `mix`, in `workers` processes (0: in this one); a share
    `mix.collages` of them lay the real dice `cut` (`cutouts.Cutout`) on rendered tables."""
    import multiprocessing

    t0 = time.time()
    jobs = [(seed, i) for i in range(n)]
    if workers:
        with multiprocessing.get_context("fork").Pool(workers, initializer=_start_worker,
                                                      initargs=(mix, cut or [])) as pool:
            out = pool.map(_worker_sample, jobs, chunksize=8)
    else:
        out = [scene_sample(j, mix, cut or []) for j in jobs]
    print(f"synthetic pool: {n} scenes ({time.time() - t0:.0f} s)", flush=True)
    return out


def load_pool(args, mix: SceneMix, real: list[Sample]) -> list[Sample]:
    """The synthetic pool: rendered now (with --collages, of the dice cut out of `real`), or
    read from --pool-cache (written when absent)."""
    import pickle

    cache = Path(args.pool_cache) if args.pool_cache else None
    if cache and cache.is_file():
        with open(cache, "rb") as f:
            pool = pickle.load(f)
        print(f"synthetic pool: {len(pool)} scenes from {cache} (rendered then: --poly-scenes, --lookalikes, "
              "--negatives, --looks, --glyph-shapes, --fonts and --collages do not change them)", flush=True)
        return pool[: args.pool]
    cut = []
    if mix.collages > 0:
        cut = cutouts.cut_all(real)
        print(f"collages: {len(cut)} real dice cut out", flush=True)
    pool = synth_pool(args.pool, args.seed + 100, mix, args.workers, cut)
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with open(cache.with_suffix(".tmp"), "wb") as f:
            pickle.dump(pool, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(cache.with_suffix(".tmp"), cache)
    return pool


def mine_hard_negatives(samples: list[Sample], model_dir: str, threshold: float = 0.15) -> None:
    """Set `s.hard` to the boxes where the detector in `model_dir` fires away from every
    labelled die (their centres outside all boxes grown by 10%)."""
    from vision.detector import Detector

    det = Detector(model_dir=model_dir, threads=1, colours=False, score_threshold=threshold)
    total = 0
    for s in samples:
        boxes = det._find(s.image)[0]
        keep = []
        for b in boxes:
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            g = s.boxes
            m = 0.1 * (g[:, 2:] - g[:, :2])
            inside = ((g[:, 0] - m[:, 0] <= cx) & (cx <= g[:, 2] + m[:, 0]) &
                      (g[:, 1] - m[:, 1] <= cy) & (cy <= g[:, 3] + m[:, 1]))
            if not inside.any():
                keep.append(b)
        s.hard = np.array(keep, np.float32).reshape(-1, 4)
        total += len(keep)
    print(f"hard negatives: {total} in {len(samples)} images", flush=True)


def colour_jitter(img: np.ndarray, rng: np.random.Generator, strong: bool = True) -> np.ndarray:
    """Hue shift, saturation, brightness, contrast, channel shuffles, grey: float32 in, out."""
    if rng.random() < 0.5:
        hsv = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(0, 180 if strong else 20)) % 180
        hsv[..., 1] *= rng.uniform(0.5, 1.4)
        img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if strong and rng.random() < 0.2:
        img = img[..., rng.permutation(3)]
    if rng.random() < 0.08:
        g = img.mean(axis=2, keepdims=True)
        img = np.repeat(g, 3, axis=2)
    c = rng.uniform(0.6, 1.4)
    b = rng.uniform(-40, 40)
    m = img.mean()
    img = (img - m) * c + m + b
    img = img * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.3:
        img = img + rng.normal(0, rng.uniform(2, 10), img.shape).astype(np.float32)
    if rng.random() < 0.2:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    return img


def det_example(s: Sample, rng: np.random.Generator, size: int):
    """One detector training crop (size x size) and its stride-4 targets."""
    img = s.image
    h, w = img.shape[:2]
    # Scale as at inference (longer side -> DET_LONG) times a random zoom (0.5-2x).
    zoom = math.exp(rng.uniform(math.log(0.5), math.log(2.0)))
    sc = DET_LONG / max(h, w) * zoom
    ang = float(rng.choice([0, 90, 180, 270])) + (rng.uniform(-20, 20) if rng.random() < 0.3 else 0.0)
    flip = rng.random() < 0.5
    # Affine: source -> crop. Centre of the crop on a random point of the (scaled) image.
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if len(s.boxes) and rng.random() < 0.7:
        b = s.boxes[int(rng.integers(0, len(s.boxes)))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-size / 3, size / 3) / sc
        cy = (b[1] + b[3]) / 2 + rng.uniform(-size / 3, size / 3) / sc
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), ang, sc)
    M[0, 2] += size / 2 - cx
    M[1, 2] += size / 2 - cy
    if flip:
        M[0] = -M[0]
        M[0, 2] += size
    interp = cv2.INTER_AREA if sc < 0.7 else cv2.INTER_LINEAR
    if sc < 0.7:
        # Downscale first (area) to avoid aliasing, then the affine at ~1x.
        small = cv2.resize(img, (max(1, int(w * sc)), max(1, int(h * sc))), interpolation=cv2.INTER_AREA)
        S = np.array([[small.shape[1] / w, 0, 0], [0, small.shape[0] / h, 0], [0, 0, 1]], np.float64)
        M2 = M @ np.linalg.inv(S)
        out = cv2.warpAffine(small, M2, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=(114, 114, 114))
    else:
        out = cv2.warpAffine(img, M, (size, size), flags=interp, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=(114, 114, 114))
    out = colour_jitter(out.astype(np.float32), rng)
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    sizes = np.zeros((2, g, g), np.float32)
    offs = np.zeros((2, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    if len(s.boxes):
        corners = np.stack([s.boxes[:, [0, 1]], s.boxes[:, [2, 1]], s.boxes[:, [2, 3]], s.boxes[:, [0, 3]]], 1)
        pts = corners.reshape(-1, 2) @ M[:, :2].T + M[:, 2]
        pts = pts.reshape(-1, 4, 2)
        # A rotated box's axis-aligned hull overstates the die by up to 1.41x at 45 deg;
        # shrink towards the centre by the rotation's excess.
        rad = math.radians(ang % 90)
        excess = abs(math.cos(rad)) + abs(math.sin(rad))
        yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
        for p in pts:
            c = p.mean(0)
            bw = (p[:, 0].max() - p[:, 0].min()) / excess
            bh = (p[:, 1].max() - p[:, 1].min()) / excess
            gx, gy = c[0] / STRIDE, c[1] / STRIDE
            if not (0 <= gx < g and 0 <= gy < g) or bw < 4 or bh < 4:
                continue
            sigma = max(0.6, min(bw, bh) / STRIDE / 5.0)
            gauss = np.exp(-((xx - gx + 0.5) ** 2 + (yy - gy + 0.5) ** 2) / (2 * sigma * sigma))
            np.maximum(heat, gauss, out=heat)
            ix, iy = int(gx), int(gy)
            heat[iy, ix] = 1.0
            offs[:, iy, ix] = (gx - ix, gy - iy)
            if s.has_size:
                sizes[:, iy, ix] = (math.log(bw / STRIDE), math.log(bh / STRIDE))
                mask[iy, ix] = 1.0
            else:
                mask[iy, ix] = 0.0
                offs[:, iy, ix] = (gx - ix, gy - iy)
    return out, heat, sizes, offs, mask


def _pip_spot(img: np.ndarray, b) -> tuple[float, float] | None:
    """The centre of the spot inside die box `b` (its middle 70%) that differs most from
    the face's median colour: a pip, on most dice. None for a box too small."""
    x0, y0, x1, y1 = _middle(tuple(b), 0.7, img.shape[1], img.shape[0])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    face = img[y0:y1, x0:x1].astype(np.float32)
    differs = np.abs(face - np.median(face.reshape(-1, 3), axis=0)).sum(axis=2)
    k = max(1, int(max(b[2] - b[0], b[3] - b[1]) / 12)) | 1
    y, x = np.unravel_index(np.argmax(cv2.blur(differs, (k, k))), differs.shape)
    return x0 + float(x), y0 + float(y)


def crop_example(s: Sample, rng: np.random.Generator, negative: bool, crop: int = CROP):
    """One classifier crop (`crop` x `crop`, float32) and its class (0 = not a die)."""
    img = s.image
    h, w = img.shape[:2]
    n = len(s.boxes)
    if not negative and n:
        i = int(rng.integers(0, n))
        b = s.boxes[i]
        bw, bh = b[2] - b[0], b[3] - b[1]
        side = max(bw, bh) * CROP_EXPAND * math.exp(rng.uniform(-0.15, 0.15))
        cx = (b[0] + b[2]) / 2 + rng.uniform(-0.07, 0.07) * side
        cy = (b[1] + b[3]) / 2 + rng.uniform(-0.07, 0.07) * side
        sides = getattr(s, "sides", None)  # a pool cached before d10 and d20: all d6
        label = class_of(int(sides[i]) if sides is not None else 6, int(s.faces[i]))
    elif n and rng.random() < INSIDE_SHARE:
        # Part of a die: a pip or a patch of its face, closer than any whole die is seen
        # (a close-up's pips must not read as dice showing 1).
        label = NOT_A_DIE
        b = s.boxes[int(rng.integers(0, n))]
        side = max(b[2] - b[0], b[3] - b[1]) * CROP_EXPAND * rng.uniform(*INSIDE_SIZE)
        spot = _pip_spot(img, b) if rng.random() < 0.5 else None
        if spot is not None:  # centred on a pip, as a close-up's main pass boxes them
            cx, cy = spot[0] + rng.uniform(-0.1, 0.1) * side, spot[1] + rng.uniform(-0.1, 0.1) * side
        else:
            cx = b[0] + (b[2] - b[0]) * rng.uniform(0.2, 0.8)
            cy = b[1] + (b[3] - b[1]) * rng.uniform(0.2, 0.8)
    elif getattr(s, "hard", None) is not None and len(s.hard) and rng.random() < 0.5:
        # A hard negative: where a detector fired on something that is not a die.
        label = NOT_A_DIE
        b = s.hard[int(rng.integers(0, len(s.hard)))]
        side = max(b[2] - b[0], b[3] - b[1]) * CROP_EXPAND * math.exp(rng.uniform(-0.15, 0.15))
        cx = (b[0] + b[2]) / 2 + rng.uniform(-0.07, 0.07) * side
        cy = (b[1] + b[3]) / 2 + rng.uniform(-0.07, 0.07) * side
    else:
        label = NOT_A_DIE
        sizes = (s.boxes[:, 2:] - s.boxes[:, :2]).max(1) if n else np.array([rng.uniform(20, 120)])
        side = float(np.median(sizes)) * CROP_EXPAND * math.exp(rng.uniform(-0.5, 0.5))
        for _ in range(20):
            if n and rng.random() < 0.5:
                # Next to a die: shifted by more than half a die.
                b = s.boxes[int(rng.integers(0, n))]
                d = max(b[2] - b[0], b[3] - b[1])
                t = rng.uniform(0, 2 * math.pi)
                r = d * rng.uniform(0.6, 1.2)
                cx, cy = (b[0] + b[2]) / 2 + r * math.cos(t), (b[1] + b[3]) / 2 + r * math.sin(t)
            else:
                cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            if n == 0:
                break
            cc = (s.boxes[:, :2] + s.boxes[:, 2:]) / 2
            dd = (s.boxes[:, 2:] - s.boxes[:, :2]).max(1)
            if np.all(np.hypot(cc[:, 0] - cx, cc[:, 1] - cy) > 0.55 * dd):
                break
        else:
            return None
    ang = rng.uniform(0, 360)
    sc = crop / side
    M = cv2.getRotationMatrix2D((float(cx), float(cy)), ang, sc)
    M[0, 2] += crop / 2 - cx
    M[1, 2] += crop / 2 - cy
    if rng.random() < 0.5 and label <= 6:  # pips may be mirrored, numbers may not
        M[0] = -M[0]
        M[0, 2] += crop
    if sc < 0.6:
        # Area-downscale the region first, as inference does for big dice.
        x0, y0 = int(max(cx - side, 0)), int(max(cy - side, 0))
        x1, y1 = int(min(cx + side, w)), int(min(cy + side, h))
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        f = sc * 1.5
        region = cv2.resize(img[y0:y1, x0:x1], (max(2, int((x1 - x0) * f)), max(2, int((y1 - y0) * f))),
                            interpolation=cv2.INTER_AREA)
        T = np.array([[region.shape[1] / (x1 - x0), 0, -x0 * region.shape[1] / (x1 - x0)],
                      [0, region.shape[0] / (y1 - y0), -y0 * region.shape[0] / (y1 - y0)], [0, 0, 1]])
        M = M @ np.linalg.inv(T)
        src = region
    else:
        src = img
    out = cv2.warpAffine(src, M, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = colour_jitter(out.astype(np.float32), rng)
    return out, label


# ---------------------------------------------------------------------------------------
# Training loops


def focal_loss(logits, target):
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = (target > 0.999).float()
    neg = 1 - pos
    pl = -torch.log(p) * (1 - p) ** 2 * pos
    nl = -torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    return (pl.sum() + nl.sum()) / npos


def export_detector(model: DiceDetector, path: Path) -> None:
    import copy
    m = copy.deepcopy(model).cpu().eval()
    fuse_all(m)
    x = torch.zeros(1, 3, 288, 384)
    _onnx_export(m, x, path, ["image"], ["heatmap", "size", "offset"],
                 {"image": {0: "n", 2: "h", 3: "w"}, "heatmap": {0: "n", 2: "gh", 3: "gw"},
                  "size": {0: "n", 2: "gh", 3: "gw"}, "offset": {0: "n", 2: "gh", 3: "gw"}})


def export_classifier(model: DiceClassifier, path: Path, crop: int = CROP) -> None:
    import copy
    m = copy.deepcopy(model).cpu().eval()
    fuse_all(m)
    x = torch.zeros(2, 3, crop, crop)
    _onnx_export(m, x, path, ["crops"], ["logits"], {"crops": {0: "n"}, "logits": {0: "n"}})


def _onnx_export(m, x, path: Path, inputs, outputs, axes) -> None:
    tmp = path.with_suffix(".tmp.onnx")
    kwargs = dict(input_names=inputs, output_names=outputs, dynamic_axes=axes, opset_version=17,
                  do_constant_folding=True)
    import warnings

    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated but needs no extra package (onnxscript).
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        try:
            torch.onnx.export(m, (x,), str(tmp), dynamo=False, **kwargs)
        except TypeError:
            torch.onnx.export(m, (x,), str(tmp), **kwargs)
    os.replace(tmp, path)


def onnx_weights(path: Path) -> dict[str, np.ndarray]:
    """The float weights of an exported model by name; those of a model quantised by
    `vision.training.quantize` (8-bit integers, a scale and zero point per channel) dequantised."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i).copy() for i in graph.initializer}
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or not all(n in weights for n in node.input[:3]):
            continue
        q, scale, zero = (weights[n] for n in node.input[:3])
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * q.ndim
        if scale.ndim:
            shape[axis] = -1
        w = (q.astype(np.float32) - zero.astype(np.float32).reshape(shape)) * scale.astype(np.float32).reshape(shape)
        weights[node.output[0].removesuffix("_DequantizeLinear_Output")] = np.asarray(w)
    return weights


def init_from_onnx(model: nn.Module, path: Path) -> None:
    """Start from the weights of an exported model: fuse `model`'s BatchNorms (the export
    folds them into the convolutions) and load the ONNX initializers, which carry the
    same names (dequantised from an 8-bit one, `onnx_weights`). Fine-tuning then runs
    without BatchNorm."""
    fuse_all(model)
    weights = {k: torch.from_numpy(v) for k, v in onnx_weights(path).items()}
    own = model.state_dict()
    missing = set(own) - set(weights)
    if missing:
        raise SystemExit(f"{path} does not fit this network: no weights for {sorted(missing)[:3]}")
    grown = []
    for k, w in own.items():
        if weights[k].shape != w.shape:
            # A classifier learning new classes (d10, d20) from one that knew fewer (d6):
            # the known classes keep their rows, the new ones start from the fresh ones.
            if weights[k].shape[1:] != w.shape[1:] or weights[k].shape[0] > w.shape[0]:
                raise SystemExit(f"{path} does not fit this network: {k} is {tuple(weights[k].shape)}, "
                                 f"not {tuple(w.shape)}")
            fresh = w.clone()
            fresh[: weights[k].shape[0]] = weights[k]
            if k.endswith("bias"):  # new classes start unlikely
                fresh[weights[k].shape[0]:] = weights[k][1:].mean() - 2.0
            weights[k] = fresh
            grown.append(k)
    model.load_state_dict({k: weights[k] for k in own})
    print(f"{path}: weights loaded (BatchNorm folded){'; grown: ' + ', '.join(grown) if grown else ''}", flush=True)


def new_model(cls, args, file: str) -> nn.Module:
    model = cls()
    if args.init_from:
        init_from_onnx(model, Path(args.init_from) / file)
    return model.to(torch.device(args.device))


def _picks(data: list[tuple[list[Sample], float]], rng: np.random.Generator):
    """Endless samples, each from a source drawn by its weight."""
    weights = np.array([wt for _, wt in data], np.float64)
    weights /= weights.sum()
    while True:
        src = data[int(rng.choice(len(data), p=weights))][0]
        yield src[int(rng.integers(0, len(src)))]


def det_batch(data, args, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """A detector batch: images, heatmaps, sizes, offsets, size masks (numpy)."""
    xs, hs, ss, os_, ms = [], [], [], [], []
    picks = _picks(data, rng)
    for _ in range(args.det_batch):
        x, hm, sz, of, mk = det_example(next(picks), rng, args.det_size)
        xs.append(x.transpose(2, 0, 1)); hs.append(hm[None]); ss.append(sz); os_.append(of); ms.append(mk[None])
    return np.stack(xs), np.stack(hs), np.stack(ss), np.stack(os_), np.stack(ms)


def cls_batch(data, args, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A classifier batch: crops and their classes (numpy); a quarter are negatives."""
    xs, ys = [], []
    picks = _picks(data, rng)
    while len(xs) < args.cls_batch:
        ex = crop_example(next(picks), rng, negative=rng.random() < 0.25, crop=args.crop)
        if ex is not None:
            xs.append(ex[0].transpose(2, 0, 1)); ys.append(ex[1])
    return np.stack(xs), np.array(ys, np.int64)


class _Stream(torch.utils.data.IterableDataset):
    """Endless batches of `make(rng)`, made in `workers` processes (0: in this one). Each
    worker has its own generator seeded from (seed, worker number); the data is shared
    with the workers by fork, not copied."""

    def __init__(self, make, seed: int, workers: int):
        super().__init__()
        self.make, self.seed, self.workers = make, seed, workers

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        if info is not None:
            cv2.setNumThreads(1)
            torch.set_num_threads(1)
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            yield self.make(rng)

    def batches(self):
        if not self.workers:
            return iter(self)
        return iter(torch.utils.data.DataLoader(self, batch_size=None, num_workers=self.workers,
                                                prefetch_factor=4, persistent_workers=True))


def _tensors(batch, dev) -> list:
    return [torch.as_tensor(b).to(dev, non_blocking=True) for b in batch]


def progress(t0: float, done: int, minutes: float, steps: int | None) -> float | None:
    """How far a training begun at `t0` is (0..1) after `done` steps: by its fixed number of
    `steps` when given (the same run on any machine), else by its time budget of `minutes`;
    None once it is over."""
    if steps is not None:
        return done / steps if done < steps else None
    budget = max(minutes * 60, 1e-9)
    el = time.time() - t0
    return min(1.0, el / budget) if el <= budget else None


def _start(cls, args, file: str, ckpt: Path, dev, name: str):
    """(model, optimiser, step): a new model (or one from --init-from), resumed from its
    checkpoint with --resume."""
    model = new_model(cls, args, file)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    step = 0
    if ckpt.exists() and args.resume:
        st = torch.load(ckpt, weights_only=True, map_location=dev)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        step = int(st["step"])
        print(f"{name}: resumed at step {step}", flush=True)
    return model, opt, step


def train_detector(data: list[tuple[list[Sample], float]], args, out: Path, ckpt: Path) -> None:
    dev = torch.device(args.device)
    model, opt, step = _start(DiceDetector, args, "dice_detector.onnx", ckpt, dev, "detector")
    batches = _Stream(lambda rng: det_batch(data, args, rng), args.seed, args.workers).batches()
    t0 = time.time()
    last_save = t0
    first = step
    model.train()
    while True:
        frac = progress(t0, step - first, args.minutes_detector, args.steps_detector)
        if frac is None:
            break
        el = time.time() - t0
        # Cosine learning rate over the budget (time or steps).
        for gp in opt.param_groups:
            gp["lr"] = args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
        x, hm, sz, of, mk = _tensors(next(batches), dev)
        ph, ps, po = model(x)
        lh = focal_loss(ph, hm)
        centre = (hm > 0.999).float()
        npos = centre.sum().clamp(min=1)
        ls = (torch.abs(ps - sz) * mk).sum() / mk.sum().clamp(min=1)
        lo = (torch.abs(po - of) * centre).sum() / npos
        loss = lh + ls + lo
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 25 == 0:
            print(f"detector step {step} {el / 60:.1f} min loss {loss.item():.3f} heat {lh.item():.3f} "
                  f"size {ls.item():.3f} off {lo.item():.3f}", flush=True)
        if time.time() - last_save > args.save_every * 60:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt)
            export_detector(model, out / "dice_detector.onnx")
            last_save = time.time()
            print(f"detector: saved at step {step}", flush=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt)
    export_detector(model, out / "dice_detector.onnx")
    print(f"detector: done, {step} steps in {(time.time() - t0) / 60:.1f} min", flush=True)


def onnx_outputs(path: Path) -> int:
    """The number of classes of an exported classifier."""
    import onnx

    return int(onnx.load(str(path)).graph.output[0].type.tensor_type.shape.dim[1].dim_value)


def _distillation(logits, teacher, x, y):
    """KL divergence from the teacher's classes to the student's same classes
    (renormalised among them), over the examples whose label the teacher knows."""
    with torch.no_grad():
        t = teacher(x)
    k = t.shape[1]
    known = y < k
    if not known.any():
        return logits.sum() * 0.0
    student = F.log_softmax(logits[known, :k], 1)
    return F.kl_div(student, F.log_softmax(t[known], 1), log_target=True, reduction="batchmean")


def train_classifier(data: list[tuple[list[Sample], float]], args, out: Path, ckpt: Path) -> None:
    dev = torch.device(args.device)
    model, opt, step = _start(lambda: DiceClassifier(width=args.width), args, "dice_classifier.onnx", ckpt, dev,
                              "classifier")
    teacher = None
    if args.teacher:
        # The teacher's opinion on what it knows (not a die, the d6 faces) is kept: a
        # classifier learning new kinds of dice must not forget the hard d6 it read right.
        teacher = DiceClassifier(classes=onnx_outputs(Path(args.teacher) / "dice_classifier.onnx"))
        init_from_onnx(teacher, Path(args.teacher) / "dice_classifier.onnx")
        teacher = teacher.to(dev).eval()
    batches = _Stream(lambda rng: cls_batch(data, args, rng), args.seed + 1, args.workers).batches()
    t0 = time.time()
    last_save = t0
    first = step
    model.train()
    correct = seen = 0
    while True:
        frac = progress(t0, step - first, args.minutes_classifier, args.steps_classifier)
        if frac is None:
            break
        el = time.time() - t0
        for gp in opt.param_groups:
            gp["lr"] = args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
        x, y = _tensors(next(batches), dev)
        logits = model(x)
        loss = F.cross_entropy(logits, y, label_smoothing=0.05)
        if teacher is not None:
            loss = loss + args.teacher_weight * _distillation(logits, teacher, x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        correct += int((logits.argmax(1) == y).sum())
        seen += len(y)
        step += 1
        if step % 50 == 0:
            print(f"classifier step {step} {el / 60:.1f} min loss {loss.item():.3f} acc {correct / seen:.3f}",
                  flush=True)
            correct = seen = 0
        if time.time() - last_save > args.save_every * 60:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt)
            export_classifier(model, out / "dice_classifier.onnx", args.crop)
            last_save = time.time()
            print(f"classifier: saved at step {step}", flush=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt)
    export_classifier(model, out / "dice_classifier.onnx", args.crop)
    print(f"classifier: done, {step} steps in {(time.time() - t0) / 60:.1f} min", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.training.train", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="models", help="folder for the ONNX files (default: models)")
    p.add_argument("--work", default="runs/train", help="checkpoints (default: runs/train)")
    p.add_argument("--real", action="append", default=[], metavar="DIR[:val_every=K]",
                   help="labelled folder, boxes around whole dice; repeatable")
    p.add_argument("--centres", action="append", default=[], metavar="DIR",
                   help="labelled folder whose boxes surround the pips only; repeatable")
    p.add_argument("--what", choices=["both", "detector", "classifier"], default="both")
    p.add_argument("--minutes-detector", type=float, default=40.0, help="time budget of the detector (default 40)")
    p.add_argument("--minutes-classifier", type=float, default=40.0, help="time budget of the classifier (default 40)")
    p.add_argument("--steps-detector", type=int, metavar="N",
                   help="train the detector for N steps, whatever the time (overrides --minutes-detector)")
    p.add_argument("--steps-classifier", type=int, metavar="N",
                   help="train the classifier for N steps, whatever the time (overrides --minutes-classifier)")
    p.add_argument("--pool", type=int, default=1500, help="synthetic scenes rendered once (default 1500)")
    p.add_argument("--pool-cache", metavar="FILE", help="read the pool from FILE, or render and save it there")
    p.add_argument("--hard-negatives", metavar="MODEL_DIR",
                   help="before training the classifier, run the detector of MODEL_DIR over the training "
                        "images and use where it fires away from labelled dice as 'not a die' examples")
    p.add_argument("--render-only", action="store_true", help="only render the pool (with --pool-cache)")
    scenes.add_mix_arguments(p, collages=True)
    p.add_argument("--synth-weight", type=float, default=0.5, help="share of synthetic examples")
    p.add_argument("--det-batch", type=int, default=16)
    p.add_argument("--det-size", type=int, default=256)
    p.add_argument("--cls-batch", type=int, default=128)
    p.add_argument("--crop", type=int, default=CROP,
                   help=f"the classifier's crop side in pixels (default {CROP}; the numeral reader's: "
                        "vision.detector.READER_CROP)")
    p.add_argument("--width", type=float, default=1.0,
                   help="classifier: multiply every layer's channels by this (default 1; with --init-from, "
                        "the width of that model)")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=0,
                   help="processes preparing batches beside the training one (default 0: none; on a GPU "
                        "machine the batches, not the GPU, set the pace: give it the spare cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                   help="torch device (default: cuda when available, else cpu)")
    p.add_argument("--save-every", type=float, default=4.0, help="minutes between checkpoints")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--init-from", metavar="MODEL_DIR",
                   help="fine-tune: start from the ONNX models in MODEL_DIR (e.g. models) instead of random weights")
    p.add_argument("--teacher", metavar="MODEL_DIR",
                   help="classifier: also match the classifier in MODEL_DIR on the classes it knows (distillation)")
    p.add_argument("--teacher-weight", type=float, default=1.0, help="weight of the teacher's loss (default 1)")
    p.add_argument("--real-weight", type=float, default=0.75,
                   help="share of --real among the real examples when --centres are given too (default 0.75)")
    args = p.parse_args(argv)
    try:
        mix = scenes.mix_of(args)
    except ValueError as exc:
        p.error(str(exc))
    for name in ("steps_detector", "steps_classifier"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} is a number of steps, at least 1")
    if mix.collages > 0 and not args.real:
        raise SystemExit("--collages needs --real folders to cut the dice from")
    torch.set_num_threads(args.threads)
    if args.workers:
        # OpenCV's thread pool does not survive a fork: a worker forked after this process
        # ran a parallel OpenCV call (hard-negative mining) hangs in its first one.
        cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    real = [s for spec in args.real for s in load_real(spec, True)]
    centres = [s for spec in args.centres for s in load_real(spec, False)]
    pool = load_pool(args, mix, real) if args.pool else []
    if args.render_only:
        return 0
    rw = 1.0 - args.synth_weight
    data: list[tuple[list[Sample], float]] = []
    if pool:
        data.append((pool, args.synth_weight))
    if real:
        data.append((real, rw * (args.real_weight if centres else 1.0)))
    if centres:
        data.append((centres, rw * (1.0 - args.real_weight if real else 1.0)))
    if not data:
        raise SystemExit("no training data: give --pool > 0 or --real DIR")
    with open(work / "args.json", "w") as f:
        json.dump(vars(args), f, indent=1)
    if args.what in ("both", "detector"):
        train_detector(data, args, out, work / "detector.pt")
    if args.what in ("both", "classifier"):
        if args.hard_negatives:
            mine_hard_negatives([smp for src, _ in data for smp in src], args.hard_negatives)
        train_classifier(data, args, out, work / "classifier.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
