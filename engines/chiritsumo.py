"""Chiritsumo (ちりつも): dice stacked into pyramids, 1 to 4 players.

The rules are RULES.md section 3 and the Chiritsumo section of SCRIPTS.md (binding). Each
round every player throws all the dice they hold (clear 透明, yellow 黄, red 赤, blue 青;
ten six-sided dice) and builds (積む) a pyramid of 4, 3, 2 and 1 places from them; the
pyramid scores its patterns (役: mountain 山, river 河, wing 翼, Fuji 富士) and, when
complete (完成), 3 x its apex face. The building rules, the patterns and the best
pyramid are in ``engines/chiritsumo_pyramid.py`` (``check_layout``, ``score_pyramid``,
``best_pyramid``), re-exported here.

Modes (option ``mode``, the only option; default by the number of seats):
  ``garden`` (箱庭), 2-4 seats: each starts with clear 1, yellow 3, red 3, blue 3. After
  every seat has built, a Fuji wins at once (all Fuji builders share it). Otherwise the
  seats with a complete pyramid exchange (とばっ塵) in order of the round's score, high to
  low (ties: more clear dice, then the clear die in the higher row, then the next, then
  seat order): each swaps one of its dice for a die of another colour of any other seat
  or of the dust pile (塵の山: with 2 seats clear 2, yellow 3, red 3, blue 3; with 3 seats
  clear 1, yellow 2, red 2, blue 2), but not with the seat that made the last exchange
  of this round; or passes. A seat holding 4 clear dice after an exchange wins at once
  (ちりつも). Otherwise the round's scores are added; above 30 the highest total wins
  (ties share).
  ``solo`` (ちりが積もるまで), 1 seat: the same dice and 3 clear dice in reserve. After a
  complete pyramid the seat must swap one coloured die for a reserve clear one; the round
  after the 4th clear die is the last. Rank: none below 15, dust heap 15-20, hill 21-30,
  mountain 31-35, great mountain 36-40, Mt. Fuji 41+.

Events (docs/replay.md, "Chiritsumo events, by example"):
  ``{"type": "throw", "seat": "Aki", "dice": [["clear", 2], ["yellow", 4], ...]}``
  ``{"type": "build", "seat": "Aki", "rows": [[4 dice or null], [3], [2], [1]]}``
  ``{"type": "exchange", "seat": "Ben", "with": "Aki", "give": "red", "take": "clear"}``
  ``{"type": "pass", "seat": "Ben"}``
  ``{"type": "swap", "seat": "Aki", "give": "blue"}``             (solo)
Any event may carry a ``"comment"``.

Phases: ``play`` (throws and builds, in any order, each seat throwing once a round and
building after its own throw), ``exchange`` (garden), ``swap`` (solo), ``over``.

Decisions where RULES.md and SCRIPTS.md are silent (following the original text):
- A seat's pyramid, throw and pattern list stay in the view until it throws again, so
  the page can show the last round while the next one starts.
- The clear dice compared for the exchange order are those in the pyramid (a complete
  pyramid holds all of a seat's dice, so they are its clear dice).
- The game holds exactly 4 clear dice in the garden (seats plus pile), so a ちりつも is
  one seat holding all of them.
- A solo game goes on until the fourth clear die is swapped in, however many rounds
  that takes (the original has no other end).
- The view shows, for each built pyramid, the best pyramid the same throw allowed
  (computed once per throw and cached), for the page to show after the round.
- A die in a build is ``["red", 4]`` or ``{"colour": "red", "face": 4}``; error messages
  count rows and places from 1 at the bottom left (``row 2 place 3``), views and
  ``check_layout`` places from 0 (``[1, 2]``).
- The seed is unused: every die is physical, nothing is shuffled.
SCRIPTS.md settles the rest: Fuji is checked once every seat has built, an instant win
does not add its round, a pass bars nobody, solo winners are the seat at 15 or more.
"""
from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engines.chiritsumo_pyramid import (
    CLEAR,
    PATTERN_JA,
    RULES,
    best_pyramid,
    check_layout,
    layout_dice,
    rows_from,
    rows_json,
    score_pyramid,
)
from engines.core import Command, Die, IllegalEvent, Seat, SetupError, dice_from, event_kind, event_text, public, replace, seats_from, text

__all__ = [
    "GAME",
    "MIN_SEATS",
    "MAX_SEATS",
    "COLOURS",
    "State",
    "setup",
    "expects",
    "apply",
    "view",
    "check_layout",
    "score_pyramid",
    "best_pyramid",
    "rank_of",
    "COMMANDS",
]

