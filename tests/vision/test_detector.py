"""vision.detector with the shipped models: rendered scenes with known labels, real
fixture photos, image sizes, and the scorer's definitions."""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import evaluate, synth
from vision.cli import dice_json
from vision.colours import DEFAULT_PALETTE
from vision.detector import CLASSES, Detection, Detector, ModelMissingError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "byler"
#: The dice-scoring tool whose score definition vision.evaluate reproduces; not part of the
#: repository: set DICETABLE_SCORE_DICE to its path to check the two agree.
SCORE_DICE = os.environ.get("DICETABLE_SCORE_DICE")


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector(threads=1)


def _table(seed: int, n: int = 10, size=(640, 480), die_px: int = 48):
    rng = np.random.default_rng(seed)
    names = list(DEFAULT_PALETTE)
    places = synth.layout(n, rng, size=size, die_px=die_px)
    dice = [(names[int(rng.integers(0, len(names)))], int(rng.integers(1, 7)), x, y, a) for x, y, a in places]
    return synth.render_table(dice, rng, size=size, die_px=die_px)


def _as_json(dets: list[Detection]) -> list[dict]:
    return [{"box": list(d.box), "face": d.face, "confidence": d.confidence} for d in dets]


def test_reads_rendered_tables_with_known_labels(detector):
    gt, found = {}, {}
    for seed in range(20):
        image, labels = _table(seed, n=int(np.random.default_rng(seed).integers(1, 13)))
        gt[str(seed)] = {"dice": [[*box, face] for box, face, _ in labels]}
        found[str(seed)] = _as_json(detector.detect(image))
    result = evaluate.score(gt, found)
    assert result["end_to_end"] >= 0.95, result


def test_reads_the_real_fixture_photos(detector):
    """Scored as `dicetable detect --json` reports them (an unsure die gives its best face)."""
    gt = evaluate.load_annotations(FIXTURES)
    found = {name: [dice_json(r) for r in detector.detect_raw(cv2.imread(str(FIXTURES / name)))] for name in gt}
    result = evaluate.score(gt, found)
    assert result["end_to_end"] >= 0.9, result


def test_detections_are_well_formed(detector):
    image, labels = _table(5)
    dets = detector.detect(image)
    assert dets
    for d in dets:
        assert isinstance(d, Detection)
        x0, y0, x1, y1 = d.box
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        assert 0 <= d.face <= 6
        assert 0.0 <= d.confidence <= 1.0
    # the classifier's probability of each reading, whatever the box score (vision/settle.py)
    raw = detector.detect_raw(image, everything=False)
    assert [d.face_prob for d in dets] == pytest.approx(
        [r.die_prob * r.face_probs[CLASSES.index((r.sides, r.best_face)) - 1] for r in raw])
    assert all(d.confidence <= d.face_prob <= 1.0 for d in dets if d.sides == 6)


@pytest.mark.parametrize("size", [(512, 384), (4032, 3024)])
def test_any_image_size_gives_boxes_in_its_own_pixels(detector, size):
    image, labels = _table(7, n=8)
    w, h = size
    big = cv2.resize(image, (w, h), interpolation=cv2.INTER_CUBIC)
    sx, sy = w / 640, h / 480
    gt = {"x": {"dice": [[b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy, f] for b, f, _ in labels]}}
    dets = detector.detect(big)
    for d in dets:
        assert 0 <= d.box[0] < d.box[2] <= w and 0 <= d.box[1] < d.box[3] <= h
    assert evaluate.score(gt, {"x": _as_json(dets)})["end_to_end"] >= 0.85


def test_grey_and_bgra_images_are_accepted_and_bad_ones_refused(detector):
    image, _ = _table(8, n=3)
    assert len(detector.detect(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA))) == len(detector.detect(image))
    detector.detect(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    with pytest.raises(TypeError):
        detector.detect(image.astype(np.float32))


def test_an_empty_table_has_no_dice(detector):
    image, _ = synth.render_table([], np.random.default_rng(0))
    assert detector.detect(image) == []


def test_missing_models_say_where_to_look(tmp_path):
    with pytest.raises(ModelMissingError, match="dice_detector.onnx"):
        Detector(model_dir=tmp_path)


def test_models_are_small():
    models = Path(__file__).resolve().parent.parent.parent / "models"
    assert sum(p.stat().st_size for p in models.glob("*.onnx")) < 5 * 1024 * 1024


def test_score_counts_matches_faces_and_extra_detections():
    gt = {"a": {"dice": [[0, 0, 10, 10, 3], [20, 0, 30, 10, 5]]}}
    dets = {"a": [
        {"box": [1, 1, 11, 11], "face": 3, "confidence": 0.9},  # right
        {"box": [19, 1, 29, 11], "face": 4, "confidence": 0.8},  # wrong face
        {"box": [50, 50, 60, 60], "face": 1, "confidence": 0.7},  # nothing there
    ]}
    r = evaluate.score(gt, dets)
    assert (r["recall"], r["precision"], r["face_accuracy"], r["end_to_end"]) == (1.0, 0.6667, 0.5, 0.3333)
    assert r["image_exact"] == 0.0


@pytest.mark.skipif(not SCORE_DICE, reason="DICETABLE_SCORE_DICE (the path of score_dice.py) is not set")
def test_score_agrees_with_score_dice():
    spec = importlib.util.spec_from_file_location("score_dice", SCORE_DICE)
    score_dice = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score_dice)
    rng = np.random.default_rng(0)
    gt, dets = {}, {}
    for i in range(30):
        boxes = [[float(x), float(y), float(x + s), float(y + s), int(rng.integers(1, 7))]
                 for x, y, s in rng.uniform(0, 100, (int(rng.integers(0, 6)), 3))]
        gt[f"{i}.jpg"] = {"dice": boxes}
        dets[f"{i}.jpg"] = [{"box": [b[0] + rng.normal(0, 5), b[1] + rng.normal(0, 5), b[2] + rng.normal(0, 5),
                                     b[3] + rng.normal(0, 5)], "face": int(rng.integers(1, 7)),
                             "confidence": float(rng.random())} for b in boxes if rng.random() < 0.8]
    del dets["3.jpg"]
    ours = evaluate.score(gt, dets)
    assert ours.pop("sides_confused") == 0
    assert ours.pop("by_sides")["6"]["dice"] == sum(len(g["dice"]) for g in gt.values())
    assert ours == json.loads(json.dumps(score_dice.score(gt, dets)))


