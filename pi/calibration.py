"""Colour calibration at the table: one throw of each seat colour under the camera, learnt,
saved in the data folder and handed to the detector. And the table's own dice taught
(`vision.faces`): a teaching session for one kind of die (d6, d10 or d20) asks for each of
its faces in turn (a d6's twice, `LOOKS`) and says which faces are still missing."""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

from pi.words import Result, error, ok

log = logging.getLogger(__name__)


#: The kinds of die a table can teach (`vision.detector.FACES`).
TEACHABLE = (6, 10, 20)
#: Photos of each face a teaching session asks for, by kind of die: a d6 a second time,
#: turned and moved, once every face is shown (one photo of each face taught a numbered d6
#: to 0.84-0.96 over seven seeds of `python -m vision.teach_check`, two to 0.92-0.99:
#: vision/README.md); a d10's or d20's book already holds 24 turns of each photo, and two
#: photos of each d20 face read no surer (docs/model-history.md, "2026-11-29, evening").
LOOKS = {6: 2, 10: 1, 20: 1}
#: The colour of the die the demo's synthetic table lays down to be taught.
DEMO_TEACH_COLOUR = "white"


def teachable(face: Any, sides: Any) -> bool:
    """A d``sides`` of `TEACHABLE` can show ``face`` (whole numbers only)."""
    from vision.detector import FACES

    return (type(sides) is int and sides in TEACHABLE and type(face) is int and face in FACES[sides])


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
        self._teaching: dict[str, Any] | None = None  # the session: {"sides": n, "photos": {face: count}}
        self._taught: dict[str, Any] | None = None  # what the last finished session showed

    def status(self, camera_present: bool) -> dict[str, Any]:
        """The colours of the seats, and which have a captured calibration throw."""
        colours = [s["colour"] if isinstance(s, dict) else s.colour for s in getattr(self.config, "seats", ())]
        with self._lock:
            captured = {c: len(boxes) for c, (_, boxes) in self._captured.items()}
        return {"colours": colours, "captured": captured, "available": camera_present and self.detector is not None,
                "teaching": self.teaching()}

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

    # -- teaching the table's own dice -----------------------------------------------------

    def teaching(self) -> dict[str, Any] | None:
        """The teaching session, or None: the kind of die, its faces, those shown (a photo
        taken), those missing, those to show again (`LOOKS`; once none is missing), and the
        next face to show (None once every face is shown as often as asked)."""
        from vision.detector import FACES

        with self._lock:
            if self._teaching is None:
                return None
            sides, photos = self._teaching["sides"], dict(self._teaching["photos"])
        missing = [f for f in FACES[sides] if not photos.get(f)]
        again = [f for f in FACES[sides] if 0 < photos.get(f, 0) < LOOKS[sides]]
        return {"sides": sides, "faces": list(FACES[sides]), "shown": sorted(photos), "missing": missing,
                "again": again, "next": (missing or again or [None])[0]}

    def start_teaching(self, sides: Any) -> Result:
        """Start teaching a die of ``sides`` sides (6, 10 or 20), face by face; a session
        already on is replaced (what it taught stays saved)."""
        if type(sides) is not int or sides not in TEACHABLE:
            return error("Choose the die to teach: d6, d10 or d20.", "教えるダイスを d6・d10・d20 から選んでください。")
        with self._lock:
            self._teaching = {"sides": sides, "photos": {}}
            self._taught = None
        self.changed()
        return ok(sides=sides)

    def finish_teaching(self) -> Result:
        """End the teaching session: what it taught stays saved and in use; the answer says
        which faces it showed and which are still missing."""
        status = self.teaching()
        if status is None:
            return error("No teaching session is on.", "教えている途中のダイスはありません。")
        with self._lock:
            self._teaching = None
            self._taught = status
        self.changed()
        return ok(sides=status["sides"], shown=status["shown"], missing=status["missing"])

    def last_teaching(self) -> dict[str, Any] | None:
        """What the last finished teaching session showed (as `teaching()` gave it), until
        the next one starts."""
        with self._lock:
            return self._taught

    def teach_face(self, face: Any, sides: Any = 6, frame: Callable[[], Any] | None = None) -> Result:
        """The dice under the camera now all show ``face`` of a d``sides`` (a logo for a 6, a
        d10's 7 in its own font): learn how that face looks on this table's dice, save it
        beside the colours and use it. In a teaching session the face counts as shown even
        when the model reads it right already (kept as a control, which keeps ordinary dice
        read as they are). ``frame``: where the photo comes from (default: the camera)."""
        from vision.detector import FACES
        from vision.faces import FaceBook, boxes_seen

        if type(sides) is not int or sides not in TEACHABLE:
            return error("Choose the die to teach: d6, d10 or d20.", "教えるダイスを d6・d10・d20 から選んでください。")
        faces = FACES[sides]
        if not teachable(face, sides):
            return error(f"Choose the face the dice show, {faces[0]} to {faces[-1]}.",
                         f"ダイスの目を{faces[0]}〜{faces[-1]}で選んでください。")
        session = self.teaching()
        if session is not None and session["sides"] != sides:
            return error(f"This session teaches a d{session['sides']}: finish it before teaching a d{sides}.",
                         f"いまは d{session['sides']} を教えています。d{sides} の前に終えてください。")
        photo = (frame or self.frame)()
        if photo is None or self.detector is None:
            return error("Teaching a face needs the camera and the detector; neither is reading now.",
                         "目を教えるにはカメラと検出器が必要ですが、いまは読めていません。")
        boxes = boxes_seen(self.detector, photo)
        if not len(boxes):
            return error("No dice seen: put the dice showing that face under the camera, then teach again.",
                         "ダイスが見えません。その目を上にしたダイスをカメラの下に置いてから、もう一度教えてください。")
        label = [face] if sides == 6 else [face, sides]
        book, report = FaceBook.teach(self.detector, [(photo, [[*b, *label] for b in boxes])])
        if not report.taught and session is None:
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
        with self._lock:
            if self._teaching is not None and self._teaching["sides"] == sides:
                photos = self._teaching["photos"]
                photos[face] = photos.get(face, 0) + 1
        self.changed()
        log.info("taught face %d of a d%d from %d dice (%d read right already), saved to %s",
                 face, sides, report.taught, report.controls, path)
        return ok(dice=report.taught, read_right=report.controls)

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
