"""vision.polyhedra: the numbered d6, d10 and d20 solids and their drawing."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import polyhedra


@pytest.mark.parametrize("sides", [6, 10, 20])
def test_the_solids_are_closed_with_flat_faces_numbered_once(sides):
    v, faces, normals, printed = polyhedra.solid(sides)
    assert len(faces) == sides
    assert sorted(printed) == list(polyhedra.values(sides))
    edges = {frozenset((f[i], f[(i + 1) % len(f)])) for f in faces for i in range(len(f))}
    assert len(v) - len(edges) + len(faces) == 2  # Euler: a closed solid
    for f, n in zip(faces, normals):
        pts = v[list(f)]
        assert np.abs((pts - pts[0]) @ n).max() < 1e-9  # every face is flat (a d10's kites too)
        assert n @ pts.mean(0) > 0  # normals point out


@pytest.mark.parametrize("sides,total", [(6, 7), (10, 9), (20, 21)])
def test_opposite_faces_sum_as_on_real_dice(sides, total):
    _, _, normals, printed = polyhedra.solid(sides)
    for i, n in enumerate(normals):
        j = int(np.argmin(normals @ n))
        assert printed[i] + printed[j] == total


@pytest.mark.parametrize("sides", [6, 10, 20])
def test_a_drawn_die_shows_its_value_and_stays_in_its_box(sides):
    def render(value, seed=1):
        img = np.full((120, 120, 3), 90.0, np.float32)
        pts = polyhedra.draw(img, sides, value, 60, 60, 80, (40, 40, 190), (240, 240, 240), np.random.default_rng(seed))
        return img, pts

    a, pts = render(polyhedra.values(sides)[1])
    b, _ = render(polyhedra.values(sides)[2])
    assert np.ptp(pts, axis=0).max() == pytest.approx(80, abs=0.5)
    changed = np.argwhere(np.abs(a - 90).max(2) > 1)
    assert changed.min(0).min() >= 60 - 42 and changed.max(0).max() <= 60 + 42
    centre = (slice(45, 75), slice(45, 75))
    assert np.abs(a[centre] - b[centre]).max() > 60  # another number on the top face


def test_a_value_the_die_does_not_carry_is_refused():
    img = np.zeros((50, 50, 3), np.float32)
    with pytest.raises(ValueError, match="d10 shows 0-9"):
        polyhedra.draw(img, 10, 10, 25, 25, 30, (0, 0, 200), (255, 255, 255), np.random.default_rng(0))
    with pytest.raises(ValueError, match="6, 10 or 20 sides"):
        polyhedra.values(8)


def _drawn(sides, value, look, seed=2, shadow=0.0):
    img = np.full((160, 160, 3), 40.0, np.float32)
    polyhedra.draw(img, sides, value, 80, 80, 90, (40, 40, 190), (240, 240, 240), np.random.default_rng(seed),
                   look=look, shadow=shadow)
    return img


@pytest.mark.parametrize("field,values", [("material", ["opaque", "translucent", "marbled", "glitter"]),
                                          ("inking", ["printed", "engraved", "bare"]),
                                          ("six_nine", ["underline", "dot", "plain"])])
def test_each_look_draws_a_die_of_its_own(field, values):
    base = polyhedra.Look(font=polyhedra.fonts()[0])
    extra = {"translucent": {"alpha": 0.5}, "marbled": {"vein": (200, 200, 40)}, "glitter": {"sparkle": 0.05}}
    images = [_drawn(20, 9, polyhedra.Look(**{**base.__dict__, field: v, **extra.get(v, {})})) for v in values]
    for i in range(len(images)):
        for j in range(i + 1, len(images)):
            assert np.abs(images[i] - images[j]).max() > 40, (values[i], values[j])


def test_a_translucent_die_lets_the_table_show_through():
    img = np.zeros((160, 160, 3), np.float32)
    img[:, 80:] = 250.0  # half the table white
    clear = img.copy()
    look = polyhedra.Look(material="translucent", alpha=0.3, font=polyhedra.fonts()[-1])
    polyhedra.draw(clear, 10, 3, 80, 80, 120, (40, 40, 190), (240, 240, 240), np.random.default_rng(0), look=look)
    opaque = img.copy()
    polyhedra.draw(opaque, 10, 3, 80, 80, 120, (40, 40, 190), (240, 240, 240), np.random.default_rng(0),
                   look=polyhedra.Look(font=polyhedra.fonts()[-1]))
    left, right = (slice(70, 90), slice(45, 60)), (slice(70, 90), slice(100, 115))
    assert clear[right].mean() - clear[left].mean() > 30 + opaque[right].mean() - opaque[left].mean()


def test_a_shadow_darkens_the_table_beside_the_die_only_when_asked():
    look = polyhedra.Look(font=polyhedra.fonts()[0])
    plain, shaded = _drawn(6, 2, look), _drawn(6, 2, look, shadow=0.8)
    assert (shaded <= plain + 1e-3).all() and (plain - shaded).max() > 10


def test_every_font_writes_every_numeral():
    for font in polyhedra.fonts():
        for text in ("1", "6", "10", "20"):
            patch = polyhedra._number_patch(text, font, "underline")
            assert patch.shape == (64, 64) and 0.03 < patch.mean() < 0.5, (font, text)
    assert any(f[0] == "hershey" for f in polyhedra.fonts())  # always there, whatever Pillow finds


def test_random_looks_cover_the_materials_and_plain_looks_stay_plain():
    rng = np.random.default_rng(0)
    assert {polyhedra.random_look(rng).material for _ in range(200)} == set(polyhedra.MATERIALS)
    assert {polyhedra.random_look(rng, plain=True).material for _ in range(50)} == {"opaque"}
    assert {polyhedra.random_look(rng, 0.5, plain=True).material for _ in range(50)} == {"translucent"}


def test_a_font_pillow_cannot_load_is_refused_by_name():
    found = [f[1] for f in polyhedra.fonts() if f[0] == "ttf"]  # named with it, and not refused
    with pytest.raises(ValueError, match=r"cannot load NoSuchFace-Bold\.ttf \("):
        polyhedra.named_fonts(", ".join([*found, "NoSuchFace-Bold.ttf"]))
    with pytest.raises(ValueError, match="no font named"):
        polyhedra.named_fonts(" , ")


def test_named_fonts_are_the_only_truetype_a_look_draws(truetype):
    named = polyhedra.named_fonts(f" {truetype[-1]} ")
    assert named == (truetype[-1],)
    rng = np.random.default_rng(0)
    drawn = {polyhedra.random_look(rng, truetype=named).font for _ in range(300)}
    assert {f for f in drawn if f[0] == "ttf"} == {("ttf", truetype[-1])}
    assert {f[0] for f in drawn} == {"ttf", "hershey"}


def _ink_box(patch: np.ndarray) -> tuple[int, int]:
    ys, xs = np.nonzero(patch > 0.5)
    return xs.max() - xs.min() + 1, ys.max() - ys.min() + 1


def test_reshaped_numerals_are_narrower_slanted_or_bolder_and_never_broken():
    font = polyhedra.fonts()[0]
    plain = polyhedra._number_patch("5", font, "plain")
    wide = polyhedra._number_patch("5", font, "plain", (1.18, 0.0, 0.0))
    narrow = polyhedra._number_patch("5", font, "plain", (0.72, 0.0, 0.0))
    assert _ink_box(narrow)[0] < _ink_box(plain)[0] < _ink_box(wide)[0]
    bold = polyhedra._number_patch("5", font, "plain", (1.0, 0.0, max(polyhedra.WEIGHTS)))
    assert (bold > 0.5).sum() > 1.2 * (plain > 0.5).sum()
    # Slanted right: the ink's top row sits further right than its bottom row, beyond the plain one's.
    def lean(p):
        ys, xs = np.nonzero(p > 0.5)
        return xs[ys <= ys.min() + 3].mean() - xs[ys >= ys.max() - 3].mean()
    assert lean(polyhedra._number_patch("1", font, "plain", (1.0, max(polyhedra.SLANTS), 0.0))) > \
        lean(polyhedra._number_patch("1", font, "plain")) + 3
    # The thinnest step leaves every font's strokes whole: one piece of ink for a 1 and a 7.
    for f in polyhedra.fonts():
        for text in ("1", "7"):
            thin = polyhedra._number_patch(text, f, "plain", (1.0, 0.0, min(polyhedra.WEIGHTS)))
            pieces, _ = cv2.connectedComponents((thin > 0.3).astype(np.uint8))
            assert pieces == 2, (f, text)


def test_reshaped_draws_every_step_and_keeps_the_rest_of_the_look():
    rng = np.random.default_rng(0)
    look = polyhedra.random_look(rng)
    shapes = {polyhedra.reshaped(look, rng).shape for _ in range(400)}
    assert {s[0] for s in shapes} == set(polyhedra.WIDTHS) and {s[1] for s in shapes} == set(polyhedra.SLANTS)
    assert {s[2] for s in shapes} == set(polyhedra.WEIGHTS)
    assert polyhedra.reshaped(look, rng).font == look.font and look.shape == (1.0, 0.0, 0.0)


def test_reshaped_takes_its_share_of_the_looks_and_a_share_of_0_draws_nothing():
    look = polyhedra.Look(font=polyhedra.fonts()[0])
    rng = np.random.default_rng(1)
    assert polyhedra.reshaped(look, rng, 0.0) is look and rng.random() == np.random.default_rng(1).random()
    changed = sum(polyhedra.reshaped(look, rng, 0.5) is not look for _ in range(400))
    assert 150 < changed < 250


@pytest.mark.parametrize("sides", [6, 10, 20])
@pytest.mark.parametrize("direction", [0.0, math.pi / 2, math.pi, 4.0])
def test_a_leaned_die_shows_its_sides_where_a_pip_d6_shows_them(sides, direction):
    # vision.synth.draw_die draws a leaned pip d6's sides towards its `tilt`, the top face
    # away from it; a solid leaned the same way must agree, or an oblique scene's d10 and
    # d20 show their top face beside where the camera would see it (as they did until
    # 2026-11-30: turned a quarter and mirrored).
    _, _, normals, _ = polyhedra.solid(sides)
    for top in range(len(normals)):
        up = polyhedra.pose(normals[top], 1.3, (35.0, direction)) @ normals[top]
        seen = np.array([up[0], -up[1]])  # the solid's y is the image's upwards
        away = -np.array([math.cos(direction), math.sin(direction)])
        assert seen @ away == pytest.approx(math.sin(math.radians(35.0)))
        assert up[2] == pytest.approx(math.cos(math.radians(35.0)))
