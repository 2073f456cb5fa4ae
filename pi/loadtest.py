"""`dicetable loadtest`: many phones on one table, measured from outside.

It starts the demo appliance in a separate process on loopback (or targets ``--url``, a
loopback address only), opens ``--clients`` live pages (each reads the live stream; a page
refused a stream slot polls ``/api/live`` every 3 s, as the browser does) and, meanwhile,
sends requests at ``--rps`` across the pages (status, state, history, dice, a seat page, a
refused seat action, the pictures). It prints the errors (refused connections, timeouts,
5xx answers), the latency of the requests (p50, p99) and the server's resident memory at
the start and the end. A request the table answers with a 4xx on purpose (the seat action)
is not an error.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

P99_TARGET_MS = 200.0
STARTUP_S = 60.0


def register(sub) -> None:
    p = sub.add_parser("loadtest", help="many live pages and requests against the appliance; errors, latency, memory",
                       description="Start the demo appliance on loopback (or use --url, loopback only), hold "
                       "--clients live pages while sending --rps requests across the pages for --seconds, "
                       "and print errors, p50/p99 latency and the server's memory at start and end.")
    p.add_argument("--url", help="an appliance already running on this machine, e.g. http://127.0.0.1:8080")
    p.add_argument("--clients", type=int, default=50, help="live pages held open (default 50)")
    p.add_argument("--rps", type=float, default=20.0, help="requests per second across the pages (default 20)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long (default 60)")
    p.set_defaults(handler=main)


class LiveClient(threading.Thread):
    """One open page: reads the live stream; polls when refused a slot."""

    def __init__(self, host: str, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.host, self.port, self.stop = host, port, stop
        self.mode = "starting"
        self.updates = 0
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            started = time.monotonic()
            conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
            conn.connect()
            conn.sock.settimeout(1.0)  # reads wake every second to see whether to stop
            conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
            response = None
            while response is None and time.monotonic() - started < 10:
                try:
                    response = conn.getresponse()
                except (socket.timeout, TimeoutError):
                    continue
            if response is None:
                raise TimeoutError("no answer in 10 s")
        except (OSError, http.client.HTTPException) as exc:
            self.errors.append(f"stream: {exc}")
            self.mode = "failed"
            return
        if response.status == 200:
            self.mode = "stream"
            while not self.stop.is_set():
                try:
                    line = response.readline()
                except (socket.timeout, TimeoutError):
                    continue
                except OSError:
                    break
                if not line:
                    break
                if line.startswith(b"data: "):
                    self.updates += 1
            conn.close()
            return
        response.read()
        conn.close()
        if response.status != 503:
            self.errors.append(f"stream: HTTP {response.status}")
            self.mode = "failed"
            return
        self.mode = "poll"
        while not self.stop.wait(3.0):
            status, _ = _get(self.host, self.port, "/api/live")
            if status != 200:
                self.errors.append(f"poll: HTTP {status}")
            else:
                self.updates += 1


def _get(host: str, port: int, path: str, method: str = "GET", body: str | None = None) -> tuple[int, float]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        headers = {"Accept": "application/json", "Content-Type": "application/json"} if body else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status, (time.perf_counter() - started) * 1000.0
    except OSError:
        return 0, (time.perf_counter() - started) * 1000.0
    finally:
        conn.close()


def _rss_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_demo(port: int, data_dir: str) -> tuple[subprocess.Popen, list[str]]:
    """The demo appliance in its own process; returns it and its seat paths."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pi.cli", "demo", "--no-browser", "--port", str(port), "--data-dir", data_dir],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seats: list[str] = []
    deadline = time.monotonic() + STARTUP_S
    for line in process.stdout:  # the demo prints its addresses once it serves
        found = re.search(r"(/seat/\S+)", line)
        if found:
            seats.append(found.group(1))
        if time.monotonic() > deadline:
            break
        if seats and _get("127.0.0.1", port, "/api/state")[0] == 200:
            break
    drain = threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True)  # keep the pipe drained
    drain.start()
    process.drain = drain  # type: ignore[attr-defined]
    return process, seats


