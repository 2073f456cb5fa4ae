"""Sky City ALEA (空中都市アーリア): 3 to 5 players, 5 dice each, 22 trap cards.

The rules are RULES.md section 1. Each round a trap card (トラップカード) is turned over,
every seat secretly declares (宣言) how many dice it will throw (0-5), and the groups of
equal declarations throw in turn, smallest first, adding their dice to the table. A group
that does not trigger the trap scores its declarations; the first group triggering it ends
the round at once and every 0-declarer scores 3; a later group triggering it makes each of
its players try one escape (回避行動) by rethrowing every die on the table.

Events (see docs/contracts.md and docs/replay.md):
  ``{"type": "declare", "seat": "Aki", "value": 3}``
  ``{"type": "card", "card": "T05"}``            (only with ``deck = "physical"``)
  ``{"type": "throw", "dice": [{"colour": "red", "face": 3}, ...]}``
A throw may also name the thrower (``"seat": "Aki"``), which must then be one of the seats
``expects`` lists; a die may be written as a ``["red", 3]`` pair; any event may carry a
``"comment"`` text, which is ignored.

Options (all optional; anything else is refused):
  ``deck``   ``"dealt"`` (default): the engine shuffles this player count's cards with the
             game's seeded generator and turns one over each round; ``"physical"``: the
             table uses its printed deck and the host names each card turned over with a
             ``card`` event (a card already turned over since the last shuffle is refused;
             once all have been used, any card of the count is allowed again).
  ``cards``  a list of cards (the schema of ``data/alea.toml``'s ``[[card]]`` tables)
             that replaces the default deck; a card without ``players`` is used with
             every player count.
  ``target`` the score that makes the next round the last one; default 10, or 12 with
             3 players.

Phases: ``card`` (physical deck only), ``declare``, ``throw``, ``escape``, ``tiebreak``,
``over``.

Decisions where RULES.md is silent (what a real table does):
- Nothing of a declaration is visible before all have declared: ``view(state)`` only
  says the declaration phase is on; ``view(state, seat)`` shows that seat its own value.
  ``expects`` (used by the table's loop, never shown) lists the seats still to declare.
- Escape order is decided when the trap triggers: lowest score first, ties in seat
  order (RULES.md; the original lets tied players choose, a replay needs one order). A failed escape does not stop the others of the group; each trapped
  player gets exactly one. The table then holds the dice of the last rethrow.
- A throw is checked by colour and count only; the order of the dice does not matter.
- When everyone declares 0 in the last round, nobody scores and the game ends.
- The tie-break: the tied leaders throw in seat order, 10 dice each, of any colour (a
  player has only 5 of their own, so tables borrow): ``expects`` asks for ``{"*": 10}``.
  Most 1s wins; those still tied throw again, until one remains.
- The last round is announced at the end of a round in which someone reached the
  target; its points, including the 3 for declaring 0, count double.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.alea_traps import (
    ODDS,
    Card,
    CardError,
    cards_from,
    load_deck,
    odds_table,
    trap_odds,
    trap_odds_exact,
    triggered,
)
from engines.core import (
    Die,
    IllegalEvent,
    Rng,
    Seat,
    SetupError,
    dice_from,
    event_kind,
    event_text,
    public,
    replace,
    rng_seed,
    rng_shuffle,
    seats_from,
    text,
)

__all__ = [
    "State",
    "setup",
    "expects",
    "apply",
    "view",
    "load_deck",
    "trap_odds",
    "trap_odds_exact",
    "odds_table",
    "triggered",
    "Card",
    "CardError",
    "MIN_SEATS",
    "MAX_SEATS",
]

GAME = "alea"
TITLE = {"en": "Sky City ALEA", "ja": "空中都市アーリア"}
COMMANDS = (ODDS,)
MIN_SEATS, MAX_SEATS = 3, 5
DICE_PER_SEAT = 5
ZERO_POINTS = 3
TIEBREAK_DICE = 10
OPTIONS = ("deck", "cards", "target")
DECK_MODES = ("dealt", "physical")


@dataclass(frozen=True)
class State:
    """A game of ALEA. Seat-indexed tuples follow ``seats``."""

    seats: tuple[Seat, ...]
    options: str  # the options as given, JSON text
    seed: int
    deck_mode: str
    cards: tuple[Card, ...]  # this player count's cards
    target: int
    rng: Rng
    events: tuple[str, ...] = ()
    log: tuple[tuple[str, str], ...] = ()
    scores: tuple[int, ...] = ()
    round: int = 0
    last_round: bool = False
    phase: str = "declare"
    pile: tuple[str, ...] = ()  # dealt: draw order; physical: not yet turned over
    discards: tuple[str, ...] = ()
    card: str | None = None
    declared: tuple[int | None, ...] = ()
    revealed: bool = False
    groups: tuple[tuple[int, ...], ...] = ()
    group: int = 0
    table: tuple[Die, ...] = ()
    escapes: tuple[int, ...] = ()
    escape_failed: bool = False
    tied: tuple[int, ...] = ()
    tie_queue: tuple[int, ...] = ()
    tie_ones: tuple[tuple[int, int], ...] = ()
    winner: int | None = None

    @property
    def multiplier(self) -> int:
        return 2 if self.last_round else 1


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: round 1 with its trap card turned over (or awaited, physical deck)."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise SetupError(f"options must be an object like {{\"deck\": \"dealt\"}}, saw {options!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SetupError(f"unknown option(s) {unknown} for alea; the options are {', '.join(OPTIONS)}")
    deck_mode = options.get("deck", "dealt")
    if deck_mode not in DECK_MODES:
        raise SetupError(f"option deck is {deck_mode!r}; use \"dealt\" (the engine shuffles) or \"physical\"")
    n = len(table_seats)
    target = options.get("target", 12 if n == 3 else 10)
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise SetupError(f"option target is {target!r}; give a positive whole number of points")
    try:
        deck = load_deck() if "cards" not in options else _custom_cards(options["cards"])
    except CardError as exc:
        raise SetupError(str(exc)) from None
    cards = tuple(c for c in deck if n in c.players)
    if not cards:
        raise SetupError(f"no trap card is marked for {n} players; add {n} to some cards' players")
    try:
        options_text = json.dumps(dict(options), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        raise SetupError("options must be plain JSON values (text, numbers, lists, objects)") from None
    ids = tuple(c.id for c in cards)
    rng = rng_seed(seed)
    if deck_mode == "dealt":
        pile, rng = rng_shuffle(rng, ids)
    else:
        pile = ids
    state = State(
        seats=table_seats,
        options=options_text,
        seed=seed,
        deck_mode=deck_mode,
        cards=cards,
        target=target,
        rng=rng,
        scores=(0,) * n,
        pile=pile,
        declared=(None,) * n,
    )
    return _start_round(state, 1)


def _custom_cards(raw: Any) -> tuple[Card, ...]:
    if not isinstance(raw, list):
        raise CardError(f"options.cards: give a list of cards, saw {raw!r}")
    return cards_from(raw, "options.cards", default_players=(MIN_SEATS, 4, MAX_SEATS))


# --- expects -----------------------------------------------------------------------------


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = [s.name for s in state.seats]
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": _winners(state)}
    if state.phase == "card":
        deck = {c.id: c for c in state.cards}
        options = [{"value": c, "label": text(f"{c} {deck[c].name}: {deck[c].condition}",
                                              f"{c} {deck[c].name_ja}: {deck[c].condition}")}
                   for c in _physical_choices(state)]
        out["inputs"].append({
            "type": "card", "seats": [], "secret": False,
            "prompt": text("Host: turn over the next trap card and name it.",
                           "ホスト: 次の罠カードをめくり、選んでください。"),
            "fields": [{"name": "card", "kind": "choice", "options": options, "label": text("Trap card", "罠カード")}],
        })
    elif state.phase == "declare":
        out["inputs"].append({
            "type": "declare", "seats": [names[i] for i, v in enumerate(state.declared) if v is None],
            "secret": True,
            "prompt": text("Declare in secret how many dice you will throw (0-5).",
                           "振るダイスの数（0〜5）を秘密に宣言してください。"),
            "fields": [{"name": "value", "kind": "number", "min": 0, "max": DICE_PER_SEAT, "button": True,
                        "label": text("Dice to throw", "振るダイスの数")}],
        })
    elif state.phase != "over":
        due = _due_throw(state)
        dice = [{"colour": c, "sides": 6, "count": n} for c, n in due["dice"].items()]
        out["inputs"].append({
            "type": "throw", "seats": due["seats"], "secret": False, "together": True,
            "prompt": _throw_prompt(due),
            "fields": [{"name": "dice", "kind": "dice", "label": text("Dice", "ダイス")}],
            "dice": dice,
            "camera": "all" if due["reroll"] or "*" in due["dice"] else "new",
        })
    return out


def _winners(state: State) -> list[str]:
    return [state.seats[state.winner].name] if state.winner is not None else []


def _due_throw(state: State) -> dict[str, Any]:
    """The throw due now: who, the dice per colour (``"*"``: any), whether it rethrows the table."""
    names = [s.name for s in state.seats]
    if state.phase == "throw":
        group = state.groups[state.group]
        dice = {state.seats[i].colour: state.declared[i] for i in group}
        return {"seats": [names[i] for i in group], "dice": dice, "reroll": False}
    if state.phase == "escape":
        return {"seats": [names[state.escapes[0]]], "dice": _colour_counts(state, state.table), "reroll": True}
    return {"seats": [names[state.tie_queue[0]]], "dice": {"*": TIEBREAK_DICE}, "reroll": False}


def _colour_counts(state: State, dice: Iterable[Die]) -> dict[str, int]:
    counts = Counter(d.colour for d in dice)
    order = [s.colour for s in state.seats] + sorted(set(counts) - {s.colour for s in state.seats})
    return {c: counts[c] for c in order if counts[c]}


def _physical_choices(state: State) -> tuple[str, ...]:
    return state.pile if state.pile else tuple(c.id for c in state.cards)


# --- apply -------------------------------------------------------------------------------

_KEYS = {
    "declare": ({"seat", "value"}, set()),
    "card": ({"card"}, set()),
    "throw": ({"dice"}, {"seat"}),
}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    kind = event_kind(event, _KEYS)
    if state.phase == "over":
        raise IllegalEvent(f"the game is over ({state.seats[state.winner].name} won); no event is expected")
    wanted = {"card": "card", "declare": "declare"}.get(state.phase, "throw")
    if kind != wanted:
        raise IllegalEvent(f"saw a {kind} event, but {_waiting_for(state)}")
    if kind == "declare":
        new = _declare(state, event)
    elif kind == "card":
        new = _turn_card(state, event)
    elif state.phase == "throw":
        new = _group_throw(state, event)
    elif state.phase == "escape":
        new = _escape(state, event)
    else:
        new = _tiebreak_throw(state, event)
    return replace(new, events=state.events + (event_text(event),))


def _waiting_for(state: State) -> str:
    if state.phase == "card":
        return "the table is waiting for the host to name the trap card turned over (a card event)"
    if state.phase == "declare":
        return "the table is waiting for the secret declarations (declare events, 0-5)"
    exp = _due_throw(state)
    return f"the table is waiting for a throw event: {_describe_throw(state, exp)}"


def _seat_index(state: State, name: Any) -> int:
    for i, seat in enumerate(state.seats):
        if seat.name == name:
            return i
    raise IllegalEvent(f"unknown seat {name!r}; the seats are {', '.join(s.name for s in state.seats)}")


def _say(state: State, en: str, ja: str) -> State:
    return replace(state, log=state.log + ((en, ja),))


def _declare(state: State, event: Mapping[str, Any]) -> State:
    i = _seat_index(state, event["seat"])
    value = event["value"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= DICE_PER_SEAT:
        raise IllegalEvent(f"{state.seats[i].name} declared {value!r}; a declaration is a whole number from 0 to 5")
    if state.declared[i] is not None:
        raise IllegalEvent(f"{state.seats[i].name} has already declared; a declaration is locked once given")
    declared = state.declared[:i] + (value,) + state.declared[i + 1 :]
    state = replace(state, declared=declared)
    if any(v is None for v in declared):
        return state
    return _reveal(state)


def _reveal(state: State) -> State:
    listing = ", ".join(f"{s.name} {v}" for s, v in zip(state.seats, state.declared))
    state = _say(replace(state, revealed=True), f"Declarations: {listing}", f"宣言: {listing}")
    values = sorted({v for v in state.declared if v})
    if not values:
        state = _say(state, "Everyone declared 0: nobody scores", "全員が0を宣言: 得点なし")
        return _end_round(state)
    groups = tuple(tuple(i for i, v in enumerate(state.declared) if v == value) for value in values)
    return replace(state, groups=groups, group=0, phase="throw")


def _turn_card(state: State, event: Mapping[str, Any]) -> State:
    card_id = event["card"]
    ids = tuple(c.id for c in state.cards)
    if card_id not in ids:
        raise IllegalEvent(
            f"card {card_id!r} is not in the {len(state.seats)}-player deck; expected one of {', '.join(ids)}"
        )
    choices = _physical_choices(state)
    if card_id not in choices:
        raise IllegalEvent(
            f"card {card_id} was already turned over since the last shuffle; expected one of {', '.join(choices)}"
        )
    pile = tuple(c for c in choices if c != card_id)
    discards = state.discards if state.pile else ()  # every card used: the table reshuffled them
    return _show_card(replace(state, pile=pile, discards=discards, card=card_id, phase="declare"))


def _show_card(state: State) -> State:
    card = _card(state)
    last_en = " (last round: points count double)" if state.last_round else ""
    last_ja = "（最終ラウンド: 得点2倍）" if state.last_round else ""
    return _say(
        state,
        f"Round {state.round}{last_en}: trap card {card.id} ({card.name}): {card.condition}",
        f"ラウンド{state.round}{last_ja}: トラップ {card.id}（{card.name_ja}）: {card.condition}",
    )


def _card(state: State) -> Card:
    return next(c for c in state.cards if c.id == state.card)


def _check_throw(state: State, event: Mapping[str, Any]) -> tuple[Die, ...]:
    exp = _due_throw(state)
    if "seat" in event:
        i = _seat_index(state, event["seat"])
        if state.seats[i].name not in exp["seats"]:
            raise IllegalEvent(
                f"the throw names {state.seats[i].name}, but the table is waiting for {_describe_throw(state, exp)}"
            )
    dice = dice_from(event["dice"])
    wanted: dict[str, int] = exp["dice"]
    if "*" in wanted:
        if len(dice) != wanted["*"]:
            raise IllegalEvent(f"expected {_describe_throw(state, exp)}, saw {len(dice)} dice")
        return dice
    seen = _colour_counts(state, dice)
    if seen != wanted:
        raise IllegalEvent(f"expected {_describe_throw(state, exp)}, saw {_counts_text(seen)}")
    return dice


def _counts_text(counts: Mapping[str, int]) -> str:
    if not counts:
        return "no dice"
    return _and([f"{n} {colour}" for colour, n in counts.items()])


def _and(items: list[str], word: str = " and ") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + word + items[-1]


def _and_ja(items: list[str]) -> str:
    return "・".join(items)


def _describe_throw(state: State, exp: Mapping[str, Any]) -> str:
    who = _and(list(exp["seats"]))
    wanted = exp["dice"]
    if "*" in wanted:
        return f"{wanted['*']} dice of any colour ({who}'s tie-break throw)"
    total = sum(wanted.values())
    dice = f"{_counts_text(wanted)} {'die' if total == 1 else 'dice'}"
    if exp["reroll"]:
        return f"{dice} ({who}'s escape: rethrow all {total} dice on the table)"
    return f"{dice} ({who}'s throw)"


def _throw_prompt(exp: Mapping[str, Any]) -> dict[str, str]:
    """What the table says to the thrower(s), in English and Japanese."""
    who, who_ja = _and(list(exp["seats"])), _and_ja(list(exp["seats"]))
    wanted = exp["dice"]
    if "*" in wanted:
        return text(f"Tie-break: {who} to throw {wanted['*']} dice of any colour; most 1s wins.",
                    f"同点決戦: {who_ja}が色を問わずダイス{wanted['*']}個を振ってください（1の目が多い人の勝ち）。")
    total = sum(wanted.values())
    counts = f"{_counts_text(wanted)} {'die' if total == 1 else 'dice'}"
    counts_ja = "、".join(f"{c} {n}個" for c, n in wanted.items())
    if exp["reroll"]:
        return text(f"Escape for {who}: rethrow all {total} dice on the table ({_counts_text(wanted)}).",
                    f"{who_ja}の回避: 卓上のダイス{total}個（{counts_ja}）をすべて振り直してください。")
    return text(f"{who} to throw {counts}.", f"{who_ja}の番: ダイス {counts_ja} を振ってください。")


def _faces_text(dice: Iterable[Die]) -> str:
    return " ".join(str(d.face) for d in sorted(dice, key=lambda d: d.face)) or "-"


def _sprung(state: State) -> bool:
    return triggered(_card(state), (d.face for d in state.table))


def _add_points(state: State, points: dict[int, int]) -> State:
    scores = tuple(s + points.get(i, 0) for i, s in enumerate(state.scores))
    return replace(state, scores=scores)


def _group_throw(state: State, event: Mapping[str, Any]) -> State:
    dice = _check_throw(state, event)
    group = state.groups[state.group]
    names = _and([state.seats[i].name for i in group])
    names_ja = _and_ja([state.seats[i].name for i in group])
    state = replace(state, table=state.table + dice)
    shown = f"{names} threw {_faces_text(dice)}; table {_faces_text(state.table)}"
    shown_ja = f"{names_ja}が{_faces_text(dice)}を振った; 場 {_faces_text(state.table)}"
    if not _sprung(state):
        points = {i: state.declared[i] * state.multiplier for i in group}
        gains = ", ".join(f"{state.seats[i].name} +{p}" for i, p in points.items())
        state = _say(_add_points(state, points), f"{shown}: safe, {gains}", f"{shown_ja}: セーフ, {gains}")
        return _next_group(state)
    if state.group == 0:
        zeros = {i: ZERO_POINTS * state.multiplier for i, v in enumerate(state.declared) if v == 0}
        gains = ", ".join(f"{state.seats[i].name} +{p}" for i, p in zeros.items())
        en = f"{shown}: TRAP on the first throw, the round ends" + (f"; declared 0: {gains}" if zeros else "")
        ja = f"{shown_ja}: 最初の手番でトラップ発動, ラウンド終了" + (f"; 0宣言: {gains}" if zeros else "")
        return _end_round(_say(_add_points(state, zeros), en, ja))
    order = tuple(sorted(group, key=lambda i: (state.scores[i], i)))
    escapers = _and([state.seats[i].name for i in order])
    escapers_ja = _and_ja([state.seats[i].name for i in order])
    state = _say(
        state,
        f"{shown}: TRAP! escapes in order: {escapers}",
        f"{shown_ja}: トラップ発動! 回避の順番: {escapers_ja}",
    )
    return replace(state, phase="escape", escapes=order, escape_failed=False)


def _escape(state: State, event: Mapping[str, Any]) -> State:
    dice = _check_throw(state, event)
    i = state.escapes[0]
    name = state.seats[i].name
    state = replace(state, table=dice, escapes=state.escapes[1:])
    shown = f"{name} rethrew all dice: {_faces_text(dice)}"
    shown_ja = f"{name}が全ダイスを振り直し: {_faces_text(dice)}"
    if _sprung(state):
        state = _say(replace(state, escape_failed=True), f"{shown}: trapped", f"{shown_ja}: 失敗")
    else:
        points = state.declared[i] * state.multiplier
        state = _say(_add_points(state, {i: points}), f"{shown}: escaped, +{points}", f"{shown_ja}: 回避成功, +{points}")
    if state.escapes:
        return state
    if state.escape_failed:
        state = _say(state, "An escape failed: the round ends", "回避失敗者あり: ラウンド終了")
        return _end_round(state)
    return _next_group(replace(state, phase="throw"))


def _next_group(state: State) -> State:
    if state.group + 1 < len(state.groups):
        return replace(state, group=state.group + 1, phase="throw")
    return _end_round(_say(state, "Every group has thrown: the round ends", "全員が振り終えた: ラウンド終了"))


def _end_round(state: State) -> State:
    score_text = ", ".join(f"{s.name} {p}" for s, p in zip(state.seats, state.scores))
    state = _say(state, f"Scores after round {state.round}: {score_text}", f"ラウンド{state.round}終了時の得点: {score_text}")
    state = replace(
        state,
        discards=state.discards + ((state.card,) if state.card else ()),
        card=None,
        table=(),
        declared=(None,) * len(state.seats),
        revealed=False,
        groups=(),
        group=0,
        escapes=(),
        escape_failed=False,
    )
    if state.last_round:
        return _end_game(state)
    if max(state.scores) >= state.target:
        state = _say(
            state,
            f"Someone has {state.target}+ points: the next round is the last, points count double",
            f"{state.target}点以上の人がいる: 次が最終ラウンド, 得点2倍",
        )
        state = replace(state, last_round=True)
    return _start_round(state, state.round + 1)


def _start_round(state: State, number: int) -> State:
    state = replace(state, round=number)
    if state.deck_mode == "physical":
        return replace(state, phase="card")
    rng, pile, discards = state.rng, state.pile, state.discards
    if not pile:
        pile, rng = rng_shuffle(rng, discards)
        discards = ()
        state = _say(state, "The trap deck is empty: the discards are shuffled", "山札切れ: 捨て札をシャッフル")
    state = replace(state, rng=rng, pile=pile[1:], discards=discards, card=pile[0], phase="declare")
    return _show_card(state)


def _end_game(state: State) -> State:
    best = max(state.scores)
    leaders = tuple(i for i, s in enumerate(state.scores) if s == best)
    if len(leaders) == 1:
        return _win(state, leaders[0])
    names = _and([state.seats[i].name for i in leaders])
    names_ja = _and_ja([state.seats[i].name for i in leaders])
    state = _say(
        state,
        f"Tie at {best} points: {names} each throw 10 dice, most 1s wins",
        f"{best}点で同点: {names_ja}がそれぞれダイス10個を振り, 1の目が多い人の勝ち",
    )
    return replace(state, phase="tiebreak", tied=leaders, tie_queue=leaders, tie_ones=())


def _win(state: State, i: int) -> State:
    name = state.seats[i].name
    state = _say(state, f"Game over: {name} wins with {state.scores[i]} points", f"ゲーム終了: {name}の勝利（{state.scores[i]}点）")
    return replace(state, phase="over", winner=i)


def _tiebreak_throw(state: State, event: Mapping[str, Any]) -> State:
    dice = _check_throw(state, event)
    i = state.tie_queue[0]
    ones = sum(1 for d in dice if d.face == 1)
    name = state.seats[i].name
    state = _say(state, f"{name} threw 10 dice: {ones} one{'' if ones == 1 else 's'}", f"{name}がダイス10個を振った: 1の目{ones}個")
    state = replace(state, tie_queue=state.tie_queue[1:], tie_ones=state.tie_ones + ((i, ones),))
    if state.tie_queue:
        return state
    most = max(n for _, n in state.tie_ones)
    still = tuple(j for j, n in state.tie_ones if n == most)
    if len(still) == 1:
        return _win(state, still[0])
    names = _and([state.seats[j].name for j in still])
    names_ja = _and_ja([state.seats[j].name for j in still])
    state = _say(state, f"Still tied: {names} throw again", f"まだ同点: {names_ja}がもう一度振る")
    return replace(state, tied=still, tie_queue=still, tie_ones=())


# --- view --------------------------------------------------------------------------------


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it; with ``seat``, that seat's own declaration under "mine"."""
    names = [s.name for s in state.seats]
    public_expects = public(expects(state))
    card = _card(state).as_dict() if state.card else None
    out: dict[str, Any] = {
        "game": GAME,
        "round": state.round,
        "phase": state.phase,
        "last_round": state.last_round,
        "double": state.last_round,
        "target": state.target,
        "scores": dict(zip(names, state.scores)),
        "winner": names[state.winner] if state.winner is not None else None,
        "winners": _winners(state),
        "seats": [s.as_dict() for s in state.seats],
        "expects": public_expects,
        "card": card,
        "deck": {"mode": state.deck_mode, "left": len(state.pile), "discards": len(state.discards)},
        "declarations": dict(zip(names, state.declared)) if state.revealed else None,
        "groups": [[names[i] for i in g] for g in state.groups] if state.revealed else [],
        "group": state.group if state.phase in ("throw", "escape") else None,
        "escapes": [names[i] for i in state.escapes],
        "table": [d.as_dict() for d in state.table],
        "tiebreak": (
            {"seats": [names[i] for i in state.tied], "ones": {names[i]: n for i, n in state.tie_ones}}
            if state.tied
            else None
        ),
        "log": [{"en": en, "ja": ja} for en, ja in state.log],
    }
    if seat is not None:
        i = names.index(seat) if seat in names else None
        if i is None:
            raise ValueError(f"unknown seat {seat!r}; the seats are {', '.join(names)}")
        out["mine"] = {
            "seat": seat,
            "colour": state.seats[i].colour,
            "declaration": state.declared[i],
            "to_declare": state.phase == "declare" and state.declared[i] is None,
        }
    return out
