"""The inputs a game waits for (``engine.expects(state)["inputs"]``, docs/contracts.md), read
without knowing the game: which seat may send what, a page's form values turned into an
event, and a settled roll of the camera turned into a throw event.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any, Iterable, Mapping, Sequence

from engines.core import FACES, offered_by_seat
from pi.words import dice_words, join_en, spec_counts


#: How deep a JSON body may nest (no page sends more than a few levels).
MAX_JSON_DEPTH = 32


class BadJSON(ValueError):
    """JSON a request sent that the table refuses: malformed, nested too deep, or with a number out of bounds."""


def _refuse_constant(name: str) -> Any:
    raise BadJSON(f"{name} is not a number")


def _bounded_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON(f"{text[:20]} is not a finite number")
    return value


def loads_bounded(data: str | bytes) -> Any:
    """JSON as a request may send it: nested at most ``MAX_JSON_DEPTH`` deep, every number
    finite and every whole number within SQLite's 64 bits; ``BadJSON`` otherwise (never a
    RecursionError, whatever the depth)."""
    try:
        value = json.loads(data, parse_constant=_refuse_constant, parse_float=_bounded_float)
    except RecursionError:
        raise BadJSON("nested too deep") from None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise BadJSON("nested too deep")
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, int) and not isinstance(item, bool) and not -(1 << 63) <= item < (1 << 63):
            raise BadJSON("a whole number beyond 64 bits")
    return value


class InputError(ValueError):
    """A value a page sent that does not fit the input; ``message`` is ``{"en", "ja"}``."""

    def __init__(self, en: str, ja: str) -> None:
        super().__init__(en)
        self.message = {"en": en, "ja": ja}


def inputs(expects: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return list((expects or {}).get("inputs") or [])


def for_seat(expects: Mapping[str, Any] | None, seat: str) -> list[dict[str, Any]]:
    """The inputs ``seat`` may send now (its own secret ones included)."""
    return [i for i in inputs(expects) if seat in i.get("seats", [])]


def for_host(expects: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The inputs the host may send: everything but a secret choice (a player's own)."""
    return [i for i in inputs(expects) if not i.get("secret")]


def choosing(items: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, str]]]:
    """The seats that may send two or more inputs now, each with the names of its actions
    (docs/contracts.md: every such input names its ``action``), in the game's order."""
    return {s: [i["action"] for i in several] for s, several in offered_by_seat(items).items()
            if len(several) > 1 and all(i.get("action") for i in several)}


def find(candidates: Iterable[Mapping[str, Any]], type_: Any, seat: Any = None) -> dict[str, Any] | None:
    """The input of type ``type_`` that ``seat`` may send, where a game waits for one such
    input per seat (each seat's throw); without ``seat``, the first. A seat that may send
    none of them gets the first with the seats of all of them, which ``event_from_values``
    refuses naming every seat that is due."""
    found = [dict(i) for i in candidates if i.get("type") == type_]
    if seat is None or not found:
        return found[0] if found else None
    return next((i for i in found if seat in i.get("seats", [])),
                dict(found[0], seats=[s for i in found for s in i.get("seats", [])]))


def named_seat(values: Any) -> str | None:
    """The seat the host names in a form or a JSON body (``seat``), if any."""
    named = _first(values, "seat")
    return None if named in (None, "") else str(named)


def dice_field(inp: Mapping[str, Any]) -> str | None:
    """The name of the input's thrown-dice field, if it is a throw."""
    return next((f["name"] for f in inp.get("fields", []) if f.get("kind") == "dice"), None)


