"""Frame sources behind one interface (imports neither pi nor engines).

Every source has `name`, `read() -> image` (BGR uint8, full resolution; each call is a
new frame, blocking like a camera at its frame rate when one is given), `preview() ->
image` (a small BGR frame for motion detection: picamera2's low-resolution stream, a
downscaled frame elsewhere; also a new frame) and `close()`. A source that cannot give a
frame raises `CameraError` with a message that says what to do.

- `PiCamera`: picamera2 (imported only when this source is chosen) with fixed focus,
  exposure and white balance so light and colour do not drift between throws.
- `OpenCVCamera`: a USB / V4L2 device through OpenCV.
- `ReplayCamera`: a folder of images in name order, or a video file.
- `SyntheticTable`: the demo's table; it renders the dice the demo throws (tumbling for a
  few frames, then at rest), throws again or lays out in rows, through
  `vision.synth.render_table`.
- `RetryingCamera`: wraps a factory; a camera that fails or disappears is logged once,
  reported in `status` for the page, and reopened every `retry_every` seconds. Its
  `read()` never raises: it returns None while there is no frame.
- `open_camera(camera_config)`: the source a config names.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from vision.colours import DEFAULT_PALETTE
from vision.detector import FACES, check_face
from vision.photos import read_photo

log = logging.getLogger(__name__)

#: Size of the small motion frames.
PREVIEW_WIDTH = 320
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
SOURCES = ("picamera2", "opencv", "replay", "synthetic")


class CameraError(RuntimeError):
    """No frame can be had; the message says what to do."""


class Camera(Protocol):
    name: str

    def read(self) -> np.ndarray: ...

    def preview(self) -> np.ndarray: ...

    def close(self) -> None: ...


def preview_size(width: int, height: int) -> tuple[int, int]:
    """The (w, h) of a motion frame for a `width` x `height` stream: 320 wide, same
    aspect, even numbers (what picamera2's YUV420 lores stream needs)."""
    w = min(PREVIEW_WIDTH, width)
    h = max(2, int(round(height * w / width / 2)) * 2)
    return w - w % 2, h


def downscale(image: np.ndarray) -> np.ndarray:
    """A motion-sized copy of `image`."""
    import cv2

    h, w = image.shape[:2]
    size = preview_size(w, h)
    if size == (w, h):
        return image.copy()
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


class _Pacer:
    """Blocks so that frames come at most `fps` per second (None: as fast as asked)."""

    def __init__(self, fps: float | None, clock: Callable[[], float],
                 sleep: Callable[[float], None]) -> None:
        self.period = 1.0 / fps if fps else 0.0
        self._clock, self._sleep = clock, sleep
        self._next = float("-inf")

    def wait(self) -> None:
        if not self.period:
            return
        now = self._clock()
        if now < self._next:
            self._sleep(self._next - now)
            now = self._next
        self._next = max(now, self._next) + self.period


# --- picamera2 ---------------------------------------------------------------------------


class PiCamera:
    """The Raspberry Pi camera through picamera2, configured once with fixed controls.

    main stream: `width` x `height` "RGB888" (numpy [B, G, R], what OpenCV wants);
    lores stream: 320 wide "YUV420" for motion (converted to BGR by `preview()`).
    focus: LensPosition in dioptres (manual focus, cameras with autofocus only);
    exposure_us: fixed exposure (auto exposure off); awb_gains: fixed (red, blue) gains
    (auto white balance off).
    """

    name = "picamera2"

    def __init__(self, width: int = 1280, height: int = 960, focus: float = 2.5,
                 exposure_us: int = 10000, awb_gains: Sequence[float] = (1.8, 1.6),
                 fps: float = 10.0) -> None:
        try:
            from picamera2 import Picamera2  # apt: python3-picamera2
        except ImportError as exc:
            raise CameraError(
                "picamera2 is not available to this Python: on Raspberry Pi OS run "
                "`sudo apt install python3-picamera2` and make the venv with "
                "`python3 -m venv --system-site-packages .venv` (see systemd/README.md); "
                f"or choose another camera.source ({exc})"
            ) from None
        try:
            self._cam = Picamera2()
        except Exception as exc:  # IndexError when no camera is attached
            raise CameraError(
                f"no Pi camera found ({exc!r}); check the ribbon cable and "
                "`rpicam-hello --list-cameras`, and that the user is in the video group"
            ) from None
        try:
            controls: dict[str, Any] = {
                "AeEnable": False,
                "ExposureTime": int(exposure_us),
                "AwbEnable": False,
                "ColourGains": (float(awb_gains[0]), float(awb_gains[1])),
                "FrameDurationLimits": (int(1e6 / fps), int(1e6 / fps)),
            }
            if "AfMode" in self._cam.camera_controls:  # Camera Module 3: manual focus
                controls["AfMode"] = 0  # libcamera.controls.AfModeEnum.Manual
                controls["LensPosition"] = float(focus)
            self._lores_width = preview_size(width, height)[0]
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"},
                lores={"size": preview_size(width, height), "format": "YUV420"},
                controls=controls,
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self._cam.close()
            raise CameraError(f"the Pi camera refused its configuration ({exc}); "
                              "check camera.width/height/fps/exposure_us in the config") from None

    def read(self) -> np.ndarray:
        try:
            return self._cam.capture_array("main")
        except Exception as exc:
            raise CameraError(f"the Pi camera stopped giving frames ({exc})") from None

    def preview(self) -> np.ndarray:
        import cv2

        try:
            yuv = self._cam.capture_array("lores")
        except Exception as exc:
            raise CameraError(f"the Pi camera stopped giving frames ({exc})") from None
        # picamera2 leaves the row padding in YUV420 arrays (width = stride): cut it off.
        return cv2.cvtColor(yuv, cv2.COLOR_YUV2BGR_I420)[:, : self._lores_width]

    def close(self) -> None:
        try:
            self._cam.stop()
        finally:
            self._cam.close()


# --- OpenCV device -----------------------------------------------------------------------


class OpenCVCamera:
    """A USB / V4L2 camera: `device` is a number (0 = the first) or a path."""

    def __init__(self, device: int | str = 0, width: int = 640, height: int = 480) -> None:
        import cv2

        self.name = f"opencv:{device}"
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(
                f"cannot open camera device {device!r}; check it is plugged in "
                "(`v4l2-ctl --list-devices`), that no other program uses it, and that this "
                "user is in the video group"
            )
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> np.ndarray:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError(f"camera {self.name} gave no frame (unplugged?)")
        return frame

    def preview(self) -> np.ndarray:
        return downscale(self.read())

    def close(self) -> None:
        self._cap.release()


# --- replay ------------------------------------------------------------------------------


class ReplayCamera:
    """Frames from a folder of images (name order) or a video file, at `fps` (None: as
    fast as read), from the start again at the end when `loop` (else CameraError)."""

    def __init__(self, path: str | Path, fps: float | None = None, loop: bool = True, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.path = Path(path)
        self.name = f"replay:{self.path.name}"
        self.loop = loop
        self._pacer = _Pacer(fps, clock, sleep)
        self._files: list[Path] = []
        self._cap = None
        self._index = 0
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir()
                                 if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraError(f"{self.path} holds no images ({', '.join(IMAGE_SUFFIXES)}); "
                                  "point camera.path at a folder of frames or a video file")
        elif self.path.is_file():
            self._open_video()
        else:
            raise CameraError(f"{self.path}: no such folder or video file; fix camera.path")

    def _open_video(self) -> None:
        import cv2

        if self._cap is not None:
            self._cap.release()
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise CameraError(f"{self.path} is not a video OpenCV can read")

    def _next(self) -> np.ndarray:
        import cv2

        self._pacer.wait()
        if self._files:
            if self._index >= len(self._files):
                if not self.loop:
                    raise CameraError(f"replay of {self.path} finished")
                self._index = 0
            path = self._files[self._index]
            self._index += 1
            image = read_photo(path)
            if image is None:
                raise CameraError(f"{path} is not an image OpenCV can read")
            return image
        ok, frame = self._cap.read()
        if not ok:
            if not self.loop:
                raise CameraError(f"replay of {self.path} finished")
            self._open_video()
            ok, frame = self._cap.read()
            if not ok:
                raise CameraError(f"{self.path} holds no frames")
        return frame

    def read(self) -> np.ndarray:
        return self._next()

    def preview(self) -> np.ndarray:
        return downscale(self._next())

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()


# --- the demo's synthetic table ----------------------------------------------------------


class SyntheticTable:
    """A rendered dice tray for the demo and tests.

    It keeps the dice on the table as (colour, face, cx, cy, angle, sides). `throw()` places
    new dice (or rethrows all of them), `rethrow()` picks some up and throws them again,
    `lay_out()` lays dice flat in rows (a pyramid) alone on the tray. For the next
    `tumble_frames` frames thrown dice are drawn moving (jittering place, angle and face),
    then at rest, where every frame is the same image until the next change. Each `read()`
    or `preview()` is one frame. `die_px` (default `vision.synth.tray_die_px(size)`) is
    small enough that `vision.synth.TRAY_DICE` dice fit; more raise `vision.synth.TrayFull`
    and leave the tray as it was.
    """

    name = "synthetic"
    #: The colours of the dice it draws.
    colours = tuple(DEFAULT_PALETTE)

    def __init__(self, size: tuple[int, int] = (640, 480), seed: int = 0, die_px: int | None = None,
                 tumble_frames: int = 6, fps: float | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from vision import synth

        self._synth = synth
        self.size = (int(size[0]), int(size[1]))
        self.seed = seed
        self.die_px = int(die_px) if die_px is not None else synth.tray_die_px(self.size)
        self.tumble_frames = tumble_frames
        self._rng = np.random.default_rng(seed)
        self._pacer = _Pacer(fps, clock, sleep)
        self._lock = threading.Lock()
        self._dice: list[tuple[str, int, float, float, float, int]] = []
        self._moving: set[int] = set()  # indexes of the dice still tumbling
        self._tumble_left = 0
        self._generation = 0
        self._rest: tuple[np.ndarray, list] | None = None
        self._rest_preview: np.ndarray | None = None
        self.labels: list = []  # labels of the last frame: [(box, face, colour)]
        # A stall injected by `stall()`: reads wait while it lasts; `closes` counts close() calls.
        self._flow = threading.Condition()
        self._stalled = False
        self._closes = 0

    @property
    def dice(self) -> list[tuple[str, int, float, float, float, int]]:
        """The dice on the table at rest: (colour, face, cx, cy, angle, sides)."""
        with self._lock:
            return list(self._dice)

    @property
    def moving(self) -> bool:
        """True while thrown dice are still tumbling."""
        with self._lock:
            return self._tumble_left > 0

    def _die(self, colour: Any, face: Any, sides: int = 6) -> tuple[str, int, int]:
        """A checked (colour, face, sides); face None: rolled here."""
        if colour not in self.colours:
            raise ValueError(f"unknown die colour {colour!r}; known: {', '.join(self.colours)}")
        sides = int(sides)
        face = int(face) if face is not None else int(self._rng.choice(FACES.get(sides, (0,))))
        check_face(sides, face)  # an unknown kind of die is named before its face
        return str(colour), face, sides

    def _tumble(self, moving: set[int]) -> None:
        self._moving = moving
        self._tumble_left = self.tumble_frames if moving else 0
        self._changed()

    def throw(self, dice: Sequence[tuple], rethrow_all: bool = False
              ) -> list[tuple[str, int, float, float, float, int]]:
        """Throw `dice` = [(colour, face[, sides])] (face None: rolled here; sides 6, 10
        or 20, 6 when left out). Without rethrow_all they join the dice on the table; with
        it they replace all of them (an escape rethrows everything), at fresh places.
        Returns the thrown dice as they will rest."""
        with self._lock:
            rolled = [self._die(*d) for d in dice]
            kept = [] if rethrow_all else list(self._dice)
            places = self._synth.layout(len(rolled), self._rng, size=self.size,
                                        die_px=self.die_px,
                                        taken=[(d[2], d[3], d[4]) for d in kept])
            thrown = [(c, f, cx, cy, a, n) for (c, f, n), (cx, cy, a) in zip(rolled, places)]
            self._dice = kept + thrown
            self._tumble(set(range(len(kept), len(self._dice))))
            return list(thrown)

    def rethrow(self, picked: Sequence[int], faces: Sequence[int | None] | None = None
                ) -> list[tuple[str, int, float, float, float, int]]:
        """Pick up the dice at indexes `picked` of `dice` and throw them again, showing
        `faces` (one per die; None, or no `faces`: rolled here). They land away from the
        dice left and from where they lay, so the camera sees them move; the others stay
        still. Returns them as they will rest."""
        with self._lock:
            picked = list(dict.fromkeys(int(i) for i in picked))
            if any(not 0 <= i < len(self._dice) for i in picked):
                raise ValueError(f"no die {picked} on a tray of {len(self._dice)} dice")
            faces = list(faces) if faces is not None else [None] * len(picked)
            if len(faces) != len(picked):
                raise ValueError(f"{len(faces)} faces for {len(picked)} dice")
            rolled = [self._die(self._dice[i][0], f, self._dice[i][5]) for i, f in zip(picked, faces)]
            places = self._synth.layout(len(picked), self._rng, size=self.size, die_px=self.die_px,
                                        taken=[(d[2], d[3], d[4]) for d in self._dice])
            for i, (c, f, n), (cx, cy, a) in zip(picked, rolled, places):
                self._dice[i] = (c, f, cx, cy, a, n)
            self._tumble(set(picked))
            return [self._dice[i] for i in picked]

    def lay_out(self, rows: Sequence[Sequence[tuple | None]]
                ) -> list[tuple[str, int, float, float, float, int]]:
        """Collect every die and lay `rows` flat on the tray as a player lays a pyramid
        (`vision.synth.rows_layout`): the first row at the bottom of the picture, each
        place a (colour, face[, sides]) or None (left empty). Laid dice do not tumble.
        Returns the dice laid, row by row."""
        with self._lock:
            wanted = [[self._die(*d) if d is not None else None for d in row] for row in rows]
            places = self._synth.rows_layout([len(row) for row in wanted], self._rng, size=self.size,
                                             die_px=self.die_px)
            self._dice = [(d[0], d[1], cx, cy, a, d[2]) for row, at in zip(wanted, places)
                          for d, (cx, cy, a) in zip(row, at) if d is not None]
            self._tumble(set())
            return list(self._dice)

    def clear(self) -> None:
        """Collect every die from the table."""
        with self._lock:
            self._dice = []
            self._tumble(set())

    def _changed(self) -> None:
        self._generation += 1
        self._rest = None
        self._rest_preview = None

    def _frame(self) -> tuple[np.ndarray, list, bool]:
        """(image, labels, at_rest) of the next frame; the caller holds the lock."""
        if self._tumble_left > 0:
            left = self._tumble_left
            self._tumble_left -= 1
            w, h = self.size
            spread = self.die_px * 1.5 * left / max(1, self.tumble_frames)
            # Frames have their own random stream: where dice land depends only on the
            # throws, never on how many frames a reader took in between.
            rng = np.random.default_rng([self.seed, self._generation, left])
            drawn = []
            for i, (colour, face, cx, cy, angle, sides) in enumerate(self._dice):
                if i in self._moving:
                    cx = float(np.clip(cx + rng.uniform(-spread, spread), self.die_px, w - self.die_px))
                    cy = float(np.clip(cy + rng.uniform(-spread, spread), self.die_px, h - self.die_px))
                    angle = float(rng.uniform(0, 90))
                    face = int(rng.choice(FACES[sides]))
                drawn.append((colour, face, cx, cy, angle, sides))
            image, labels = self._synth.render_table(drawn, rng, size=self.size, die_px=self.die_px)
            return image, labels, False
        if self._rest is None:
            rng = np.random.default_rng([self.seed, self._generation])
            self._rest = self._synth.render_table(self._dice, rng, size=self.size,
                                                  die_px=self.die_px)
        return self._rest[0], self._rest[1], True

    def stall(self) -> None:
        """Give no frames, as a camera whose driver hangs (a fault injected by the tests and
        the demo): from now on `read()` and `preview()` wait until `resume()`; `close()`
        ends a waiting read with a CameraError, and the next read waits again."""
        with self._flow:
            self._stalled = True

    def resume(self) -> None:
        """Frames again after `stall()` (waiting reads go on)."""
        with self._flow:
            self._stalled = False
            self._flow.notify_all()

    @property
    def stalled(self) -> bool:
        return self._stalled

    def _flowing(self) -> None:
        """Wait while stalled; CameraError when closed meanwhile."""
        with self._flow:
            closes = self._closes
            self._flow.wait_for(lambda: not self._stalled or self._closes != closes)
            if self._stalled:
                raise CameraError("the synthetic camera was closed while it gave no frames")

    def read(self) -> np.ndarray:
        self._flowing()
        self._pacer.wait()
        with self._lock:
            image, self.labels, _ = self._frame()
            return image.copy()

    def preview(self) -> np.ndarray:
        self._flowing()
        self._pacer.wait()
        with self._lock:
            image, self.labels, rest = self._frame()
            if not rest:
                return downscale(image)
            if self._rest_preview is None:
                self._rest_preview = downscale(image)
            return self._rest_preview.copy()

    def close(self) -> None:
        with self._flow:
            self._closes += 1
            self._flow.notify_all()


# --- choosing and guarding a source --------------------------------------------------------


def open_camera(camera_config: Any) -> Camera:
    """The source a config names (`pi.config.CameraConfig` or anything with its fields:
    source, device, path, width, height, fps, focus, exposure_us, awb_gains)."""
    c = camera_config
    if c.source == "picamera2":
        return PiCamera(c.width, c.height, c.focus, c.exposure_us, c.awb_gains, c.fps)
    if c.source == "opencv":
        return OpenCVCamera(c.device, c.width, c.height)
    if c.source == "replay":
        if not c.path:
            raise CameraError('camera.path: source "replay" needs a folder or a video file')
        return ReplayCamera(c.path, fps=c.fps)
    if c.source == "synthetic":
        return SyntheticTable(size=(c.width, c.height), fps=c.fps)
    raise CameraError(f"camera.source {c.source!r} is not known; use one of {', '.join(SOURCES)}")


class RetryingCamera:
    """A camera that rides out failures: `read()` / `preview()` return a frame, or None
    while the camera is down (they never raise). A failure closes the camera, is logged
    once, and shows in `status`; the camera is reopened with `factory()` at most every
    `retry_every` seconds (a read while down waits for the next attempt, so a loop calling
    read() does not spin; `close()` ends that wait).

    status: "ok" (frames coming), "failed: <reason>" (just failed), "retrying" (reopening
    failed again; `reason` holds the last error). `on_status(status)` is called on every
    change of status, from the reading thread.
    """

    def __init__(self, factory: Callable[[], Camera], retry_every: float = 2.0, *,
                 on_status: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] | None = None) -> None:
        self._factory = factory
        self.retry_every = retry_every
        self.on_status = on_status
        self._closed = threading.Event()
        # The wait between attempts ends early when close() is called.
        self._clock, self._sleep = clock, sleep or self._closed.wait
        self._lock = threading.RLock()
        self._camera: Camera | None = None
        self._next_try = float("-inf")
        self.status = "starting"
        self.reason: str | None = None
        self._open()

    @property
    def camera(self) -> Camera | None:
        """The camera now open (e.g. the demo's SyntheticTable), or None while down."""
        return self._camera

    @property
    def name(self) -> str:
        camera = self._camera
        return camera.name if camera is not None else "camera (down)"

    def _set(self, status: str) -> None:
        if status != self.status:
            self.status = status
            if self.on_status is not None:
                self.on_status(status)

    def _fail(self, exc: BaseException) -> None:
        reason = str(exc) or type(exc).__name__
        self._next_try = self._clock() + self.retry_every
        if self.status in ("ok", "starting"):
            log.warning("camera failed: %s (retrying every %g s)", reason, self.retry_every)
            self.reason = reason
            self._set(f"failed: {reason}")
        else:
            log.debug("camera still down: %s", reason)
            self.reason = reason
            self._set("retrying")

    def _open(self) -> bool:
        try:
            self._camera = self._factory()
        except Exception as exc:
            self._camera = None
            self._fail(exc)
            return False
        if self.status != "starting":
            log.warning("camera back: %s", getattr(self._camera, "name", "camera"))
        self.reason = None
        self._set("ok")
        return True

    def _get(self, preview: bool) -> np.ndarray | None:
        with self._lock:
            if self._closed.is_set():
                return None
            if self._camera is None:
                wait = self._next_try - self._clock()
                if wait > 0:
                    self._sleep(wait)
                    if self._closed.is_set():
                        return None
                if not self._open():
                    return None
            camera = self._camera
            try:
                return camera.preview() if preview else camera.read()
            except Exception as exc:
                self._camera = None
                try:
                    camera.close()
                except Exception:
                    pass
                self._fail(exc)
                return None

    def read(self) -> np.ndarray | None:
        """A full frame, or None while the camera is down (see `status`)."""
        return self._get(preview=False)

    def preview(self) -> np.ndarray | None:
        """A motion frame, or None while the camera is down."""
        return self._get(preview=True)

    def restart(self) -> None:
        """Close the camera now, from any thread (a read may hang in it), so that the next
        read opens it again (the camera loop's restart of a camera that gives no frames)."""
        camera, self._camera = self._camera, None
        self._next_try = float("-inf")
        if camera is not None:
            try:
                camera.close()
            except Exception as exc:
                log.warning("closing the camera to restart it failed: %s", exc)

    def close(self) -> None:
        """Close the camera; a read waiting for the next attempt returns None at once."""
        self._closed.set()
        with self._lock:
            if self._camera is not None:
                self._camera.close()
                self._camera = None
