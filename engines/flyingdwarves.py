"""Flying Dwarves (フライング・ドワーフ): 3 to 5 players race flying mine carts twice round a loop.

The rules are RULES.md section 5 and the Flying Dwarves section of SCRIPTS.md (binding).
Each player holds propulsion cards (推進カード) 0-4 (0-5 with 5 players), a disc on the
start, a start cube, four cubes to invest and 3 points. Handicaps (ハンデ) are chosen in
reverse turn order, the first player none: ``1 point``, ``1 item``, ``2 points`` (4-5
seats), ``2 items`` (5 seats), each once. A round: refuel (給油: every seat secretly picks
a card), launch (発車: all revealed at once; a 0 brings the seat's discards back to hand),
move (移動: from the first player clockwise). Before each move any seat may open an item
exchange (アイテムの掛け合い) aimed at the mover; priority goes clockwise from the user
until every seat passes in a row; the cards then resolve in play order (+N/-N, copy コピー,
cancel 打ち消し, swap robot 入れ替えロボット, development robot 開拓ロボット). A move may
not end on a non-treasure space holding a disc that moved this round: step back. Spaces:
mine (鉱山) N points, ``mine ?`` discard a card for its number in points, treasure (宝箱)
draw N items, wasteland (荒野) discard the two highest cards (never the 0), vacant lot
(空き地) invest a cube; landing on a developed lot (開拓マス) scores or pays. After one lap
the start cube may go to a lot with room; after two the goal (+6, +3, then 0). The game
ends with the round of the second arrival; a seat short of the goal loses 3 per full 5
spaces beyond the first 5; each lot's sole majority holder scores 1/3/5.

Options: ``board`` (list of spaces, data/flyingdwarves.toml), ``items`` (item deck, same
file), ``deck`` (``"dealt"``: shuffled with the seed; ``"physical"``: ``draw`` events).

Events (docs/replay.md, "Flying Dwarves events, by example"): ``handicap``, ``draw``, ``propel`` (secret),
``item``, ``pass``, ``swap``, ``develop``, ``move``, ``discard``, ``invest``,
``start_cube``. Phases: ``handicap``, ``draw``, ``propel``, ``move`` (before a move: an
item opens an exchange, or the mover moves), ``exchange``, ``swap``, ``develop``,
``discard``, ``invest``, ``start_cube``, ``over``.

Decisions where RULES.md and SCRIPTS.md are silent:
- In an exchange a seat holding no item card passes by itself (it could only pass); an
  exchange where nobody else holds items ends as soon as the user's priority comes round.
- The start-cube offer and the goal are checked at the end of every move of a seat, by
  its progress (so a disc carried past a line by a swap robot gets them at the end of
  its own move); the space itself acts only when the disc moved.
- The start cube offer is made once; with no lot with room then, the cube stays.
- A development robot places one of the mover's supply cubes; with none, or no lot with
  room, it does nothing.
- Items drawn by a handicap are drawn right after that seat's choice.
- The seed text gives no board length; the default board has 30 spaces (start, 13 mines
  of which 3 are ``?``, 5 treasures, 3 wastelands, 8 lots; 60 spaces to the goal).
- A swap robot's user may be one of the candidates.
- Scores in the view are the points so far; when the game is over they include the
  distance penalty and the lot majorities.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.core import (
    IllegalEvent,
    Rng,
    Seat,
    SetupError,
    event_kind,
    event_text,
    public,
    read_toml,
    replace,
    rng_seed,
    rng_shuffle,
    seats_from,
    text,
)

GAME = "flyingdwarves"
TITLE = {"en": "Flying Dwarves", "ja": "フライング・ドワーフ"}
MIN_SEATS = 3
MAX_SEATS = 5
DATA_FILE = "data/flyingdwarves.toml"
OPTIONS = ("board", "items", "deck")
DECK_MODES = ("dealt", "physical")
START_POINTS = 3
SUPPLY = 4
GOAL_BONUS = (6, 3)
MAJORITY = {1: 1, 2: 3, 3: 5}
HANDICAPS = ("1 point", "1 item", "2 points", "2 items")
HANDICAP_JA = {"1 point": "勝利点1点", "1 item": "アイテムカード1枚", "2 points": "勝利点2点",
               "2 items": "アイテムカード2枚"}
ROBOTS = ("copy", "cancel", "swap", "develop")
ITEM_JA = {"copy": "コピー", "cancel": "打ち消し", "swap": "入れ替えロボット", "develop": "開拓ロボット"}
KIND_JA = {"start": "スタート", "mine": "鉱山", "treasure": "宝箱", "wasteland": "荒野", "lot": "空き地"}


class DataError(ValueError):
    """A board or item deck that cannot be played; the message names the file and entry."""


# --- data --------------------------------------------------------------------------------


def board_from(raw: Any, where: str) -> tuple[tuple[str, Any], ...]:
    """The board of a data file or option: ``(kind, value)`` per space, checked."""
    if not isinstance(raw, list) or len(raw) < 2:
        raise DataError(f"{where}: 'board' must be a list of at least 2 spaces (the start and one more), saw {raw!r}")
    spaces = []
    for i, s in enumerate(raw):
        entry = f"{where}: board space {i} ({s!r})"
        if not isinstance(s, str):
            raise DataError(f"{entry}: a space is a string like \"mine 2\"")
        parts = s.split()
        kind = parts[0] if parts else ""
        if i == 0 and s != "start":
            raise DataError(f"{entry}: space 0 must be \"start\" (the start is also the goal)")
        if kind == "start":
            if i != 0 or len(parts) != 1:
                raise DataError(f"{entry}: only space 0 is the start")
            spaces.append(("start", None))
        elif kind in ("wasteland", "lot") and len(parts) == 1:
            spaces.append((kind, None))
        elif kind in ("mine", "treasure") and len(parts) == 2:
            v = parts[1]
            if kind == "mine" and v == "?":
                spaces.append(("mine", "?"))
                continue
            if not re.fullmatch(r"[1-9][0-9]?", v):
                raise DataError(f"{entry}: the number of a {kind} must be 1 to 99" + (" or ?" if kind == "mine" else ""))
            spaces.append((kind, int(v)))
        else:
            raise DataError(f"{entry}: unknown space; expected \"start\", \"mine N\", \"mine ?\", "
                            "\"treasure N\", \"wasteland\" or \"lot\"")
    return tuple(spaces)


def items_from(raw: Any, where: str) -> tuple[str, ...]:
    """The item deck of a data file or option, checked."""
    if not isinstance(raw, list) or not raw:
        raise DataError(f"{where}: 'items' must be a non-empty list of item cards, saw {raw!r}")
    for i, c in enumerate(raw):
        ok = isinstance(c, str) and (c in ROBOTS or re.fullmatch(r"[+-][1-9][0-9]?", c))
        if not ok:
            raise DataError(f"{where}: item card {i + 1} ({c!r}) is unknown; expected \"+N\" or \"-N\" (N 1 to 99), "
                            "\"copy\", \"cancel\", \"swap\" or \"develop\"")
    return tuple(raw)


def load_data(path: str | Path | None = None) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
    """Board and item deck of a TOML file (default: the packaged data file), checked."""
    if path is None:
        return _default_data()
    return _read_data(path)


@lru_cache(maxsize=1)
def _default_data() -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
    return _read_data(None)


def _read_data(path: str | Path | None) -> tuple[tuple[tuple[str, Any], ...], tuple[str, ...]]:
    where, data = read_toml(DATA_FILE, path, DataError)
    return board_from(data.get("board"), where), items_from(data.get("items"), where)


def space_text(space: tuple[str, Any]) -> tuple[str, str]:
    kind, value = space
    if value is None:
        return kind, KIND_JA[kind]
    return f"{kind} {value}", f"{KIND_JA[kind]}{value}"


def item_ja(card: str) -> str:
    return ITEM_JA.get(card, card)


# --- state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A game of Flying Dwarves. Seat-indexed tuples follow ``seats``; ``p`` is spaces moved."""

    seats: tuple[Seat, ...]
    board: tuple[tuple[str, Any], ...]
    item_cards: tuple[str, ...]
    deck_mode: str
    rng: Rng
    events: tuple[str, ...] = ()
    log: tuple[tuple[str, str], ...] = ()
    phase: str = "handicap"
    round: int = 0
    order: tuple[int, ...] = ()
    mover: int | None = None
    tasks: tuple[tuple, ...] = ()
    handicaps_left: tuple[str, ...] = ()
    handicaps: tuple[str | None, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    discards: tuple[tuple[int, ...], ...] = ()
    chosen: tuple[int | None, ...] = ()
    played: tuple[int | None, ...] = ()
    p: tuple[int, ...] = ()
    moved: tuple[bool, ...] = ()
    points: tuple[int, ...] = ()
    supply: tuple[int, ...] = ()
    start_cube: tuple[bool, ...] = ()
    offered: tuple[bool, ...] = ()
    cubes: tuple[tuple[int, ...], ...] = ()  # per space, cubes per seat
    items: tuple[tuple[str, ...], ...] = ()
    deck: tuple[str, ...] = ()
    used: tuple[str, ...] = ()
    finished: tuple[int, ...] = ()
    ex_played: tuple[tuple[int, str], ...] = ()
    ex_done: bool = False
    priority: int | None = None
    passes: int = 0
    modifier: int = 0
    final: tuple[tuple[int, int], ...] = ()  # (penalty, majority) per seat once over
    winners: tuple[int, ...] = ()


def _set(values: tuple, i: int, value: Any) -> tuple:
    return values[:i] + (value,) + values[i + 1:]


def cap(state: State) -> int:
    """Cubes a lot holds at most: 2 with 3 seats, else 3."""
    return 2 if len(state.seats) == 3 else 3


def top_card(state: State) -> int:
    return 5 if len(state.seats) == 5 else 4


def lots_with_room(state: State) -> list[int]:
    c = cap(state)
    return [k for k, s in enumerate(state.board) if s[0] == "lot" and sum(state.cubes[k]) < c]


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: handicaps are chosen first, from the last seat back to the second."""
    seated = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SetupError(f"unknown option(s) {unknown}; Flying Dwarves takes {', '.join(OPTIONS)}")
    deck_mode = options.get("deck", "dealt")
    if deck_mode not in DECK_MODES:
        raise SetupError(f"option deck must be \"dealt\" or \"physical\", saw {deck_mode!r}")
    try:
        board, cards = load_data()
        if "board" in options:
            board = board_from(options["board"], "option board")
        if "items" in options:
            cards = items_from(options["items"], "option items")
    except DataError as exc:
        raise SetupError(str(exc)) from None
    rng = rng_seed(seed)
    n = len(seated)
    deck: tuple[str, ...] = tuple(sorted(cards))
    if deck_mode == "dealt":
        deck, rng = rng_shuffle(rng, cards)
    hand = tuple(range(top_card_n(n) + 1))
    state = State(
        seats=seated, board=board, item_cards=tuple(cards), deck_mode=deck_mode, rng=rng,
        handicaps_left=tuple(HANDICAPS[:n - 1]), handicaps=(None,) * n,
        hands=(hand,) * n, discards=((),) * n, chosen=(None,) * n, played=(None,) * n,
        p=(0,) * n, moved=(False,) * n, points=(START_POINTS,) * n, supply=(SUPPLY,) * n,
        start_cube=(True,) * n, offered=(False,) * n, cubes=((0,) * n,) * len(board),
        items=((),) * n, deck=deck,
        tasks=tuple(("handicap", i) for i in range(n - 1, 0, -1)) + (("round",),),
    )
    state = _say(state, "The game starts; handicaps are chosen from the last seat back.",
                 "ゲーム開始。手番の後ろの人からハンデを選びます。")
    return _advance(state)


def top_card_n(n: int) -> int:
    return 5 if n == 5 else 4


# --- helpers -----------------------------------------------------------------------------


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _say(state: State, en: str, ja: str) -> State:
    return replace(state, log=state.log + ((en, ja),))


def _space(state: State, i: int) -> int:
    return state.p[i] % len(state.board)


def _draw_dealt(state: State, i: int, n: int) -> State:
    deck, used, rng = list(state.deck), state.used, state.rng
    got = []
    for _ in range(n):
        if not deck:
            if not used:
                break
            shuffled, rng = rng_shuffle(rng, used)
            deck, used = list(shuffled), ()
        got.append(deck.pop(0))
    name = _names(state)[i]
    state = replace(state, deck=tuple(deck), used=used, rng=rng,
                    items=_set(state.items, i, state.items[i] + tuple(got)))
    return _say(state, f"{name} draws {len(got)} item card(s).", f"{name}はアイテムカードを{len(got)}枚引きます。")


def _draw_due(state: State, n: int) -> int:
    return min(n, len(state.deck) + len(state.used))


def _advance(state: State) -> State:
    """Carry out pending tasks until one needs an event (its phase is set) or none is left."""
    while state.tasks:
        task = state.tasks[0]
        kind = task[0]
        rest = state.tasks[1:]
        if kind == "handicap":
            return replace(state, phase="handicap")
        if kind == "draw":
            _, i, n = task
            if state.deck_mode == "dealt":
                state = replace(_draw_dealt(state, i, n), tasks=rest)
                continue
            if _draw_due(state, n) == 0:
                state = replace(state, tasks=rest)
                continue
            return replace(state, phase="draw")
        if kind == "round":
            n = len(state.seats)
            r = state.round + 1
            first = (r - 1) % n
            order = tuple((first + k) % n for k in range(n))
            state = replace(state, round=r, order=order, chosen=(None,) * n, played=(None,) * n,
                            moved=(False,) * n, mover=None, phase="propel")
            return _say(state, f"Round {r}: {_names(state)[first]} starts; choose your propulsion cards in secret.",
                        f"第{r}ラウンド: {_names(state)[first]}から。推進カードを秘密に選んでください。")
        if kind == "turn":
            return replace(state, phase="move", mover=task[1], ex_played=(), ex_done=False, priority=None,
                           passes=0, modifier=0)
        if kind == "swap":
            cands = _swap_candidates(state)
            if len(cands) >= 2:
                return replace(state, phase="swap")
            state = replace(state, tasks=rest)
            if cands:
                state = _do_swap(state, task[1], cands[0])
            continue
        if kind == "develop":
            if state.supply[state.mover] > 0 and lots_with_room(state):
                return replace(state, phase="develop")
            state = replace(state, tasks=rest)
            continue
        if kind == "go":
            state = replace(state, tasks=rest, phase="move", ex_done=True)
            return state
        if kind == "discard":
            if any(c > 0 for c in state.hands[task[1]]):
                return replace(state, phase="discard")
            state = replace(state, tasks=rest)
            continue
        if kind == "invest":
            _, i, k = task
            if state.supply[i] > 0 and sum(state.cubes[k]) < cap(state):
                return replace(state, phase="invest")
            state = replace(state, tasks=rest)
            continue
        if kind == "start_cube":
            i = task[1]
            if state.start_cube[i] and not state.offered[i] and state.p[i] >= len(state.board):
                state = replace(state, offered=_set(state.offered, i, True))
                if lots_with_room(state):
                    return replace(state, phase="start_cube")
                name = _names(state)[i]
                state = _say(state, f"{name} completes a lap; no lot has room, the start cube stays.",
                             f"{name}は1周しました。空いている空き地がないため、スタートのキューブはそのままです。")
            state = replace(state, tasks=rest)
            continue
        if kind == "goal":
            i = task[1]
            state = replace(state, tasks=rest)
            if state.p[i] >= 2 * len(state.board) and i not in state.finished:
                k = len(state.finished)
                bonus = GOAL_BONUS[k] if k < len(GOAL_BONUS) else 0
                name = _names(state)[i]
                state = replace(state, finished=state.finished + (i,), points=_set(state.points, i, state.points[i] + bonus))
                state = _say(state, f"{name} reaches the goal, arrival {k + 1}: +{bonus} points.",
                             f"{name}がゴール（{k + 1}着）: {bonus}点。")
            continue
        if kind == "card":
            i = task[1]
            c = state.played[i]
            state = replace(state, tasks=rest, mover=None)
            if c == 0:
                state = replace(state, hands=_set(state.hands, i, tuple(sorted(state.hands[i] + (0,)))))
            elif c is not None:
                state = replace(state, discards=_set(state.discards, i, tuple(sorted(state.discards[i] + (c,)))))
            continue
        if kind == "round_end":
            state = replace(state, tasks=rest)
            if len(state.finished) >= 2:
                return _game_over(state)
            state = replace(state, tasks=(("round",),) + state.tasks)
            continue
        raise AssertionError(f"unknown task {task!r}")
    return state


def final_parts(state: State) -> list[tuple[int, int]]:
    """(distance penalty, lot majority points) per seat, as the end would score them now."""
    n, L = len(state.seats), len(state.board)
    out = []
    for i in range(n):
        pen = 0
        if i not in state.finished:
            d = 2 * L - state.p[i]
            if d > 5:
                pen = 3 * -(-(d - 5) // 5)
        maj = 0
        for counts in state.cubes:
            best = max(counts)
            if best and counts[i] == best and counts.count(best) == 1:
                maj += MAJORITY[min(sum(counts), 3)]
        out.append((pen, maj))
    return out


def _game_over(state: State) -> State:
    parts = final_parts(state)
    totals = [pt - pen + maj for pt, (pen, maj) in zip(state.points, parts)]
    best = max(totals)
    winners = tuple(i for i, t in enumerate(totals) if t == best)
    names = _names(state)
    state = replace(state, phase="over", final=tuple(parts), points=tuple(totals), winners=winners, mover=None)
    for i, (pen, maj) in enumerate(parts):
        state = _say(state, f"{names[i]}: distance penalty -{pen}, lot majorities +{maj}, total {totals[i]}.",
                     f"{names[i]}: 距離ペナルティ -{pen}、開拓マス所有 +{maj}、合計{totals[i]}点。")
    w = ", ".join(names[i] for i in winners)
    return _say(state, f"The game is over; {w} win(s).", f"ゲーム終了。勝者: {'・'.join(names[i] for i in winners)}。")


def _swap_candidates(state: State) -> list[int]:
    m = state.mover
    above = [j for j in range(len(state.seats)) if j != m and j not in state.finished and state.p[j] > state.p[m]]
    if not above:
        return []
    least = min(state.p[j] for j in above)
    return [j for j in above if state.p[j] == least]


def _do_swap(state: State, user: int, j: int) -> State:
    m = state.mover
    p = _set(_set(state.p, m, state.p[j]), j, state.p[m])
    names = _names(state)
    state = replace(state, p=p)
    return _say(state, f"{names[user]}'s swap robot: {names[m]} and {names[j]} exchange places.",
                f"{names[user]}の入れ替えロボット: {names[m]}と{names[j]}が場所を交換。")


def resolve_items(played: Sequence[str]) -> tuple[list[str | None], list[bool]]:
    """Each played item's effect in play order (copy resolved) and whether it is voided."""
    eff: list[str | None] = []
    for k, c in enumerate(played):
        if c == "copy":
            eff.append(eff[k - 1] if k > 0 else None)
        else:
            eff.append(c)
    void = [False] * len(played)
    for k in range(len(played) - 1, -1, -1):
        if eff[k] == "cancel" and not void[k] and k > 0:
            void[k - 1] = True
    return eff, void


def _resolve_exchange(state: State) -> State:
    eff, void = resolve_items([c for _, c in state.ex_played])
    mod = 0
    robots: list[tuple] = []
    for (user, _), e, v in zip(state.ex_played, eff, void):
        if v or e is None:
            continue
        if e[0] in "+-":
            mod += int(e)
        elif e == "swap":
            robots.append(("swap", user))
        elif e == "develop":
            robots.append(("develop",))
    state = replace(state, modifier=mod, priority=None, passes=0, tasks=tuple(robots) + (("go",),) + state.tasks)
    state = _say(state, f"The items resolve: move {mod:+d}.", f"アイテム解決: 移動 {mod:+d}。")
    return _advance(state)


# --- expects -----------------------------------------------------------------------------


def _field(name: str, kind: str, en: str, ja: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": kind, "label": text(en, ja), **more}


def _opt(value: Any, en: str, ja: str) -> dict[str, Any]:
    return {"value": value, "label": text(en, ja)}


def _item_options(state: State, i: int) -> list[dict[str, Any]]:
    return [_opt(c, c, item_ja(c)) for c in sorted(set(state.items[i]))]


def _lot_options(state: State, none: bool) -> list[dict[str, Any]]:
    opts = [_opt(k, f"lot at space {k}", f"{k}番の空き地") for k in lots_with_room(state)]
    if none:
        opts.append(_opt(None, "none", "なし"))
    return opts


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = _names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": [names[i] for i in state.winners]}
    inputs = out["inputs"]
    task = state.tasks[0] if state.tasks else None
    ph = state.phase
    if ph == "handicap":
        i = task[1]
        inputs.append({
            "type": "handicap", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: choose your handicap.", f"{names[i]}: ハンデを選んでください。"),
            "fields": [_field("choice", "choice", "Handicap", "ハンデ",
                              options=[_opt(h, h, HANDICAP_JA[h]) for h in state.handicaps_left])],
        })
    elif ph == "draw":
        _, i, n = task
        n = _draw_due(state, n)
        pool = sorted(set(state.deck) | (set(state.used) if n > len(state.deck) else set()))
        inputs.append({
            "type": "draw", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: draw {n} item card(s) and name them.",
                           f"{names[i]}: アイテムカードを{n}枚引いて入力してください。"),
            "fields": [_field("cards", "multi", "Cards drawn", "引いたカード", min=n, max=n, repeat=True,
                              options=[_opt(c, c, item_ja(c)) for c in pool])],
        })
    elif ph == "propel":
        inputs.append({
            "type": "propel", "seats": [names[i] for i in range(len(names)) if state.chosen[i] is None],
            "secret": True,
            "prompt": text("Choose in secret a propulsion card from your hand.",
                           "手札から推進カードを1枚、秘密に選んでください。"),
            "fields": [_field("card", "number", "Propulsion card", "推進カード", min=0, max=top_card(state),
                              button=True)],
        })
    elif ph in ("move", "exchange"):
        m = state.mover
        if ph == "move" and not state.ex_done:
            holders = [i for i in range(len(names)) if state.items[i]]
            for i in holders:
                inputs.append({
                    "type": "item", "seats": [names[i]], "secret": False,
                    "prompt": text(f"{names[i]}: you may use an item card on {names[m]}'s move.",
                                   f"{names[i]}: {names[m]}の移動にアイテムカードを使えます。"),
                    "fields": [_field("card", "choice", "Item card", "アイテムカード", options=_item_options(state, i))],
                })
        if ph == "move":
            inputs.append({
                "type": "move", "seats": [names[m]], "secret": False,
                "prompt": text(f"{names[m]}: move your disc {state.played[m]} space(s)"
                               + (f", {state.modifier:+d} by items." if state.modifier else "."),
                               f"{names[m]}: 駒を{state.played[m]}マス進めてください"
                               + (f"（アイテム {state.modifier:+d}）。" if state.modifier else "。")),
                "fields": [],
            })
        else:
            i = state.priority
            inputs.append({
                "type": "item", "seats": [names[i]], "secret": False,
                "prompt": text(f"{names[i]}: use another item card on {names[m]}'s move, or pass.",
                               f"{names[i]}: {names[m]}の移動にアイテムカードを使うか、パスしてください。"),
                "fields": [_field("card", "choice", "Item card", "アイテムカード", options=_item_options(state, i))],
            })
            inputs.append({
                "type": "pass", "seats": [names[i]], "secret": False,
                "prompt": text(f"{names[i]}: pass.", f"{names[i]}: パス。"), "fields": [],
            })
    elif ph == "swap":
        user = task[1]
        inputs.append({
            "type": "swap", "seats": [names[user]], "secret": False,
            "prompt": text(f"{names[user]}: choose whom {names[state.mover]} swaps places with.",
                           f"{names[user]}: {names[state.mover]}と場所を交換する相手を選んでください。"),
            "fields": [_field("with", "choice", "Swap with", "交換相手",
                              options=[_opt(names[j], names[j], names[j]) for j in _swap_candidates(state)])],
        })
    elif ph == "develop":
        m = state.mover
        inputs.append({
            "type": "develop", "seats": [names[m]], "secret": False,
            "prompt": text(f"{names[m]}: the development robot places one of your cubes on a lot.",
                           f"{names[m]}: 開拓ロボットで空き地にキューブを置けます。"),
            "fields": [_field("lot", "choice", "Lot", "空き地", options=_lot_options(state, True))],
        })
    elif ph == "discard":
        i = task[1]
        inputs.append({
            "type": "discard", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: you may discard a propulsion card for its number in points.",
                           f"{names[i]}: 推進カードを1枚捨てて、その数字の勝利点を得られます。"),
            "fields": [_field("card", "choice", "Card", "カード",
                              options=[_opt(c, str(c), str(c)) for c in state.hands[i] if c > 0]
                              + [_opt(None, "none", "捨てない")])],
        })
    elif ph == "invest":
        i = task[1]
        inputs.append({
            "type": "invest", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: invest a cube in this lot?", f"{names[i]}: この空き地に投資しますか？"),
            "fields": [_field("place", "bool", "Place a cube", "キューブを置く")],
        })
    elif ph == "start_cube":
        i = task[1]
        inputs.append({
            "type": "start_cube", "seats": [names[i]], "secret": False,
            "prompt": text(f"{names[i]}: move your start cube to a free lot, or keep it.",
                           f"{names[i]}: スタートのキューブを空き地に移すか、そのままにしてください。"),
            "fields": [_field("lot", "choice", "Lot", "空き地", options=_lot_options(state, True))],
        })
    return out