def throw_inputs(expects: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [i for i in inputs(expects) if dice_field(i)]


def button_inputs(expects: Mapping[str, Any] | None) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The secret inputs a seat button can enter, each with its number field (``"button":
    true``); a game may split one choice into several inputs (seats with other options)."""
    out = []
    for inp in inputs(expects):
        if inp.get("secret"):
            field = next((f for f in inp.get("fields", []) if f.get("kind") == "number" and f.get("button")), None)
            if field is not None:
                out.append((inp, field))
    return out


def button_input_for(expects: Mapping[str, Any] | None, seat: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The button input ``seat`` still has to make, if any."""
    return next(((i, f) for i, f in button_inputs(expects) if seat in i.get("seats", [])), None)


def seat_value(inp: Mapping[str, Any]) -> dict[str, Any]:
    """``{"seat": ...}`` for an event the host sends for a one-seat input ({} for a group's)."""
    seats = inp.get("seats", [])
    return {"seat": seats[0]} if seats and not inp.get("together") else {}


def signature(candidates: Iterable[Mapping[str, Any]]) -> str:
    """A short text that changes when the forms a page shows must change: an input, its
    seats, its prompt, fields or options (a die spent leaves fewer to choose), but never
    who still has to make a secret choice."""
    shown = [dict(i, seats=[]) if i.get("secret") else i for i in candidates]
    text_ = json.dumps(shown, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text_.encode()).hexdigest()[:16] if shown else ""


# ---------------------------------------------------------------------- form values


def event_from_values(inp: Mapping[str, Any], seat: str | None, values: Any) -> dict[str, Any]:
    """The event an input's form (or a JSON body) makes: ``values`` is a Flask form
    (``getlist``) or a plain dict of already typed values. Fields left out take their
    ``default``; a field without one must be given. ``seat``: who sends it (None: the host,
    who then names the seat in ``values["seat"]`` where the input lists seats)."""
    event: dict[str, Any] = {"type": inp["type"]}
    seats = list(inp.get("seats", []))
    if seat is None and seats:
        named = _first(values, "seat")
        if named in (None, "") and len(seats) == 1:
            named = seats[0]
        if named not in (None, ""):
            if named not in seats:
                raise InputError(f"{named} is not due to send this; due: {join_en(seats)}.",
                                 f"{named} の番ではありません（対象: {'、'.join(seats)}）。")
            seat = str(named)
    if seat is not None and not inp.get("together"):
        event["seat"] = seat
    for f in inp.get("fields", []):
        name = f["name"]
        raw = _raw(values, f)
        if raw is _MISSING:
            if "default" in f:
                _put(event, name, f["default"])
                continue
            raise InputError(f"{_label(f, 'en')}: give a value.", f"{_label(f, 'ja')}: 値を入力してください。")
        _put(event, name, _parse(f, raw))
    return event


def _put(event: dict[str, Any], name: str, value: Any) -> None:
    """``event[name] = value``; a dotted name (``tape.faces``) fills a nested object."""
    *outer, last = name.split(".")
    for key in outer:
        event = event.setdefault(key, {})
    event[last] = value


_MISSING = object()


def _first(values: Any, name: str) -> Any:
    if hasattr(values, "getlist"):
        got = values.getlist(name)
        return got[0] if got else None
    return values.get(name) if isinstance(values, Mapping) else None


def _raw(values: Any, f: Mapping[str, Any]) -> Any:
    name = f["name"]
    if not hasattr(values, "getlist"):  # JSON: values are typed already, nested or dotted
        if isinstance(values, Mapping) and name in values:
            return values[name]
        for key in name.split("."):
            if not isinstance(values, Mapping) or key not in values:
                return _MISSING
            values = values[key]
        return values
    kind = f.get("kind")
    if kind == "multi":
        if f.get("repeat"):
            counts = [(o, values.get(f"{name}.{k}", "").strip()) for k, o in enumerate(f.get("options", []))]
            if all(c == "" for _, c in counts) and f"{name}.present" not in values:
                return _MISSING
            out = []
            for option, count in counts:
                n = _int(count or "0", f)
                out.extend([option["value"]] * n)
            return out
        if f"{name}.present" not in values and not values.getlist(name):
            return _MISSING
        return [_option(f, v) for v in values.getlist(name)]
    if kind == "bool":
        return values.get(name) not in (None, "", "0", "false", "off")
    got = values.get(name)
    if got is None or (isinstance(got, str) and got.strip() == "" and kind != "choice"):
        return _MISSING
    if kind == "choice":
        return _option(f, got)
    return got


def _label(f: Mapping[str, Any], lang: str) -> str:
    label = f.get("label") or {}
    return label.get(lang) or label.get("en") or f["name"]


#: The largest number (either sign) a page may send for a game's field: far beyond any
#: game's range, far within SQLite's and every engine's integers.
NUMBER_LIMIT = 10**9


def whole(value: Any, limit: int = NUMBER_LIMIT) -> int | None:
    """A whole number a request sent: an int (never a bool or a float) or a text of ASCII
    digits with an optional sign, at most ``limit`` either side of 0; None for anything
    else (other scripts' digits, "1_000", "1e3", 10**5000, True)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]{1,19}", value.strip()):
        number = int(value.strip())
    else:
        return None
    return number if -limit <= number <= limit else None


def _int(text: Any, f: Mapping[str, Any]) -> int:
    number = whole(text)
    if number is None:
        shown = str(text)[:40]
        raise InputError(f"{_label(f, 'en')}: {shown!r} is not a whole number from -{NUMBER_LIMIT} to {NUMBER_LIMIT}.",
                         f"{_label(f, 'ja')}: 「{shown}」は -{NUMBER_LIMIT} から {NUMBER_LIMIT} までの整数ではありません。")
    return number


def _option(f: Mapping[str, Any], text: Any) -> Any:
    """The option value a form sent (forms send text: "null", "3", "d10")."""
    for option in f.get("options", []):
        value = option.get("value")
        if text == value or str(text) == ("null" if value is None else str(value)):
            return value
    return text  # the engine says what it expected


def _parse(f: Mapping[str, Any], raw: Any) -> Any:
    kind = f.get("kind")
    if not isinstance(raw, str):  # JSON: typed already; numbers are bounded all the same
        if kind == "number":
            return _int(raw, f)
        if kind == "numbers" and isinstance(raw, list):
            return [_int(v, f) for v in raw]
        return raw
    if kind == "number":
        return _int(raw, f)
    if kind == "dice":
        dice = parse_dice(raw)
        if dice is None:
            raise InputError("Could not read the dice: write each die as colour and face, e.g. red 3, blue 5 "
                             "(a d10 or d20: red 7 d10).",
                             "ダイスを読み取れません。「red 3, blue 5」のように色と目を書いてください"
                             "（d10・d20 は「red 7 d10」）。")
        return dice
    if kind == "picked":
        return [_picked(p) for p in re.split(r"[\s,、]+", raw.strip()) if p]
    if kind == "numbers":
        return [_int(p, f) for p in re.split(r"[\s,、]+", raw.strip()) if p]
    if kind in ("json", "layout"):
        try:
            return loads_bounded(raw)
        except ValueError as exc:
            raise InputError(f"{_label(f, 'en')}: not valid JSON ({exc}).",
                             f"{_label(f, 'ja')}: JSON として読めません（{exc}）。") from None
    return raw


def _picked(text: str) -> Any:
    """A picked die as a form sends it: its face (a number) or a name ("d10")."""
    number = whole(text)
    return text if number is None else number


#: The most dice a request may name (a full tray holds 40).
MAX_DICE = 64


def parse_dice(text: str) -> list[dict[str, Any]] | None:
    """``"red 3, blue 5, red 7 d10"`` -> dice dicts; None when a part is unreadable."""
    dice = []
    for part in re.split(r"[,;\n、]+", text or ""):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"([A-Za-z_\-]{1,20})\s*[: ]\s*([0-9]{1,3})(?:\s*d([0-9]{1,3}))?", part, flags=re.IGNORECASE)
        if not match:
            return None
        die: dict[str, Any] = {"colour": match.group(1).lower(), "face": int(match.group(2))}
        if match.group(3) and int(match.group(3)) != 6:
            die["sides"] = int(match.group(3))
        dice.append(die)
    return dice if len(dice) <= MAX_DICE else None


def checked_dice(value: Any) -> list[dict[str, Any]] | None:
    """Dice a JSON body sent (``[{"colour", "face"[, "sides"]}, ...]``) with every number
    bounded (faces and sides up to 999, at most ``MAX_DICE`` dice); None when a die is not
    one. The engine then says whether they fit the throw."""
    if not isinstance(value, list) or len(value) > MAX_DICE:
        return None
    dice = []
    for d in value:
        if not isinstance(d, Mapping) or not isinstance(d.get("colour"), str) or len(d["colour"]) > 20:
            return None
        face, sides = whole(d.get("face"), 999), whole(d.get("sides", 6), 999)
        if face is None or sides is None:
            return None
        die: dict[str, Any] = {"colour": d["colour"], "face": face}
        if sides != 6:
            die["sides"] = sides
        dice.append(die)
    return dice


def dice_text(dice: Iterable[Mapping[str, Any]]) -> str:
    """Dice as the host types them: ``red 3, red 7 d10``."""
    dice = [d if isinstance(d, Mapping) else dict(zip(("colour", "face", "sides"), d)) for d in dice]
    return ", ".join(f"{d.get('colour')} {d.get('face')}" + (f" d{d['sides']}" if d.get("sides", 6) != 6 else "")
                     for d in dice)


def sample_values(inp: Mapping[str, Any], rng: Any) -> dict[str, Any]:
    """Plausible values for an input's fields (benchmarks and the demo's helpers): the
    default where there is one, else a random option or number; never dice."""
    values: dict[str, Any] = {}
    for f in inp.get("fields", []):
        kind = f.get("kind")
        if "default" in f:
            values[f["name"]] = f["default"]
        elif kind == "number":
            values[f["name"]] = rng.randint(int(f["min"]), min(int(f["max"]), int(f["min"]) + 3))
        elif kind == "choice" and f.get("options"):
            values[f["name"]] = rng.choice(f["options"])["value"]
        elif kind == "multi":
            values[f["name"]] = [o["value"] for o in f.get("options", [])[: int(f.get("min", 0))]]
        elif kind == "bool":
            values[f["name"]] = False
        elif kind == "numbers":
            values[f["name"]] = [rng.randint(int(f["min"]), int(f["max"])) for _ in range(rng.randint(2, 5))]
        elif kind == "layout":
            values[f["name"]] = [[None] * int(n) for n in f.get("rows", ())]
    return values


# ---------------------------------------------------------------------- the camera


def unread_part(inp: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """The dice of a throw input that are not d6 (a camera that reads only d6 cannot)."""
    return [(c, sd, n) for c, sd, n in spec_counts(inp.get("dice")) if sd != 6 and n]


def unsure_part(inp: Mapping[str, Any], dice: Sequence[Any]) -> tuple[list[Any], list[tuple[str, int, int]]]:
    """For a camera that reads d10 and d20: (the dice it read, the (colour, sides, count)
    of the d10 and d20 it could not read, for their owners to type). Only dice the throw
    expects are left to type (in a throw of any size, e.g. a rethrow of the dice picked up,
    every such die of a known colour); an unexpected unreadable die stays, for the prompt."""
    any_size = inp.get("dice") is None
    want: dict[tuple[str, int], int] = {}
    for c, sd, n in spec_counts(inp.get("dice")):
        want[(c, sd)] = want.get((c, sd), 0) + n
    read, unread = [], {}
    for d in dice:
        sides = getattr(d, "sides", 6) or 6
        key = next((k for k in ((d.colour, sides), ("*", sides)) if want.get(k, 0) > 0), None)
        if sides == 6 or readable(d) or not (key is not None or (any_size and d.colour)):
            read.append(d)
            continue
        if key is not None:
            want[key] -= 1
        unread[(d.colour, sides)] = unread.get((d.colour, sides), 0) + 1
    return read, [(c, sd, n) for (c, sd), n in unread.items()]


def without(inp: Mapping[str, Any], unread: Sequence[tuple[str, int, int]]) -> dict[str, Any]:
    """``inp`` expecting fewer dice: those of ``unread`` (colour, sides, count) left out
    (a die of a named colour first from its own colour's count, else from "*"); a throw of
    any size (``dice`` null) stays as it is."""
    if inp.get("dice") is None:
        return dict(inp)
    spec = [dict(d) for d in inp["dice"]]
    for colour, sides, n in unread:
        for d in sorted(spec, key=lambda d: d.get("colour", "*") != colour):
            if int(d.get("sides", 6)) == sides and d.get("colour", "*") in (colour, "*"):
                take = min(n, int(d.get("count", 0)))
                d["count"], n = int(d.get("count", 0)) - take, n - take
    return dict(inp, dice=[d for d in spec if int(d.get("count", 0)) > 0])


def readable(die: Any) -> bool:
    sides = getattr(die, "sides", 6) or 6
    return bool(die.colour) and not die.cocked and die.face in FACES.get(sides, ())


def dice_problem(inp: Mapping[str, Any], dice: Sequence[Any]) -> dict[str, str] | None:
    """A prompt when the dice seen do not fit what the input expects; None when they do."""
    unreadable = [d for d in dice if not readable(d)]
    seen: dict[tuple[str, int], int] = {}
    for d in dice:
        if d not in unreadable:
            key = (d.colour, getattr(d, "sides", 6) or 6)
            seen[key] = seen.get(key, 0) + 1
    spec = inp.get("dice")
    if spec is None:
        match = bool(seen) and not unreadable
        want_words = {"en": "the dice you picked up", "ja": "拾ったダイス"}
    else:
        match = not unreadable and _fits(spec_counts(spec), seen)
        want_words = dice_words(spec_counts(spec))
    if match:
        return None
    seen_words = dice_words([(c, s, n) for (c, s), n in seen.items()])
    if unreadable:
        n = len(unreadable)
        seen_words = {
            "en": (seen_words["en"] + " and " if seen else "") + (f"{'one die' if n == 1 else f'{n} dice'} it "
                                                                  "cannot read (cocked?)"),
            "ja": (seen_words["ja"] + "、" if seen else "") + f"読めないダイス{n}個（傾いている？）",
        }
    who = list(inp.get("seats", []))
    who_en = f" ({join_en(who)})" if who else ""
    who_ja = "（" + "、".join(who) + "）" if who else ""
    return {
        "en": f"Expected {want_words['en']}{who_en}; the camera sees "
              f"{seen_words['en']}. Rethrow, or type the dice on the host page (or the thrower's seat page).",
        "ja": f"期待: {want_words['ja']}{who_ja}。カメラの読み: {seen_words['ja']}。"
              "振り直すか、ホスト画面（または振った人の席のページ）でダイスを入力してください。",
    }


def _fits(want: list[tuple[str, int, int]], seen: Mapping[tuple[str, int], int]) -> bool:
    """Whether the dice seen are exactly the dice wanted (``"*"``: any colour of those sides)."""
    left = dict(seen)
    for colour, sides, n in want:
        if colour == "*":
            continue
        if left.get((colour, sides), 0) < n:
            return False
        left[(colour, sides)] -= n
    for colour, sides, n in want:
        if colour != "*":
            continue
        have = sum(v for (c, s), v in left.items() if s == sides)
        if have < n:
            return False
        for key in [k for k in left if k[1] == sides]:
            take = min(left[key], n)
            left[key] -= take
            n -= take
    return not any(left.values())


def die_dict(d: Any) -> dict[str, Any]:
    out = {"colour": d.colour, "face": d.face}
    sides = getattr(d, "sides", 6) or 6
    if sides != 6:
        out["sides"] = sides
    return out


def camera_event(inp: Mapping[str, Any], dice: Sequence[Any], before: Mapping[Any, Any],
                 seat_colours: Mapping[str, str]) -> dict[str, Any]:
    """The event a settled roll makes for a throw input: ``dice`` are the dice it takes,
    ``before`` the same dice as they lay before (by id, for a rethrow's ``picked``).
    Raises ``InputError`` when a field cannot be known from the camera."""
    seats = list(inp.get("seats", []))
    seat = seats[0] if len(seats) == 1 else None
    if seat is None and not inp.get("together"):  # whose dice they are tells who threw
        owners = {s for s, c in seat_colours.items() if s in seats and all(d.colour == c for d in dice)}
        seat = owners.pop() if len(owners) == 1 else None
    values: dict[str, Any] = {}
    for f in inp.get("fields", []):
        kind = f.get("kind")
        if kind == "dice":
            values[f["name"]] = [die_dict(d) for d in dice]
        elif kind == "picked":
            names = {int(k): v for k, v in (f.get("names") or {}).items()}
            picked = []
            for d in dice:
                old = before.get(d.id, d)
                sides = getattr(old, "sides", 6) or 6
                picked.append(names.get(sides, old.face))
            values[f["name"]] = picked
        elif "default" not in f and kind == "choice" and f.get("options"):
            values[f["name"]] = f["options"][0]["value"]
    if seat is not None:
        values["seat"] = seat
    return event_from_values(inp, None, values)
