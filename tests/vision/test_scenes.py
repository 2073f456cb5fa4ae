"""vision.training.scenes: training scenes with labels consistent with what is drawn, their
shares (`SceneMix`) passed as arguments, and the labelled-folder command."""
from __future__ import annotations

import json
import subprocess
import sys
import types

import cv2
import numpy as np
import pytest

from vision.colours import DEFAULT_PALETTE
from vision.training import scenes
from vision.training.scenes import SceneMix


@pytest.mark.parametrize("seed", range(12))
def test_random_scene_labels_are_inside_the_image_with_faces_of_their_dice(seed):
    scene = scenes.random_scene(np.random.default_rng(seed))
    h, w = scene.image.shape[:2]
    assert scene.image.dtype == np.uint8 and scene.image.shape[2] == 3
    assert len(scene.sides) == len(scene.labels)
    for k, ((x0, y0, x1, y1), face, colour) in enumerate(scene.labels):
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
        assert face in {6: range(1, 7), 10: range(0, 10), 20: range(1, 21)}[scene.sides_of(k)]
        assert colour in DEFAULT_PALETTE or colour == "other"


def test_some_training_scenes_hold_d10_and_d20_among_the_d6():
    rng = np.random.default_rng(4)
    kinds = [s for _ in range(60) for s in scenes.random_scene(rng, size=(640, 480)).sides]
    assert {6, 10, 20} <= set(kinds)
    assert 0.5 < kinds.count(6) / len(kinds) < 0.95
    only_d6 = [s for _ in range(20) for s in scenes.random_scene(rng, (640, 480), SceneMix(poly=0.0)).sides]
    assert set(only_d6) == {6}


def test_lookalikes_appear_only_in_their_share_of_the_scenes(monkeypatch):
    drawn = []
    real = scenes.lookalikes
    monkeypatch.setattr(scenes, "lookalikes", lambda img, rng: drawn.append(real(img, rng)))
    rng = np.random.default_rng(8)
    for _ in range(20):
        scenes.random_scene(rng, size=(320, 240))
    assert drawn == []  # the default: scenes exactly as before (older pools render alike)
    for _ in range(40):
        scenes.random_scene(rng, size=(320, 240), mix=SceneMix(lookalikes=0.5))
    assert 10 <= len(drawn) <= 30


def _fake_negatives(monkeypatch) -> list:
    """A stand-in `vision.training.negatives` module whose `negatives` paints a white square
    on the table and notes each call."""
    calls = []

    def negatives(img, rng):
        calls.append(img.shape)
        img[:20, :20] = 255.0

    monkeypatch.setitem(sys.modules, "vision.training.negatives",
                        types.SimpleNamespace(negatives=negatives, __name__="vision.training.negatives"))
    return calls


def test_hard_negatives_are_painted_on_the_table_in_their_share_of_the_scenes(monkeypatch):
    calls = _fake_negatives(monkeypatch)
    rng = np.random.default_rng(9)
    for _ in range(40):
        scenes.random_scene(rng, size=(320, 240), mix=SceneMix(negatives=0.5))
    assert 10 <= len(calls) <= 30 and set(calls) == {(240, 320, 3)}
    with_negatives = scenes.random_scene(np.random.default_rng(1), (320, 240), SceneMix(negatives=1.0))
    plain = scenes.random_scene(np.random.default_rng(1), (320, 240))
    assert not np.array_equal(with_negatives.image, plain.image)


