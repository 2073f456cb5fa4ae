"""The Pi looks after itself (issue 27): /healthz, the systemd watchdog fed by the camera
loop, a camera that hangs and is restarted, and a full SD card, a read-only file system
and a clock that jumps, each injected: nothing is lost and the pages say what is wrong."""
from __future__ import annotations

import errno
import re
import socket
import sqlite3
import tempfile
import threading
from pathlib import Path

import pytest

from pi import camera_loop
from pi.web import health
from tests.pi.conftest import SEATS3, FakeClock, declare, wait_until


def _build(config, **kwargs):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    kwargs.setdefault("camera", None)
    return build(config, demo=True, pin_factory=MockFactory(), detector=None, animate=False,
                 test_config={"CSRF": False, "TESTING": True}, **kwargs)


class NotifySocket:
    """systemd's side of $NOTIFY_SOCKET: a real unix datagram socket the test reads."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="dt-notify-")  # short: unix paths are at most 107 bytes
        self.path = str(Path(self._dir.name) / "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def next(self, timeout: float = 10.0) -> str:
        self.sock.settimeout(timeout)
        return self.sock.recv(4096).decode()

    def wait_for(self, message: str, timeout: float = 10.0) -> list[str]:
        """Every message up to and including ``message``."""
        seen = []
        while not seen or seen[-1] != message:
            seen.append(self.next(timeout))
        return seen

    def drain(self) -> list[str]:
        self.sock.setblocking(False)
        out = []
        try:
            while True:
                out.append(self.sock.recv(4096).decode())
        except BlockingIOError:
            return out
        finally:
            self.sock.setblocking(True)

    def close(self) -> None:
        self.sock.close()
        self._dir.cleanup()


@pytest.fixture
def notify(monkeypatch):
    sock = NotifySocket()
    monkeypatch.setenv("NOTIFY_SOCKET", sock.path)
    yield sock
    sock.close()


def shorten(monkeypatch) -> None:
    """The camera loop's times, shortened: stalled after 0.5 s, restarted after 0.5 s, 1 s, 1 s ..."""
    monkeypatch.setattr(camera_loop, "STALL_S", 0.5)
    monkeypatch.setattr(camera_loop, "RESTART_S", 0.5)
    monkeypatch.setattr(camera_loop, "RESTART_MAX_S", 1.0)
    monkeypatch.setattr(camera_loop, "WATCHDOG_EVERY_S", 0.05)


@pytest.fixture
def quick(monkeypatch):
    shorten(monkeypatch)


def test_a_stalled_demo_camera_is_named_by_healthz_restarted_by_the_loop_and_starves_the_watchdog(
        config, notify, monkeypatch):
    appliance = _build(config, camera="config")
    table, client = appliance.table, appliance.app.test_client()
    loop, synthetic = table.camera, appliance.synthetic
    try:
        assert table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        table.start()
        assert notify.next() == "READY=1"
        assert notify.next() == "WATCHDOG=1"  # frames arrive
        wait_until(table, lambda: loop.report()["frames_arriving"])
        healthy = client.get("/healthz")
        assert healthy.status_code == 200 and healthy.json["ok"] and healthy.json["problems"] == []
        assert healthy.json["camera"]["restarts"] == 0
        shorten(monkeypatch)  # once frames flow: a slow first frame is no stall
        notify.drain()
        notify.wait_for("WATCHDOG=1")
        notify.wait_for("WATCHDOG=1")  # a whole frame under the short times

        assert client.post("/demo/camera/stall").json == {"ok": True}  # the driver hangs from now on
        assert synthetic.stalled
        wait_until(table, lambda: loop.restarts >= 1, what=lambda: f"restarts: {loop.restarts}")
        notify.drain()  # up to the first restart
        wait_until(table, lambda: loop.restarts >= 3, what=lambda: f"restarts: {loop.restarts}")
        between = notify.drain()
        assert "WATCHDOG=1" not in between, between  # no frames: systemd is left to restart the service
        assert any(m.startswith("STATUS=camera: no frame") for m in between), between

        sick = client.get("/healthz")
        assert sick.status_code == 503 and "camera" in sick.json["problems"]
        assert not sick.json["camera"]["frames_arriving"] and sick.json["camera"]["restarts"] >= 3
        # a read that hangs, or (just after a restart woke it) one that failed
        assert re.search("has not answered|Camera problem", sick.json["camera"]["problem"])
        assert re.search("has not answered|Camera problem",
                         client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True))

        assert client.post("/demo/camera/resume").json == {"ok": True}
        assert "WATCHDOG=1" in notify.wait_for("WATCHDOG=1")  # frames again: the watchdog is fed
        wait_until(table, lambda: client.get("/healthz").status_code == 200)
    finally:
        appliance.close()


