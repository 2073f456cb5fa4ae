"""Seeded random ALEA games: thousands of legal games with illegal events mixed in.

After every event: scores never decrease, a declaration before the reveal changes neither
the public view nor another (random) seat's view, a refused event is refused and changes
nothing, and replaying the event list as it stood then rebuilds the state exactly (the
list is replayed once at the end of each game and compared with the state after every
accepted event). Every game ends with exactly one winner, and its scores and winner are
those of an independent referee written from RULES.md (tests/engines/alea_reference.py).
"""
from __future__ import annotations

import random

import pytest

from engines import alea
from tests.engines.alea_inputs import due
from engines.core import IllegalEvent, event_list, replay
from tests.engines.alea_reference import referee

GAMES = 2000
MAX_EVENTS = 3000
NAMES = ["Aki", "Ben", "Cy", "Dee", "Eri"]
COLOURS = ["red", "blue", "green", "yellow", "white"]


def seats_for(players: int) -> list[dict]:
    return [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]


def legal_event(state: alea.State, rng: random.Random) -> dict:
    exp = due(state)
    if exp["kind"] == "declare":
        return {"type": "declare", "seat": rng.choice(exp["seats"]), "value": rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])}
    if exp["kind"] == "card":
        return {"type": "card", "card": rng.choice(exp["cards"])}
    dice = [
        {"colour": "grey" if colour == "*" else colour, "face": rng.randint(1, 6)}
        for colour, n in exp["dice"].items()
        for _ in range(n)
    ]
    rng.shuffle(dice)
    return {"type": "throw", "dice": dice}


def illegal_event(state: alea.State, rng: random.Random) -> dict:
    """An event the rules must refuse in this state, whatever the dice or the seed."""
    exp = due(state)
    names = [s.name for s in state.seats]
    choices = [
        {"type": "declare", "seat": "Nobody", "value": 1},
        {"type": "dance", "seat": names[0]},
        {"type": "throw", "dice": [{"colour": "red", "face": 7}]},
    ]
    if exp["kind"] == "declare":
        choices.append({"type": "declare", "seat": rng.choice(names), "value": rng.choice([6, -1, "2", None])})
        declared = [n for n in names if n not in exp["seats"]]
        if declared:  # a second declaration by the same seat
            choices.append({"type": "declare", "seat": rng.choice(declared), "value": 1})
        choices.append({"type": "throw", "dice": [{"colour": state.seats[0].colour, "face": 3}]})
    elif exp["kind"] == "throw":
        good = legal_event(state, rng)["dice"]
        choices.append({"type": "throw", "dice": good[:-1]})  # one die short
        choices.append({"type": "throw", "dice": good + [{"colour": good[0]["colour"], "face": 2}]})
        choices.append({"type": "throw", "dice": [dict(d, face=rng.choice([0, 7])) for d in good]})
        if "*" not in exp["dice"]:  # a die of a colour that is not due
            choices.append({"type": "throw", "dice": [dict(good[0], colour="purple")] + good[1:]})
        choices.append({"type": "declare", "seat": names[0], "value": 1})
    elif exp["kind"] == "card":
        choices.append({"type": "card", "card": "NOPE"})
        used = sorted({c.id for c in state.cards} - set(exp["cards"]))
        if used:
            choices.append({"type": "card", "card": rng.choice(used)})
    return rng.choice(choices)


def public_views(state: alea.State, other: str) -> list[dict]:
    """What the table shows everyone, and what ``other``'s phone shows."""
    return [alea.view(state), alea.view(state, other)]


def play(game_number: int) -> alea.State:
    rng = random.Random(game_number)
    players = 3 + game_number % 3
    options = {"deck": "physical"} if game_number % 4 == 3 else {}
    seats = seats_for(players)
    state = alea.setup(seats, options, seed=game_number)
    history = [state]  # the state after each accepted event
    for_referee = []
    for _ in range(MAX_EVENTS):
        if state.phase == "over":
            break
        if rng.random() < 0.15:
            bad = illegal_event(state, rng)
            before = state
            with pytest.raises(IllegalEvent):
                alea.apply(state, bad)
            assert state == before
            continue
        event = legal_event(state, rng)
        secret = event["type"] == "declare" and len(due(state)["seats"]) > 1
        if secret:  # the declaring seat and some other seat
            other = rng.choice([s.name for s in state.seats if s.name != event["seat"]])
            seen_before = public_views(state, other)
        if event["type"] == "declare":
            for_referee.append(("declare", event["seat"], event["value"]))
        elif event["type"] == "throw":
            condition = next((c.condition for c in state.cards if c.id == state.card), None)
            for_referee.append(("throw", condition, [d["face"] for d in event["dice"]]))
        new = alea.apply(state, event)
        assert all(b >= a for a, b in zip(state.scores, new.scores)), "a score went down"
        if secret:
            assert public_views(new, other) == seen_before, "a declaration leaked before the reveal"
        state = new
        history.append(state)
    else:
        pytest.fail(f"game {game_number} did not end within {MAX_EVENTS} events")
    rebuilt = alea.setup(seats, options, seed=game_number)
    assert rebuilt == history[0]
    for k, logged in enumerate(event_list(state)):
        rebuilt = alea.apply(rebuilt, logged)
        assert rebuilt == history[k + 1], f"replaying {k + 1} events of game {game_number} differs"
    if game_number % 100 == 0:  # and once through engines.replay, as the appliance does
        again, steps = replay(alea, seats, options, game_number, event_list(state))
        assert again == state and all(s.accepted for s in steps)
    names = [s["name"] for s in seats]
    assert referee(names, state.target, for_referee) == (alea.view(state)["scores"], alea.view(state)["winner"])
    return state


def test_random_playouts_keep_every_invariant_and_end_with_one_winner():
    ends = {3: 0, 4: 0, 5: 0}
    tiebreaks = 0
    for game_number in range(GAMES):
        state = play(game_number)
        view = alea.view(state)
        assert view["phase"] == "over"
        winner = view["winner"]
        assert winner in view["scores"]
        assert view["scores"][winner] == max(view["scores"].values())
        assert due(state) == {"kind": "over", "winner": winner}
        ends[len(state.seats)] += 1
        tiebreaks += bool(state.tied)
    assert all(n >= 600 for n in ends.values())
    assert tiebreaks > 0  # the tie-break was played too
