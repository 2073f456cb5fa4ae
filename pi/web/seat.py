"""A seat's private page: send the inputs the game waits for from this seat (its secret
choices included), see one's own secrets.

GET  /seat/<token>          the page (a wrong or old token is a 404 that says to ask the
                            host for the seat's QR code, and tells nothing else)
GET  /seat/<token>/events   the seat's live stream (its own view, never anyone else's)
GET  /seat/<token>/live     the same once, for a page that polls
POST /seat/<token>/act      one input of this seat: ``type`` and its fields (form or JSON)
POST /seat/<token>/claim    "this was my throw": several seats may throw at once with dice alike
POST /seat/<token>/layout   "read my layout": the dice laid flat under the camera fill a layout field
POST /seat/<token>/faces    the faces of this seat's dice the camera cannot read (d10, d20),
                            ``face`` once per die (form) or ``{"faces": [...]}``
"""
from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, abort, flash, jsonify, make_response, redirect, render_template, request, url_for

from pi import inputs
from pi.links import seat_token, table_seat
from pi.web import error_response, i18n, json_object, result_response, table_of, wants_json
from pi.web.status import sse_response

bp = Blueprint("seat", __name__, url_prefix="/seat")


def _seat(token: str) -> str:
    seat = table_of().seat_for_token(token)
    if seat is None:
        message = i18n.both("bad_seat_link")
        abort(make_response(error_response(404, message)))
    return seat


def idle_seat(token: str) -> str | None:
    """The table's seat whose link this is while no game is on the table (links last the
    whole evening): its page waits for the next game."""
    table = table_of()
    if table.record is not None or not token:
        return None
    generation = table.store.link_generation()
    for s in table.config_seats:
        if secrets.compare_digest(seat_token(table.secret, table_seat(s), generation).encode(), token.encode()):
            return s["name"]
    return None


def render_seat_live(snap: dict[str, Any], seat: str, token: str) -> str:
    return render_template("_seat_live.html", snap=snap, seat=seat, token=token)


@bp.get("/<token>")
def page(token: str):
    waiting = idle_seat(token)
    if waiting is not None:
        return render_template("seat_waiting.html", seat=waiting)
    seat = _seat(token)
    snap = table_of().snapshot(seat)
    return render_template(
        "seat.html", snap=snap, seat=seat, token=token, live_html=render_seat_live(snap, seat, token)
    )


@bp.get("/<token>/events")
def events(token: str):
    seat = _seat(token)
    table = table_of()

    def snapshot() -> dict[str, Any] | None:
        # A new game makes new links: the old link's stream ends (the page then shows why).
        if table.seat_for_token(token) != seat:
            return None
        return table.snapshot(seat)

    return sse_response(snapshot, lambda snap: render_seat_live(snap, seat, token), pool="seat")


@bp.get("/<token>/live")
def live(token: str):
    seat = _seat(token)
    snap = table_of().snapshot(seat)
    return jsonify({"version": snap["version"], "state": snap, "html": render_seat_live(snap, seat, token)})


@bp.get("/<token>/state")
def state(token: str):
    seat = _seat(token)
    return jsonify(table_of().snapshot(seat))


def _answer(result: dict[str, Any], token: str):
    """A seat action's answer: JSON for scripts, else a flash message and back to the page."""
    if wants_json():
        return result_response(result)
    if not result["ok"]:
        flash(result["error"])
    return redirect(url_for("seat.page", token=token))


@bp.post("/<token>/act")
def act(token: str):
    seat = _seat(token)
    values = request.get_json(silent=True) if request.is_json else request.form
    if not isinstance(values, dict) and not hasattr(values, "getlist"):
        return _answer({"ok": False, "error": i18n.both("error_400")}, token)
    return _answer(table_of().act(seat, values.get("type"), values, source="phone"), token)


@bp.post("/<token>/faces")
def faces(token: str):
    seat = _seat(token)
    if request.is_json:
        typed = json_object().get("faces")
        typed = typed if isinstance(typed, list) else []
    else:  # one tapped face per die, "face.0", "face.1", ... in the order asked
        typed = [request.form.get(f"face.{k}", "") for k in range(len(table_of().snapshot(seat)["to_type"]))]
    faces = [inputs.whole(face, 999) for face in typed[:inputs.MAX_DICE + 1]]
    if None in faces:  # not a face of any die: refused before the table reads it
        return _answer({"ok": False, "error": i18n.both("bad_face")}, token)
    return _answer(table_of().type_faces(seat, faces), token)


@bp.post("/<token>/claim")
def claim(token: str):
    return _answer(table_of().claim_throw(_seat(token)), token)


@bp.post("/<token>/layout")
def layout(token: str):
    return _answer(table_of().read_layout(_seat(token)), token)
