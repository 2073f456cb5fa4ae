"""Seeded random ALEA games through the one playout driver (engines.playout.play):
thousands of legal games with illegal events mixed in.

After every accepted event (the ``check`` hook): scores never decrease, and a declaration
before the reveal changes neither the public view nor another seat's view. Every illegal
event is refused, in English and in Japanese. Replaying the event list rebuilds the final
state exactly (every 100th game: every state on the way). Every game ends with exactly one
winner, and its scores and winner are those of an independent referee written from
docs/rules/alea.md (tests/engines/alea_reference.py).
"""
from __future__ import annotations

import random
import re

from engines import alea
from engines.core import MAX_DICE, event_list
from engines.playout import GENERIC, play
from tests.engines.alea_inputs import due
from tests.engines.alea_reference import referee

GAMES = 2000
NAMES = ["Aki", "Ben", "Cy", "Dee", "Eri"]
COLOURS = ["red", "blue", "green", "yellow", "white"]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def seats_for(players: int) -> list[dict]:
    return [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]


def options_for(game_number: int) -> dict:
    return {"deck": "physical"} if game_number % 4 == 3 else {}


def throw_dice(rnd: random.Random, inp: dict) -> list[dict]:
    """Random dice for a throw input: its colours and counts ("*": any colour), shuffled."""
    dice = [{"colour": "grey" if d["colour"] == "*" else d["colour"], "face": rnd.randint(1, 6)}
            for d in inp["dice"] for _ in range(d["count"])]
    rnd.shuffle(dice)
    return dice


def value(rnd, state, inp, seat, fld):
    """The dice of a throw (the generic value knows no dice); anything else is generic."""
    return throw_dice(rnd, inp) if fld["kind"] == "dice" else GENERIC


def illegal(rnd: random.Random, state: alea.State) -> object:
    """An event the rules must refuse in this state, whatever the dice or the seed."""
    exp = due(state)
    names = [s.name for s in state.seats]
    choices = [
        {"type": "declare", "seat": "Nobody", "value": 1},
        {"type": "declare", "seat": "x" * 100_000, "value": 1},
        {"type": "dance", "seat": names[0]},
        {"type": "throw", "dice": [{"colour": "red", "face": 7}]},
        {"type": "throw", "dice": [["red", 3]] * (MAX_DICE + 1)},
        "declare Aki 1",
    ]
    if exp["kind"] == "declare":
        bad = rnd.choice([6, -1, "2", "３", None, 2.0, True, float("nan"), float("inf")])
        choices.append({"type": "declare", "seat": rnd.choice(names), "value": bad})
        declared = [n for n in names if n not in exp["seats"]]
        if declared:  # a second declaration by the same seat
            choices.append({"type": "declare", "seat": rnd.choice(declared), "value": 1})
        choices.append({"type": "throw", "dice": [{"colour": state.seats[0].colour, "face": 3}]})
        choices.append({"type": "card", "card": state.cards[0].id})
    elif exp["kind"] == "throw":
        (inp,) = alea.expects(state)["inputs"]
        good = throw_dice(rnd, inp)
        choices.append({"type": "throw", "dice": good[:-1]})  # one die short
        choices.append({"type": "throw", "dice": good + [{"colour": good[0]["colour"], "face": 2}]})
        choices.append({"type": "throw", "dice": [dict(d, face=rnd.choice([0, 7, 2.5, float("nan")])) for d in good]})
        if "*" not in exp["dice"]:  # a die of a colour that is not due
            choices.append({"type": "throw", "dice": [dict(good[0], colour="purple")] + good[1:]})
        others = [n for n in names if n not in exp["seats"]]
        if others:  # the throw names a seat that is not due
            choices.append({"type": "throw", "seat": rnd.choice(others), "dice": good})
        choices.append({"type": "declare", "seat": names[0], "value": 1})
    elif exp["kind"] == "card":
        choices += [{"type": "card", "card": bad} for bad in ("NOPE", "T" * 100_000, ["T01"], None)]
        used = sorted({c.id for c in state.cards} - set(exp["cards"]))
        if used:
            choices.append({"type": "card", "card": rnd.choice(used)})
    return rnd.choice(choices)


def views_of(state: alea.State, other: str) -> list[dict]:
    """What the table shows everyone, and what ``other``'s phone shows."""
    return [alea.view(state), alea.view(state, other)]


class Checks:
    """The ``check`` hook: invariants after each accepted event, and what the referee needs."""

    def __init__(self, keep_states: bool) -> None:
        self.for_referee: list[tuple] = []
        self.states: list[alea.State] = []
        self.keep_states = keep_states

    def __call__(self, before: alea.State, event: dict, after: alea.State) -> None:
        assert all(b >= a for a, b in zip(before.scores, after.scores)), "a score went down"
        if event["type"] == "declare":
            self.for_referee.append(("declare", event["seat"], event["value"]))
            if after.phase == "declare" and after.round == before.round:  # still secret
                other = next(s.name for s in before.seats if s.name != event["seat"])
                assert views_of(after, other) == views_of(before, other), "a declaration leaked before the reveal"
        elif event["type"] == "throw":
            condition = next((c.condition for c in before.cards if c.id == before.card), None)
            self.for_referee.append(("throw", condition, [d["face"] for d in event["dice"]]))
        if self.keep_states:
            self.states.append(after)


def assert_bilingual(refusals) -> None:
    for event, exc in refusals:
        assert exc.en and exc.ja and exc.ja != exc.en, (event, exc.text)
        assert JAPANESE.search(exc.ja), (event, exc.text)


def play_one(game_number: int, illegal_rate: float = 0.15):
    seats, options = seats_for(3 + game_number % 3), options_for(game_number)
    checks = Checks(keep_states=game_number % 100 == 0)
    out = play(alea, seats, options, game_number, value=value, illegal=illegal, check=checks,
               illegal_rate=illegal_rate, check_replay=True)
    if checks.keep_states:  # every state on the way, rebuilt from the event list
        rebuilt = alea.setup(seats, options, game_number)
        for k, logged in enumerate(event_list(out.state)):
            rebuilt = alea.apply(rebuilt, logged)
            assert rebuilt == checks.states[k], f"replaying {k + 1} events of game {game_number} differs"
    names = [s["name"] for s in seats]
    view = alea.view(out.state)
    assert referee(names, out.state.target, checks.for_referee) == (view["scores"], view["winner"])
    return out


def test_random_playouts_keep_every_invariant_and_end_with_one_winner():
    ends = {3: 0, 4: 0, 5: 0}
    tiebreaks = 0
    for game_number in range(GAMES):
        out = play_one(game_number)
        assert_bilingual(out.refusals)
        view = alea.view(out.state)
        assert view["phase"] == "over"
        winner = view["winner"]
        assert view["winners"] == [winner] and view["scores"][winner] == max(view["scores"].values())
        assert due(out.state) == {"kind": "over", "winner": winner}
        ends[len(out.state.seats)] += 1
        tiebreaks += bool(out.state.tied)
    assert all(n >= 600 for n in ends.values())
    assert tiebreaks > 0  # the tie-break was played too


def test_every_refusal_met_in_playouts_says_why_in_english_and_japanese():
    refusals = [r for game_number in range(200) for r in play_one(game_number, illegal_rate=0.6).refusals]
    assert len(refusals) > 2000
    assert_bilingual(refusals)
    kinds = {re.sub(r"\d+|'.*?'|\S+ has already", "#", exc.en.split(";")[0])[:30] for _, exc in refusals}
    assert len(kinds) >= 15, kinds  # many different refusals, not one repeated
