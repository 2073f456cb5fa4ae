"""`dicetable detect / evaluate / bench / calibrate` output and exit codes."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi.cli import main
from vision import synth
from vision.detector import DECISION

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "byler"


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    """A table data folder of the test's own: no calibration saved by the user is used."""
    folder = tmp_path / "data"
    monkeypatch.setenv("DICETABLE_DATA", str(folder))
    return folder


def red_throw(path: Path) -> Path:
    image, _ = synth.render_table([("red", 4, 320, 240, 10)], np.random.default_rng(0))
    cv2.imwrite(str(path), image)
    return path


def test_detect_prints_one_exact_json_line_per_image(capsys):
    assert main(["detect", "--json", str(FIXTURES)]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = sorted(p.name for p in FIXTURES.glob("*.jpg"))
    assert [json.loads(line)["image"] for line in lines] == names
    for line in lines:
        record = json.loads(line)
        assert set(record) == {"image", "dice"}
        assert record["dice"], record
        for die in record["dice"]:
            assert set(die) == {"box", "face", "colour", "confidence", "sides"}
            assert die["sides"] == 6 and die["confidence"] >= DECISION
            assert len(die["box"]) == 4 and all(round(v, 1) == v for v in die["box"])
            assert die["face"] in range(1, 7)
            assert 0 <= die["confidence"] <= 1 and round(die["confidence"], 4) == die["confidence"]
            assert die["colour"] is None or isinstance(die["colour"], str)


def test_detect_prints_candidates_below_the_decision_threshold_only_with_all(capsys, monkeypatch):
    """One more candidate, a die the classifier is unsure of (every face about as likely,
    and not plainly a die): its confidence falls below the decision threshold, so only --all
    prints it."""
    from vision import detector

    find, classify = detector.Detector._find, detector.Detector._classify

    def one_more(self, image):
        boxes, scores, from_coarse = find(self, image)
        return np.vstack([boxes, boxes[:1] + 200.0]), np.append(scores, 0.9), np.append(from_coarse, False)

    def unsure_of_the_last(self, crops):
        probs = classify(self, crops)
        probs[-1] = 0.0
        probs[-1, 0] = 0.2
        probs[-1, 1:7] = np.array((0.2, 0.16, 0.16, 0.16, 0.16, 0.16)) * 0.8
        return probs

    monkeypatch.setattr(detector.Detector, "_find", one_more)
    monkeypatch.setattr(detector.Detector, "_classify", unsure_of_the_last)
    image = sorted(FIXTURES.glob("*.jpg"))[0]
    assert main(["detect", str(image)]) == 0
    decided = json.loads(capsys.readouterr().out)["dice"]
    assert main(["detect", "--all", str(image)]) == 0
    everything = json.loads(capsys.readouterr().out)["dice"]
    assert len(everything) == len(decided) + 1
    assert min(d["confidence"] for d in everything) < DECISION <= min(d["confidence"] for d in decided)


def test_detect_reports_an_unreadable_file_and_goes_on(tmp_path, capsys):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not an image")
    cv2.imwrite(str(tmp_path / "thumb.png"), np.zeros((10, 12, 3), np.uint8))  # too small to hold dice
    good = tmp_path / "table.png"
    red_throw(good)
    assert main(["detect", str(tmp_path), str(tmp_path / "missing.jpg")]) == 1
    out = capsys.readouterr()
    assert "broken.jpg" in out.err and "missing.jpg" in out.err
    assert "thumb.png: image of 12x10 px is too small" in out.err and "Traceback" not in out.err
    records = [json.loads(line) for line in out.out.splitlines()]
    assert [r["image"] for r in records] == ["table.png"]
    assert [d["face"] for d in records[0]["dice"]] == [4]


def test_detect_takes_any_case_of_suffix_and_skips_hidden_and_other_files(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    photo = next(FIXTURES.glob("*.jpg"))
    shutil.copy(photo, folder / "B.JPG")
    shutil.copy(photo, folder / "a.Jpeg")
    red_throw(folder / "c.PNG")
    (folder / "._B.JPG").write_bytes(b"macOS resource fork")
    (folder / "notes.txt").write_text("not a photo")
    assert main(["detect", "--json", "--threads", "2", str(folder)]) == 0
    out = capsys.readouterr()
    assert [json.loads(line)["image"] for line in out.out.splitlines()] == ["B.JPG", "a.Jpeg", "c.PNG"]
    assert out.err == ""


def test_a_photo_whose_name_is_not_utf8_is_read_as_any_other(tmp_path):
    # cv2.imread crashed the process on such a name (café.jpg from an old zip); run apart
    import os
    import subprocess
    import sys

    photo = next(FIXTURES.glob("*.jpg"))
    try:
        odd = tmp_path / os.fsdecode(b"caf\xe9.jpg")
        shutil.copy(photo, odd)
    except (OSError, UnicodeError):
        pytest.skip("this file system takes UTF-8 names only")
    done = subprocess.run([sys.executable, "-c", "import sys; from pi.cli import main; sys.exit(main(sys.argv[1:]))",
                           "detect", "--json", str(photo), str(odd)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert second["dice"] == first["dice"] and first["dice"]


def test_detect_names_an_empty_folder_and_a_bad_thread_count(tmp_path, capsys):
    assert main(["detect", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "no images in this folder" in out.err
    with pytest.raises(SystemExit) as exit_:
        main(["detect", "--threads", "0", str(tmp_path)])
    assert exit_.value.code == 2
    assert "--threads" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # a thousand threads stalled one photo for minutes
        main(["detect", "--threads", "1000", str(tmp_path)])
    assert exit_.value.code == 2 and "use 1 to 64" in capsys.readouterr().err


def test_detect_refuses_a_bad_colour_table_and_missing_models(tmp_path, capsys):
    photo = red_throw(tmp_path / "table.png")
    bad = tmp_path / "colours.json"
    bad.write_text('{"format": "something else"}')
    assert main(["detect", "--colours", str(bad), str(photo)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "not a colour table" in out.err and "Traceback" not in out.err
    assert main(["detect", "--models", str(tmp_path), str(photo)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "dice_detector.onnx not found" in out.err


def test_detect_text_format_is_readable(capsys):
    assert main(["detect", "--text", str(next(FIXTURES.glob("*.jpg")))]) == 0
    assert "dice" in capsys.readouterr().out


def test_detect_text_adds_up_each_kind_of_die_apart():
    from vision.cli import _totals

    assert _totals([]) == "total 0"
    assert _totals([{"sides": 6, "face": 3}, {"sides": 6, "face": 5}]) == "total 8"
    mixed = [{"sides": 6, "face": 3}, {"sides": 20, "face": 17}, {"sides": 10, "face": 0}, {"sides": 6, "face": 1}]
    assert _totals(mixed) == "totals d6 4, d10 0, d20 17"


def test_evaluate_prints_the_scorer_metrics_per_folder(tmp_path, capsys):
    dets = tmp_path / "dets.jsonl"
    assert main(["evaluate", str(FIXTURES), "--detections", str(dets)]) == 0
    result = json.loads(capsys.readouterr().out.strip())
    assert result["folder"] == str(FIXTURES) and result["images"] == 3
    assert {"recall", "precision", "face_accuracy", "end_to_end", "image_exact"} <= set(result)
    assert len(dets.read_text().splitlines()) == 3


def test_evaluate_split_val_keeps_every_fifth_image(tmp_path, capsys):
    folder = tmp_path / "set"
    shutil.copytree(FIXTURES, folder)
    assert main(["evaluate", str(folder), "--split", "val", "--val-every", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["images"] == 1


@pytest.mark.parametrize("photo", [b"not a JPEG", cv2.imencode(".png", np.zeros((10, 12, 3), np.uint8))[1].tobytes()])
def test_evaluate_counts_a_photo_it_cannot_read_as_no_output(tmp_path, capsys, photo):
    (tmp_path / "a.png").write_bytes(photo)
    (tmp_path / "annotations.json").write_text('{"a.png": {"dice": [[1, 1, 9, 9, 3]]}}')
    assert main(["evaluate", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert "a.png" in out.err and "counted as no output" in out.err and "Traceback" not in out.err
    assert json.loads(out.out)["images_without_output"] == 1


def test_evaluate_names_a_folder_without_labels(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path)]) == 1
    assert "annotations.json" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["[1, 2]", '{"a.jpg": {"dice": [[1, 2, 3]]}}', '{"a.jpg"'])
def test_evaluate_names_malformed_labels(tmp_path, capsys, content):
    (tmp_path / "annotations.json").write_text(content)
    assert main(["evaluate", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "annotations.json" in err and "Traceback" not in err


def test_bench_reports_times_and_memory(capsys):
    assert main(["bench", "--runs", "3", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert [(r["threads"], r["classifier"]) for r in report["results"]] == [(1, "int8"), (1, "float")]
    for r in report["results"]:
        assert 0 < r["median_ms"] <= r["p90_ms"]
    assert report["peak_rss_mb"] > 0 and "cores" in report["machine"]
    assert report["views"] == 2 and "2 view(s) per die" in out


def test_bench_puts_both_classifiers_side_by_side_and_says_what_auto_picks(capsys, monkeypatch):
    from vision import classifiers

    monkeypatch.setattr(classifiers, "time_kinds", lambda sessions: {"int8": 3.0, "float": 1.0})
    assert main(["bench", "--runs", "2", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert report["auto"] == [{"threads": 1, "kind": "float", "how": "timed", "ms": {"int8": 3.0, "float": 1.0}}]
    assert "threads 1,  int8 classifier: median" in out and "threads 1, float classifier: median" in out
    assert "auto picks the float classifier with 1 thread(s)" in out


def test_bench_times_one_classifier_when_asked_and_names_a_missing_file(tmp_path, capsys):
    assert main(["bench", "--runs", "2", "--threads", "1", "--classifier", "float"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [r["classifier"] for r in report["results"]] == ["float"]
    models = Path(__file__).resolve().parents[2] / "models"
    shutil.copy(models / "dice_detector.onnx", tmp_path)
    shutil.copy(models / "dice_classifier.onnx", tmp_path)
    assert main(["bench", "--runs", "2", "--threads", "1", "--models", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    assert [r["classifier"] for r in report["results"]] == ["int8"] and report["missing"] == ["float"]
    assert report["auto"][0]["kind"] == "int8" and report["auto"][0]["how"] == "only usable file"
    assert "float classifier: its file is not in the models folder; not timed" in out
    with pytest.raises(SystemExit):
        main(["bench", "--classifier", "fp16"])


def test_bench_on_photos_times_what_detect_does_per_photo(tmp_path, capsys):
    shutil.copy(FIXTURES / sorted(p.name for p in FIXTURES.glob("*.jpg"))[0], tmp_path / "a.jpg")
    red_throw(tmp_path / "b.png")
    assert main(["bench", "--photos", str(tmp_path), "--runs", "2"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out.strip().splitlines()[-1])
    r, other = report["results"]
    assert (r["classifier"], other["classifier"]) == ("int8", "float") and other["mean_dice_found"] > 0
    assert report["photos"] == 2 and report["passes"] == 2 and r["threads"] == 1
    assert 0 < r["median_ms"] and 0 < r["p90_ms"]
    # the same dice as `detect` prints for these photos
    assert main(["detect", "--json", str(tmp_path)]) == 0
    printed = [len(json.loads(line)["dice"]) for line in capsys.readouterr().out.splitlines()]
    assert r["mean_dice_found"] == pytest.approx(sum(printed) / 2)
    assert "2 photo(s)" in out and "per photo" in out


@pytest.mark.parametrize("files, given, says", [
    ({}, "missing", "no such file or folder"),
    ({"notes.txt": b"no photo"}, ".", "no images in this folder"),
    ({"broken.jpg": b"not a JPEG"}, "broken.jpg", "cannot read"),
])
def test_bench_on_photos_refuses_what_is_not_a_photo(tmp_path, capsys, files, given, says):
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    assert main(["bench", "--photos", str(tmp_path / given)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetable bench: ") and says in err and "Traceback" not in err


def test_views_reads_each_die_in_as_many_quarter_turns(capsys):
    assert main(["bench", "--runs", "2", "--threads", "1", "--views", "4"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["views"] == 4
    with pytest.raises(SystemExit):
        main(["detect", "--views", "3", str(FIXTURES)])


def test_calibrate_saves_a_colour_table(tmp_path, capsys):
    from vision import colours

    paths = []
    for name in ("red", "blue"):
        places = synth.layout(4, np.random.default_rng(1))
        image, _ = synth.render_table([(name, 1 + i, x, y, a) for i, (x, y, a) in enumerate(places)],
                                      np.random.default_rng(2))
        p = tmp_path / f"{name}.png"
        cv2.imwrite(str(p), image)
        paths += ["--colour", name, str(p)]
    out = tmp_path / "colours.json"
    assert main(["calibrate", *paths, "--out", str(out)]) == 0
    table = colours.ColourTable.load(out)
    assert {"red", "blue"} <= set(table.names())
    capsys.readouterr()
    assert main(["detect", "--colours", str(out), str(tmp_path / "red.png")]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [d["colour"] for d in record["dice"]] == ["red"] * 4


def test_calibration_is_saved_in_the_data_folder_and_reused_by_detect(tmp_path, capsys, data_folder):
    # A table whose dice are only orange and blue: the calibration names a red die
    # nothing (unknown), where the default palette says red.
    paths = []
    for name in ("orange", "blue"):
        places = synth.layout(4, np.random.default_rng(1))
        image, _ = synth.render_table([(name, 1 + i, x, y, a) for i, (x, y, a) in enumerate(places)],
                                      np.random.default_rng(2))
        cv2.imwrite(str(tmp_path / f"{name}.png"), image)
        paths += ["--colour", name, str(tmp_path / f"{name}.png")]
    red = red_throw(tmp_path / "red.png")
    assert main(["detect", str(red)]) == 0
    assert [d["colour"] for d in json.loads(capsys.readouterr().out)["dice"]] == ["red"]
    assert main(["calibrate", *paths]) == 0
    assert (data_folder / "colours.json").is_file()
    capsys.readouterr()
    assert main(["detect", str(red), str(tmp_path / "blue.png")]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert [d["colour"] for d in first["dice"]] == [None]
    assert [d["colour"] for d in second["dice"]] == ["blue"] * 4
    assert main(["detect", "--colours", "default", str(red)]) == 0
    assert [d["colour"] for d in json.loads(capsys.readouterr().out)["dice"]] == ["red"]


def test_a_broken_saved_calibration_falls_back_to_the_default_palette(tmp_path, capsys, data_folder):
    data_folder.mkdir()
    (data_folder / "colours.json").write_text("{")
    assert main(["detect", str(red_throw(tmp_path / "red.png"))]) == 0
    out = capsys.readouterr()
    assert [d["colour"] for d in json.loads(out.out)["dice"]] == ["red"]
    assert "colours.json" in out.err and "default palette" in out.err


def test_calibrate_takes_the_tables_colour_names_and_saves_where_a_config_says(tmp_path, capsys):
    red = red_throw(tmp_path / "red.png")
    assert main(["calibrate", "--colour", "navy", str(red), "--out", str(tmp_path / "c.json")]) == 2
    assert "'navy' is not a dice colour the table knows; use red, orange" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
    assert main(["calibrate", "--colour", "red", str(red), "--out", str(tmp_path)]) == 2  # a folder
    assert "is a folder; give --out a file name" in capsys.readouterr().err
    config = tmp_path / "dicetable.toml"
    config.write_text('host_pin = "4821"\ndata_dir = "table-data"\n'
                      '[[seats]]\nname = "Aki"\ncolour = "red"\nbutton_pin = 5\nled_pin = 12\n')
    assert main(["calibrate", "--colour", "Red", str(red), "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "table-data" / "colours.json").is_file() and "systemctl restart dicetable" in out
    from vision import colours

    assert colours.ColourTable.load(tmp_path / "table-data" / "colours.json").names()[0] == "red"


def test_calibrate_refuses_a_photo_without_dice(tmp_path, capsys):
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), synth.render_table([], np.random.default_rng(0))[0])
    assert main(["calibrate", "--colour", "red", str(empty), "--out", str(tmp_path / "c.json")]) == 1
    assert "no dice found" in capsys.readouterr().err


def test_calibrate_refuses_a_photo_too_small_to_hold_dice(tmp_path, capsys):
    thumb = tmp_path / "thumb.png"
    cv2.imwrite(str(thumb), np.zeros((10, 12, 3), np.uint8))
    assert main(["calibrate", "--colour", "red", str(thumb), "--out", str(tmp_path / "c.json")]) == 1
    err = capsys.readouterr().err
    assert "thumb.png: image of 12x10 px is too small to hold dice (for colour red)" in err
    assert not (tmp_path / "c.json").exists()
