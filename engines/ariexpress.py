"""Ari Express (アリ急行): ants lay tapes of printed die faces between their nests, 2-5 players.

The rules are RULES.md section 4 and the Ari Express section of SCRIPTS.md (binding).
Four colours have two nests each (``"red-1"``, ``"red-2"``, ...; option ``nests``, data
file ``engines/data/ariexpress.toml``). Tapes are numbered 1, 2, ... as they are built;
square ``"t3.2"`` is the 2nd printed face of tape 3 from its ``from`` end. A tape's squares
follow each other; its ``from`` end joins its first square and its ``to`` end its last, to
a nest, to a square of an earlier tape (a junction) or to nothing (``null``, a loose end).

A turn: the turn player throws every die in hand (players + 1, one more per complete
colour from the next throw on, at most players + 3), keeps all but one die per other
player and spends every kept die, in any order:
  build (2 dice, any faces): a new tape; the builder's workers go on its first and last
  squares; with two equal dice also a bonus worker on an empty square of that face (the
  new tape's included), which may be declined;
  place (1 die): a worker on an empty square showing the die's face;
  build with 1 die, or pass (spend it for nothing): only when no empty square shows its face.
Then each other seat, clockwise from the turn player's left, takes one of the dice handed
on and spends it the same way (one die: place, or build / pass when no square fits). Then
the next seat throws.

A colour is complete when some route from one of its nests to the other (squares only,
no square twice, never through a nest) has a worker on every square. Colours are checked
after every build and place; the game ends at once when 3 are complete (all 4 count if the
ending action completed two). Score: per complete colour, each seat's longest run of its
own consecutive workers on any complete route of that colour (``engines/ariexpress_routes.py``
finds it exactly, without listing the routes); the top score wins, ties share.

Decisions where RULES.md and SCRIPTS.md are silent (written here as the rules ask):
- A throw's dice are shared: their colour is not checked, only their number and faces.
- A tape may join a square of the tape it continues (both ends on one tape are refused only
  when they are the same square), and several tapes may join one square or one nest.
- The turn player may spend the kept dice one at a time in any order, so the two dice of a
  build must both still be unspent when the build is made.
- ``runs`` and ``scores`` are shown while the game runs too (the standing if it ended now).

Events (docs/replay.md):
  ``{"type": "throw", "seat": "Aki", "dice": [["white", 3], ...]}``
  ``{"type": "keep", "seat": "Aki", "dice": [3, 5]}``
  ``{"type": "build", "seat": "Aki", "dice": [2, 2], "tape": {"faces": [6, 2, 5, 1], "from": "red-1", "to": "t1.3"}, "bonus": "t2.2"}``
  ``{"type": "place", "seat": "Ben", "die": 4, "square": "t1.2"}``
  ``{"type": "pass", "seat": "Ben", "die": 4}``
"""
from __future__ import annotations

import json
import math
import platform
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines import ariexpress_routes as routes
from engines.core import Command, IllegalEvent, Seat, SetupError, dice_from, event_kind, event_text, read_toml, replace, seats_from, text

GAME = "ariexpress"
TITLE = {"en": "Ari Express", "ja": "アリ急行"}
MIN_SEATS = 2
MAX_SEATS = 5
DATA_FILE = "data/ariexpress.toml"
OPTIONS = ("nests",)
END_AT = 3  # complete colours that end the game
FACES = range(1, 7)


class DataError(ValueError):
    """Nest colours that cannot be played; the message names the file and entry."""


# --- data --------------------------------------------------------------------------------


def nests_from(raw: Any, where: str) -> tuple[str, ...]:
    """The four nest colours of a data file or option, checked."""
    if (not isinstance(raw, list) or len(raw) != 4
            or not all(isinstance(c, str) and c.strip() and c == c.strip() and "-" not in c for c in raw)):
        raise DataError(f"{where}: 'nests' must be a list of 4 colour names like [\"red\", \"blue\", \"yellow\", \"green\"] "
                        f"(no spaces or '-'), saw {raw!r}")
    if len(set(raw)) != 4:
        raise DataError(f"{where}: the 4 nest colours must differ, saw {raw!r}")
    return tuple(raw)


@lru_cache(maxsize=1)
def _default_data() -> tuple[tuple[str, ...], dict[str, str]]:
    return load_data(None)


