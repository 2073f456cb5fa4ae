"""vision.training.scales: tiled and close-up frames made from labelled photos keep their labels
on the dice, and the command measures the shipped reader on them."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.training import scales

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "byler"


def _photo(w=100, h=80, box=(10, 20, 30, 40), value=0):
    image = np.full((h, w, 3), value, np.uint8)
    x0, y0, x1, y1 = box
    image[y0:y1, x0:x1] = 255
    return image, [[*box, 3]]


def test_tiles_move_each_photos_labels_to_its_place():
    photos = [_photo(value=v) for v in range(4)]
    frame, dice = scales.tiled(photos, 2)
    assert frame.shape == (160, 200, 3)
    assert dice == [[10, 20, 30, 40, 3], [110, 20, 130, 40, 3], [10, 100, 30, 120, 3], [110, 100, 130, 120, 3]]
    for x0, y0, x1, y1, _ in dice:  # the label still surrounds its white die
        assert (frame[y0:y1, x0:x1] == 255).all()
    with pytest.raises(ValueError, match="4 photos of one size"):
        scales.tiled(photos[:3] + [_photo(w=90)], 2)


def test_a_close_up_centres_its_die_at_the_asked_share_and_drops_dice_cut_by_its_edge():
    image = np.zeros((400, 400, 3), np.uint8)
    dice = [[180, 180, 220, 220, 5], [235, 190, 265, 210, 2], [100, 100, 120, 120, 1]]
    frame, labels = scales.close_up(image, dice, 0, 0.4)
    assert frame.shape == (640, 640, 3)
    (x0, y0, x1, y1, face), *rest = labels
    assert face == 5 and (x1 - x0) == pytest.approx(0.4 * 640, abs=1) and (x0 + x1) / 2 == pytest.approx(320, abs=1)
    assert rest == []  # the second die is cut by the edge, the third outside


def test_the_command_prints_one_line_per_kind_of_frame(capsys):
    assert scales.main([str(FIXTURES)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machine: ")
    results = [json.loads(line) for line in out[1:]]
    assert [r["frames"] for r in results][:2] == ["tiled 1x1", "tiled 2x2"]
    assert len(results) == len(scales.TILES) + len(scales.SHARES)
    assert results[0]["end_to_end"] >= 0.9


def test_a_folder_without_labels_is_refused(tmp_path, capsys):
    assert scales.main([str(tmp_path)]) == 2
    assert "annotations.json" in capsys.readouterr().err
