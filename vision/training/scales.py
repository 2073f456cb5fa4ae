"""How the reader does on dice smaller and bigger than a labelled folder shows them.

Real photos, made into two kinds of frames:
- **tiled**: `t` x `t` photos side by side in one frame, so each die is 1/t as big against
  the frame (a 640 px photo of 55 px dice tiled 4 x 4 is a 2560 px frame of dice 1/47 of
  its side: a big table, or a 12-megapixel photo of a few dice);
- **close-up**: a square around one labelled die, the die's longer side `share` of the
  square's, enlarged to 640x640 (a phone held close; the frame has no more detail than
  the photo). The dice of the photo that lie at least 80% inside the square are labelled;
  a die cut more by the frame's edge is not, so a reader that finds it loses precision.

`python -m vision.training.scales FOLDER [--split val]` prints one JSON line per kind of frame with
`vision.evaluate.score`'s figures (docs/model-history.md, "Close-ups and small dice").
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision import evaluate
from vision.photos import read_photo

TILES = (1, 2, 3, 4)
SHARES = (0.2, 0.3, 0.45, 0.6, 0.8)
CLOSE_UP_PX = 640
#: A labelled die counts in a close-up when at least this share of its width and height is in it.
INSIDE = 0.8


def tiled(photos: list[tuple[np.ndarray, list]], t: int) -> tuple[np.ndarray, list]:
    """`t` x `t` photos of one size (row by row) as one frame, and its labels."""
    h, w = photos[0][0].shape[:2]
    if len(photos) != t * t or any(p[0].shape[:2] != (h, w) for p in photos):
        raise ValueError(f"tiling {t} x {t} needs {t * t} photos of one size")
    rows, dice = [], []
    for r in range(t):
        rows.append(np.hstack([photos[r * t + c][0] for c in range(t)]))
        for c in range(t):
            dice += [[d[0] + w * c, d[1] + h * r, d[2] + w * c, d[3] + h * r, *d[4:]] for d in photos[r * t + c][1]]
    return np.vstack(rows), dice


def close_up(image: np.ndarray, dice: list, k: int, share: float) -> tuple[np.ndarray, list]:
    """The square around die `k` of `dice` whose side makes the die `share` of it, enlarged
    to CLOSE_UP_PX (the photo reflected where the square leaves it), and its labels."""
    x0, y0, x1, y1 = dice[k][:4]
    side = int(round(max(x1 - x0, y1 - y0) / share))
    left, top = int(round((x0 + x1 - side) / 2)), int(round((y0 + y1 - side) / 2))
    padded = cv2.copyMakeBorder(image, side, side, side, side, cv2.BORDER_REFLECT)
    square = padded[top + side:top + 2 * side, left + side:left + 2 * side]
    frame = cv2.resize(square, (CLOSE_UP_PX, CLOSE_UP_PX), interpolation=cv2.INTER_CUBIC)
    f = CLOSE_UP_PX / side
    out = []
    for d in dice:
        b = [(d[0] - left) * f, (d[1] - top) * f, (d[2] - left) * f, (d[3] - top) * f]
        c = [max(b[0], 0.0), max(b[1], 0.0), min(b[2], CLOSE_UP_PX), min(b[3], CLOSE_UP_PX)]
        if c[2] - c[0] >= INSIDE * (b[2] - b[0]) and c[3] - c[1] >= INSIDE * (b[3] - b[1]):
            out.append([*c, *d[4:]])
    return frame, out


def frames(photos: list[tuple[np.ndarray, list]], kind: str, value, per_kind: int = 20):
    """The frames of one kind ("tiled", t; or "close-up", share) made from `photos`:
    at most `per_kind` tiled frames (photos taken in turn), a close-up of each photo's
    first two dice."""
    if kind == "tiled":
        t = value
        step = max(1, t * t // 2)
        starts = range(0, max(1, len(photos) - t * t + 1), step)
        for s in list(starts)[:per_kind]:
            group = [photos[(s + j) % len(photos)] for j in range(t * t)]
            if len({p[0].shape for p in group}) == 1:
                yield tiled(group, t)
    else:
        for image, dice in photos:
            for k in range(min(2, len(dice))):
                yield close_up(image, dice, k, value)


def measure(detector, photos: list[tuple[np.ndarray, list]]) -> list[dict]:
    """One result per kind of frame: its name and `evaluate.score`'s figures, the dice
    scored as `dicetable evaluate` scores them (an unsure die by its most likely face)."""
    from vision.cli import dice_json

    results = []
    for kind, values in (("tiled", TILES), ("close-up", SHARES)):
        for value in values:
            gt, found = {}, {}
            for i, (frame, dice) in enumerate(frames(photos, kind, value)):
                gt[str(i)] = {"dice": dice}
                found[str(i)] = [dice_json(r) for r in detector.detect_raw(frame, everything=False)]
            score = evaluate.score(gt, found)
            name = f"tiled {value}x{value}" if kind == "tiled" else f"close-up, die {value} of the frame"
            results.append({"frames": name, "images": len(gt),
                            **{k: score[k] for k in ("gt_dice", "detections", "recall", "precision", "face_accuracy", "end_to_end")}})
    return results


def main(argv=None) -> int:
    from vision.detector import Detector

    p = argparse.ArgumentParser(prog="python -m vision.training.scales", description=__doc__.split("\n\n")[0])
    p.add_argument("folder", help="a labelled folder (images + annotations.json)")
    p.add_argument("--split", choices=["all", "train", "val"], default="all")
    p.add_argument("--models", metavar="DIR", help="folder with the ONNX models (default: models/)")
    args = p.parse_args(argv)
    try:
        gt = evaluate.select(evaluate.load_annotations(args.folder), args.split)
    except (OSError, ValueError) as exc:
        print(f"vision.training.scales: {exc}", file=sys.stderr)
        return 2
    photos = []
    for name in sorted(gt):
        image = read_photo(Path(args.folder) / name)
        if image is None:
            print(f"vision.training.scales: cannot read {args.folder}/{name}; left out", file=sys.stderr)
            continue
        photos.append((image, [list(d) for d in gt[name]["dice"]]))
    if not photos:
        print(f"vision.training.scales: no readable labelled photo in {args.folder}", file=sys.stderr)
        return 2
    print(f"machine: {evaluate.cpu_name()}; {len(photos)} photos of {args.folder} ({args.split})", flush=True)
    for result in measure(Detector(model_dir=args.models, colours=False), photos):
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