def test_score_counts_a_die_of_the_wrong_kind_as_misread():
    gt = {"a.jpg": {"dice": [[0, 0, 10, 10, 3, 10], [20, 0, 30, 10, 3], [40, 0, 50, 10, 17, 20]]}}
    dets = {"a.jpg": [{"box": [0, 0, 10, 10], "face": 3, "confidence": 0.9},  # a d10 read as a d6
                      {"box": [20, 0, 30, 10], "face": 3, "confidence": 0.9, "sides": 6},
                      {"box": [40, 0, 50, 10], "face": 17, "confidence": 0.9, "sides": 20}]}
    r = evaluate.score(gt, dets)
    assert (r["recall"], r["face_accuracy"], r["sides_confused"]) == (1.0, 0.6667, 1)
    assert r["by_sides"] == {"6": {"dice": 1, "found": 1, "right": 1}, "10": {"dice": 1, "found": 1, "right": 0},
                             "20": {"dice": 1, "found": 1, "right": 1}}


def test_validation_split_is_every_fifth_sorted_name():
    names = [f"{i:03d}.jpg" for i in range(10)][::-1]
    train, val = evaluate.split(names, 5)
    assert val == ["004.jpg", "009.jpg"]
    assert len(train) == 8 and not set(train) & set(val)


def test_a_die_found_twice_is_kept_once():
    """Two boxes on one die (its top and a side face seen obliquely): the less confident
    goes; dice that merely touch keep their own boxes."""
    from vision.detector import _suppress

    boxes = np.array([[100, 100, 150, 150], [110, 95, 158, 148], [150, 100, 200, 150], [300, 300, 340, 340]], float)
    confidence = np.array([0.9, 0.6, 0.8, 0.2])
    assert _suppress(boxes, confidence).tolist() == [True, False, True, True]
    assert _suppress(boxes, np.array([0.5, 0.95, 0.8, 0.2])).tolist() == [False, True, True, True]


def test_a_close_up_die_is_read_whole(detector):
    """One die across nearly half the frame: too big for the main pass (it finds its pips,
    or nothing), found whole by the coarse pass. A rate over a dozen renders (the shipped
    models read 9; one pass read none)."""
    whole = 0
    for seed in range(12):
        image, labels = _table(seed, n=1, die_px=300)
        (box, face, _), = labels
        dice = detector.detect(image)
        assert len(dice) <= 1  # never the die and its pips
        whole += len(dice) == 1 and dice[0].face == face and evaluate.iou(list(dice[0].box), list(box)) > 0.7
    assert whole >= 8


@pytest.mark.parametrize("seed", [0, 1])
def test_small_dice_in_a_big_photo_are_found(detector, seed):
    """Dice of 45 px in a 3200x2400 photo are 5 px at the main pass's scale: the fine pass
    finds them, and the crops from the full photo read them."""
    image, labels = _table(seed, n=12, size=(3200, 2400), die_px=45)
    gt = {"x": {"dice": [[*box, face] for box, face, _ in labels]}}
    assert evaluate.score(gt, {"x": _as_json(detector.detect(image))})["end_to_end"] == 1.0


def test_a_die_of_ordinary_size_is_read_from_the_main_pass_only(detector):
    """The coarse pass sees the dice of an ordinary frame too: they are not read twice."""
    image, _ = _table(3, n=10)
    boxes, _, from_coarse = detector._find(image)
    assert len(boxes) >= 10 and not from_coarse.any()


