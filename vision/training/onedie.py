"""One die at a time, top-down on a dark tray: the scene of the real d10/d20 check (issue 26).

`scene(rng)` draws one die, a numbered d6 (`vision.polyhedra`, digits 1-6), a pip d6
(`vision.synth.draw_die`), a d10 or a d20 (`vision.polyhedra`, every material, font and
inking of `polyhedra.random_look`), seen from above by a camera over the frame's middle (a
die off the middle is seen at an angle, the sides that face the middle showing; the whole
view tilted by up to 12 degrees more), with a soft shadow, on a dark felt tray with dust,
lint and white specks (`vision.training.negatives`), sometimes a coin, button or token
beside it, in a 12 MP phone photo (4032x3024, 4000x3000, upright or not) or a webcam frame
(640x480 to 1920x1080), under uneven light, with blur, noise and JPEG artefacts
(`vision.training.scenes.degrade`). The die spans 3.5-20% of a photo's longer side,
6-25% of a webcam frame's. `--rigs` puts a share of the dice on a rolling rig's round
platform instead, seen by a webcam at the platform's angle, mostly under a glass dome.

    python -m vision.training.onedie DATA/onedie_test --n 160 --seed 2611
    python -m vision.training.onedie runs/onedie_train --n 600 --seed 1 --photo-scale 0.33
    python -m vision.training.onedie runs/onedie_rig --n 200 --seed 3 --rigs 1

writes such scenes as a labelled folder (JPEG images + annotations.json: boxes around the
whole die, its face and, for a d10 or a d20, its sides) for `dicetable evaluate` or as
a training folder (`python -m vision.training.train --real FOLDER`). Image i of a folder
is drawn from the seed (seed, i): the held-out test set's seed 2611 is used by no training
run. `--photo-scale` draws the 12 MP frames smaller (training needs no 36 MB frames: the
detector sees a photo at 384 px and the classifier a 48 px crop).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from vision import polyhedra
from vision.synth import _quad, draw_die
from vision.training import negatives
from vision.training.scenes import Scene, add_fonts_argument, clipped_box, degrade, random_style

#: The dice of the check, drawn in equal shares.
KINDS = ("d6-numbered", "d6-pips", "d10", "d20")
PHOTOS = ((4032, 3024), (3024, 4032), (4000, 3000))
WEBCAMS = ((640, 480), (1280, 720), (1920, 1080), (800, 600))
#: The die's extent as a share of the frame's longer side (log-uniform between): in a photo,
#: and in a webcam's frame (a webcam is nearer the tray).
EXTENT = {"photo": (0.035, 0.2), "webcam": (0.06, 0.25)}
#: A camera's focal length in its frame's longer side: a phone's main camera (26 mm
#: equivalent) or a webcam of about 70 degrees across.
FOCAL = 0.72
#: Inks of dice with numerals: white, black, gold, silver, red.
INKS = ((240, 240, 240), (20, 20, 20), (40, 170, 215), (200, 200, 200), (35, 35, 190))


def _colours(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A die body and an ink that reads on it."""
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(25, 256)]]])
    body = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    lum = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    for _ in range(10):
        ink = INKS[int(rng.integers(len(INKS)))]
        if abs(0.114 * ink[0] + 0.587 * ink[1] + 0.299 * ink[2] - lum) > 60:
            break
    else:
        ink = (245, 245, 245) if lum < 128 else (15, 15, 15)
    return body, ink


def _light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp's uneven light: a gradient, a vignette, a gain and a slight colour cast."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    f = 1 + rng.uniform(0, 0.35) * ((xx / w - 0.5) * math.cos(ang) + (yy / h - 0.5) * math.sin(ang))
    f -= rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    f = cv2.resize(f, (w, h), interpolation=cv2.INTER_LINEAR)
    cast = rng.uniform(0.9, 1.1, 3).astype(np.float32) * rng.uniform(0.7, 1.3)
    return img * f[..., None] * cast


def _lean(dx: float, dy: float, frame: float, rng: np.random.Generator) -> tuple[float, float]:
    """How a die (dx, dy) px from the middle of a `frame` px wide photo is seen: a camera
    above the middle sees it at atan(distance / focal length) from overhead (`FOCAL`), its
    top further out than its foot and the sides that face the middle showing (as the roofs
    of tall buildings lean outwards in an aerial photo), and the hand or the stand tilts
    the whole view by up to 12 degrees. As (degrees, direction) for `polyhedra.draw` and
    the pip d6's tilt: the direction in which the sides show."""
    off = max(1e-6, math.hypot(dx, dy))
    radial = math.degrees(math.atan(off / (FOCAL * frame)))
    hand, turn = rng.uniform(0, 12), rng.uniform(0, 2 * math.pi)
    x = -radial * dx / off + hand * math.cos(turn)
    y = -radial * dy / off + hand * math.sin(turn)
    return float(math.hypot(x, y)), float(math.atan2(y, x))


