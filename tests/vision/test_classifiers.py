"""Which classifier file the detector reads with: the 8-bit or the float one (vision.classifiers,
`Detector(classifier=...)`), and the float one made from the 8-bit one (vision.training.dequantize)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import classifiers
from vision.classifiers import Choice, ChoiceFile, choose
from vision.detector import (CLASSIFIER_FILE, DEFAULT_MODEL_DIR, DETECTOR_FILE, FLOAT_CLASSIFIER_FILE, Detector,
                             ModelMissingError)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "byler"


@pytest.fixture
def models(tmp_path) -> Path:
    """A models folder of the test's own with both classifiers."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in (DETECTOR_FILE, CLASSIFIER_FILE, FLOAT_CLASSIFIER_FILE):
        shutil.copy(DEFAULT_MODEL_DIR / name, folder / name)
    return folder


def _files(folder: Path) -> dict[str, Path]:
    return {"int8": folder / CLASSIFIER_FILE, "float": folder / FLOAT_CLASSIFIER_FILE}


def _opened(path: Path) -> str:
    return path.name  # stands for the session: which file was opened


def _timer(int8: float, flt: float, calls: list | None = None):
    def timer(sessions):
        if calls is not None:
            calls.append(sorted(sessions.values()))
        return {"int8": int8, "float": flt}
    return timer


@pytest.mark.parametrize("int8, flt, kind", [(2.0, 1.0, "float"), (1.0, 2.0, "int8"), (1.0, 1.0, "int8")])
def test_auto_picks_the_quicker_of_the_two_timings(models, int8, flt, kind):
    choice, session = choose("auto", _files(models), _opened, timer=_timer(int8, flt))
    assert choice == Choice(kind, "timed", {"int8": int8, "float": flt})
    assert session == _files(models)[kind].name


def test_auto_times_each_file_once_and_asked_kinds_are_not_timed(models):
    calls: list = []
    choose("auto", _files(models), _opened, timer=_timer(1.0, 2.0, calls))
    assert calls == [sorted([CLASSIFIER_FILE, FLOAT_CLASSIFIER_FILE])]
    for kind in ("int8", "float"):
        choice, session = choose(kind, _files(models), _opened, timer=_timer(1.0, 2.0, calls))
        assert choice == Choice(kind, "asked") and session == _files(models)[kind].name
    assert len(calls) == 1


def test_the_choice_is_remembered_per_machine_and_model_files(models, tmp_path):
    remember = ChoiceFile(tmp_path / "data" / "classifier.json")
    first, _ = choose("auto", _files(models), _opened, remember=remember, timer=_timer(2.0, 1.0))
    assert first.kind == "float" and first.how == "timed"
    saved = json.loads(remember.path.read_text())
    (key,) = saved
    assert saved[key]["kind"] == "float" and "cpu=" in key and "threads=1" in key

    def never(sessions):
        raise AssertionError("a remembered choice is not timed again")

    again, session = choose("auto", _files(models), _opened, remember=remember, timer=never)
    assert again == Choice("float", "remembered", {"int8": 2.0, "float": 1.0})
    assert session == FLOAT_CLASSIFIER_FILE
    # another thread count, or a new model file, is timed again; the first choice stays
    other, _ = choose("auto", _files(models), _opened, threads=4, remember=remember, timer=_timer(1.0, 2.0))
    assert other.how == "timed" and other.kind == "int8"
    (models / FLOAT_CLASSIFIER_FILE).write_bytes((models / FLOAT_CLASSIFIER_FILE).read_bytes() + b"\0")
    new, _ = choose("auto", _files(models), _opened, remember=remember, timer=_timer(1.0, 2.0))
    assert new.how == "timed" and new.kind == "int8"
    assert len(json.loads(remember.path.read_text())) == 3


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"KEY": {"kind": "fp16", "ms": {}}}'])
def test_a_broken_choice_file_is_timed_again_and_rewritten(models, tmp_path, content):
    path = tmp_path / "classifier.json"
    key = classifiers.machine_key(_files(models), 1)
    path.write_text(content.replace("KEY", key))
    choice, _ = choose("auto", _files(models), _opened, remember=ChoiceFile(path), timer=_timer(2.0, 1.0))
    assert choice.how == "timed"
    assert json.loads(path.read_text())[key]["kind"] == "float"


