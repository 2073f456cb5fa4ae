"""What every game engine shares: seats, dice, events, errors, the seeded generator.

An engine is a module of four pure functions (see docs/contracts.md):

- ``setup(seats, options, seed) -> state``
- ``expects(state) -> dict``: what the game waits for now
- ``apply(state, event) -> state``, or raises ``IllegalEvent`` (the old state is untouched)
- ``view(state, seat=None) -> dict``: JSON-able, with ``seat``'s own secrets under "mine"

States are frozen dataclasses holding tuples. Each state keeps its own event list
(``state.events``, the events as JSON text) and the state of its random generator
(``state.rng``), so a game is its seats, options, seed and events: ``replay`` rebuilds it.

The generator is PCG32 (O'Neill, pcg-random.org, "XSH RR" output), written as pure
functions on an ``Rng`` value: every draw returns the value and the next ``Rng``.
"""
from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import ModuleType
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

__all__ = [
    "Seat",
    "Die",
    "IllegalEvent",
    "SetupError",
    "Rng",
    "rng_seed",
    "rng_next",
    "rng_below",
    "rng_shuffle",
    "rng_face",
    "seats_from",
    "dice_from",
    "FACES",
    "text",
    "public",
    "Command",
    "event_text",
    "event_list",
    "replay",
    "ReplayStep",
]


class EngineError(ValueError):
    """The root of every error an engine raises: a message in English and in Japanese.

    ``str(exc)`` is the English text; ``exc.text`` is ``{"en", "ja"}`` for the pages;
    ``exc.details`` holds machine-readable facts (the seat, the field, ...).
    """

    def __init__(self, en: str, ja: str, **details: Any) -> None:
        super().__init__(en)
        self.en = en
        self.ja = ja
        self.details = details

    @property
    def text(self) -> dict[str, str]:
        return {"en": self.en, "ja": self.ja}

    @classmethod
    def of(cls, message: Mapping[str, str], **details: Any) -> "EngineError":
        """The error with a ``{"en", "ja"}`` message."""
        return cls(message["en"], message["ja"], **details)


class IllegalEvent(EngineError):
    """An event the rules refuse; the message says what was seen and what was expected."""


class DataError(EngineError):
    """Seats, options or a data file a game cannot start with; the message names the fix."""


#: The name ``setup`` callers have always caught; the same class as ``DataError``.
SetupError = DataError


@dataclass(frozen=True)
class Seat:
    """A player at the table and the colour of their dice."""

    name: str
    colour: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "colour": self.colour}


@dataclass(frozen=True)
class Die:
    """One die as read on the table: its colour, the face up, its number of sides."""

    colour: str
    face: int
    sides: int = 6

    def as_dict(self) -> dict[str, Any]:
        if self.sides == 6:
            return {"colour": self.colour, "face": self.face}
        return {"colour": self.colour, "face": self.face, "sides": self.sides}


#: Japanese names of colours (the camera's palette among them: the host page offers those).
#: A script may name any other colour: colours are names chosen per table (RULES.md); one
#: without a Japanese name is shown as written.
COLOURS: dict[str, str] = {
    "red": "赤", "orange": "オレンジ", "yellow": "黄", "green": "緑", "blue": "青",
    "purple": "紫", "pink": "ピンク", "white": "白", "black": "黒", "clear": "透明",
    "grey": "灰色", "gray": "灰色", "brown": "茶", "teal": "青緑", "cyan": "水色",
    "lime": "黄緑", "gold": "金", "silver": "銀", "navy": "紺", "violet": "すみれ色",
    "magenta": "マゼンタ", "beige": "ベージュ", "ivory": "アイボリー",
}

#: Bounds on what one event or script may hold, so that no line can cost minutes.
MAX_NAME = 40
MAX_DICE = 60


def colour_ja(colour: str) -> str:
    """A colour's Japanese name (the colour itself when it has none)."""
    return COLOURS.get(colour, colour)