# --- apply -------------------------------------------------------------------------------

_KEYS = {
    "handicap": ({"seat", "choice"}, set()),
    "draw": ({"seat", "cards"}, set()),
    "propel": ({"seat", "card"}, set()),
    "item": ({"seat", "card"}, set()),
    "pass": ({"seat"}, set()),
    "swap": ({"seat", "with"}, set()),
    "develop": ({"seat", "lot"}, set()),
    "move": ({"seat"}, set()),
    "discard": ({"seat", "card"}, set()),
    "invest": ({"seat", "place"}, set()),
    "start_cube": ({"seat", "lot"}, set()),
}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    kind = event_kind(event, _KEYS)
    if state.phase == "over":
        raise IllegalEvent("the game is over; no event is expected")
    i = _seat_index(state, event["seat"])
    handler = {"handicap": _handicap, "draw": _draw, "propel": _propel, "item": _item, "pass": _pass,
               "swap": _swap, "develop": _develop, "move": _move, "discard": _discard, "invest": _invest,
               "start_cube": _start_cube}[kind]
    new = handler(state, i, event)
    return replace(new, events=state.events + (event_text(event),))


def _seat_index(state: State, name: Any) -> int:
    names = _names(state)
    if name not in names:
        raise IllegalEvent(f"unknown seat {name!r}; the seats are {', '.join(names)}")
    return names.index(name)


