"""vision.polyhedra: the d10 and d20 solids and their drawing."""
from __future__ import annotations

import numpy as np
import pytest

from vision import polyhedra


@pytest.mark.parametrize("sides", [10, 20])
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


@pytest.mark.parametrize("sides,total", [(10, 9), (20, 21)])
def test_opposite_faces_sum_as_on_real_dice(sides, total):
    _, _, normals, printed = polyhedra.solid(sides)
    for i, n in enumerate(normals):
        j = int(np.argmin(normals @ n))
        assert printed[i] + printed[j] == total


@pytest.mark.parametrize("sides", [10, 20])
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
