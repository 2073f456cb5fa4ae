"""Frame sources: replay, the synthetic table, the retrying wrapper and picamera2's error."""
from __future__ import annotations

import logging
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision import camera as cam
from vision import synth
from vision.camera import (CameraError, ReplayCamera, RetryingCamera, SyntheticTable,
                           open_camera)



class Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def frames_folder(tmp_path, n=3, size=(64, 48)):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(n):
        image = np.full((size[1], size[0], 3), 40 * (i + 1), np.uint8)
        cv2.imwrite(str(folder / f"frame{i:03d}.png"), image)
    (folder / "notes.txt").write_text("not a frame")
    return folder


def test_replay_reads_a_folder_in_name_order_and_loops(tmp_path):
    replay = ReplayCamera(frames_folder(tmp_path))
    values = [int(replay.read()[0, 0, 0]) for _ in range(4)]
    assert values == [40, 80, 120, 40]
    assert replay.read().shape == (48, 64, 3)
    assert replay.preview().shape[1] == 64  # no bigger than the frame itself
    replay.close()


def test_replay_without_loop_ends_with_a_camera_error(tmp_path):
    replay = ReplayCamera(frames_folder(tmp_path, n=2), loop=False)
    replay.read(), replay.read()
    with pytest.raises(CameraError, match="finished"):
        replay.read()


