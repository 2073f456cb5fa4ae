"""Custom faces (`vision/faces.py`, `dicetable teach`): dice whose 6 carries a maker's
emblem the model has never seen are read right after teaching from a few labelled photos,
and ordinary dice read the same as before."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi.cli import main
from vision import synth
from vision.detector import Detector
from vision.faces import FaceBook, FaceBookError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "byler"


def trays(seed: int, n: int) -> list[synth.Scene]:
    rng = np.random.default_rng(seed)
    return [synth.emblem_tray(rng, size=(960, 720), n=12, share=0.25, colour="blue") for _ in range(n)]


def write(folder: Path, scenes: list[synth.Scene]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ann = {}
    for i, scene in enumerate(scenes):
        cv2.imwrite(str(folder / f"tray_{i}.png"), scene.image)
        h, w = scene.image.shape[:2]
        ann[f"tray_{i}.png"] = {"width": w, "height": h, "dice": [[*box, face] for box, face, _ in scene.labels]}
    (folder / "annotations.json").write_text(json.dumps(ann))
    return folder


def emblem_faces(detector: Detector, scene: synth.Scene) -> list[int]:
    """The faces read on the emblem dice of a scene (0: not found)."""
    dice = detector.detect(scene.image)
    out = []
    for (x0, y0, x1, y1), face, _ in scene.labels:
        if face != 6:
            continue
        hit = [d.face for d in dice if x0 <= (d.box[0] + d.box[2]) / 2 <= x1 and y0 <= (d.box[1] + d.box[3]) / 2 <= y1]
        out.append(hit[0] if hit else 0)
    return out


@pytest.fixture(scope="module")
def detector():
    return Detector()


@pytest.fixture(scope="module")
def book(detector):
    scenes = trays(1, 3)
    book, report = FaceBook.teach(detector, [(s.image, [[*b, f] for b, f, _ in s.labels]) for s in scenes])
    assert report.photos == 3 and report.labelled == 36 and report.taught >= 6
    return book


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DICETABLE_DATA", str(tmp_path / "data"))


def test_a_taught_emblem_is_read_as_its_face(detector, book):
    held_out = trays(2, 2)
    before = [f for s in held_out for f in emblem_faces(detector, s)]
    assert sum(f == 6 for f in before) < len(before) / 2, before  # the model alone does not know it
    taught = Detector(faces=book)
    after = [f for s in held_out for f in emblem_faces(taught, s)]
    assert sum(f == 6 for f in after) >= len(after) - 1, after


def test_ordinary_dice_read_the_same_with_a_book(detector, book):
    taught = Detector(faces=book)
    for path in sorted(FIXTURES.glob("*.jpg")):
        image = cv2.imread(str(path))
        assert [(d.box, d.face) for d in taught.detect(image)] == [(d.box, d.face) for d in detector.detect(image)]


def test_save_and_load_round_trip(tmp_path, book):
    path = tmp_path / "faces.npz"
    book.save(path)
    again = FaceBook.load(path)
    assert again.threshold == book.threshold and (again.faces == book.faces).all()
    assert np.allclose(again.examples, book.examples, atol=1e-3)
    assert not list(tmp_path.glob("*.tmp"))


def test_bad_faces_files_are_refused_with_the_path(tmp_path):
    with pytest.raises(FaceBookError, match="dicetable teach"):
        FaceBook.load(tmp_path / "missing.npz")
    bad = tmp_path / "faces.npz"
    bad.write_bytes(b"not a faces file")
    with pytest.raises(FaceBookError, match=str(bad)):
        FaceBook.load(bad)


def test_teach_command_saves_the_book_and_detect_uses_it(tmp_path, capsys):
    folder = write(tmp_path / "teach", trays(1, 3))
    assert main(["teach", str(folder)]) == 0
    assert "taught" in capsys.readouterr().out
    saved = tmp_path / "data" / "faces.npz"
    assert saved.is_file()
    photo = tmp_path / "photo"
    scene = trays(2, 1)[0]
    write(photo, [scene])
    sixes = sum(face == 6 for _, face, _ in scene.labels)
    assert main(["detect", str(photo / "tray_0.png")]) == 0
    with_book = [d["face"] for d in json.loads(capsys.readouterr().out)["dice"]]
    assert main(["detect", "--faces", "none", str(photo / "tray_0.png")]) == 0
    without = [d["face"] for d in json.loads(capsys.readouterr().out)["dice"]]
    assert with_book.count(6) >= sixes - 1 > without.count(6)


def test_teach_refuses_bad_folders_and_writes_nothing(tmp_path, capsys):
    assert main(["teach", str(tmp_path / "nowhere")]) == 2
    assert "annotations.json" in capsys.readouterr().err
    empty = write(tmp_path / "empty", [])
    assert main(["teach", str(empty)]) == 2
    assert "labels no photo" in capsys.readouterr().err
    # A photo too small to hold dice beside good ones: named, nothing taught or saved.
    tiny = write(tmp_path / "tiny", trays(1, 1))
    cv2.imwrite(str(tiny / "thumb.png"), np.zeros((10, 12, 3), np.uint8))
    ann = json.loads((tiny / "annotations.json").read_text())
    ann["thumb.png"] = {"width": 12, "height": 10, "dice": [[1, 1, 9, 9, 6]]}
    (tiny / "annotations.json").write_text(json.dumps(ann))
    assert main(["teach", str(tiny)]) == 2
    err = capsys.readouterr().err
    assert "thumb.png: image of 12x10 px is too small" in err and "nothing saved" in err and "Traceback" not in err
    assert not (tmp_path / "data" / "faces.npz").exists()
    # Ordinary dice the model reads right teach nothing.
    ordinary = tmp_path / "ordinary"
    ordinary.mkdir()
    image = cv2.imread(str(sorted(FIXTURES.glob("*.jpg"))[0]))
    dice = Detector().detect(image)
    cv2.imwrite(str(ordinary / "a.png"), image)
    (ordinary / "annotations.json").write_text(json.dumps({"a.png": {"width": image.shape[1], "height": image.shape[0],
                                                                    "dice": [[*d.box, d.face] for d in dice]}}))
    assert main(["teach", str(ordinary)]) == 2
    assert "nothing to teach" in capsys.readouterr().err
    # Labels that lie where no die is found.
    nowhere = write(tmp_path / "nowhere_dice", trays(1, 1))
    ann = json.loads((nowhere / "annotations.json").read_text())
    for entry in ann.values():
        entry["dice"] = [[1, 1, 5, 5, 6] for _ in entry["dice"]]
    (nowhere / "annotations.json").write_text(json.dumps(ann))
    assert main(["teach", str(nowhere)]) == 2
    assert "none of the 12 labelled dice" in capsys.readouterr().err
    assert not (tmp_path / "data" / "faces.npz").exists()


def star_trays(seed: int, n: int, monkeypatch) -> list[synth.Scene]:
    """Trays whose 6 carries a star (the logo the model knows as a 1): read as 1 today."""
    draw = synth._draw_symbol
    monkeypatch.setattr(synth, "_draw_symbol", lambda tex, symbol, colour, rng: draw(
        tex, "star" if symbol == "emblem" else symbol, colour, rng))
    try:
        return trays(seed, n)
    finally:
        monkeypatch.setattr(synth, "_draw_symbol", draw)


def test_a_star_for_six_is_taught_and_real_ones_stay_ones(detector, monkeypatch):
    teach, held_out = star_trays(3, 3, monkeypatch), star_trays(4, 2, monkeypatch)
    before = [f for s in held_out for f in emblem_faces(detector, s)]
    assert before.count(1) >= len(before) - 1, before  # the model reads the star as a 1
    book, report = FaceBook.teach(detector, [(s.image, [[*b, f] for b, f, _ in s.labels]) for s in teach])
    assert set(book.model_read[book.taught]) <= {0, 1}
    taught = Detector(faces=book)
    after = [f for s in held_out for f in emblem_faces(taught, s)]
    assert after.count(6) >= len(after) - 1, after
    for scene in held_out:  # the ordinary dice (real 1s among them) read as they were
        others = [lb for lb in scene.labels if lb[1] != 6]
        plain, with_book = detector.detect(scene.image), taught.detect(scene.image)
        for (x0, y0, x1, y1), face, _ in others:
            inside = lambda d: x0 <= (d.box[0] + d.box[2]) / 2 <= x1 and y0 <= (d.box[1] + d.box[3]) / 2 <= y1
            assert [d.face for d in plain if inside(d)] == [d.face for d in with_book if inside(d)]


def test_a_taught_face_replaces_only_the_reading_it_was_taught_over(book):
    crops = np.zeros((2, 48, 48, 3), np.uint8)
    sure_five = np.array([[0.0, 0, 0, 0, 0, 1.0, 0]] * 2, np.float32)
    assert book.read(crops, sure_five) == [None, None]  # a die the model is sure is a 5 stays a 5
    assert FaceBook.empty().read(crops) == [None, None]


def test_readings_of_a_classifier_that_knows_d10_and_d20():
    from vision.detector import CLASSES
    from vision.faces import NOT_A_D6, readings

    probs = np.zeros((4, len(CLASSES)), np.float32)
    probs[0, CLASSES.index((6, 4))] = 1.0  # a sure d6 showing 4
    probs[1, CLASSES.index((20, 17))] = 1.0  # a sure d20: no taught d6 face may replace it
    probs[2, 0] = 1.0  # not a die
    probs[3, CLASSES.index((10, 3))] = probs[3, CLASSES.index((6, 2))] = 0.5  # unsure
    assert readings(probs).tolist() == [4, NOT_A_D6, 0, 0]
