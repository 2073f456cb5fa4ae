"""Flying Dwarves (フライング・ドワーフ): 3 to 5 players race flying mine carts twice round a loop.

The rules are docs/rules/flyingdwarves.md.
Each player holds propulsion cards (推進カード) 0-4 (0-5 with 5 players), a disc on the
start, a start cube, four cubes to invest and 3 points. Handicaps (ハンデ) are chosen in
reverse turn order, the first player none: ``1 point``, ``1 item``, ``2 points`` (4-5
seats), ``2 items`` (5 seats), each once. A round: refuel (給油: every seat secretly picks
a card), launch (発車: all revealed at once; a 0 brings the seat's discards back to hand),
move (移動: from the first player clockwise). Before each move any seat may open an item
exchange (アイテムの掛け合い) aimed at the mover; priority (優先権) then moves one seat
clockwise per item or pass, until every seat has passed in a row; the cards then resolve
in play order (+N/-N, copy コピー, cancel 打ち消し, swap robot 入れ替えロボット,
development robot 開拓ロボット). A move may not end on a non-treasure space holding a disc
that moved this round: step back. Spaces: mine (鉱山) N points, ``mine ?`` discard a card
for its number in points, treasure (宝箱) draw N items, wasteland (荒野) discard the two
highest cards (never the 0), vacant lot (空き地) invest a cube; landing on a developed lot
(開拓マス) scores or pays. After one lap the start cube may go to a lot with room; after
two the goal (+6, +3, then 0). The game ends with the round of the second arrival; a seat
short of the goal loses 3 per full 5 spaces beyond the first 5; each lot's sole majority
holder scores 1/3/5.

Options: ``board`` (list of spaces, data/flyingdwarves.toml), ``items`` (item deck, same
file), ``deck`` (``"dealt"``: shuffled with the seed; ``"physical"``: ``draw`` events).

Events (docs/replay.md, "Flying Dwarves events, by example"): ``handicap``, ``draw``,
``propel`` (secret), ``item``, ``pass``, ``swap``, ``develop``, ``move``, ``discard``,
``invest``, ``start_cube``. Phases: ``handicap``, ``draw``, ``propel``, ``move`` (before a
move: an item opens an exchange, or the mover moves), ``exchange``, ``swap``, ``develop``,
``discard``, ``invest``, ``start_cube``, ``over``. Beside this module: the data file,
the glossary and the names of things (``flyingdwarves_data``), the state
(``flyingdwarves_state``), what the spaces do and the end's scoring
(``flyingdwarves_spaces``), ``expects`` and ``view`` (``flyingdwarves_view``).

Decisions where the printed rules are silent:
- In an exchange every seat at priority sends an item or a pass, a seat holding no item
  card too (expects offers it the pass alone); n passes in a row end the exchange.
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

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engines.core import (
    IllegalEvent, Seat, apply_move, check_options, deck_setting, joined, move, option_choice, replace, rng_seed,
    rng_shuffle, say, seat_index, seats_from, short, text, waiting_for, whole,
)
from engines.flyingdwarves_data import (
    GLOSSARY, HANDICAPS, board_from, count_en, en, handicap_name, item_name, items_from, ja, load_data, space_name,
)
from engines.flyingdwarves_state import (
    SUPPLY, State, cap, draw_due, lots_with_room, names, set_at, swap_candidates, task_seat, top_card, top_card_for,
)
from engines.flyingdwarves_spaces import GOAL_BONUS, add_cube, final_parts, game_over, goal, land, place
from engines.flyingdwarves_view import GAME, expects, view

__all__ = ["GAME", "TITLE", "GLOSSARY", "State", "setup", "expects", "apply", "view", "MOVES",
           "board_from", "items_from", "load_data", "final_parts", "resolve_items", "cap", "top_card",
           "lots_with_room", "SUPPLY", "GOAL_BONUS"]

TITLE = {"en": "Flying Dwarves", "ja": "フライング・ドワーフ"}
SCORE_TERM = "points"
#: What the table shows for this game (pi.web.game_uses): secret propulsion cards on the seat
#: buttons and each seat's disc colour; no dice.
USES = frozenset({"buttons", "seat_colours"})
MIN_SEATS = 3
MAX_SEATS = 5
OPTIONS = ("board", "items", "deck")
DECK_MODES = ("dealt", "physical")
#: The options the host chooses on the start form (fields as in expects). Scripts may also
#: give their own board and item deck.
SETTINGS = (deck_setting(GLOSSARY["item_card"]["en"] + "s", GLOSSARY["item_card"]["ja"]),)
START_POINTS = 3


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: handicaps are chosen first, from the last seat back to the second."""
    seated = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = check_options({} if options is None else options, OPTIONS)
    deck_mode = option_choice(options, "deck", DECK_MODES, "dealt")
    board, cards = load_data()
    if "board" in options:
        board = board_from(options["board"], "option board")
    if "items" in options:
        cards = items_from(options["items"], "option items")
    rng = rng_seed(seed)
    n = len(seated)
    deck: tuple[str, ...] = tuple(sorted(cards))
    if deck_mode == "dealt":
        deck, rng = rng_shuffle(rng, cards)
    hand = tuple(range(top_card_for(n) + 1))
    state = State(
        seats=seated, board=board, item_cards=tuple(cards), deck_mode=deck_mode, rng=rng,
        handicaps_left=tuple(HANDICAPS[:n - 1]), handicaps=(None,) * n,
        hands=(hand,) * n, discards=((),) * n, chosen=(None,) * n, played=(None,) * n,
        p=(0,) * n, moved=(False,) * n, points=(START_POINTS,) * n, supply=(SUPPLY,) * n,
        start_cube=(True,) * n, offered=(False,) * n, cubes=((0,) * n,) * len(board),
        items=((),) * n, deck=deck,
        tasks=tuple(("handicap", i) for i in range(n - 1, 0, -1)) + (("round",),),
    )
    state = say(state, f"The game starts; {en('handicap')}s are chosen from the last seat back.",
                f"ゲーム開始。手番の後ろの人から{ja('handicap')}を選びます。")
    return _advance(state)