def test_replay_paces_at_fps(tmp_path):
    clock = Clock()
    replay = ReplayCamera(frames_folder(tmp_path), fps=10, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        replay.read()
    assert clock.slept == pytest.approx([0.1, 0.1])


def test_replay_of_a_video(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(3):
        writer.write(np.full((48, 64, 3), 60 * (i + 1), np.uint8))
    writer.release()
    replay = ReplayCamera(path)
    values = [int(replay.read()[0, 0].mean()) for _ in range(4)]
    assert values[0] == pytest.approx(60, abs=8) and values[3] == pytest.approx(60, abs=8)
    assert values[2] == pytest.approx(180, abs=8)


def test_replay_errors_say_what_to_fix(tmp_path):
    with pytest.raises(CameraError, match="no such folder or video file"):
        ReplayCamera(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="holds no images"):
        ReplayCamera(tmp_path / "empty")


def test_synthetic_table_tumbles_then_rests():
    table = SyntheticTable(size=(320, 240), seed=3, die_px=32, tumble_frames=4)
    empty = table.read()
    assert empty.shape == (240, 320, 3) and empty.dtype == np.uint8
    thrown = table.throw([("red", 3), ("blue", 5)])
    assert [(c, f) for c, f, *_ in thrown] == [("red", 3), ("blue", 5)]
    assert table.moving
    tumbling = [table.read() for _ in range(4)]
    for a, b in zip(tumbling, tumbling[1:]):
        assert not np.array_equal(a, b)
    assert not table.moving
    rest = [table.read() for _ in range(3)]
    assert not np.array_equal(tumbling[-1], rest[0])
    assert all(np.array_equal(rest[0], r) for r in rest[1:])
    assert sorted((f, c) for _, f, c in table.labels) == [(3, "red"), (5, "blue")]
    preview = table.preview()
    assert preview.shape == (240, 320, 3)  # 320 wide already
    assert np.array_equal(preview, table.preview())


def test_synthetic_table_adds_dice_then_rethrows_all():
    table = SyntheticTable(size=(640, 480), seed=1, tumble_frames=2)
    table.throw([("red", 1), ("red", 2)])
    first = table.dice
    table.throw([("blue", None)])  # a face rolled by the table
    dice = table.dice
    assert dice[:2] == first and dice[2][0] == "blue" and 1 <= dice[2][1] <= 6
    for _ in range(2):
        frame = table.read()  # the red dice stay put while the blue one tumbles
    rest = table.read()
    assert not np.array_equal(frame, rest)
    assert len(table.labels) == 3
    table.throw([("red", 6), ("red", 6), ("blue", 6)], rethrow_all=True)
    assert [(c, f) for c, f, *_ in table.dice] == [("red", 6), ("red", 6), ("blue", 6)]
    assert [d[2:] for d in table.dice[:2]] != [d[2:] for d in first]
    table.clear()
    assert table.dice == [] and not table.moving
    with pytest.raises(ValueError):
        table.throw([("red", 7)])


def test_synthetic_table_throws_d10_and_d20_drawn_the_same_in_every_frame():
    table = SyntheticTable(size=(640, 480), seed=2, tumble_frames=2)
    thrown = table.throw([("red", 3), ("blue", 17, 20), ("white", 0, 10), ("green", None, 10)])
    assert [(c, f, d[-1]) for c, f, *d in thrown][:3] == [("red", 3, 6), ("blue", 17, 20), ("white", 0, 10)]
    assert 0 <= thrown[3][1] <= 9
    for _ in range(2):
        table.read()
    rest = [table.read() for _ in range(2)]
    assert np.array_equal(rest[0], rest[1])
    assert sorted((c, f) for _, f, c in table.labels) == sorted((c, f) for c, f, *_ in thrown)
    with pytest.raises(ValueError, match="d10 face is 0-9"):
        table.throw([("red", 10, 10)])
    with pytest.raises(ValueError, match="6, 10 or 20 sides"):
        table.throw([("red", 3, 8)])


def _rest(table):
    """Read frames until the thrown dice lie still; the frame at rest."""
    while table.moving:
        table.read()
    return table.read()


def test_synthetic_table_rethrows_the_picked_dice_and_leaves_the_others():
    table = SyntheticTable(seed=4, tumble_frames=2)
    assert table.die_px == synth.tray_die_px((640, 480))
    table.throw([("red", 1), ("red", 2), ("blue", 3, 10), ("red", 4), ("blue", 5)])
    _rest(table)
    before = table.dice
    again = table.rethrow([1, 2], [6, None])
    after = table.dice
    assert [after[i] for i in (0, 3, 4)] == [before[i] for i in (0, 3, 4)]
    assert again == [after[1], after[2]] and after[1][:2] == ("red", 6) and after[2][0] == "blue"
    assert after[2][5] == 10 and 0 <= after[2][1] <= 9  # still a d10, its face rolled
    for i in (1, 2):  # landed away from every die and from where it lay
        for x, y, *_ in [d[2:] for d in before] + [d[2:] for k, d in enumerate(after) if k != i]:
            assert np.hypot(after[i][2] - x, after[i][3] - y) >= table.die_px * 1.42
    assert table.moving
    _rest(table)
    assert sorted((c, f) for _, f, c in table.labels) == sorted((d[0], d[1]) for d in after)
    with pytest.raises(ValueError, match="no die"):
        table.rethrow([7])
    assert table.dice == after


def test_synthetic_table_lays_out_rows_alone_on_the_tray():
    from vision.grid import place_rows

    table = SyntheticTable(seed=5, tumble_frames=2)
    table.throw([("green", 2)] * 6)
    rows = [[("red", 3), ("blue", 4), None, ("yellow", 2)], [("clear", 3), None, None], [None, None], [None]]
    laid = table.lay_out(rows)
    assert [(c, f) for c, f, *_ in laid] == [("red", 3), ("blue", 4), ("yellow", 2), ("clear", 3)]
    assert table.dice == laid and not table.moving  # laid, not thrown: no tumbling
    table.read()
    boxes = [box for box, _, _ in table.labels]
    placed = place_rows(boxes, (4, 3, 2, 1))
    assert [[None if i is None else table.labels[i][2] for i in row] for row in placed.rows] == [
        ["red", "blue", None, "yellow"], ["clear", None, None], [None, None], [None]]
    with pytest.raises(ValueError, match="unknown die colour"):
        table.lay_out([[("mauve", 3)]])
    assert table.dice == laid


def test_a_full_synthetic_tray_says_so_and_stays_as_it_was():
    table = SyntheticTable(seed=6, tumble_frames=0)
    for _ in range(4):
        table.throw([("red", None)] * 10)
    full = table.dice
    assert len(full) == synth.TRAY_DICE
    with pytest.raises(synth.TrayFull, match="cannot place 40 dice"):
        table.throw([("blue", 1)] * 40)
    assert table.dice == full


def test_the_preview_of_a_big_frame_is_small():
    table = SyntheticTable(size=(1280, 960), tumble_frames=0)
    assert table.preview().shape == (240, 320, 3)


def test_open_camera_by_source(tmp_path):
    config = SimpleNamespace(source="synthetic", device=0, path=None, width=320, height=240,
                             fps=10.0, focus=2.5, exposure_us=10000, awb_gains=(1.8, 1.6))
    camera = open_camera(config)
    assert isinstance(camera, SyntheticTable) and camera.size == (320, 240)
    config.source, config.path = "replay", str(frames_folder(tmp_path))
    assert isinstance(open_camera(config), ReplayCamera)
    config.source = "webcam"
    with pytest.raises(CameraError, match="not known"):
        open_camera(config)


def test_picamera2_missing_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_picamera2(name, *args, **kwargs):
        if name == "picamera2":
            raise ImportError("No module named 'picamera2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_picamera2)
    with pytest.raises(CameraError, match=r"apt install python3-picamera2.*system-site-packages"):
        cam.PiCamera()


def test_picamera2_is_configured_with_fixed_controls(monkeypatch):
    import sys
    import types

    calls = {}

    class FakePicamera2:
        camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 32.0, 1.0)}

        def create_video_configuration(self, **kwargs):
            calls["config"] = kwargs
            return kwargs

        def configure(self, config):
            calls["configured"] = config

        def start(self):
            calls["started"] = True

        def capture_array(self, stream):
            if stream == "main":
                return np.zeros((960, 1280, 3), np.uint8)
            return np.zeros((240 * 3 // 2, 320), np.uint8)

        def stop(self):
            calls["stopped"] = True

        def close(self):
            calls["closed"] = True

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    camera = cam.PiCamera(1280, 960, focus=3.0, exposure_us=8000, awb_gains=(2.0, 1.5), fps=10)
    config = calls["config"]
    assert config["main"] == {"size": (1280, 960), "format": "RGB888"}
    assert config["lores"] == {"size": (320, 240), "format": "YUV420"}
    assert config["controls"] == {
        "AeEnable": False, "ExposureTime": 8000, "AwbEnable": False, "ColourGains": (2.0, 1.5),
        "FrameDurationLimits": (100000, 100000), "AfMode": 0, "LensPosition": 3.0}
    assert calls["started"]
    assert camera.read().shape == (960, 1280, 3)
    assert camera.preview().shape == (240, 320, 3)
    camera.close()
    assert calls["stopped"] and calls["closed"]


def test_picamera2_lores_row_padding_is_cut_off(monkeypatch):
    import sys
    import types

    class FakePicamera2:
        camera_controls: dict = {}

        def create_video_configuration(self, **kwargs):
            return kwargs

        def configure(self, config):
            self.lores = config["lores"]["size"]

        def start(self):
            pass

        def capture_array(self, stream):
            w, h = self.lores
            return np.zeros((h * 3 // 2, 320), np.uint8)  # rows padded to a 64-byte stride

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    camera = cam.PiCamera(300, 226)
    assert camera.preview().shape == (226, 300, 3)


class Flaky:
    """A camera factory whose camera can be unplugged and plugged back."""

    def __init__(self) -> None:
        self.plugged = True
        self.opened = 0

    def __call__(self):
        if not self.plugged:
            raise CameraError("no camera on /dev/video0")
        self.opened += 1
        flaky = self

        class Device:
            name = "flaky"

            def read(self):
                if not flaky.plugged:
                    raise CameraError("unplugged")
                return np.zeros((4, 4, 3), np.uint8)

            def preview(self):
                return self.read()

            def close(self):
                pass

        return Device()


def test_retrying_camera_reports_failure_and_recovers(caplog):
    clock = Clock()
    factory = Flaky()
    seen = []
    camera = RetryingCamera(factory, retry_every=2.0, on_status=seen.append, clock=clock,
                            sleep=clock.sleep)
    assert camera.status == "ok" and camera.read() is not None
    factory.plugged = False
    with caplog.at_level(logging.WARNING, logger="vision.camera"):
        assert camera.read() is None  # never raises
        assert camera.status == "failed: unplugged" and camera.name == "camera (down)"
        assert camera.read() is None  # waits for the next attempt, which fails again
        assert clock.slept == [2.0] and camera.status == "retrying"
        assert camera.reason == "no camera on /dev/video0"
        assert camera.preview() is None
        assert clock.slept == [2.0, 2.0]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1  # logged once
    factory.plugged = True
    assert camera.read() is not None
    assert camera.status == "ok" and factory.opened == 2 and camera.reason is None
    assert seen == ["ok", "failed: unplugged", "retrying", "ok"]


def test_retrying_camera_that_never_opened():
    clock = Clock()
    factory = Flaky()
    factory.plugged = False
    camera = RetryingCamera(factory, retry_every=5.0, clock=clock, sleep=clock.sleep)
    assert camera.status == "failed: no camera on /dev/video0" and camera.camera is None
    factory.plugged = True
    assert camera.read() is not None and clock.slept == [5.0]
    assert camera.status == "ok" and camera.camera is not None
    camera.close()


def test_close_ends_the_wait_for_the_next_attempt():
    import threading

    factory = Flaky()
    factory.plugged = False
    camera = RetryingCamera(factory, retry_every=60.0)
    waiting = threading.Event()
    default_wait = camera._sleep  # the real wait, only watched here
    camera._sleep = lambda seconds: (waiting.set(), default_wait(seconds))
    result = {}
    reader = threading.Thread(target=lambda: result.setdefault("frame", camera.read()))
    reader.start()
    assert waiting.wait(timeout=5)
    camera.close()  # without this the read would wait a minute
    reader.join(timeout=5)
    assert not reader.is_alive() and result == {"frame": None}
    assert camera.read() is None and factory.opened == 0
