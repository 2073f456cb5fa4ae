"""What a game of Flying Dwarves waits for (``expects``) and what the pages show (``view``).

Every prompt and label names the game's terms by the glossary (engines/data/flyingdwarves.toml).
"""
from __future__ import annotations

from typing import Any

from engines.core import an_input, field, log_lines, option, public, seat_view, text
from engines.flyingdwarves_data import count_en, en, handicap_name, item_name, ja
from engines.flyingdwarves_state import (
    State, cap, draw_due, lots_with_room, names, swap_candidates, task_seat, top_card,
)

GAME = "flyingdwarves"


def _item_options(state: State, i: int) -> list[dict[str, Any]]:
    return [option(c, *item_name(c)) for c in sorted(set(state.items[i]))]


def _lot_field(state: State, none_en: str, none_ja: str) -> dict[str, Any]:
    """The lots with room, and ``none`` (its label says what choosing no lot means)."""
    return field("lot", "choice", en("lot").capitalize(), ja("lot"), options=(
        [option(k, f"{en('lot')} at {en('space')} {k}", f"{k}番の{ja('lot')}") for k in lots_with_room(state)]
        + [option(None, none_en, none_ja)]))


def _handicap(state: State) -> list[dict[str, Any]]:
    name = names(state)[task_seat(state)]
    return [an_input("handicap", [name], text(f"{name}: choose your {en('handicap')}.",
                                              f"{name}: {ja('handicap')}を選んでください。"),
                     [field("choice", "choice", en("handicap").capitalize(), ja("handicap"),
                            options=[option(h, *handicap_name(h)) for h in state.handicaps_left])])]


def _draw(state: State) -> list[dict[str, Any]]:
    name = names(state)[task_seat(state)]
    n = draw_due(state, state.tasks[0][2])
    pool = sorted(set(state.deck) | (set(state.used) if n > len(state.deck) else set()))
    return [an_input("draw", [name], text(f"{name}: draw {count_en(n, en('item_card'))} and name them.",
                                          f"{name}: {ja('item_card')}を{n}枚引いて入力してください。"),
                     [field("cards", "multi", "Cards drawn", "引いたカード", min=n, max=n, repeat=True,
                            options=[option(c, *item_name(c)) for c in pool])])]


def _propel(state: State) -> list[dict[str, Any]]:
    seats = names(state)
    card = en("propulsion_card")
    return [an_input("propel", [seats[i] for i in range(len(seats)) if state.chosen[i] is None],
                     text(f"Choose in secret a {card} from your {en('hand')}.",
                          f"{ja('hand')}から{ja('propulsion_card')}を1枚、秘密に選んでください。"),
                     [field("card", "number", card.capitalize(), ja("propulsion_card"), min=0, max=top_card(state),
                            button=True, only={seats[i]: list(hand) for i, hand in enumerate(state.hands)})],
                     secret=True)]


def _item(state: State, i: int, prompt: dict[str, str]) -> dict[str, Any]:
    return an_input("item", [names(state)[i]], prompt,
                    [field("card", "choice", en("item_card").capitalize(), ja("item_card"),
                           options=_item_options(state, i))],
                    action=text(f"Use an {en('item_card')}", f"{ja('item_card')}を使う"))


def _before_move(state: State) -> list[dict[str, Any]]:
    """Before a move: any seat holding an item card may open the exchange; the mover moves."""
    seats, m = names(state), state.mover
    inputs = [] if state.ex_done else [
        _item(state, i, text(f"{seats[i]}: you may use an {en('item_card')} on {seats[m]}'s {en('move')}; "
                             f"without one, {seats[m]} just moves.",
                             f"{seats[i]}: {seats[m]}の{ja('move')}に{ja('item_card')}を使えます。"
                             f"使わなければ{seats[m]}がそのまま進みます。"))
        for i in range(len(seats)) if state.items[i]]
    mod_en = f", {state.modifier:+d} by {en('item')}." if state.modifier else "."
    mod_ja = f"（{ja('item')} {state.modifier:+d}）。" if state.modifier else "。"
    inputs.append(an_input("move", [seats[m]], text(
        f"{seats[m]}: {en('move')} your {en('disc')} {count_en(state.played[m], en('space'))}{mod_en}",
        f"{seats[m]}: {ja('disc')}を{state.played[m]}{ja('space')}進めてください{mod_ja}"),
        action=text(f"{en('move').capitalize()} your {en('disc')}", f"{ja('disc')}を進める")))
    return inputs


def _exchange(state: State) -> list[dict[str, Any]]:
    """In an exchange the seat with priority plays an item card or passes; holding none,
    it is offered the pass alone (the table may send that forced pass for it)."""
    seats, i = names(state), state.priority
    who, mover = seats[i], seats[state.mover]
    if not state.items[i]:
        return [an_input("pass", [who], text(
            f"{who} has the {en('priority')} but holds no {en('item_card')}: {en('pass')}.",
            f"{who}に{ja('priority')}がありますが、{ja('item_card')}がないので{ja('pass')}します。"))]
    return [_item(state, i, text(
                f"{who} has the {en('priority')}: use an {en('item_card')} on {mover}'s {en('move')}.",
                f"{who}に{ja('priority')}があります。{mover}の{ja('move')}に{ja('item_card')}を使えます。")),
            an_input("pass", [who], text(f"{who} has the {en('priority')}: {en('pass')}, playing no {en('item_card')}.",
                                         f"{who}に{ja('priority')}があります。{ja('item_card')}を使わずに"
                                         f"{ja('pass')}できます。"),
                     action=text(en("pass").capitalize(), ja("pass")))]