def check_colour(colour: Any, label: str, label_ja: str, error: type[EngineError] = None) -> str:
    """``colour`` if it is a colour name (1 to ``MAX_NAME`` printable characters, not the
    "*" that means "any colour" in what a game waits for); ``error`` (IllegalEvent) naming
    ``label`` otherwise."""
    error = error or IllegalEvent
    if (not isinstance(colour, str) or not colour.strip() or colour == "*" or len(colour) > MAX_NAME
            or not colour.isprintable()):
        shown = short(colour)
        raise error(f"{label} has the colour {shown}; a colour is a name of 1 to {MAX_NAME} printable characters, "
                    f"like {', '.join(list(COLOURS)[:4])} (\"*\" means any colour, so no seat has it)",
                    f"{label_ja}の色 {shown} は使えません。色は1〜{MAX_NAME}文字の名前です（例: {', '.join(list(COLOURS)[:4])}。"
                    f"\"*\" は「どの色でもよい」の意味なので席の色にはなりません）")
    return colour


def count_en(n: int, word: str) -> str:
    """``n`` and an English noun, plural unless one: "1 space", "3 item cards"."""
    return f"{n} {word}" if abs(n) == 1 else f"{n} {word}s"


def short(value: Any, limit: int = 60) -> str:
    """``value`` written as JSON (``null``, ``true``, ``"red"``), cut to ``limit`` characters,
    for messages that echo input: scripts and settings are JSON and TOML, so a player never
    reads Python's ``None``. A huge value costs no more than a small one: only the first 6
    items of a list or table, the first 40 characters of a text, 3 levels deep."""
    shown = _json_start(value, 3)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _json_start(value: Any, depth: int) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        try:
            text_ = repr(value)
        except ValueError:  # a whole number too long to print
            return "<a number too long to show>"
        return text_ if len(text_) <= 40 else text_[:37] + "..."
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:37] + "...", ensure_ascii=False)
    if isinstance(value, dict):
        if depth <= 0:
            return "{...}" if value else "{}"
        parts = [f"{_json_start(k, 0)}: {_json_start(v, depth - 1)}" for k, v in list(value.items())[:7]]
        return "{" + ", ".join(parts[:6] + ["..."][: len(parts) > 6]) + "}"
    if isinstance(value, (list, tuple)):
        if depth <= 0:
            return "[...]" if value else "[]"
        parts = [_json_start(v, depth - 1) for v in value[:7]]
        return "[" + ", ".join(parts[:6] + ["..."][: len(parts) > 6]) + "]"
    return f"<{type(value).__name__}>"


def ascii_int(text_: str) -> int | None:
    """The whole number written in ASCII digits ``text_`` (``"12"``), else None: ``"²"``,
    ``"①"`` and full-width digits are not numbers here."""
    if isinstance(text_, str) and text_.isascii() and text_.isdigit() and len(text_) <= 9:
        return int(text_)
    return None


def whole(value: Any, lo: int, hi: int) -> bool:
    """Whether ``value`` is a whole number (not a bool) from ``lo`` to ``hi``."""
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def seats_from(seats: Iterable[Seat | Mapping[str, Any]], min_seats: int, max_seats: int) -> tuple[Seat, ...]:
    """Seats from ``Seat`` values or ``{"name", "colour"}`` dicts, checked.

    Names are non-empty strings of at most ``MAX_NAME`` characters, colours are names
    (``check_colour``); each is unique at the table.
    """
    if not isinstance(seats, (list, tuple)):
        raise DataError(f"the seats must be a list of {{\"name\": ..., \"colour\": ...}}, saw {short(seats)}",
                        f"席は {{\"name\": ..., \"colour\": ...}} のリストで書いてください（{short(seats)}）")
    if not min_seats <= len(seats) <= max_seats:
        raise DataError(f"this game is for {min_seats} to {max_seats} seats, saw {len(seats)}",
                        f"このゲームは{min_seats}〜{max_seats}人用です（{len(seats)}席）")
    result: list[Seat] = []
    for i, seat in enumerate(seats):
        if isinstance(seat, Seat):
            name, colour = seat.name, seat.colour
        elif isinstance(seat, Mapping):
            name, colour = seat.get("name"), seat.get("colour", seat.get("color"))
        else:
            raise DataError(f"seat {i + 1} is {short(seat)}; give each seat as {{\"name\": ..., \"colour\": ...}}",
                            f"{i + 1}番目の席が {short(seat)} です。{{\"name\": ..., \"colour\": ...}} で書いてください")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
            raise DataError(f"seat {i + 1} has no usable name (saw {short(name)}); give each seat a name of "
                            f"1 to {MAX_NAME} printable characters",
                            f"{i + 1}番目の席の名前 {short(name)} は使えません。1〜{MAX_NAME}文字の名前にしてください")
        check_colour(colour, f"seat {name!r}", f"席「{name}」", DataError)
        result.append(Seat(name, colour))
    for label, label_ja, values in (("name", "名前", [s.name for s in result]),
                                    ("colour", "色", [s.colour for s in result])):
        doubles = sorted({v for v in values if values.count(v) > 1})
        if doubles:
            raise DataError(f"two seats share the {label} {doubles[0]!r}; each seat needs its own {label}",
                            f"2つの席が同じ{label_ja}「{doubles[0]}」です。席ごとに別の{label_ja}にしてください")
    return tuple(result)


