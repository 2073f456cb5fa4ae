"""The host page, behind the PIN: start and end games, send the inputs the game waits for
(anything but a player's secret choice: cards turned over, typed dice, a seat's move for
a player without a phone), fix throws, undo, calibrate.

GET  /host                 the login form, or the host page once logged in
POST /host/login           ``pin``; wrong PINs are counted per address and refused for a
                           while after ``PIN_ATTEMPTS`` in ``PIN_WINDOW_S`` seconds (429)
POST /host/logout          ends every host login on the server (a saved cookie is refused after)
POST /host/start           game, seats (checkboxes + name/colour), options (JSON), seed
POST /host/links           new seat links for the table's seats (the old links stop working)
POST /host/act             one input the game waits for: ``type`` and its fields (form or JSON)
POST /host/throw           typed dice for the throw due (camera down or misread)
POST /host/correct         replace the dice of the last throw
POST /host/undo, /host/end
POST /host/calibrate/capture/<colour>, /host/calibrate/save
GET  /host/teach           the teaching session of the table's own dice (host_teach.html)
POST /host/teach/start     ``sides`` (6, 10 or 20); /host/teach/finish
POST /host/teach           ``face`` (and ``sides``, 6 or the session's die): the dice under
                           the camera all show it
Every action answers JSON to JSON callers, else redirects back to the host page.

What cannot be taken back asks first: Undo, End and Start while a game is being played
carry ``confirm=1`` (the page's form asks, with what will be lost, in ``data-confirm``);
without it nothing changes and the answer says why.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections import defaultdict, deque
from functools import wraps
from typing import Any

from flask import (Blueprint, current_app, flash, jsonify, redirect, render_template, request,
                   session, url_for)

from werkzeug.datastructures import MultiDict

from pi import inputs
from pi.calibration import DEMO_TEACH_COLOUR, teachable
from pi.web import error_response, i18n, is_host, json_object, table_of, wants_json

bp = Blueprint("host", __name__, url_prefix="/host")
log = logging.getLogger(__name__)

_failures_lock = threading.Lock()


def _failures() -> dict[str, deque[float]]:
    """Wrong PIN times per client address, kept per app."""
    return current_app.extensions.setdefault("pin_failures", defaultdict(deque))


def _config() -> Any:
    return current_app.extensions["dicetable_config"]


def host_required(view):
    @wraps(view)
    def wrapper(*args, **kwargs):
        if not is_host():
            message = i18n.both("host_login_first")
            if wants_json():
                return error_response(403, message)
            flash(message)
            return redirect(url_for("host.page"))
        return view(*args, **kwargs)

    return wrapper


def _done(result: dict[str, Any]):
    """Answer an action: JSON for API callers, else a flash message and back to the page."""
    if wants_json():
        if result.get("ok"):
            return jsonify(result)
        return jsonify({"ok": False, "error": result["error"]}), 409
    if not result.get("ok"):
        flash(result["error"])
    return redirect(url_for("host.page"))


@bp.get("")
def page():
    if not is_host():
        return render_template("host_login.html")
    table = table_of()
    config = _config()
    links = []
    if table.record is not None:
        root = phone_root(request.url_root, getattr(config.web, "host", ""), request.remote_addr)
        for seat in table.record.seats:
            url = root + url_for("seat.page", token=table.record.tokens[seat["name"]])
            links.append({"seat": seat["name"], "colour": seat["colour"], "url": url, "qr": _qr_svg(url)})
    titles = playable_games()
    return render_template(
        "host.html", **host_view(table), links=links, games=list(titles), titles=titles,
        config_seats=[{"name": s.name, "colour": s.colour} for s in config.seats],
        wifi=getattr(config, "wifi", None), qr_svg=_qr_svg,
        seat_colours=_seat_colours(table), game_settings=_game_settings, both=i18n.both,
    )


def host_view(table: Any) -> dict[str, Any]:
    """What the host page shows of the game. Nothing in it changes when a seat locks a
    secret choice (the host may be a player too)."""
    snap = table.snapshot()
    return {
        "snap": snap,
        "host_inputs": inputs.for_host(table.expects_now()),
        "last_throw": inputs.dice_text(table.last_throw_dice()),
        "roll_text": inputs.dice_text(table.prompt_dice) if snap["prompt"] else "",
        "undo_words": table.undo_words(),
        "undo_key": undo_key(table),
        "running": table.running(),
        "calibration": table.calibration.status(table.camera.camera is not None),
    }


def undo_key(table: Any) -> str:
    """A short mark of what Undo takes back now: the page sends back the one it showed, so
    a confirmation given for one action never undoes another ("" when nothing to undo)."""
    import hashlib

    words = table.undo_words()
    if words is None:
        return ""
    return hashlib.sha256(f"{table.ledger.last_action()}|{words['en']}".encode()).hexdigest()[:12]


def playable_games() -> dict[str, dict[str, str]]:
    """Every game whose engine exists, in ``engines.GAMES`` order, with its title."""
    import engines
    from pi.snapshots import title

    out = {}
    for name in engines.GAMES:
        try:
            out[name] = title(engines.load(name), name)
        except ValueError:  # engines.GameNotImplemented
            continue
    return out


def lan_address() -> str | None:
    """This machine's address on the LAN: the one it would use towards a private address
    (nothing is sent), else, without such a route (its own hotspot and nothing else), the
    first IPv4 address of a network interface other than loopback."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            address = s.getsockname()[0]
    except OSError:
        address = None
    if address is None or address.startswith("127."):
        address = next((a for a in interface_addresses() if not a.startswith("127.")), None)
    return address