def main(args: argparse.Namespace) -> int:
    if not (args.clients >= 0 and 0 < args.rps <= 10_000 and 0 < args.seconds <= 86_400):  # NaN fails each
        print("dicetable loadtest: --clients >= 0, --rps 0 to 10000 and --seconds 0 to 86400 (a day), not 0",
              file=sys.stderr)
        return 2
    process = None
    tmp = None
    if args.url:
        parts = urlsplit(args.url)
        try:
            parts.port  # ValueError: not a port (":abc", ":99999")
        except ValueError:
            parts = None
        if parts is None or parts.hostname not in ("127.0.0.1", "localhost", "::1") or parts.scheme != "http":
            print("dicetable loadtest: --url must be an http address on this machine (127.0.0.1 or localhost), "
                  "with a port of 1 to 65535 if any", file=sys.stderr)
            return 2
        host, port, seats, pid = "127.0.0.1" if parts.hostname == "localhost" else parts.hostname, parts.port or 80, [], None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="dicetable-loadtest-")
        host, port = "127.0.0.1", _free_port()
        process, seats = _start_demo(port, tmp.name)
        pid = process.pid
    try:
        if _get(host, port, "/api/state")[0] != 200:
            print(f"dicetable loadtest: no appliance answers on http://{host}:{port}/", file=sys.stderr)
            return 1
        return _run(host, port, seats, pid, args)
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.drain.join(timeout=5)
            process.stdout.close()
        if tmp is not None:
            tmp.cleanup()


def _run(host: str, port: int, seats: list[str], pid: int | None, args: argparse.Namespace) -> int:
    time.sleep(0.5)  # let the appliance settle before the first memory reading
    rss_start = _rss_mb(pid)
    stop = threading.Event()
    clients = [LiveClient(host, port, stop) for _ in range(args.clients)]
    for c in clients:
        c.start()
    paths: list[tuple[str, str, str | None]] = [("GET", "/", None), ("GET", "/api/state", None),
                                                ("GET", "/history", None), ("GET", "/stats", None),
                                                ("GET", "/roll.jpg", None), ("GET", "/host", None)]
    for seat in seats[:2]:
        paths.append(("GET", seat, None))
        paths.append(("POST", seat + "/act", json.dumps({"type": "no-such-input"})))  # refused, on purpose
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def one(method: str, path: str, body: str | None) -> None:
        status, ms = _get(host, port, path, method, body)
        with lock:
            latencies.append(ms)
            if status == 0 or status >= 500:
                errors.append(f"{method} {path}: {'no answer' if status == 0 else f'HTTP {status}'}")

    started = time.monotonic()
    workers: list[threading.Thread] = []
    k = 0
    rss_mid = None
    while time.monotonic() - started < args.seconds:
        if rss_mid is None and time.monotonic() - started >= args.seconds / 2:
            rss_mid = _rss_mb(pid)
        method, path, body = paths[k % len(paths)]
        k += 1
        worker = threading.Thread(target=one, args=(method, path, body), daemon=True)
        worker.start()
        workers.append(worker)
        time.sleep(max(0.0, started + k / args.rps - time.monotonic()))
    for worker in workers:
        worker.join(timeout=15)
    rss_end = _rss_mb(pid)
    stop.set()
    for c in clients:
        c.join(timeout=5)
        errors.extend(c.errors)
    latencies.sort()
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[max(0, int(round(0.99 * len(latencies))) - 1)] if latencies else float("nan")
    modes = {m: sum(c.mode == m for c in clients) for m in ("stream", "poll", "failed", "starting")}
    print(f"dicetable loadtest: {args.clients} live pages, {args.rps:g} requests/s for {args.seconds:g} s "
          f"against http://{host}:{port}/")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"live pages: {modes['stream']} on a stream, {modes['poll']} polling, {modes['failed']} failed")
    print(f"requests: {len(latencies)} answered, {len(errors)} errors")
    for e in errors[:10]:
        print(f"  error: {e}")
    ok_latency = p99 <= P99_TARGET_MS
    print(f"latency: p50 {p50:.1f} ms, p99 {p99:.1f} ms (target p99 <= {P99_TARGET_MS:.0f} ms: {'ok' if ok_latency else 'MISSED'})")
    if rss_start is not None and rss_end is not None:
        mid = f", {rss_mid:.0f} MB half-way" if rss_mid is not None else ""
        print(f"server memory (RSS): {rss_start:.0f} MB at start{mid}, {rss_end:.0f} MB at end")
    else:
        print("server memory: not known (--url: the server is not this command's process)")
    return 0 if not errors and ok_latency else 1