def test_a_die_holds_no_other_die():
    """A coarse-pass box (a close-up's whole die) and the main-pass boxes inside it: the
    side read with more confidence stays; "not a die" (-1) never wins; boxes outside it
    are not concerned."""
    from vision.detector import _nested

    boxes = np.array([[0, 0, 300, 300], [40, 40, 80, 80], [200, 200, 240, 240], [400, 0, 440, 40]], float)
    coarse = np.array([True, False, False, False])
    assert _nested(boxes, np.array([0.9, 0.5, 0.6, 0.3]), coarse).tolist() == [True, False, False, True]
    assert _nested(boxes, np.array([0.9, 0.95, 0.6, 0.3]), coarse).tolist() == [False, True, True, True]
    assert _nested(boxes, np.array([-1.0, -1.0, -1.0, 0.3]), coarse).tolist() == [False, True, True, True]
    assert _nested(boxes[:1], np.array([0.4]), coarse[:1]).tolist() == [True]


def test_a_die_both_passes_find_is_read_once_from_the_surer_pass_when_it_is_big():
    """A close-up's die is often found by the main pass too, weakly and off its middle:
    bigger than the main pass's dice (MAIN_MAX at its scale) and surer to the coarse pass,
    it is read from the coarse box; otherwise, or where the main pass is surer, from the
    main pass's. A coarse box around no main box stays a coarse box."""
    from vision.detector import MAIN_MAX, _one_box_each

    main = np.array([[160, 90, 360, 280], [500, 500, 540, 540]], np.float32)
    coarse = np.array([[100, 60, 350, 330], [600, 0, 900, 300]], np.float32)
    b, s, c, cs = _one_box_each(main, np.array([0.3, 0.8]), coarse, np.array([0.9, 0.5]), 1.0)
    assert b.tolist() == [[500, 500, 540, 540]] and s.tolist() == [0.8]
    assert c.tolist() == coarse.tolist() and cs.tolist() == [0.9, 0.5]
    b, s, c, cs = _one_box_each(main, np.array([0.95, 0.8]), coarse, np.array([0.9, 0.5]), 1.0)
    assert b.tolist() == main.tolist() and c.tolist() == coarse[1:].tolist()
    small = 0.9 * MAIN_MAX / 270  # the same die at the main pass's scale: within its sizes
    b, s, c, cs = _one_box_each(main, np.array([0.3, 0.8]), coarse, np.array([0.9, 0.5]), small)
    assert b.tolist() == main.tolist() and c.tolist() == coarse[1:].tolist()
    # a coarse box over two main boxes, surer than one only: both main boxes are read
    two = np.array([[100, 100, 260, 260], [170, 170, 330, 330]], np.float32)
    b, s, c, cs = _one_box_each(two, np.array([0.3, 0.95]), np.array([[90, 90, 340, 340]], np.float32),
                                np.array([0.9]), 1.0)
    assert b.tolist() == two.tolist() and len(c) == 0


def light_tray(height: int, width: int) -> np.ndarray:
    """An empty light tray for the stubbed detector's boxes: on a dark one, a bare box read
    as a 1 or a 2 would be a speck (`_bare_tray`)."""
    return np.full((height, width, 3), 160, np.uint8)


def stubbed_detector(monkeypatch, boxes, probs, score: float = 0.9):
    """The shipped detector (its numeral reader left out) whose candidates are `boxes` at
    `score` and whose classifier reads `probs` (skipped where it knows d6 only)."""
    from vision import detector as D

    det = D.Detector(colours=False, reader=False)
    if not det.reads_sides:
        pytest.skip("the shipped classifier knows d6 only")
    boxes = np.asarray(boxes, np.float32)
    monkeypatch.setattr(det, "_find", lambda image: (boxes, np.full(len(boxes), score, np.float32),
                                                     np.zeros(len(boxes), bool)))
    monkeypatch.setattr(det, "_classify", lambda crops: probs.copy())
    return det


def test_a_d10_or_d20_is_sure_only_above_the_stricter_threshold(monkeypatch):
    from vision import detector as D

    img = light_tray(200, 200)
    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[:, 0] = 0.15
    probs[0, D.CLASSES.index((20, 17))], probs[0, D.CLASSES.index((20, 11))] = 0.6, 0.25  # 0.71 given a die
    probs[1, D.CLASSES.index((6, 4))], probs[1, D.CLASSES.index((6, 3))] = 0.6, 0.25  # as sure: a d6 is read
    det = stubbed_detector(monkeypatch, [[10, 10, 60, 60], [100, 100, 150, 150]], probs)
    d20, d6 = det.detect_raw(img)
    assert (d20.sides, d20.best_face, d20.sure, d20.face) == (20, 17, False, 0)
    assert (d6.sides, d6.face, d6.sure) == (6, 4, True)