# --- the tasks between events --------------------------------------------------------------


def _pop(state: State) -> State:
    return replace(state, tasks=state.tasks[1:])


def _add_items(state: State, i: int, cards: Sequence[str]) -> State:
    name = names(state)[i]
    state = replace(state, items=set_at(state.items, i, state.items[i] + tuple(cards)))
    return say(state, f"{name} draws {count_en(len(cards), en('item_card'))}.",
               f"{name}は{ja('item_card')}を{len(cards)}枚引きます。")


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
    return _add_items(replace(state, deck=tuple(deck), used=used, rng=rng), i, got)


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
            if draw_due(state, n) == 0:
                state = replace(state, tasks=rest)
                continue
            return replace(state, phase="draw")
        if kind == "round":
            return _new_round(state)
        if kind == "turn":
            return replace(state, phase="move", mover=task[1], ex_played=(), ex_done=False, priority=None,
                           passes=0, modifier=0)
        if kind == "swap":
            cands = swap_candidates(state)
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
            return replace(state, tasks=rest, phase="move", ex_done=True)
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
                state = replace(state, offered=set_at(state.offered, i, True))
                if lots_with_room(state):
                    return replace(state, phase="start_cube")
                name = names(state)[i]
                state = say(state, f"{name} completes a lap; no {en('lot')} has room, the {en('start_cube')} stays.",
                            f"{name}は1周しました。空いている{ja('lot')}がないため、{ja('start_cube')}はそのままです。")
            state = replace(state, tasks=rest)
            continue
        if kind == "goal":
            state = goal(replace(state, tasks=rest), task[1])
            continue
        if kind == "card":
            state = _card_back(replace(state, tasks=rest, mover=None), task[1])
            continue
        if kind == "round_end":
            state = replace(state, tasks=rest)
            if len(state.finished) >= 2:
                return game_over(state)
            state = replace(state, tasks=(("round",),) + state.tasks)
            continue
        raise AssertionError(f"unknown task {task!r}")
    return state


