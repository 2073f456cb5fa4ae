"""Relay: a made-up game for the table's tests, small enough to read at a glance, that has
what the table's life cycle must handle without knowing the game: a secret choice on the
buttons and its reveal, a one-seat throw, moves with nothing to choose (forced moves: a
choice of one option, an input without fields), rounds in its view, and a game over.

Each round: every seat bids 0-3 in secret; the highest bidder (the first on a tie) throws
one die of its colour; then each seat in turn takes a token (a seat that bid 0 may take
only gold; the others choose gold or silver); then the thrower closes the round (no
field). After ``rounds`` rounds (option, default 2) the seat with the most gold wins.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

from engines.core import IllegalEvent, Seat, dice_from, event_text

PROMPT = {"en": "Do it.", "ja": "どうぞ。"}


@dataclass(frozen=True)
class Relay:
    seats: tuple
    rounds: int
    round: int = 1
    phase: str = "bid"
    bids: tuple = ()
    queue: tuple = ()
    gold: tuple = ()
    log: tuple = (("Round 1: bid in secret.", "第1ラウンド: 秘密に入札。"),)
    events: tuple = ()


def _names(state: Relay) -> list[str]:
    return [s.name for s in state.seats]


def _thrower(state: Relay) -> int:
    return max(range(len(state.seats)), key=lambda i: (state.bids[i], -i))


def setup(seats, options, seed):
    seats = tuple(Seat(s.name, s.colour) for s in seats)
    return Relay(seats, int(options.get("rounds", 2)), bids=(None,) * len(seats), gold=(0,) * len(seats))


def expects(state: Relay) -> dict[str, Any]:
    names = _names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": []}
    if state.phase == "bid":
        out["inputs"].append({
            "type": "bid", "seats": [n for n, b in zip(names, state.bids) if b is None], "secret": True,
            "prompt": PROMPT, "fields": [{"name": "n", "kind": "number", "min": 0, "max": 3, "button": True,
                                          "label": {"en": "Bid", "ja": "入札"}}]})
    elif state.phase == "throw":
        i = _thrower(state)
        out["inputs"].append({
            "type": "throw", "seats": [names[i]], "secret": False, "prompt": PROMPT,
            "fields": [{"name": "dice", "kind": "dice", "label": {"en": "Dice", "ja": "ダイス"}}],
            "dice": [{"colour": state.seats[i].colour, "sides": 6, "count": 1}], "camera": "new"})
    elif state.phase == "take":
        i = state.queue[0]
        options = ["gold"] if state.bids[i] == 0 else ["gold", "silver"]
        out["inputs"].append({
            "type": "take", "seats": [names[i]], "secret": False, "prompt": PROMPT,
            "fields": [{"name": "token", "kind": "choice", "label": {"en": "Token", "ja": "トークン"},
                        "options": [{"value": o, "label": {"en": o, "ja": o}} for o in options]}]})
    elif state.phase == "close":
        out["inputs"].append({"type": "close", "seats": [names[_thrower(state)]], "secret": False,
                              "prompt": PROMPT, "fields": []})
    else:
        best = max(state.gold)
        out["winners"] = [n for n, g in zip(names, state.gold) if g == best]
    return out


def apply(state: Relay, event: dict[str, Any]) -> Relay:
    inputs = expects(state)["inputs"]
    kind = event.get("type") if isinstance(event, dict) else None
    inp = next((i for i in inputs if i["type"] == kind), None)
    seat = event.get("seat") if isinstance(event, dict) else None
    if inp is None or seat not in inp["seats"]:
        raise IllegalEvent(f"not now: {event}", f"いまは受け付けません: {event}")
    names = _names(state)
    i = names.index(seat)
    new = replace(state, events=state.events + (event_text(event),))
    if kind == "bid":
        if event.get("n") not in range(4):
            raise IllegalEvent("bid 0 to 3", "0〜3で入札")
        bids = tuple(event["n"] if k == i else b for k, b in enumerate(state.bids))
        new = replace(new, bids=bids)
        if None not in bids:
            words = ", ".join(f"{n} {b}" for n, b in zip(names, bids))
            new = replace(new, phase="throw", log=new.log + ((f"Bids: {words}", f"入札: {words}"),))
        return new
    if kind == "throw":
        (die,) = dice_from(event["dice"])
        if die.colour != state.seats[i].colour:
            raise IllegalEvent("throw your own die", "自分のダイスを振ってください")
        line = (f"{seat} threw {die.face}", f"{seat}が{die.face}を出した")
        return replace(new, phase="take", queue=tuple(range(len(names))), log=new.log + (line,))
    if kind == "take":
        token = event.get("token")
        if token not in [o["value"] for o in inp["fields"][0]["options"]]:
            raise IllegalEvent(f"no {token} for you", f"{token}は取れません")
        gold = tuple(g + (token == "gold" and k == i) for k, g in enumerate(state.gold))
        queue = state.queue[1:]
        line = (f"{seat} took {token}", f"{seat}が{token}を取った")
        return replace(new, gold=gold, queue=queue, phase="take" if queue else "close", log=new.log + (line,))
    lines = ((f"{seat} closed round {state.round}", f"{seat}が第{state.round}ラウンドを終えた"),)
    if state.round == state.rounds:
        return replace(new, phase="over", log=new.log + lines + (("Game over", "ゲーム終了"),))
    r = state.round + 1
    lines += ((f"Round {r}: bid in secret.", f"第{r}ラウンド: 秘密に入札。"),)
    return replace(new, round=r, phase="bid", bids=(None,) * len(names), log=new.log + lines)


def view(state: Relay, seat: str | None = None) -> dict[str, Any]:
    names = _names(state)
    out = {"game": "relay", "phase": state.phase, "round": state.round,
           "scores": dict(zip(names, state.gold)), "winners": expects(state)["winners"],
           "seats": [s.as_dict() for s in state.seats], "log": [{"en": en, "ja": ja} for en, ja in state.log],
           "bids": None if state.phase == "bid" else dict(zip(names, state.bids))}
    if seat is not None:
        out["mine"] = {"bid": state.bids[names.index(seat)]}
    return out


RELAY = SimpleNamespace(setup=setup, expects=expects, apply=apply, view=view, TITLE={"en": "Relay", "ja": "リレー"})


def relay_table(table: Any, rounds: int = 2) -> Any:
    """``table`` playing Relay (its loader answers Relay for any name); returns it."""
    from tests.pi.conftest import SEATS3

    table.engine_loader = lambda name: RELAY
    assert table.start_game("relay", SEATS3, {"rounds": rounds}, seed=1)["ok"]
    return table
