"""The table's health: what a careful owner (or a monitor) asks of the Pi, and the banner
the status and host pages show when something is wrong.

GET /healthz   JSON: the camera (frames arriving, the age of the last frame, restarts),
               the seat buttons, the store (writable, integrity), the disk (free space,
               read-only) and the clock (synchronised, a recent jump); 200 when healthy,
               503 when not, with ``problems`` naming the parts that are not. Public: it
               holds no seat link, no PIN and no path.

The banner (``_health.html``, in the live part of the status and host pages) says what
the owner must fix: a full or read-only SD card (nothing new is saved; every saved move is
kept), a disk almost full, a clock that jumped (no clock battery, network time arriving
late). A failed write reaches the pages at once (the store tells the table, which
publishes); a request that a failed write stopped answers 503 with the same words.

In ``dicetable demo`` only, POST /demo/camera/stall and /demo/camera/resume stall and
resume the synthetic camera (``SyntheticTable.stall``), to watch the camera loop, the
watchdog and this page deal with a hung camera.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from typing import Any, Callable

from flask import Blueprint, abort, current_app, jsonify, request

from pi.web import error_response, i18n, result_response, table_of

log = logging.getLogger(__name__)

bp = Blueprint("health", __name__)

#: Less free space than this on the data folder's disk is reported (the banner and 503).
DISK_LOW_BYTES = 50 * 1024 * 1024
#: How often the store's integrity is checked (PRAGMA quick_check), at most.
INTEGRITY_EVERY_S = 600.0
#: A change of the wall clock against the steady one of at least this much is a jump ...
CLOCK_JUMP_S = 60.0
#: ... and the pages say so for this long.
CLOCK_NOTICE_S = 1800.0
#: systemd-timesyncd's mark of a clock set from the network.
TIMESYNC_MARK = "/run/systemd/timesync/synchronized"


class ClockWatch:
    """Notices jumps of the wall clock (``wall``) against the steady one (``steady``): the
    Pi has no clock battery, so it starts at the time it last saved and jumps when network
    time arrives (forward), or when a wrong time is corrected (back)."""

    def __init__(self, wall: Callable[[], float] = time.time, steady: Callable[[], float] = time.monotonic) -> None:
        self.wall, self.steady = wall, steady
        self._lock = threading.Lock()
        self._offset = wall() - steady()
        self.jump: tuple[float, float] | None = None  # (seconds, steady time it was seen)

    def recent_jump(self) -> float | None:
        """The last jump in seconds (+ forward, - back) if it was seen in the last
        ``CLOCK_NOTICE_S``; None otherwise."""
        with self._lock:
            now = self.steady()
            offset = self.wall() - now
            moved, self._offset = offset - self._offset, offset
            if abs(moved) >= CLOCK_JUMP_S:
                self.jump = (moved, now)
                log.warning("the clock jumped %+.0f s", moved)
            if self.jump is not None and now - self.jump[1] < CLOCK_NOTICE_S:
                return self.jump[0]
            return None


class Health:
    """The checks of one table (``pi.table.Table``) and its config."""

    def __init__(self, table: Any, config: Any, clock: ClockWatch | None = None,
                 statvfs: Callable[[str], Any] = os.statvfs) -> None:
        self.table = table
        self.config = config
        self.clock = clock or ClockWatch()
        self.statvfs = statvfs
        self._integrity: tuple[str, float] | None = None  # (result, steady time)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the parts

    def camera(self) -> dict[str, Any]:
        loop = self.table.camera
        if loop.camera is None:
            return {"ok": False, "problem": "no camera: dice are typed on the host page"}
        return loop.report()

    def buttons(self) -> dict[str, Any]:
        panel = self.table.buttons.panel
        if panel is None:
            return {"ok": False, "problem": "the seat buttons are not available: seats choose on their phones"}
        return {"ok": True, "seats": len(getattr(self.config, "seats", ()) or ())}

    def store(self) -> dict[str, Any]:
        store = self.table.store
        problem = getattr(store, "write_error", None)
        integrity = self._check_integrity(store)
        out = {"ok": problem is None and integrity == "ok", "writable": problem is None,
               "write_error": problem, "integrity": integrity}
        if problem is not None:
            out["problem"] = i18n.STRINGS[f"health_{problem}"]["en"]
        elif integrity != "ok":
            out["problem"] = f"integrity check: {integrity}"
        return out

    def _check_integrity(self, store: Any) -> str:
        now = self.clock.steady()
        with self._lock:
            if self._integrity is None or now - self._integrity[1] >= INTEGRITY_EVERY_S:
                try:
                    result = store.check()
                except (sqlite3.Error, OSError) as exc:
                    result = f"cannot check ({exc})"
                self._integrity = (result, now)
            return self._integrity[0]

    def disk(self) -> dict[str, Any]:
        try:
            st = self.statvfs(str(self.config.data_dir))
        except OSError as exc:
            return {"ok": False, "problem": f"cannot read the data folder's disk ({exc.strerror or exc})"}
        free = int(st.f_bavail) * int(st.f_frsize)
        read_only = bool(st.f_flag & os.ST_RDONLY)
        out = {"ok": not read_only and free >= DISK_LOW_BYTES, "free_mb": free // (1024 * 1024),
               "read_only": read_only}
        if read_only:
            out["problem"] = i18n.STRINGS["health_read_only"]["en"]
        elif free < DISK_LOW_BYTES:
            out["problem"] = i18n.t("health_disk_low", "en", mb=free // (1024 * 1024))
        return out

    def clock_report(self) -> dict[str, Any]:
        jumped = self.clock.recent_jump()
        synced = os.path.exists(TIMESYNC_MARK) if os.path.isdir(os.path.dirname(TIMESYNC_MARK)) else None
        out = {"ok": True, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock.wall())),
               "synchronized": synced, "jumped_s": None if jumped is None else round(jumped)}
        if jumped is not None:
            out["problem"] = clock_words(jumped)["en"]
        return out

    # ------------------------------------------------------------------ together

    def report(self) -> dict[str, Any]:
        parts = {"camera": self.camera(), "buttons": self.buttons(), "store": self.store(),
                 "disk": self.disk(), "clock": self.clock_report()}
        problems = [name for name, part in parts.items() if not part["ok"]]
        return {"ok": not problems, "problems": problems, **parts}

    def banner(self) -> list[dict[str, str]]:
        """What the pages must say is wrong with the Pi itself, each ``{"en", "ja"}``."""
        out = []
        write_error = getattr(self.table.store, "write_error", None)
        disk = self.disk()
        if write_error is not None:
            out.append(i18n.both(f"health_{write_error}"))
        elif disk.get("read_only"):
            out.append(i18n.both("health_read_only"))
        elif "free_mb" in disk and not disk["ok"]:
            out.append({lang: i18n.t("health_disk_low", lang, mb=disk["free_mb"]) for lang in i18n.LANGUAGES})
        jumped = self.clock.recent_jump()
        if jumped is not None:
            out.append(clock_words(jumped))
        return out


def clock_words(seconds: float) -> dict[str, str]:
    """The banner's words for a clock jump of ``seconds``."""
    amount = abs(seconds)
    if amount >= 2 * 86400:
        en, ja = f"{amount / 86400:.0f} days", f"{amount / 86400:.0f}日"
    elif amount >= 5400:
        en, ja = f"{amount / 3600:.0f} hours", f"{amount / 3600:.0f}時間"
    else:
        en, ja = f"{max(1, round(amount / 60))} min", f"{max(1, round(amount / 60))}分"
    key = "health_clock_forward" if seconds > 0 else "health_clock_back"
    return {lang: i18n.t(key, lang, amount=en if lang == "en" else ja) for lang in i18n.LANGUAGES}