def test_a_camera_absent_since_the_start_keeps_the_watchdog_fed(config, notify, quick):
    """A restart of the service cannot bring a camera that never gave a frame: the loop
    keeps feeding the watchdog while the camera answers that it is down."""

    class Absent:
        reason = "no camera found"

        def read(self):
            return None

        def close(self):
            pass

    appliance = _build(config, camera=Absent())
    try:
        appliance.table.start()
        assert notify.wait_for("WATCHDOG=1")[0] == "READY=1"
        assert appliance.app.test_client().get("/healthz").status_code == 503
    finally:
        appliance.close()


def test_healthz_reveals_no_secret(config):
    appliance = _build(config)
    try:
        table = appliance.table
        assert table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        assert declare(table, "Aki", 4)["ok"]
        text = appliance.app.test_client().get("/healthz").get_data(as_text=True)
        for token in table.record.tokens.values():
            assert token not in text
        assert config.host_pin not in text and str(config.data_dir) not in text and '"value"' not in text
    finally:
        appliance.close()


# ---------------------------------------------------------------------- the disk


class RefusedCommits:
    """The store's connection with every commit refused as a full or read-only disk
    refuses it (the transaction is rolled back)."""

    def __init__(self, db, exc: BaseException) -> None:
        self.db, self.exc = db, exc

    def execute(self, sql, *args):
        if sql.strip().upper() == "COMMIT":
            raise self.exc
        return self.db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.db, name)


FAILURES = {
    "disk_full": OSError(errno.ENOSPC, "No space left on device"),
    "read_only": OSError(errno.EROFS, "Read-only file system"),
    "sqlite_full": sqlite3.OperationalError("database or disk is full"),
}
BANNER = {"disk_full": ("The SD card is full", "SDカードがいっぱいです"),
          "read_only": ("The SD card has become read-only", "SDカードが読み取り専用になりました"),
          "sqlite_full": ("The SD card is full", "SDカードがいっぱいです")}


def _login(client, config) -> None:
    assert client.post("/host/login", data={"pin": config.host_pin}).status_code in (302, 303)


@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_full_or_read_only_disk_refuses_moves_changes_nothing_and_says_so(config, failure):
    appliance = _build(config)
    table, store = appliance.table, appliance.store
    client = appliance.app.test_client()
    _login(client, config)
    tokens = {}
    try:
        assert table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        tokens = dict(table.record.tokens)
        assert client.post(f"/seat/{tokens['Aki']}/act", json={"type": "declare", "value": 2}).json == {"ok": True}
        saved = store.events(table.record.id)
        state, version = table.state, table.version

        real = store._db
        store._db = RefusedCommits(real, FAILURES[failure])
        refused = client.post(f"/seat/{tokens['Ben']}/act", json={"type": "declare", "value": 3})
        assert refused.status_code == 409 and "nothing changed" in refused.json["error"]["en"]
        assert table.state is state
        assert table.wait_for_change(version, timeout=10) > version  # the pages were told
        assert store.write_error == ("disk_full" if failure == "sqlite_full" else failure)
        ended = client.post("/host/end", json={"confirm": 1})  # a write outside the event path
        assert ended.status_code == 503 and BANNER[failure][0] in ended.json["error"]["en"]
        assert table.record is not None and table.state is state
        sick = client.get("/healthz")
        assert sick.status_code == 503 and "store" in sick.json["problems"] and not sick.json["store"]["writable"]
        for lang, words in zip(("en", "ja"), BANNER[failure]):
            client.set_cookie("lang", lang)
            assert words in client.get("/").get_data(as_text=True)
            assert words in client.get("/host").get_data(as_text=True)

        store._db = real  # space freed (or the card remounted): the next move is saved
        assert client.post(f"/seat/{tokens['Ben']}/act", json={"type": "declare", "value": 3}).json == {"ok": True}
        assert store.write_error is None
        client.set_cookie("lang", "en")
        assert BANNER[failure][0] not in client.get("/").get_data(as_text=True)
        acknowledged = store.events(table.record.id)
        assert acknowledged[: len(saved)] == saved and len(acknowledged) == len(saved) + 1
    finally:
        appliance.close()
    again = _build(config)  # a restart: every acknowledged move is there, none other
    try:
        assert again.table.resume()
        assert again.store.events(again.table.record.id) == acknowledged
        assert again.store.check() == "ok"
    finally:
        again.close()