#: The faces a die of each kind shows (a d10's 0 counts as 10 where the game says so).
FACES = {6: range(1, 7), 10: range(0, 10), 20: range(1, 21)}


def bounded_list(raw: Any, what: str, what_ja: str, items: str, items_ja: str, most: int = MAX_DICE) -> list:
    """``raw`` if it is a list of at most ``most`` items; IllegalEvent naming ``what`` (a
    list of ``items``) otherwise, so no event can make the rules read a huge list."""
    if not isinstance(raw, list):
        raise IllegalEvent(f"{what} must be a list of {items}, saw {short(raw)}",
                           f"{what_ja}は{items_ja}のリストで書いてください（{short(raw)}）")
    if len(raw) > most:
        raise IllegalEvent(f"{what} holds {len(raw)} items; at most {most}",
                           f"{what_ja}の項目が{len(raw)}個あります。最大{most}個です")
    return raw


def dice_from(raw: Any, what: str = "dice", sides: Iterable[int] = (6,)) -> tuple[Die, ...]:
    """Dice of a throw event: a list of ``{"colour": str, "face": int, "sides": 6}``, checked
    (each as `die_from` reads it), at most ``MAX_DICE`` of them."""
    bounded_list(raw, f"'{what}'", f"「{what}」", '{"colour": ..., "face": 1-6}', "ダイス（{\"colour\": ..., \"face\": 1-6}）")
    return tuple(die_from(item, f"die {i + 1}", sides) for i, item in enumerate(raw))


def die_from(item: Any, label: str = "die", sides: Iterable[int] = (6,)) -> Die:
    """One die, ``{"colour": str, "face": int, "sides": 6}``, checked; `label` names it in
    the error.

    ``"color"`` is read as ``"colour"``; ``"sides"`` defaults to 6 and must be one of
    ``sides`` (6, 10 or 20: a d10 shows 0-9, a d20 1-20). A die may also be written as a
    ``[colour, face]`` pair or a ``[colour, face, sides]`` triple.
    """
    allowed = tuple(sides)
    label_ja = label.replace("die ", "ダイス").replace("die", "ダイス")
    if isinstance(item, (list, tuple)) and len(item) in (2, 3):
        item = dict(zip(("colour", "face", "sides"), item))
    if not isinstance(item, Mapping):
        raise IllegalEvent(f"{label} must be {{\"colour\": ..., \"face\": 1-6}} or [colour, face], saw {short(item)}",
                           f"{label_ja}は {{\"colour\": ..., \"face\": 1-6}} か [色, 目] で書いてください（{short(item)}）")
    unknown = sorted(set(item) - {"colour", "color", "face", "sides"})
    if unknown:
        raise IllegalEvent(f"{label} has unknown key(s) {short(unknown)}; a die has \"colour\" and \"face\"",
                           f"{label_ja}に不明な項目 {short(unknown)} があります。ダイスは colour と face で書きます")
    colour, face = item.get("colour", item.get("color")), item.get("face")
    n = item.get("sides", 6)
    if not isinstance(colour, str) or not colour.strip() or colour == "*" or len(colour) > MAX_NAME:
        raise IllegalEvent(f"{label} has no colour (saw {short(colour)}); expected a colour name like \"red\"",
                           f"{label_ja}の色がありません（{short(colour)}）。\"red\" のような色の名前を書いてください")
    if isinstance(n, bool) or n not in allowed:
        kinds = "six-sided dice" if allowed == (6,) else " or ".join(f"d{k}" for k in allowed)
        raise IllegalEvent(f"{label} has {short(n)} sides; this game uses {kinds}",
                           f"{label_ja}の面数 {short(n)} は使えません。このゲームで使うのは{'・'.join(f'd{k}' for k in allowed)}です")
    faces = FACES[n]
    if not whole(face, faces[0], faces[-1]):
        kind = "" if n == 6 else f" d{n}"
        raise IllegalEvent(
            f"{label} ({colour}{kind}) shows {short(face)}; expected a face from {faces[0]} to {faces[-1]}",
            f"{label_ja}（{colour_ja(colour)}{kind}）の目 {short(face)} はありえません。{faces[0]}〜{faces[-1]}の目です",
        )
    return Die(colour, face, n)


