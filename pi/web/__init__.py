"""Phone pages (Flask app factory): the status page, seat pages, the host page, the demo.

``create_app(table, config, test_config=None)`` builds the app around a running
``pi.table.Table``. Each concern is a blueprint (``status``, ``seat``, ``host``,
``history`` (finished games, dice statistics), and ``demo`` only in demo mode). Pages are rendered with Jinja, updated live with server-sent
events and plain JavaScript (no build step).
"""
from __future__ import annotations

import logging
import secrets
from typing import Any

from flask import Flask, g, jsonify, render_template, request, session
from flask.json.provider import DefaultJSONProvider
from jinja2 import pass_context
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from pi import inputs
from pi.words import colour_ja
from pi.web import i18n

log = logging.getLogger(__name__)


def engine_of(game: str) -> Any:
    """A game's engine module, loaded as the table loads it."""
    from flask import current_app

    table = current_app.extensions.get("table")
    if table is not None:
        return table.engine_loader(game)
    import engines

    return engines.load(game)


def glossary(game: str) -> dict[str, dict[str, str]]:
    """A game's glossary (``engine.GLOSSARY``), term -> ``{"en", "ja"}``."""
    return engine_of(game).GLOSSARY


#: Scripts and everything else only from the Pi itself; inline style attributes are allowed
#: (the board drawings colour routes with them), inline script is not.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

#: What a game uses at the table, when its engine does not say (``engine.USES``): dice under
#: the camera, the seat buttons (secret numbers), and seat colours that mean whose dice.
USES_ALL = frozenset({"dice", "buttons", "seat_colours"})


def game_uses(game: str | None) -> frozenset[str]:
    """What the pages show for ``game``: only the parts it uses (``engine.USES``)."""
    if not game:
        return frozenset()
    return frozenset(getattr(engine_of(game), "USES", USES_ALL))