def _new_round(state: State) -> State:
    n = len(state.seats)
    r = state.round + 1
    first = (r - 1) % n
    order = tuple((first + k) % n for k in range(n))
    state = replace(state, round=r, order=order, chosen=(None,) * n, played=(None,) * n,
                    moved=(False,) * n, mover=None, phase="propel")
    name = names(state)[first]
    return say(state, f"{en('round').capitalize()} {r}: {name} starts; choose your {en('propulsion_card')}s in secret.",
               f"{ja('round')}{r}: {name}から。{ja('propulsion_card')}を秘密に選んでください。")


def _card_back(state: State, i: int) -> State:
    """The card just played goes to the discards; a 0 back to the hand."""
    c = state.played[i]
    if c == 0:
        return replace(state, hands=set_at(state.hands, i, tuple(sorted(state.hands[i] + (0,)))))
    if c is not None:
        return replace(state, discards=set_at(state.discards, i, tuple(sorted(state.discards[i] + (c,)))))
    return state


# --- items ---------------------------------------------------------------------------------


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
    state = say(state, f"The {en('item')} resolve: {en('move')} {mod:+d}.", f"{ja('item')}解決: {ja('move')} {mod:+d}。")
    return _advance(state)


def _do_swap(state: State, user: int, j: int) -> State:
    m = state.mover
    seats = names(state)
    state = replace(state, p=set_at(set_at(state.p, m, state.p[j]), j, state.p[m]))
    return say(state, f"{seats[user]}'s {en('swap')}: {seats[m]} and {seats[j]} exchange places.",
               f"{seats[user]}の{ja('swap')}: {seats[m]}と{seats[j]}が場所を交換。")


# --- events --------------------------------------------------------------------------------

#: What a seat that is not due cannot do now, for the refusal.
_CANNOT = {
    "handicap": (f"choose a {en('handicap')}", f"{ja('handicap')}を選べません"),
    "draw": (f"draw {en('item_card')}s", f"{ja('item_card')}を引けません"),
    "item": (f"use an {en('item_card')}", f"{ja('item_card')}を使えません"),
    "pass": (en("pass"), f"{ja('pass')}できません"),
    "swap": ("choose whom to swap with", f"{ja('swap')}の交換相手を選べません"),
    "develop": (f"place a {en('cube')} by the {en('develop')}", f"{ja('develop')}で{ja('cube')}を置けません"),
    "move": (en("move"), f"{ja('move')}できません"),
    "discard": (f"discard a {en('propulsion_card')}", f"{ja('propulsion_card')}を捨てられません"),
    "invest": (en("invest"), f"{ja('invest')}できません"),
    "start_cube": (f"move the {en('start_cube')}", f"{ja('start_cube')}を動かせません"),
}


def _refused(en_: str, ja_: str, state: State) -> IllegalEvent:
    """A refusal that goes on with what the table waits for."""
    return IllegalEvent.of(joined(text(en_ + "; ", ja_ + "。"), waiting_for(expects(state))))


def _due(state: State, event: Mapping[str, Any], seat: int) -> int:
    """The index of the event's seat, which must be ``seat`` (the seat due)."""
    i = seat_index(state.seats, event["seat"])
    if i != seat:
        what_en, what_ja = _CANNOT[event["type"]]
        name = names(state)[i]
        raise _refused(f"{name} cannot {what_en} now", f"{name}は今{what_ja}", state)
    return i


def _handicap(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, task_seat(state))
    choice = event["choice"]
    if choice not in state.handicaps_left:
        left = state.handicaps_left
        raise IllegalEvent(f"{en('handicap')} {short(choice)} is not available at this table now; "
                           + (f"the one left is {left[0]}" if len(left) == 1 else f"choose one of {', '.join(left)}"),
                           f"{ja('handicap')} {short(choice)} は選べません。選べるのは "
                           f"{'、'.join(handicap_name(h)[1] for h in state.handicaps_left)} です")
    name = names(state)[i]
    state = replace(_pop(state), handicaps_left=tuple(h for h in state.handicaps_left if h != choice),
                    handicaps=set_at(state.handicaps, i, choice))
    state = say(state, f"{name} takes the {en('handicap')} {choice}.",
                f"{name}は{ja('handicap')}「{handicap_name(choice)[1]}」を選びました。")
    n, what = int(choice[0]), choice.split()[1]
    if what.startswith("point"):
        state = replace(state, points=set_at(state.points, i, state.points[i] + n))
    else:
        state = replace(state, tasks=(("draw", i, n),) + state.tasks)
    return _advance(state)


