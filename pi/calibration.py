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


def faces_path(config: Any) -> Path:
    """Where the table's taught faces are kept (`dicetable teach`; the detector loads them)."""
    return Path(config.data_dir) / "faces.npz"


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

    def teach_face(self, face: Any) -> Result:
        """The dice under the camera now all show ``face`` (a logo for a 6, say): learn how
        that face looks on this table's dice, save it beside the colours and use it."""
        from vision.faces import FaceBook, boxes_seen

        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            return error("Choose the face the dice show, 1 to 6.", "ダイスの目を1〜6で選んでください。")
        frame = self.frame()
        if frame is None or self.detector is None:
            return error("Teaching a face needs the camera and the detector; neither is reading now.",
                         "目を教えるにはカメラと検出器が必要ですが、いまは読めていません。")
        boxes = boxes_seen(self.detector, frame)
        if not len(boxes):
            return error("No dice seen: put the dice showing that face under the camera, then teach again.",
                         "ダイスが見えません。その目を上にしたダイスをカメラの下に置いてから、もう一度教えてください。")
        book, report = FaceBook.teach(self.detector, [(frame, [[*b, face] for b in boxes])])
        if not report.taught:
            return error(f"The model already reads these {len(boxes)} dice as {face}: nothing to teach.",
                         f"この{len(boxes)}個のダイスはすでに{face}と読めています。教えることはありません。")
        path = faces_path(self.config)
        try:
            if path.exists():
                book = FaceBook.load(path).merged(book)
            book.save(path)
        except (OSError, ValueError) as exc:
            return error(f"Cannot save the taught faces: {exc}", f"教えた目を保存できません: {exc}")
        if hasattr(self.detector, "faces"):
            self.detector.faces = book
        self.changed()
        log.info("taught face %d from %d dice, saved to %s", face, report.taught, path)
        return ok(dice=report.taught)

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