def text(en: str, ja: str) -> dict[str, str]:
    """A line the pages show, in English and Japanese."""
    return {"en": en, "ja": ja}


def public(expects: Mapping[str, Any]) -> dict[str, Any]:
    """``expects`` as anyone may see it: a secret input does not say who still has to
    choose (its ``seats`` is emptied) nor what each seat may choose (a field's ``only``)."""
    inputs = [
        dict(i, seats=[], fields=[{k: v for k, v in f.items() if k != "only"} for f in i.get("fields", [])])
        if i.get("secret") else dict(i)
        for i in expects.get("inputs", [])
    ]
    return {**expects, "inputs": inputs}


def event_text(event: Mapping[str, Any]) -> str:
    """The canonical JSON text an event is kept as in a state's event list."""
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def replace(state: Any, **changes: Any) -> Any:
    """A copy of a frozen state dataclass with ``changes``, like ``dataclasses.replace``
    without re-running ``__init__`` (apply makes many of these)."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def read_toml(data_file: str, path: str | Path | None) -> tuple[str, dict[str, Any]]:
    """(where, parsed TOML) of a game's data file: the packaged ``engines/<data_file>``
    when ``path`` is None, else the file at ``path``; DataError naming the file when it
    cannot be read or is not TOML."""
    if path is None:
        where = f"engines/{data_file}"
        raw = resources.files("engines").joinpath(data_file).read_text(encoding="utf-8")
    else:
        where = str(path)
        try:
            raw = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            raise DataError(f"{where}: cannot read the data file ({reason})",
                            f"{where}: データファイルを読み込めません（{reason}）") from None
    try:
        return where, tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{where}: not valid TOML ({exc})", f"{where}: TOML として読めません（{exc}）") from None


def event_kind(event: Any, keys: Mapping[str, Any]) -> str:
    """The ``"type"`` of an event whose fields fit ``keys`` (type -> (required fields,
    optional fields), or a ``Move``; ``"type"`` and ``"comment"`` always allowed);
    IllegalEvent naming what is missing or unknown otherwise."""
    kinds = ", ".join(keys)
    if not isinstance(event, Mapping):
        raise IllegalEvent(f"an event is an object with a \"type\" ({kinds}); saw {short(event)}",
                           f"イベントは \"type\"（{kinds}）を持つオブジェクトです（{short(event)}）")
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in keys:
        raise IllegalEvent(f"unknown event type {short(kind)}; expected one of {kinds}",
                           f"イベントの種類 {short(kind)} はありません。使えるのは {kinds} です")
    row = keys[kind]
    required, optional = (row.required, row.optional) if isinstance(row, Move) else row
    missing = sorted(required - set(event))
    if missing:
        raise IllegalEvent(f"the {kind} event has no {', '.join(missing)}; see docs/replay.md for its fields",
                           f"{kind} イベントに {', '.join(missing)} がありません（項目は docs/replay.md）")
    unknown = sorted(set(event) - required - optional - {"type", "comment"})
    if unknown:
        raise IllegalEvent(f"the {kind} event has unknown field(s) {short(unknown)}; expected {short(sorted(required | optional))}",
                           f"{kind} イベントに不明な項目 {short(unknown)} があります（使える項目: {short(sorted(required | optional))}）")
    return kind


def load_glossary(data_file: str) -> dict[str, dict[str, str]]:
    """The ``[glossary]`` of a game's packaged data file: term -> ``{"en", "ja"}``, one
    English and one Japanese name per term, used by the engine, the pages and the partials."""
    where, data = read_toml(data_file, None)
    table = data.get("glossary")
    if not isinstance(table, Mapping) or not table:
        raise DataError(f"{where} has no [glossary]", f"{where} に [glossary] がありません")
    out = {}
    for key, names in table.items():
        if not (isinstance(names, Mapping) and set(names) == {"en", "ja"}
                and all(isinstance(v, str) and v for v in names.values())):
            raise DataError(f"{where}: glossary term {key!r} needs exactly one \"en\" and one \"ja\" name",
                            f"{where}: 用語 {key} には \"en\" と \"ja\" の名前を1つずつ書いてください")
        out[key] = {"en": names["en"], "ja": names["ja"]}
    return out


def event_list(state: Any) -> list[dict[str, Any]]:
    """The accepted events of a game, oldest first, as plain dicts."""
    return [json.loads(text) for text in state.events]


# --- the kit: what every engine's apply, expects and view are built from ---------------------


class Chain:
    """An append-only sequence that shares its past: ``add`` is O(1) and leaves ``self``
    as it was, so a state can hold its events and log without copying them per event."""

    __slots__ = ("_prev", "_item", "_len")

    def __init__(self, prev: "Chain | None" = None, item: Any = None) -> None:
        self._prev = prev
        self._item = item
        self._len = 0 if prev is None else prev._len + 1

    def add(self, item: Any) -> "Chain":
        return Chain(self, item)

    def __len__(self) -> int:
        return self._len

    def __iter__(self):
        items = []
        node = self
        while node._prev is not None:
            items.append(node._item)
            node = node._prev
        return reversed(items)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, int) and index == -1 and self._len:
            return self._item
        return tuple(self)[index]

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, (Chain, tuple)):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Chain({list(self)!r})"


EMPTY = Chain()


def say(state: Any, en: str, ja: str) -> Any:
    """``state`` with one more log line (``state.log``, a ``Chain`` of ``(en, ja)``)."""
    return replace(state, log=state.log.add((en, ja)))


def log_lines(state: Any) -> list[dict[str, str]]:
    """The view's ``log``: every line of ``state.log`` as ``{"en", "ja"}``."""
    return [{"en": en, "ja": ja} for en, ja in state.log]