def test_a_d20_whose_face_is_spread_is_still_a_die_but_a_d6s_confidence_is_its_face(monkeypatch):
    """A d20's twenty faces share its probability: the decision is on the die being there
    (its kind), and its face stays unsure. A d6 as spread, not plainly a die (the classifier
    0.85 sure it is one), is dropped, as it always was."""
    from vision import detector as D

    img = light_tray(200, 200)
    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[:, 0] = 0.1, 0.15
    for face, p in ((17, 0.3), (11, 0.3), (5, 0.3)):
        probs[0, D.CLASSES.index((20, face))] = p
    for face, p in ((4, 0.3), (3, 0.3), (5, 0.25)):
        probs[1, D.CLASSES.index((6, face))] = p
    det = stubbed_detector(monkeypatch, [[10, 10, 60, 60], [100, 100, 150, 150]], probs, score=0.8)
    d20, d6 = det.detect_raw(img)
    assert d20.confidence == pytest.approx(0.8 * 0.9) and d6.confidence == pytest.approx(0.8 * 0.3)
    kept = det.detect(img)
    assert [(d.sides, d.face) for d in kept] == [(20, 0)]  # 0.72 >= the decision threshold, 0.24 is not


def test_a_d6_plainly_there_is_kept_with_its_face_unsure(monkeypatch):
    """A d6 the detector is sure of and the classifier is sure is a die, but whose face it
    cannot tell (numerals in a font it never saw), is kept, its face unsure, though its
    confidence (0.8 x 0.35) is under the decision threshold; a die either model doubts is
    not."""
    from vision import detector as D

    img = light_tray(200, 200)
    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[:, 0] = 1.0 - (D.PLAIN_DIE_PROB - 0.05), 1.0 - (D.PLAIN_DIE_PROB + 0.01)  # P(not a die)
    for k in range(2):
        for face, p in ((4, 0.35), (3, 0.3), (5, 0.2), (2, 0.15)):
            probs[k, D.CLASSES.index((6, face))] = p * (1.0 - probs[k, 0])
    boxes = [[10, 10, 60, 60], [100, 100, 150, 150]]
    det = stubbed_detector(monkeypatch, boxes, probs, score=0.8)
    assert all(d.confidence < D.DECISION for d in det.detect_raw(img))
    kept = det.detect_raw(img, everything=False)
    assert [(d.box[0], d.face, d.best_face, d.sure) for d in kept] == [(100, 0, 4, False)]
    assert kept[0].confidence == pytest.approx(0.8 * 0.35 * (1.0 - probs[1, 0]))

    unsure_box = stubbed_detector(monkeypatch, boxes, probs, score=D.PLAIN_DIE_SCORE - 0.05)
    assert unsure_box.detect_raw(img, everything=False) == []


def test_the_kind_of_die_is_the_one_whose_faces_together_are_likeliest():
    """A d10's probability is spread over ten faces: three of them at 0.2 outweigh one d6
    face at 0.3, and the reading is the d10's likeliest face."""
    from vision import detector as D

    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[0, D.CLASSES.index((6, 2))] = 0.3
    for face, p in ((7, 0.25), (1, 0.2), (4, 0.2)):
        probs[0, D.CLASSES.index((10, face))] = p
    probs[1, D.CLASSES.index((6, 5))] = 0.9  # a plain d6
    best, of_kind = D.best_readings(probs)
    assert [D.CLASSES[c] for c in best] == [(10, 7), (6, 5)]
    assert of_kind == pytest.approx([0.65, 0.9])
    d6_only = probs[:, :7] / probs[:, :7].sum(1, keepdims=True)
    assert [D.CLASSES[c] for c in D.best_readings(d6_only, D.CLASSES[:7])[0]] == [(6, 2), (6, 5)]


def test_the_numeral_reader_reads_again_the_dice_taken_or_taught_for_a_d10_or_d20(monkeypatch):
    """The reader sees a d20 at READER_CROP pixels and its reading is averaged with the
    classifier's; a d6 keeps its reading. A taught d20 shows the face the two find likelier
    than the taught one by more than BOOK_MARGIN, else the taught face."""
    from vision import detector as D
    from vision.faces import Taught

    img = light_tray(300, 300)
    boxes = np.array([[10, 10, 60, 60], [100, 100, 150, 150], [200, 200, 250, 250], [200, 10, 250, 60]],
                     np.float32)
    six, nine, sixteen = (D.CLASSES.index((20, f)) for f in (6, 9, 16))
    probs = np.zeros((4, len(D.CLASSES)), np.float32)
    probs[[0, 2], six], probs[[0, 2], nine] = 0.6, 0.4  # a d20 "6" or "9"
    probs[1, D.CLASSES.index((6, 4))] = 1.0
    probs[3, sixteen] = 1.0
    det = stubbed_detector(monkeypatch, boxes, probs)
    reader, read = object(), []

    def reads(crops, session):
        assert session is reader
        read.append(crops.shape)
        out = np.zeros((len(crops), len(D.CLASSES)), np.float32)
        out[:, nine] = 1.0
        return out

    monkeypatch.setattr(det, "_read", reads)

    class Book:  # the table taught the third and fourth dice as d20 showing 16
        def read(self, crops, probs):
            return [None, None, Taught(sixteen, 0.9, 20, 16), Taught(sixteen, 0.9, 20, 16)]

    det.faces = Book()
    det._reader = reader
    dice = det.detect_raw(img)
    assert read == [(3, D.READER_CROP, D.READER_CROP, 3)]  # the d20s, not the d6
    assert [(d.sides, d.best_face, d.sure) for d in dice] == [(20, 9, False), (6, 4, True), (20, 9, True),
                                                              (20, 16, True)]
    assert dice[0].face_probs[nine - 1] == pytest.approx(0.7)  # (0.4 + 1) / 2
    # The fourth: 16 and 9 each 0.5 once averaged, not BOOK_MARGIN apart: the taught face stays.
    det._reader = None
    assert [(d.sides, d.best_face) for d in det.detect_raw(img)] == [(20, 6), (6, 4), (20, 16), (20, 16)]


