"""Sky City ALEA (空中都市アーリア): 3 to 5 players, 5 dice each, 22 trap cards.

The rules are docs/rules/alea.md. Each round a trap card (トラップカード) is turned over,
every seat secretly declares (宣言) how many dice it will throw (0-5), and the groups of
equal declarations throw in turn, smallest first, adding their dice to the table (場). A
group that does not trigger the trap scores its declarations; the first group triggering
it ends the round at once and every 0-declarer scores 3; a later group triggering it makes
each of its players try one escape (回避) by rethrowing every die on the table.

Events (see docs/contracts.md and docs/replay.md):
  ``{"type": "declare", "seat": "Aki", "value": 3}``
  ``{"type": "card", "card": "T05"}``            (only with ``deck = "physical"``)
  ``{"type": "throw", "dice": [{"colour": "red", "face": 3}, ...]}``
A throw may also name the thrower (``"seat": "Aki"``), which must then be one of the seats
``expects`` lists; a die may be written as a ``["red", 3]`` pair; any event may carry a
``"comment"`` text, which is ignored. A refused event raises ``core.IllegalEvent``; seats,
options or cards a game cannot start with raise ``core.DataError`` (both in English and
Japanese).

Options (all optional; anything else is refused):
  ``deck``   ``"dealt"`` (default): the engine shuffles this player count's cards with the
             game's seeded generator and turns one over each round; ``"physical"``: the
             table uses its printed deck and the host names each card turned over with a
             ``card`` event (a card already turned over since the last shuffle is refused;
             once all have been used, any card of the count is allowed again).
  ``cards``  a list of cards (the schema of ``data/alea.toml``'s ``[[card]]`` tables, see
             ``engines.alea_data``) that replaces the default deck; a card without
             ``players`` is used with every player count.
  ``target`` the score that makes the next round the last one (1 to 1,000,000); default 10,
             or 12 with 3 players.

Phases: ``card`` (physical deck only), ``declare``, ``throw``, ``escape``, ``tiebreak``,
``over``.

Decisions where the printed rules are silent (what a real table does):
- Nothing of a declaration is visible before all have declared: ``view(state)`` only
  says the declaration phase is on; ``view(state, seat)`` shows that seat its own value.
  ``expects`` (used by the table's loop, never shown) lists the seats still to declare.
- Escape order is decided when the trap triggers: lowest score first, ties in seat
  order (docs/rules/alea.md; the original lets tied players choose, a replay needs one order). A
  failed escape does not stop the others of the group; each trapped player gets exactly
  one. The table then holds the dice of the last rethrow.
- A throw is checked by colour and count only; the order of the dice does not matter. A
  group's dice are the dice of its seats' own colours: a die of any other colour is
  refused.
- When everyone declares 0 in the last round, nobody scores and the game ends.
- The tie-break: the tied leaders throw in seat order, 10 dice each, of any colour (a
  player has only 5 of their own, so tables borrow): ``expects`` asks for ``{"*": 10}``.
  Most 1s wins; those still tied throw again, until one remains.
- The last round is announced at the end of a round in which someone reached the
  target; its points, including the 3 for declaring 0, count double.

The words of the game (trap card, declaration, escape, ...) are the glossary of
``data/alea.toml`` (``GLOSSARY``), which the pages use too.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.alea_cli import COMMANDS
from engines.alea_data import Card, deck_for, load_deck, option_cards
from engines.alea_traps import odds_table, trap_odds, trap_odds_exact, triggered
from engines.alea_words import words
from engines.core import (
    EMPTY, Chain, DataError, Die, IllegalEvent, Rng, Seat, an_input, apply_move, base_view, check_options,
    colour_ja, deck_setting, dice_from, field, joined, load_glossary, move, option, option_choice, option_int, replace,
    rng_seed, rng_shuffle, say, seat_index, seat_view, seats_from, short, text, waiting_for, whole,
)

__all__ = [
    "State", "setup", "expects", "apply", "view", "load_deck", "trap_odds", "trap_odds_exact",
    "odds_table", "triggered", "Card", "COMMANDS", "GLOSSARY", "MIN_SEATS", "MAX_SEATS",
]

GAME = "alea"
TITLE = {"en": "Sky City ALEA", "ja": "空中都市アーリア"}
SCORE_TERM = "score"
GLOSSARY = load_glossary("data/alea.toml")
MIN_SEATS, MAX_SEATS = 3, 5
#: What the table shows for this game (pi.web.game_uses): dice in seat colours, secret declarations.
USES = frozenset({"dice", "buttons", "seat_colours"})
DICE_PER_SEAT = 5
ZERO_POINTS = 3
TIEBREAK_DICE = 10
MAX_TARGET = 1_000_000
OPTIONS = ("deck", "cards", "target")
DECK_MODES = ("dealt", "physical")
#: The options the host chooses on the start form (fields as in expects; None: the rules'
#: own default). Scripts may also give their own cards.
SETTINGS = (
    deck_setting(GLOSSARY["trap_card"]["en"] + "s", GLOSSARY["trap_card"]["ja"]),
    field("target", "choice", f"Points that start the {GLOSSARY['last_round']['en']}",
          f"{GLOSSARY['last_round']['ja']}になる得点", default=None, options=[
        option(None, "as the rules say (12 with 3 players, else 10)", "ルールどおり（3人なら12、それ以外は10）"),
        *(option(n, str(n), str(n)) for n in (6, 8, 15, 20))]),
)
VIEW_KEYS = ("game", "round", "phase", "last_round", "double", "target", "scores", "winner", "winners", "seats",
             "expects", "card", "deck", "declarations", "groups", "group", "escapes", "table", "tiebreak", "log")


@dataclass(frozen=True)
class State:
    """A game of ALEA. Seat-indexed tuples follow ``seats``; ``events`` and ``log`` are
    ``core.Chain`` values (adding to them costs the same at any length)."""

    seats: tuple[Seat, ...]
    options: str  # the options as given, JSON text
    seed: int
    deck_mode: str
    cards: tuple[Card, ...]  # this player count's cards
    target: int
    rng: Rng
    events: Chain = EMPTY
    log: Chain = EMPTY
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


def _label(key: str) -> tuple[str, str]:
    """A glossary term as a label: (English capitalised, Japanese)."""
    term = GLOSSARY[key]
    return term["en"][:1].upper() + term["en"][1:], term["ja"]


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: round 1 with its trap card turned over (or awaited, physical deck)."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = check_options({} if options is None else options, OPTIONS)
    deck_mode = option_choice(options, "deck", DECK_MODES, "dealt")
    n = len(table_seats)
    target = option_int(options, "target", 1, MAX_TARGET, 12 if n == 3 else 10)
    cards = deck_for(option_cards(options["cards"]) if "cards" in options else load_deck(), n)
    if not cards:
        raise DataError(f"no trap card is marked for {n} players; add {n} to some cards' players",
                        f"{n}人用のトラップカードがありません。いくつかのカードの players に {n} を加えてください")
    ids = tuple(c.id for c in cards)
    rng = rng_seed(seed)
    pile, rng = rng_shuffle(rng, ids) if deck_mode == "dealt" else (ids, rng)
    state = State(
        seats=table_seats,
        options=json.dumps(options, sort_keys=True, ensure_ascii=False),
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


# --- expects -----------------------------------------------------------------------------


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    if state.phase == "over":
        inputs = []
    elif state.phase == "card":
        inputs = [_card_input(state)]
    elif state.phase == "declare":
        inputs = [_declare_input(state)]
    else:
        inputs = [_throw_input(state)]
    return {"phase": state.phase, "inputs": inputs, "winners": _winners(state)}


def _card_input(state: State) -> dict[str, Any]:
    deck = {c.id: c for c in state.cards}
    options = []
    for card in (deck[c] for c in _physical_choices(state)):
        said = words(card.tree)
        options.append(option(card.id, f"{card.id} {card.name}: {said['en']}", f"{card.id} {card.name_ja}: {said['ja']}"))
    prompt = text("Host: turn over the next trap card and name it.", "ホスト: 次のトラップカードをめくり、選んでください。")
    return an_input("card", [], prompt, [field("card", "choice", *_label("trap_card"), options=options)])


def _declare_input(state: State) -> dict[str, Any]:
    prompt = text("Declare in secret how many dice you will throw (0-5).", "振るダイスの数（0〜5）を秘密に宣言してください。")
    value = field("value", "number", *_label("dice_to_throw"), min=0, max=DICE_PER_SEAT, button=True)
    undeclared = [s.name for s, v in zip(state.seats, state.declared) if v is None]
    return an_input("declare", undeclared, prompt, [value], secret=True)


def _throw_input(state: State) -> dict[str, Any]:
    seats, wanted = _due_throw(state)
    if wanted is None:
        dice = [{"colour": "*", "sides": 6, "count": TIEBREAK_DICE}]
    else:
        dice = [{"colour": c, "sides": 6, "count": n} for c, n in wanted.items()]
    return an_input("throw", seats, _throw_prompt(state), [field("dice", "dice", *_label("dice"))], together=True,
                    dice=dice, camera="new" if state.phase == "throw" else "all")


def _winners(state: State) -> list[str]:
    return [state.seats[state.winner].name] if state.winner is not None else []


def _due_throw(state: State) -> tuple[list[str], dict[str, int] | None]:
    """Who throws now and the dice due, per colour: a group's own colours, or every die on
    the table for an escape; None in the tie-break (10 dice of any colour)."""
    if state.phase == "throw":
        group = state.groups[state.group]
        return [state.seats[i].name for i in group], {state.seats[i].colour: state.declared[i] for i in group}
    if state.phase == "escape":
        return [state.seats[state.escapes[0]].name], _colour_counts(state, state.table)
    return [state.seats[state.tie_queue[0]].name], None


def _colour_counts(state: State, dice: Iterable[Die]) -> dict[str, int]:
    counts = Counter(d.colour for d in dice)
    order = [s.colour for s in state.seats] + sorted(set(counts) - {s.colour for s in state.seats})
    return {c: counts[c] for c in order if counts[c]}


def _physical_choices(state: State) -> tuple[str, ...]:
    return state.pile if state.pile else tuple(c.id for c in state.cards)


# --- apply -------------------------------------------------------------------------------


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    if state.phase == "over":  # ahead of the kit's own check: this message names the winner
        name = state.seats[state.winner].name
        raise IllegalEvent(f"the game is over ({name} won); no event is expected",
                           f"ゲームは終わりました（{name}の勝利）。これ以上イベントは受け付けません")
    return apply_move(state, event, MOVES, expects)


def _check_phase(state: State, kind: str) -> None:
    """IllegalEvent unless the table waits for a ``kind`` event now."""
    if kind == "card" and state.deck_mode == "dealt":
        card = GLOSSARY["trap_card"]
        raise IllegalEvent(f"saw a card event, but this game deals its {card['en']}s itself (deck: dealt); "
                           "card events are for a table that turns over its printed deck (deck: physical)",
                           f"card イベントが来ましたが、このゲームは{card['ja']}を自分で配ります（deck: dealt）。"
                           f"card イベントは印刷された{GLOSSARY['deck']['ja']}をめくる卓（deck: physical）のものです")
    if kind != {"card": "card", "declare": "declare"}.get(state.phase, "throw"):
        raise IllegalEvent.of(joined(text(f"saw a {kind} event, but ", f"{kind} イベントが来ましたが、"), _waiting_for(state)))


def _waiting_for(state: State) -> dict[str, str]:
    if state.phase in ("card", "declare"):
        return waiting_for(expects(state))
    en, ja = _describe_throw(state)
    return text(f"the table is waiting for a throw event: {en}", f"待っているのは throw イベントです: {ja}")


def _declare(state: State, event: Mapping[str, Any]) -> State:
    _check_phase(state, "declare")
    i = seat_index(state.seats, event["seat"])
    name, value = state.seats[i].name, event["value"]
    if not whole(value, 0, DICE_PER_SEAT):
        raise IllegalEvent(f"{name} declared {short(value)}; a declaration is a whole number from 0 to 5",
                           f"{name}の宣言 {short(value)} は使えません。宣言は0〜5の整数です")
    if state.declared[i] is not None:
        raise IllegalEvent(f"{name} has already declared; a declaration is locked once given",
                           f"{name}はもう宣言しました。宣言は一度したら変えられません")
    declared = state.declared[:i] + (value,) + state.declared[i + 1 :]
    state = replace(state, declared=declared)
    if any(v is None for v in declared):
        return state
    return _reveal(state)


def _reveal(state: State) -> State:
    listing = ", ".join(f"{s.name} {v}" for s, v in zip(state.seats, state.declared))
    state = say(replace(state, revealed=True), f"Declarations: {listing}", f"宣言: {listing}")
    values = sorted({v for v in state.declared if v})
    if not values:
        return _end_round(say(state, "Everyone declared 0: nobody scores", "全員が0を宣言: 得点なし"))
    groups = tuple(tuple(i for i, v in enumerate(state.declared) if v == value) for value in values)
    return replace(state, groups=groups, group=0, phase="throw")


def _turn_card(state: State, event: Mapping[str, Any]) -> State:
    _check_phase(state, "card")
    card_id = event["card"]
    ids = tuple(c.id for c in state.cards)
    if not isinstance(card_id, str) or card_id not in ids:
        n, listed = len(state.seats), ", ".join(ids)
        raise IllegalEvent(f"card {short(card_id)} is not in the {n}-player deck; expected one of {listed}",
                           f"{GLOSSARY['trap_card']['ja']} {short(card_id)} は{n}人用の山札にありません。使えるのは {listed} です")
    choices = _physical_choices(state)
    if card_id not in choices:
        listed = ", ".join(choices)
        raise IllegalEvent(f"card {card_id} was already turned over since the last shuffle; expected one of {listed}",
                           f"{GLOSSARY['trap_card']['ja']} {card_id} は前のシャッフルのあとでもうめくられています。使えるのは {listed} です")
    pile = tuple(c for c in choices if c != card_id)
    discards = state.discards if state.pile else ()  # every card used: the table reshuffled them
    return _show_card(replace(state, pile=pile, discards=discards, card=card_id, phase="declare"))


def _show_card(state: State) -> State:
    card = _card(state)
    last_en = " (last round: points count double)" if state.last_round else ""
    last_ja = "（最終ラウンド: 得点2倍）" if state.last_round else ""
    said = words(card.tree)  # the condition as the board says it, in each language
    return say(
        state,
        f"Round {state.round}{last_en}: trap card {card.id} ({card.name}): {said['en']}",
        f"ラウンド{state.round}{last_ja}: {GLOSSARY['trap_card']['ja']} {card.id}（{card.name_ja}）: {said['ja']}",
    )


def _card(state: State) -> Card:
    for card in state.cards:
        if card.id == state.card:
            return card
    raise AssertionError(f"no card {state.card} in the deck")


def _throw(state: State, event: Mapping[str, Any]) -> State:
    _check_phase(state, "throw")
    dice = _check_throw(state, event)
    return {"throw": _group_throw, "escape": _escape, "tiebreak": _tiebreak_throw}[state.phase](state, dice)


def _check_throw(state: State, event: Mapping[str, Any]) -> tuple[Die, ...]:
    """The dice of a throw event, if they are the dice due (IllegalEvent otherwise)."""
    seats, wanted = _due_throw(state)
    if "seat" in event:
        name = state.seats[seat_index(state.seats, event["seat"])].name
        if name not in seats:
            en, ja = _describe_throw(state)
            raise IllegalEvent(f"the throw names {name}, but the table is waiting for {en}",
                               f"throw に{name}の名前がありますが、待っているのは{ja}です")
    dice = dice_from(event["dice"])
    if wanted is None:
        if len(dice) != TIEBREAK_DICE:
            en, ja = _describe_throw(state)
            raise IllegalEvent(f"expected {en}, saw {len(dice)} dice", f"必要なのは{ja}ですが、ダイスは{len(dice)}個でした")
        return dice
    seen = _colour_counts(state, dice)
    if seen != wanted:
        en, ja = _describe_throw(state)
        seen_ja = f"振られたのは{_counts_ja(seen)}でした" if seen else "ダイスが1個もありませんでした"
        raise IllegalEvent(f"expected {en}, saw {_counts_text(seen)}", f"必要なのは{ja}ですが、{seen_ja}")
    return dice


def _counts_text(counts: Mapping[str, int]) -> str:
    return _and([f"{n} {colour}" for colour, n in counts.items()]) if counts else "no dice"


def _counts_ja(counts: Mapping[str, int]) -> str:
    return "・".join(f"{colour_ja(colour)}{n}個" for colour, n in counts.items())


def _and(items: list[str], word: str = " and ") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + word + items[-1]


def _and_ja(items: list[str]) -> str:
    return "・".join(items)


def _describe_throw(state: State) -> tuple[str, str]:
    """The throw due, for refusals: "2 red and 1 blue dice (Aki's escape: ...)"."""
    seats, wanted = _due_throw(state)
    who, who_ja = _and(seats), _and_ja(seats)
    if wanted is None:
        return (f"{TIEBREAK_DICE} dice of any colour ({who}'s tie-break throw)",
                f"色を問わずダイス{TIEBREAK_DICE}個（{who_ja}の同点決戦）")
    total = sum(wanted.values())
    dice, dice_ja = f"{_counts_text(wanted)} {'die' if total == 1 else 'dice'}", f"ダイス {_counts_ja(wanted)}"
    if state.phase == "escape":
        return (f"{dice} ({who}'s escape: rethrow all {total} dice on the table)",
                f"{dice_ja}（{who_ja}の回避: 場のダイス{total}個をすべて振り直し）")
    return f"{dice} ({who}'s throw)", f"{dice_ja}（{who_ja}の番）"


def _throw_prompt(state: State) -> dict[str, str]:
    """What the table says to the thrower(s), in English and Japanese."""
    seats, wanted = _due_throw(state)
    who, who_ja = _and(seats), _and_ja(seats)
    if wanted is None:
        return text(f"Tie-break: {who} to throw {TIEBREAK_DICE} dice of any colour; most 1s wins.",
                    f"同点決戦: {who_ja}が色を問わずダイス{TIEBREAK_DICE}個を振ってください（1の目が多い人の勝ち）。")
    total = sum(wanted.values())
    if state.phase == "escape":
        return text(f"Escape for {who}: rethrow all {total} dice on the table ({_counts_text(wanted)}).",
                    f"{who_ja}の回避: 場のダイス{total}個（{_counts_ja(wanted)}）をすべて振り直してください。")
    return text(f"{who} to throw {_counts_text(wanted)} {'die' if total == 1 else 'dice'}.",
                f"{who_ja}の番: ダイス {_counts_ja(wanted)} を振ってください。")


def _faces_text(dice: Iterable[Die]) -> str:
    return " ".join(str(d.face) for d in sorted(dice, key=lambda d: d.face)) or "-"


def _sprung(state: State) -> bool:
    return triggered(_card(state), (d.face for d in state.table))


def _add_points(state: State, points: dict[int, int]) -> State:
    return replace(state, scores=tuple(s + points.get(i, 0) for i, s in enumerate(state.scores)))


def _gains(state: State, points: Mapping[int, int]) -> str:
    return ", ".join(f"{state.seats[i].name} +{p}" for i, p in points.items())


def _group_throw(state: State, dice: tuple[Die, ...]) -> State:
    group = state.groups[state.group]
    names = _and([state.seats[i].name for i in group])
    names_ja = _and_ja([state.seats[i].name for i in group])
    state = replace(state, table=state.table + dice)
    shown = f"{names} threw {_faces_text(dice)}; table {_faces_text(state.table)}"
    shown_ja = f"{names_ja}が{_faces_text(dice)}を振った; 場 {_faces_text(state.table)}"
    if not _sprung(state):
        points = {i: state.declared[i] * state.multiplier for i in group}
        gains = _gains(state, points)
        return _next_group(say(_add_points(state, points), f"{shown}: safe, {gains}", f"{shown_ja}: セーフ, {gains}"))
    if state.group == 0:
        zeros = {i: ZERO_POINTS * state.multiplier for i, v in enumerate(state.declared) if v == 0}
        gains = _gains(state, zeros)
        en = f"{shown}: TRAP on the first throw, the round ends" + (f"; declared 0: {gains}" if zeros else "")
        ja = f"{shown_ja}: 最初の手番でトラップ発動, ラウンド終了" + (f"; 0宣言: {gains}" if zeros else "")
        return _end_round(say(_add_points(state, zeros), en, ja))
    order = tuple(sorted(group, key=lambda i: (state.scores[i], i)))
    escapers = _and([state.seats[i].name for i in order])
    escapers_ja = _and_ja([state.seats[i].name for i in order])
    state = say(state, f"{shown}: TRAP! escapes in order: {escapers}", f"{shown_ja}: トラップ発動! 回避の順番: {escapers_ja}")
    return replace(state, phase="escape", escapes=order, escape_failed=False)


def _escape(state: State, dice: tuple[Die, ...]) -> State:
    i = state.escapes[0]
    name = state.seats[i].name
    state = replace(state, table=dice, escapes=state.escapes[1:])
    shown = f"{name} rethrew all dice: {_faces_text(dice)}"
    shown_ja = f"{name}が全ダイスを振り直し: {_faces_text(dice)}"
    if _sprung(state):
        state = say(replace(state, escape_failed=True), f"{shown}: trapped", f"{shown_ja}: 失敗")
    else:
        points = state.declared[i] * state.multiplier
        state = say(_add_points(state, {i: points}), f"{shown}: escaped, +{points}", f"{shown_ja}: 回避成功, +{points}")
    if state.escapes:
        return state
    if state.escape_failed:
        return _end_round(say(state, "An escape failed: the round ends", "回避失敗者あり: ラウンド終了"))
    return _next_group(replace(state, phase="throw"))


def _next_group(state: State) -> State:
    if state.group + 1 < len(state.groups):
        return replace(state, group=state.group + 1, phase="throw")
    return _end_round(say(state, "Every group has thrown: the round ends", "全員が振り終えた: ラウンド終了"))


def _end_round(state: State) -> State:
    score_text = ", ".join(f"{s.name} {p}" for s, p in zip(state.seats, state.scores))
    state = say(state, f"Scores after round {state.round}: {score_text}", f"ラウンド{state.round}終了時の得点: {score_text}")
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
        state = say(
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
        state = say(state, "The trap deck is empty: the discards are shuffled", "山札切れ: 捨て札をシャッフル")
    state = replace(state, rng=rng, pile=pile[1:], discards=discards, card=pile[0], phase="declare")
    return _show_card(state)


def _end_game(state: State) -> State:
    best = max(state.scores)
    leaders = tuple(i for i, s in enumerate(state.scores) if s == best)
    if len(leaders) == 1:
        return _win(state, leaders[0])
    names = _and([state.seats[i].name for i in leaders])
    names_ja = _and_ja([state.seats[i].name for i in leaders])
    state = say(
        state,
        f"Tie at {best} points: {names} each throw 10 dice, most 1s wins",
        f"{best}点で同点: {names_ja}がそれぞれダイス10個を振り, 1の目が多い人の勝ち",
    )
    return replace(state, phase="tiebreak", tied=leaders, tie_queue=leaders, tie_ones=())


def _win(state: State, i: int) -> State:
    name = state.seats[i].name
    state = say(state, f"Game over: {name} wins with {state.scores[i]} points", f"ゲーム終了: {name}の勝利（{state.scores[i]}点）")
    return replace(state, phase="over", winner=i)


def _tiebreak_throw(state: State, dice: tuple[Die, ...]) -> State:
    i = state.tie_queue[0]
    ones = sum(1 for d in dice if d.face == 1)
    name = state.seats[i].name
    state = say(state, f"{name} threw 10 dice: {ones} one{'' if ones == 1 else 's'}", f"{name}がダイス10個を振った: 1の目{ones}個")
    state = replace(state, tie_queue=state.tie_queue[1:], tie_ones=state.tie_ones + ((i, ones),))
    if state.tie_queue:
        return state
    most = max(n for _, n in state.tie_ones)
    still = tuple(j for j, n in state.tie_ones if n == most)
    if len(still) == 1:
        return _win(state, still[0])
    names = _and([state.seats[j].name for j in still])
    names_ja = _and_ja([state.seats[j].name for j in still])
    state = say(state, f"Still tied: {names} throw again", f"まだ同点: {names_ja}がもう一度振る")
    return replace(state, tied=still, tie_queue=still, tie_ones=())


MOVES = {
    "declare": move(_declare, required=("seat", "value")),
    "card": move(_turn_card, required=("card",)),
    "throw": move(_throw, required=("dice",), optional=("seat",)),
}


# --- view --------------------------------------------------------------------------------


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it; with ``seat``, that seat's own declaration under "mine".

    ``card`` is the trap card up, its condition also in plain words (``words``) and as
    what a page draws for it (``drawing``)."""
    names = [s.name for s in state.seats]
    revealed = state.revealed
    own = {
        "round": state.round,
        "last_round": state.last_round,
        "double": state.last_round,
        "target": state.target,
        "winner": names[state.winner] if state.winner is not None else None,
        "card": _card(state).shown() if state.card else None,
        "deck": {"mode": state.deck_mode, "left": len(state.pile), "discards": len(state.discards)},
        "declarations": dict(zip(names, state.declared)) if revealed else None,
        "groups": [[names[i] for i in g] for g in state.groups] if revealed else [],
        "group": state.group if state.phase in ("throw", "escape") else None,
        "escapes": [names[i] for i in state.escapes],
        "table": [d.as_dict() for d in state.table],
        "tiebreak": (
            {"seats": [names[i] for i in state.tied], "ones": {names[i]: n for i, n in state.tie_ones}}
            if state.tied
            else None
        ),
    }
    keys = base_view(state, GAME, expects(state), dict(zip(names, state.scores)), _winners(state)) | own
    out = {key: keys[key] for key in VIEW_KEYS}
    if seat is not None:
        i, mine = seat_view(state, seat)
        out["mine"] = {**mine, "declaration": state.declared[i],
                       "to_declare": state.phase == "declare" and state.declared[i] is None}
    return out