def _waiting_for(state: State) -> str:
    names = _names(state)
    ex = expects(state)
    parts = []
    for inp in ex["inputs"]:
        who = "any seat due" if inp.get("secret") else (", ".join(inp["seats"]) or "the host")
        parts.append(f"{inp['type']} from {who}")
    return "the table is waiting for " + " or ".join(parts) if parts else f"nothing is expected ({names and state.phase})"


def _due(state: State, i: int, kind: str, phases: tuple[str, ...], seat: int | None) -> None:
    if state.phase not in phases or (seat is not None and seat != i):
        raise IllegalEvent(f"{_names(state)[i]} cannot {kind} now; {_waiting_for(state)}")


def _pop(state: State) -> State:
    return replace(state, tasks=state.tasks[1:])


def _handicap(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "choose a handicap", ("handicap",), state.tasks[0][1] if state.phase == "handicap" else None)
    choice = event["choice"]
    if choice not in state.handicaps_left:
        raise IllegalEvent(f"handicap {choice!r} is not available; choose one of {', '.join(state.handicaps_left)}")
    name = _names(state)[i]
    left = tuple(h for h in state.handicaps_left if h != choice)
    state = replace(_pop(state), handicaps_left=left, handicaps=_set(state.handicaps, i, choice))
    state = _say(state, f"{name} takes the handicap {choice}.", f"{name}はハンデ「{HANDICAP_JA[choice]}」を選びました。")
    n, what = int(choice[0]), choice.split()[1]
    if what.startswith("point"):
        state = replace(state, points=_set(state.points, i, state.points[i] + n))
    else:
        state = replace(state, tasks=(("draw", i, n),) + state.tasks)
    return _advance(state)