@dataclass(frozen=True)
class Move:
    """One row of an engine's moves table: an event type's fields, the phases it is
    allowed in (``None``: the handler judges) and its handler ``(state, event) -> state``."""

    handler: Callable[[Any, Mapping[str, Any]], Any]
    phases: tuple[str, ...] | None = None
    required: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()


def move(handler: Callable[[Any, Mapping[str, Any]], Any], phases: Iterable[str] | None = None,
         required: Iterable[str] = ("seat",), optional: Iterable[str] = ()) -> Move:
    """A ``Move`` from plain iterables (most events carry a ``seat``)."""
    return Move(handler, None if phases is None else tuple(phases), frozenset(required), frozenset(optional))


def apply_move(state: Any, event: Any, moves: Mapping[str, Move], expects: Callable[[Any], Mapping[str, Any]]) -> Any:
    """The state after ``event`` by the engine's moves table, its text added to
    ``state.events``; ``IllegalEvent`` when the event is malformed, the game is over, or its
    type is not allowed in this phase (the message says what the table waits for)."""
    kind = event_kind(event, moves)
    row = moves[kind]
    if state.phase == "over":
        raise IllegalEvent("the game is over; no event is expected", "ゲームは終わりました。これ以上イベントは受け付けません")
    if row.phases is not None and state.phase not in row.phases:
        article = "an" if kind[:1] in ("a", "e", "i", "o") else "a"  # "a uses event"
        raise IllegalEvent.of(joined(text(f"saw {article} {kind} event, but ", f"{kind} イベントが来ましたが、"),
                                     waiting_for(expects(state))))
    new = row.handler(state, event)
    return replace(new, events=state.events.add(event_text(event)))


