"""The camera thread: read a frame, find the dice, wait until they settle, hand each settled
roll to the table; and the two pictures the pages show (the live frame, the last roll).

It knows nothing of games: a settled roll goes to ``table.settled_roll(roll, frame)``,
which decides what it means.

Between the detector and the settler sits the learned empty tray (`vision.background`):
every frame teaches it, and the dice whose place looks as the tray looked without them (a
die printed on the cloth, a token) are dropped before the settler sees them. It is used
with the image model (`vision.detector.Detector`); a detector that does not read the image
(the tests' fakes) gets no background unless one is passed.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

# How often the camera thread reads a frame, and how often it re-encodes the live JPEG.
FRAME_INTERVAL_S = 0.1
JPEG_INTERVAL_S = 0.2
# A camera that has not answered for this long while the loop runs is reported as stalled.
STALL_S = 5.0
# Mean grey-level change (0-255) of a 80x60 copy of the frame above which the table moves.
MOTION_THRESHOLD = 1.5
# Quiet seconds after which the background is learned (see vision/background.py).
BACKGROUND_LEARN_S = 1.0

#: CameraLoop's default background: a learned empty tray for the image model.
AUTO: Any = object()

NO_CAMERA = {
    "en": "No camera: type the dice on the host page.",
    "ja": "カメラがありません。ホスト画面でダイスの目を入力してください。",
}


class CameraLoop:
    """Reads ``camera`` (``read() -> image``), runs ``detector`` and ``settler`` on each
    frame that moved, and reports settled rolls through ``on_roll(roll, frame)``;
    ``on_status()`` is called when the camera's health changes (the pages say so).
    ``background``: a ``vision.background.Background`` (or anything with its
    ``observe(frame)`` and ``filter(frame, detections)``) through which the detections pass
    before the settler; by default one is made for the image model and none for other
    detectors; None: no background."""

    def __init__(self, camera: Any, detector: Any, settler: Any, clock: Callable[[], float],
                 on_roll: Callable[[Any, Any], Any], on_status: Callable[[], None],
                 frame_interval: float = FRAME_INTERVAL_S, background: Any = AUTO) -> None:
        self.camera = camera
        self.detector = detector
        self.settler = settler
        self.background = _default_background(detector, frame_interval) if background is AUTO else background
        self.clock = clock
        self.on_roll = on_roll
        self.on_status = on_status
        self.frame_interval = frame_interval
        self.status: dict[str, Any] = {"ok": camera is not None, "message": None if camera else NO_CAMERA}
        self._lock = threading.Lock()
        self._latest: Any = None
        self._jpeg_lock = threading.Lock()
        self._frame_jpeg: bytes | None = None
        self._frame_jpeg_time = -1e9
        self._roll_jpeg: tuple[Any, bytes | None] = (None, None)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._reset = False
        self._still = False  # the settler reported the layout and nothing has moved since
        self._previous_small: Any = None
        self._asked_at: float | None = None  # when the running read() was called

    def health(self) -> dict[str, Any]:
        """The camera's status for the pages, including a read that hangs (a camera that
        neither answers nor fails: the loop cannot see it, so the pages are told here)."""
        asked = self._asked_at
        if self._thread is not None and asked is not None and self.clock() - asked >= STALL_S:
            waited = self.clock() - asked
            return {"ok": False, "message": {
                "en": f"The camera has not answered for {waited:.0f} s. Check its cable; type the dice on the "
                      "host page meanwhile.",
                "ja": f"カメラが{waited:.0f}秒応答していません。ケーブルを確認してください。その間はホスト画面でダイスを入力してください。",
            }}
        return dict(self.status)

    @property
    def latest_frame(self) -> Any:
        with self._lock:
            return self._latest

    def new_round(self) -> None:
        """What lands next is all new (the settler forgets the dice on the table)."""
        self._reset = True

    def start(self) -> None:
        if self.camera is None or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        from vision.camera import CameraError

        while not self._stop.is_set():
            started = self._asked_at = self.clock()
            try:
                frame = self.camera.read()
            except CameraError as exc:  # a bare source; RetryingCamera returns None instead
                frame, reason = None, str(exc)
            except Exception as exc:  # a fault the appliance rides out
                log.exception("camera read failed")
                frame, reason = None, str(exc)
            else:
                reason = getattr(self.camera, "reason", None) or getattr(self.camera, "status", None)
            finally:
                self._asked_at = None
            if frame is None:
                self._set_status(False, str(reason or "no frame"))
                self._stop.wait(self.frame_interval)
                continue
            self._set_status(True, None)
            with self._lock:
                self._latest = frame
            if self.detector is not None and self.settler is not None:
                try:
                    self._read_dice(frame)
                except Exception:
                    log.exception("reading the dice failed; the game goes on with typed dice")
            self._stop.wait(max(0.0, self.frame_interval - (self.clock() - started)))

    def _read_dice(self, frame: Any) -> None:
        if self._reset:
            self._reset = False
            self._still = False
            self.settler.reset()
        moved = self._motion(frame)
        if self.background is not None:
            self.background.observe(frame)  # every frame: it learns from the still ones
        if moved or not self._still:
            found = self.detector.detect(frame)
            if self.background is not None:
                found = self.background.filter(frame, found)  # prints on the cloth are no dice
            status = self.settler.update(found, self.clock())
            # Once the table has settled and nothing moves, the detector rests.
            self._still = getattr(status, "state", None) in ("settled", "empty") and not moved
            if getattr(status, "roll", None) is not None:
                self.on_roll(status.roll, frame)

    def _motion(self, frame: Any) -> bool:
        """Whether this frame differs from the last one (a small grey copy, averaged)."""
        import cv2

        small = cv2.resize(frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY),
                           (80, 60), interpolation=cv2.INTER_AREA).astype("float32")
        previous, self._previous_small = self._previous_small, small
        if previous is None or previous.shape != small.shape:
            return True
        return float(cv2.absdiff(small, previous).mean()) > MOTION_THRESHOLD

    def _set_status(self, good: bool, message: str | None) -> None:
        before = dict(self.status)
        if good:
            self.status = {"ok": True, "message": None}
        else:
            text = message or "camera unavailable"
            self.status = {"ok": False, "message": {
                "en": f"Camera problem: {text}. Retrying; type the dice on the host page meanwhile.",
                "ja": f"カメラの不具合: {text}。再接続中です。その間はホスト画面でダイスを入力してください。",
            }}
        if before != self.status:
            if not good:
                log.warning("camera: %s", message)
            self.on_status()

    # ------------------------------------------------------------------ pictures

    def frame_jpeg(self) -> bytes | None:
        """The latest camera frame as JPEG (encoded at most every ``JPEG_INTERVAL_S``)."""
        with self._jpeg_lock:
            frame = self.latest_frame
            now = self.clock()
            if frame is not None and (self._frame_jpeg is None or now - self._frame_jpeg_time >= JPEG_INTERVAL_S):
                self._frame_jpeg, self._frame_jpeg_time = encode_jpeg(frame), now
            return self._frame_jpeg

    def roll_jpeg(self, frame: Any, roll: Any) -> bytes | None:
        """``frame`` with every die of ``roll`` boxed and read (drawn once per roll: the
        pictures are shared by every page that asks, one thread at a time)."""
        if frame is None:
            return None
        with self._jpeg_lock:
            shown, cached = self._roll_jpeg
            if shown is roll:  # the table makes a new list for every roll
                return cached
            import cv2

            image = frame.copy()
            for d in roll or []:
                x0, y0, x1, y1 = (int(v) for v in d.box)
                colour = (0, 0, 255) if d.cocked or d.face is None else (0, 200, 0) if d.status == "new" else (200, 200, 200)
                cv2.rectangle(image, (x0, y0), (x1, y1), colour, 2)
                # No words on the picture, so it reads the same in every language: the face
                # (and d10/d20); the die's colour is in the dice row beside it.
                text = f"{'?' if d.cocked else d.face}" + ("" if d.sides == 6 else f" d{d.sides}")
                cv2.putText(image, text, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4)
                cv2.putText(image, text, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
            cached = encode_jpeg(image)
            self._roll_jpeg = (roll, cached)
            return cached


def _default_background(detector: Any, frame_interval: float) -> Any:
    """A learned empty tray for the image model; None for any other detector (one that
    does not read the frame, so that the frame's background says nothing of it)."""
    try:
        from vision.detector import Detector
    except ImportError:  # pragma: no cover - numpy/OpenCV missing: no image model either
        return None
    if not isinstance(detector, Detector):
        return None
    from vision.background import Background

    frames = max(3, int(round(BACKGROUND_LEARN_S / frame_interval))) if frame_interval > 0 else 10
    return Background(learn_frames=frames)


def encode_jpeg(image: Any) -> bytes | None:
    import cv2

    good, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return data.tobytes() if good else None