def interface_addresses() -> list[str]:
    """The IPv4 address of each network interface (Linux; [] elsewhere)."""
    import fcntl
    import socket
    import struct

    out = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:  # SIOCGIFADDR
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:  # no IPv4 address
                continue
            out.append(socket.inet_ntoa(packed[20:24]))
    return out


def address_facing(client: str | None) -> str | None:
    """This machine's address on the network that reaches ``client`` (the interface that
    serves that phone: 10.42.0.1 on its own hotspot); None for a local client."""
    import ipaddress
    import socket

    try:
        ip = ipaddress.ip_address(client or "")
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified:
        return None
    try:
        with socket.socket(socket.AF_INET6 if ip.version == 6 else socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((str(ip), 1))
            return s.getsockname()[0]
    except OSError:
        return None


def phone_root(url_root: str, bound_host: str, client: str | None = None) -> str:
    """The address phones should use for seat links. The page's own address when it is an
    IP address; a name (dicetable.local, raspberrypi) needs a router's DNS or mDNS, which
    phones on the Pi's own hotspot may not have, and localhost reaches no phone: then the
    Pi's IP on the interface that serves ``client`` (the browser asking), else its LAN
    address, when the server listens beyond this machine."""
    import ipaddress
    from urllib.parse import urlsplit

    parts = urlsplit(url_root)
    host = parts.hostname or ""
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    local = host == "localhost" or (literal is not None and literal.is_loopback)
    if literal is not None and not literal.is_loopback:
        return url_root.rstrip("/")
    if local and bound_host not in ("0.0.0.0", "::"):
        return url_root.rstrip("/")  # served on this machine only: no phone reaches it anyway
    try:
        bound = ipaddress.ip_address(bound_host)
    except ValueError:
        bound = None
    address = (bound_host if bound is not None and not bound.is_unspecified and not bound.is_loopback
               else address_facing(client) or lan_address())
    if address:
        port = f":{parts.port}" if parts.port else ""
        shown = f"[{address}]" if ":" in address else address
        return f"{parts.scheme}://{shown}{port}"
    return url_root.rstrip("/")


def _qr_svg(url: str) -> str:
    """The seat link as an inline SVG QR code (no Pillow needed)."""
    import qrcode
    import qrcode.image.svg

    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    # every code's path is id="qr-path": a page of several codes would name it several times
    return image.to_string(encoding="unicode").replace(' id="qr-path"', "")


@bp.post("/login")
def login():
    """The PIN check: per address, ``PIN_ATTEMPTS`` wrong PINs in ``PIN_WINDOW_S`` wait out
    the window (429), and ``PIN_LOCKOUT_AFTER`` wrong PINs within an hour lock the address
    out for ``PIN_LOCKOUT_S``; ``PIN_TABLE_LIMIT`` wrong PINs within an hour from all
    addresses together lock every address out until the hour has passed. Nothing of the PIN
    is logged."""
    address = request.remote_addr or "?"
    now = time.monotonic()
    config = current_app.config
    with _failures_lock:
        tries = _failures()[address]
        while tries and now - tries[0] > 3600.0:
            tries.popleft()
        if len(tries) >= int(config["PIN_LOCKOUT_AFTER"]) and now - tries[-1] < float(config["PIN_LOCKOUT_S"]):
            return error_response(429, i18n.both("locked_out"))
        # The whole table's wrong PINs: a phone that changes its address gets no more tries.
        if sum(1 for times in _failures().values() for t in times if now - t <= 3600.0) >= int(config["PIN_TABLE_LIMIT"]):
            return error_response(429, i18n.both("table_locked_out"))
        recent = sum(1 for t in tries if now - t <= float(config["PIN_WINDOW_S"]))
        if recent >= int(config["PIN_ATTEMPTS"]):
            return error_response(429, i18n.both("too_many_pins"))
    pin = json_object().get("pin") if request.is_json else request.form.get("pin")
    if isinstance(pin, str) and _config().check_pin(pin):
        csrf = session.get("csrf")
        session.clear()
        session["host"] = table_of().store.host_generation()
        if csrf:
            session["csrf"] = csrf
        with _failures_lock:
            _failures().pop(address, None)
        return jsonify({"ok": True}) if wants_json() else redirect(url_for("host.page"))
    with _failures_lock:
        _failures()[address].append(now)
    log.warning("wrong host PIN from %s", address)
    message = i18n.both("wrong_pin")
    if wants_json():
        return jsonify({"ok": False, "error": message}), 403
    return render_template("host_login.html", error=message), 403


@bp.post("/links")
@host_required
def reissue_links():
    return _done(table_of().reissue_links())


def _confirmed() -> bool:
    """The request says the host confirmed (``confirm=1``: the page's dialog)."""
    given = json_object().get("confirm") if request.is_json else request.form.get("confirm")
    return given in (True, 1, "1")


def _unconfirmed() -> dict[str, Any]:
    return {"ok": False, "error": i18n.both("not_confirmed")}


@bp.post("/logout")
def logout():
    """Log out: every host login made so far ends on the server too (a copy of the
    cookie is refused afterwards), this browser's and any other's."""
    if is_host():
        table_of().store.end_host_sessions()
    session.clear()
    return redirect(url_for("status.index"))


@bp.post("/start")
@host_required
def start():
    data = request.get_json(silent=True) if request.is_json else None
    if request.is_json:
        shape = {"en": 'Send {"game": NAME, "seats": [{"name": ..., "colour": ...}, ...], "options": {...}, '
                       '"seed": N}.',
                 "ja": '{"game": 名前, "seats": [{"name": ..., "colour": ...}, ...], "options": {...}, "seed": 数} の形で送ってください。'}
        if not isinstance(data, dict):
            return _done({"ok": False, "error": shape})
        seats, options = data.get("seats") or [], data.get("options") or {}
        game, seed = data.get("game") or _first_game(), data.get("seed")
        if (not isinstance(seats, list) or not isinstance(options, dict) or not isinstance(game, str)
                or not all(isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("colour"), str)
                           and isinstance(s.get("button", ""), str) for s in seats)):
            return _done({"ok": False, "error": shape})
    else:
        form = request.form
        seats = []
        for i, _ in enumerate(_config().seats):
            if form.get(f"seat_{i}"):
                seats.append({"name": form.get(f"name_{i}", "").strip(), "colour": form.get(f"colour_{i}", "").strip(),
                              "button": _config().seats[i].name})
        game = form.get("game") or _first_game()
        try:
            options = _settings(game, form)
        except inputs.InputError as exc:
            return _done({"ok": False, "error": getattr(exc, "message", i18n.both("error_400"))})
        seed = form.get("seed", "").strip() or None
    if not seats:
        return _done({"ok": False, "error": i18n.both("no_seat_selected")})
    if table_of().running() and not _confirmed():
        return _done(_unconfirmed())
    if seed is not None:
        seed = inputs.whole(seed, (1 << 63) - 1)
        if seed is None:
            return _done({"ok": False, "error": i18n.both("bad_seed")})
    return _done(table_of().start_game(game, seats, options, seed))


