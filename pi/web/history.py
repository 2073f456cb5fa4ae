"""Finished games and the dice's fairness, for anyone at the table.

GET /history               the game being played and the finished games, newest first: date,
                           game, seats, scores, winners (or "ended by the host")
GET /history/<id>          one game round by round: its log, each line in the round it
                           happened in, newest round first; the game being played shows only
                           its public log (what the status page shows), any other game only
                           once it has ended
GET /history/<id>.jsonl    a finished game's script (docs/replay.md), which `dicetable
                           replay` plays back; each event's "comment" says how it came in
                           (the camera, a phone, typed, corrected, forced by the table); a
                           game still running has none (its events may hold secret choices
                           not yet revealed)
GET /stats                 faces seen per dice colour, with a chi-square test of fairness
GET /api/history, /api/history/<id>, /api/stats   the same as JSON
"""
from __future__ import annotations

import json
import time
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template

from pi import dicestats
from pi.ledger import rebuild, source_words
from pi.lifecycle import replay
from pi.snapshots import title
from pi.web import table_of

bp = Blueprint("history", __name__)


def finished_games() -> list[dict[str, Any]]:
    """Every ended game with its final scores and, for one that ended by its rules, its
    winners (one the host ended before its end says so: ``over`` False). Replayed once,
    then cached."""
    import engines

    table = table_of()
    cache: dict[tuple[int, float], dict[str, Any]] = current_app.extensions.setdefault("finished_games", {})
    out = []
    playing = table.record.id if table.running() else None
    for record in reversed(table.store.games()):
        if record.ended is None or record.id == playing:  # still being played: not history yet
            continue
        key = (record.id, record.ended)  # an undo may reopen a game, and it ends again
        if key not in cache:
            entry = {"id": record.id, "game": record.game, "title": {"en": record.game, "ja": record.game},
                     "started": record.started, "ended": record.ended,
                     "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(record.started)),
                     "seats": [{"name": s["name"], "colour": s["colour"]} for s in record.seats],
                     "scores": {}, "winners": [], "over": False, "phase": None, "events": 0}
            try:
                engine = table.engine_loader(record.game)
                events = table.store.events(record.id)
                state, _ = engines.replay(engine, entry["seats"], record.options, record.seed, events)
                view = engine.view(state)
                entry.update(title=title(engine, record.game), scores=view.get("scores", {}),
                             winners=view.get("winners", []), over=not engine.expects(state).get("inputs"),
                             phase=view.get("phase"), events=len(events))
            except ValueError as exc:  # an engine gone, or one that refuses its old events
                entry["problem"] = str(exc)
            cache[key] = entry
        out.append(cache[key])
    return out


@bp.get("/history")
def page():
    table = table_of()
    playing = table.record.public() if table.running() else None  # one over by its rules is below
    return render_template("history.html", games=finished_games(), playing=playing,
                           playing_title=table.snapshot()["title"] if playing else None)


@bp.get("/api/history")
def api():
    return jsonify(finished_games())


@bp.get("/history/<int:game_id>")
def game(game_id: int):
    return render_template("history.html", game=game_rounds(game_id))


@bp.get("/api/history/<int:game_id>")
def api_game(game_id: int):
    return jsonify(game_rounds(game_id))


def game_rounds(game_id: int) -> dict[str, Any]:
    """A game round by round (``pi.ledger.Ledger.rounds``) with its seats, scores and how
    it ended; the public view only (never a secret choice). The game on the table is read
    as it is now; any other is replayed once per end (then cached). 404 for no such game."""
    table = table_of()
    with table._lock:
        if table.record is not None and table.record.id == game_id:
            snap = table.snapshot()
            return _rounds_page(table.store.game(game_id), snap["title"], snap["view"], table.ledger.rounds(snap["log"]),
                                table.record.over)
    record = public_record(game_id)
    cache: dict[tuple[int, float | None], dict[str, Any]] = current_app.extensions.setdefault("game_rounds", {})
    key = (game_id, record.ended)
    if key not in cache:
        try:
            engine = table.engine_loader(record.game)
            ledger, state = rebuild(engine, replay(engine, record, []), table.store.records(game_id))
        except ValueError as exc:  # an engine gone, or one that refuses its old events
            return {**_rounds_page(record, {"en": record.game, "ja": record.game}, None, [], False),
                    "problem": str(exc)}
        view = engine.view(state)
        log = ledger.marked(view.get("log") or [])
        cache[key] = _rounds_page(record, title(engine, record.game), view, ledger.rounds(log),
                                  not engine.expects(state).get("inputs"))
    return cache[key]


def public_record(game_id: int) -> Any:
    """The stored game ``game_id`` when its history is public: it has ended (by its rules,
    or the host ended it) and is not still being played on the table (whatever the store
    says). 404 otherwise: a game being played may hold secret choices not yet revealed."""
    table = table_of()
    try:
        record = table.store.game(game_id)
    except KeyError:
        abort(404)
    with table._lock:
        on_table = table.record is not None and table.record.id == game_id and not table.record.over
    if record.ended is None or on_table:
        abort(404)
    return record


def _rounds_page(record: Any, name: dict[str, str], view: dict[str, Any] | None, rounds: list[dict[str, Any]],
                 over: bool) -> dict[str, Any]:
    return {"id": record.id, "game": record.game, "title": name, "ended": record.ended,
            "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(record.started)),
            "seats": [{"name": s["name"], "colour": s["colour"]} for s in record.seats],
            "scores": (view or {}).get("scores", {}), "winners": (view or {}).get("winners", []), "over": over,
            "rounds": rounds}


@bp.get("/history/<int:game_id>.jsonl")
def script(game_id: int):
    store = table_of().store
    record = public_record(game_id)
    header = {"game": record.game, "seats": [{"name": s["name"], "colour": s["colour"]} for s in record.seats],
              "options": record.options, "seed": record.seed}
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(_commented(r.event, source_words(r.source)), ensure_ascii=False)
              for r in store.records(game_id)]
    filename = f"dicetable-{record.game}-{game_id}.jsonl"
    return Response("\n".join(lines) + "\n", mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _commented(event: dict[str, Any], words: dict[str, str] | None) -> dict[str, Any]:
    """``event`` with its source in its ``"comment"`` (which replay ignores)."""
    if words is None:
        return event
    comment = "; ".join(c for c in (event.get("comment"), words["en"]) if c)
    return {**event, "comment": comment}


def dice_stats() -> list[dict[str, Any]]:
    return [s.as_dict() for s in dicestats.from_store(table_of().store)]


@bp.get("/stats")
def stats():
    return render_template("stats.html", stats=dice_stats(), min_expected=dicestats.MIN_EXPECTED)


@bp.get("/api/stats")
def api_stats():
    return jsonify(dice_stats())