def _draw(state: State, i: int, event: Mapping[str, Any]) -> State:
    if state.deck_mode == "dealt":
        raise IllegalEvent("the item deck is dealt by the table (deck \"dealt\"); no draw event is expected")
    _due(state, i, "draw", ("draw",), state.tasks[0][1] if state.phase == "draw" else None)
    cards = event["cards"]
    n = _draw_due(state, state.tasks[0][2])
    if not isinstance(cards, list) or len(cards) != n or not all(isinstance(c, str) for c in cards):
        raise IllegalEvent(f"draw exactly {n} item card(s), named like \"+1\" or \"copy\"; saw {cards!r}")
    got, deck = Counter(cards), Counter(state.deck)
    used = state.used
    if n <= len(state.deck):
        if got - deck:
            raise IllegalEvent(f"{sorted(got - deck)} not in the item deck; it holds {sorted(state.deck)}")
        deck = deck - got
    else:
        rest = got - deck
        if deck - got:
            raise IllegalEvent(f"the deck holds {sorted(state.deck)}: all of it is drawn before the used pile")
        if rest - Counter(used):
            raise IllegalEvent(f"{sorted(rest - Counter(used))} not in the deck or the used pile "
                               f"(used pile: {sorted(used)})")
        deck = Counter(used) - rest
        used = ()
    name = _names(state)[i]
    state = replace(_pop(state), deck=tuple(sorted(deck.elements())), used=used,
                    items=_set(state.items, i, state.items[i] + tuple(cards)))
    state = _say(state, f"{name} draws {n} item card(s).", f"{name}はアイテムカードを{n}枚引きます。")
    return _advance(state)


