"""What a page shows of the table: the engine's view (public, or a seat's own), what the
game waits for in words, and the table's extras (camera, prompts, the last throw, LEDs).

Never anyone's secret choice, nor who has chosen, before the reveal: the inputs shown are
the public ones (``engines.core.public``), plus the seat's own.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from engines.core import public
from pi import inputs
from pi.words import join_en


def snapshot(table: Any, seat: str | None = None) -> dict[str, Any]:
    """The snapshot of ``table`` (a ``pi.table.Table``) for the status page and the host
    page (``seat`` None) or ``seat``'s own page."""
    throws = table.throws
    with table._lock:
        view = table.engine.view(table.state, seat) if table.state is not None else None
        # The game log as the pages show it: each event's line says how it came in, where
        # that is worth saying (the view itself stays the engine's).
        log = table.ledger.marked(view.get("log") or []) if view is not None else []
        expects = table.expects_now()
        shown = inputs.inputs(public(expects)) if expects is not None else []
        mine = [_own(i, seat) for i in inputs.for_seat(expects, seat)] if seat is not None else []
        to_type = (throws.pending or {}).get("missing", {}).get(seat, []) if seat is not None else []
        snap: dict[str, Any] = {
            "game": table.record.public() if table.record else None,
            "title": title(table.engine, table.record.game) if table.record else None,
            "view": view,
            # what the game's partial draws beyond the view (an engine's optional scene())
            "scene": table.engine.scene(table.state)
            if table.state is not None and hasattr(table.engine, "scene") else None,
            "log": log,
            "due": due_words(expects, seat),
            "inputs": shown,
            "my_inputs": mine,
            "forms": inputs.signature(mine if seat is not None else inputs.for_host(expects))
            + ("|faces" if to_type else ""),
            "secret_open": any(i.get("secret") for i in shown),
            "over": expects is not None and not shown,
            "camera": table.camera.health(),
            "last_roll": [d.as_dict() for d in throws.shown.dice] if throws.shown is not None else None,
            "last_throw": throws.shown.as_dict() if throws.shown is not None else None,
            "prompt": throws.prompt,
            "demo_pending": table.demo.pending,
            "throw_due": bool(inputs.throw_inputs(expects)),  # the demo's throw control is shown
            "claimable": throws.claimable(expects, seat),
            "to_type": [{"colour": c, "sides": sd} for c, sd in to_type],
            "warning": table.warning,
            "undone": table.undone,
            "last_round": table.ledger.last_round(log) if view is not None else None,
            "note": table.notes.get(seat) if seat is not None else None,
            "seats": table.page_seats(),
        }
    snap["leds"] = table.buttons.leds(seat)
    # The version a page sees changes only when what it shows changes: a counter would
    # tell an observer that something happened (a seat locking its secret choice).
    snap["version"] = hashlib.sha256(json.dumps(snap, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return snap


def _own(inp: Mapping[str, Any], seat: str) -> dict[str, Any]:
    """An input as ``seat``'s own page sees it: a secret one names only that seat, never who
    else still chooses, and a field's ``only`` (what each seat may choose) keeps that seat's."""
    out = dict(inp, seats=[seat]) if inp.get("secret") else dict(inp)
    if "fields" in inp:
        out["fields"] = [dict(f, only={s: v for s, v in f["only"].items() if s == seat}) if "only" in f else f
                         for f in inp["fields"]]
    return out


def due_words(expects: Mapping[str, Any] | None, seat: str | None) -> dict[str, str]:
    """What the table waits for, in words; a secret choice never says who still chooses."""
    if expects is None:
        return {"en": "No game yet: the host starts one on the host page.",
                "ja": "ゲームはまだ始まっていません。ホスト画面から開始してください。"}
    items = inputs.inputs(expects)
    if not items:
        winners = expects.get("winners") or []
        if winners:
            return {"en": f"Game over: {', '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}.",
                    "ja": f"ゲーム終了: {'、'.join(winners)}の勝ち。"}
        return {"en": "Game over.", "ja": "ゲーム終了。"}
    choosing = inputs.choosing(items)
    # a seat's own page tells it its own step, and only names the others still due
    mine = seat is not None and any(seat in (inp.get("seats") or ()) for inp in items)
    others: list[str] = []
    en: list[str] = []
    ja: list[str] = []
    for inp in items:
        seats = inp.get("seats") or []
        prompt = inp.get("prompt") or {"en": str(inp.get("type")), "ja": str(inp.get("type"))}
        if mine and seat not in seats:
            if not inp.get("secret"):  # never who still chooses in secret
                others += [s for s in seats if s not in others]
            continue
        if mine:
            lines = [_choice_words(seat, choosing[seat]) if seat in choosing else prompt]
        elif inp.get("secret"):  # (the game's card says nothing is shown until every seat has locked)
            lines = [{"en": "Secret choice: every seat chooses on its button or its seat page.",
                      "ja": "秘密の選択中: 各席がボタンか自分の席のページで選びます。"}]
        else:
            # a seat that may do several things is told their names once, not every prompt
            lines = [_choice_words(s, choosing[s]) for s in seats if s in choosing]
            if not seats or any(s not in choosing for s in seats):
                lines.append(prompt)
        for line in lines:
            if line["en"] not in en:
                en.append(line["en"])
                ja.append(line.get("ja") or line["en"])
    words = _one_line_per_words(en, ja, [s for inp in items for s in inp.get("seats") or ()])
    if others:
        words = {"en": f"{words['en']} Also waiting for {join_en(others)}.",
                 "ja": f"{words['ja']} ほかに{'・'.join(others)}を待っています。"}
    return words


def _one_line_per_words(en: list[str], ja: list[str], seats: list[str]) -> dict[str, str]:
    """The lines joined, where lines that say the same to different seats ("Ben: you may use
    an item card ..." and "Chie: you may use an item card ...") become one ("Ben, Chie: ...")."""
    merged: list[tuple[list[str], str, str]] = []  # (seats named, English rest, Japanese rest)
    for e, j in zip(en, ja):
        who = next((s for s in seats if e.startswith(f"{s}: ") and j.startswith(f"{s}: ")), None)
        rest = (e[len(who) + 2:], j[len(who) + 2:]) if who else (e, j)
        same = next((m for m in merged if who and m[0] and (m[1], m[2]) == rest), None)
        if same:
            same[0].append(who)
        else:
            merged.append(([who] if who else [], *rest))
    return {"en": " / ".join(f"{', '.join(w)}: {e}" if w else e for w, e, _ in merged),
            "ja": " / ".join(f"{'・'.join(w)}: {j}" if w else j for w, _, j in merged)}


def _choice_words(seat: str, actions: list[Mapping[str, str]]) -> dict[str, str]:
    """"Chie: place a worker, build a tape or pass." from the names of a seat's actions."""
    names = [a["en"][:1].lower() + a["en"][1:] for a in actions]
    return {"en": f"{seat}: {', '.join(names[:-1])} or {names[-1]}.",
            "ja": f"{seat}: {'・'.join(a['ja'] for a in actions)}"}


def title(engine: Any, name: str) -> dict[str, str]:
    """A game's name for the pages (the engine's ``TITLE``)."""
    return dict(getattr(engine, "TITLE", None) or {"en": name, "ja": name})
