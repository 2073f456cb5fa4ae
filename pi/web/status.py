"""The status page anyone on the table's network can open, its live stream and pictures.

GET /            the status page (game, round, scores, whose throw is due, last throw, log)
GET /events      server-sent events: one ``data:`` line of JSON per change of the table
                 (503 when every live slot is taken: the page then polls /api/live; a HEAD
                 gets the headers only and takes no slot)
GET /api/state   the public snapshot as JSON
GET /api/live    the public snapshot and its rendered live region, for pages that poll
GET /camera.jpg  the latest camera frame
GET /roll.jpg    the last settled frame with every die's box and reading drawn
POST /lang/<l>   the language switch (sets a cookie, back to the page it came from: a path
                 of this site only, ``local_path``)
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

from flask import (Blueprint, Response, abort, current_app, g, jsonify, redirect, render_template,
                   request, stream_with_context)

from pi.web import i18n, table_of

bp = Blueprint("status", __name__)


@bp.get("/")
def index():
    snap = table_of().snapshot()
    return render_template("status.html", snap=snap, live_html=render_live(snap))


def render_live(snap: dict[str, Any]) -> str:
    """The part of the status page that the live stream replaces."""
    return render_template("_live.html", snap=snap)


@bp.get("/api/state")
def api_state():
    return jsonify(table_of().snapshot())


@bp.get("/events")
def events():
    return sse_response(lambda: table_of().snapshot(), render_live, pool="public")


@bp.get("/api/live")
def api_live():
    snap = table_of().snapshot()
    return jsonify({"version": snap["version"], "state": snap, "html": render_live(snap)})


class StreamSlots:
    """How many live streams may be open at once, per pool. Each open stream holds one of
    waitress's threads while it waits, so the streams get fewer slots than there are
    threads: pages, pictures and seat actions are always served. The seats' own streams
    have a pool of their own, so spectators opening tabs never lock the players out."""

    def __init__(self, limits: dict[str, int]) -> None:
        self.limits = dict(limits)
        self.open = {pool: 0 for pool in limits}
        self._lock = threading.Lock()

    def take(self, pool: str) -> bool:
        with self._lock:
            if self.open[pool] >= self.limits[pool]:
                return False
            self.open[pool] += 1
            return True

    def give_back(self, pool: str) -> None:
        with self._lock:
            self.open[pool] = max(0, self.open[pool] - 1)


def stream_slots() -> StreamSlots:
    app = current_app
    slots = app.extensions.get("stream_slots")
    if slots is None:
        slots = app.extensions.setdefault("stream_slots", StreamSlots(
            {"public": int(app.config["SSE_PUBLIC_MAX"]), "seat": int(app.config["SSE_SEAT_MAX"])}))
    return slots


def sse_response(snapshot: Callable[[], dict[str, Any] | None],
                 render: Callable[[dict[str, Any]], str], pool: str) -> Response:
    """A server-sent event stream: the snapshot (and its rendered HTML) at once and after
    every change of the table; a keepalive comment when nothing happens for a while. The
    stream ends when ``snapshot`` returns None (the page has lost its right to it).

    Each open stream holds one of waitress's threads (see pi/README.md for the limit). A
    page that is closed or reloaded gives its thread back within ``SSE_CHECK_S``: waitress
    (with request lookahead) tells when the client has gone.
    """
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":  # the headers only: no stream, so no slot
        return Response(mimetype="text/event-stream", headers=headers)
    table = table_of()
    slots = stream_slots()
    if not slots.take(pool):
        response = jsonify({"error": i18n.both("streams_full")})
        response.status_code = 503
        response.headers["Retry-After"] = "30"
        return response
    taken = [True]

    def give_back() -> None:
        """Once, whichever comes first: the stream ends, or the server closes the answer
        (a client gone before the stream started: its generator never runs)."""
        try:
            taken.pop()  # atomic: only one caller gets the slot's token
        except IndexError:
            return
        slots.give_back(pool)
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    check = min(keepalive, float(current_app.config["SSE_CHECK_S"]))
    max_s = current_app.config["SSE_MAX_S"]
    gone = request.environ.get("waitress.client_disconnected", lambda: False)

    def stream():
        try:
            yield from updates()
        finally:
            give_back()

    def updates():
        started = last_write = time.monotonic()
        version = None
        last_sent = None
        yield "retry: 2000\n\n"
        while not table.stopping and not gone():
            now = time.monotonic()
            if max_s is not None and now - started > max_s:
                return
            current = table.version
            if current == version:
                current = table.wait_for_change(version, timeout=check)
                if current == version:
                    if time.monotonic() - last_write >= keepalive:
                        last_write = time.monotonic()
                        yield ": keepalive\n\n"
                    continue
            version = current
            snap = snapshot()
            if snap is None:
                return
            # Only what this page can see: a change it cannot see (another seat locking
            # its declaration) sends nothing, so not even the timing of events tells who
            # has declared.
            seen = json.dumps({k: v for k, v in snap.items() if k != "version"}, sort_keys=True)
            if seen == last_sent:
                continue
            last_sent = seen
            payload = {"version": snap["version"], "state": snap, "html": render(snap)}
            last_write = time.monotonic()
            yield f"id: {snap['version']}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"

    response = Response(stream_with_context(stream()), mimetype="text/event-stream", headers=headers)
    response.call_on_close(give_back)
    return response


@bp.get("/camera.jpg")
def camera_jpg():
    data = table_of().frame_jpeg()
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/roll.jpg")
def roll_jpg():
    data = table_of().roll_jpeg()
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/lang/<code>")
def switch_language(code: str):
    if code not in i18n.LANGUAGES:
        abort(404)
    response = redirect(local_path(request.form.get("next") or request.referrer))
    response.set_cookie("lang", code, max_age=365 * 24 * 3600, samesite="Lax")
    g.lang = code
    return response


def local_path(target: str | None) -> str:
    """Where a redirect may go: a path of this site ("/" for anything else). A full URL (a
    referrer) keeps its path and query; no other site ("//evil", "https://x", "/\\evil"),
    no control characters (a CRLF would split the answer's headers), nothing but ASCII."""
    from urllib.parse import urlsplit

    target = target or "/"
    if not target.isascii() or any(ord(c) < 0x20 or c == "\x7f" for c in target):
        return "/"
    parts = urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if "\\" in path or not path.startswith("/") or path.startswith("//"):
        return "/"
    return path
