"""The camera thread: read a frame, find the dice, wait until they settle, hand each settled
roll to the table; and the two pictures the pages show (the live frame, the last roll).

It knows nothing of games: a settled roll goes to ``table.settled_roll(roll, frame)``,
which decides what it means.

Between the detector and the settler sits the learned empty tray (`vision.background`):
every frame teaches it, and the dice whose place looks as the tray looked without them (a
die printed on the cloth, a token) are dropped before the settler sees them. It is used
with the image model (`vision.detector.Detector`); a detector that does not read the image
(the tests' fakes) gets no background unless one is passed.

The loop also looks after the camera: a watch on a thread of its own sees a read that hangs
(a camera that neither answers nor fails) or reads that give no frame. When no frame has
come for ``RESTART_S`` it restarts the camera (``restart()``, else ``close()``: a read
hanging in it may come back with an error) and again after a backoff that doubles up to
``RESTART_MAX_S``. Meanwhile it
tells systemd (``sd_notify`` over ``$NOTIFY_SOCKET``): ``READY=1`` at start, then
``WATCHDOG=1`` only while frames arrive, so a camera that restarts do not bring back ends
in systemd restarting the service (``WatchdogSec=`` in systemd/dicetable.service). A camera
that has given no frame since the start (unplugged, or absent) keeps the watchdog fed while
it answers: restarting the service cannot bring it, and the game goes on with typed dice.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

# How often the camera thread reads a frame, and how often it re-encodes the live JPEG.
FRAME_INTERVAL_S = 0.1
JPEG_INTERVAL_S = 0.2
# A camera that has not answered for this long while the loop runs is reported as stalled.
STALL_S = 5.0
# No frame for this long: the loop restarts the camera, then again after a backoff that
# doubles from RESTART_S up to RESTART_MAX_S (WatchdogSec= gives it three tries).
RESTART_S = 10.0
RESTART_MAX_S = 60.0
# How often the watch looks at the camera thread.
POLL_S = 0.25
# WATCHDOG=1 at most this often while frames arrive.
WATCHDOG_EVERY_S = 1.0
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
        self.frames = 0  # frames read since start()
        self.restarts = 0  # times the loop restarted the camera
        self._last_frame: float | None = None  # when the last frame came
        # When the loop began to wait for the next frame (its start, or the end of the last
        # frame's work): a slow detector is no camera stall.
        self._waiting_since: float | None = None
        self._next_restart = 0.0
        self._restart_lock = threading.Lock()
        self._watch_thread: threading.Thread | None = None
        self._backoff = RESTART_S
        self._last_ping = float("-inf")
        self.notifier = Notifier()

    def health(self) -> dict[str, Any]:
        """The camera's status for the pages, including a read that hangs (a camera that
        neither answers nor fails: the loop restarts it, the pages are told here)."""
        asked, since = self._asked_at, self._waiting_since
        waited = self.clock() - (since if since is not None else asked or 0.0)
        if self._thread is not None and asked is not None and waited >= STALL_S:
            return {"ok": False, "message": {
                "en": f"The camera has not answered for {waited:.0f} s. Check its cable; type the dice on the "
                      "host page meanwhile.",
                "ja": f"カメラが{waited:.0f}秒応答していません。ケーブルを確認してください。その間はホスト画面でダイスを入力してください。",
            }}
        return dict(self.status)

    def report(self) -> dict[str, Any]:
        """The camera for /healthz: whether frames arrive, the age of the last one (s, None
        before the first), how many frames and camera restarts, what is wrong, and which
        classifier reads the dice ("int8" or "float", vision.classifiers; None without one)."""
        health = self.health()
        now, last, since = self.clock(), self._last_frame, self._waiting_since
        age = None if last is None or not self.frames else round(max(0.0, now - last), 1)
        waiting = 0.0 if since is None else now - since
        arriving = self._thread is not None and bool(self.frames) and health["ok"] and waiting < STALL_S
        return {"ok": bool(health["ok"] and (arriving or self._thread is None or not self.frames)),
                "running": self._thread is not None, "frames_arriving": arriving,
                "last_frame_age_s": age, "frames": self.frames, "restarts": self.restarts,
                "problem": None if health["ok"] else (health.get("message") or {}).get("en"),
                "classifier": getattr(getattr(self.detector, "classifier", None), "kind", None)}

    @property
    def latest_frame(self) -> Any:
        with self._lock:
            return self._latest

    def new_round(self) -> None:
        """What lands next is all new (the settler forgets the dice on the table)."""
        self._reset = True

    def start(self) -> None:
        if self._thread is not None:
            return
        self.notifier = Notifier()  # $NOTIFY_SOCKET as it is now
        self.notifier.send("READY=1")
        if self.camera is None:
            return
        self._stop.clear()
        self._waiting_since = self.clock()  # a camera that never gives a frame stalls from here
        self._backoff = RESTART_S
        self._next_restart = self._waiting_since + RESTART_S
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()
        self._watch_thread = threading.Thread(target=self._watch, name="camera-watch", daemon=True)
        self._watch_thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in (self._thread, getattr(self, "_watch_thread", None)):
            if thread is not None:
                thread.join(timeout=5)
        self._thread = self._watch_thread = None

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
                if not self.frames:  # down since the start: a restart of the service cannot help
                    self._watchdog()
                self._stop.wait(self.frame_interval)
                continue
            self._arrived()
            self._set_status(True, None)
            with self._lock:
                self._latest = frame
            if self.detector is not None and self.settler is not None:
                try:
                    self._read_dice(frame)
                except Exception:
                    log.exception("reading the dice failed; the game goes on with typed dice")
            with self._restart_lock:
                self._waiting_since = self.clock()  # the next frame is due from now on (a slow detector is no stall)
                self._backoff = RESTART_S
                self._next_restart = self._waiting_since + RESTART_S
            # at most one frame interval, whatever the clock did
            self._stop.wait(min(self.frame_interval, max(0.0, self.frame_interval - (self.clock() - started))))

    def _arrived(self) -> None:
        """A frame came: the watchdog is fed."""
        since = self._waiting_since
        if self.frames and since is not None and self.clock() - since >= STALL_S:
            log.warning("camera: frames again after %.0f s", self.clock() - since)
        self.frames += 1
        self._last_frame = self.clock()
        self._watchdog()

    def _watchdog(self) -> None:
        now = self.clock()
        if not 0 <= now - self._last_ping < WATCHDOG_EVERY_S:
            self._last_ping = now
            self.notifier.send("WATCHDOG=1")

    def _watch(self) -> None:
        """The camera thread's watch, on a thread of its own (a read that hangs holds the
        camera thread): tells the pages when a read hangs, and restarts the camera when no
        frame has come for the backoff."""
        hung = False
        while not self._stop.wait(POLL_S):
            asked = self._asked_at
            waiting = self.clock() - (self._waiting_since or 0.0)
            if asked is not None and waiting >= STALL_S:
                if not hung:
                    hung = True
                    self.on_status()  # the pages say the camera does not answer
            else:
                hung = False
            self._restart_when_due()

    def _restart_when_due(self) -> None:
        """Restart the camera (close it; it opens again on the next read) when no frame has
        come for the backoff; the backoff doubles up to RESTART_MAX_S."""
        with self._restart_lock:
            now = self.clock()
            if now < self._next_restart:
                return
            self.restarts += 1
            waited = now - (self._waiting_since if self._waiting_since is not None else now)
            self._next_restart = now + self._backoff
            self._backoff = min(self._backoff * 2, RESTART_MAX_S)
        log.warning("camera: no frame for %.0f s; restarting it (restart %d)", waited, self.restarts)
        self.notifier.send(f"STATUS=camera: no frame for {waited:.0f} s; restart {self.restarts}")
        restart = getattr(self.camera, "restart", None) or getattr(self.camera, "close", None)
        try:
            if restart is not None:
                restart()  # a read hanging in the camera may come back with an error
        except Exception:
            log.exception("restarting the camera failed")
        self.on_status()

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


class Notifier:
    """systemd's notification socket (sd_notify(3)): one datagram per message to
    ``$NOTIFY_SOCKET`` (a path, or an abstract name starting with "@"); nothing without it."""

    def __init__(self, address: str | None = None) -> None:
        self.address = os.environ.get("NOTIFY_SOCKET") if address is None else address

    def send(self, message: str) -> bool:
        if not self.address:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.connect(target)
                s.sendall(message.encode())
        except OSError as exc:
            log.debug("sd_notify %s: %s", message, exc)
            return False
        return True


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