def test_the_numeral_reader_reads_an_unsure_d6_and_its_faces_count_only_where_it_is_sure(monkeypatch):
    """A d6 the classifier reads less surely than NUMERAL_D6_UNSURE (a d6 with numerals, say)
    is read again; it shows the reader's d6 face where the reader is NUMERAL_D6_SURE sure of
    it, or only face_min sure where the classifier's own face would not count (under
    face_min) and the die is NUMERAL_D6_MIN_SIDE wide; its probability of being a die stays
    the classifier's. Where the reader is NUMBERED_FOR_D6 sure of a d10's or d20's face, the
    mean of the two. A sure d6 and an unlikely die are not read again; a taught d6 is, and
    keeps its taught face (test below)."""
    from vision import detector as D
    from vision.faces import Taught

    img = light_tray(300, 900)
    boxes = np.array([[10 + 100 * k, 10, 60 + 100 * k, 60] for k in range(9)], np.float32)
    small = D.NUMERAL_D6_MIN_SIDE - 2
    boxes[7, 2:] = boxes[7, :2] + small  # a die too small for the reader's word alone
    one, five, six, three = (D.CLASSES.index((6, f)) for f in (1, 5, 6, 3))
    probs = np.zeros((9, len(D.CLASSES)), np.float32)
    probs[:, 0] = 0.1
    probs[:, six], probs[:, one], probs[:, three] = 0.4, 0.35, 0.15  # the d6 "6" at 0.44 of the die: no face
    probs[[6, 8], six], probs[[6, 8], one], probs[[6, 8], three] = 0.63, 0.2, 0.07  # "6" at 0.7: a face, unsure
    probs[3] = 0
    probs[3, five] = 1.0  # a sure d6
    probs[4] = 0
    probs[4, 0], probs[4, six], probs[4, one] = 0.6, 0.25, 0.15  # likelier not a die
    det = stubbed_detector(monkeypatch, boxes, probs)
    reader, read = object(), []
    sure = D.NUMERAL_D6_SURE + 0.01  # above it in float32 too (numpy 1.24 compares 0.9f with 0.9 in float64)
    enough = det.face_min + 0.01
    between = D.NUMERAL_D6_SURE - 0.05  # more than face_min, less than NUMERAL_D6_SURE

    def reads(crops, session):  # the dice read again, in order: 0, 1, 2, 5, 6, 7, 8
        assert session is reader
        read.append(crops.shape)
        out = np.zeros((len(crops), len(D.CLASSES)), np.float32)
        for k, p in ((0, enough), (1, det.face_min - 0.05), (4, between), (5, between), (6, sure)):
            out[k, five], out[k, three] = p, 1 - p
        out[2, D.CLASSES.index((10, 5))] = 1.0  # sure of a d10's face: a d10 taken for a d6, averaged
        return out

    monkeypatch.setattr(det, "_read", reads)

    class Book:  # the table taught the sixth die
        held_classes = reader_knows = frozenset({one})

        def read(self, crops, probs):
            return [None] * 5 + [Taught(one, 0.9, 6, 1)] + [None] * 3

    det.faces = Book()
    det._reader = reader
    dice = det.detect_raw(img)
    assert read == [(7, D.READER_CROP, D.READER_CROP, 3)]  # the six unsure likely d6 and the taught one
    assert [(d.sides, d.best_face, d.sure) for d in dice] == [
        (6, 5, True),  # no face of its own: the reader at face_min decides
        (6, 6, False),  # the reader under face_min
        (10, 5, False),
        (6, 5, True),
        (6, 1, True),  # taught
        (6, 6, True),  # a face of its own: the reader must be NUMERAL_D6_SURE sure
        (6, 6, False),  # too small for the reader at less than NUMERAL_D6_SURE
        (6, 5, True)]  # the reader NUMERAL_D6_SURE sure
    assert dice[2].face_probs[D.CLASSES.index((10, 5)) - 1] == pytest.approx(0.5 / 0.95)  # (0 + 1) / 2 of P(die)
    assert dice[0].die_prob == pytest.approx(0.9)
    assert dice[0].face_probs[five - 1] == pytest.approx(enough)
    assert dice[7].face_probs[five - 1] == pytest.approx(sure)
    det._reader = None
    assert [(d.sides, d.best_face) for d in det.detect_raw(img)][0] == (6, 6)


