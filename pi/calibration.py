"""Colour calibration at the table: one throw of each seat colour under the camera, learnt,
saved in the data folder and handed to the detector."""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

from pi.words import Result, error, ok

log = logging.getLogger(__name__)


def colour_table_path(config: Any) -> Path:
    """Where the table's calibrated colours are kept (the detector loads them)."""
    return Path(config.data_dir) / "colours.json"


class Calibration:
    """``frame()`` gives the latest camera frame; ``changed()`` tells the pages."""

    def __init__(self, config: Any, detector: Any, frame: Callable[[], Any], changed: Callable[[], None]) -> None:
        self.config = config
        self.detector = detector
        self.frame = frame
        self.changed = changed
        self._lock = threading.Lock()
        self._captured: dict[str, tuple[Any, list[Any]]] = {}

    def status(self, camera_present: bool) -> dict[str, Any]:
        """The colours of the seats, and which have a captured calibration throw."""
        colours = [s["colour"] if isinstance(s, dict) else s.colour for s in getattr(self.config, "seats", ())]
        with self._lock:
            captured = {c: len(boxes) for c, (_, boxes) in self._captured.items()}
        return {"colours": colours, "captured": captured, "available": camera_present and self.detector is not None}

    def capture(self, colour: str) -> Result:
        """Keep the latest frame and its dice boxes as the calibration throw of ``colour``."""
        frame = self.frame()
        if frame is None or self.detector is None:
            return error("Calibration needs the camera and the detector; neither is reading now.",
                         "較正にはカメラと検出器が必要ですが、いまは読めていません。")
        boxes = [d.box for d in self.detector.detect(frame)]
        if not boxes:
            return error(f"No dice seen: throw the {colour} dice under the camera, then capture again.",
                         f"ダイスが見えません。{colour}のダイスをカメラの下に振ってから、もう一度取り込んでください。")
        with self._lock:
            self._captured[colour] = (frame, boxes)
        self.changed()
        return ok(dice=len(boxes))

    def save(self) -> Result:
        """Learn the colours from the captured throws, save them and hand them to the detector."""
        from vision.colours import ColourTable

        with self._lock:
            samples = [(c, frame, boxes) for c, (frame, boxes) in self._captured.items()]
        if not samples:
            return error("Capture one throw of each colour first.", "先に色ごとに1回ずつ取り込んでください。")
        try:
            table = ColourTable.calibrate(samples)
        except ValueError as exc:
            return error(str(exc), f"較正できません: {exc}")
        path = colour_table_path(self.config)
        path.parent.mkdir(parents=True, exist_ok=True)
        table.save(path)
        if self.detector is not None and hasattr(self.detector, "colours"):
            self.detector.colours = table
        with self._lock:
            self._captured.clear()
        self.changed()
        log.info("saved the colour calibration to %s", path)
        return ok()
