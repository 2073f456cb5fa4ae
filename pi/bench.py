"""`dicetable bench-table`: latency from a settled roll to a phone's view, and memory; and
`dicetable bench --report FILE`, everything a Pi owner sends back in one JSON file.

The demo appliance runs in this process (synthetic camera, mock pins, the real detector
when models/ has it) and serves on a free local port. A real HTTP client reads the status
page's server-sent event stream in a thread. For each of N settled rolls the clock starts
when `Table.settled_roll` is called (exactly what the camera thread calls) and stops when
the client has received and parsed the event carrying the new view. Then the demo loop
runs with the real detector for a while (throws rendered, read back, applied) and the
process's peak resident memory is reported.

`dicetable bench --report FILE` (this module adds `--report` to vision.cli's `bench`)
writes the machine (CPU, cores, board, OS, Python), the versions, the figures of `bench`
(the 8-bit and the float classifier side by side, and which one `auto` picks) and of
`bench-table`, and the camera's frame rate (the real camera when there is one, else the
synthetic table, labelled so).
"""
from __future__ import annotations

import argparse
import dataclasses
import http.client
import itertools
import json
import logging
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LATENCY_TARGET_MS = 300.0
STILL_TARGET_MS = 150.0
CAMERA_FPS = 30.0
RSS_TARGET_MB = 250.0
# A demo throw the camera has not reported after this long is typed in, as a host would.
THROW_TIMEOUT_S = 5.0
SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Chie", "colour": "green"}]