def _swap(state: State) -> list[dict[str, Any]]:
    seats = names(state)
    user, mover = seats[task_seat(state)], seats[state.mover]
    return [an_input("swap", [user], text(f"{user}: choose whom {mover} swaps places with ({en('swap')}).",
                                          f"{user}: {mover}と場所を交換する相手を選んでください（{ja('swap')}）。"),
                     [field("with", "choice", "Swap with", "交換相手",
                            options=[option(seats[j], seats[j], seats[j]) for j in swap_candidates(state)])])]


def _develop(state: State) -> list[dict[str, Any]]:
    m = names(state)[state.mover]
    return [an_input("develop", [m], text(f"{m}: the {en('develop')} places one of your {en('cube')}s on a "
                                          f"{en('lot')}.",
                                          f"{m}: {ja('develop')}で{ja('lot')}に{ja('cube')}を置けます。"),
                     [_lot_field(state, f"place no {en('cube')}", f"{ja('cube')}を置かない")])]


def _discard(state: State) -> list[dict[str, Any]]:
    i = task_seat(state)
    name, card = names(state)[i], en("propulsion_card")
    return [an_input("discard", [name], text(f"{name}: you may discard a {card} for its number in {en('points')}.",
                                             f"{name}: {ja('propulsion_card')}を1枚捨てて、その数字の"
                                             f"{ja('points')}を得られます。"),
                     [field("card", "choice", card.capitalize(), ja("propulsion_card"), default=None,
                            options=[option(None, "none", "捨てない")]
                            + [option(c, str(c), str(c)) for c in state.hands[i] if c > 0])])]


def _invest(state: State) -> list[dict[str, Any]]:
    _, i, k = state.tasks[0]
    name = names(state)[i]
    return [an_input("invest", [name], text(f"{name}: {en('invest')} a {en('cube')} in the {en('lot')} at "
                                            f"{en('space')} {k}?",
                                            f"{name}: {k}番の{ja('lot')}に{ja('cube')}を{ja('invest')}しますか？"),
                     [field("place", "bool", f"Place a {en('cube')}", f"{ja('cube')}を置く")])]


def _start_cube(state: State) -> list[dict[str, Any]]:
    name = names(state)[task_seat(state)]
    return [an_input("start_cube", [name], text(f"{name}: move your {en('start_cube')} to a free {en('lot')}, "
                                                "or keep it.",
                                                f"{name}: {ja('start_cube')}を{ja('lot')}に移すか、"
                                                "そのままにしてください。"),
                     [_lot_field(state, "keep it where it is", "そのままにする")])]


_INPUTS = {"handicap": _handicap, "draw": _draw, "propel": _propel, "move": _before_move, "exchange": _exchange,
           "swap": _swap, "develop": _develop, "discard": _discard, "invest": _invest, "start_cube": _start_cube}


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    inputs = _INPUTS[state.phase](state) if state.phase in _INPUTS else []
    return {"phase": state.phase, "inputs": inputs, "winners": [names(state)[i] for i in state.winners]}


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it; with ``seat``, that seat's own hand and items under "mine"."""
    seats = names(state)
    n, L = len(seats), len(state.board)
    revealed = state.phase != "propel"
    out: dict[str, Any] = {
        "game": GAME,
        "phase": state.phase,
        "round": state.round,
        "scores": {seats[i]: state.points[i] for i in range(n)},
        "winners": [seats[i] for i in state.winners],
        "seats": [s.as_dict() for s in state.seats],
        "board": [{"space": k, "kind": s[0], "value": s[1]} for k, s in enumerate(state.board)],
        "positions": {seats[i]: state.p[i] % L for i in range(n)},
        "progress": {seats[i]: state.p[i] for i in range(n)},
        "laps": {seats[i]: state.p[i] // L for i in range(n)},
        "discs": {str(k): [seats[i] for i in range(n) if state.p[i] % L == k]
                  for k in sorted({p % L for p in state.p})},
        "lots": {str(k): {seats[i]: c[i] for i in range(n) if c[i]} for k, c in enumerate(state.cubes) if sum(c)},
        "cap": cap(state),
        "start_cubes": [seats[i] for i in range(n) if state.start_cube[i]],
        "supply": {seats[i]: state.supply[i] for i in range(n)},
        "hand_sizes": {seats[i]: len(state.hands[i]) for i in range(n)},
        "discards": {seats[i]: list(state.discards[i]) for i in range(n)},
        "items": {seats[i]: len(state.items[i]) for i in range(n)},
        "deck": {"mode": state.deck_mode, "left": len(state.deck), "used": len(state.used)},
        "handicaps": {seats[i]: state.handicaps[i] for i in range(n) if state.handicaps[i]},
        "finished": [seats[i] for i in state.finished],
        "order": [seats[i] for i in state.order] if revealed and state.order else [],
        "played": ({seats[i]: state.played[i] for i in range(n)}
                   if revealed and state.phase != "over" and any(c is not None for c in state.played) else {}),
        "mover": seats[state.mover] if state.mover is not None else None,
        "exchange": [{"seat": seats[u], "card": c} for u, c in state.ex_played] if state.mover is not None else [],
        "modifier": state.modifier,
        "final": ({seats[i]: {"penalty": state.final[i][0], "majority": state.final[i][1]} for i in range(n)}
                  if state.final else None),
        "expects": public(expects(state)),
        "log": log_lines(state),
    }
    if seat is not None:
        i, mine = seat_view(state, seat)
        out["mine"] = {
            **mine,
            "hand": list(state.hands[i]),
            "items": sorted(state.items[i]),
            "chosen": (state.chosen[i] if state.phase == "propel"
                       else state.played[i] if state.phase != "over" else None),
            "to_choose": state.phase == "propel" and state.chosen[i] is None,
        }
    return out