def joined(*parts: Mapping[str, str]) -> dict[str, str]:
    """Bilingual texts put one after the other."""
    return {lang: "".join(p[lang] for p in parts) for lang in ("en", "ja")}


def waiting_for(expects: Mapping[str, Any]) -> dict[str, str]:
    """"the table is waiting for ..." from an ``expects``: the prompts of its inputs (a
    secret input names nobody), both languages."""
    inputs = expects.get("inputs", [])
    if not inputs:
        return text("the game is over; no event is expected", "ゲームは終わっていて、次のイベントはありません")
    en, ja = [], []
    for inp in inputs:
        who = "" if inp.get("secret") or not inp.get("seats") else f" ({', '.join(inp['seats'])})"
        en.append(f"{inp['type']}{who}: {inp['prompt']['en'].rstrip('.')}")  # "...; or ..." joins them
        ja.append(f"{inp['type']}{who}: {inp['prompt']['ja']}")
    return text("the table is waiting for " + "; or ".join(en),
                "待っているのは次の入力です: " + "／".join(ja))


def seat_index(seats: Sequence[Seat], name: Any) -> int:
    """The index of the seat called ``name``; IllegalEvent listing the seats otherwise."""
    for i, seat in enumerate(seats):
        if seat.name == name:
            return i
    names = ", ".join(s.name for s in seats)
    raise IllegalEvent(f"unknown seat {short(name)}; the seats are {names}",
                       f"{short(name)} という席はありません（席: {'、'.join(s.name for s in seats)}）", seat=name)


