"""vision.training.negatives: hard negatives painted on a table, and the one-die scenes."""
from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from vision import polyhedra
from vision.training import negatives, onedie


def test_negatives_paint_something_in_place_and_only_paint():
    for seed in range(8):
        img = np.full((240, 320, 3), 128.0, np.float32)
        before = img.copy()
        assert negatives.negatives(img, np.random.default_rng(seed)) is None
        assert img.shape == (240, 320, 3) and img.dtype == np.float32
        assert np.abs(img - before).max() > 30, seed  # something was painted
        assert np.isfinite(img).all()


def test_a_dark_tray_is_dark_and_its_specks_are_small_and_bright():
    rng = np.random.default_rng(3)
    tray = negatives.dark_tray(rng, 480, 640)
    assert tray.shape == (480, 640, 3) and np.median(tray) < 110
    img = tray.copy()
    negatives.specks(img, rng, 40)
    bright = (img.max(2) - tray.max(2)) > 60
    assert bright.any()
    n, _, stats, _ = cv2.connectedComponentsWithStats(bright.astype(np.uint8))
    assert n > 5 and np.median(stats[1:, cv2.CC_STAT_AREA]) < 60  # specks, not dice


@pytest.mark.parametrize("paint", [negatives.rig, negatives.coins, negatives.buttons, negatives.counters])
def test_each_kind_of_negative_paints_the_table(paint):
    img = np.full((300, 400, 3), 60.0, np.float32)
    paint(img, np.random.default_rng(1))
    assert (np.abs(img - 60).max(2) > 20).mean() > 0.001


def test_negatives_refuse_an_image_they_cannot_paint():
    with pytest.raises(ValueError, match="float32 BGR"):
        negatives.negatives(np.zeros((10, 10, 3), np.uint8), np.random.default_rng(0))


@pytest.mark.parametrize("kind", onedie.KINDS)
def test_a_one_die_scene_holds_one_labelled_die_of_its_kind(kind):
    sc = onedie.scene(np.random.default_rng((7, onedie.KINDS.index(kind))), kind, size=(640, 480))
    assert sc.image.shape == (480, 640, 3) and sc.image.dtype == np.uint8
    (box, face, _), = sc.labels
    sides = {"d6-numbered": 6, "d6-pips": 6, "d10": 10, "d20": 20}[kind]
    assert sc.sides == [sides] and face in {6: range(1, 7), 10: range(0, 10), 20: range(1, 21)}[sides]
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
    grey = sc.image.astype(np.float32).mean(2)
    inside = grey[y0:y1, x0:x1]
    ring = np.concatenate([grey[max(0, y0 - 8):y0].ravel(), grey[y1:y1 + 8].ravel()])
    assert np.abs(np.median(inside) - np.median(ring)) > 5 or inside.std() > 2 * ring.std()  # a die is there


def test_a_one_die_scene_reshapes_its_numerals_only_when_asked():
    def image(**kw):
        return onedie.scene(np.random.default_rng(11), "d20", size=(640, 480), **kw).image
    assert not np.array_equal(image(), image(shapes=1.0))


def test_a_one_die_scene_draws_its_numerals_in_the_fonts_it_is_given(drawn_looks, truetype):
    for i in range(12):
        onedie.scene(np.random.default_rng(i), "d10", size=(320, 240), truetype=(truetype[0],))
    assert {look.font for _, look in drawn_looks if look.font[0] == "ttf"} == {("ttf", truetype[0])}


def test_a_one_die_folder_is_labelled_for_evaluate(tmp_path):
    onedie.write_folder(tmp_path, 4, seed=5, photo_scale=0.1)
    ann = json.loads((tmp_path / "annotations.json").read_text())
    assert len(ann) == 4
    for name, entry in ann.items():
        img = cv2.imread(str(tmp_path / name))
        assert img.shape[:2] == (entry["height"], entry["width"])
        (die,) = entry["dice"]
        assert len(die) in (5, 6) and (len(die) == 5 or die[5] in (10, 20))
    again = tmp_path / "again"
    onedie.write_folder(again, 4, seed=5, photo_scale=0.1)
    assert json.loads((again / "annotations.json").read_text()) == ann  # the seed fixes the folder


def test_the_folder_writer_refuses_an_unknown_kind(capsys):
    with pytest.raises(SystemExit):
        onedie.main(["unused", "--kinds", "d8"])
    assert "d8" in capsys.readouterr().err


def test_a_die_on_a_rig_lies_on_the_platform_in_a_webcam_frame():
    for i, kind in enumerate(onedie.KINDS):
        sc = onedie.scene(np.random.default_rng((11, i)), kind, rig=True)
        assert (sc.image.shape[1], sc.image.shape[0]) in onedie.WEBCAMS
        if sc.labels:  # a die near the frame's edge may be cut off and left out
            (x0, y0, x1, y1), _, _ = sc.labels[0]
            assert x1 - x0 > 8 and y1 - y0 > 8


def test_a_close_up_frame_holds_a_die_of_the_asked_extent(tmp_path):
    for i, kind in enumerate(onedie.KINDS):
        sc = onedie.scene(np.random.default_rng((13, i)), kind, size=(320, 320), extent=(0.4, 0.5))
        assert sc.image.shape[:2] == (320, 320)
        (x0, y0, x1, y1), _, _ = sc.labels[0]
        # A die's box: a little under its extent, or over it by the sides seen off the middle.
        assert 0.3 * 320 < max(x1 - x0, y1 - y0) < 0.7 * 320
    onedie.main([str(tmp_path), "--n", "2", "--frame", "200x120", "--extent", "0.2,0.3", "--kinds", "d20"])
    ann = json.loads((tmp_path / "annotations.json").read_text())
    assert {(e["width"], e["height"]) for e in ann.values()} == {(200, 120)}


@pytest.mark.parametrize("args", [["--frame", "20x20"], ["--frame", "320"], ["--extent", "0.5,0.2"],
                                  ["--extent", "0.9,0.95"]])
def test_the_folder_writer_refuses_a_frame_or_extent_it_cannot_draw(args, capsys):
    with pytest.raises(SystemExit):
        onedie.main(["unused"] + args)
    assert args[0] in capsys.readouterr().err


def test_a_die_off_the_middle_of_a_photo_shows_the_sides_facing_the_middle(monkeypatch):
    # A camera above the frame's middle sees a die near the edge at an angle, the sides
    # that face the middle showing; only the hand's tilt (at most 12 degrees) is free.
    seen = []
    real = polyhedra.draw

    def draw(img, sides, value, cx, cy, size, *a, lean=(0.0, 0.0), **k):
        seen.append((img.shape, cx, cy, lean))
        return real(img, sides, value, cx, cy, size, *a, lean=lean, **k)

    monkeypatch.setattr(polyhedra, "draw", draw)
    for i in range(40):
        onedie.scene(np.random.default_rng((13, i)), "d20", size=(640, 480))
    far = 0
    for (h, w, _), cx, cy, (deg, direction) in seen:
        dx, dy = cx - w / 2, cy - h / 2
        radial = math.degrees(math.atan(math.hypot(dx, dy) / (onedie.FOCAL * max(w, h))))
        assert radial - 12 - 1e-6 <= deg <= radial + 12 + 1e-6
        if radial > 20:
            far += 1
            inward = -(math.cos(direction) * dx + math.sin(direction) * dy) / math.hypot(dx, dy)
            assert inward > math.cos(math.radians(40))
    assert far >= 5