def _propel(state: State, i: int, event: Mapping[str, Any]) -> State:
    if state.phase != "propel":
        raise IllegalEvent(f"no propulsion card is being chosen now; {_waiting_for(state)}")
    if state.chosen[i] is not None:
        raise IllegalEvent("you have already chosen your propulsion card this round")
    card = event["card"]
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card <= 5:
        raise IllegalEvent(f"a propulsion card is a number 0-5, saw {card!r}")
    if card > top_card(state):
        raise IllegalEvent(f"there is no propulsion card {card} with {len(state.seats)} players (cards 0-{top_card(state)})")
    hand = state.hands[i]
    if card not in hand:
        raise IllegalEvent(f"card {card} is not in your hand; your hand holds {', '.join(map(str, hand))}")
    state = replace(state, chosen=_set(state.chosen, i, card))
    if any(c is None for c in state.chosen):
        return state
    return _reveal(state)


def _reveal(state: State) -> State:
    names = _names(state)
    hands, discards = list(state.hands), list(state.discards)
    for i, c in enumerate(state.chosen):
        h = list(hands[i])
        h.remove(c)
        if c == 0:
            h += discards[i]
            discards[i] = ()
        hands[i] = tuple(sorted(h))
    state = replace(state, hands=tuple(hands), discards=tuple(discards), played=state.chosen, chosen=(None,) * len(names),
                    tasks=tuple(("turn", i) for i in state.order) + (("round_end",),) + state.tasks[1:])
    shown = ", ".join(f"{names[i]} {state.played[i]}" for i in state.order)
    state = _say(state, f"Reveal: {shown}.", f"公開: {'、'.join(f'{names[i]} {state.played[i]}' for i in state.order)}。")
    return _advance(state)


