"""Subcommands: demo, run, bench-table; and `build()`, which wires the appliance together.

`dicetable demo` is the whole appliance on a laptop: gpiozero's mock pins (the pages'
virtual buttons press them), the synthetic camera (the page's throw control renders the
dice that are due) read back through the real detector, a fresh data directory, and a
game (``--game``, default the first of ``engines.GAMES``) already started so the seat
links can be printed.

`dicetable run` is the appliance on the Pi: real pins, the configured camera, logs to
stderr for journald, SIGTERM/SIGINT shut it down cleanly.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import logging
import math
import signal
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("dicetable")

# Each open live page (server-sent events) holds one thread while it waits. The pages cap
# the streams (SSE_PUBLIC_MAX + SSE_SEAT_MAX = 16; beyond that pages poll), so 24 threads
# always leave 8 for pages, pictures and seat actions. See pi/README.md.
SERVER_THREADS = 24


def register(sub) -> None:
    """Add this module's subcommands to the `dicetable` parser."""
    from vision.cli import positive_int

    demo = sub.add_parser("demo", help="the whole appliance on a laptop (synthetic camera, mock pins)",
                          description="Run the appliance with a synthetic camera, mock seat buttons "
                          "(virtual buttons on the page) and a game ready to play.")
    demo.add_argument("--game", default=None, metavar="NAME",
                      help="the game to start (default: the first of the games whose engine exists)")
    demo.add_argument("--port", type=_port, default=8080, help="web port, 1 to 65535 (default 8080)")
    demo.add_argument("--host", default="127.0.0.1",
                      help="address to serve on (default 127.0.0.1; 0.0.0.0 lets phones on the LAN in)")
    demo.add_argument("--seats", type=int, default=None, metavar="N",
                      help="play with the first N seats of the config (default: all; the game says how many it takes)")
    demo.add_argument("--config", default=None, metavar="PATH", help="a config file (default: laptop defaults)")
    demo.add_argument("--data-dir", default=None, metavar="DIR",
                      help="keep games here (default: a temporary folder removed at exit)")
    demo.add_argument("--no-browser", action="store_true", help="do not open the status page in a browser")
    demo.add_argument("--mute", action="store_true", help="start with the table's voice muted (docs/voice.md)")
    demo.add_argument("--lang", choices=("ja", "en"), default=None,
                      help="the table's language: the pages' default and the voice (default: the config's)")
    demo.add_argument("--seed", type=int, default=None, help="seed of the demo game")
    demo.set_defaults(handler=demo_main)

    run = sub.add_parser("run", help="the appliance on the Pi (real camera and seat buttons)",
                         description="Serve the table: configured camera, real GPIO pins, the pages.")
    run.add_argument("--config", default=None, metavar="PATH",
                     help="the config file (default: laptop defaults; see dicetable.example.toml)")
    run.set_defaults(handler=run_main)

    bench = sub.add_parser("bench-table", help="latency from a settled roll to a phone, and memory",
                           description="Start the demo appliance in-process, play settled rolls and "
                           "time each one until an SSE client has the new view; report peak RSS.")
    bench.add_argument("--rolls", type=positive_int, default=50, help="settled rolls to time (default 50)")
    bench.add_argument("--detector-seconds", type=_seconds, default=20.0,
                       help="seconds of the demo camera loop with the real detector (default 20)")
    bench.set_defaults(handler=lambda args: __import__("pi.bench", fromlist=["main"]).main(args))


# ---------------------------------------------------------------------- wiring


