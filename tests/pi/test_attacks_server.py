"""The real waitress server under the attacks of issue 27, over raw sockets on an ephemeral
port: idle connections from one address cannot cut the table off, and HEAD requests or
clients that vanish never keep a live stream's slot."""
from __future__ import annotations

import http.client
import socket
import time

import pytest

from tests.pi.conftest import SEATS3


@pytest.fixture
def served(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(config, demo=True, pin_factory=MockFactory(), camera=None, detector=None, animate=False)
    assert appliance.table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=11)["ok"]
    port = appliance.serve_in_thread("127.0.0.1", 0)
    try:
        yield appliance, port
    finally:
        appliance.close()


def _get(port: int, path: str, method: str = "GET", timeout: float = 10.0) -> tuple[int, float]:
    """(status, seconds) of one request on a fresh connection."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


def _open_stream(port: int, path: str) -> socket.socket:
    """A live stream's connection, once its first view has arrived."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n".encode())
        received = b""
        while b"data: " not in received:
            chunk = sock.recv(65536)
            assert chunk, f"the stream closed: {received[:200]!r}"
            received += chunk
        assert received.startswith(b"HTTP/1.1 200"), received[:200]
    except BaseException:
        sock.close()
        raise
    return sock


def test_200_idle_connections_from_one_address_leave_the_table_answering(served):
    appliance, port = served
    idle = []
    try:
        for _ in range(200):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        half = socket.create_connection(("127.0.0.1", port), timeout=5)
        half.sendall(b"GET / HTTP/1.1\r\nHost: ta")  # a request that never ends
        idle.append(half)
        for path in ("/", "/api/state", "/host"):
            status, seconds = _get(port, path)
            assert status == 200 and seconds < 2.0, (path, status, seconds)
    finally:
        for sock in idle:
            sock.close()


def test_an_idle_connection_is_closed_within_seconds(served):
    from pi.appliance import IDLE_S

    _, port = served
    sock = socket.create_connection(("127.0.0.1", port), timeout=IDLE_S + 5)
    try:
        started = time.monotonic()
        assert sock.recv(1) == b""  # the server closed it
        assert time.monotonic() - started < IDLE_S + 3
    finally:
        sock.close()


def _slots(appliance):
    return appliance.app.extensions.get("stream_slots")


@pytest.mark.parametrize("stream", ["/events", "seat"])
def test_head_requests_never_take_a_live_stream_slot(served, stream):
    appliance, port = served
    path = f"/seat/{appliance.table.record.tokens['Aki']}/events" if stream == "seat" else stream
    limit = appliance.app.config["SSE_SEAT_MAX" if stream == "seat" else "SSE_PUBLIC_MAX"]
    for _ in range(limit + 2):
        status, _ = _get(port, path, method="HEAD")
        assert status == 200
    sock = _open_stream(port, path)  # a real stream still gets a slot
    sock.close()


def test_a_vanished_client_gives_its_slot_back(served):
    """Eight pages whose connections drop (a phone leaving the Wi-Fi closes nothing, a
    closed tab does): their slots come back, and the ninth page gets a stream."""
    appliance, port = served
    limit = appliance.app.config["SSE_PUBLIC_MAX"]
    socks = [_open_stream(port, "/events") for _ in range(limit)]
    assert _get(port, "/events")[0] == 503  # every slot is taken
    for sock in socks:
        sock.close()
    table = appliance.table
    deadline = time.monotonic() + 10
    while _slots(appliance).open["public"] and time.monotonic() < deadline:
        table.wait_for_change(table.version, timeout=0.5)  # the streams notice within SSE_CHECK_S
    assert _slots(appliance).open["public"] == 0
    _open_stream(port, "/events").close()
