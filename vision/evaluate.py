"""Scoring dice readings against labelled photos (the labelled folder format below).

`score()` reproduces the score definition of the dice-scoring tool (`score_dice.py`)
exactly: greedy matching by confidence, class-agnostic; a detection matches a labelled
die when each box holds the other's centre, the best overlap first; `end_to_end` =
correctly read dice / max(labelled, detected).

Labelled folder: images plus `annotations.json`
`{"<file>": {"width": W, "height": H, "dice": [[x0, y0, x1, y1, face], ...]}}`; a die
may carry a sixth number, its sides (6, 10 or 20; 6 when absent). A die is read right
when its face and its sides are (a detection without "sides" is a d6); score_dice.py
compares faces only, so on d6-only sets both agree. `sides_confused` counts the matched
dice taken for another kind of die; `by_sides` gives, for each kind of labelled die, how
many there are, how many were found and how many read right.
Validation split (used by training and by `dicetable evaluate --split val`): file names
sorted, every `val_every`-th one (indices val_every-1, 2*val_every-1, ...) is validation.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

Box = list[float]


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua if ua > 0 else 0.0


def centres_agree(a: Box, b: Box) -> bool:
    ca = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
    cb = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
    return b[0] <= ca[0] <= b[2] and b[1] <= ca[1] <= b[3] and a[0] <= cb[0] <= a[2] and a[1] <= cb[1] <= a[3]


def score(gt: dict, dets: dict) -> dict:
    """Metrics of detections `dets` {image: [{"box", "face", "confidence"}]} against
    ground truth `gt` {image: {"dice": [[x0, y0, x1, y1, face], ...]}}."""
    tot_gt = tot_det = matched = face_ok = exact = confused = 0
    missing = 0
    kinds: dict[int, list[int]] = {}  # sides -> [labelled, found, read right]
    for name, g in gt.items():
        gd = g["dice"]
        if name not in dets:
            missing += 1
        dd = sorted(dets.get(name, []), key=lambda d: -d.get("confidence", 1.0))
        used: set[int] = set()
        ok_here = 0
        for gb in gd:
            kinds.setdefault(int(gb[5]) if len(gb) > 5 else 6, [0, 0, 0])[0] += 1
        for d in dd:
            best, bi = -1.0, -1
            for i, gb in enumerate(gd):
                if i in used or not centres_agree(d["box"], gb[:4]):
                    continue
                v = iou(d["box"], gb[:4])
                if v > best:
                    best, bi = v, i
            if bi >= 0:
                used.add(bi)
                matched += 1
                kind = int(gd[bi][5]) if len(gd[bi]) > 5 else 6
                same_kind = int(d.get("sides", 6)) == kind
                confused += not same_kind
                kinds[kind][1] += 1
                if int(d["face"]) == int(gd[bi][4]) and same_kind:
                    kinds[kind][2] += 1
                    face_ok += 1
                    ok_here += 1
        tot_gt += len(gd)
        tot_det += len(dd)
        if ok_here == len(gd) and len(dd) == len(gd):
            exact += 1
    return {
        "images": len(gt), "images_without_output": missing, "gt_dice": tot_gt, "detections": tot_det,
        "recall": round(matched / tot_gt, 4) if tot_gt else None,
        "precision": round(matched / tot_det, 4) if tot_det else None,
        "face_accuracy": round(face_ok / matched, 4) if matched else None,
        "end_to_end": round(face_ok / max(tot_gt, tot_det), 4) if tot_gt else None,
        "image_exact": round(exact / len(gt), 4) if gt else None,
        "sides_confused": confused,
        "by_sides": {str(k): dict(zip(("dice", "found", "right"), v)) for k, v in sorted(kinds.items())},
    }


def load_annotations(folder: str | Path) -> dict:
    """The folder's annotations.json; FileNotFoundError says what is expected."""
    path = Path(folder) / "annotations.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: a labelled folder holds its images and an annotations.json "
            '{"<file>": {"width": W, "height": H, "dice": [[x0, y0, x1, y1, face], ...]}}')
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as exc:  # not JSON, or not UTF-8
        raise ValueError(f"{path}: not readable JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deep to be a labels file") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("dice"), list)
        and all(isinstance(d, list) and (len(d) == 5 or (len(d) == 6 and d[5] in (6, 10, 20))) for d in v["dice"])
        for v in data.values()
    ):
        raise ValueError(f"{path}: expected {{\"<file>\": {{\"width\": W, \"height\": H, "
                         f"\"dice\": [[x0, y0, x1, y1, face], ...]}}}} (a sixth number, the sides, "
                         "6, 10 or 20, is optional)")
    return data


def cpu_name() -> str:
    """The processor a measurement ran on, as /proc/cpuinfo names it (x86: "model name";
    a Raspberry Pi: "Hardware" or "Model", the board), else what `platform` says."""
    import platform

    try:
        with open("/proc/cpuinfo") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        fields = {}
    fields = {k.strip().lower(): v.strip() for k, v in fields.items()}
    return (fields.get("model name") or fields.get("hardware") or fields.get("model")
            or platform.processor() or platform.machine() or "unknown")


def split(names: Iterable[str], val_every: int = 5) -> tuple[list[str], list[str]]:
    """(train, validation) file names: sorted, every `val_every`-th is validation."""
    if val_every < 2:
        raise ValueError(f"val_every must be at least 2, got {val_every}")
    ordered = sorted(names)
    val = [n for i, n in enumerate(ordered) if i % val_every == val_every - 1]
    vs = set(val)
    return [n for n in ordered if n not in vs], val


def select(gt: dict, which: str = "all", val_every: int = 5) -> dict:
    """The annotations of the `which` ("all", "train" or "val") part of a folder."""
    if which == "all":
        return gt
    train, val = split(gt, val_every)
    keep = set(val if which == "val" else train)
    if which not in ("train", "val"):
        raise ValueError(f"split is one of all, train, val; got {which!r}")
    return {k: v for k, v in gt.items() if k in keep}


if __name__ == "__main__":
    import argparse
    import sys

    ap = argparse.ArgumentParser(
        prog="python -m vision.evaluate",
        description="Print the annotations of one part of a labelled folder (e.g. the validation "
                    "images, as ground truth for the dice-scoring tool score_dice.py).")
    ap.add_argument("folder")
    ap.add_argument("--split", choices=["all", "train", "val"], default="val")
    ap.add_argument("--val-every", type=int, default=5)
    a = ap.parse_args()
    json.dump(select(load_annotations(a.folder), a.split, a.val_every), sys.stdout)
    print()