def _draw(state: State, event: Mapping[str, Any]) -> State:
    if state.deck_mode == "dealt":
        raise IllegalEvent(f"the {en('deck')} is dealt by the table (deck \"dealt\"); no draw event is expected",
                           f"{ja('deck')}はテーブルが配ります（deck \"dealt\"）。draw イベントは使いません")
    if state.phase != "draw":
        raise _refused(f"no {en('item_card')} is being drawn now", f"今は{ja('item_card')}を引く時ではありません", state)
    i = _due(state, event, task_seat(state))
    cards = event["cards"]
    n = draw_due(state, state.tasks[0][2])
    if not isinstance(cards, list) or len(cards) != n or not all(isinstance(c, str) for c in cards):
        raise IllegalEvent(f"draw exactly {count_en(n, en('item_card'))}, named like \"+1\" or \"copy\"; saw {short(cards)}",
                           f"{ja('item_card')}をちょうど{n}枚、\"+1\" や \"copy\" のように書いてください（{short(cards)}）")
    got, deck = Counter(cards), Counter(state.deck)
    used = state.used
    if n <= len(state.deck):
        if got - deck:
            raise IllegalEvent(f"{short(sorted(got - deck))} not in the {en('deck')}; "
                               f"it holds {', '.join(sorted(state.deck))}",
                               f"{short(sorted(got - deck))} は{ja('deck')}にありません。{ja('deck')}: "
                               f"{', '.join(sorted(state.deck))}")
        deck = deck - got
    else:
        rest = got - deck
        if deck - got:
            raise IllegalEvent(f"the {en('deck')} holds {', '.join(sorted(state.deck))}: all of it is drawn before "
                               f"the {en('used_pile')}",
                               f"{ja('deck')}の {', '.join(sorted(state.deck))} を全部引いてから{ja('used_pile')}を"
                               "引いてください")
        if rest - Counter(used):
            missing = short(sorted(rest - Counter(used)))
            raise IllegalEvent(f"{missing} not in the {en('deck')} or the {en('used_pile')} "
                               f"({en('used_pile')}: {', '.join(sorted(used))})",
                               f"{missing} は{ja('deck')}にも{ja('used_pile')}にもありません"
                               f"（{ja('used_pile')}: {', '.join(sorted(used))}）")
        deck = Counter(used) - rest
        used = ()
    state = replace(_pop(state), deck=tuple(sorted(deck.elements())), used=used)
    return _advance(_add_items(state, i, cards))


