"""A tiny end-to-end training run (only where torch is installed: the `train` extra). Every
run here has a fixed number of steps: the same on a busy machine as on an idle one."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")


TINY = ["--pool", "3", "--det-batch", "2", "--det-size", "128", "--cls-batch", "8", "--threads", "1",
        "--device", "cpu", "--save-every", "100"]


def test_a_tiny_training_run_exports_models_the_detector_can_load(tmp_path, capsys):
    from vision import synth
    from vision.detector import Detector
    from vision.training import train

    # A budget of no time at all: the steps alone say how long each model trains.
    rc = train.main(["--out", str(tmp_path), "--work", str(tmp_path / "work"), *TINY, "--minutes-detector", "0",
                     "--minutes-classifier", "0", "--steps-detector", "6", "--steps-classifier", "4"])
    assert rc == 0
    log = capsys.readouterr().out
    assert "detector: done, 6 steps" in log and "classifier: done, 4 steps" in log
    assert (tmp_path / "dice_detector.onnx").is_file() and (tmp_path / "dice_classifier.onnx").is_file()
    image, _ = synth.render_table([("red", 2, 320, 240, 0)], np.random.default_rng(0))
    found = Detector(model_dir=tmp_path, colours=False).detect(image)
    assert isinstance(found, list)  # an untrained model may find anything; it must run

    # The last step of the chain: the classifier in 8 bits, which still loads, and which
    # fine-tuning can start from again. Calibrated on the crops the shipped detector cuts: a
    # detector of a few steps may find nothing to calibrate on (that case has its own test).
    from vision.detector import DEFAULT_MODEL_DIR, DETECTOR_FILE
    from vision.training import quantize

    shutil.copy(DEFAULT_MODEL_DIR / DETECTOR_FILE, tmp_path / DETECTOR_FILE)

    float_size = (tmp_path / "dice_classifier.onnx").stat().st_size
    assert quantize.main([str(tmp_path), "--scenes", "4"]) == 0
    assert quantize.is_quantized(tmp_path / "dice_classifier.onnx")
    assert (tmp_path / "dice_classifier.onnx").stat().st_size < float_size
    assert _widest_weight(tmp_path / "dice_classifier.onnx") <= 64
    assert sorted(p.name for p in tmp_path.glob("*.onnx")) == ["dice_classifier.onnx", "dice_detector.onnx"]
    assert isinstance(Detector(model_dir=tmp_path, colours=False).detect(image), list)
    train.init_from_onnx(train.DiceClassifier(), tmp_path / "dice_classifier.onnx")


def test_a_run_with_resume_goes_on_from_each_model_s_checkpoint(tmp_path, capsys):
    from vision.training import train

    common = ["--out", str(tmp_path), "--work", str(tmp_path / "work"), *TINY, "--minutes-detector", "0",
              "--minutes-classifier", "0"]
    assert train.main([*common, "--steps-detector", "2", "--steps-classifier", "2"]) == 0
    assert "resumed" not in capsys.readouterr().out
    assert train.main([*common, "--steps-detector", "3", "--steps-classifier", "3", "--resume"]) == 0
    log = capsys.readouterr().out
    assert "detector: resumed at step 2" in log and "classifier: resumed at step 2" in log


def _widest_weight(path: Path) -> int:
    """The largest magnitude among the 8-bit weights of the ONNX model at `path`."""
    import onnx
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer
               if t.data_type == onnx.TensorProto.INT8]
    assert weights, f"{path} has no 8-bit weights"
    return max(int(np.abs(w.astype(np.int16)).max()) for w in weights)


def test_the_shipped_8_bit_classifier_has_7_bit_weights():
    """An x86 CPU without 8-bit dot products (AVX2 alone) sums pairs of 8-bit activation x
    weight products in 16 bits, which saturate with full 8-bit weights (the webcam photos lost
    1 die in 100 there); with weights within +-64 the sums fit (vision.training.quantize)."""
    from vision import detector

    assert _widest_weight(detector.DEFAULT_MODEL_DIR / detector.CLASSIFIER_FILE) <= 64


def test_quantize_refuses_a_classifier_already_in_8_bits_and_a_missing_one(tmp_path, capsys):
    from vision import detector
    from vision.training import quantize

    assert quantize.is_quantized(detector.DEFAULT_MODEL_DIR / detector.CLASSIFIER_FILE)  # as shipped
    assert quantize.main([str(detector.DEFAULT_MODEL_DIR)]) == 2
    assert "already in 8 bits" in capsys.readouterr().err
    assert quantize.main([str(tmp_path)]) == 2
    assert "dice_classifier.onnx not found" in capsys.readouterr().err


def test_quantize_says_when_the_detector_finds_nothing_to_calibrate_on(tmp_path, capsys):
    """A detector that finds no candidate leaves no crop to calibrate the 8-bit ranges on:
    a clear message, exit 2, and the float classifier as it was."""
    import torch

    from vision.training import quantize, train

    blind = train.DiceDetector()
    with torch.no_grad():
        blind.out.bias[0] = -30.0  # no heat anywhere
    train.export_detector(blind.eval(), tmp_path / "dice_detector.onnx")
    train.export_classifier(train.DiceClassifier().eval(), tmp_path / "dice_classifier.onnx")
    before = (tmp_path / "dice_classifier.onnx").read_bytes()
    assert quantize.main([str(tmp_path), "--scenes", "3"]) == 2
    err = capsys.readouterr().err
    assert "finds no candidate in 3 rendered scenes" in err and "Traceback" not in err
    assert (tmp_path / "dice_classifier.onnx").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dice_classifier.onnx", "dice_detector.onnx"]


def test_a_number_of_steps_is_at_least_one(tmp_path, capsys):
    from vision.training import train

    with pytest.raises(SystemExit) as exc:
        train.main(["--out", str(tmp_path / "out"), "--work", str(tmp_path / "work"), *TINY, "--steps-detector", "0"])
    assert exc.value.code == 2 and "--steps-detector is a number of steps" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_font_that_does_not_load_stops_a_run_before_it_renders(tmp_path, capsys):
    from vision.training import train

    with pytest.raises(SystemExit) as exc:
        train.main(["--out", str(tmp_path / "out"), "--work", str(tmp_path / "work"), *TINY,
                    "--fonts", "NoSuchFace-Bold.ttf"])
    assert exc.value.code == 2 and "--fonts: Pillow cannot load NoSuchFace-Bold.ttf" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_pip_boxes_become_whole_die_boxes():
    from vision.training import train

    boxes = np.array([[100, 100, 120, 120], [200, 200, 206, 206]], np.float32)
    faces = np.array([5, 1])
    out = train.pip_boxes_to_die_boxes(boxes, faces)
    assert np.allclose(out[0], [93, 93, 127, 127])  # 1.7 x the pattern
    assert np.allclose(out[1, 2] - out[1, 0], 34)  # a lone pip: the image's typical die


def test_fine_tuning_starts_from_the_shipped_weights():
    """The shipped classifier is in 8 bits (`vision.quantize`): its weights, dequantised,
    give the float network that reads as it does (activations rounded to 8 bits aside)."""
    import onnxruntime as ort
    import torch

    from vision import detector
    from vision.training import train

    x = np.random.default_rng(0).uniform(0, 255, (3, 3, train.CROP, train.CROP)).astype(np.float32)
    model = train.DiceClassifier()
    train.init_from_onnx(model, detector.DEFAULT_MODEL_DIR / detector.CLASSIFIER_FILE)
    with torch.no_grad():
        ours = model.eval()(torch.from_numpy(x)).numpy()
    shipped = ort.InferenceSession(str(detector.DEFAULT_MODEL_DIR / detector.CLASSIFIER_FILE)).run(None, {"crops": x})[0]
    n = shipped.shape[1]
    assert (ours[:, :n].argmax(1) == shipped.argmax(1)).all()
    assert np.abs(ours[:, :n] - shipped).max() < 0.05 * np.ptp(shipped)
    assert ours.shape[1] == len(detector.CLASSES)


def test_a_d6_classifier_grows_into_one_for_d10_and_d20_keeping_what_it_knew(tmp_path):
    import onnxruntime as ort
    import torch

    from vision.training import train

    torch.manual_seed(0)
    small = train.DiceClassifier(classes=7).eval()
    with torch.no_grad():  # BatchNorm statistics of a trained net (untrained ones fold to shared zeros)
        for name, t in small.state_dict().items():
            if t.is_floating_point():
                t.add_(torch.rand_like(t) * 0.2 if "running_var" in name else torch.randn_like(t) * 0.1)
    train.export_classifier(small, tmp_path / "c.onnx")
    x = np.random.default_rng(1).uniform(0, 255, (4, 3, train.CROP, train.CROP)).astype(np.float32)
    before = ort.InferenceSession(str(tmp_path / "c.onnx")).run(None, {"crops": x})[0]
    grown = train.DiceClassifier()
    train.init_from_onnx(grown, tmp_path / "c.onnx")
    with torch.no_grad():
        after = grown.eval()(torch.from_numpy(x)).numpy()
    assert np.abs(after[:, :7] - before).max() < 1e-4
    assert (after[:, 7:].max(1) < before[:, 1:].mean(1)).all()  # new classes start unlikely
    with pytest.raises(SystemExit, match="does not fit"):
        train.init_from_onnx(train.DiceClassifier(classes=5), tmp_path / "c.onnx")


def test_distillation_keeps_the_teachers_classes_only_where_it_knows_the_label():
    import torch

    from vision.training import train

    torch.manual_seed(0)
    teacher = train.DiceClassifier(classes=7).eval()
    x = torch.rand(4, 3, train.CROP, train.CROP) * 255
    with torch.no_grad():
        teacher.fc.weight.mul_(100)  # a teacher with opinions
        t = teacher(x)
    same = torch.cat([t, torch.full((4, 30), -5.0)], 1)  # agrees on the 7 classes it knows
    y = torch.tensor([0, 3, 20, 30])  # two d6-or-none labels, a d10 and a d20
    assert float(train._distillation(same, teacher, x, y)) < 1e-5
    other = same.clone()
    other[:2, :7] = other[:2, :7].flip(1)
    assert float(train._distillation(other, teacher, x, y)) > 0.01
    unknown = same.clone()
    unknown[2:, :7] = unknown[2:, :7].flip(1)  # disagreeing on d10/d20 examples costs nothing
    assert float(train._distillation(unknown, teacher, x, y)) < 1e-5


def test_collages_need_real_photos_and_replace_only_their_share_of_the_pool(tmp_path):
    from vision.training import cutouts, train
    from vision.training.scenes import SceneMix

    with pytest.raises(SystemExit, match="--collages needs --real"):
        train.main(["--collages", "0.3", "--pool", "2", "--render-only", "--out", str(tmp_path / "out"),
                    "--work", str(tmp_path / "work")])
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()  # nothing made
    die = cutouts.Cutout(np.full((40, 40, 3), (0, 0, 255), np.float32), np.ones((40, 40), np.float32), 5)
    plain = [train.scene_sample((7, i), SceneMix()) for i in range(12)]
    mixed = [train.scene_sample((7, i), SceneMix(collages=0.5), [die]) for i in range(12)]
    same = [np.array_equal(a.image, b.image) and np.array_equal(a.boxes, b.boxes) for a, b in zip(plain, mixed)]
    assert 0 < sum(same) < 12  # the others are the very scenes of the pool without collages
    assert all(set(m.faces.tolist()) <= {5} and len(m.faces) for m, s in zip(mixed, same) if not s)
    # Rendered in worker processes, the same scenes: the settings reach them as arguments. (In a
    # fresh interpreter: a process that ran parallel OpenCV calls cannot fork safely.)
    code = ("import numpy as np, sys; from vision.training import cutouts, train; "
            "from vision.training.scenes import SceneMix; "
            "die = cutouts.Cutout(np.full((40, 40, 3), (0, 0, 255), np.float32), np.ones((40, 40), np.float32), 5); "
            "pool = train.synth_pool(12, 7, SceneMix(collages=0.5), workers=2, cut=[die]); "
            "print(json.dumps([[s.boxes.tolist(), s.faces.tolist()] for s in pool]))")
    out = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True, text=True, check=True,
                         timeout=600)  # a guard against a hung worker, not a speed limit
    assert json.loads(out.stdout.splitlines()[-1]) == [[m.boxes.tolist(), m.faces.tolist()] for m in mixed]


def test_some_not_a_die_crops_are_parts_of_a_die_closer_than_any_die_is_seen(monkeypatch):
    """A close-up's pips must not read as dice showing 1: crops inside a die, a fraction of
    its size, are "not a die" examples."""
    from vision.training import train

    image = np.zeros((400, 400, 3), np.uint8)
    image[100:300, 100:300] = 255  # a white die on a black table
    cv2.circle(image, (150, 250), 15, (0, 0, 255), -1)  # its one pip, off-centre
    sample = train.Sample(image, np.array([[100, 100, 300, 300]]), np.array([1]))
    monkeypatch.setattr(train, "colour_jitter", lambda crop, rng: crop)
    monkeypatch.setattr(train, "INSIDE_SHARE", 1.0)
    rng = np.random.default_rng(3)
    on_pip = 0
    for _ in range(50):
        crop, label = train.crop_example(sample, rng, negative=True)
        assert label == train.NOT_A_DIE
        middle = crop[train.CROP // 2 - 2: train.CROP // 2 + 2, train.CROP // 2 - 2: train.CROP // 2 + 2]
        assert middle.max(axis=2).min() > 200  # centred on the die: white or red, never the table
        assert (crop.max(axis=2) > 200).mean() > 0.5  # mostly the die's face, not its outline
        on_pip += bool((middle[..., 0] < 50).all())
    assert 10 <= on_pip <= 40  # about half centred on the pip, as a close-up's main pass boxes it


def test_the_crop_side_is_an_argument_of_the_examples_and_the_export(tmp_path):
    """The numeral reader is the classifier's network on bigger crops: the examples are cut
    and the model exported at the side asked for."""
    import onnxruntime as ort

    from vision.training import train

    image = np.full((300, 300, 3), 60, np.uint8)
    image[100:200, 100:200] = 230
    sample = train.Sample(image, np.array([[100, 100, 200, 200]]), np.array([3]))
    rng = np.random.default_rng(0)
    crop, label = train.crop_example(sample, rng, negative=False, crop=96)
    assert crop.shape == (96, 96, 3) and label == train.class_of(6, 3)
    train.export_classifier(train.DiceClassifier().eval(), tmp_path / "r.onnx", crop=96)
    (x,) = ort.InferenceSession(str(tmp_path / "r.onnx")).get_inputs()
    assert x.shape[1:] == [3, 96, 96]


def test_a_wider_reader_trains_exports_and_is_read_by_the_detector(tmp_path):
    """`--width` widens every layer: the export has more weights, the same 37 classes, and
    the detector reads with it as its numeral reader."""
    import onnxruntime as ort

    from vision import synth
    from vision.detector import Detector
    from vision.training import train

    assert train.main(["--out", str(tmp_path), "--work", str(tmp_path / "work"), *TINY, "--what", "classifier",
                       "--crop", "96", "--width", "1.5", "--steps-classifier", "2"]) == 0
    wide = train.onnx_weights(tmp_path / "dice_classifier.onnx")
    narrow = train.DiceClassifier().state_dict()
    assert wide["fc.weight"].shape == (37, 144) and narrow["fc.weight"].shape == (37, 96)
    (out,) = ort.InferenceSession(str(tmp_path / "dice_classifier.onnx")).get_outputs()
    assert out.shape[1] == 37
    models = tmp_path / "m"
    models.mkdir()
    shipped = Path(__file__).resolve().parent.parent.parent / "models"
    for f in ("dice_detector.onnx", "dice_classifier.onnx"):
        shutil.copy(shipped / f, models / f)
    shutil.copy(tmp_path / "dice_classifier.onnx", models / "dice_reader.onnx")
    det = Detector(models, colours=False, threads=1)
    image, _ = synth.render_table([("red", 2, 320, 240, 0)], np.random.default_rng(0))
    crops = det._crops(image, np.array([[290, 210, 350, 270]], np.float32), 96)
    probs = det._read(crops, det._reader)
    assert probs.shape == (1, 37) and probs.sum() == pytest.approx(1.0, abs=1e-4)
