"""Seeded random games of Flying Dwarves chosen from expects(), with illegal events mixed in."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engines import core
from engines import flyingdwarves as fd

GAMES = 2000
COLOURS = ("red", "blue", "green", "yellow", "white")
NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")
# Most games run on a short loop with every kind of space (the default board of 30 spaces
# is played one game in four), so that 2,000 games stay fast.
SHORT = ["start", "mine 1", "treasure 1", "lot", "mine ?", "mine 2", "wasteland", "lot",
         "treasure 2", "mine 3", "lot", "mine 1", "lot", "mine ?"]
# One game in eight on a loop shorter than a move (every move laps it), with big numbers.
TINY = ["start", "mine 12", "lot", "treasure 3"]


def _seats(n):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


def _value(rnd, state, inp, field):
    kind = field["kind"]
    if kind == "number":
        if inp["type"] == "propel":
            i = [s.name for s in state.seats].index(inp["_seat"])
            hand = state.hands[i]
            return hand[-1] if rnd.random() < 0.6 else rnd.choice(hand)  # mostly the best card: shorter games
        return rnd.randint(field["min"], field["max"])
    if kind == "choice":
        return rnd.choice(field["options"])["value"]
    if kind == "bool":
        return rnd.random() < 0.7
    if kind == "multi":
        if inp["type"] == "draw":
            task = state.tasks[0]
            n = fd._draw_due(state, task[2])
            deck = list(state.deck)
            if n <= len(deck):
                return rnd.sample(deck, n)
            return deck + rnd.sample(list(state.used), n - len(deck))
        return [rnd.choice(field["options"])["value"] for _ in range(field["min"])]
    raise AssertionError(kind)


def _legal(rnd, state):
    ex = fd.expects(state)
    options = []
    for inp in ex["inputs"]:
        for seat in inp["seats"]:
            options.append((inp, seat))
    assert options, f"no input in phase {state.phase}"
    # items less often than moves, so games stay short
    weights = [0.25 if inp["type"] == "item" else 1.0 for inp, _ in options]
    inp, seat = rnd.choices(options, weights)[0]
    inp = dict(inp, _seat=seat)
    ev = {"type": inp["type"], "seat": seat}
    for f in inp["fields"]:
        ev[f["name"]] = _value(rnd, state, inp, f)
    return ev


def _illegal(rnd, state):
    names = [s.name for s in state.seats]
    due = {s for inp in fd.expects(state)["inputs"] for s in inp["seats"]}
    idle = [n for n in names if n not in due]
    kinds = [
        {"type": "move", "seat": rnd.choice(idle)} if idle else {"type": "bogus"},
        {"type": "propel", "seat": rnd.choice(names), "card": 9},
        {"type": "item", "seat": rnd.choice(names), "card": "+9"},
        {"type": "discard", "seat": rnd.choice(names), "card": 0},
        {"type": "invest", "seat": rnd.choice(idle) if idle else "Nobody", "place": True},
        {"type": "swap", "seat": rnd.choice(names), "with": "Nobody"},
        {"type": "handicap", "seat": rnd.choice(names), "choice": "3 points"},
        {"type": "start_cube", "seat": rnd.choice(names), "lot": 0},
        {"type": "develop", "seat": rnd.choice(names), "lot": 0},
    ]
    if state.phase != "draw":
        kinds.append({"type": "draw", "seat": rnd.choice(names), "cards": ["+1"]})
    return rnd.choice(kinds)


def _cards(state):
    allc = state.deck + state.used
    for h in state.items:
        allc += h
    return sorted(allc)


def _check(state, before, ev, cards):
    n, L = len(state.seats), len(state.board)
    assert _cards(state) == cards
    if state.cubes is not before.cubes or state.supply is not before.supply or state.start_cube is not before.start_cube:
        per_seat = [sum(col) for col in zip(*state.cubes)]
        for i in range(n):
            assert per_seat[i] + state.supply[i] + state.start_cube[i] == fd.SUPPLY + 1
        c = fd.cap(state)
        for k in range(L):
            t = sum(state.cubes[k])
            assert t <= c
            assert not t or state.board[k][0] == "lot"
    if ev["type"] == "move":
        i = [s.name for s in state.seats].index(ev["seat"])
        k = state.p[i] % L
        if state.p[i] != before.p[i] and state.board[k][0] != "treasure":
            for j in range(n):
                if j != i and before.moved[j]:
                    assert state.p[j] % L != k
        assert state.p[i] >= before.p[i]
    # points change only with the events that move them
    if ev["type"] in ("propel", "item", "pass", "swap", "develop", "start_cube", "draw", "invest"):
        if state.phase != "over":
            diff = [a - b for a, b in zip(state.points, before.points)]
            for k, j in enumerate(state.finished[len(before.finished):], start=len(before.finished)):
                diff[j] -= fd.GOAL_BONUS[k] if k < 2 else 0
            assert diff == [0] * n
    assert len(state.finished) <= n


def _hand_ok(state):
    """Propulsion cards are conserved: hand + discards + the card in play is 0..top."""
    top = fd.top_card(state)
    for i in range(len(state.seats)):
        cards = list(state.hands[i]) + list(state.discards[i])
        if len(cards) == top:  # the played card is out until the end of its move
            cards.append(state.played[i])
        assert sorted(cards) == list(range(top + 1)), (i, state.hands[i], state.discards[i], state.played[i])


def play(seed, check_replay=False):
    rnd = random.Random(seed)
    n = 3 + seed % 3
    options = {"deck": "physical" if seed % 2 else "dealt"}
    if seed % 4:
        options["board"] = TINY if seed % 8 == 1 else SHORT
    state = fd.setup(_seats(n), options, seed)
    cards = _cards(state)
    steps = 0
    while state.phase != "over":
        steps += 1
        assert steps < 3000, "game does not end"
        if rnd.random() < 0.08:
            bad = _illegal(rnd, state)
            with pytest.raises(core.IllegalEvent):
                fd.apply(state, bad)  # refused; states are frozen, so nothing changed
        ev = _legal(rnd, state)
        before = state
        state = fd.apply(state, ev)
        _check(state, before, ev, cards)
        if state.phase not in ("propel", "over"):
            _hand_ok(state)
    assert state.winners
    assert fd.expects(state)["inputs"] == []
    if check_replay:
        again, steps_ = core.replay(fd, _seats(n), options, seed, core.event_list(state))
        assert all(s.accepted for s in steps_)
        assert again == state
    return state


def test_playouts():
    ended = Counter()
    for seed in range(GAMES):
        state = play(seed, check_replay=seed % 50 == 0)
        ended[len(state.seats)] += 1
    assert sum(ended.values()) == GAMES
