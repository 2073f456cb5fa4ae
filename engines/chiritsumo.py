"""Chiritsumo (ちりつも): dice stacked into pyramids, 1 to 4 players.

The rules are docs/rules/chiritsumo.md:
each round every seat throws all the dice it holds (clear 透明, yellow 黄, red 赤, blue
青) and builds (積む) a pyramid of 4, 3, 2 and 1 places. Option ``mode`` (the only one,
default by the number of seats): ``garden`` (箱庭, 2-4 seats: exchanges とばっ塵 after
complete pyramids, the dust pile 塵の山, instant wins by Fuji or 4 clear dice ちりつも, a
total above 30) or ``solo`` (ちりが積もるまで, 1 seat: swaps for reserve clear dice, a rank
at the end). The pyramid rules, patterns (役) and best pyramid are
``engines/chiritsumo_pyramid.py`` and what the game waits for ``expects`` in
``engines/chiritsumo_inputs.py`` (both re-exported here); the game's words its glossary
(``engines/data/chiritsumo.toml``, ``GLOSSARY``); the ``chiritsumo-best`` command
``engines/chiritsumo_cli.py`` (``COMMANDS``, re-exported here).

Events (docs/replay.md, "Chiritsumo events, by example"; the moves table ``MOVES``):
  ``{"type": "throw", "seat": "Aki", "dice": [["clear", 2], ["yellow", 4], ...]}``
  ``{"type": "build", "seat": "Aki", "rows": [[4 dice or null], [3], [2], [1]]}``
  ``{"type": "exchange", "seat": "Ben", "with": "Aki", "give": "red", "take": "clear"}``
  ``{"type": "pass", "seat": "Ben"}``
  ``{"type": "swap", "seat": "Aki", "give": "blue"}``             (solo)
Any event may carry a ``"comment"``.

Phases: ``play`` (throws and builds, in any order, each seat throwing once a round and
building after its own throw), ``exchange`` (garden), ``swap`` (solo), ``over``.

Decisions where the printed rules are silent (following the original text):
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
- The seed is checked as every game's but unused: every die is physical, nothing is
  shuffled.
- ``expects`` offers one ``build`` input per seat due to build, its ``rows`` field
  holding that seat's thrown dice (``dice``) and the places per row (``rows``), so a
  page can offer exactly the dice the seat may place.
The table's decisions (docs/rules/chiritsumo.md) settle the rest: Fuji is checked once every seat has built, an instant win
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

from engines.chiritsumo_cli import COMMANDS
from engines.chiritsumo_inputs import BUILT, DUST, TO_BUILD, TO_THROW, counts_ja, counts_text, expects
from engines.chiritsumo_pyramid import (CLEAR, COLOURS, EN, GLOSSARY, JA, RULES, best_pyramid, check_layout, dice_text,
                                        layout_dice, rows_from, rows_json, score_pyramid)
from engines.core import (EMPTY, Chain, DataError, Die, IllegalEvent, Seat, apply_move, base_view, check_options,
                          colour_ja, count_en, dice_from, joined, move, option_choice, replace, rng_seed, say, seat_index,
                          seat_view, seats_from, short, text, waiting_for)

__all__ = ["GAME", "TITLE", "GLOSSARY", "MIN_SEATS", "MAX_SEATS", "COLOURS", "State", "MOVES", "setup", "expects",
           "apply", "view", "check_layout", "score_pyramid", "best_pyramid", "rank_of", "COMMANDS"]

GAME = "chiritsumo"
TITLE = dict(GLOSSARY["chiritsumo"])
MIN_SEATS, MAX_SEATS = 1, 4
#: What the table shows for this game (pi.web.game_uses): dice under the camera; no secret
#: numbers on seat buttons, and seat colours mark seats only (every player owns all colours).
USES = frozenset({"dice"})
MODES = ("garden", "solo")
START = (1, 3, 3, 3)
DUST_PILE = {2: (2, 3, 3, 3), 3: (1, 2, 2, 2)}
SOLO_RESERVE = 3
SOLO_NAME = "ちりが積もるまで"  # the solo rules' name in the original
POINT = EN["points"].removesuffix("s")  # "1 point" (count_en adds the s)
CLEAR_TO_WIN = 4
TARGET = 30  # a total above this ends the garden game
RANKS = ((41, "fuji"), (36, "great_mountain"), (31, "mountain"), (21, "hill"), (15, "dust_heap"), (0, "none"))
#: The solo ranks' names (the original's; two share a name with a glossary term, see the data file).
RANK_TEXT = {
    "none": ("no rank", "ランクなし"),
    "dust_heap": ("dust heap", "塵の山"),
    "hill": ("hill", "丘"),
    "mountain": ("mountain", "山"),
    "great_mountain": ("great mountain", "大山"),
    "fuji": ("Mt. Fuji", "富士山"),
}
#: The view's keys, in the order its JSON has always had.
VIEW_KEYS = ("game", "mode", "round", "phase", "scores", "winners", "seats", "round_scores", "held", "dust", "rank",
             "rank_text", "reserve", "last_round", "target", "ended_by", "pyramids", "exchange", "rules", "expects", "log")


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
    events: Chain = EMPTY
    log: Chain = EMPTY
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
    exchanges: tuple[tuple[int, str, str, str], ...] = ()  # this round (at most one per seat): (seat, partner, give, take)
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
    options = check_options({} if options is None else options, ("mode",))
    n = len(table_seats)
    mode = option_choice(options, "mode", MODES, "solo" if n == 1 else "garden")
    rng_seed(seed)  # checks the seed as every game does; nothing here is shuffled
    if mode == "solo" and n != 1:
        raise DataError(f"the {EN['solo']} is for 1 seat, saw {n}; use mode \"garden\" for 2-4 seats",
                        f"{JA['solo']}は1人用です（{n}席）。2〜4人なら mode \"garden\"（{JA['garden']}）にしてください")
    if mode == "garden" and n == 1:
        raise DataError(f"the {EN['garden']} is for 2 to 4 seats, saw 1; use mode \"solo\" for 1 seat",
                        f"{JA['garden']}は2〜4人用です（1席）。1人なら mode \"solo\"（{JA['solo']}）にしてください")
    if mode == "garden" and any(s.name == DUST for s in table_seats):
        raise DataError(f"a seat may not be named \"dust\" in the {EN['garden']}: that name is the {EN['dust_pile']}",
                        f"{JA['garden']}では席の名前を \"dust\" にできません（{JA['dust_pile']}の名前です）")
    state = State(
        seats=table_seats,
        options=json.dumps(options, sort_keys=True, ensure_ascii=False),
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
    if mode == "solo":
        how, how_ja, who, who_ja = EN["solo"], f"{JA['solo']}（{SOLO_NAME}）", "throw", ""
    else:
        how, how_ja, who, who_ja = f"{EN['garden']} for {n}", f"{JA['garden']} {n}人", "everyone throws", "全員"
    return say(state, f"{TITLE['en']}, {how}: {EN['round']} 1, {who}",
               f"{TITLE['ja']} {how_ja}: {JA['round']}1、{who_ja}{JA['dice']}を振ってください")


# --- small helpers -----------------------------------------------------------------------


def _as_dict(counts: Sequence[int]) -> dict[str, int]:
    return dict(zip(COLOURS, counts))


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _refused(state: State, en: str, ja: str) -> IllegalEvent:
    """A refusal that goes on to say what the table waits for."""
    return IllegalEvent.of(joined(text(en, ja), waiting_for(expects(state))))


def rank_of(total: int) -> str:
    """The solo rank of a total: none, dust_heap, hill, mountain, great_mountain or fuji."""
    return next(name for low, name in RANKS if total >= low)


@lru_cache(maxsize=256)
def _best_cached(dice: tuple[Die, ...]) -> tuple[Any, int, Any]:
    return best_pyramid(dice)


# --- apply -------------------------------------------------------------------------------


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    return apply_move(state, event, MOVES, expects)


def _throw(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    name = state.seats[i].name
    if state.stage[i] != TO_THROW:
        raise _refused(state, f"{name} has already thrown this {EN['round']}; ",
                       f"{name}はこの{JA['round']}ですでに振りました。")
    dice = dice_from(event["dice"])
    unknown = sorted({d.colour for d in dice} - set(COLOURS))
    if unknown:
        raise IllegalEvent(
            f"{name}'s {EN['throw']} has {EN['dice']} of colour {', '.join(unknown)}; the colours are {', '.join(COLOURS)}",
            f"{name}の{JA['throw']}に使えない色（{'・'.join(colour_ja(c) for c in unknown)}）の{JA['dice']}があります。"
            f"色は{'・'.join(colour_ja(c) for c in COLOURS)}です",
        )
    seen = Counter(d.colour for d in dice)
    counts = tuple(seen[c] for c in COLOURS)
    held = state.held[i]
    if counts != held:
        raise IllegalEvent(
            f"{name} holds {counts_text(held)} and throws them all; saw {counts_text(counts)}",
            f"{name}の{JA['held']}は{counts_ja(held)}で、すべて振ります（{counts_ja(counts)}でした）",
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
    return say(state, f"{name} threw {dice_text(dice)}", f"{name}が{dice_text(dice, ja=True)}を振った")


def _build(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    name = state.seats[i].name
    if state.stage[i] == TO_THROW:
        raise IllegalEvent(f"{name} has not thrown yet this {EN['round']}; a {EN['pyramid']} is built from the seat's own "
                           f"{EN['throw']}",
                           f"{name}はこの{JA['round']}にまだ振っていません。{JA['pyramid']}は自分の{JA['throw']}で組みます")
    if state.stage[i] == BUILT:
        raise IllegalEvent(f"{name} has already built this {EN['round']}'s {EN['pyramid']}",
                           f"{name}はこの{JA['round']}の{JA['pyramid']}をもう組みました")
    rows = rows_from(event["rows"])
    throw = state.throws[i]
    thrown = Counter((d.colour, d.face) for d in throw)  # type: ignore[union-attr]
    used = Counter((d.colour, d.face) for d in layout_dice(rows))
    for (colour, face), n in sorted(used.items()):
        had = thrown[(colour, face)]
        if n > had:
            raise IllegalEvent(
                f"{name}'s {EN['pyramid']} has {n} {colour} {face}, but {name} threw {had or 'no'} {colour} {face}: "
                f"each thrown die goes in once (the {EN['throw']}: {dice_text(throw)})",  # type: ignore[arg-type]
                f"{name}の{JA['pyramid']}に{colour_ja(colour)}の{face}が{n}個ありますが、振ったのは{had}個です。"
                f"振ったダイスはそれぞれ1回だけ置けます（{JA['throw']}: {dice_text(throw, ja=True)}）",  # type: ignore[arg-type]
            )
    problems = check_layout(rows)
    if problems:
        refusal = IllegalEvent(
            f"{name}'s {EN['pyramid']} breaks a building rule: " + "; ".join(p["en"] for p in problems),
            f"{name}の{JA['pyramid']}は積み方のルールに反しています: " + "／".join(p["ja"] for p in problems),
            problems=problems,
        )
        # pi.table reads the problems ({places, rule, en, ja}) as an attribute, to draw the
        # refused layout with its offending dice on the seat's page
        refusal.problems = problems  # type: ignore[attr-defined]
        raise refusal
    scored = score_pyramid(rows)
    state = replace(
        state,
        stage=_set(state.stage, i, BUILT),
        pyramids=_set(state.pyramids, i, rows),
        points=_set(state.points, i, scored["total"]),
        complete=_set(state.complete, i, scored["complete"]),
        fuji=_set(state.fuji, i, scored["fuji"]),
    )
    state = say(state, *_build_text(name, scored))
    if state.mode == "solo":
        return _solo_scored(state, scored)
    if all(s == BUILT for s in state.stage):
        return _garden_scored(state)
    return state


def _build_text(name: str, scored: Mapping[str, Any]) -> tuple[str, str]:
    counts = Counter(p["pattern"] for p in scored["patterns"])
    parts = [f"{n} {EN[k].lower()}{'s' if n > 1 and k != 'fuji' else ''}" for k, n in counts.items()]
    parts_ja = [f"{JA[k]}{n}" for k, n in counts.items()]
    if scored["bonus"]:
        parts.append(f"{EN['complete']} +{scored['bonus']}")
        parts_ja.append(f"{JA['complete']}+{scored['bonus']}")
    what = ", ".join(parts) or f"no {EN['pattern']}"
    what_ja = "・".join(parts_ja) or f"{JA['pattern']}なし"
    return (f"{name} built a {EN['pyramid']}: {what}: {count_en(scored['total'], POINT)}",
            f"{name}の{JA['pyramid']}: {what_ja}: {scored['total']}{JA['points']}")


def _clear_rows(rows: Sequence[Sequence[Die | None]]) -> tuple[int, ...]:
    return tuple(sorted((r for r, row in enumerate(rows) for d in row if d is not None and d.colour == CLEAR), reverse=True))


def _garden_scored(state: State) -> State:
    names = _names(state)
    points = tuple(p or 0 for p in state.points)
    state = replace(state, round_scores=points)
    listing = ", ".join(f"{n} {p}" for n, p in zip(names, points))
    state = say(state, f"{EN['round'].capitalize()} {state.round} scores: {listing}",
                f"{JA['round']}{state.round}の得点: {listing}")
    fuji = tuple(i for i, is_fuji in enumerate(state.fuji) if is_fuji)
    if fuji:
        who = " and ".join(names[i] for i in fuji)
        state = say(state, f"{EN['fuji']}! {who} win{'s' if len(fuji) == 1 else ''} at once",
                    f"{JA['fuji']}! {'と'.join(names[i] for i in fuji)}の勝利")
        return replace(state, phase="over", winners=fuji, ended_by="fuji")
    complete = [i for i, done in enumerate(state.complete) if done]

    def key(i: int) -> tuple:
        clear = _clear_rows(state.pyramids[i])  # type: ignore[arg-type]
        return (-points[i], -len(clear), tuple(-r for r in clear), i)

    order = tuple(sorted(complete, key=key))
    if not order:
        state = say(state, f"No {EN['pyramid']} is {EN['complete']}: no {EN['exchange']}",
                    f"{JA['complete']}した{JA['pyramid']}なし: {JA['exchange']}なし")
        return _end_round(state)
    who = ", ".join(names[i] for i in order)
    state = say(state, f"The {EN['exchange']}s go in this order: {who}", f"{JA['exchange']}の順番: {who}")
    return replace(state, phase="exchange", order=order, turn=0, last_exchanger=None, exchanges=())


def _due(state: State, event: Mapping[str, Any]) -> int:
    """The seat of an exchange or pass, which must be the seat due to exchange."""
    i = seat_index(state.seats, event["seat"])
    due = state.order[state.turn]
    if i != due:
        names = _names(state)
        raise IllegalEvent(f"it is {names[due]}'s {EN['turn']} to {EN['exchange']} or {EN['pass']}, not {names[i]}'s",
                           f"いまは{names[due]}の{JA['exchange']}の{JA['turn']}です（{names[i]}ではありません）")
    return i


def _exchange(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event)
    names = _names(state)
    name = names[i]
    partner, give, take = event["with"], event["give"], event["take"]
    if partner == name:
        raise IllegalEvent(f"{name} cannot {EN['exchange']} with themself; name another seat or \"dust\"",
                           f"{name}は自分自身とは{JA['exchange']}できません。ほかの席か \"dust\"（{JA['dust_pile']}）を選んでください")
    if partner == DUST:
        if state.dust is None:
            raise IllegalEvent(f"there is no {EN['dust_pile']} with {len(names)} seats; {EN['exchange']} with another seat",
                               f"{len(names)}人では{JA['dust_pile']}がありません。ほかの席と{JA['exchange']}してください")
        j = None
    else:
        if partner not in names:
            others = ", ".join(n for n in names if n != name)
            raise IllegalEvent(
                f"unknown {EN['exchange']} partner {short(partner)}; name another seat ({others})"
                + (" or \"dust\"" if state.dust is not None else ""),
                f"{JA['exchange']}の相手 {short(partner)} はいません。ほかの席（{others}）"
                + (f"か \"dust\"（{JA['dust_pile']}）" if state.dust is not None else "") + "を選んでください",
            )
        j = names.index(partner)
        if j == state.last_exchanger:
            raise IllegalEvent(f"{partner} made the last {EN['exchange']} just before; {EN['exchange']} with someone else "
                               f"(not {partner})",
                               f"{partner}は直前に{JA['exchange']}をしたので、相手にできません。ほかの相手を選んでください")
    for role, role_ja, colour in (("give", "渡す", give), ("take", "もらう", take)):
        if colour not in COLOURS:
            raise IllegalEvent(f"{role} is {short(colour)}; a colour is {', '.join(COLOURS[:-1])} or {COLOURS[-1]}",
                               f"{role_ja}色 {short(colour)} はありません。色は{'・'.join(colour_ja(c) for c in COLOURS)}です")
    if give == take:
        raise IllegalEvent(f"give and take are both {give}; an {EN['exchange']} swaps dice of two different colours",
                           f"渡す色ともらう色がどちらも{colour_ja(give)}です。{JA['exchange']}は違う色の{JA['dice']}どうしで行います")
    mine = state.held[i]
    theirs = state.dust if j is None else state.held[j]
    assert theirs is not None
    g, t = COLOURS.index(give), COLOURS.index(take)
    if not mine[g]:
        raise IllegalEvent(f"{name} has no {give} die to give (holds {counts_text(mine)})",
                           f"{name}は渡す{colour_ja(give)}の{JA['dice']}を持っていません（{JA['held']}: {counts_ja(mine)}）")
    partner_en = f"the {EN['dust_pile']}" if j is None else partner
    partner_ja = JA["dust_pile"] if j is None else partner
    if not theirs[t]:
        raise IllegalEvent(f"{partner_en} has no {take} die to give (holds {counts_text(theirs)})",
                           f"{partner_ja}には{colour_ja(take)}の{JA['dice']}がありません（{counts_ja(theirs)}）")
    mine = tuple(n - (k == g) + (k == t) for k, n in enumerate(mine))
    theirs = tuple(n + (k == g) - (k == t) for k, n in enumerate(theirs))
    held = _set(state.held, i, mine)
    state = replace(state, held=held, dust=theirs) if j is None else replace(state, held=_set(held, j, theirs))
    state = say(state, f"{name} gave {give} to {partner_en} for {take}",
                f"{name}が{partner_ja}に{colour_ja(give)}を渡し{colour_ja(take)}をもらった")
    state = replace(state, last_exchanger=i, exchanges=state.exchanges + ((i, partner, give, take),))
    for k in (i, j):
        if k is not None and state.held[k][0] >= CLEAR_TO_WIN:
            state = say(state, f"{EN['chiritsumo']}! {names[k]} holds 4 clear {EN['dice']} and wins at once",
                        f"{JA['chiritsumo']}! {names[k]}が透明の{JA['dice']}を4個集めて勝利")
            return replace(state, phase="over", winners=(k,), ended_by="chiritsumo")
    return _next_exchange(state)


def _pass(state: State, event: Mapping[str, Any]) -> State:
    name = state.seats[_due(state, event)].name
    return _next_exchange(say(state, f"{name} passed", f"{name}は{JA['pass']}"))


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
    state = say(state, f"Totals after {EN['round']} {state.round}: {listing}",
                f"{JA['round']}{state.round}終了時の{JA['total']}: {listing}")
    best = max(scores)
    if best > TARGET:
        winners = tuple(i for i, s in enumerate(scores) if s == best)
        who = " and ".join(names[i] for i in winners)
        state = say(state, f"Above {TARGET}: {who} win{'s' if len(winners) == 1 else ''} with {best}",
                    f"{TARGET}{JA['points']}超え: {'と'.join(names[i] for i in winners)}の勝利（{best}{JA['points']}）")
        return replace(state, phase="over", winners=winners, ended_by="total")
    return _next_round(state)


def _next_round(state: State) -> State:
    number = state.round + 1
    state = replace(state, round=number, phase="play", stage=(TO_THROW,) * len(state.seats))
    last = f" (the last: 4 clear {EN['dice']})" if state.last_round else ""
    last_ja = "（最終: 透明4個）" if state.last_round else ""
    return say(state, f"{EN['round'].capitalize()} {number}{last}: throw your {EN['dice']}",
               f"{JA['round']}{number}{last_ja}: {JA['dice']}を振ってください")


def _solo_scored(state: State, scored: Mapping[str, Any]) -> State:
    name = state.seats[0].name
    total = state.scores[0] + scored["total"]
    state = replace(state, scores=(total,), round_scores=(scored["total"],))
    state = say(state, f"{EN['total'].capitalize()}: {total}", f"{JA['total']}: {total}{JA['points']}")
    if state.last_round:
        rank = rank_of(total)
        en, ja = RANK_TEXT[rank]
        state = say(state, f"The dust has piled up: {name} ends with {count_en(total, POINT)}, {EN['rank']}: {en}",
                    f"ちりが積もり切った: {name} {total}{JA['points']}、{JA['rank']}: {ja}")
        return replace(state, phase="over", rank=rank, winners=(0,) if total >= 15 else (), ended_by="solo")
    if scored["complete"] and state.reserve > 0:
        return replace(state, phase="swap")
    return _next_round(state)


def _swap(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    name = state.seats[i].name
    give = event["give"]
    coloured = [c for c in COLOURS if c != CLEAR]
    if give == CLEAR:
        raise IllegalEvent(f"{EN['swap']} a coloured die ({', '.join(coloured[:-1])} or {coloured[-1]}) for a clear one, "
                           "not a clear die",
                           f"{JA['swap']}するのは色のついた{JA['dice']}（{'・'.join(colour_ja(c) for c in coloured)}）です。"
                           f"透明の{JA['dice']}は{JA['swap']}できません")
    if give not in COLOURS:
        raise IllegalEvent(f"give is {short(give)}; {EN['swap']} a {', '.join(coloured[:-1])} or {coloured[-1]} die",
                           f"渡す色 {short(give)} はありません。{'・'.join(colour_ja(c) for c in coloured)}の{JA['dice']}を"
                           f"{JA['swap']}してください")
    g = COLOURS.index(give)
    held = state.held[i]
    if not held[g]:
        raise IllegalEvent(f"{name} has no {give} die (holds {counts_text(held)})",
                           f"{name}は{colour_ja(give)}の{JA['dice']}を持っていません（{JA['held']}: {counts_ja(held)}）")
    held = tuple(n - (k == g) + (k == 0) for k, n in enumerate(held))
    state = replace(state, held=_set(state.held, i, held), reserve=state.reserve - 1)
    state = say(state, f"{name} swapped a {give} die for a clear one ({state.reserve} left in {EN['reserve']})",
                f"{name}が{colour_ja(give)}の{JA['dice']}を透明と{JA['swap']}（{JA['reserve']}残り{state.reserve}個）")
    if held[0] >= CLEAR_TO_WIN:
        state = replace(state, last_round=True)
    return _next_round(state)


#: Chiritsumo's events: their fields, the phases they are due in and their handlers.
MOVES = {
    "throw": move(_throw, phases=("play",), required=("seat", "dice")),
    "build": move(_build, phases=("play",), required=("seat", "rows")),
    "exchange": move(_exchange, phases=("exchange",), required=("seat", "with", "give", "take")),
    "pass": move(_pass, phases=("exchange",)),
    "swap": move(_swap, phases=("swap",), required=("seat", "give")),
}


# --- view --------------------------------------------------------------------------------


def _pyramid_view(state: State, i: int) -> dict[str, Any]:
    # A seat that has not thrown this round shows no throw and no pyramid (the last
    # round's are over: its points are in ``total``).
    throw = state.throws[i] if state.stage[i] != TO_THROW else None
    rows = state.pyramids[i] if throw is not None else None
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
    base = base_view(state, GAME, expects(state), dict(zip(names, state.scores)), [names[i] for i in state.winners])
    own = {
        "mode": state.mode,
        "round": state.round,
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
    }
    both = {**base, **own}
    out = {key: both[key] for key in VIEW_KEYS}
    if seat is not None:
        i, mine = seat_view(state, seat)
        out["mine"] = {
            **mine,
            "held": _as_dict(state.held[i]),
            "to_throw": state.phase == "play" and state.stage[i] == TO_THROW,
            "to_build": state.phase == "play" and state.stage[i] == TO_BUILD,
            "to_exchange": state.phase == "exchange" and state.order[state.turn] == i,
            "to_swap": state.phase == "swap",
        }
    return out