def test_the_numeral_reader_moves_a_taught_d6_only_from_a_face_it_knows_to_one_the_book_holds(monkeypatch):
    """A d6 the book recognised shows the face the reader is TAUGHT_D6_SURE sure of, where
    the book holds that face too (taught, or a control the model read right) and the reader
    read the book's face right when it was taught (a numbered d6 whose dark 3 the book takes
    for its taught 2). A face the reader did not read right when taught (a logo), a face the
    book does not hold, or a reading not sure enough: the book's face stays."""
    from vision import detector as D
    from vision.faces import Taught

    img = light_tray(100, 600)
    boxes = np.array([[10 + 100 * k, 10, 60 + 100 * k, 60] for k in range(5)], np.float32)
    two, three, four, five, six = (D.CLASSES.index((6, f)) for f in (2, 3, 4, 5, 6))
    probs = np.zeros((5, len(D.CLASSES)), np.float32)
    probs[:, two] = 1.0
    det = stubbed_detector(monkeypatch, boxes, probs)
    sure = D.TAUGHT_D6_SURE + 0.01

    def reads(crops, session):
        out = np.zeros((len(crops), len(D.CLASSES)), np.float32)
        out[:, three], out[:, four] = sure, 1 - sure
        out[1, three], out[1, four] = 1 - sure, sure  # sure of a 4, a face not taught
        out[3, three], out[3, four] = sure - 0.06, 1.06 - sure  # not sure enough
        out[4, three], out[4, five] = 1 - sure, sure  # sure of a 5, a control
        return out

    monkeypatch.setattr(det, "_read", reads)

    class Book:  # taught 2, 3 and a logo 6, a 5 as a control; the reader read the taught 2 and 3 right
        held_classes = frozenset({two, three, five, six})
        reader_knows = frozenset({two, three})

        def read(self, crops, probs):
            return [Taught(two, 0.9, 6, 2), Taught(two, 0.9, 6, 2), Taught(six, 0.9, 6, 6), Taught(two, 0.9, 6, 2),
                    Taught(two, 0.9, 6, 2)]

    det.faces = Book()
    det._reader = object()
    assert [(d.best_face, d.sure) for d in det.detect_raw(img)] == [(3, True), (2, True), (6, True), (2, True),
                                                                     (5, True)]
    det._reader = None
    assert [d.best_face for d in det.detect_raw(img)] == [2, 2, 6, 2, 2]


def test_the_reader_is_used_when_the_models_folder_has_one(tmp_path, caplog):
    import shutil

    from vision import detector as D

    for f in (D.DETECTOR_FILE, D.CLASSIFIER_FILE):
        shutil.copy(D.DEFAULT_MODEL_DIR / f, tmp_path / f)
    assert D.Detector(tmp_path, colours=False)._reader is None
    shutil.copy(D.DEFAULT_MODEL_DIR / D.FLOAT_CLASSIFIER_FILE, tmp_path / D.READER_FILE)  # any classifier's file
    assert D.Detector(tmp_path, colours=False)._reader is not None
    assert D.Detector(tmp_path, colours=False, reader=False)._reader is None
    assert D.Detector(tmp_path, colours=False)._close_reader is None
    shutil.copy(D.DEFAULT_MODEL_DIR / D.FLOAT_CLASSIFIER_FILE, tmp_path / D.CLOSE_READER_FILE)
    assert D.Detector(tmp_path, colours=False)._close_reader is not None
    assert D.Detector(tmp_path, colours=False, reader=False)._close_reader is None
    for wrong in (b"not a model", (D.DEFAULT_MODEL_DIR / D.DETECTOR_FILE).read_bytes()):  # no model, another model
        (tmp_path / D.CLOSE_READER_FILE).write_bytes(wrong)
        caplog.clear()
        with caplog.at_level("WARNING", logger="vision.detector"):
            det = D.Detector(tmp_path, colours=False)
        assert det._reader is not None and det._close_reader is None
        assert "close-up reader" in caplog.text
    (tmp_path / D.READER_FILE).write_bytes(b"not a model")  # a broken file: read without it, and say so
    shutil.copy(D.DEFAULT_MODEL_DIR / D.FLOAT_CLASSIFIER_FILE, tmp_path / D.CLOSE_READER_FILE)
    with caplog.at_level("WARNING", logger="vision.detector"):
        det = D.Detector(tmp_path, colours=False)
    assert det._reader is None and det._close_reader is None  # the close-up reader only beside the reader
    assert "numeral reader" in caplog.text


