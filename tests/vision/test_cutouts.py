"""Real dice cut out of a plain tray and laid on rendered tables (`vision.training.cutouts`)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import synth
from vision.evaluate import iou
from vision.training import cutouts, scenes

FIXTURES = Path(__file__).parent.parent / "fixtures" / "byler"


def _tray_with_die(colour: str, angle: float):
    """A light grey tray with one die of `colour` drawn on it, its box and its true outline."""
    img = np.empty((240, 320, 3), np.float32)
    img[:] = (185, 190, 192)
    img += cv2.GaussianBlur(np.random.default_rng(1).standard_normal((240, 320)).astype(np.float32), (0, 0), 1)[..., None] * 3
    quad = synth._quad(160, 120, 60, angle)
    pts = synth.draw_die(img, quad, 3, synth._table_style(colour), np.random.default_rng(2))
    truth = np.zeros((240, 320), np.uint8)
    cv2.fillConvexPoly(truth, np.round(cv2.convexHull(pts)).astype(np.int32), 1)
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    return np.clip(img, 0, 255).astype(np.uint8), (x0, y0, x1, y1), truth


@pytest.mark.parametrize("colour,angle", [("red", 0), ("blue", 30), ("black", 45), ("white", 20)])
def test_a_die_is_cut_out_of_its_tray_and_not_the_tray_around_it(colour, angle):
    image, box, truth = _tray_with_die(colour, angle)
    c = cutouts.cut(image, box, 3)
    assert c is not None and c.face == 3 and c.sides == 6
    m = max(2, int(max(box[2] - box[0], box[3] - box[1]) * 0.15))
    x0, y0 = max(int(round(box[0])) - m, 0), max(int(round(box[1])) - m, 0)
    t = truth[y0:y0 + c.alpha.shape[0], x0:x0 + c.alpha.shape[1]].astype(bool)
    a = c.alpha > 0.5
    overlap = (a & t).sum() / (a | t).sum()
    assert overlap > 0.8, f"{colour} die cut with IoU {overlap:.2f} against its outline"


def test_a_box_at_the_photos_edge_or_too_small_is_not_cut():
    image, _, _ = _tray_with_die("red", 0)
    assert cutouts.cut(image, (0, 50, 60, 110), 3) is None
    assert cutouts.cut(image, (100, 100, 108, 108), 3) is None


def test_every_die_of_the_real_fixture_photos_is_cut():
    gt = json.loads((FIXTURES / "annotations.json").read_text())
    n = cut = 0
    for name, g in gt.items():
        image = cv2.imread(str(FIXTURES / name))
        for d in g["dice"]:
            n += 1
            c = cutouts.cut(image, d[:4], int(d[4]))
            if c is not None:
                cut += 1
                area = (d[2] - d[0]) * (d[3] - d[1])
                assert 0.3 * area <= (c.alpha > 0.5).sum() <= 1.05 * area
    assert n and cut >= 0.9 * n


def test_every_die_laid_on_a_table_is_labelled_with_a_box_that_hugs_it(monkeypatch):
    # A grey table, no light or camera faults: what is saturated is a die.
    monkeypatch.setattr(scenes, "background", lambda rng, h, w, kind=None: np.full((h, w, 3), 128, np.float32))
    monkeypatch.setattr(scenes, "_lighting", lambda img, rng: img)
    monkeypatch.setattr(scenes, "degrade", lambda img, rng: np.clip(img, 0, 255).astype(np.uint8))
    patch = np.zeros((50, 50, 3), np.float32)
    patch[:] = (0, 0, 255)
    alpha = np.zeros((50, 50), np.float32)
    alpha[10:40, 10:40] = 1
    die = cutouts.Cutout(patch, alpha, 4)
    for seed in range(8):
        scene = cutouts.collage([die], np.random.default_rng(seed), (640, 480))
        hsv = cv2.cvtColor(scene.image, cv2.COLOR_BGR2HSV)
        n, _, stats, _ = cv2.connectedComponentsWithStats((hsv[..., 1] > 120).astype(np.uint8))
        blobs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 20]
        assert len(blobs) == len(scene.labels) > 0
        assert all(face == 4 for _, face, _ in scene.labels) and scene.sides == [6] * len(scene.labels)
        for s in blobs:
            bx = (s[0], s[1], s[0] + s[2], s[1] + s[3])
            best = max(scene.labels, key=lambda lb: iou(lb[0], bx))
            assert iou(best[0], bx) > 0.7



def test_a_test_set_of_real_dice_on_rendered_tables_from_a_labelled_folder(tmp_path):
    """`python -m vision.training.scenes --collages-of FOLDER:val`: the dice of that split only,
    cut out and laid on rendered tables, written as a labelled folder."""
    gt = json.loads((FIXTURES / "annotations.json").read_text())
    assert len(cutouts.cut_folder(FIXTURES)) >= 0.9 * sum(len(g["dice"]) for g in gt.values())
    assert cutouts.cut_folder(FIXTURES, "val") == []  # three photos: none is the 5th
    out = tmp_path / "collages"
    subprocess.run([sys.executable, "-m", "vision.training.scenes", str(out), "--n", "2", "--seed", "3",
                    "--collages-of", str(FIXTURES)], check=True)
    ann = json.loads((out / "annotations.json").read_text())
    assert len(ann) == 2 and all(g["dice"] for g in ann.values())
    bad = subprocess.run([sys.executable, "-m", "vision.training.scenes", str(tmp_path / "x"), "--collages-of",
                          f"{FIXTURES}:val"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no die" in bad.stderr