def test_a_disk_almost_full_or_read_only_shows_on_the_pages(config):
    appliance = _build(config)
    client = appliance.app.test_client()

    class Disk:
        f_frsize, f_bavail, f_flag = 4096, 1000, 0  # 3 MB free

    try:
        appliance.app.extensions["health"] = health.Health(appliance.table, config, statvfs=lambda path: Disk)
        client.set_cookie("lang", "en")
        assert "The SD card is almost full (3 MB left)" in client.get("/").get_data(as_text=True)
        assert client.get("/healthz").json["problems"] == ["camera", "disk"]  # (no camera here)
        Disk.f_bavail, Disk.f_flag = 10**7, __import__("os").ST_RDONLY
        assert "read-only" in client.get("/").get_data(as_text=True)
        assert client.get("/healthz").json["disk"]["read_only"]
    finally:
        appliance.close()


# ---------------------------------------------------------------------- the clock


def test_a_clock_that_jumps_back_and_forward_loses_nothing_and_the_pages_say_so(config):
    wall = FakeClock(1_763_600_000.0)  # the time the Pi saved at its last shutdown (no clock battery)
    steady = FakeClock(50.0)
    from pi.store import Store

    config.data_dir.mkdir(parents=True, exist_ok=True)
    appliance = _build(config)
    appliance.store.close()
    appliance.store = appliance.table.store = Store(config.db_path, clock=wall)
    appliance.app.extensions["health"] = health.Health(appliance.table, config, clock=health.ClockWatch(wall, steady))
    client = appliance.app.test_client()
    client.set_cookie("lang", "en")
    table = appliance.table
    try:
        assert table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        assert "The clock jumped" not in client.get("/").get_data(as_text=True)
        assert declare(table, "Aki", 1)["ok"]
        wall.advance(3 * 86400)  # network time arrives: three days later
        steady.advance(2)
        assert "The clock jumped forward 3 days" in client.get("/").get_data(as_text=True)
        assert client.get("/healthz").json["clock"]["jumped_s"] == 3 * 86400 - 2
        assert declare(table, "Ben", 2)["ok"]
        wall.advance(-2 * 3600)  # corrected back two hours
        steady.advance(1)
        assert declare(table, "Chie", 3)["ok"]
        client.set_cookie("lang", "ja")
        assert "時計が2時間戻りました" in client.get("/").get_data(as_text=True)
        assert client.get("/healthz").json["clock"]["ok"]  # a jump is said; the clock is not broken
        times = [r.time for r in table.store.history(table.record.id)]
        assert times[0] < times[1] and times[2] < times[1]  # stored as the clock said
        events = table.store.events(table.record.id)
        steady.advance(health.CLOCK_NOTICE_S)  # half an hour later, the clock running evenly
        wall.advance(health.CLOCK_NOTICE_S)
        client.set_cookie("lang", "en")
        assert "The clock jumped" not in client.get("/").get_data(as_text=True)
    finally:
        appliance.close()
    again = _build(config)
    try:
        assert again.table.resume()  # in order of play, whatever the times say
        assert again.store.events(again.table.record.id) == events
        assert again.table.state == table.state
    finally:
        again.close()


def test_the_camera_loop_rides_out_a_clock_that_jumps_back(config):
    """A loop given a clock that jumps back an hour keeps reading frames (it waits at most
    one frame interval, whatever the clock says)."""
    clock = FakeClock(5000.0)
    read = threading.Event()

    class Camera:
        reads = 0

        def read(self):
            Camera.reads += 1
            if Camera.reads == 3:
                clock.advance(-3600)
            if Camera.reads == 10:
                read.set()
            return __import__("numpy").zeros((48, 64, 3), "uint8")

        def close(self):
            pass

    loop = camera_loop.CameraLoop(Camera(), None, None, clock, lambda *a: None, lambda: None, frame_interval=0.05)
    loop.start()
    try:
        assert read.wait(5), Camera.reads
    finally:
        loop.stop()


# ---------------------------------------------------------------------- the unit

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "dicetable.service"


def test_the_unit_is_watched_by_systemd_and_lets_libcamera_find_the_camera():
    settings = dict(line.split("=", 1) for line in UNIT.read_text(encoding="utf-8").splitlines()
                    if "=" in line and not line.startswith("#") and not line.startswith("DeviceAllow"))
    assert settings["Type"] == "notify" and settings["Restart"] == "on-failure"
    assert "AF_NETLINK" in settings["RestrictAddressFamilies"].split()
    # the loop's three camera restarts (after 10, 20 and 40 s) come before systemd's
    first = camera_loop.RESTART_S
    assert first + first + 2 * first < int(settings["WatchdogSec"])


@pytest.mark.skipif(__import__("shutil").which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_units_exposure_is_at_most_2_5():
    import re
    import subprocess

    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(UNIT)],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for dicetable.service: ([0-9.]+)", result.stdout)
    assert found, result.stdout[-500:] + result.stderr[-500:]
    assert float(found.group(1)) <= 2.5