def check_options(options: Any, known: Iterable[str]) -> dict[str, Any]:
    """``options`` as a dict, with no key outside ``known``; DataError otherwise."""
    known = tuple(known)
    if not isinstance(options, Mapping):
        raise DataError(f"options must be an object, saw {short(options)}", f"options はオブジェクトで書いてください（{short(options)}）")
    unknown = sorted(set(options) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise DataError(f"unknown option(s) {short(unknown)}; this game's options are: {allowed}",
                        f"不明なオプション {short(unknown)} があります。このゲームのオプション: {allowed}")
    return dict(options)


def option_choice(options: Mapping[str, Any], key: str, choices: Sequence[Any], default: Any) -> Any:
    """``options[key]`` (``default`` when absent), one of ``choices``; DataError otherwise."""
    value = options.get(key, default)
    if isinstance(value, bool) and not any(isinstance(c, bool) for c in choices) or value not in choices:
        listed = ", ".join(json.dumps(c) for c in choices)
        raise DataError(f"option {key!r} is {short(value)}; expected one of {listed}",
                        f"オプション {key} が {short(value)} です。{listed} のどれかにしてください")
    return value


def option_int(options: Mapping[str, Any], key: str, lo: int, hi: int, default: int) -> int:
    """``options[key]`` (``default`` when absent), a whole number from ``lo`` to ``hi``."""
    value = options.get(key, default)
    if not whole(value, lo, hi):
        raise DataError(f"option {key!r} is {short(value)}; expected a whole number from {lo} to {hi}",
                        f"オプション {key} が {short(value)} です。{lo}〜{hi}の整数にしてください")
    return value


def base_view(state: Any, game: str, expects: Mapping[str, Any], scores: Mapping[str, Any],
              winners: Sequence[str]) -> dict[str, Any]:
    """The keys every view has (docs/contracts.md): game, phase, seats, scores, winners,
    the public ``expects`` and the log."""
    return {
        "game": game,
        "phase": state.phase,
        "seats": [s.as_dict() for s in state.seats],
        "scores": dict(scores),
        "winners": list(winners),
        "expects": public(expects),
        "log": log_lines(state),
    }


def seat_view(state: Any, seat: str) -> tuple[int, dict[str, Any]]:
    """(index, the start of ``view(state, seat)["mine"]``) for the seat called ``seat``;
    ``ValueError`` (an ``IllegalEvent``) for a seat not at the table."""
    i = seat_index(state.seats, seat)
    return i, {"seat": seat, "colour": state.seats[i].colour}


# --- expects: builders and the validator every engine's output passes -------------------


def field(name: str, kind: str, en: str, ja: str, **more: Any) -> dict[str, Any]:
    """One field of an input (docs/contracts.md, "A Field")."""
    return {"name": name, "kind": kind, "label": text(en, ja), **more}


def option(value: Any, en: str, ja: str) -> dict[str, Any]:
    """One option of a choice or multi field."""
    return {"value": value, "label": text(en, ja)}


def an_input(type_: str, seats: Iterable[str], prompt: Mapping[str, str], fields: Sequence[Mapping[str, Any]] = (),
             secret: bool = False, **more: Any) -> dict[str, Any]:
    """One input of ``expects`` (docs/contracts.md, "An Input")."""
    return {"type": type_, "seats": list(seats), "secret": secret, "prompt": dict(prompt), "fields": list(fields), **more}


def deck_setting(cards_en: str, cards_ja: str) -> dict[str, Any]:
    """The host's choice of a game's ``deck`` option (docs/replay.md): the table
    shuffles and deals, or real cards are turned over and named by the host."""
    return field("deck", "choice", cards_en.capitalize(), cards_ja, default="dealt", options=[
        option("dealt", "shuffled and dealt by the table", "テーブルが混ぜて配る"),
        option("physical", "real cards: the host names each one", "本物のカード（ホストが1枚ずつ入力）")])


def offered_by_seat(inputs: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Each seat named by the inputs, with the inputs it may send (in ``expects`` order)."""
    offered: dict[str, list[Mapping[str, Any]]] = {}
    for inp in inputs:
        for seat in inp.get("seats") or ():
            offered.setdefault(seat, []).append(inp)
    return offered


KINDS = {"number", "choice", "multi", "numbers", "bool", "dice", "picked", "layout", "json"}


def expects_problems(expects: Any, seat_names: Sequence[str]) -> list[str]:
    """What is wrong with an ``expects`` value (empty when it keeps docs/contracts.md)."""
    bad: list[str] = []
    if not isinstance(expects, Mapping) or not isinstance(expects.get("inputs"), list):
        return [f"expects is {short(expects)}; it needs an 'inputs' list"]
    if not isinstance(expects.get("phase"), str):
        bad.append("expects has no phase")
    winners = expects.get("winners")
    if not isinstance(winners, list) or any(w not in seat_names for w in winners):
        bad.append(f"winners {short(winners)} are not seat names")
    for inp in expects["inputs"]:
        where = f"input {inp.get('type')!r}"
        if not isinstance(inp.get("type"), str):
            bad.append(f"{where} has no type")
        if any(s not in seat_names for s in inp.get("seats", [None])):
            bad.append(f"{where} names a seat not at the table: {inp.get('seats')}")
        if not isinstance(inp.get("secret"), bool):
            bad.append(f"{where} does not say whether it is secret")
        prompt = inp.get("prompt")
        if not (isinstance(prompt, Mapping) and prompt.get("en") and prompt.get("ja")):
            bad.append(f"{where} has no prompt in both languages")
        action = inp.get("action")
        if action is not None and not (isinstance(action, Mapping) and action.get("en") and action.get("ja")):
            bad.append(f"{where} has an action not named in both languages")
        for f in inp.get("fields", []):
            fw = f"{where} field {f.get('name')!r}"
            if f.get("kind") not in KINDS:
                bad.append(f"{fw} has an unknown kind {f.get('kind')!r}")
            label = f.get("label")
            if not (isinstance(label, Mapping) and label.get("en") and label.get("ja")):
                bad.append(f"{fw} has no label in both languages")
            for o in f.get("options", []):
                ol = o.get("label") if isinstance(o, Mapping) else None
                if not (isinstance(ol, Mapping) and ol.get("en") and ol.get("ja")):
                    bad.append(f"{fw} has an option without labels in both languages: {short(o)}")
            if f.get("kind") == "choice" and not f.get("options"):
                bad.append(f"{fw} is a choice with no options")
            if f.get("kind") in ("number", "numbers") and not (whole(f.get("min"), -10**9, 10**9) and whole(f.get("max"), f.get("min", 0), 10**9)):
                bad.append(f"{fw} has no whole min <= max")
    for seat, several in offered_by_seat(expects["inputs"]).items():
        if len(several) > 1 and any(inp.get("action") is None for inp in several):
            bad.append(f"{seat} may send {[inp.get('type') for inp in several]} at once, and not every one names its action")
    return bad


@dataclass(frozen=True)
class Command:
    """A ``dicetable`` subcommand a game offers (ALEA's ``odds``, ...); ``pi.cli`` registers
    every game's commands without knowing them.

    ``arguments`` are ``(flags, argparse keyword arguments)`` pairs. ``run(args, out,
    clock)`` writes its report to ``out`` and returns the exit status; ``clock`` (seconds,
    monotonic) is passed in for commands that time something, so engines read no clock.
    """

    name: str
    help: str
    description: str
    arguments: tuple[tuple[tuple[str, ...], Mapping[str, Any]], ...]
    run: Callable[..., int]


# --- PCG32 -----------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005


@dataclass(frozen=True)
class Rng:
    """The state of a PCG32 generator (64-bit state, odd 64-bit increment)."""

    state: int
    inc: int


def rng_seed(seed: int, stream: int = 54) -> Rng:
    """A generator seeded like the reference ``pcg32_srandom_r(seed, stream)``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not -(1 << 63) <= seed < (1 << 63):
        raise DataError(f"the seed must be a whole number from -2**63 to 2**63 - 1, saw {short(seed)}",
                        f"seed は -2**63 から 2**63 - 1 までの整数です（{short(seed)}）")
    inc = ((stream << 1) | 1) & _MASK64
    rng = Rng(0, inc)
    _, rng = rng_next(rng)
    rng = Rng((rng.state + seed) & _MASK64, inc)
    _, rng = rng_next(rng)
    return rng


def rng_next(rng: Rng) -> tuple[int, Rng]:
    """The next 32-bit value and the generator after it."""
    old = rng.state
    new = Rng((old * _MULT + rng.inc) & _MASK64, rng.inc)
    xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
    rot = old >> 59
    value = ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF
    return value, new


def rng_below(rng: Rng, bound: int) -> tuple[int, Rng]:
    """A uniform integer in ``0..bound-1`` (no modulo bias) and the next generator."""
    if bound <= 0:
        raise ValueError(f"bound must be positive, saw {bound}")
    threshold = ((1 << 32) - bound) % bound
    while True:
        value, rng = rng_next(rng)
        if value >= threshold:
            return value % bound, rng


def rng_face(rng: Rng, sides: int = 6) -> tuple[int, Rng]:
    """A die face ``1..sides`` and the next generator."""
    k, rng = rng_below(rng, sides)
    return k + 1, rng


def rng_shuffle(rng: Rng, items: Sequence[Any]) -> tuple[tuple[Any, ...], Rng]:
    """A Fisher-Yates shuffle of ``items`` as a new tuple, and the next generator."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, rng = rng_below(rng, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), rng


# --- replay ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """What happened to one event of a replay: accepted, or refused with the reason."""

    event: Any
    accepted: bool
    error: str | None = None


def replay(
    game: ModuleType,
    seats: Sequence[Seat | Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int,
    events: Iterable[Any],
) -> tuple[Any, list[ReplayStep]]:
    """Set a game up and apply each event in turn; refused events change nothing.

    Returns the final state and one ``ReplayStep`` per event. ``setup`` errors
    (``SetupError``) propagate: without a game there is nothing to replay.
    """
    state = game.setup(seats, dict(options or {}), seed)
    steps = []
    for event in events:
        try:
            state = game.apply(state, event)
        except IllegalEvent as exc:
            steps.append(ReplayStep(event, False, str(exc)))
        else:
            steps.append(ReplayStep(event, True))
    return state, steps
