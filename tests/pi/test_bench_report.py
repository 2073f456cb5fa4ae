"""`dicetable bench --report FILE`: one JSON file with the machine, the versions, the figures
of `bench` and `bench-table` and the camera's frame rate (pi.bench)."""
from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from pi import bench
from pi import config as config_module
from pi.cli import main


@pytest.fixture
def quick(monkeypatch):
    """The report's parts cut short: a few rolls, half a second of the demo loop and of the camera."""
    monkeypatch.setattr(bench, "REPORT_ROLLS", 3)
    monkeypatch.setattr(bench, "REPORT_SECONDS", 0.5)
    monkeypatch.setattr(bench, "REPORT_CAMERA_SECONDS", 0.3)


def test_report_writes_one_json_file_with_every_part(tmp_path, capsys, quick):
    path = tmp_path / "pi-report.json"
    assert main(["bench", "--runs", "2", "--threads", "1", "--report", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"report written to {path}" in out
    report = json.loads(path.read_text())
    assert {"machine", "versions", "bench", "bench_table", "camera"} <= set(report)
    assert {"cpu", "cores", "os", "python", "arch"} <= set(report["machine"])
    assert {"numpy", "opencv", "onnxruntime", "flask", "waitress", "gpiozero"} <= set(report["versions"])
    import pi

    assert report["versions"]["dicetable"] == pi.__version__  # not an editable install's old metadata
    assert [r["classifier"] for r in report["bench"]["results"]] == ["int8", "float"]
    assert report["bench"]["auto"][0]["kind"] in ("int8", "float")
    table = report["bench_table"]
    assert table["rolls"] == 3 and table["roll_to_phone"]["median_ms"] > 0 and table["peak_rss_mb"] > 0
    assert table["detector"]["kind"] in ("int8", "float") and table["demo_loop"]["seconds"] == 0.5
    camera = report["camera"]
    assert camera["source"] == "synthetic" and camera["synthetic"] is True and camera["fps"] > 0
    assert camera["size"] == [640, 480] and "unavailable" not in camera
    assert "camera: synthetic (synthetic table), 640x480" in out
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("where, says", [("missing/report.json", "no writable folder"), (".", "it is a folder")])
def test_report_refuses_a_place_it_cannot_write_before_timing_anything(tmp_path, capsys, monkeypatch, where, says):
    monkeypatch.setattr(bench, "report", lambda *a: pytest.fail("nothing is timed for a report it cannot write"))
    assert main(["bench", "--report", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetable bench: cannot write the report") and says in err and "Traceback" not in err
    assert not (tmp_path / "missing").exists()


def test_report_names_a_bad_config_and_config_is_for_report_only(tmp_path, capsys):
    bad = tmp_path / "dicetable.toml"
    bad.write_text("[camera\n")
    assert main(["bench", "--report", str(tmp_path / "r.json"), "--config", str(bad)]) == 2
    assert "config error" in capsys.readouterr().err
    assert main(["bench", "--config", str(bad)]) == 2
    assert "--config is for --report" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def _with_camera(**camera) -> config_module.Config:
    base = config_module.default()
    return dataclasses.replace(base, camera=dataclasses.replace(base.camera, **camera))


def test_the_configured_camera_is_timed_and_an_unavailable_one_is_said_so(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(2):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((120, 160, 3), 60 * i, np.uint8))
    clock = _FakeClock(0.05)  # a frame every 50 ms
    real = bench.camera_rate(_with_camera(source="replay", path=str(folder), fps=0), seconds=1.0, clock=clock)
    assert real["source"] == "replay" and real["synthetic"] is False and real["size"] == [160, 120]
    assert real["fps"] == pytest.approx(20, rel=0.1)
    gone = bench.camera_rate(_with_camera(source="replay", path=str(tmp_path / "no such folder"), fps=0),
                             seconds=1.0, clock=_FakeClock(0.05))
    assert gone["source"] == "synthetic" and gone["synthetic"] is True
    assert gone["unavailable"].startswith("replay: ") and "no such folder" in gone["unavailable"]
    assert gone["fps"] == pytest.approx(20, rel=0.1) and gone["size"] == [640, 480]


class _FakeClock:
    """perf_counter for frame_rate: each reading is `step` seconds after the one before."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_appliance_reads_with_the_quicker_classifier_remembered_in_its_data_folder(config, monkeypatch):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build
    from vision import classifiers

    monkeypatch.setattr(classifiers, "time_kinds", lambda sessions: {"int8": 3.0, "float": 1.0})

    def started():
        return build(config, demo=True, pin_factory=MockFactory(), animate=False,  # the synthetic camera
                     test_config={"CSRF": False, "TESTING": True})

    appliance = started()
    try:
        assert appliance.table.camera.detector.classifier.kind == "float"
        assert appliance.app.test_client().get("/healthz").json["camera"]["classifier"] == "float"
    finally:
        appliance.close()
    saved = json.loads((config.data_dir / classifiers.CHOICE_FILE_NAME).read_text())
    assert [entry["kind"] for entry in saved.values()] == ["float"]
    monkeypatch.setattr(classifiers, "time_kinds", lambda sessions: pytest.fail("the choice is remembered"))
    appliance = started()
    try:
        assert appliance.table.camera.detector.classifier.how == "remembered"
    finally:
        appliance.close()