def _item(state: State, i: int, event: Mapping[str, Any]) -> State:
    if state.phase == "move" and state.ex_done:
        raise IllegalEvent(f"the item exchange for this move is over; {_waiting_for(state)}")
    if state.phase == "exchange":
        _due(state, i, "use an item", ("exchange",), state.priority)
    elif state.phase != "move":
        raise IllegalEvent(f"items are used only before a move; {_waiting_for(state)}")
    card = event["card"]
    if card not in state.items[i]:
        held = ", ".join(state.items[i]) or "none"
        raise IllegalEvent(f"{_names(state)[i]} holds no item {card!r} (holds: {held})")
    h = list(state.items[i])
    h.remove(card)
    names = _names(state)
    state = replace(state, phase="exchange", items=_set(state.items, i, tuple(h)), used=state.used + (card,),
                    ex_played=state.ex_played + ((i, card),), passes=0, priority=i)
    state = _say(state, f"{names[i]} plays {card} on {names[state.mover]}'s move.",
                 f"{names[i]}が{names[state.mover]}の移動に「{item_ja(card)}」を使用。")
    return _next_priority(state)


def _next_priority(state: State) -> State:
    """Priority moves a seat clockwise; seats without items pass by themselves."""
    n = len(state.seats)
    pr, passes = state.priority, state.passes
    while True:
        pr = (pr + 1) % n
        if state.items[pr]:
            return replace(state, priority=pr, passes=passes)
        passes += 1
        if passes >= n:
            return _resolve_exchange(replace(state, passes=passes))