def load_data(path: str | Path | None = None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The nest colours and the colours' Japanese names of a TOML file (default: packaged)."""
    where, data = read_toml(DATA_FILE, path, DataError)
    nests = nests_from(data.get("nests"), where)
    names = data.get("names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) and v for v in names.values()):
        raise DataError(f"{where}: [names] maps a colour to its Japanese name, e.g. red = \"赤\"; saw {names!r}")
    missing = [c for c in nests if c not in names]
    if missing:
        raise DataError(f"{where}: [names] has no Japanese name for nest colour(s) {', '.join(missing)}")
    return nests, dict(names)


def colour_ja(colour: str) -> str:
    return _default_data()[1].get(colour, colour)


# --- state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A game of Ari Express. Seat-indexed tuples follow ``seats``."""

    seats: tuple[Seat, ...]
    options: str  # the options as given, JSON text
    seed: int
    nests: tuple[str, ...]  # the 4 colours, in order
    tapes: tuple[tuple[tuple[int, ...], str | None, str | None], ...] = ()  # (faces, from, to)
    owners: tuple[tuple[int, ...], ...] = ()  # per tape, per square: seat index or -1
    phase: str = "throw"  # throw, keep, turn, others, over
    turn: int = 0  # the turn player
    due: int | None = 0  # the seat that acts next
    thrown: tuple[int, ...] = ()  # the turn's throw (faces)
    kept: tuple[int, ...] = ()  # the turn player's kept dice not spent yet
    handed: tuple[int, ...] = ()  # dice handed on, not taken yet
    complete: tuple[str, ...] = ()  # complete colours, in nests order
    winners: tuple[int, ...] = ()
    events: tuple[str, ...] = ()
    log: tuple[tuple[str, str], ...] = ()


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: the first seat throws, no tape yet."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise SetupError(f"options must be an object like {{\"nests\": [...]}}, saw {options!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SetupError(f"unknown option(s) {unknown} for ariexpress; the only option is nests (4 colours)")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SetupError(f"the seed must be an integer, saw {seed!r}")
    try:
        nests = nests_from(options["nests"], "option nests") if "nests" in options else _default_data()[0]
    except DataError as exc:
        raise SetupError(str(exc)) from None
    state = State(seats=table_seats, options=json.dumps(dict(options), sort_keys=True, ensure_ascii=False),
                  seed=seed, nests=nests)
    first = table_seats[0].name
    return _say(state, f"Ari Express for {len(table_seats)}: {first} throws {dice_count(state)} dice",
                f"アリ急行 {len(table_seats)}人: {first}がダイス{dice_count(state)}個を振ります")


# --- the network -------------------------------------------------------------------------


def dice_count(state: State) -> int:
    """Dice the next throw holds: players + 1, +1 per complete colour, at most players + 3."""
    n = len(state.seats)
    return min(n + 1 + len(state.complete), n + 3)


def nest_names(state: State) -> list[str]:
    return [f"{c}-{k}" for c in state.nests for k in (1, 2)]


def square_name(tape: int, k: int) -> str:
    """Square ``k`` (0-based) of tape ``tape`` (0-based) as scripts write it: ``t1.1``."""
    return f"t{tape + 1}.{k + 1}"


def squares(state: State) -> list[tuple[str, int, int | None]]:
    """Every square: (name, printed face, seat index or None)."""
    return [(square_name(t, k), face, None if state.owners[t][k] < 0 else state.owners[t][k])
            for t, (faces, _, _) in enumerate(state.tapes) for k, face in enumerate(faces)]


def _square_at(state: State, name: Any) -> tuple[int, int] | None:
    """(tape, index) of a square name like ``t2.3``; None when there is no such square."""
    if not isinstance(name, str) or not name.startswith("t") or "." not in name:
        return None
    tape, _, k = name[1:].partition(".")
    if not (tape.isdigit() and k.isdigit()):
        return None
    t, i = int(tape) - 1, int(k) - 1
    # only the name as written by square_name: "t01.2" or other digits would reach graph() unknown
    if 0 <= t < len(state.tapes) and 0 <= i < len(state.tapes[t][0]) and square_name(t, i) == name:
        return t, i
    return None


def open_squares(state: State, face: int) -> list[str]:
    """The empty squares showing ``face``."""
    return [name for name, f, who in squares(state) if f == face and who is None]


def graph(state: State) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], list[str]]:
    """The network for ``ariexpress_routes``: adjacency over nodes (0-7 the nests, colour c
    at 2c and 2c + 1; then every square), owner per node (-1: nest or empty), node names."""
    names = nest_names(state)
    node = {n: i for i, n in enumerate(names)}
    owner = [-1] * len(names)
    for t, (faces, _, _) in enumerate(state.tapes):
        for k in range(len(faces)):
            node[square_name(t, k)] = len(names)
            names.append(square_name(t, k))
            owner.append(state.owners[t][k])
    adj: list[set[int]] = [set() for _ in names]

    def join(a: int, b: int) -> None:
        adj[a].add(b)
        adj[b].add(a)

    for t, (faces, start, end) in enumerate(state.tapes):
        first = node[square_name(t, 0)]
        for k in range(1, len(faces)):
            join(first + k - 1, first + k)
        if start is not None:
            join(node[start], first)
        if end is not None:
            join(node[end], first + len(faces) - 1)
    return tuple(tuple(sorted(a)) for a in adj), tuple(owner), names


@lru_cache(maxsize=64)
def _runs(adj: tuple[tuple[int, ...], ...], owner: tuple[int, ...], colour: int, seats: int) -> tuple[int, ...] | None:
    return routes.best_runs(adj, owner, 2 * colour, 2 * colour + 1, seats)


def _complete_colours(state: State) -> tuple[str, ...]:
    adj, owner, _ = graph(state)
    return tuple(c for i, c in enumerate(state.nests) if routes.complete(adj, owner, 2 * i, 2 * i + 1))


def runs(state: State) -> dict[str, dict[str, int]]:
    """Per complete colour, each seat's longest run on any complete route of that colour."""
    adj, owner, _ = graph(state)
    names = _names(state)
    out = {}
    for c in state.complete:
        got = _runs(adj, owner, state.nests.index(c), len(names)) or (0,) * len(names)
        out[c] = dict(zip(names, got))
    return out


def scores(state: State) -> dict[str, int]:
    per = runs(state)
    return {name: sum(r[name] for r in per.values()) for name in _names(state)}


def complete_routes(state: State, limit: int = 4) -> dict[str, list[list[str]]]:
    """Per complete colour, up to ``limit`` of its complete routes (squares in order)."""
    adj, owner, names = graph(state)
    out = {}
    for c in state.complete:
        i = state.nests.index(c)
        out[c] = [[names[x] for x in path] for path in routes.routes(adj, owner, 2 * i, 2 * i + 1, limit)]
    return out


# --- small helpers -----------------------------------------------------------------------


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _say(state: State, en: str, ja: str) -> State:
    return replace(state, log=state.log + ((en, ja),))


def _seat_index(state: State, name: Any) -> int:
    for i, seat in enumerate(state.seats):
        if seat.name == name:
            return i
    raise IllegalEvent(f"unknown seat {name!r}; the seats are {', '.join(_names(state))}")


def _faces_text(faces: Sequence[int]) -> str:
    return " ".join(str(f) for f in faces) or "none"


def _take(held: tuple[int, ...], faces: Sequence[int], who: str, what: str) -> tuple[int, ...]:
    """``held`` without ``faces`` (each once); IllegalEvent when a face is not held."""
    left = Counter(held)
    for f in faces:
        if left[f] <= 0:
            raise IllegalEvent(f"{who} does not hold a {f} to {what}; the dice {who} may spend now: {_faces_text(held)}")
        left[f] -= 1
    out = list(held)
    for f in faces:
        out.remove(f)
    return tuple(out)


def _face(raw: Any, what: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw not in FACES:
        raise IllegalEvent(f"{what} must be a die face 1-6, saw {raw!r}")
    return raw


def _faces(raw: Any, what: str) -> list[int]:
    if not isinstance(raw, list):
        raise IllegalEvent(f"{what} must be a list of die faces 1-6, saw {raw!r}")
    return [_face(f, f"{what}: each face") for f in raw]


def _waiting_for(state: State) -> str:
    if state.phase == "over":
        return "the game is over"
    assert state.due is not None
    who = state.seats[state.due].name
    return {
        "throw": f"the table is waiting for {who} to throw {dice_count(state)} dice",
        "keep": f"the table is waiting for {who} to keep {len(state.thrown) - len(state.seats) + 1} of {_faces_text(state.thrown)}",
        "turn": f"the table is waiting for {who} to spend the kept dice {_faces_text(state.kept)} (build, place or pass)",
        "others": f"the table is waiting for {who} to take one of the dice handed on ({_faces_text(state.handed)}) "
                  "and place, build or pass with it",
    }[state.phase]


# --- expects -----------------------------------------------------------------------------


def _opt(value: Any, en: str, ja: str | None = None) -> dict[str, Any]:
    return {"value": value, "label": text(en, ja if ja is not None else en)}


def _end_options(state: State) -> list[dict[str, Any]]:
    out = [_opt(None, "nothing (a loose end)", "なし（端を開けておく）")]
    for n in nest_names(state):
        colour, _, k = n.rpartition("-")
        out.append(_opt(n, f"nest {n}", f"巣 {colour_ja(colour)}{k}"))
    for name, face, who in squares(state):
        out.append(_opt(name, f"square {name} ({face})", f"マス {name}（{face}）"))
    return out


def _bonus_options(state: State) -> list[dict[str, Any]]:
    """No bonus, every empty square, and the inner squares of the tape about to be built."""
    out = [_opt(None, "no bonus", "なし")]
    out += [_opt(n, f"square {n} ({f})", f"マス {n}（{f}）") for n, f, who in squares(state) if who is None]
    t = len(state.tapes)
    out += [_opt(square_name(t, k), f"new tape, square {k + 1}", f"新しいテープの{k + 1}マス目") for k in range(1, 8)]
    return out


def _spend_inputs(state: State, seat: str, held: tuple[int, ...], two: bool) -> list[dict[str, Any]]:
    """place / build / pass inputs for a seat holding ``held`` (``two``: may build with 2)."""
    faces = sorted(set(held))
    blocked = [f for f in faces if not open_squares(state, f)]
    fits = [f for f in faces if f not in blocked]
    targets = [name for name, f, who in squares(state) if who is None and f in fits]
    out: list[dict[str, Any]] = []
    if fits:
        out.append({
            "type": "place", "seats": [seat], "secret": False,
            "prompt": text(f"{seat}: place a worker with one die on an empty square of its face.",
                           f"{seat}: ダイス1個で、その目の空きマスに働きアリを置いてください。"),
            "fields": [
                {"name": "die", "kind": "choice", "label": text("Die", "ダイス"),
                 "options": [_opt(f, str(f)) for f in fits]},
                {"name": "square", "kind": "choice", "label": text("Square", "マス"),
                 "options": [_opt(n, f"{n} ({f})", f"{n}（{f}）") for n, f, who in squares(state) if n in targets]},
            ],
        })
    many = two and len(held) >= 2
    build_faces = faces if many else blocked
    if build_faces:
        out.append({
            "type": "build", "seats": [seat], "secret": False,
            "prompt": text(
                f"{seat}: build a tape with {'two dice (any faces) or ' if many else ''}one die no empty square shows; "
                "your workers go on its first and last squares.",
                f"{seat}: {'ダイス2個（目は自由）か、' if many else ''}空きマスのない目のダイス1個でテープを敷いてください。"
                "最初と最後のマスに働きアリを置きます。"),
            "fields": [
                {"name": "dice", "kind": "multi", "repeat": True, "min": 1, "max": 2 if many else 1,
                 "label": text("Dice", "ダイス"), "options": [_opt(f, str(f)) for f in build_faces]},
                {"name": "tape.faces", "kind": "numbers", "min": 1, "max": 6,
                 "label": text("Printed faces, from one end to the other", "印刷された目（端から順に）")},
                {"name": "tape.from", "kind": "choice", "label": text("First end joins", "始点の接続先"),
                 "options": _end_options(state)},
                {"name": "tape.to", "kind": "choice", "label": text("Last end joins", "終点の接続先"),
                 "options": _end_options(state)},
                {"name": "bonus", "kind": "choice", "default": None, "options": _bonus_options(state),
                 "label": text("Two equal dice: a bonus worker on", "ゾロ目のボーナス: 働きアリを置くマス")},
            ],
        })
    if blocked:
        out.append({
            "type": "pass", "seats": [seat], "secret": False,
            "prompt": text(f"{seat}: or spend a die no empty square shows without building.",
                           f"{seat}: または空きマスのない目のダイスを使わずに捨ててください。"),
            "fields": [{"name": "die", "kind": "choice", "label": text("Die", "ダイス"),
                        "options": [_opt(f, str(f)) for f in blocked]}],
        })
    return out


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = _names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": [names[i] for i in state.winners]}
    if state.phase == "over":
        return out
    assert state.due is not None
    who = names[state.due]
    if state.phase == "throw":
        n = dice_count(state)
        out["inputs"].append({
            "type": "throw", "seats": [who], "secret": False,
            "prompt": text(f"{who}: throw all {n} dice.", f"{who}: ダイス{n}個をすべて振ってください。"),
            "fields": [{"name": "dice", "kind": "dice", "label": text("Dice", "ダイス")}],
            "dice": [{"colour": "*", "sides": 6, "count": n}],
            "camera": "all",
        })
    elif state.phase == "keep":
        keep = len(state.thrown) - len(names) + 1
        out["inputs"].append({
            "type": "keep", "seats": [who], "secret": False,
            "prompt": text(f"{who}: keep {keep} dice; the other {len(names) - 1} go to the other players.",
                           f"{who}: ダイスを{keep}個残してください。残り{len(names) - 1}個は他のプレイヤーへ。"),
            "fields": [{"name": "dice", "kind": "multi", "repeat": True, "min": keep, "max": keep,
                        "label": text("Dice to keep", "残すダイス"),
                        "options": [_opt(f, str(f)) for f in sorted(set(state.thrown))]}],
        })
    elif state.phase == "turn":
        out["inputs"].extend(_spend_inputs(state, who, state.kept, two=True))
    else:
        out["inputs"].extend(_spend_inputs(state, who, state.handed, two=False))
    return out


# --- apply -------------------------------------------------------------------------------

_KEYS = {
    "throw": ({"seat", "dice"}, set()),
    "keep": ({"seat", "dice"}, set()),
    "build": ({"seat", "dice", "tape"}, {"bonus"}),
    "place": ({"seat", "die", "square"}, set()),
    "pass": ({"seat", "die"}, set()),
}
_PHASE_OF = {"throw": ("throw",), "keep": ("keep",), "build": ("turn", "others"),
             "place": ("turn", "others"), "pass": ("turn", "others")}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    kind = event_kind(event, _KEYS)
    if state.phase == "over":
        raise IllegalEvent(f"the game is over ({_end_text(state)}); no event is expected")
    i = _seat_index(state, event["seat"])
    if state.phase not in _PHASE_OF[kind]:
        raise IllegalEvent(f"saw a {kind} by {state.seats[i].name}, but {_waiting_for(state)}")
    if i != state.due:
        raise IllegalEvent(f"{state.seats[i].name} is not due: {_waiting_for(state)}")
    new = {"throw": _throw, "keep": _keep, "build": _build, "place": _place, "pass": _pass}[kind](state, i, event)
    return replace(new, events=state.events + (event_text(event),))


def _end_text(state: State) -> str:
    names = _names(state)
    return " and ".join(names[i] for i in state.winners) + " won" if state.winners else "nobody won"


def _throw(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    dice = dice_from(event["dice"])
    n = dice_count(state)
    if len(dice) != n:
        raise IllegalEvent(f"{name} throws all {n} dice in hand; saw {len(dice)}")
    faces = tuple(d.face for d in dice)
    state = replace(state, phase="keep", thrown=faces)
    return _say(state, f"{name} threw {_faces_text(faces)}", f"{name}が{_faces_text(faces)}を振った")


def _keep(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    keep = _faces(event["dice"], "keep: dice")
    count = len(state.thrown) - len(state.seats) + 1
    if len(keep) != count:
        raise IllegalEvent(f"{name} keeps {count} of the {len(state.thrown)} dice thrown "
                           f"(one goes to each other player); saw {len(keep)}")
    handed = _take(state.thrown, keep, name, "keep")
    state = replace(state, phase="turn", kept=tuple(keep), handed=handed)
    return _say(state, f"{name} kept {_faces_text(keep)} and hands on {_faces_text(handed)}",
                f"{name}は{_faces_text(keep)}を残し、{_faces_text(handed)}を渡した")


def _held(state: State) -> tuple[int, ...]:
    return state.kept if state.phase == "turn" else state.handed


def _spend(state: State, faces: Sequence[int]) -> State:
    """Remove spent dice from the turn player's kept dice or the dice handed on, then move on."""
    who = state.seats[state.due].name  # type: ignore[index]
    if state.phase == "turn":
        state = replace(state, kept=_take(state.kept, faces, who, "spend"))
    else:
        state = replace(state, handed=_take(state.handed, faces, who, "spend"))
    return state


def _advance(state: State) -> State:
    """After a die is spent: the next seat due, the next phase, or the next turn."""
    if state.phase == "over":
        return state
    n = len(state.seats)
    if state.phase == "turn":
        if state.kept:
            return state
        return replace(state, phase="others", due=(state.turn + 1) % n)
    nxt = (state.due + 1) % n  # type: ignore[operator]
    if nxt != state.turn and state.handed:
        return replace(state, due=nxt)
    turn = (state.turn + 1) % n
    state = replace(state, phase="throw", turn=turn, due=turn, thrown=(), kept=(), handed=())
    name = state.seats[turn].name
    return _say(state, f"{name}'s turn: throw {dice_count(state)} dice", f"{name}の番: ダイス{dice_count(state)}個を振ってください")


def _check_completion(state: State) -> State:
    now = _complete_colours(state)
    new = [c for c in now if c not in state.complete]
    if not new:
        return state
    state = replace(state, complete=now)
    state = _say(state, f"{', '.join(new)} complete: {len(now)} of 4 colours",
                 f"{'・'.join(colour_ja(c) for c in new)}のルートが完成（{len(now)}/4色）")
    if len(now) < END_AT:
        return state
    board = scores(state)
    top = max(board.values())
    winners = tuple(k for k, name in enumerate(_names(state)) if board[name] == top)
    state = replace(state, phase="over", due=None, winners=winners)
    names = " and ".join(state.seats[k].name for k in winners)
    return _say(state, f"The game is over: {names} won with {top}", f"ゲーム終了: {names}の勝ち（{top}点）")


def _die_to_spend(state: State, raw: Any, who: str) -> int:
    face = _face(raw, "die")
    _take(_held(state), [face], who, "spend")
    return face


def _place(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    face = _die_to_spend(state, event["die"], name)
    t, k = _empty_square(state, event["square"], face, "place")
    state = _spend(state, [face])
    state = replace(state, owners=_own(state.owners, t, k, i))
    state = _say(state, f"{name} placed a worker on {event['square']} with a {face}",
                 f"{name}が{face}で{event['square']}に働きアリを置いた")
    return _advance(_check_completion(state))


def _pass(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    face = _die_to_spend(state, event["die"], name)
    fits = open_squares(state, face)
    if fits:
        raise IllegalEvent(f"{name} may not pass a {face}: empty square(s) {', '.join(fits)} show {face}; place there")
    state = _say(_spend(state, [face]), f"{name} passed a {face}", f"{name}は{face}をパスした")
    return _advance(state)


def _empty_square(state: State, square: Any, face: int, what: str) -> tuple[int, int]:
    at = _square_at(state, square)
    if at is None:
        known = ", ".join(n for n, _, _ in squares(state)) or "none yet"
        raise IllegalEvent(f"{what}: there is no square {square!r}; the squares are {known}")
    t, k = at
    if state.owners[t][k] >= 0:
        raise IllegalEvent(f"{what}: square {square} is taken by {state.seats[state.owners[t][k]].name}; "
                           f"empty squares showing {face}: {', '.join(open_squares(state, face)) or 'none'}")
    if state.tapes[t][0][k] != face:
        raise IllegalEvent(f"{what}: square {square} shows {state.tapes[t][0][k]}, not {face}; "
                           f"empty squares showing {face}: {', '.join(open_squares(state, face)) or 'none'}")
    return t, k


def _own(owners: tuple[tuple[int, ...], ...], t: int, k: int, seat: int) -> tuple[tuple[int, ...], ...]:
    row = owners[t][:k] + (seat,) + owners[t][k + 1:]
    return owners[:t] + (row,) + owners[t + 1:]


def _end(state: State, raw: Any, which: str) -> str | None:
    if raw is None:
        return None
    if raw in nest_names(state) or _square_at(state, raw) is not None:
        return raw
    raise IllegalEvent(f"build: tape end '{which}' is {raw!r}; expected a nest ({', '.join(nest_names(state))}), "
                       "a built square like t1.2, or null for a loose end")


def _build(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    dice = _faces(event["dice"], "build: dice")
    if len(dice) not in (1, 2):
        raise IllegalEvent(f"build: a tape takes 2 dice, or 1 die whose face no empty square shows; saw {len(dice)}")
    _take(_held(state), dice, name, "build with")
    if len(dice) == 2 and state.phase != "turn":
        raise IllegalEvent(f"{name} builds with two dice only on their own turn; with a die handed on, "
                           "build with that one die (when no empty square shows it)")
    if len(dice) == 1:
        fits = open_squares(state, dice[0])
        if fits:
            raise IllegalEvent(f"{name} may not build with one {dice[0]}: empty square(s) {', '.join(fits)} "
                               f"show {dice[0]}; place there, or build with two dice")
    tape = event["tape"]
    if not isinstance(tape, Mapping) or set(tape) != {"faces", "from", "to"}:
        raise IllegalEvent(f"build: tape is {{\"faces\": [...], \"from\": end, \"to\": end}} (an end: a nest, "
                           f"a square like t1.2, or null for a loose end), saw {tape!r}")
    faces = _faces(tape["faces"], "build: tape faces")
    if len(faces) < 2:
        raise IllegalEvent(f"build: a tape has at least 2 squares, saw {len(faces)}")
    start, end = _end(state, tape.get("from"), "from"), _end(state, tape.get("to"), "to")
    if start is not None and start == end:
        raise IllegalEvent(f"build: both ends of a tape join {start}; join them to two different places")
    bonus = event.get("bonus")
    if bonus is not None and not (len(dice) == 2 and dice[0] == dice[1]):
        raise IllegalEvent(f"build: a bonus worker comes only with two equal dice; saw {_faces_text(dice)}")
    t = len(state.tapes)
    owners = (i,) + (-1,) * (len(faces) - 2) + (i,)
    built = replace(state, tapes=state.tapes + ((tuple(faces), start, end),), owners=state.owners + (owners,))
    if bonus is not None:
        bt, bk = _empty_square(built, bonus, dice[0], "bonus")
        built = replace(built, owners=_own(built.owners, bt, bk, i))
    state = _spend(built, dice)
    ends = f"{start or 'nothing'} to {end or 'nothing'}"
    extra = f", bonus worker on {bonus}" if bonus is not None else ""
    state = _say(state, f"{name} built tape {t + 1} ({_faces_text(faces)}) from {ends}{extra}",
                 f"{name}がテープ{t + 1}（{_faces_text(faces)}）を敷いた: {start or 'なし'}〜{end or 'なし'}"
                 + (f"、ボーナスで{bonus}" if bonus is not None else ""))
    return _advance(_check_completion(state))


# --- view --------------------------------------------------------------------------------


def drawing(state: State) -> dict[str, Any]:
    """Where the page draws each nest and square (a 100 x 100 box) and the lines between
    them: nests on a circle, a colour's two nests facing each other; a tape's squares
    follow a curve between its ends (bowed by its number so tapes between the same places
    stay apart), or run outward from its one joined end."""
    at: dict[str, tuple[float, float]] = {}
    for c in range(len(state.nests)):
        for k in (0, 1):
            a = math.radians(c * 45 + k * 180 - 90)
            at[f"{state.nests[c]}-{k + 1}"] = (50 + 44 * math.cos(a), 50 + 44 * math.sin(a))
    for t, (faces, start, end) in enumerate(state.tapes):
        n = len(faces)
        p = at.get(start) if start is not None else None
        q = at.get(end) if end is not None else None
        if p is None and q is None:
            a = math.radians(t * 67)
            p = (50 + 18 * math.cos(a), 50 + 18 * math.sin(a))
        points: list[tuple[float, float]] = []
        if p is not None and q is not None:
            bow = ((t % 5) - 2) * 8.0
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            dx, dy = q[0] - p[0], q[1] - p[1]
            norm = math.hypot(dx, dy) or 1.0
            cx, cy = mx - dy / norm * bow, my + dx / norm * bow
            for k in range(n):
                u = (k + 1) / (n + 1)
                points.append(((1 - u) ** 2 * p[0] + 2 * u * (1 - u) * cx + u * u * q[0],
                               (1 - u) ** 2 * p[1] + 2 * u * (1 - u) * cy + u * u * q[1]))
        else:
            base = p if p is not None else q
            assert base is not None
            a = math.atan2(50 - base[1], 50 - base[0]) + math.radians(((t % 7) - 3) * 20)
            step = min(7.0, 40.0 / n)
            line = [(base[0] + step * (k + 1) * math.cos(a), base[1] + step * (k + 1) * math.sin(a)) for k in range(n)]
            points = line if p is not None else line[::-1]
        for k, (x, y) in enumerate(points):
            at[square_name(t, k)] = (min(97.0, max(3.0, x)), min(97.0, max(3.0, y)))
    adj, _, names = graph(state)
    edges = sorted({(min(a, b), max(a, b)) for a in range(len(adj)) for b in adj[a]})
    return {"at": {n: [round(x, 1), round(y, 1)] for n, (x, y) in at.items()},
            "edges": [[names[a], names[b]] for a, b in edges]}



def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game for the pages and replay (SCRIPTS.md keys and the network to draw)."""
    names = _names(state)
    out: dict[str, Any] = {
        "game": GAME,
        "phase": state.phase,
        "due": None if state.due is None else names[state.due],
        "turn": names[state.turn],
        "dice": dice_count(state),
        "complete": list(state.complete),
        "workers": {n: names[who] for n, _, who in squares(state) if who is not None},
        "runs": runs(state),
        "scores": scores(state),
        "winners": [names[i] for i in state.winners],
        "seats": [{"name": s.name, "colour": s.colour} for s in state.seats],
        "nests": [{"colour": c, "ja": colour_ja(c), "nests": [f"{c}-1", f"{c}-2"]} for c in state.nests],
        "thrown": list(state.thrown),
        "kept": list(state.kept),
        "handed": list(state.handed),
        "tapes": [{"id": t + 1, "faces": list(faces), "from": start, "to": end,
                   "squares": [{"name": square_name(t, k), "face": f,
                                "worker": None if state.owners[t][k] < 0 else names[state.owners[t][k]]}
                               for k, f in enumerate(faces)]}
                  for t, (faces, start, end) in enumerate(state.tapes)],
        "routes": complete_routes(state),
        "drawing": drawing(state),
        "log": [{"en": en, "ja": ja} for en, ja in state.log],
    }
    held = _held(state) if state.phase in ("turn", "others") else ()
    out["open"] = sorted({n for f in set(held) for n in open_squares(state, f)})
    if seat is not None:
        out["mine"] = {}
    return out


# --- dicetable ariexpress-bench ------------------------------------------------------------


class _OverBudget(Exception):
    pass


def run_bench(args: Any, out: Any, clock: Any) -> int:
    """``dicetable ariexpress-bench``: scoring time on seeded random networks as they grow."""
    sizes = [(25, 4), (50, 8), (100, 15), (200, 30), (300, 45), (400, 60)]
    runs_n = max(1, int(args.runs))
    out.write(f"Ari Express exact scoring: the longest runs of {args.seats} seats on 4 colours, every square "
              f"occupied, {runs_n} seeded random networks per size (budget {args.budget:g} s per network)\n")
    out.write(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    out.write(f"{'squares':>8} {'junctions':>9} {'median ms':>10} {'max ms':>10}  over budget\n")
    for n_squares, n_junctions in sizes:
        if n_squares > args.max_squares:
            break
        times: list[float] = []
        over = 0
        for seed in range(runs_n):
            net = routes.random_network(seed, n_squares, n_junctions, seats=args.seats)
            start = clock()

            def tick() -> None:
                if clock() - start > args.budget:
                    raise _OverBudget

            try:
                for c in range(4):
                    routes.best_runs(net.adj, net.owner, 2 * c, 2 * c + 1, args.seats, tick)
            except _OverBudget:
                over += 1
                continue
            times.append((clock() - start) * 1000)
        median = f"{statistics.median(times):10.1f}" if times else f"{'-':>10}"
        worst = f"{max(times):10.1f}" if times else f"{'-':>10}"
        out.write(f"{n_squares:>8} {net.junctions:>9} {median} {worst}  {over} of {runs_n}\n")
        out.flush()
    return 0


COMMANDS = (
    Command(
        name="ariexpress-bench",
        help="time the exact Ari Express scoring on seeded random networks as they grow",
        description="Score 4 colours (every square occupied by random seats) on seeded random networks "
        "of 25 to 400 squares with as many junctions in proportion, and print the median and the "
        "slowest time per size, with the machine; a network that takes longer than the budget is counted, not timed.",
        arguments=(
            (("--runs",), {"type": int, "default": 5, "help": "networks per size (default 5)"}),
            (("--seats",), {"type": int, "default": 4, "help": "seats owning the workers (default 4)"}),
            (("--max-squares",), {"type": int, "default": 400, "help": "stop after this size (default 400)"}),
            (("--budget",), {"type": float, "default": 10.0,
                             "help": "seconds one network may take before it counts as over budget (default 10)"}),
        ),
        run=run_bench,
    ),
)
