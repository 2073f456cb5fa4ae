"""The camera thread with the learned empty tray: a tray with dice-like prints, read by the
real detector through CameraLoop (its own thread, fed a scripted sequence of frames)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from pi.camera_loop import CameraLoop
from tests.vision.test_background import frame, on_a_print, tumbling


class ScriptedCamera:
    """Gives the frames of a script, one per read(); the last one stops the loop."""

    name = "scripted"

    def __init__(self, frames) -> None:
        self.frames = list(frames)
        self.reads = 0
        self.stop = None  # the loop's stop event

    def read(self):
        image = self.frames[self.reads]
        self.reads += 1
        if self.reads == len(self.frames):
            self.stop.set()  # the loop reads the dice of this frame, then ends
        return image

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def detector():
    from vision.detector import Detector

    return Detector()


def test_the_camera_loop_never_reports_the_prints_and_keeps_the_dice(detector):
    from vision.background import Background
    from vision.settle import Settler

    rng = np.random.default_rng(6)
    thrown = [("red", 4, 252.0, 165.0, 10.0), ("blue", 1, 420.0, 300.0, 30.0)]  # by the print, on the pips
    more = thrown + [("green", 6, 480.0, 172.0, 20.0)]  # by the token
    script = ([frame([], 1)] * 12  # the empty tray, still: the frames before the throw
              + [frame(s, 10 + k) for k, s in enumerate(tumbling(thrown, 3, rng))]
              + [frame(thrown, 2)] * 40  # settled, then lying still for 4 s: not absorbed
              + [frame(thrown + hop, 20 + k) for k, hop in enumerate(tumbling(more[2:], 2, rng))]
              + [frame(more, 3)] * 6)
    rolls = []
    camera = ScriptedCamera(script)
    loop = CameraLoop(camera, detector, Settler(), time.monotonic, lambda roll, image: rolls.append(roll),
                      lambda: None, frame_interval=0.0)
    assert isinstance(loop.background, Background) and loop.background.learn_frames == 10
    camera.stop = loop._stop
    loop.start()
    loop._thread.join(timeout=60)
    assert not loop._thread.is_alive() and camera.reads == len(script)
    assert loop.health()["ok"]
    first, second = rolls
    assert sorted((d.colour, d.face) for d in first.dice) == [("blue", 1), ("red", 4)]
    assert sorted((d.colour, d.face, d.status) for d in second.dice) == [
        ("blue", 1, "still"), ("green", 6, "new"), ("red", 4, "still")]
    assert not any(on_a_print(d.box) for d in first.dice + second.dice if d.colour == "red")
    assert loop.background.learned >= 4  # it learned while the dice lay still, around them


def test_a_detector_that_does_not_read_the_image_gets_no_background():
    class Fake:
        def detect(self, image):
            return []

    loop = CameraLoop(None, Fake(), None, time.monotonic, lambda roll, image: None, lambda: None)
    assert loop.background is None
    assert CameraLoop(None, Fake(), None, time.monotonic, lambda r, i: None, lambda: None,
                      background="mine").background == "mine"