def _pass(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "pass", ("exchange",), state.priority)
    state = replace(state, passes=state.passes + 1)
    if state.passes >= len(state.seats):
        return _resolve_exchange(state)
    return _next_priority(state)


def _swap(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "choose a swap", ("swap",), state.tasks[0][1] if state.phase == "swap" else None)
    cands = _swap_candidates(state)
    names = _names(state)
    other = event["with"]
    if other not in names or names.index(other) not in cands:
        raise IllegalEvent(f"{other!r} is no swap candidate; choose {' or '.join(names[j] for j in cands)}")
    return _advance(_do_swap(_pop(state), i, names.index(other)))


def _place(state: State, i: int, k: int) -> State:
    return replace(state, supply=_set(state.supply, i, state.supply[i] - 1),
                   cubes=_set(state.cubes, k, _set(state.cubes[k], i, state.cubes[k][i] + 1)))


def _lot_arg(state: State, lot: Any) -> int | None:
    if lot is None:
        return None
    if isinstance(lot, bool) or not isinstance(lot, int) or lot not in lots_with_room(state):
        rooms = ", ".join(map(str, lots_with_room(state)))
        raise IllegalEvent(f"space {lot!r} is not a lot with room; choose one of {rooms} or null")
    return lot


def _develop(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "develop", ("develop",), state.mover)
    k = _lot_arg(state, event["lot"])
    state = _pop(state)
    name = _names(state)[i]
    if k is not None:
        state = _say(_place(state, i, k), f"{name}'s development robot places a cube on lot {k}.",
                     f"{name}の開拓ロボットが{k}番の空き地にキューブを置きます。")
    return _advance(state)


def _start_cube(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "move the start cube", ("start_cube",), state.tasks[0][1] if state.phase == "start_cube" else None)
    k = _lot_arg(state, event["lot"])
    state = _pop(state)
    name = _names(state)[i]
    if k is not None:
        state = replace(state, start_cube=_set(state.start_cube, i, False),
                        cubes=_set(state.cubes, k, _set(state.cubes[k], i, state.cubes[k][i] + 1)))
        state = _say(state, f"{name} moves the start cube to lot {k}.", f"{name}はスタートのキューブを{k}番の空き地へ。")
    return _advance(state)


def _move(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "move", ("move",), state.mover)
    n, L = len(state.seats), len(state.board)
    names = _names(state)
    start = state.p[i]
    steps = max(0, state.played[i] + state.modifier)
    target = start + steps
    taken = {state.p[j] % L for j in range(n) if j != i and state.moved[j]}
    while target > start and state.board[target % L][0] != "treasure" and target % L in taken:
        target -= 1
    state = replace(_pop(state), p=_set(state.p, i, target), moved=_set(state.moved, i, True), modifier=0)
    k = target % L
    tasks: list[tuple] = []
    if target == start:
        state = _say(state, f"{names[i]} stays on space {k}.", f"{names[i]}は{k}番のマスに留まります。")
    else:
        en, ja = space_text(state.board[k])
        state = _say(state, f"{names[i]} moves {target - start} to space {k} ({en}).",
                     f"{names[i]}は{target - start}マス進み{k}番（{ja}）へ。")
        state, tasks = _land(state, i, k)
    state = replace(state, tasks=tuple(tasks) + (("start_cube", i), ("goal", i), ("card", i)) + state.tasks)
    return _advance(state)


