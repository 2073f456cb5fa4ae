"""Demo controls (registered only by ``dicetable demo``): virtual seat buttons and the demo's
hands at the synthetic tray (``pi.demo``).

POST /demo/press/<seat>       drives the seat's mock button pin low (pressed)
POST /demo/release/<seat>     drives it high again (released); holding locks, as on the table
POST /demo/throw              throws the dice that are due (the status page): for the seat
                              that tapped "This was my throw", else the first one due
POST /demo/throw/<token>      throws that seat's dice (its seat page)
POST /demo/rethrow/<token>    the seat picks up the dice its rethrow form chose (none chosen:
                              some of its own at random) and throws them again
POST /demo/lay-out/<token>    lays the dice placed in the seat's layout form flat on the tray
POST /demo/apply-thrown       applies the last demo throw as typed dice (when the camera misread it)
"""
from __future__ import annotations

from flask import Blueprint, request

from pi.web import json_object, result_response, table_of
from pi.web.seat import _seat

bp = Blueprint("demo", __name__, url_prefix="/demo")

#: Words of the demo's own buttons on the seat page, which exist only in ``dicetable demo``.
WORDS = {
    "rethrow": {"en": "Demo: pick up the dice chosen above (none chosen: some of your six-sided dice) and throw "
                      "them again",
                "ja": "デモ: 上で選んだダイス（未選択なら自分の6面体をいくつか）を拾って振り直す"},
    "lay_out": {"en": "Demo: lay out the dice as placed above, alone on the tray",
                "ja": "デモ: 上の配置どおりにダイスをトレイに並べる"},
}


@bp.app_context_processor
def _words() -> dict[str, object]:
    return {"demo_words": WORDS}


def _values():
    """The form, or a JSON body, a demo hand was sent with."""
    return json_object() if request.is_json else request.form


@bp.post("/press/<seat>")
def press(seat: str):
    return result_response(table_of().buttons.press(seat))


@bp.post("/release/<seat>")
def release(seat: str):
    return result_response(table_of().buttons.release(seat))


@bp.post("/throw")
def throw():
    return result_response(table_of().demo.throw())


@bp.post("/throw/<token>")
def throw_for(token: str):
    return result_response(table_of().demo.throw(_seat(token)))


@bp.post("/rethrow/<token>")
def rethrow(token: str):
    return result_response(table_of().demo.rethrow(_seat(token), _values()))


@bp.post("/lay-out/<token>")
def lay_out(token: str):
    return result_response(table_of().demo.lay_out(_seat(token), _values()))


@bp.post("/apply-thrown")
def apply_thrown():
    return result_response(table_of().demo.apply_thrown())