def test_the_close_up_reader_reads_the_dice_of_close_side_and_more(monkeypatch):
    """Of the dice read again, those CLOSE_SIDE pixels or more on their longer side go to the
    close-up reader, the others to the numeral reader; without a close-up reader all go to
    the numeral reader."""
    from vision import detector as D

    img = light_tray(400, 400)
    small, big = D.CLOSE_SIDE - 1, D.CLOSE_SIDE
    boxes = np.array([[10, 10, 10 + small, 40], [150, 10, 180, 10 + big], [10, 200, 10 + big, 200 + big]],
                     np.float32)
    seven, eight = D.CLASSES.index((20, 7)), D.CLASSES.index((20, 8))
    probs = np.zeros((3, len(D.CLASSES)), np.float32)
    probs[:, seven] = 1.0  # three d20 showing 7
    det = stubbed_detector(monkeypatch, boxes, probs)
    reader, close, read = object(), object(), []

    def reads(crops, session):
        read.append((session, len(crops)))
        out = np.zeros((len(crops), len(D.CLASSES)), np.float32)
        out[:, seven if session is reader else eight] = 1.0
        return out

    monkeypatch.setattr(det, "_read", reads)
    det._reader, det._close_reader = reader, close
    assert [d.face_probs[eight - 1] for d in det.detect_raw(img)] == [0.0, 0.5, 0.5]
    assert read == [(reader, 1), (close, 2)]
    read.clear()
    det._close_reader = None
    assert [d.face_probs[eight - 1] for d in det.detect_raw(img)] == [0.0, 0.0, 0.0]
    assert read == [(reader, 3)]


def test_a_small_weak_die_beside_plainly_read_dice_is_a_speck():
    """A crumb read as a d6 showing 1 beside dice five times its size goes; a die as small
    but read plainly stays, and so do small dice when no die is read plainly."""
    from vision.detector import _specks

    boxes = np.array([[0, 0, 100, 100], [200, 0, 300, 100], [400, 0, 420, 20], [500, 0, 520, 20], [600, 0, 660, 60]],
                     np.float32)
    assert _specks(boxes, np.array([0.9, 0.8, 0.35, 0.7, 0.35])).tolist() == [False, False, True, False, False]
    assert _specks(boxes, np.array([0.9, 0.8, -1.0, 0.7, 0.35]))[2] == False  # noqa: E712 (not a die: not kept anyway)
    assert not _specks(boxes, np.array([0.55, 0.5, 0.35, 0.45, 0.35])).any()


def speck_scene(tray: int, noise: float = 2.0, seed: int = 0) -> np.ndarray:
    """A 400x400 tray of grey `tray` with sensor noise, a white speck of 3 px radius at
    (100, 100), and a dark die (a body a little lighter than a dark tray, lit edges and one
    pip) at (300, 300)."""
    rng = np.random.default_rng(seed)
    img = np.clip(rng.normal(tray, noise, (400, 400, 3)), 0, 255).astype(np.uint8)
    cv2.circle(img, (100, 100), 3, (235, 235, 235), -1)
    cv2.rectangle(img, (280, 280), (320, 320), (70, 70, 70), 3)
    cv2.rectangle(img, (283, 283), (317, 317), (45, 45, 45), -1)
    cv2.circle(img, (300, 300), 4, (235, 235, 235), -1)
    return img


def test_a_white_speck_alone_on_a_flat_dark_tray_is_a_bare_box():
    from vision.detector import _bare_tray

    speck, die = (80, 80, 120, 120), (278, 278, 322, 322)
    dark = speck_scene(20)
    assert _bare_tray(dark, speck)
    assert not _bare_tray(dark, die)  # a dark die's body and edges fill its box
    assert not _bare_tray(speck_scene(200), speck)  # a light tray: a white die on it may show little else
    assert not _bare_tray(speck_scene(20, noise=25), speck)  # a textured tray: nothing to tell
    crowded = dark.copy()
    cv2.rectangle(crowded, (50, 122), (150, 150), (160, 60, 60), -1)  # a die beside it, in its surroundings
    assert not _bare_tray(crowded, speck)
    assert _bare_tray(dark[:150, 90:], (0, 80, 30, 120))  # at the photo's edge too
    assert not _bare_tray(dark, (99, 99, 101, 101))  # a box too small to measure


def test_a_d6_read_as_a_1_or_a_2_in_a_bare_box_is_a_speck_not_a_die(monkeypatch):
    """The speck read as a 1 goes; the die read as a 1 stays, and a bare box read as a 5 is
    left to the classifier (a speck is one or two pips)."""
    from vision import detector as D

    img = speck_scene(20)
    probs = np.zeros((3, len(D.CLASSES)), np.float32)
    probs[0, D.CLASSES.index((6, 1))] = probs[1, D.CLASSES.index((6, 1))] = 1.0
    probs[2, D.CLASSES.index((6, 5))] = 1.0
    det = stubbed_detector(monkeypatch, [[80, 80, 120, 120], [278, 278, 322, 322], [79, 79, 121, 121]], probs)
    monkeypatch.setattr(D, "OVERLAP", 1.1)  # the speck's two boxes are two candidates here
    assert [(d.box[0], d.face) for d in det.detect_raw(img)] == [(278, 1), (79, 5)]


