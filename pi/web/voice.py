"""The table's voice on the host page: its state (on, or silent and why), mute and volume.

POST /host/voice   ``muted`` ("1" or "0") and/or ``volume`` (0-100, a whole number); host only.
                   Answers JSON to JSON callers, else goes back to the host page. A bad
                   value changes nothing and says what is allowed.

The values hold until the service restarts; the config's ``[voice]`` gives them at start.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from pi.web import i18n, json_object, table_of, wants_json
from pi.web.host import host_required

bp = Blueprint("voice", __name__, url_prefix="/host")

#: What the volume buttons step by.
VOLUME_STEP = 10


def voice_status(table: Any) -> dict[str, Any]:
    """What the host page shows: ``on``, ``reason`` ({"en", "ja"} when silent), ``volume``, ``muted``."""
    voice = getattr(table, "voice", None)
    if voice is None:
        return {"on": False, "reason": i18n.both("voice_not_started"), "volume": 0, "muted": False}
    return voice.status()


@bp.app_context_processor
def _voice_context() -> dict[str, Any]:
    return {"voice_status": lambda: voice_status(table_of()), "voice_step": VOLUME_STEP}


def _answer(status: int = 200, error: dict[str, str] | None = None):
    if wants_json():
        if error is not None:
            return jsonify({"ok": False, "error": error}), status
        return jsonify({"ok": True, "voice": voice_status(table_of())})
    if error is not None:
        flash(error)
    return redirect(url_for("host.page") + "#voice")


@bp.post("/voice")
@host_required
def settings():
    voice = getattr(table_of(), "voice", None)
    values = json_object() if request.is_json else request.form
    if voice is None or not voice.on:
        return _answer(409, voice_status(table_of())["reason"])
    muted, volume = values.get("muted"), values.get("volume")
    if muted is None and volume is None:
        return _answer(400, i18n.both("voice_bad_request"))
    if muted is not None and str(muted).lower() not in ("0", "1", "true", "false"):
        return _answer(400, i18n.both("voice_bad_muted"))
    if volume is not None:
        text = str(volume)
        if isinstance(volume, bool) or not (text.isascii() and text.isdigit() and int(text) <= 100):
            return _answer(400, i18n.both("voice_bad_volume"))
        voice.set_volume(int(text))
    if muted is not None:
        voice.set_muted(str(muted).lower() in ("1", "true"))
    return _answer()
