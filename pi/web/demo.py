"""Demo controls (registered only by ``dicetable demo``): virtual seat buttons and the throw.

POST /demo/press/<seat>    drives the seat's mock button pin low (pressed)
POST /demo/release/<seat>  drives it high again (released); holding locks, as on the table
POST /demo/throw           rolls the dice that are due onto the synthetic table
POST /demo/apply-thrown    applies that throw as typed dice (when the camera misread it)
"""
from __future__ import annotations

from flask import Blueprint

from pi.web import result_response, table_of

bp = Blueprint("demo", __name__, url_prefix="/demo")


@bp.post("/press/<seat>")
def press(seat: str):
    return result_response(table_of().buttons.press(seat))


@bp.post("/release/<seat>")
def release(seat: str):
    return result_response(table_of().buttons.release(seat))


@bp.post("/throw")
def throw():
    return result_response(table_of().demo.throw())


@bp.post("/apply-thrown")
def apply_thrown():
    return result_response(table_of().demo.apply_thrown())