def button_scene(tray: int = 30, noise: float = 2.0, seed: int = 0, corner: int = 5) -> np.ndarray:
    """A 400x400 tray with sensor noise, a blue button (a disc of 22 px radius with two
    holes) at (100, 100) and a red d6 (a square of 44 px, its corners rounded to `corner`
    px, three pips) at (300, 300)."""
    rng = np.random.default_rng(seed)
    img = np.clip(rng.normal(tray, noise, (400, 400, 3)), 0, 255).astype(np.uint8)
    cv2.circle(img, (100, 100), 22, (170, 110, 40), -1, cv2.LINE_AA)
    for x in (92, 108):
        cv2.circle(img, (x, 100), 3, (tray, tray, tray), -1, cv2.LINE_AA)
    cv2.rectangle(img, (278 + corner, 278), (322 - corner, 322), (40, 40, 190), -1)
    cv2.rectangle(img, (278, 278 + corner), (322, 322 - corner), (40, 40, 190), -1)
    for c in ((278 + corner, 278 + corner), (322 - corner, 278 + corner), (278 + corner, 322 - corner),
              (322 - corner, 322 - corner)):
        cv2.circle(img, c, corner, (40, 40, 190), -1, cv2.LINE_AA)
    for c in ((288, 288), (300, 300), (312, 312)):
        cv2.circle(img, c, 4, (235, 235, 235), -1, cv2.LINE_AA)
    return img


def test_a_disc_on_a_flat_tray_is_a_round_body_and_a_die_is_not():
    from vision.detector import _round_body

    button, die = (77, 77, 123, 123), (277, 277, 323, 323)
    assert _round_body(button_scene(), button)
    assert not _round_body(button_scene(), die)
    assert not _round_body(button_scene(corner=18), die)  # corners rounded as far as real dice's (0.956)
    beside = button_scene()
    cv2.circle(beside, (331, 300), 13, (60, 150, 200), -1, cv2.LINE_AA)  # a coin beside the die, in its surroundings
    assert not _round_body(beside, die)
    big_pip = button_scene(corner=0)
    cv2.rectangle(big_pip, (278, 278), (322, 322), (33, 33, 33), -1)  # a dark die on the dark tray
    cv2.circle(big_pip, (300, 300), 12, (235, 235, 235), -1, cv2.LINE_AA)  # its one big pip is round
    assert not _round_body(big_pip, die)
    assert _round_body(button_scene(tray=200), button)  # on a light tray too
    assert not _round_body(button_scene(noise=25), button)  # a textured tray: nothing to tell
    crowded = button_scene()
    cv2.rectangle(crowded, (40, 126), (160, 160), (60, 160, 60), -1)  # a die beside it
    assert not _round_body(crowded, button)


def test_a_d6_unsurely_read_on_a_round_body_is_a_button_not_a_die(monkeypatch):
    """The button read as a 2 with confidence 0.6 goes; the die read as a 4 as weakly stays
    (it is no disc); a disc read surely (`ROUND_CONFIDENCE`), or read as a face a button
    does not show (`BUTTON_FACES`), is left to the classifier."""
    from vision import detector as D

    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[0, D.CLASSES.index((6, 2))] = probs[1, D.CLASSES.index((6, 4))] = 0.6
    probs[:, 0] = 0.4
    det = stubbed_detector(monkeypatch, [[77, 77, 123, 123], [277, 277, 323, 323]], probs, score=1.0)
    assert [(d.box[0], d.face) for d in det.detect_raw(button_scene())] == [(277, 4)]
    probs[0, D.CLASSES.index((6, 2))], probs[0, 0] = 1.0, 0.0
    assert [d.box[0] for d in det.detect_raw(button_scene())] == [77, 277]
    probs[0] = 0.0
    probs[0, D.CLASSES.index((6, 3))], probs[0, 0] = 0.6, 0.4
    assert [(d.box[0], d.face) for d in det.detect_raw(button_scene())] == [(77, 3), (277, 4)]


def test_an_unsure_d6_the_reader_finds_a_d10_by_its_faces_together_is_averaged(monkeypatch):
    """A d10's probability is spread over ten faces: the reader's kind, not its likeliest
    face, decides. At 0.8 on d10 faces (none above 0.2) the two readings are averaged; at
    0.6 the die stays the classifier's d6."""
    from vision import detector as D

    one, d10 = D.CLASSES.index((6, 1)), [D.CLASSES.index((10, f)) for f in range(10)]
    probs = np.zeros((2, len(D.CLASSES)), np.float32)
    probs[:, 0], probs[:, one], probs[:, d10[4]] = 0.05, 0.5, 0.45  # a d6 "1" at 0.53 of the die
    det = stubbed_detector(monkeypatch, [[10, 10, 60, 60], [100, 100, 150, 150]], probs)
    reader = object()

    def reads(crops, session):
        out = np.zeros((len(crops), len(D.CLASSES)), np.float32)
        for row, on_d10 in zip(out, (0.8, 0.6)):
            row[d10[4]], row[d10[:4]] = on_d10 / 5, on_d10 / 5  # spread over five d10 faces
            row[one] = 1 - on_d10
        return out

    monkeypatch.setattr(det, "_read", reads)
    det._reader = reader
    spread, d6 = det.detect_raw(light_tray(200, 200))
    assert (spread.sides, spread.best_face) == (10, 4)
    assert spread.face_probs[d10[4] - 1] == pytest.approx((0.45 + 0.16) / 2 / (1 - 0.05 / 2))  # of P(die)
    assert (d6.sides, d6.best_face) == (6, 1)
