"""Faults the appliance rides out: a camera that hangs, a GPIO chip missing at start, a phone
that disconnects mid-stream, and malformed, oversized and out-of-order requests. The
appliance keeps serving and says what is degraded; nothing changes from a bad request."""
from __future__ import annotations

import http.client
import socket
import threading
import time

import numpy as np
import pytest

from pi.table import Table
from pi.web import create_app
from tests.pi.conftest import SEATS3, FakeClock, declare


class HangingCamera:
    """read() blocks until released (a camera that neither answers nor fails)."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.release = threading.Event()

    def read(self):
        self.asked.set()
        self.release.wait()
        return np.zeros((48, 64, 3), np.uint8)

    def close(self) -> None:
        self.release.set()


def test_a_hanging_camera_is_reported_and_typed_dice_still_work(config, store):
    clock = FakeClock()
    camera = HangingCamera()
    table = Table(config, store, camera=camera, clock=clock, frame_interval=0.01)
    table.start_game("alea", SEATS3, {}, seed=1)
    table.start()
    try:
        assert camera.asked.wait(5)
        assert table.snapshot()["camera"]["ok"]
        clock.advance(6.0)
        health = table.snapshot()["camera"]
        assert not health["ok"] and "has not answered for 6 s" in health["message"]["en"]
        for seat in ("Aki", "Ben", "Chie"):
            assert declare(table, seat, 1)["ok"]
        assert table.typed_throw([{"colour": "red", "face": 2}, {"colour": "blue", "face": 3},
                                  {"colour": "green", "face": 4}])["ok"]
    finally:
        camera.release.set()
        table.stop()


def test_a_missing_gpio_chip_leaves_the_phones_working(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    class NoChip(MockFactory):
        def pin(self, spec, **kwargs):
            raise OSError("/dev/gpiochip0: No such file or directory")

    appliance = build(config, demo=False, pin_factory=NoChip(), camera=None, detector=None)
    try:
        table = appliance.table
        assert appliance.panel is None and "seat buttons unavailable" in appliance.notes[0]
        assert table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        assert "seat buttons are not available" in table.snapshot()["warning"]["en"]
        client = appliance.app.test_client()
        token = table.record.tokens["Aki"]
        assert client.post(f"/seat/{token}/act", json={"type": "declare", "value": 2}).json == {"ok": True}
        assert "seat buttons are not available" in client.get("/", headers={"Accept-Language": "en"}).get_data(
            as_text=True)
    finally:
        appliance.close()


def test_a_phone_that_vanishes_mid_stream_gives_its_slot_back(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(config, demo=True, pin_factory=MockFactory(), camera=None, detector=None, animate=False,
                      test_config={"SSE_PUBLIC_MAX": 1, "SSE_CHECK_S": 0.1})
    try:
        appliance.table.start_game("alea", SEATS3, {}, seed=1)
        port = appliance.serve_in_thread("127.0.0.1", 0)
        phone = socket.create_connection(("127.0.0.1", port), timeout=10)
        phone.sendall(b"GET /events HTTP/1.1\r\nHost: table\r\n\r\n")
        assert phone.recv(64).startswith(b"HTTP/1.1 200")  # the stream is open
        phone.close()  # the phone goes away without a word
        deadline = time.monotonic() + 10
        status = None
        while time.monotonic() < deadline:  # the server notices the closed socket by itself
            other = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            other.request("GET", "/events")
            status = other.getresponse().status
            other.close()
            if status == 200:
                break
            appliance.table.wait_for_change(appliance.table.version, timeout=0.1)
        assert status == 200
        pages = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        pages.request("GET", "/api/state")
        assert pages.getresponse().status == 200
        pages.close()
    finally:
        appliance.close()


@pytest.fixture
def client(table, config):
    table.start_game("alea", SEATS3, {}, seed=1)
    return create_app(table, config, {"TESTING": True}).test_client()


def test_malformed_oversized_and_out_of_order_requests_change_nothing(client, table):
    token = table.record.tokens["Aki"]
    before = table.snapshot("Aki")["view"], len(table.store.events(table.record.id))
    bad = [
        client.post(f"/seat/{token}/act", data="{not json", content_type="application/json"),
        client.post(f"/seat/{token}/act", json=[1, 2, 3]),
        client.post(f"/seat/{token}/act", json={"type": "throw", "dice": [["red", 3]]}),  # not due
        client.post(f"/seat/{token}/act", json={"type": "declare", "value": 9}),
        client.post(f"/seat/{token}/act", json={"type": "declare", "value": {"$gt": 1}}),
        client.post(f"/seat/{token}/act", json={"type": None}),
        client.post(f"/seat/{token}/act", data="value=" + "9" * 100_000,
                    content_type="application/x-www-form-urlencoded"),
        client.post(f"/seat/{token}/faces", json={"faces": "nope"}),
        client.get(f"/seat/{token}/act"),
    ]
    codes = [r.status_code for r in bad]
    assert all(400 <= c < 500 for c in codes), str(codes)
    assert codes[6] == 413
    for response in bad:
        body = response.get_data(as_text=True)
        assert "Traceback" not in body
    form = client.post(f"/seat/{token}/act", data={"type": "declare", "value": "x" * 10},
                       headers={"Accept-Language": "en"}, follow_redirects=True)  # a browser's form
    assert form.status_code == 200 and "is not a whole number" in form.get_data(as_text=True)
    assert (table.snapshot("Aki")["view"], len(table.store.events(table.record.id))) == before