class BoundedJSON(DefaultJSONProvider):
    """Flask's JSON, reading request bodies with ``pi.inputs.loads_bounded``."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return inputs.loads_bounded(s)


class WholeNumber(IntegerConverter):
    """``<int:...>`` in a route: ASCII digits only (not another script's), within SQLite's
    integers; anything else matches no route (404)."""

    regex = r"[0-9]{1,19}"

    def __init__(self, map: Any, fixed_digits: int = 0, min: int | None = None, max: int | None = (1 << 63) - 1,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


def is_host() -> bool:
    """This browser is logged in as the host: its session carries the store's current host
    generation (a logout moves it on, so a cookie saved before a logout is refused)."""
    given = session.get("host")
    if isinstance(given, bool) or not isinstance(given, int):
        return False
    return given == table_of().store.host_generation()


def _secret_key(table: Any) -> str:
    """The session key, derived from the table's secret (kept in the data directory), so
    host logins survive a restart."""
    import hashlib
    import hmac

    secret = getattr(table, "secret", None) or secrets.token_bytes(32)
    return hmac.new(secret, b"flask-session", hashlib.sha256).hexdigest()


def create_app(table: Any, config: Any, test_config: dict[str, Any] | None = None) -> Flask:
    """The Flask app of the table's pages."""
    app = Flask(__name__)
    app.json = BoundedJSON(app)
    app.url_map.converters["int"] = WholeNumber
    app.config.update(
        SECRET_KEY=_secret_key(table),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        DEMO=False,
        SSE_KEEPALIVE_S=15.0,
        # How often a waiting stream checks that its page is still there.
        SSE_CHECK_S=1.0,
        # A live stream ends after this many seconds and the browser reconnects at once, so a
        # phone that vanished without closing its connection frees its thread. None = never.
        SSE_MAX_S=300.0,
        # Live streams open at once (each holds a server thread): the status and host pages
        # share one pool, the seats' own pages another; beyond them pages poll instead.
        SSE_PUBLIC_MAX=8,
        SSE_SEAT_MAX=8,
        PIN_ATTEMPTS=5,
        PIN_WINDOW_S=60.0,
        # Wrong PINs from one address within an hour that lock it out for PIN_LOCKOUT_S.
        PIN_LOCKOUT_AFTER=10,
        PIN_LOCKOUT_S=900.0,
        # Wrong PINs within an hour from every address together (a phone may change its
        # address): beyond them nobody logs in until the hour has passed, or dicetable restarts.
        # 30 an hour: a 4-digit PIN takes about a week to guess.
        PIN_TABLE_LIMIT=30,
        CSRF=True,
        # No request of the pages is bigger (a typed throw, a form); larger ones get a 413.
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    if test_config:
        app.config.update(test_config)
    app.extensions["table"] = table
    app.extensions["dicetable_config"] = config

    from pi.web import health, history, host, rules, seat, status, voice

    app.register_blueprint(status.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(seat.bp)
    app.register_blueprint(host.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(voice.bp)  # the table's voice on the host page
    app.register_blueprint(health.bp)  # /healthz
    if app.config["DEMO"]:
        from pi.web import demo

        app.register_blueprint(demo.bp)

    @app.before_request
    def _language() -> None:
        """First of the hooks: the pages the others answer with speak the reader's language too."""
        g.lang = i18n.choose_language(
            request.cookies.get("lang"), request.accept_languages, getattr(config, "language", "en")
        )

    @app.before_request
    def _json_body():
        """Every JSON body is read here, once, before any route: one that is malformed, not
        UTF-8, nested deeper than MAX_JSON_DEPTH or holding a number out of bounds is a 400
        that says so (routes then read ``request.get_json()``'s cached value)."""
        if not request.is_json or not request.get_data(cache=True):
            return None
        try:
            request.get_json()
        except Exception:  # werkzeug's BadRequest, from BadJSON or bad UTF-8
            return error_response(400, i18n.both("bad_json"))
        return None

    @app.before_request
    def _csrf():
        """State-changing requests carry the session's token (a form field or the
        X-CSRF-Token header); seat pages are reached through their secret link instead."""
        if request.method != "POST" or not app.config["CSRF"]:
            return None
        endpoint = request.endpoint or ""
        if endpoint.startswith("seat.") or endpoint in ("status.switch_language", "static"):
            return None
        if endpoint.startswith("host.") and endpoint != "host.login" and not is_host():
            return None  # refused anyway: the page says to log in first
        expected = session.get("csrf")
        given = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
        if not expected or not secrets.compare_digest(str(given).encode(), str(expected).encode()):
            return error_response(403, i18n.both("csrf_failed"))
        return None

    @app.template_global()
    @pass_context
    def term(context: Any, key: str) -> str:
        """A term of the game's glossary (its data file) in the page's language: every word
        a game partial shows comes from there, so the engine and the page say the same."""
        return glossary(context["view"]["game"])[key][context.get("lang", "en")]

    @app.template_global()
    @pass_context
    def score_heading(context: Any, game: str) -> str:
        """The scores table's heading: the game's own word for what its scores count."""
        key = getattr(engine_of(game), "SCORE_TERM", None)
        lang = context.get("lang", "en")
        return glossary(game)[key][lang].capitalize() if key else i18n.t("points", lang)

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        lang = getattr(g, "lang", "en")
        return {
            "lang": lang,
            "t": lambda key, **kw: i18n.t(key, lang, **kw),
            "pick": lambda text: i18n.pick(text, lang),
            "demo": app.config["DEMO"],
            "grammar": _grammar(lang),
            "colour_name": lambda colour: colour_ja(colour) if lang == "ja" else colour,
            "pad_colours": _pad_colours(app),
            "game_uses": game_uses,
            "csrf_token": csrf_token,
        }

    @app.after_request
    def _security_headers(response):
        """No page may be framed, sniffed into another type, or load code from elsewhere;
        links to other sites carry no address of the table."""
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return error_response(exc.code or 500)

    @app.errorhandler(Exception)
    def _internal_error(exc: Exception):
        log.exception("error on %s %s", request.method, request.path)
        return error_response(500)

    return app


def _pad_colours(app: Flask) -> list[str]:
    """The colours a dice pad offers for a die of any colour: the game's own dice colours
    (its engine's ``COLOURS``) where its seats' colours say nothing of whose dice (the
    engine's ``USES`` has no "seat_colours"), else the seats' own."""
    table = app.extensions.get("table")
    if table is None or not table.record:
        return ["white"]
    game = table.record.game
    own = getattr(engine_of(game), "COLOURS", None)
    if own and "seat_colours" not in game_uses(game):
        return list(own)
    return list(dict.fromkeys(table.seat_colours().values())) or ["white"]


def csrf_token() -> str:
    """This browser's token for state-changing requests (kept in its signed session)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def _grammar(lang: str) -> list[str]:
    """The seat button's press grammar (hardware.panel.GRAMMAR), as lines."""
    try:
        from hardware.panel import GRAMMAR
    except ImportError:
        return []
    text = GRAMMAR.get(lang) or GRAMMAR.get("en") or ""
    if isinstance(text, (list, tuple)):
        return [str(line) for line in text]
    return [line.strip() for line in str(text).splitlines() if line.strip()]


def wants_json() -> bool:
    """API callers (fetch, JSON bodies, /api/ paths) get JSON errors, browsers get pages."""
    if request.path.startswith("/api/") or request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def error_response(code: int, message: dict[str, str] | None = None):
    """A JSON error ``{"error": {"en", "ja"}}`` or an HTML page without any stack trace."""
    key = f"error_{code}" if f"error_{code}" in i18n.STRINGS else "error_500"
    message = message or i18n.both(key)
    if wants_json():
        return jsonify({"error": message}), code
    return render_template("error.html", code=code, message=message), code


def json_object() -> dict[str, Any]:
    """The request's JSON body when it is an object, else {} (a list, a number, bad JSON)."""
    data = request.get_json(silent=True) if request.is_json else None
    return data if isinstance(data, dict) else {}


def table_of(app_or_none: Any = None) -> Any:
    from flask import current_app

    return (app_or_none or current_app).extensions["table"]


def result_response(result: dict[str, Any], ok_status: int = 200):
    """A table result as JSON: 200 with ``{"ok": true}``, or 409 with the error."""
    if result.get("ok"):
        return jsonify(result), ok_status
    return jsonify({"ok": False, "error": result["error"]}), 409