@dataclass
class Appliance:
    """Everything one running table holds; `close()` releases it in order."""

    config: Any
    store: Any
    table: Any
    app: Any
    panel: Any = None
    synthetic: Any = None
    notes: list[str] = field(default_factory=list)
    _server: Any = None
    _server_thread: threading.Thread | None = None
    _tmp: Any = None

    def serve_in_thread(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Serve the pages from a background thread; returns the port."""
        server = make_server(self.app, host, port)
        self._server = server
        self._server_thread = threading.Thread(target=run_server, args=(server,), name="waitress", daemon=True)
        self._server_thread.start()
        return server.effective_port

    def close(self) -> None:
        self.table.stop()
        if self._server is not None:
            stop_server(self._server)
            if self._server_thread is not None:
                self._server_thread.join(timeout=5)
        if self.panel is not None:
            self.panel.close()
        close = getattr(self.store, "close", None)
        if close is not None:
            close()
        if self._tmp is not None:
            self._tmp.cleanup()


#: Connections kept open per client address (a phone needs a few; a load test from one
#: machine, a few dozen). Beyond it a new connection closes that address's connection
#: idle the longest, so idle connections cannot lock anyone out.
CONNECTIONS_PER_ADDRESS = 64
#: Seconds a connection may sit idle (no request in it) before it is closed; the check
#: runs every CLEANUP_S. A live stream is a request in progress: never idle.
IDLE_S = 5
CLEANUP_S = 1


def make_server(app: Any, host: str, port: int) -> Any:
    """A waitress server (not yet running). Each open live page holds one thread while
    it waits; see pi/README.md for what that means for the number of phones. Idle
    connections are closed within seconds, and one address's connections are limited
    (``address_limited_channel``)."""
    from waitress.server import create_server

    # channel_request_lookahead: waitress keeps reading a connection while its request runs,
    # so a live stream learns when its page was closed (waitress.client_disconnected).
    server = create_server(app, host=host, port=port, threads=SERVER_THREADS, ident="dicetable",
                           channel_timeout=IDLE_S, cleanup_interval=CLEANUP_S, channel_request_lookahead=1,
                           connection_limit=500)
    listeners = getattr(server, "map", None) or server._map  # several listening sockets, or one
    for listener in list(listeners.values()):
        if hasattr(listener, "channel_class"):
            listener.channel_class = address_limited_channel()
    return server


@functools.cache
def address_limited_channel() -> type:
    """waitress's HTTPChannel, holding to ``CONNECTIONS_PER_ADDRESS`` per client address."""
    from waitress.channel import HTTPChannel

    class AddressLimitedChannel(HTTPChannel):
        """A connection that, once accepted, closes its address's connection idle the
        longest when the address has more than ``CONNECTIONS_PER_ADDRESS`` (itself when
        every other is busy). Runs in waitress's loop thread, as every accept does."""

        def __init__(self, server, sock, addr, adj, map=None):
            super().__init__(server, sock, addr, adj, map=map)
            client = addr[0] if isinstance(addr, tuple) else addr
            same = [c for c in list(self._map.values()) if isinstance(c, HTTPChannel) and c is not self
                    and not c.will_close and (c.addr[0] if isinstance(c.addr, tuple) else c.addr) == client]
            if len(same) < CONNECTIONS_PER_ADDRESS:
                return
            idle = [c for c in same if not c.requests]
            (min(idle, key=lambda c: c.last_activity) if idle else self).will_close = True

    return AddressLimitedChannel


def run_server(server: Any) -> None:
    """Run waitress's loop until `stop_server` closes its sockets."""
    try:
        server.run()
    except (OSError, ValueError):  # select() on the sockets stop_server just closed
        pass


def stop_server(server: Any) -> None:
    """Stop a waitress server from any thread: let the worker threads finish their requests
    (live streams end once the table is stopped), then close every socket."""
    from waitress import wasyncore

    server.task_dispatcher.shutdown(timeout=5)
    server.close()
    try:
        wasyncore.close_all(server._map)
    except OSError:  # already closed
        pass


def build(
    config: Any,
    *,
    demo: bool,
    pin_factory: Any = None,
    camera: Any = "config",
    detector: Any = "auto",
    settler: Any = "auto",
    synthetic: Any = None,
    panel_clock: Callable[[], float] | None = None,
    animate: bool = True,
    test_config: dict[str, Any] | None = None,
) -> Appliance:
    """Wire config, store, panel, camera, detector, settler, table and pages together.

    `camera="config"` opens the configured source (retried when it fails); `None` runs
    without a camera (dice typed on the host page). `detector="auto"` loads the shipped
    model, or runs without one (typed dice) with a note when models/ has none.
    """
    from pi.store import Store
    from pi.table import Table
    from pi.web import create_app

    notes: list[str] = []
    # creates the data folder; StoreError says what to fix. A card read-only at the start
    # gives a read-only store (store.read_only): the pages show what it holds and say why.
    store = Store(config.db_path)

    if detector == "auto":
        detector = load_detector(config, notes)
    if settler == "auto":
        settler = None
        if detector is not None:
            from vision.settle import Settler

            settler = Settler()
    if camera == "config":
        camera, synthetic = open_configured_camera(config, notes, synthetic)

    holder: dict[str, Any] = {}

    def on_lock(seat: str, value: int) -> None:
        holder["table"].buttons.on_lock(seat, value)

    panel, buttons_down = None, None
    if pin_factory is not None or not demo:
        from hardware.panel import SeatPanel

        kwargs: dict[str, Any] = {"animate": animate}
        if panel_clock is not None:
            kwargs["clock"] = panel_clock
        try:
            panel = SeatPanel(config.seats, pin_factory, on_lock, **kwargs)
        except Exception as exc:  # no GPIO chip, pins taken, no permission: phones still work
            log.error("the seat buttons are not available (%s); the game goes on with the phones", exc)
            notes.append(f"seat buttons unavailable: {exc}")
            panel = None
            buttons_down = str(exc)
        else:
            buttons_down = None
    table = Table(config, store, panel=panel, camera=camera, detector=detector, settler=settler,
                  synthetic=synthetic, frame_interval=1.0 / config.camera.fps)
    holder["table"] = table
    if buttons_down is not None:
        table.add_warning({
            "en": f"The seat buttons are not available ({buttons_down}): choose on the seat pages.",
            "ja": f"席ボタンが使えません（{buttons_down}）。各席のページで選んでください。",
        })
    if detector is None and camera is not None:
        table.add_warning({
            "en": "The dice model is missing (models/*.onnx): the demo applies thrown dice as typed dice.",
            "ja": "ダイスのモデル（models/*.onnx）がありません。振ったダイスは入力として扱います。",
        })
    app_config = {"DEMO": demo, **(test_config or {})}
    app = create_app(table, config, app_config)
    appliance = Appliance(config, store, table, app, panel, synthetic, notes)
    return appliance


def load_detector(config: Any, notes: list[str]) -> Any:
    """The shipped dice model with the table's calibrated colours and taught faces, and the
    quicker of its two classifiers on this machine (`Detector(classifier="auto")`, logged);
    None with a note when the model is not there (the game goes on with typed dice)."""
    from pi.calibration import colour_table_path, faces_path

    try:
        from vision.detector import Detector
    except ImportError as exc:
        notes.append(f"the dice detector is not available ({exc}); dice are typed on the host page")
        return None
    colours = None
    path = colour_table_path(config)
    if path.exists():
        try:
            from vision.colours import ColourTable

            colours = ColourTable.load(path)
        except (OSError, ValueError) as exc:
            notes.append(f"{path}: cannot load the colour calibration ({exc}); using the default colours")
    faces = None
    path = faces_path(config)
    if path.exists():
        try:
            from vision.faces import FaceBook

            faces = FaceBook.load(path)
        except ValueError as exc:
            notes.append(f"cannot use the taught faces ({exc}); reading without them")
    from vision.classifiers import CHOICE_FILE_NAME

    try:  # the quicker classifier on this machine, timed once and remembered in the data folder
        return Detector(colours=colours, faces=faces, classifier="auto", choices=config.data_dir / CHOICE_FILE_NAME)
    except FileNotFoundError as exc:
        notes.append(f"no dice model: {exc}. Thrown dice are applied as typed dice until the model is there.")
        return None


def open_configured_camera(config: Any, notes: list[str], synthetic: Any = None) -> tuple[Any, Any]:
    """The configured frame source, and the synthetic table when it is one.

    A real camera is wrapped in `RetryingCamera`: when it fails or disappears the page says
    so, it is reopened every few seconds, and meanwhile dice are typed on the host page.
    """
    from vision import camera as cam

    cam_config = config.camera
    if cam_config.source == "synthetic":
        if synthetic is None:
            synthetic = cam.SyntheticTable(size=(cam_config.width, cam_config.height))
        return synthetic, synthetic
    retrying = cam.RetryingCamera(lambda: cam.open_camera(cam_config))
    if retrying.status != "ok":
        notes.append(f"camera ({cam_config.source}): {retrying.reason}; retrying, dice can be typed meanwhile")
    return retrying, None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------- commands


class _RoutineDisconnects(logging.Filter):
    """waitress logs "Client disconnected while serving /path" at INFO each time a phone
    closes a live page: routine at a table, so it is a DEBUG message here, shown only when
    the ``waitress`` logger is set to DEBUG. waitress's warnings and errors pass as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO and record.getMessage().startswith("Client disconnected"):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger("waitress").isEnabledFor(logging.DEBUG)
        return True


_ROUTINE_DISCONNECTS = _RoutineDisconnects()


def _seconds(text: str) -> float:
    """argparse type: a duration of 0 to 3600 seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 3600:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r} is not 0 to 3600 seconds")
    return value