def _propel(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    if state.chosen[i] is not None:
        raise IllegalEvent(f"you have already chosen your {en('propulsion_card')} this {en('round')}",
                           f"この{ja('round')}の{ja('propulsion_card')}はもう選んであります")
    card, top, hand = event["card"], top_card(state), state.hands[i]
    if not whole(card, 0, top):
        raise IllegalEvent(f"a {en('propulsion_card')} is a whole number 0-{top} with {len(state.seats)} players, "
                           f"saw {short(card)}",
                           f"{len(state.seats)}人の{ja('propulsion_card')}は0〜{top}の整数です（{short(card)}）")
    if card not in hand:
        raise IllegalEvent(f"card {card} is not in your {en('hand')}; "
                           f"your {en('hand')} holds {', '.join(map(str, hand))}",
                           f"{ja('propulsion_card')}{card}は{ja('hand')}にありません。{ja('hand')}: "
                           f"{', '.join(map(str, hand))}")
    state = replace(state, chosen=set_at(state.chosen, i, card))
    return _reveal(state) if all(c is not None for c in state.chosen) else state


def _reveal(state: State) -> State:
    seats = names(state)
    hands, discards = list(state.hands), list(state.discards)
    for i, c in enumerate(state.chosen):
        h = list(hands[i])
        h.remove(c)
        if c == 0:
            h += discards[i]
            discards[i] = ()
        hands[i] = tuple(sorted(h))
    state = replace(state, hands=tuple(hands), discards=tuple(discards), played=state.chosen,
                    chosen=(None,) * len(seats),
                    tasks=tuple(("turn", i) for i in state.order) + (("round_end",),) + state.tasks[1:])
    shown = [f"{seats[i]} {state.played[i]}" for i in state.order]
    state = say(state, f"{en('reveal').capitalize()}: {', '.join(shown)}.", f"{ja('reveal')}: {'、'.join(shown)}。")
    return _advance(state)


def _item(state: State, event: Mapping[str, Any]) -> State:
    if state.phase == "exchange":
        i = _due(state, event, state.priority)
    elif state.phase == "move" and not state.ex_done:
        i = seat_index(state.seats, event["seat"])
    elif state.phase == "move":
        raise _refused(f"the {en('exchange')} for this {en('move')} is over",
                       f"この{ja('move')}の{ja('exchange')}は終わりました", state)
    else:
        raise _refused(f"{en('item_card')}s are used only before a {en('move')}",
                       f"{ja('item_card')}は{ja('move')}の前にだけ使えます", state)
    card = event["card"]
    seats = names(state)
    if card not in state.items[i]:
        held = ", ".join(state.items[i]) or "none"
        raise IllegalEvent(f"{seats[i]} holds no {en('item_card')} {short(card)} (holds: {held})",
                           f"{seats[i]}は{ja('item_card')} {short(card)} を持っていません"
                           f"（手持ち: {'、'.join(item_name(c)[1] for c in state.items[i]) or 'なし'}）")
    h = list(state.items[i])
    h.remove(card)
    n = len(seats)
    state = replace(state, phase="exchange", items=set_at(state.items, i, tuple(h)), used=state.used + (card,),
                    ex_played=state.ex_played + ((i, card),), passes=0, priority=(i + 1) % n)
    card_en, card_ja = item_name(card)
    return say(state, f"{seats[i]} plays {card_en} on {seats[state.mover]}'s {en('move')}.",
               f"{seats[i]}が{seats[state.mover]}の{ja('move')}に「{card_ja}」を使用。")


def _pass(state: State, event: Mapping[str, Any]) -> State:
    """The seat with priority passes; priority moves one seat clockwise; n passes in a row
    end the exchange."""
    _due(state, event, state.priority)
    n = len(state.seats)
    state = replace(state, passes=state.passes + 1, priority=(state.priority + 1) % n)
    return _resolve_exchange(state) if state.passes >= n else state


def _swap(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, task_seat(state))
    cands = swap_candidates(state)
    seats = names(state)
    other = event["with"]
    if other not in seats or seats.index(other) not in cands:
        who = [seats[j] for j in cands]
        raise IllegalEvent(f"{short(other)} is no {en('swap')} candidate; choose {' or '.join(who)}",
                           f"{short(other)} は{ja('swap')}の交換相手になれません。{'か'.join(who)}を選んでください")
    return _advance(_do_swap(_pop(state), i, seats.index(other)))


def _lot_arg(state: State, lot: Any) -> int | None:
    if lot is None:
        return None
    rooms = lots_with_room(state)
    listed = ", ".join(map(str, rooms))
    if not whole(lot, 0, len(state.board)):
        raise IllegalEvent(f"a {en('lot')} is named by its {en('space')}'s number, like {rooms[0] if rooms else 1}; "
                           f"saw {short(lot)}; choose one of {listed or 'none'} or null",
                           f"{ja('lot')}は{ja('space')}の番号で書きます（{short(lot)}）。{listed} のどれかか「なし」を選んでください")
    if lot not in rooms:
        raise IllegalEvent(f"{en('space')} {short(lot)} is not a {en('lot')} with room; choose one of {listed} or null",
                           f"{short(lot)} は空きのある{ja('lot')}ではありません。{listed} のどれかか「なし」を選んでください")
    return lot


def _develop(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, state.mover)
    k = _lot_arg(state, event["lot"])
    state = _pop(state)
    if k is not None:
        name = names(state)[i]
        state = say(place(state, i, k), f"{name}'s {en('develop')} places a {en('cube')} on {en('lot')} {k}.",
                    f"{name}の{ja('develop')}が{k}番の{ja('lot')}に{ja('cube')}を置きます。")
    return _advance(state)


def _start_cube(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, task_seat(state))
    k = _lot_arg(state, event["lot"])
    state = _pop(state)
    if k is not None:
        name = names(state)[i]
        state = add_cube(replace(state, start_cube=set_at(state.start_cube, i, False)), i, k)
        state = say(state, f"{name} moves the {en('start_cube')} to {en('lot')} {k}.",
                    f"{name}は{ja('start_cube')}を{k}番の{ja('lot')}へ。")
    return _advance(state)


def _move(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, state.mover)
    n, L = len(state.seats), len(state.board)
    seats = names(state)
    start = state.p[i]
    target = start + max(0, state.played[i] + state.modifier)
    taken = {state.p[j] % L for j in range(n) if j != i and state.moved[j]}
    while target > start and state.board[target % L][0] != "treasure" and target % L in taken:
        target -= 1
    state = replace(_pop(state), p=set_at(state.p, i, target), moved=set_at(state.moved, i, True), modifier=0)
    k = target % L
    tasks: list[tuple] = []
    if target == start:
        state = say(state, f"{seats[i]} stays on {en('space')} {k}.", f"{seats[i]}は{k}番の{ja('space')}に留まります。")
    else:
        name_en, name_ja = space_name(state.board[k])
        state = say(state, f"{seats[i]} {en('move')}s {target - start} to {en('space')} {k} ({name_en}).",
                    f"{seats[i]}は{target - start}{ja('space')}進み{k}番（{name_ja}）へ。")
        state, tasks = land(state, i, k)
    state = replace(state, tasks=tuple(tasks) + (("start_cube", i), ("goal", i), ("card", i)) + state.tasks)
    return _advance(state)


def _discard(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, task_seat(state))
    card = event["card"]
    if card is not None:
        hand = state.hands[i]
        if not whole(card, 1, 5) or card not in hand:
            cards = ", ".join(str(c) for c in hand if c)
            raise IllegalEvent(f"discard a card above 0 from your {en('hand')} ({cards}) or null",
                               f"{ja('hand')}の0より大きい{ja('propulsion_card')}（{cards}）か「捨てない」を選んでください")
        name = names(state)[i]
        h = list(hand)
        h.remove(card)
        state = replace(state, hands=set_at(state.hands, i, tuple(h)),
                        points=set_at(state.points, i, state.points[i] + card),
                        discards=set_at(state.discards, i, tuple(sorted(state.discards[i] + (card,)))))
        state = say(state, f"{name} discards {card} for {count_en(card, 'point')}.", f"{name}は{card}を捨てて{card}点。")
    return _advance(_pop(state))


def _invest(state: State, event: Mapping[str, Any]) -> State:
    i = _due(state, event, task_seat(state))
    yes = event["place"]
    if not isinstance(yes, bool):
        raise IllegalEvent(f"'place' is true or false, saw {short(yes)}", f"place は true か false です（{short(yes)}）")
    k = state.tasks[0][2]
    state = _pop(state)
    if yes:
        name = names(state)[i]
        state = say(place(state, i, k), f"{name} {en('invest')}s a {en('cube')} in {en('lot')} {k}.",
                    f"{name}は{k}番の{ja('lot')}に{ja('invest')}。")
    return _advance(state)


#: Every event type: its handler, the phases it is allowed in (None: the handler judges)
#: and its fields.
MOVES = {
    "handicap": move(_handicap, ("handicap",), ("seat", "choice")),
    "draw": move(_draw, None, ("seat", "cards")),
    "propel": move(_propel, ("propel",), ("seat", "card")),
    "item": move(_item, None, ("seat", "card")),
    "pass": move(_pass, ("exchange",)),
    "swap": move(_swap, ("swap",), ("seat", "with")),
    "develop": move(_develop, ("develop",), ("seat", "lot")),
    "move": move(_move, ("move",)),
    "discard": move(_discard, ("discard",), ("seat", "card")),
    "invest": move(_invest, ("invest",), ("seat", "place")),
    "start_cube": move(_start_cube, ("start_cube",), ("seat", "lot")),
}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    return apply_move(state, event, MOVES, expects)