def scene(rng: np.random.Generator, kind: str | None = None, size: tuple[int, int] | None = None,
          photo_scale: float = 1.0, rig: bool = False, extent: tuple[float, float] | None = None,
          shapes: float = 0.0, truetype: tuple[str, ...] = polyhedra.TRUETYPE) -> Scene:
    """One die of `kind` (one of `KINDS`; default drawn) on a dark tray in a `size` (w, h)
    frame (default: a 12 MP photo or a webcam frame, even odds; photos drawn at
    `photo_scale` of their size), spanning a share of the frame's longer side drawn
    log-uniformly from `extent` (default `EXTENT` of the camera). With `rig`, the die lies
    on a rolling rig's round platform seen by a webcam at the platform's angle, mostly under
    a glass dome. A share `shapes` of the numbered dice have their numerals reshaped
    (`vision.polyhedra.reshaped`; 0 draws no random number for it), in one of the TrueType
    fonts `truetype` that Pillow finds or a Hershey font."""
    kind = kind or KINDS[int(rng.integers(len(KINDS)))]
    if kind not in KINDS:
        raise ValueError(f"a one-die scene shows one of {', '.join(KINDS)}, got {kind!r}")
    if size is None:
        if rng.random() < 0.5:
            w, h = PHOTOS[int(rng.integers(len(PHOTOS)))]
            size = (int(round(w * photo_scale)), int(round(h * photo_scale)))
        else:
            size = WEBCAMS[int(rng.integers(len(WEBCAMS)))]
    if rig:
        size = WEBCAMS[int(rng.integers(len(WEBCAMS)))]
    w, h = size
    camera = "webcam" if tuple(size) in WEBCAMS else "photo"
    img = negatives.dark_tray(rng, h, w)
    negatives.specks(img, rng, int(rng.integers(5, 120)))
    if rng.random() < 0.15:
        (negatives.coins if rng.random() < 0.5 else negatives.buttons)(img, rng)
    if rig:
        pcx, pcy, r, squash, turn = where = negatives.platform(img, rng)
        extent = min(2 * r * rng.uniform(0.12, 0.3), 0.8 * min(w, h))
        t, d = rng.uniform(0, 2 * math.pi), rng.uniform(0, 0.45) * r
        cx = float(np.clip(pcx + d * math.cos(t), 0.6 * extent, w - 0.6 * extent))
        cy = float(np.clip(pcy + d * squash * math.sin(t), 0.6 * extent, h - 0.6 * extent))
        lean = (math.degrees(math.acos(squash)), math.radians(turn) + math.pi / 2)
    else:
        extent = max(w, h) * math.exp(rng.uniform(*np.log(extent or EXTENT[camera])))
        extent = min(extent, 0.8 * min(w, h))
        cx = rng.uniform(0.6 * extent, w - 0.6 * extent)
        cy = rng.uniform(0.6 * extent, h - 0.6 * extent)
        lean = _lean(cx - w / 2, cy - h / 2, max(w, h), rng)
    if kind == "d6-pips":
        sides, face = 6, int(rng.integers(1, 7))
        style, colour = random_style(rng)
        side = extent / rng.uniform(1.05, 1.35)  # a turned square spans more than its side
        quad = _quad(cx, cy, side, rng.uniform(0, 90))
        view = np.array([math.cos(lean[1]), math.sin(lean[1])], np.float32)
        along = (quad - np.array([cx, cy], np.float32)) @ view  # the top foreshortened along the view
        quad = quad - (1 - math.cos(math.radians(lean[0]))) * along[:, None] * view[None]
        tilt = view * side * math.sin(math.radians(lean[0]))
        shadow = np.zeros((h, w), np.float32)
        off = rng.uniform(-0.12, 0.12, 2) * side
        cv2.fillConvexPoly(shadow, np.round(quad + off).astype(np.int32), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, side * rng.uniform(0.04, 0.1)))
        img *= (1 - rng.uniform(0.2, 0.6) * shadow)[..., None]
        pts = draw_die(img, quad, face, style, rng, tilt)
    else:
        sides = {"d6-numbered": 6, "d10": 10, "d20": 20}[kind]
        face = int(rng.choice(polyhedra.values(sides)))
        body, ink = _colours(rng)
        colour = "other"
        look = polyhedra.reshaped(polyhedra.random_look(rng, truetype=truetype), rng, shapes)
        pts = polyhedra.draw(img, sides, face, cx, cy, extent, body, ink, rng, lean=lean,
                             look=look, shadow=float(rng.uniform(0.2, 0.6)))
    if rig and rng.random() < 0.75:
        negatives.dome(img, rng, *where)
    img = _light(img, rng)
    image = degrade(img, rng)
    box = clipped_box(np.asarray(pts, np.float32), w, h)
    labels = [(box, face, colour)] if box is not None else []
    return Scene(image, labels, [sides] if box is not None else [])