def _port(text: str) -> int:
    """A TCP port for argparse: 1 to 65535 (a larger number would wrap round to another)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port; use 1 to 65535")
    return port


def _setup_logging() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("waitress").addFilter(_ROUTINE_DISCONNECTS)  # once: the same filter is not added twice


def _load_config(path: str | None) -> Any:
    from pi.config import ConfigError, load

    try:
        return load(path)
    except ConfigError as exc:
        print(f"dicetable: config error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _build_or_report(config: Any, **kwargs: Any) -> Appliance | None:
    """`build()`, or None after one line on stderr saying what stopped it (a data folder
    that cannot be written, a pin already in use) rather than a traceback."""
    try:
        return build(config, **kwargs)
    except Exception as exc:
        log.debug("build failed", exc_info=True)
        print(f"dicetable: cannot start: {exc}", file=sys.stderr)
        return None


def demo_main(args: argparse.Namespace) -> int:
    _setup_logging()
    config = _load_config(args.config)
    tmp = None
    if args.data_dir:
        config = dataclasses.replace(config, data_dir=Path(args.data_dir).expanduser())
    elif args.config is None:
        tmp = tempfile.TemporaryDirectory(prefix="dicetable-demo-")
        config = dataclasses.replace(config, data_dir=Path(tmp.name))
    seats = list(config.seats)
    if args.seats is not None:
        if not 1 <= args.seats <= len(seats):
            print(f"dicetable: --seats {args.seats}: the config has {len(seats)} seats; "
                  f"choose 1 to {len(seats)}", file=sys.stderr)
            return 2
        seats = seats[: args.seats]
        config = dataclasses.replace(config, seats=tuple(seats))
    config = dataclasses.replace(config, web=dataclasses.replace(config.web, host=args.host, port=args.port))
    config = dataclasses.replace(config, language=args.lang or config.language)
    from gpiozero.pins.mock import MockFactory

    appliance = _build_or_report(config, demo=True, pin_factory=MockFactory(), animate=False)
    if appliance is None:
        return 2
    appliance._tmp = tmp
    for note in appliance.notes:
        log.warning("%s", note)
    table = appliance.table
    from pi.voice import attach as attach_voice

    attach_voice(table, config, mute=args.mute)  # the table speaks (docs/voice.md)
    import engines

    game = args.game or engines.GAMES[0]
    if game not in engines.GAMES:
        print(f"dicetable: --game {game}: unknown game; the games are {', '.join(engines.GAMES)}", file=sys.stderr)
        appliance.close()
        return 2
    if args.game or not table.resume():
        result = table.start_game(game, [{"name": s.name, "colour": s.colour} for s in seats], {}, args.seed)
        if not result["ok"]:
            print(f"dicetable: cannot start the demo game: {result['error']['en']}", file=sys.stderr)
            appliance.close()
            return 2
    table.start()
    return _serve(appliance, config.web.host, config.web.port, open_browser=not args.no_browser,
                  fix="choose another --port or --host")


def run_main(args: argparse.Namespace) -> int:
    _setup_logging()
    config = _load_config(args.config)
    appliance = _build_or_report(config, demo=False)
    if appliance is None:
        return 1
    if args.config is None:
        log.warning("no --config: the laptop defaults (host PIN 0000, the synthetic camera); "
                    "on the table, run it with --config /etc/dicetable/dicetable.toml")
    elif config.host_pin is not None:
        log.warning("the host PIN is kept in clear in the config; replace host_pin with the "
                    "host_pin_hash line that `dicetable pin` prints")
    for note in appliance.notes:
        log.warning("%s", note)
    from pi.voice import attach as attach_voice

    attach_voice(appliance.table, config)  # the table speaks (docs/voice.md)
    appliance.table.resume()
    appliance.table.start()
    return _serve(appliance, config.web.host, config.web.port, open_browser=False,
                  fix="check web.host and web.port in the config; is dicetable running already "
                  "(sudo systemctl stop dicetable)?")


def _print_addresses(appliance: Appliance, host: str, port: int, demo_pin: bool) -> None:
    """The pages' addresses; the demo also prints its laptop PIN (`run` never prints a PIN)."""
    from pi.web.host import phone_root

    root = phone_root(f"http://127.0.0.1:{port}/", host) if host in ("0.0.0.0", "::") else f"http://{host}:{port}"
    lines = [f"dicetable is serving on {root}/  (Ctrl+C stops it)",
             f"  status page: {root}/",
             f"  host page:   {root}/host" + (f"   (PIN {appliance.config.host_pin or 'of the config'})"
                                                  if demo_pin else "")]
    record = appliance.table.record
    if record is not None:
        for seat in record.seats:
            lines.append(f"  seat {seat['name']:<6} {root}/seat/{record.tokens[seat['name']]}")
    print("\n".join(lines), flush=True)


def _has_desktop() -> bool:
    """Only open a browser where there is a screen (never a console browser over the log)."""
    import os

    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _serve(appliance: Appliance, host: str, port: int, open_browser: bool, fix: str) -> int:
    try:
        server = make_server(appliance.app, host, port)
    except (OSError, ValueError) as exc:  # a port in use; waitress's ValueError: a host that does not resolve
        print(f"dicetable: cannot serve on {host}:{port} ({exc}); {fix}", file=sys.stderr)
        appliance.close()
        return 1
    appliance._server = server

    def shutdown(signum: int, frame: Any) -> None:
        log.info("signal %s: shutting down", signum)
        appliance.table.stop()
        stop_server(server)

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    _print_addresses(appliance, host, server.effective_port, demo_pin=appliance.app.config["DEMO"])
    if open_browser and _has_desktop():
        import webbrowser

        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        threading.Timer(0.5, webbrowser.open, args=(f"http://{shown}:{server.effective_port}/",)).start()
    try:
        run_server(server)
    finally:
        appliance._server = None
        appliance.close()
        log.info("stopped")
    return 0