def health() -> Health:
    """This app's health checks (made on first use)."""
    app = current_app
    found = app.extensions.get("health")
    if found is None:
        found = app.extensions.setdefault("health", Health(table_of(), app.extensions.get("dicetable_config")))
    return found


@bp.record_once
def _wire(state: Any) -> None:
    """A write that fails (or succeeds again) reaches the live pages at once. The store
    says so while it holds its own lock: the table's lock is taken on another thread, so
    that a thread holding the table's lock and waiting for the store's never waits on it."""
    table = state.app.extensions.get("table")
    store = getattr(table, "store", None)
    if store is not None and hasattr(store, "on_write_problem"):
        store.on_write_problem = lambda: threading.Thread(target=table.publish, name="health-publish",
                                                          daemon=True).start()


@bp.app_context_processor
def _banner() -> dict[str, Any]:
    return {"health_banner": lambda: health().banner()}


@bp.get("/healthz")
def healthz():
    report = health().report()
    response = jsonify(report)
    response.status_code = 200 if report["ok"] else 503
    response.headers["Cache-Control"] = "no-store"
    return response


def _store_failure(exc: Exception):
    """A request stopped by a write the disk refused: 503 with what to do (nothing changed:
    the store rolled the write back). Any other error is the usual 500."""
    problem = getattr(table_of().store, "write_error", None)
    if problem is None:
        log.error("error on %s %s", request.method, request.path, exc_info=exc)
        return error_response(500)
    log.warning("a write failed (%s): %s", problem, exc)
    return error_response(503, i18n.both(f"health_{problem}"))


bp.app_errorhandler(OSError)(_store_failure)  # every page's, not only this blueprint's
bp.app_errorhandler(sqlite3.Error)(_store_failure)


def _demo_camera(action: str):
    if not current_app.config.get("DEMO"):
        abort(404)
    return result_response(getattr(table_of().demo, action)())


@bp.post("/demo/camera/stall")
def stall_camera():
    return _demo_camera("stall_camera")


@bp.post("/demo/camera/resume")
def resume_camera():
    return _demo_camera("resume_camera")