def _seat_colours(table: Any) -> list[str]:
    """The colours the start form offers a seat: those the camera can name (the table's
    calibrated colours, else the default palette), so that a seat's dice can be told by
    their colour."""
    from vision.colours import DEFAULT_PALETTE

    colours = getattr(table.calibration.detector, "colours", None)
    return colours.names() if colours is not None else list(DEFAULT_PALETTE)


def _game_settings(game: str) -> list[dict[str, Any]]:
    """The options the host may tap for ``game`` (its engine's SETTINGS)."""
    import engines

    return list(getattr(engines.load(game), "SETTINGS", ()))


def _settings(game: str, form: Any) -> dict[str, Any]:
    """The options the host tapped for ``game`` (its engine's SETTINGS; form fields
    ``<game>.<name>``); a choice left at None keeps the rules' own default."""
    import engines

    engine = engines.load(game) if game in engines.GAMES else None
    fields = list(getattr(engine, "SETTINGS", ()))
    values = MultiDict({f["name"]: form[f"{game}.{f['name']}"] for f in fields if f"{game}.{f['name']}" in form})
    event = inputs.event_from_values({"type": "start", "seats": [], "fields": fields}, None, values)
    return {k: v for k, v in event.items() if k != "type" and v is not None}


def _first_game() -> str:
    import engines

    return engines.GAMES[0]