def write_folder(folder, n: int, seed: int, photo_scale: float = 1.0, kinds: tuple[str, ...] = KINDS,
                 rigs: float = 0.0, frame: tuple[int, int] | None = None,
                 extent: tuple[float, float] | None = None, shapes: float = 0.0,
                 truetype: tuple[str, ...] = polyhedra.TRUETYPE) -> None:
    """Write `n` one-die scenes (image i from the seed (seed, i); the kinds in turn; a share
    `rigs` on a rolling rig; `frame`, `extent`, `shapes` and `truetype` as `scene`'s `size`,
    `extent`, `shapes` and `truetype`) as a labelled folder: JPEG images, as a phone or a
    webcam writes them, and annotations.json."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    ann = {}
    for i in range(n):
        rng = np.random.default_rng((seed, i))
        on_rig = rigs > 0 and np.random.default_rng((seed, i, 1)).random() < rigs
        sc = scene(rng, kinds[i % len(kinds)], size=frame, photo_scale=photo_scale, rig=on_rig, extent=extent,
                   shapes=shapes, truetype=truetype)
        name = f"onedie_{seed}_{i:04d}.jpg"
        cv2.imwrite(str(out / name), sc.image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(85, 96))])
        h, w = sc.image.shape[:2]
        ann[name] = {"width": w, "height": h,
                     "dice": [[round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1), f]
                              + ([] if sc.sides_of(k) == 6 else [sc.sides_of(k)])
                              for k, (b, f, _) in enumerate(sc.labels)]}
    with open(out / "annotations.json", "w") as f:
        json.dump(ann, f, indent=1)


def _pair(kind, sep: str):
    """An argparse type: two numbers of `kind` joined by `sep` ("320x320", "0.2,0.6")."""
    def parse(text: str):
        try:
            a, b = (kind(v) for v in text.split(sep))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected two numbers joined by {sep!r}, got {text!r}") from None
        return a, b
    return parse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.onedie",
                                 description="Write one-die dark-tray scenes (numbered d6, pip d6, d10, d20) "
                                             "as a labelled folder.")
    ap.add_argument("folder")
    ap.add_argument("--n", type=int, default=160, help="images (default 160)")
    ap.add_argument("--seed", type=int, default=2611, help="default 2611: the held-out test set")
    ap.add_argument("--photo-scale", type=float, default=1.0,
                    help="draw the 12 MP frames at this share of their size (default 1)")
    ap.add_argument("--rigs", type=float, default=0.0,
                    help="share of the scenes on a rolling rig's platform, seen at an angle (default 0)")
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)} (default all)")
    ap.add_argument("--frame", type=_pair(int, "x"), metavar="WxH",
                    help="every frame this size (default: a 12 MP photo or a webcam frame); close-ups for the "
                         "numeral reader: 320x320")
    ap.add_argument("--extent", type=_pair(float, ","), metavar="LO,HI",
                    help="the die spans LO-HI of the frame's longer side (default: by camera, "
                         + ", ".join(f"{k} {lo:g}-{hi:g}" for k, (lo, hi) in EXTENT.items()) + ")")
    ap.add_argument("--glyph-shapes", type=float, default=0.0, metavar="SHARE",
                    help="share of the numbered dice whose numerals are drawn narrower or wider, slanted, "
                         "thinner or bolder than their font (vision.polyhedra.reshaped; default 0)")
    add_fonts_argument(ap)
    a = ap.parse_args(argv)
    kinds = tuple(k for k in a.kinds.split(",") if k)
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        ap.error(f"--kinds: {', '.join(bad) or 'none given'}; the kinds are {', '.join(KINDS)}")
    if a.n < 1 or not 0.05 <= a.photo_scale <= 1.0 or not 0.0 <= a.rigs <= 1.0 or not 0.0 <= a.glyph_shapes <= 1.0:
        ap.error("--n is at least 1, --photo-scale between 0.05 and 1, --rigs and --glyph-shapes between 0 and 1")
    if a.frame and min(a.frame) < 64:
        ap.error("--frame is at least 64x64")
    if a.extent and not 0.01 <= a.extent[0] <= a.extent[1] <= 0.8:
        ap.error("--extent LO,HI: 0.01 <= LO <= HI <= 0.8")
    write_folder(a.folder, a.n, a.seed, a.photo_scale, kinds, a.rigs, a.frame, a.extent, a.glyph_shapes,
                 a.fonts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