GAME = "chiritsumo"
TITLE = {"en": "Chiritsumo", "ja": "ちりつも"}
MIN_SEATS, MAX_SEATS = 1, 4
OPTIONS = ("mode",)
MODES = ("garden", "solo")
COLOURS = ("clear", "yellow", "red", "blue")
COLOUR_JA = {"clear": "透明", "yellow": "黄", "red": "赤", "blue": "青"}
START = (1, 3, 3, 3)
DUST_PILE = {2: (2, 3, 3, 3), 3: (1, 2, 2, 2)}
SOLO_RESERVE = 3
CLEAR_TO_WIN = 4
TARGET = 30  # a total above this ends the garden game
DUST = "dust"
RANKS = ((41, "fuji"), (36, "great_mountain"), (31, "mountain"), (21, "hill"), (15, "dust_heap"), (0, "none"))
RANK_TEXT = {
    "none": ("no rank", "ランクなし"),
    "dust_heap": ("dust heap", "塵の山"),
    "hill": ("hill", "丘"),
    "mountain": ("mountain", "山"),
    "great_mountain": ("great mountain", "大山"),
    "fuji": ("Mt. Fuji", "富士山"),
}
ROW_EXAMPLE = [[["yellow", 4], ["yellow", 4], ["red", 4], ["red", 4]], [["yellow", 3], None, ["red", 3]], [None, None], [None]]

TO_THROW, TO_BUILD, BUILT = 0, 1, 2


@dataclass(frozen=True)
class State:
    """A game of Chiritsumo. Seat-indexed tuples follow ``seats``; dice counts follow COLOURS."""

    seats: tuple[Seat, ...]
    options: str  # the options as given, JSON text
    seed: int
    mode: str
    held: tuple[tuple[int, ...], ...]
    dust: tuple[int, ...] | None
    reserve: int  # solo: clear dice left in reserve
    events: tuple[str, ...] = ()
    log: tuple[tuple[str, str], ...] = ()
    phase: str = "play"
    round: int = 1
    scores: tuple[int, ...] = ()
    stage: tuple[int, ...] = ()  # TO_THROW, TO_BUILD or BUILT, this round
    throws: tuple[tuple[Die, ...] | None, ...] = ()  # each seat's latest throw
    pyramids: tuple[tuple[tuple[Die | None, ...], ...] | None, ...] = ()  # each seat's latest pyramid
    points: tuple[int | None, ...] = ()  # each seat's points for its latest pyramid
    complete: tuple[bool, ...] = ()  # each seat's latest pyramid is complete
    fuji: tuple[bool, ...] = ()  # each seat's latest pyramid is a Fuji
    round_scores: tuple[int, ...] | None = None  # the latest round every seat built
    order: tuple[int, ...] = ()  # exchange order this round
    turn: int = 0  # index into order
    last_exchanger: int | None = None
    exchanges: tuple[tuple[int, str, str, str], ...] = ()  # this round: (seat, partner, give, take)
    last_round: bool = False  # solo: the 4th clear die is in
    winners: tuple[int, ...] = ()
    rank: str | None = None
    ended_by: str | None = None  # fuji, chiritsumo, total, solo