def _land(state: State, i: int, k: int) -> tuple[State, list[tuple]]:
    kind, value = state.board[k]
    names = _names(state)
    if kind == "mine" and value == "?":
        return state, [("discard", i)]
    if kind == "mine":
        state = replace(state, points=_set(state.points, i, state.points[i] + value))
        return _say(state, f"{names[i]} mines {value} point(s).", f"{names[i]}は{value}点を採掘。"), []
    if kind == "treasure":
        return state, [("draw", i, value)]
    if kind == "wasteland":
        hand = list(state.hands[i])
        lost = sorted((c for c in hand if c > 0), reverse=True)[:2]
        for c in lost:
            hand.remove(c)
        state = replace(state, hands=_set(state.hands, i, tuple(hand)),
                        discards=_set(state.discards, i, tuple(sorted(state.discards[i] + tuple(lost)))))
        what = ", ".join(map(str, lost)) or "nothing"
        return _say(state, f"{names[i]} discards {what} in the wasteland.", f"{names[i]}は荒野で{what}を捨てます。"), []
    if kind == "lot":
        counts = state.cubes[k]
        points = list(state.points)
        if counts[i]:
            points[i] += sum(counts)
            state = _say(replace(state, points=tuple(points)), f"{names[i]} scores {sum(counts)} on a lot of theirs.",
                         f"{names[i]}は自分の開拓マスで{sum(counts)}点。")
        elif sum(counts):
            for j, c in enumerate(counts):
                if c:
                    points[i] -= c
                    points[j] += c
            state = _say(replace(state, points=tuple(points)), f"{names[i]} pays the lot's owners {sum(counts)}.",
                         f"{names[i]}は開拓マスの所有者に{sum(counts)}点を払います。")
        return state, [("invest", i, k)]
    return state, []


def _discard(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "discard", ("discard",), state.tasks[0][1] if state.phase == "discard" else None)
    card = event["card"]
    name = _names(state)[i]
    if card is not None:
        if isinstance(card, bool) or not isinstance(card, int) or card <= 0 or card not in state.hands[i]:
            raise IllegalEvent(f"discard a card above 0 from your hand ({', '.join(str(c) for c in state.hands[i] if c)}) "
                               "or null")
        h = list(state.hands[i])
        h.remove(card)
        state = replace(state, hands=_set(state.hands, i, tuple(h)), points=_set(state.points, i, state.points[i] + card),
                        discards=_set(state.discards, i, tuple(sorted(state.discards[i] + (card,)))))
        state = _say(state, f"{name} discards {card} for {card} point(s).", f"{name}は{card}を捨てて{card}点。")
    return _advance(_pop(state))


def _invest(state: State, i: int, event: Mapping[str, Any]) -> State:
    _due(state, i, "invest", ("invest",), state.tasks[0][1] if state.phase == "invest" else None)
    place = event["place"]
    if not isinstance(place, bool):
        raise IllegalEvent(f"'place' is true or false, saw {place!r}")
    k = state.tasks[0][2]
    state = _pop(state)
    if place:
        name = _names(state)[i]
        state = _say(_place(state, i, k), f"{name} invests a cube in lot {k}.", f"{name}は{k}番の空き地に投資。")
    return _advance(state)


# --- view --------------------------------------------------------------------------------


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it; with ``seat``, that seat's own hand and items under "mine"."""
    names = _names(state)
    n, L = len(names), len(state.board)
    revealed = state.phase != "propel"
    out: dict[str, Any] = {
        "game": GAME,
        "phase": state.phase,
        "round": state.round,
        "scores": {names[i]: state.points[i] for i in range(n)},
        "winners": [names[i] for i in state.winners],
        "seats": [s.as_dict() for s in state.seats],
        "board": [{"space": k, "kind": s[0], "value": s[1]} for k, s in enumerate(state.board)],
        "positions": {names[i]: state.p[i] % L for i in range(n)},
        "progress": {names[i]: state.p[i] for i in range(n)},
        "laps": {names[i]: state.p[i] // L for i in range(n)},
        "discs": {str(k): [names[i] for i in range(n) if state.p[i] % L == k]
                  for k in sorted({p % L for p in state.p})},
        "lots": {str(k): {names[i]: c[i] for i in range(n) if c[i]} for k, c in enumerate(state.cubes) if sum(c)},
        "cap": cap(state),
        "start_cubes": [names[i] for i in range(n) if state.start_cube[i]],
        "supply": {names[i]: state.supply[i] for i in range(n)},
        "hand_sizes": {names[i]: len(state.hands[i]) for i in range(n)},
        "discards": {names[i]: list(state.discards[i]) for i in range(n)},
        "items": {names[i]: len(state.items[i]) for i in range(n)},
        "deck": {"mode": state.deck_mode, "left": len(state.deck), "used": len(state.used)},
        "handicaps": {names[i]: state.handicaps[i] for i in range(n) if state.handicaps[i]},
        "finished": [names[i] for i in state.finished],
        "order": [names[i] for i in state.order] if revealed and state.order else [],
        "played": ({names[i]: state.played[i] for i in range(n)}
                   if revealed and state.phase != "over" and any(c is not None for c in state.played) else {}),
        "mover": names[state.mover] if state.mover is not None else None,
        "exchange": [{"seat": names[u], "card": c} for u, c in state.ex_played] if state.mover is not None else [],
        "modifier": state.modifier,
        "final": ({names[i]: {"penalty": state.final[i][0], "majority": state.final[i][1]} for i in range(n)}
                  if state.final else None),
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
            "hand": list(state.hands[i]),
            "items": sorted(state.items[i]),
            "chosen": (state.chosen[i] if state.phase == "propel"
                       else state.played[i] if state.phase != "over" else None),
            "to_choose": state.phase == "propel" and state.chosen[i] is None,
        }
    return out
