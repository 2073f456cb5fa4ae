"""Pyramids laid flat under the camera, placed on their grid from the dice boxes: shifted,
turned, with empty places; rendered by vision.synth and read back from the labels and
from the real detector."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.grid import LayoutError, place_rows

ROWS = (4, 3, 2, 1)


def _layout(places, cx=320.0, cy=300.0, angle_deg=0.0, pitch=52.0, die=46.0):
    """Boxes of dice on ``places`` [(row, slot)], the pyramid turned by ``angle_deg``."""
    t = math.radians(angle_deg)
    boxes = []
    for r, k in places:
        x = (k + r / 2.0 - 1.5) * pitch
        y = -(r - 1.5) * pitch
        X = cx + x * math.cos(t) - y * math.sin(t)
        Y = cy + x * math.sin(t) + y * math.cos(t)
        boxes.append((X - die / 2, Y - die / 2, X + die / 2, Y + die / 2))
    return boxes


FULL = [(r, k) for r, n in enumerate(ROWS) for k in range(n)]


@pytest.mark.parametrize("angle", [-35, -20, -5, 0, 8, 25, 38])
@pytest.mark.parametrize("shift", [(0, 0), (-150, -120), (180, 60)])
def test_a_full_pyramid_anywhere_and_turned(angle, shift):
    boxes = _layout(FULL, 320 + shift[0], 300 + shift[1], angle)
    placed = place_rows(boxes, ROWS)
    assert placed.rows == [[0, 1, 2, 3], [4, 5, 6], [7, 8], [9]]
    assert abs(placed.angle_deg - angle) <= 2


@pytest.mark.parametrize("angle", [-25, 0, 30])
def test_empty_places_stay_empty(angle):
    places = [(0, 0), (0, 1), (0, 3), (1, 0), (2, 0)]  # (0, 2) empty: nothing may stand on it
    placed = place_rows(_layout(places, angle_deg=angle), ROWS)
    assert placed.rows == [[0, 1, None, 2], [3, None, None], [4, None], [None]]
    only_bottom = place_rows(_layout([(0, 1), (0, 2)], angle_deg=angle), ROWS)
    assert only_bottom.rows[0] == [0, 1, None, None]  # placed from the left


def test_dice_off_the_rows_are_refused_with_a_reason():
    boxes = _layout(FULL)
    x0, y0, x1, y1 = boxes[5]
    boxes[5] = (x0 + 20, y0, x1 + 20, y1)  # half a die off its place
    with pytest.raises(LayoutError, match="off the places"):
        place_rows(boxes, ROWS)
    with pytest.raises(LayoutError, match="no dice"):
        place_rows([], ROWS)
    tower = _layout([(r, 0) for r in range(4)] + [(0, 0)])[:4]
    tower += [(b[0], b[1] - 60 * 4, b[2], b[3] - 60 * 4) for b in tower[:1]]
    with pytest.raises(LayoutError):
        place_rows(tower, ROWS)


def test_a_rendered_pyramid_read_by_the_detector():
    from vision.detector import Detector
    from vision.synth import render_table

    rng = np.random.default_rng(3)
    faces = [3, 4, 4, 5, 3, 4, 5, 4, 4, 4]
    colours = ["yellow", "red", "blue", "yellow", "red", "blue", "yellow", "red", "blue", "red"]
    dice = []
    for (r, k), face, colour, box in zip(FULL, faces, colours, _layout(FULL, angle_deg=12, pitch=56, die=48)):
        dice.append((colour, face, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, 12.0))
    image, labels = render_table(dice, rng, size=(640, 480), die_px=48)
    found = Detector().detect(image)
    assert len(found) == 10
    placed = place_rows(found, ROWS)
    read = [[found[i].face if i is not None else None for i in row] for row in placed.rows]
    assert read == [[3, 4, 4, 5], [3, 4, 5], [4, 4], [4]]


def test_hundreds_of_jittered_layouts_are_placed_exactly():
    """Random legal layouts (a die only on two supports), turned, shifted, each box jittered."""
    rng = np.random.default_rng(11)
    for _ in range(300):
        places = [(0, k) for k in range(4) if rng.random() < 0.85] or [(0, 0)]
        for r in (1, 2, 3):  # a die only where both dice under it stand
            places += [(r, k) for k in range(ROWS[r]) if (r - 1, k) in places and (r - 1, k + 1) in places
                       and rng.random() < 0.8]
        if not any((0, k) in places and (0, k + 1) in places for k in range(3)):
            continue  # no two dice side by side: nothing shows how far apart the places are
        angle = float(rng.uniform(-35, 35))
        boxes = _layout(places, rng.uniform(200, 440), rng.uniform(180, 320), angle, pitch=float(rng.uniform(48, 60)))
        boxes = [tuple(v + float(rng.uniform(-2.5, 2.5)) for v in b) for b in boxes]
        placed = place_rows(boxes, ROWS)
        got = {(r, k): i for r, row in enumerate(placed.rows) for k, i in enumerate(row) if i is not None}
        want = {p: i for i, p in enumerate(places)}
        # Without a full bottom row nothing on the tray says where the places start: the
        # dice are placed from the left, the same relative layout.
        left = min(k for r, k in want if r == 0)
        assert got == {(r, k - left): i for (r, k), i in want.items()}, (places, angle)
