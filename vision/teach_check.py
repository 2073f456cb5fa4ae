"""How well a table's own dice read after teaching: `python -m vision.teach_check`.

Dice no model has seen (issue 26): a d10 and a d20 in fonts the training renders never
use, a d6 with numerals instead of pips and a d6 with a maker's emblem on its 6, in colours
of their own, drawn with `vision.polyhedra` and `vision.synth` at seeds training never
used. Each set is taught as the host page teaches it (one die alone under the camera, one
photo per face, `FaceBook.teach`), then held-out throws of 3-6 dice of that set on other
trays, lights and places are scored by `end_to_end` (`vision.evaluate.score`), untaught
and taught. With `DICETABLE_DATASETS` (the folder holding `byler-d6/train` and
`matteop65-webcam/train`) it also scores those real photos of ordinary d6: with no book,
with each set's book (a table's book must not change ordinary dice, nor take anything else
for a die), and taught from their own first photos (scored on the others).

Prints one JSON line per measurement and a table; exit 0.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import evaluate, polyhedra, synth
from vision.photos import read_photo
from vision.detector import FACES

SEED = 26_0000  # far from the seeds training renders with (0 and up, by hundreds)
SIZE = (640, 480)


@dataclass(frozen=True)
class DiceSet:
    """One make of dice at a table: its kind, its look (`vision.polyhedra.Look`: numerals in
    a font of their own; None: a pip d6 with a maker's emblem on its 6) and its colours."""

    name: str
    sides: int
    look: polyhedra.Look | None
    body: tuple[int, int, int]
    ink: tuple[int, int, int]


def _hershey(font: int, thickness: int = 2, **look) -> polyhedra.Look:
    return polyhedra.Look(font=("hershey", font, thickness), **look)


#: Fonts, colours and materials of dice the models never saw: OpenCV's script and italic
#: Hershey fonts (training draws its numerals in TrueType sans and serif and in upright
#: Hershey fonts) and a pip d6 with an emblem.
SETS = (
    DiceSet("d10 script", 10, _hershey(cv2.FONT_HERSHEY_SCRIPT_SIMPLEX), (130, 40, 120), (70, 210, 245)),
    DiceSet("d20 italic", 20, _hershey(cv2.FONT_HERSHEY_PLAIN | cv2.FONT_ITALIC, 3, inking="engraved"),
            (50, 150, 60), (245, 245, 245)),
    DiceSet("d20 translucent", 20, _hershey(cv2.FONT_HERSHEY_COMPLEX_SMALL | cv2.FONT_ITALIC, material="translucent",
                                            alpha=0.6), (40, 60, 200), (250, 250, 250)),
    DiceSet("d6 numerals", 6, _hershey(cv2.FONT_HERSHEY_SCRIPT_COMPLEX, six_nine="dot"), (35, 35, 35), (90, 215, 240)),
    DiceSet("d6 emblem", 6, None, (170, 90, 20), (245, 245, 245)),
)


def draw(img: np.ndarray, s: DiceSet, face: int, cx: float, cy: float, side: float, angle: float,
         rng: np.random.Generator) -> tuple[float, float, float, float]:
    """Draw one die of set `s` showing `face` onto float32 `img`; its box."""
    if s.look is not None:
        pts = polyhedra.draw(img, s.sides, face, cx, cy, side * (1.0 if s.sides == 6 else 1.2), s.body, s.ink, rng,
                             look=s.look, alpha=s.look.alpha)
    else:
        style = synth.DieStyle(body=s.body, pip=s.ink, corner=0.18, bevel=0.35, symbol="emblem")
        pts = synth.draw_die(img, synth._quad(cx, cy, side, angle), face, style, rng)
    h, w = img.shape[:2]
    pts = np.asarray(pts, np.float32)
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    return float(max(x0, 0)), float(max(y0, 0)), float(min(x1, w)), float(min(y1, h))


def _tray(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A float32 BGR surface: one colour, mottled and grainy."""
    base = rng.uniform(20, 200, 3).astype(np.float32)
    mottle = 1 + rng.uniform(0.05, 0.25) * synth._lowfreq(rng, h, w, int(rng.integers(3, 10)))
    grain = rng.uniform(2, 10) * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.8)
    return base[None, None] * mottle + grain[..., None]


def _camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light (gain, a gradient, a colour cast), focus, noise and JPEG: a uint8 photo."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = rng.uniform(0, 2 * np.pi)
    light = rng.uniform(0.7, 1.2) * (1 + rng.uniform(0, 0.35) * ((xx / w - 0.5) * np.cos(t) + (yy / h - 0.5) * np.sin(t)))
    img = img * light[..., None] * rng.uniform(0.88, 1.12, 3).astype(np.float32)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    img = img + rng.normal(0, rng.uniform(1, 6), img.shape).astype(np.float32)
    ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def scene(s: DiceSet, faces: list[int], rng: np.random.Generator) -> tuple[np.ndarray, list[list[float]]]:
    """A photo of dice of set `s` showing `faces` on a random tray: (uint8 BGR, labels
    [x0, y0, x1, y1, face, sides])."""
    w, h = SIZE
    img = _tray(rng, h, w)
    die_px = float(rng.uniform(44, 64))
    labels = []
    for face, (cx, cy, angle) in zip(faces, synth.layout(len(faces), rng, SIZE, int(die_px * 1.3))):
        box = draw(img, s, face, cx, cy, die_px * rng.uniform(0.95, 1.05), angle, rng)
        labels.append([*(round(v, 1) for v in box), face, s.sides])
    return _camera(img, rng), labels


def teaching_photos(s: DiceSet, rng: np.random.Generator, per_face: int = 1) -> list[tuple[np.ndarray, list]]:
    """As the host page teaches: the die alone, once showing each face (`per_face` times)."""
    return [scene(s, [f], rng) for f in FACES[s.sides] for _ in range(per_face)]


def held_out(s: DiceSet, rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, list]]:
    """`n` throws of 3-6 dice of the set, faces at random."""
    faces = list(FACES[s.sides])
    return [scene(s, [int(rng.choice(faces)) for _ in range(int(rng.integers(3, 7)))], rng) for _ in range(n)]


def score(detector, photos: list[tuple[np.ndarray, list]]) -> dict:
    """`vision.evaluate.score` of the detector on labelled photos."""
    from vision.cli import dice_json

    gt = {str(i): {"dice": labels} for i, (_, labels) in enumerate(photos)}
    dets = {str(i): [dice_json(r) for r in detector.detect_raw(image, everything=False)]
            for i, (image, _) in enumerate(photos)}
    return evaluate.score(gt, dets)


#: Real labelled photo sets (under DICETABLE_DATASETS): ordinary d6 the books must leave alone.
REAL = ("byler-d6/train", "matteop65-webcam/train")


def labelled(folder: Path) -> list[tuple[np.ndarray, list]]:
    """The labelled photos of `folder` (its `annotations.json`), in name order."""
    labels = evaluate.load_annotations(folder)
    return [(read_photo(folder / name), labels[name]["dice"]) for name in sorted(labels)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.teach_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--throws", type=int, default=40, help="held-out throws per set (default 40)")
    p.add_argument("--per-face", type=int, default=1, help="teaching photos per face (default 1)")
    p.add_argument("--seed", type=int, default=SEED, help=f"first seed (default {SEED})")
    p.add_argument("--real-teach", type=int, default=4,
                   help="photos of each real set taught from, scored on the others (default 4)")
    args = p.parse_args(argv)
    from vision.detector import Detector
    from vision.faces import FaceBook

    plain = Detector()
    rows = []
    books = {}
    for k, s in enumerate(SETS):
        rng = np.random.default_rng([args.seed, k])
        book, report = FaceBook.teach(plain, teaching_photos(s, rng, args.per_face))
        books[s.name] = book
        test = held_out(s, rng, args.throws)
        before, after = score(plain, test), score(Detector(faces=book), test)
        row = {"set": s.name, "taught_photos": report.photos, "taught_dice": report.taught,
               "controls": report.controls, "unmatched": report.unmatched,
               "untaught": before, "taught": after}
        print(json.dumps(row), flush=True)
        rows.append((s.name, f"{report.photos} photos", before, after))
    datasets = os.environ.get("DICETABLE_DATASETS")
    found = [Path(datasets, name) for name in REAL if datasets and Path(datasets, name).is_dir()]
    for folder in found:
        photos = labelled(folder)
        real = folder.parent.name
        base = score(plain, photos)
        for name, book in books.items():
            other = score(Detector(faces=book), photos)
            print(json.dumps({"set": real, "book": name, "untaught": base, "taught": other}), flush=True)
            rows.append((f"{real}, {name}'s book", f"{len(photos)} photos", base, other))
        book, _ = FaceBook.teach(plain, photos[:args.real_teach])
        rest = photos[args.real_teach:]
        own = (score(plain, rest), score(Detector(faces=book), rest))
        print(json.dumps({"set": real, "book": f"its first {args.real_teach} photos", "untaught": own[0],
                          "taught": own[1]}), flush=True)
        rows.append((f"{real}, taught from {args.real_teach}", f"{len(rest)} photos", *own))
    if not found:
        print(json.dumps({"set": "real photos", "skipped": "set DICETABLE_DATASETS to the folder holding "
                                                           + " and ".join(REAL)}))
    print(f"{'set':40} {'taught from':12} {'untaught':>9} {'taught':>9}  (end_to_end; precision)")
    for name, what, before, after in rows:
        print(f"{name:40} {what:12} {before['end_to_end']:9.3f} {after['end_to_end']:9.3f}  "
              f"({before['precision']:.3f} -> {after['precision']:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