def _set(values: tuple, i: int, value: Any) -> tuple:
    return values[:i] + (value,) + values[i + 1 :]


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game, round 1, everyone to throw."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise SetupError(f"options must be an object like {{\"mode\": \"garden\"}}, saw {options!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SetupError(f"unknown option(s) {unknown} for chiritsumo; the only option is mode (garden or solo)")
    n = len(table_seats)
    mode = options.get("mode", "solo" if n == 1 else "garden")
    if mode not in MODES:
        raise SetupError(f"option mode is {mode!r}; use \"garden\" (2-4 seats) or \"solo\" (1 seat)")
    if mode == "solo" and n != 1:
        raise SetupError(f"the solo game is for 1 seat, saw {n}; use mode \"garden\" for 2-4 seats")
    if mode == "garden" and not 2 <= n <= 4:
        raise SetupError(f"the garden game is for 2 to 4 seats, saw {n}; use mode \"solo\" for 1 seat")
    if mode == "garden" and any(s.name == DUST for s in table_seats):
        raise SetupError("a seat may not be named \"dust\" in the garden game: that name is the dust pile")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SetupError(f"the seed must be an integer, saw {seed!r}")
    state = State(
        seats=table_seats,
        options=json.dumps(dict(options), sort_keys=True, ensure_ascii=False),
        seed=seed,
        mode=mode,
        held=(START,) * n,
        dust=DUST_PILE.get(n) if mode == "garden" else None,
        reserve=SOLO_RESERVE if mode == "solo" else 0,
        scores=(0,) * n,
        stage=(TO_THROW,) * n,
        throws=(None,) * n,
        pyramids=(None,) * n,
        points=(None,) * n,
        complete=(False,) * n,
        fuji=(False,) * n,
    )
    how = "solo game (ちりが積もるまで)" if mode == "solo" else f"garden game (箱庭) for {n}"
    how_ja = "ソロ（ちりが積もるまで）" if mode == "solo" else f"箱庭 {n}人"
    return _say(state, f"Chiritsumo, {how}: round 1, everyone throws", f"ちりつも {how_ja}: ラウンド1、全員ダイスを振ってください")


# --- small helpers -----------------------------------------------------------------------


def _say(state: State, en: str, ja: str) -> State:
    return replace(state, log=state.log + ((en, ja),))


def _counts_text(counts: Sequence[int]) -> str:
    parts = [f"{n} {c}" for c, n in zip(COLOURS, counts) if n]
    return ", ".join(parts) if parts else "no dice"


def _counts_ja(counts: Sequence[int]) -> str:
    return "・".join(f"{COLOUR_JA[c]}{n}" for c, n in zip(COLOURS, counts) if n) or "なし"


def _as_dict(counts: Sequence[int]) -> dict[str, int]:
    return dict(zip(COLOURS, counts))


def _dice_text(dice: Sequence[Die]) -> str:
    return " ".join(f"{d.colour[0].upper()}{d.face}" for d in dice) or "-"


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _seat_index(state: State, name: Any) -> int:
    for i, seat in enumerate(state.seats):
        if seat.name == name:
            return i
    raise IllegalEvent(f"unknown seat {name!r}; the seats are {', '.join(_names(state))}")


def rank_of(total: int) -> str:
    """The solo rank of a total: none, dust_heap, hill, mountain, great_mountain or fuji."""
    return next(name for low, name in RANKS if total >= low)


@lru_cache(maxsize=256)
def _best_cached(dice: tuple[Die, ...]) -> tuple[Any, int, Any]:
    return best_pyramid(dice)


# --- expects -----------------------------------------------------------------------------


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = _names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": [names[i] for i in state.winners]}
    if state.phase == "play":
        for i, stage in enumerate(state.stage):
            if stage != TO_THROW:
                continue
            held = state.held[i]
            out["inputs"].append({
                "type": "throw", "seats": [names[i]], "secret": False,
                "prompt": text(
                    f"{names[i]}: throw all your dice ({_counts_text(held)}).",
                    f"{names[i]}: 手持ちのダイスをすべて振ってください（{_counts_ja(held)}）。",
                ),
                "fields": [{"name": "dice", "kind": "dice", "label": text("Dice", "ダイス")}],
                "dice": [{"colour": c, "sides": 6, "count": n} for c, n in zip(COLOURS, held) if n],
                "camera": "new",
            })
        builders = [names[i] for i, stage in enumerate(state.stage) if stage == TO_BUILD]
        if builders:
            out["inputs"].append({
                "type": "build", "seats": builders, "secret": False,
                "prompt": text(
                    "Build your pyramid from your throw, bottom row of 4 first, and lay it out flat under the camera; "
                    "dice you cannot place go off the tray.",
                    "振ったダイスでピラミッドを下段の4個から組み、カメラの下に平らに並べてください。置けないダイスはトレイの外へ。",
                ),
                "fields": [{"name": "rows", "kind": "layout", "rows": [4, 3, 2, 1],
                            "label": text("Pyramid rows, bottom first", "ピラミッドの段（下から）"),
                            "example": json.loads(json.dumps(ROW_EXAMPLE))}],
            })
    elif state.phase == "exchange":
        i = state.order[state.turn]
        partners = _partners(state, i)
        give = [c for c, n in zip(COLOURS, state.held[i]) if n]
        take = [c for k, c in enumerate(COLOURS) if any(_partner_held(state, p)[k] for p in partners)]
        out["inputs"].append({
            "type": "exchange", "seats": [names[i]], "secret": False,
            "prompt": text(
                f"{names[i]}: とばっ塵! Swap one of your dice for one of another colour from another player"
                f"{' or the dust pile' if state.dust is not None else ''}, or pass.",
                f"{names[i]}: とばっ塵! 自分のダイス1個を{'他のプレイヤーか塵の山' if state.dust is not None else '他のプレイヤー'}"
                "の別の色のダイス1個と交換するか、パスしてください。",
            ),
            "fields": [
                {"name": "with", "kind": "choice", "label": text("Exchange with", "交換相手"),
                 "options": [{"value": p, "label": text("the dust pile", "塵の山") if p == DUST else text(p, p)}
                             for p in partners]},
                {"name": "give", "kind": "choice", "label": text("You give", "渡すダイス"), "options": _colour_options(give)},
                {"name": "take", "kind": "choice", "label": text("You take", "もらうダイス"), "options": _colour_options(take)},
            ],
        })
        out["inputs"].append({
            "type": "pass", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: or pass (no exchange).", f"{names[i]}: またはパス（交換しない）。"),
            "fields": [],
        })
    elif state.phase == "swap":
        give = [c for c, n in zip(COLOURS, state.held[0]) if n and c != CLEAR]
        out["inputs"].append({
            "type": "swap", "seats": [names[0]], "secret": False,
            "prompt": text(
                f"{names[0]}: complete! Swap one coloured die for a clear one from the reserve ({state.reserve} left).",
                f"{names[0]}: 完成! 色のついたダイス1個を予備の透明ダイスと交換してください（残り{state.reserve}個）。",
            ),
            "fields": [{"name": "give", "kind": "choice", "label": text("You give", "渡すダイス"), "options": _colour_options(give)}],
        })
    return out


def _colour_options(colours: Sequence[str]) -> list[dict[str, Any]]:
    return [{"value": c, "label": text(c, COLOUR_JA[c])} for c in colours]


def _partners(state: State, i: int) -> list[str]:
    """Who seat ``i`` may exchange with now: other seats but the last exchanger, the pile."""
    names = _names(state)
    out = [names[j] for j in range(len(names)) if j != i and j != state.last_exchanger]
    if state.dust is not None:
        out.append(DUST)
    return out


def _partner_held(state: State, name: str) -> tuple[int, ...]:
    if name == DUST:
        assert state.dust is not None
        return state.dust
    return state.held[_names(state).index(name)]


# --- apply -------------------------------------------------------------------------------

_KEYS = {
    "throw": ({"seat", "dice"}, set()),
    "build": ({"seat", "rows"}, set()),
    "exchange": ({"seat", "with", "give", "take"}, set()),
    "pass": ({"seat"}, set()),
    "swap": ({"seat", "give"}, set()),
}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    kind = event_kind(event, _KEYS)
    if state.phase == "over":
        raise IllegalEvent(f"the game is over ({_end_text(state)}); no event is expected")
    i = _seat_index(state, event["seat"])
    if kind in ("exchange", "pass") and state.mode == "solo":
        raise IllegalEvent(f"{kind} is for the garden game; in the solo game a complete pyramid is followed by a swap")
    if kind == "swap" and state.mode == "garden":
        raise IllegalEvent("swap is for the solo game; in the garden game use exchange or pass")
    if kind in ("throw", "build") and state.phase != "play":
        raise IllegalEvent(f"saw a {kind} by {state.seats[i].name}, but {_waiting_for(state)}")
    if kind in ("exchange", "pass") and state.phase != "exchange":
        raise IllegalEvent(f"saw {'an' if kind == 'exchange' else 'a'} {kind}, but {_waiting_for(state)}")
    if kind == "swap" and state.phase != "swap":
        raise IllegalEvent(f"saw a swap, but {_waiting_for(state)}")
    if kind == "throw":
        new = _throw(state, i, event)
    elif kind == "build":
        new = _build(state, i, event)
    elif kind == "exchange":
        new = _exchange(state, i, event)
    elif kind == "pass":
        new = _pass(state, i)
    else:
        new = _swap(state, i, event)
    return replace(new, events=state.events + (event_text(event),))


def _waiting_for(state: State) -> str:
    names = _names(state)
    if state.phase == "play":
        throwers = [names[i] for i, s in enumerate(state.stage) if s == TO_THROW]
        builders = [names[i] for i, s in enumerate(state.stage) if s == TO_BUILD]
        parts = []
        if throwers:
            parts.append(f"throws from {', '.join(throwers)}")
        if builders:
            parts.append(f"pyramids from {', '.join(builders)}")
        return "the table is waiting for " + " and ".join(parts)
    if state.phase == "exchange":
        return f"the table is waiting for {names[state.order[state.turn]]} to exchange or pass"
    if state.phase == "swap":
        return f"the table is waiting for {names[0]} to swap a coloured die for a reserve clear one"
    return "the game is over"


def _end_text(state: State) -> str:
    names = _names(state)
    if not state.winners:
        return "nobody won"
    return " and ".join(names[i] for i in state.winners) + (" won" if len(state.winners) > 1 else " won")


def _throw(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    if state.stage[i] != TO_THROW:
        raise IllegalEvent(f"{name} has already thrown this round; {_waiting_for(state)}")
    dice = dice_from(event["dice"])
    unknown = sorted({d.colour for d in dice} - set(COLOURS))
    if unknown:
        raise IllegalEvent(f"{name}'s throw has dice of colour {', '.join(unknown)}; the colours are clear, yellow, red, blue")
    seen = Counter(d.colour for d in dice)
    counts = tuple(seen[c] for c in COLOURS)
    if counts != state.held[i]:
        raise IllegalEvent(
            f"{name} holds {_counts_text(state.held[i])} and throws them all; saw {_counts_text(counts)}"
        )
    state = replace(
        state,
        stage=_set(state.stage, i, TO_BUILD),
        throws=_set(state.throws, i, dice),
        pyramids=_set(state.pyramids, i, None),
        points=_set(state.points, i, None),
        complete=_set(state.complete, i, False),
        fuji=_set(state.fuji, i, False),
    )
    return _say(state, f"{name} threw {_dice_text(dice)}", f"{name}が{_dice_text(dice)}を振った")


def _build(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    if state.stage[i] == TO_THROW:
        raise IllegalEvent(f"{name} has not thrown yet this round; a pyramid is built from the seat's own throw")
    if state.stage[i] == BUILT:
        raise IllegalEvent(f"{name} has already built this round's pyramid")
    rows = rows_from(event["rows"])
    thrown = Counter((d.colour, d.face) for d in state.throws[i])  # type: ignore[union-attr]
    used = Counter((d.colour, d.face) for d in layout_dice(rows))
    for (colour, face), n in sorted(used.items()):
        if n > thrown[(colour, face)]:
            had = thrown[(colour, face)]
            raise IllegalEvent(
                f"{name}'s pyramid has {n} {colour} {face}, but {name} threw {had or 'no'} "
                f"{colour} {face}: each thrown die goes in once (the throw: {_dice_text(state.throws[i])})"  # type: ignore[arg-type]
            )
    problems = check_layout(rows)
    if problems:
        error = IllegalEvent(f"{name}'s pyramid breaks a building rule: " + "; ".join(p["en"] for p in problems))
        # for a page that marks the offending dice: the problems ({places, rule, en, ja})
        # and the message in Japanese ride along on the exception
        error.problems = problems  # type: ignore[attr-defined]
        error.ja = f"{name}のピラミッドは積み方のルールに反しています: " + "; ".join(p["ja"] for p in problems)  # type: ignore[attr-defined]
        raise error
    scored = score_pyramid(rows)
    points = scored["total"]
    state = replace(
        state,
        stage=_set(state.stage, i, BUILT),
        pyramids=_set(state.pyramids, i, rows),
        points=_set(state.points, i, points),
        complete=_set(state.complete, i, scored["complete"]),
        fuji=_set(state.fuji, i, scored["fuji"]),
    )
    state = _say(state, *_build_text(name, scored))
    if state.mode == "solo":
        return _solo_scored(state, scored)
    if all(s == BUILT for s in state.stage):
        return _garden_scored(state)
    return state


def _build_text(name: str, scored: Mapping[str, Any]) -> tuple[str, str]:
    counts = Counter(p["pattern"] for p in scored["patterns"])
    parts = [f"{n} {k}{'s' if n > 1 and k != 'fuji' else ''}" for k, n in counts.items()]
    parts_ja = [f"{PATTERN_JA[k]}{n}" for k, n in counts.items()]
    if scored["bonus"]:
        parts.append(f"complete +{scored['bonus']}")
        parts_ja.append(f"完成+{scored['bonus']}")
    what = ", ".join(parts) or "no pattern"
    what_ja = "・".join(parts_ja) or "役なし"
    return (f"{name} built a pyramid: {what}: {scored['total']} points",
            f"{name}のピラミッド: {what_ja}: {scored['total']}点")


def _clear_rows(rows: Sequence[Sequence[Die | None]]) -> tuple[int, ...]:
    return tuple(sorted((r for r, row in enumerate(rows) for d in row if d is not None and d.colour == CLEAR), reverse=True))


def _garden_scored(state: State) -> State:
    names = _names(state)
    points = tuple(p or 0 for p in state.points)
    state = replace(state, round_scores=points)
    listing = ", ".join(f"{n} {p}" for n, p in zip(names, points))
    state = _say(state, f"Round {state.round} scores: {listing}", f"ラウンド{state.round}の得点: {listing}")
    fuji = tuple(i for i, is_fuji in enumerate(state.fuji) if is_fuji)
    if fuji:
        who = " and ".join(names[i] for i in fuji)
        state = _say(state, f"Fuji! {who} win{'s' if len(fuji) == 1 else ''} at once",
                     f"富士! {'と'.join(names[i] for i in fuji)}の勝利")
        return replace(state, phase="over", winners=fuji, ended_by="fuji")
    complete = [i for i, done in enumerate(state.complete) if done]

    def key(i: int) -> tuple:
        clear = _clear_rows(state.pyramids[i])  # type: ignore[arg-type]
        return (-points[i], -len(clear), tuple(-r for r in clear), i)

    order = tuple(sorted(complete, key=key))
    if not order:
        state = _say(state, "No pyramid is complete: no exchange", "完成したピラミッドなし: とばっ塵なし")
        return _end_round(state)
    who = ", ".join(names[i] for i in order)
    state = _say(state, f"とばっ塵 (exchange) in this order: {who}", f"とばっ塵の順番: {who}")
    return replace(state, phase="exchange", order=order, turn=0, last_exchanger=None, exchanges=())


def _exchange(state: State, i: int, event: Mapping[str, Any]) -> State:
    names = _names(state)
    due = state.order[state.turn]
    if i != due:
        raise IllegalEvent(f"it is {names[due]}'s turn to exchange or pass, not {names[i]}'s")
    partner, give, take = event["with"], event["give"], event["take"]
    if partner == names[i]:
        raise IllegalEvent(f"{names[i]} cannot exchange with themself; name another seat or \"dust\"")
    if partner == DUST:
        if state.dust is None:
            raise IllegalEvent(f"there is no dust pile with {len(names)} seats; exchange with another seat")
        j = None
    else:
        if partner not in names:
            raise IllegalEvent(
                f"unknown exchange partner {partner!r}; name another seat ({', '.join(n for n in names if n != names[i])})"
                + (" or \"dust\"" if state.dust is not None else "")
            )
        j = names.index(partner)
        if j == state.last_exchanger:
            raise IllegalEvent(f"{partner} made the last exchange just before; exchange with someone else (not {partner})")
    for role, colour in (("give", give), ("take", take)):
        if colour not in COLOURS:
            raise IllegalEvent(f"{role} is {colour!r}; a colour is clear, yellow, red or blue")
    if give == take:
        raise IllegalEvent(f"give and take are both {give}; an exchange swaps dice of two different colours")
    mine = state.held[i]
    theirs = state.dust if j is None else state.held[j]
    assert theirs is not None
    g, t = COLOURS.index(give), COLOURS.index(take)
    if not mine[g]:
        raise IllegalEvent(f"{names[i]} has no {give} die to give (holds {_counts_text(mine)})")
    partner_name = "the dust pile" if j is None else partner
    if not theirs[t]:
        raise IllegalEvent(f"{partner_name} has no {take} die to give (holds {_counts_text(theirs)})")
    mine = tuple(n - (k == g) + (k == t) for k, n in enumerate(mine))
    theirs = tuple(n + (k == g) - (k == t) for k, n in enumerate(theirs))
    held = _set(state.held, i, mine)
    if j is None:
        state = replace(state, held=held, dust=theirs)
    else:
        state = replace(state, held=_set(held, j, theirs))
    partner_ja = "塵の山" if j is None else partner
    state = _say(
        state,
        f"{names[i]} gave {give} to {partner_name} for {take}",
        f"{names[i]}が{partner_ja}に{COLOUR_JA[give]}を渡し{COLOUR_JA[take]}をもらった",
    )
    state = replace(state, last_exchanger=i, exchanges=state.exchanges + ((i, partner, give, take),))
    for k in (i, j):
        if k is not None and state.held[k][0] >= CLEAR_TO_WIN:
            state = _say(state, f"ちりつも! {names[k]} holds 4 clear dice and wins at once",
                         f"ちりつも! {names[k]}が透明のダイスを4個集めて勝利")
            return replace(state, phase="over", winners=(k,), ended_by="chiritsumo")
    return _next_exchange(state)


def _pass(state: State, i: int) -> State:
    names = _names(state)
    due = state.order[state.turn]
    if i != due:
        raise IllegalEvent(f"it is {names[due]}'s turn to exchange or pass, not {names[i]}'s")
    state = _say(state, f"{names[i]} passed", f"{names[i]}はパス")
    return _next_exchange(state)


def _next_exchange(state: State) -> State:
    if state.turn + 1 < len(state.order):
        return replace(state, turn=state.turn + 1)
    return _end_round(state)


def _end_round(state: State) -> State:
    names = _names(state)
    points = state.round_scores or (0,) * len(names)
    scores = tuple(s + p for s, p in zip(state.scores, points))
    listing = ", ".join(f"{n} {s}" for n, s in zip(names, scores))
    state = replace(state, scores=scores, order=(), turn=0, last_exchanger=None, exchanges=())
    state = _say(state, f"Totals after round {state.round}: {listing}", f"ラウンド{state.round}終了時の合計: {listing}")
    best = max(scores)
    if best > TARGET:
        winners = tuple(i for i, s in enumerate(scores) if s == best)
        who = " and ".join(names[i] for i in winners)
        state = _say(state, f"Above {TARGET}: {who} win{'s' if len(winners) == 1 else ''} with {best}",
                     f"{TARGET}点超え: {'と'.join(names[i] for i in winners)}の勝利（{best}点）")
        return replace(state, phase="over", winners=winners, ended_by="total")
    return _next_round(state)


def _next_round(state: State) -> State:
    number = state.round + 1
    state = replace(state, round=number, phase="play", stage=(TO_THROW,) * len(state.seats))
    last = " (the last: 4 clear dice)" if state.last_round else ""
    last_ja = "（最終: 透明4個）" if state.last_round else ""
    return _say(state, f"Round {number}{last}: throw your dice", f"ラウンド{number}{last_ja}: ダイスを振ってください")


def _solo_scored(state: State, scored: Mapping[str, Any]) -> State:
    name = state.seats[0].name
    points = scored["total"]
    state = replace(state, scores=(state.scores[0] + points,), round_scores=(points,))
    state = _say(state, f"Total: {state.scores[0]}", f"合計: {state.scores[0]}点")
    if state.last_round:
        total = state.scores[0]
        rank = rank_of(total)
        en, ja = RANK_TEXT[rank]
        state = _say(state, f"The dust has piled up: {name} ends with {total} points, rank: {en}",
                     f"ちりが積もり切った: {name} {total}点、ランク: {ja}")
        winners = (0,) if total >= 15 else ()
        return replace(state, phase="over", rank=rank, winners=winners, ended_by="solo")
    if scored["complete"] and state.reserve > 0:
        return replace(state, phase="swap")
    return _next_round(state)


def _swap(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    give = event["give"]
    if give == CLEAR:
        raise IllegalEvent("swap a coloured die (yellow, red or blue) for a clear one, not a clear die")
    if give not in COLOURS:
        raise IllegalEvent(f"give is {give!r}; swap a yellow, red or blue die")
    g = COLOURS.index(give)
    held = state.held[i]
    if not held[g]:
        raise IllegalEvent(f"{name} has no {give} die (holds {_counts_text(held)})")
    held = tuple(n - (k == g) + (k == 0) for k, n in enumerate(held))
    state = replace(state, held=_set(state.held, i, held), reserve=state.reserve - 1)
    state = _say(state, f"{name} swapped a {give} die for a clear one ({state.reserve} left in reserve)",
                 f"{name}が{COLOUR_JA[give]}のダイスを透明と交換（予備残り{state.reserve}個）")
    if held[0] >= CLEAR_TO_WIN:
        state = replace(state, last_round=True)
    return _next_round(state)


# --- view --------------------------------------------------------------------------------


def _pyramid_view(state: State, i: int) -> dict[str, Any]:
    throw = state.throws[i]
    rows = state.pyramids[i]
    out: dict[str, Any] = {
        "thrown": state.stage[i] != TO_THROW,
        "built": state.stage[i] == BUILT,
        "throw": [[d.colour, d.face] for d in throw] if throw is not None else None,
        "rows": None, "patterns": [], "bonus": 0, "complete": False, "fuji": False,
        "counts": None, "unplaced": [], "points": state.points[i], "best": None,
        "held": _as_dict(state.held[i]), "total": state.scores[i],
        "round_score": state.round_scores[i] if state.round_scores is not None else None,
    }
    if rows is not None and throw is not None:
        scored = score_pyramid(rows)
        left = Counter((d.colour, d.face) for d in throw)
        left.subtract((d.colour, d.face) for d in layout_dice(rows))
        best_rows, best_total, best_patterns = _best_cached(tuple(sorted(throw, key=lambda d: (d.colour, d.face))))
        out.update(
            rows=rows_json(rows), patterns=scored["patterns"], bonus=scored["bonus"],
            complete=scored["complete"], fuji=scored["fuji"], counts=scored["counts"],
            unplaced=[[c, f] for (c, f), n in sorted(left.items()) for _ in range(n)],
            best={"rows": rows_json(best_rows), "total": best_total, "patterns": copy.deepcopy(best_patterns)},
        )
    return out


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it (nothing is secret in Chiritsumo)."""
    names = _names(state)
    out: dict[str, Any] = {
        "game": GAME,
        "mode": state.mode,
        "round": state.round,
        "phase": state.phase,
        "scores": dict(zip(names, state.scores)),
        "winners": [names[i] for i in state.winners],
        "seats": [s.as_dict() for s in state.seats],
        "round_scores": dict(zip(names, state.round_scores)) if state.round_scores is not None else None,
        "held": {n: _as_dict(h) for n, h in zip(names, state.held)},
        "dust": _as_dict(state.dust) if state.dust is not None else None,
        "rank": state.rank,
        "rank_text": dict(zip(("en", "ja"), RANK_TEXT[state.rank])) if state.rank else None,
        "reserve": state.reserve if state.mode == "solo" else None,
        "last_round": state.last_round,
        "target": TARGET,
        "ended_by": state.ended_by,
        "pyramids": {n: _pyramid_view(state, i) for i, n in enumerate(names)},
        "exchange": {
            "order": [names[i] for i in state.order],
            "due": names[state.order[state.turn]] if state.phase == "exchange" else None,
            "barred": names[state.last_exchanger] if state.last_exchanger is not None else None,
            "done": [{"seat": names[s], "with": p, "give": g, "take": t} for s, p, g, t in state.exchanges],
        },
        "rules": {k: {"en": en, "ja": ja} for k, (en, ja) in RULES.items()},
        "expects": public(expects(state)),
        "log": [{"en": en, "ja": ja} for en, ja in state.log],
    }
    if seat is not None:
        if seat not in names:
            raise ValueError(f"unknown seat {seat!r}; the seats are {', '.join(names)}")
        i = names.index(seat)
        out["mine"] = {
            "seat": seat,
            "colour": state.seats[i].colour,
            "held": _as_dict(state.held[i]),
            "to_throw": state.phase == "play" and state.stage[i] == TO_THROW,
            "to_build": state.phase == "play" and state.stage[i] == TO_BUILD,
            "to_exchange": state.phase == "exchange" and state.order[state.turn] == i,
            "to_swap": state.phase == "swap",
        }
    return out


# --- dicetable chiritsumo-best -----------------------------------------------------------

_SHORT = {"c": "clear", "y": "yellow", "r": "red", "b": "blue"}
BEST_HELP = (
    "Dice as COLOUR:FACE, several faces of one colour as COLOUR:F,F,F; colours clear, yellow, "
    "red, blue (or c, y, r, b); at most 10 dice. Example: clear:3 yellow:4,4,2 red:4,5,3 blue:3,3,4"
)


def parse_dice(words: Sequence[str]) -> list[Die]:
    """Dice from command-line words like ``clear:3`` or ``yellow:4,4,2``; ValueError if bad."""
    dice: list[Die] = []
    for word in words:
        colour, sep, faces = word.partition(":")
        colour = _SHORT.get(colour.lower(), colour.lower())
        if not sep or colour not in COLOURS:
            raise ValueError(f"cannot read {word!r}: write each die as COLOUR:FACE, e.g. red:4 or yellow:4,4,2 "
                             "(colours clear, yellow, red, blue)")
        for face in faces.split(","):
            if not face.strip().isdigit() or not 1 <= int(face) <= 6:
                raise ValueError(f"cannot read {word!r}: a face is 1 to 6, saw {face!r}")
            dice.append(Die(colour, int(face)))
    if not dice:
        raise ValueError("no dice given; " + BEST_HELP)
    if len(dice) > 10:
        raise ValueError(f"a pyramid holds at most 10 dice, saw {len(dice)}")
    return dice


def _cell(die: Die | None) -> str:
    return " .. " if die is None else f" {die.colour[0].upper()}{die.face} "


def best_text(dice: Sequence[Die], rows: Any, total: int, seconds: float) -> str:
    """The best pyramid as text: the rows (apex on top), the patterns and points, the total."""
    scored = score_pyramid(rows)
    lines = [f"Best pyramid for {_dice_text(dice)}: {total} points ({seconds:.3f} s)", ""]
    for r in range(3, -1, -1):
        lines.append("  " * r + "".join(_cell(d) for d in rows[r]))
    lines.append("")
    for p in scored["patterns"]:
        where = " ".join(f"({r},{i})" for r, i in p["places"]) if p["pattern"] != "fuji" else "all 10 places"
        colour = p["colour"] or ""
        lines.append(f"  {p['pattern']:<8} {PATTERN_JA[p['pattern']]:<2} {colour:<7} {where:<24} +{p['points']}")
    if scored["bonus"]:
        apex = rows[3][0]
        lines.append(f"  {'complete':<8} 完成 {'':<6} apex {apex.face} x 3{'':<15} +{scored['bonus']}")
    if not scored["patterns"] and not scored["bonus"]:
        lines.append("  no pattern")
    lines.append(f"  total {total}")
    unplaced = _unplaced(dice, rows)
    if unplaced:
        lines.append(f"  unplaced: {_dice_text(unplaced)}")
    lines.append("  (row, place) from the bottom-left, starting at 0")
    return "\n".join(lines) + "\n"


def _unplaced(dice: Sequence[Die], rows: Any) -> list[Die]:
    left = Counter(layout_dice(rows))
    out = []
    for d in dice:
        if left[d]:
            left[d] -= 1
        else:
            out.append(d)
    return out


def run_best(args: Any, out: Any, clock: Any) -> int:
    """``dicetable chiritsumo-best DICE... [--json]``: exit 0, or 2 for unreadable dice."""
    import sys

    try:
        dice = parse_dice(args.dice)
    except ValueError as exc:
        sys.stderr.write(f"dicetable chiritsumo-best: {exc}\n")
        return 2
    start = clock()
    rows, total, patterns = best_pyramid(dice)
    seconds = clock() - start
    if getattr(args, "json", False):
        scored = score_pyramid(rows)
        payload = {
            "dice": [[d.colour, d.face] for d in dice],
            "rows": rows_json(rows),
            "total": total,
            "patterns": patterns,
            "bonus": scored["bonus"],
            "complete": scored["complete"],
            "fuji": scored["fuji"],
            "unplaced": [[d.colour, d.face] for d in _unplaced(dice, rows)],
            "seconds": round(seconds, 4),
        }
        out.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return 0
    out.write(best_text(dice, rows, total, seconds))
    return 0


COMMANDS = (
    Command(
        name="chiritsumo-best",
        help="the highest-scoring Chiritsumo pyramid for the dice given",
        description="Print the best legal pyramid (exact search) for up to 10 dice: the rows with the apex "
        "on top, each pattern with its points, the completion bonus and the total. " + BEST_HELP + ". "
        "Exit status 2: dice that cannot be read.",
        arguments=(
            (("dice",), {"nargs": "+", "metavar": "COLOUR:FACE", "help": BEST_HELP}),
            (("--json",), {"action": "store_true", "help": "print one JSON object instead of text"}),
        ),
        run=run_best,
    ),
)