def test_a_share_of_no_negatives_neither_imports_them_nor_changes_a_scene(monkeypatch):
    calls = _fake_negatives(monkeypatch)
    a = scenes.random_scene(np.random.default_rng(2), (320, 240), SceneMix(negatives=0.0))
    b = scenes.random_scene(np.random.default_rng(2), (320, 240))
    assert calls == [] and np.array_equal(a.image, b.image) and a.labels == b.labels
    # In a fresh interpreter, where the module may not exist at all:
    code = ("import sys, numpy as np; from vision.training import scenes; "
            "[scenes.random_scene(np.random.default_rng(i), (160, 120)) for i in range(5)]; "
            "print('vision.training.negatives' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_in_the_share_of_looks_d6_carry_numerals_and_solids_take_any_look(drawn_looks):
    for i in range(6):
        scenes.random_scene(np.random.default_rng(i), (480, 360), SceneMix(poly=1.0))
    assert drawn_looks and {n for n, _ in drawn_looks} == {10, 20}
    assert {look.material for _, look in drawn_looks} <= {"opaque", "translucent"}  # the plain looks of `draw`
    drawn_looks.clear()
    for i in range(6):
        scenes.random_scene(np.random.default_rng(i), (480, 360), SceneMix(poly=1.0, looks=1.0))
    assert {n for n, _ in drawn_looks} == {6, 10, 20} and None not in {look for _, look in drawn_looks}
    assert {look.material for _, look in drawn_looks} - {"opaque", "translucent"}  # marbled or glitter too
    plain = scenes.random_scene(np.random.default_rng(3), (320, 240), SceneMix(looks=0.0))
    assert np.array_equal(plain.image, scenes.random_scene(np.random.default_rng(3), (320, 240)).image)


def test_in_the_share_of_shapes_the_numerals_are_reshaped_and_by_default_none_is(drawn_looks):
    for i in range(6):
        scenes.random_scene(np.random.default_rng(i), (480, 360), SceneMix(poly=1.0, looks=1.0, shapes=1.0))
    assert len({look.shape for _, look in drawn_looks}) > 5
    drawn_looks.clear()
    a = scenes.random_scene(np.random.default_rng(4), (320, 240), SceneMix(poly=1.0, looks=1.0))
    assert drawn_looks and {look.shape for _, look in drawn_looks} == {(1.0, 0.0, 0.0)}  # the default share, 0
    b = scenes.random_scene(np.random.default_rng(4), (320, 240), SceneMix(poly=1.0, looks=1.0, shapes=1.0))
    assert not np.array_equal(a.image, b.image)


def test_the_mix_names_the_fonts_of_every_numeral_it_draws(drawn_looks, truetype):
    for looks in (0.0, 1.0):  # the plain looks too
        drawn_looks.clear()
        for i in range(8):
            mix = SceneMix(poly=1.0, looks=looks, truetype=(truetype[-1],))
            scenes.random_scene(np.random.default_rng(i), (480, 360), mix)
        assert {look.font for _, look in drawn_looks if look.font[0] == "ttf"} == {("ttf", truetype[-1])}, looks


def test_a_share_is_between_0_and_1():
    with pytest.raises(ValueError, match="negatives is between 0 and 1"):
        SceneMix(negatives=1.5)
    with pytest.raises(ValueError, match="poly is between 0 and 1"):
        SceneMix(poly=-0.1)
    with pytest.raises(ValueError, match="looks is between 0 and 1"):
        SceneMix(looks=2.0)
    with pytest.raises(ValueError, match="shapes is between 0 and 1"):
        SceneMix(shapes=1.5)


def _folder(tmp_path, *flags):
    out = tmp_path / "-".join(flags or ("default",))
    subprocess.run([sys.executable, "-m", "vision.training.scenes", str(out), "--n", "3", "--seed", "5", *flags],
                   check=True)
    ann = json.loads((out / "annotations.json").read_text())
    return ann, [cv2.imread(str(out / name)) for name in sorted(ann)]


def test_the_test_set_command_takes_the_shares_of_look_alikes_and_d10_d20(tmp_path):
    ann, images = _folder(tmp_path)
    assert len(images) == 3
    ann0, images0 = _folder(tmp_path, "--lookalikes", "0", "--poly-scenes", "0.3", "--negatives", "0")
    assert ann0 == ann and all(np.array_equal(a, b) for a, b in zip(images, images0))
    _, with_lookalikes = _folder(tmp_path, "--lookalikes", "1")
    assert not all(np.array_equal(a, b) for a, b in zip(images, with_lookalikes))
    only_poly, _ = _folder(tmp_path, "--poly-scenes", "1")
    assert any(len(d) == 6 for g in only_poly.values() for d in g["dice"])  # [box, face, sides]


def test_the_test_set_command_refuses_a_share_out_of_range_and_writes_nothing(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "vision.training.scenes", str(tmp_path / "x"), "--negatives", "2"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "negatives is between 0 and 1" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "x").exists()


def test_the_test_sets_and_the_training_pool_read_the_same_mix_options():
    """`scenes` and `train` take a SceneMix through the same options (`add_mix_arguments`,
    `mix_of`); only a training pool has collages."""
    import argparse

    from vision.training import scenes

    pool = argparse.ArgumentParser()
    scenes.add_mix_arguments(pool, collages=True)
    args = pool.parse_args(["--poly-scenes", "0.5", "--lookalikes", "0.1", "--negatives", "0.3", "--looks", "0.7",
                            "--glyph-shapes", "0.5", "--collages", "0.4"])
    assert scenes.mix_of(args) == scenes.SceneMix(poly=0.5, lookalikes=0.1, negatives=0.3, looks=0.7, shapes=0.5,
                                                  collages=0.4)
    with pytest.raises(ValueError, match="collages is between 0 and 1"):
        scenes.mix_of(pool.parse_args(["--collages", "1.5"]))
    test_set = argparse.ArgumentParser()
    scenes.add_mix_arguments(test_set)
    assert scenes.mix_of(test_set.parse_args([])) == scenes.SceneMix()
    assert "--collages" not in test_set.format_help() and "--collages" in pool.format_help()


@pytest.mark.parametrize("module", ["vision.training.scenes", "vision.training.onedie"])
def test_a_render_command_refuses_a_font_it_cannot_load_and_writes_nothing(tmp_path, module):
    bad = subprocess.run([sys.executable, "-m", module, str(tmp_path / "x"), "--n", "1",
                          "--fonts", "NoSuchFace-Bold.ttf"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--fonts: Pillow cannot load NoSuchFace-Bold.ttf" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "x").exists()


def test_a_keyboard_is_a_grid_of_keys_with_glyphs_and_no_labels():
    rng = np.random.default_rng(2)
    img = np.full((480, 640, 3), 128.0, np.float32)
    scenes.keyboard(img, rng)
    changed = np.abs(img - 128.0).max(axis=2) > 10
    assert img.dtype == np.float32 and changed.sum() > 0.02 * changed.size
    # Caps and glyphs: many distinct edges, not one flat slab.
    assert np.abs(np.diff(img.mean(axis=2), axis=1)).max() > 40


def test_a_label_is_a_small_printed_patch():
    rng = np.random.default_rng(1)
    img = np.full((480, 640, 3), 60.0, np.float32)
    scenes.label(img, rng)
    changed = np.abs(img - 60.0).max(axis=2) > 10
    assert 0 < changed.sum() < 0.2 * changed.size


def test_random_scenes_cover_small_and_large_dice_and_crowds():
    rng = np.random.default_rng(3)
    sides = []
    counts = []
    for _ in range(40):
        scene = scenes.random_scene(rng, size=(640, 480))
        counts.append(len(scene.labels))
        sides += [max(b[2] - b[0], b[3] - b[1]) for b, _, _ in scene.labels]
    assert min(sides) < 30 and max(sides) > 100
    assert max(counts) >= 10


def test_a_die_off_the_middle_of_a_scene_mostly_shows_the_sides_facing_the_middle(monkeypatch):
    # Seen from above the middle, a die's top lies further out than its foot; a pip d6's
    # `tilt` (where its sides show) points at the middle, give or take the camera's own
    # tilt and the oblique scenes' view.
    tilts = []
    real = scenes.draw_die

    def draw_die(img, quad, face, style, rng, tilt=None):
        if tilt is not None:
            tilts.append((img.shape, quad.mean(0), tilt))
        return real(img, quad, face, style, rng, tilt)

    monkeypatch.setattr(scenes, "draw_die", draw_die)
    for seed in range(30):
        scenes.random_scene(np.random.default_rng(seed), size=(640, 480), mix=SceneMix(poly=0.0))
    inward = []
    for (h, w, _), (cx, cy), tilt in tilts:
        towards_middle = np.array([w / 2 - cx, h / 2 - cy])
        if np.hypot(*towards_middle) > 0.3 * w and np.hypot(*tilt) > 0:
            inward.append(float(tilt @ towards_middle) / np.hypot(*tilt) / np.hypot(*towards_middle))
    assert len(inward) > 30 and np.median(inward) > 0.5