def test_a_choice_file_that_cannot_be_written_leaves_the_choice_for_this_run(models, tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("")
    choice, _ = choose("auto", _files(models), _opened, remember=ChoiceFile(blocked / "classifier.json"),
                       timer=_timer(2.0, 1.0))
    assert choice.kind == "float"


@pytest.mark.parametrize("asked", ["auto", "int8", "float"])
@pytest.mark.parametrize("gone", ["int8", "float"])
def test_a_missing_file_falls_back_to_the_other(models, asked, gone):
    _files(models)[gone].unlink()
    left = "float" if gone == "int8" else "int8"
    choice, session = choose(asked, _files(models), _opened, timer=_timer(1.0, 1.0))
    assert choice == Choice(left, "asked" if asked == left else "only usable file")
    assert session == _files(models)[left].name
    det = Detector(model_dir=models, colours=False, classifier=asked)
    assert det.classifier.kind == left


def test_neither_file_is_the_missing_model_error(models):
    for path in _files(models).values():
        path.unlink()
    with pytest.raises(ModelMissingError, match=CLASSIFIER_FILE):
        Detector(model_dir=models, classifier="auto")


def test_an_unknown_classifier_is_refused(models):
    with pytest.raises(ValueError, match="auto, int8 or float"):
        Detector(model_dir=models, classifier="fp16")


def test_the_detector_times_for_real_and_remembers_in_the_given_file(models, tmp_path):
    path = tmp_path / "classifier.json"
    det = Detector(model_dir=models, colours=False, classifier="auto", choices=path)
    assert det.classifier.how == "timed" and det.classifier.kind in ("int8", "float")
    assert set(det.classifier.ms) == {"int8", "float"}
    again = Detector(model_dir=models, colours=False, classifier="auto", choices=path)
    assert again.classifier == Choice(det.classifier.kind, "remembered", det.classifier.ms)


def test_the_float_classifier_reads_the_fixture_photos_as_the_8_bit_one():
    photos = sorted(FIXTURES.glob("*.jpg"))
    assert photos
    int8 = Detector(colours=False, classifier="int8")
    flt = Detector(colours=False, classifier="float")
    assert (int8.classifier.kind, flt.classifier.kind) == ("int8", "float")
    for photo in photos:
        image = cv2.imread(str(photo))
        # as `detect --json` reports them: an unsure die by its best face
        a, b = int8.detect_raw(image, everything=False), flt.detect_raw(image, everything=False)
        assert [(d.best_face, d.sides) for d in a] == [(d.best_face, d.sides) for d in b], photo.name
        assert np.allclose([d.confidence for d in a], [d.confidence for d in b], atol=0.1)


def test_dequantize_gives_the_8_bit_arithmetic_without_its_rounding(tmp_path):
    onnx = pytest.importorskip("onnx")
    import onnxruntime as ort

    from vision.training.dequantize import dequantize, dequantize_model

    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(DEFAULT_MODEL_DIR / CLASSIFIER_FILE, folder)
    out = dequantize(folder)
    assert out == folder / FLOAT_CLASSIFIER_FILE
    model = onnx.load(str(out))
    assert not {n.op_type for n in model.graph.node} & {"QuantizeLinear", "DequantizeLinear"}
    assert [o.domain for o in model.opset_import] == [""]  # loads where ai.onnx.ml 5 does not
    x = classifiers.timing_crops(32, seed=1)
    a = ort.InferenceSession(str(folder / CLASSIFIER_FILE)).run(None, {"crops": x})[0]
    b = ort.InferenceSession(str(out)).run(None, {"crops": x})[0]
    assert (a.argmax(1) == b.argmax(1)).all() and np.abs(a - b).max() < 0.1 * np.abs(a).max()
    with pytest.raises(ValueError, match="not an 8-bit"):
        dequantize_model(model)


@pytest.mark.parametrize("asked", ["auto", "int8"])
def test_a_file_this_onnxruntime_cannot_load_falls_back_to_the_other(models, asked, caplog):
    (models / CLASSIFIER_FILE).write_bytes(b"not an onnx model")  # as an opset this onnxruntime lacks
    det = Detector(model_dir=models, colours=False, classifier=asked)
    assert det.classifier == Choice("float", "only usable file")
    assert f"{CLASSIFIER_FILE} cannot be loaded" in caplog.text and "not found" not in caplog.text
    (models / FLOAT_CLASSIFIER_FILE).write_bytes(b"neither is this")
    with pytest.raises(ModelMissingError, match="cannot be loaded by onnxruntime"):
        Detector(model_dir=models, colours=False, classifier=asked)