class SSEClient:
    """Reads an event stream over HTTP in a thread; remembers when each version arrived."""

    def __init__(self, host: str, port: int, path: str = "/events") -> None:
        self.arrived: dict[int, float] = {}  # first arrival of each die id in a view's last roll
        self._cond = threading.Condition()
        self._conn = http.client.HTTPConnection(host, port, timeout=30)
        self._conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self._response = self._conn.getresponse()
        if self._response.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {self._response.status}")
        self._thread = threading.Thread(target=self._read, name="sse-client", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for raw in iter(self._response.readline, b""):
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("data: "):
                    payload = json.loads(line[6:])  # parse the whole view, as a page does
                    now = time.perf_counter()
                    dice = payload["state"].get("last_roll") or []
                    with self._cond:
                        for die in dice:
                            self.arrived.setdefault(die["id"], now)
                        self._cond.notify_all()
        except (OSError, ValueError, http.client.HTTPException):
            pass  # the stream was closed at the end

    def wait_for(self, die_id: int, timeout: float = 10.0) -> float:
        """When the first view showing the die ``die_id`` arrived (perf_counter seconds)."""
        with self._cond:
            if not self._cond.wait_for(lambda: die_id in self.arrived, timeout):
                raise TimeoutError(f"no view with die {die_id} arrived within {timeout} s")
            return self.arrived[die_id]

    def close(self) -> None:
        self._conn.close()


def _machine() -> str:
    from vision.evaluate import cpu_name

    return f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def _ensure_throw_due(table: Any, rng: random.Random) -> dict[str, Any]:
    """Play every other input with sample values (or start a new game) until the game
    waits for a throw; returns that throw input."""
    import engines

    from pi import inputs

    for _ in range(200):
        exp = table.expects_now()
        throws = [i for i in inputs.throw_inputs(exp) if i.get("camera") != "rethrown" and i.get("dice")]
        if throws:
            return throws[0]
        todo = inputs.inputs(exp)
        if not todo:
            table.start_game(engines.GAMES[0], SEATS, {}, rng.randrange(1 << 30))
            continue
        inp = todo[0]
        seat = inp["seats"][0] if inp.get("seats") else None
        table.act(seat, inp["type"], inputs.sample_values(inp, rng), source="bench")
    raise RuntimeError("the game never asked for a throw")


def _roll_for(inp: dict[str, Any], on_table: list[Any], rng: random.Random, ids: itertools.count) -> Any:
    from vision.settle import Roll, TrackedDie

    everything = inp.get("camera") == "all"
    dice = [] if everything else [dataclasses.replace(d, status="still") for d in on_table]
    for spec in inp.get("dice") or []:
        colour = "red" if spec["colour"] == "*" else spec["colour"]
        for _ in range(int(spec["count"])):
            x, y = rng.uniform(30, 560), rng.uniform(30, 400)
            die = TrackedDie(next(ids), colour, rng.randint(1, 6), (x, y, x + 48, y + 48), 0.97,
                             "rethrown" if everything else "new", False)
            dice.append(die)
    return Roll(tuple(dice), time.monotonic())


def measure_latency(table: Any, client: SSEClient, rolls: int, frame: Any, seed: int = 1) -> list[float]:
    rng, ids = random.Random(seed), itertools.count(10**6)  # never an id the settler gives
    on_table: list[Any] = []
    latencies = []
    for _ in range(rolls):
        exp = _ensure_throw_due(table, rng)
        if table.round_is_fresh():
            on_table = []
        roll = _roll_for(exp, on_table, rng, ids)
        started = time.perf_counter()
        result = table.settled_roll(roll, frame)
        arrived = client.wait_for(roll.dice[-1].id)
        latencies.append((arrived - started) * 1000.0)
        if not result["ok"]:
            raise RuntimeError(f"the benchmark's roll was refused: {result['error']['en']}")
        on_table = list(roll.dice)
    return latencies


class StillCamera:
    """The synthetic camera as the table reads it, noting when the first frame in which the
    thrown dice lie still was read (``still_at``, perf_counter seconds) after ``arm()``."""

    def __init__(self, synthetic: Any) -> None:
        self.synthetic = synthetic
        self.still_at: float | None = None
        self._armed = False

    def arm(self) -> None:
        self.still_at, self._armed = None, True

    def read(self) -> Any:
        frame = self.synthetic.read()
        if self._armed and not self.synthetic.moving:
            self.still_at, self._armed = time.perf_counter(), False
        return frame

    def close(self) -> None:
        self.synthetic.close()


def run_demo_loop(table: Any, seconds: float, client: SSEClient, camera: StillCamera,
                  seed: int = 2) -> tuple[dict[str, int], list[float]]:
    """Play with the demo's throw control for ``seconds``: the synthetic camera renders the
    dice, the camera thread reads them with the detector and the settler, the table applies
    them. A misread throw (a prompt) is typed in, as a host would. For each throw read by
    the camera, also the time from the first frame in which its dice lie still to the
    phone's view showing them (ms)."""
    rng = random.Random(seed)
    counts = {"throws": 0, "read": 0, "typed": 0}
    still_to_phone: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _ensure_throw_due(table, rng)
        before = len(table.store.events(table.record.id))
        seen = set(client.arrived)
        camera.arm()
        thrown = table.demo.throw()
        counts["throws"] += 1
        version = table.version
        give_up = time.monotonic() + THROW_TIMEOUT_S  # the last throw too gets its full time
        while time.monotonic() < give_up and len(table.store.events(table.record.id)) == before:
            if table.prompt is not None:
                log.warning("demo throw %d not applied: %s", counts["throws"], table.prompt)
                break
            version = table.wait_for_change(version, timeout=0.5)
        if len(table.store.events(table.record.id)) > before:
            counts["read"] += 1
            new = [d.id for d in table.last_roll or [] if d.id not in seen]
            if new and camera.still_at is not None:
                arrived = min(client.wait_for(i) for i in new)
                still_to_phone.append((arrived - camera.still_at) * 1000.0)
        elif thrown.get("thrown") and table.demo.apply_thrown()["ok"]:
            counts["typed"] += 1
    return counts, still_to_phone


def _summary(values: list[float]) -> dict[str, float]:
    """Median, 95th percentile and maximum of `values` (ms), as bench-table prints them."""
    ordered = sorted(values)
    p95 = ordered[max(0, int(round(0.95 * len(ordered))) - 1)]
    return {"median_ms": round(statistics.median(ordered), 1), "p95_ms": round(p95, 1), "max_ms": round(ordered[-1], 1)}


def measure(rolls: int = 50, seconds: float = 20.0) -> dict[str, Any]:
    """The figures of `dicetable bench-table`: `rolls` settled rolls timed to the phone's
    view, then `seconds` of the demo loop with the real detector, and the peak memory."""
    from gpiozero.pins.mock import MockFactory

    from pi import config as config_module
    from pi.appliance import build

    with tempfile.TemporaryDirectory(prefix="dicetable-bench-") as tmp:
        base = config_module.load(None)
        config = dataclasses.replace(base, data_dir=Path(tmp), camera=dataclasses.replace(base.camera, fps=CAMERA_FPS))
        from vision.camera import SyntheticTable

        synthetic = SyntheticTable(size=(config.camera.width, config.camera.height), fps=CAMERA_FPS)
        camera = StillCamera(synthetic)
        appliance = build(config, demo=True, pin_factory=MockFactory(), animate=False, camera=camera,
                          synthetic=synthetic)
        table = appliance.table
        table.demo.rng = random.Random(3)
        try:
            import engines

            table.start_game(engines.GAMES[0], SEATS, {}, seed=1)
            port = appliance.serve_in_thread("127.0.0.1", 0)
            client = SSEClient("127.0.0.1", port)
            # The rolls are injected exactly as the camera thread reports them; the camera
            # thread itself starts for the demo loop below.
            frame = synthetic.read()
            latencies = measure_latency(table, client, rolls, frame)
            table.start()
            detector = table.camera.detector
            loop, still = run_demo_loop(table, seconds, client, camera) if detector is not None else ({}, [])
            client.close()
        finally:
            appliance.close()
    rss = _peak_rss_mb()
    latency = _summary(latencies)
    figures: dict[str, Any] = {
        "rolls": len(latencies), "roll_to_phone": latency,
        "detector": None if detector is None else dataclasses.asdict(detector.classifier),
        "demo_loop": {"seconds": seconds, **loop} if loop else None,
        "still_to_phone": {"throws": len(still), **_summary(still)} if still else None,
        "camera_fps": CAMERA_FPS, "peak_rss_mb": round(rss, 1),
        "targets": {"roll_to_phone_p95_ms": LATENCY_TARGET_MS, "still_to_phone_p95_ms": STILL_TARGET_MS,
                    "peak_rss_mb": RSS_TARGET_MB},
    }
    figures["ok"] = latency["p95_ms"] <= LATENCY_TARGET_MS and rss <= RSS_TARGET_MB
    return figures


def format_table(figures: dict[str, Any]) -> str:
    """`dicetable bench-table`'s lines for `measure()`'s figures."""
    ok = "ok", "MISSED"
    lat, rss = figures["roll_to_phone"], figures["peak_rss_mb"]
    lines = [f"dicetable bench-table: {figures['rolls']} settled rolls -> SSE client over HTTP (waitress, localhost)",
             f"machine: {_machine()}",
             f"roll -> phone view: median {lat['median_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms, "
             f"max {lat['max_ms']:.1f} ms (target p95 <= {LATENCY_TARGET_MS:.0f} ms: "
             f"{ok[lat['p95_ms'] > LATENCY_TARGET_MS]})"]
    det = figures["detector"]
    detector = "NO detector (models/*.onnx missing)" if det is None else f"real detector ({det['kind']} classifier)"
    loop, still = figures["demo_loop"], figures["still_to_phone"]
    if loop:
        lines.append(f"demo loop with the {detector}, {loop['seconds']:.0f} s: {loop['throws']} throws, "
                     f"{loop['read']} read by the camera, {loop['typed']} typed after a prompt or "
                     f"{THROW_TIMEOUT_S:.0f} s unread")
    if still:
        lines.append(f"first still frame ({CAMERA_FPS:.0f} fps synthetic camera) -> verdict on the phone: "
                     f"median {still['median_ms']:.0f} ms, p95 {still['p95_ms']:.0f} ms over {still['throws']} "
                     f"throws (target p95 <= {STILL_TARGET_MS:.0f} ms: {ok[still['p95_ms'] > STILL_TARGET_MS]})")
    else:
        lines.append(f"demo loop: skipped ({detector})")
    lines.append(f"peak RSS: {rss:.0f} MB (target <= {RSS_TARGET_MB:.0f} MB: {ok[rss > RSS_TARGET_MB]})")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    figures = measure(int(getattr(args, "rolls", 50)), float(getattr(args, "detector_seconds", 20.0)))
    print(format_table(figures))
    return 0 if figures["ok"] else 1


# ---------------------------------------------------------------------- the report


#: Seconds of frames read for the camera's frame rate (after one second of warming up).
CAMERA_SECONDS = 5.0
#: The packages whose versions a report names; picamera2 and gpiozero only where installed.
PACKAGES = ("numpy", "onnxruntime", "flask", "waitress", "gpiozero", "picamera2")


def versions() -> dict[str, str]:
    """The versions of dicetable and the packages its figures depend on (those installed)."""
    from importlib import metadata

    import cv2

    from pi import __version__

    found = {name: None for name in PACKAGES}
    for name in found:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    # the code's own, not the install's metadata (an editable install keeps the version it was made at)
    found = {"dicetable": __version__, **found, "opencv": cv2.__version__}
    return {name: v for name, v in found.items() if v is not None}


def _first_line(path: str, prefix: str = "") -> str | None:
    """The value of the first line of a system file starting with `prefix` (None when the
    file is not there, as on a machine that is no Pi)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(prefix):
                    return line[len(prefix):].strip().strip('"').rstrip("\0") or None
    except OSError:
        return None
    return None


def machine() -> dict[str, Any]:
    """The machine a report was made on: CPU, cores, board, memory, OS, Python."""
    from vision.evaluate import cpu_name

    mem = _first_line("/proc/meminfo", "MemTotal:")
    return {"cpu": cpu_name(), "cores": os.cpu_count(), "arch": platform.machine(),
            "board": _first_line("/proc/device-tree/model"),  # "Raspberry Pi 5 Model B Rev 1.0"
            "memory_mb": round(int(mem.split()[0]) / 1024) if mem else None,
            "os": _first_line("/etc/os-release", "PRETTY_NAME=") or f"{platform.system()}",
            "kernel": f"{platform.system()} {platform.release()}", "python": platform.python_version()}


def _real_camera_config(config: Any) -> Any | None:
    """The configured camera when it is a real one; for the laptop default (the synthetic
    table), the Pi camera with the config's settings when picamera2 sees one; else None."""
    if config.camera.source != "synthetic":
        return config.camera
    try:
        from picamera2 import Picamera2  # apt: python3-picamera2

        if Picamera2.global_camera_info():
            return dataclasses.replace(config.camera, source="picamera2")
    except Exception:  # no picamera2, no libcamera: no Pi camera here
        pass
    return None


def frame_rate(camera: Any, seconds: float = CAMERA_SECONDS, warmup: float = 1.0,
               clock=time.perf_counter) -> dict[str, Any]:
    """Frames a second that `camera.read()` gives over `seconds`, after `warmup` seconds
    (a camera's first frames come slower), and the frames' size."""
    end = clock() + warmup
    frame = camera.read()
    while clock() < end:
        frame = camera.read()
    frames, start = 0, clock()
    while frames == 0 or clock() - start < seconds:
        frame = camera.read()
        frames += 1
    elapsed = clock() - start
    h, w = frame.shape[:2]
    return {"fps": round(frames / elapsed, 2), "frames": frames, "seconds": round(elapsed, 2), "size": [w, h]}


def camera_rate(config: Any, seconds: float = CAMERA_SECONDS, clock=time.perf_counter) -> dict[str, Any]:
    """The camera's frame rate as the appliance would read it (its configured size and
    pace, `configured_fps`): the real camera when there is one; else, or when it cannot be
    opened (`unavailable` says why: in use by the running appliance, say), the synthetic
    table, with `synthetic` true."""
    from vision import camera as cam

    real = _real_camera_config(config)
    out: dict[str, Any] = {}
    if real is not None:
        source = None
        try:
            source = cam.open_camera(real)
            return {"source": real.source, "synthetic": False, "configured_fps": real.fps,
                    **frame_rate(source, seconds, clock=clock)}
        except Exception as exc:  # a camera that does not open or stops: the report says so
            out["unavailable"] = f"{real.source}: {exc}"
        finally:
            if source is not None:
                source.close()
    c = config.camera
    synthetic = cam.SyntheticTable(size=(c.width, c.height), fps=c.fps)
    try:
        return {"source": "synthetic", "synthetic": True, "configured_fps": c.fps, **out,
                **frame_rate(synthetic, seconds, clock=clock)}
    finally:
        synthetic.close()


def report(args: argparse.Namespace, config: Any) -> dict[str, Any]:
    """Everything a Pi owner sends back: the machine, the versions, the figures of
    `dicetable bench` (for `args`) and of `bench-table`, and the camera's frame rate.
    Prints each part's lines as it is measured."""
    from vision import cli as vision_cli

    out: dict[str, Any] = {"report": "dicetable bench --report",
                           "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           "machine": machine(), "versions": versions()}
    bench = vision_cli.bench_report(args)
    if bench is None:
        raise ValueError("nothing to time")
    print(vision_cli.format_bench(bench), flush=True)
    out["bench"] = bench
    out["bench_table"] = measure(REPORT_ROLLS, REPORT_SECONDS)
    print(format_table(out["bench_table"]), flush=True)
    out["camera"] = camera_rate(config, REPORT_CAMERA_SECONDS)
    cam = out["camera"]
    print(f"camera: {cam['source']}{' (synthetic table)' if cam['synthetic'] else ''}, "
          f"{cam['size'][0]}x{cam['size'][1]}, {cam['fps']} frames a second (configured {cam['configured_fps']})"
          + (f"; the real camera was unavailable: {cam['unavailable']}" if "unavailable" in cam else ""), flush=True)
    return out


#: How long the report's parts run: bench-table's rolls and demo-loop seconds, the camera's seconds.
REPORT_ROLLS = 50
REPORT_SECONDS = 20.0
REPORT_CAMERA_SECONDS = CAMERA_SECONDS


def register(sub: Any) -> None:
    """Give `dicetable bench` (vision.cli's) its `--report FILE` and `--config`: the report
    takes in the appliance's bench-table and camera, which vision may not import."""
    p = sub.choices["bench"]
    p.add_argument("--report", metavar="FILE",
                   help="also time bench-table and the camera's frame rate, and write everything with the machine "
                        "and the versions to FILE as one JSON file (to send to the dicetable project)")
    p.add_argument("--config", metavar="PATH",
                   help="with --report: the config whose camera is timed (default: the Pi camera when there is "
                        "one, else the synthetic table); stop the running appliance first, it holds the camera")
    p.set_defaults(handler=bench_main)


def bench_main(args: argparse.Namespace) -> int:
    """`dicetable bench`, and with `--report FILE` the report written there (exit 2, nothing
    written, for a FILE that cannot be written or a bad config)."""
    from vision import cli as vision_cli

    if not args.report:
        if args.config:
            print("dicetable bench: --config is for --report (the camera it times)", file=sys.stderr)
            return 2
        return vision_cli.bench_command(args)
    path = Path(args.report).expanduser()
    if path.is_dir() or not path.parent.is_dir() or not os.access(path.parent, os.W_OK):
        print(f"dicetable bench: cannot write the report to {path}: "
              f"{'it is a folder' if path.is_dir() else 'no writable folder ' + str(path.parent)}", file=sys.stderr)
        return 2
    from pi.config import ConfigError, load

    try:
        config = load(args.config)
    except ConfigError as exc:
        print(f"dicetable bench: config error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    try:
        out = report(args, config)
    except (FileNotFoundError, ValueError) as exc:
        print(f"dicetable bench: {exc}; no report written", file=sys.stderr)
        return 2
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        print(f"dicetable bench: cannot write the report to {path}: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {path}: please send it to the dicetable project")
    return 0