@bp.post("/act")
@host_required
def act():
    values = request.get_json(silent=True) if request.is_json else request.form
    if not isinstance(values, dict) and not hasattr(values, "getlist"):
        return _done({"ok": False, "error": i18n.both("error_400")})
    return _done(table_of().act(None, values.get("type"), values, source="host"))


def _dice_from_request() -> list[dict[str, Any]] | None:
    if request.is_json:
        return inputs.checked_dice(json_object().get("dice"))
    return inputs.parse_dice(request.form.get("dice", ""))


def _bad_dice():
    return _done({"ok": False, "error": i18n.both("bad_dice")})


@bp.post("/throw")
@host_required
def typed_throw():
    dice = _dice_from_request()
    return _bad_dice() if dice is None else _done(table_of().typed_throw(dice))


@bp.post("/correct")
@host_required
def correct():
    dice = _dice_from_request()
    return _bad_dice() if dice is None else _done(table_of().correct_throw(dice))


@bp.post("/undo")
@host_required
def undo():
    table = table_of()
    if table.undo_words() is not None and not _confirmed():
        return _done(_unconfirmed())
    shown = json_object().get("undo") if request.is_json else request.form.get("undo")
    if shown is not None and shown != undo_key(table):
        return _done({"ok": False, "error": i18n.both("undo_changed")})
    done = table.undo()
    done.pop("undone", None)  # how many events: during a secret choice, how many seats have locked
    return _done(done)


@bp.post("/end")
@host_required
def end():
    table = table_of()
    if table.running() and not _confirmed():
        return _done(_unconfirmed())
    return _done(table.end_game())


@bp.post("/calibrate/capture/<colour>")
@host_required
def calibrate_capture(colour: str):
    return _done(table_of().calibration.capture(colour))


@bp.post("/calibrate/save")
@host_required
def calibrate_save():
    return _done(table_of().calibration.save())


@bp.get("/teach")
@host_required
def teach_page():
    """The teaching session, for a phone in one hand: choose the die, then one face at a time."""
    table = table_of()
    return render_template("host_teach.html", teaching=table.calibration.teaching(),
                           taught=table.calibration.last_teaching(),
                           calibration=table.calibration.status(table.camera.camera is not None),
                           demo=getattr(table.demo, "synthetic", None) is not None)


@bp.post("/teach/start")
@host_required
def teach_start():
    return _taught(table_of().calibration.start_teaching(_teach_number("sides")))


@bp.post("/teach")
@host_required
def teach():
    """One photo of the dice under the camera, all showing ``face`` of a d``sides`` (6 when
    left out, or the teaching session's die). At the demo table the synthetic table lays
    the die down first (not while a game is on: it would read as a throw)."""
    table = table_of()
    session = table.calibration.teaching()
    face = _teach_number("face")
    sides = _teach_number("sides", session["sides"] if session else 6)
    frame = None
    synthetic = getattr(table.demo, "synthetic", None)
    if synthetic is not None and teachable(face, sides):
        if table.running():
            return _taught({"ok": False, "error": i18n.both("teach_game_on")})

        def frame():  # once the request is found good: the die laid down, photographed
            synthetic.lay_out([[(DEMO_TEACH_COLOUR, face, sides)]])
            return synthetic.read()
    return _taught(table.calibration.teach_face(face, sides, frame))


@bp.post("/teach/finish")
@host_required
def teach_finish():
    return _taught(table_of().calibration.finish_teaching())


def _teach_number(name: str, default: int | None = None) -> int | None:
    """A teaching field (form or JSON) as a whole number: ``default`` when it is left out,
    None when it is no small whole number (other scripts' digits, "1e3", 10**100: the
    calibration then refuses it, saying what it takes)."""
    raw = json_object().get(name) if request.is_json else request.form.get(name)
    if raw is None or raw == "":
        return default
    return inputs.whole(raw, limit=100)


def _taught(result: dict[str, Any]):
    """Answer a teaching action: JSON for API callers, else back to the teaching page."""
    if wants_json():
        return _done(result)
    if not result.get("ok"):
        flash(result["error"])
    return redirect(url_for("host.teach_page"))
