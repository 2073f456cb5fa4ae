"""Seeded random games of Ari Express chosen from expects(), with illegal events mixed in,
checking the rules' invariants after every event."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engines import ariexpress as ae
from engines import core
from tests.engines.test_ariexpress import brute_view

GAMES = 1000
MAX_TURNS = 60  # no seeded game comes near it: the policy below lays tapes between nests
BRUTE_SQUARES = 40  # routes are listed by brute force up to this many squares
COLOURS = ("white", "black", "pink", "orange", "purple")
NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")


def _seats(n):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


def _options(field):
    return [o["value"] for o in field.get("options", [])]


def _ends(rnd, state, field):
    """``from`` and ``to`` of a new tape: mostly a colour still open, nest to nest or nest to
    a square (so that games end), else any offered end."""
    open_colours = [c for c in state.nests if c not in state.complete]
    squares = [q for q, _, _ in ae.squares(state)]
    roll = rnd.random()
    c = rnd.choice(open_colours)
    ends = [f"{c}-1", f"{c}-2"]
    rnd.shuffle(ends)
    if roll < 0.35:
        return ends
    if roll < 0.6 and squares:
        return [ends[0], rnd.choice(squares)][:: rnd.choice((1, -1))]
    return rnd.choice(_options(field)), rnd.choice(_options(field))


def _legal(rnd, state):
    """A random event from what expects() offers; it may still be refused (a bonus square of
    another face, a one-die build while a square fits, ...), and is then tried again."""
    inputs = ae.expects(state)["inputs"]
    weights = {"throw": 1, "keep": 1, "place": 1.0, "build": 1.2, "pass": 0.3}
    inp = rnd.choices(inputs, [weights[i["type"]] for i in inputs])[0]
    seat = inp["seats"][0]
    fields = {f["name"]: f for f in inp["fields"]}
    kind = inp["type"]
    event = {"type": kind, "seat": seat}
    if kind == "throw":
        event["dice"] = [[rnd.choice(COLOURS), rnd.randint(1, 6)] for _ in range(inp["dice"][0]["count"])]
    elif kind == "keep":
        k = fields["dice"]["min"]
        if rnd.random() < 0.9:
            event["dice"] = rnd.sample(list(state.thrown), k)
        else:  # faces repeated from the options: refused when they were not thrown so often
            event["dice"] = [rnd.choice(_options(fields["dice"])) for _ in range(k)]
    elif kind == "place":
        die = rnd.choice(_options(fields["die"]))
        fit = [q for q in _options(fields["square"]) if q in ae.open_squares(state, die)]
        event.update(die=die, square=rnd.choice(fit or _options(fields["square"])))
    elif kind == "pass":  # now and then a die an empty square shows: refused
        held = state.kept if state.phase == "turn" else state.handed
        event["die"] = rnd.choice(held if rnd.random() < 0.2 else _options(fields["die"]))
    else:
        held = list(state.kept if state.phase == "turn" else state.handed)
        two = fields["dice"]["max"] == 2 and rnd.random() < 0.85
        dice = rnd.sample(held, 2) if two else [rnd.choice(_options(fields["dice"]))]
        frm, to = _ends(rnd, state, fields["tape.from"])
        faces = [rnd.randint(1, 6) for _ in range(rnd.choice((2, 2, 3, 3, 4, 5)))]
        event.update(dice=dice, tape={"faces": faces, "from": frm, "to": to})
        if len(dice) == 2 and dice[0] == dice[1] and rnd.random() < 0.9:
            t = len(state.tapes) + 1
            fit = ae.open_squares(state, dice[0]) + [f"t{t}.{k + 1}" for k in range(1, len(faces) - 1) if faces[k] == dice[0]]
            offered = _options(fields["bonus"])
            event["bonus"] = rnd.choice(fit) if fit and rnd.random() < 0.8 else rnd.choice(offered)
    return event


def _illegal(rnd, state):
    """An event the rules refuse whatever the state."""
    names = [s.name for s in state.seats]
    idle = [n for k, n in enumerate(names) if k != state.due]
    taken = [(q, f) for q, f, who in ae.squares(state) if who is not None]
    kinds = [
        {"type": "pass", "seat": rnd.choice(idle), "die": rnd.randint(1, 6)},
        {"type": "throw", "seat": rnd.choice(names), "dice": [["white", 3]] * (ae.dice_count(state) + 1)},
        {"type": "build", "seat": rnd.choice(names), "dice": [1, 2, 3], "tape": {"faces": [1, 2], "from": None, "to": None}},
        {"type": "build", "seat": rnd.choice(names), "dice": [1], "tape": {"faces": [1], "from": None, "to": None}},
        {"type": "place", "seat": rnd.choice(names), "die": 7, "square": "t1.1"},
        {"type": "keep", "seat": rnd.choice(names), "dice": [9]},
        {"type": "sleep", "seat": rnd.choice(names)},
    ]
    if taken:
        square, face = rnd.choice(taken)
        kinds.append({"type": "place", "seat": rnd.choice(names), "die": face, "square": square})
    if state.phase in ("turn", "others"):
        kinds.append({"type": "build", "seat": rnd.choice(names), "dice": [1, 2],
                      "tape": {"faces": [3, 4], "from": "red-1", "to": "red-1"}})
    return rnd.choice(kinds)


def _occupied(state):
    return sum(o >= 0 for row in state.owners for o in row)


def _spent(event):
    return event["dice"] if event["type"] == "build" else [event["die"]]


def _check(before, state, event, n):
    kind = event["type"]
    i = before.due
    # workers only ever go on empty squares: none moves or disappears
    assert state.tapes[: len(before.tapes)] == before.tapes
    for old, new in zip(before.owners, state.owners):
        assert all(o < 0 or o == p for o, p in zip(old, new))
    added = _occupied(state) - _occupied(before)
    if kind == "build":
        assert len(state.tapes) == len(before.tapes) + 1
        faces, frm, to = state.tapes[-1]
        assert list(faces) == event["tape"]["faces"] and (frm, to) == (event["tape"]["from"], event["tape"]["to"])
        assert state.owners[-1][0] == state.owners[-1][-1] == i
        assert added == 2 + (event.get("bonus") is not None)
        if event.get("bonus") is not None:
            assert len(event["dice"]) == 2 and event["dice"][0] == event["dice"][1]
            assert [w for q, f, w in ae.squares(state) if q == event["bonus"]] == [i]
        if len(event["dice"]) == 1:
            assert not ae.open_squares(before, event["dice"][0])
    else:
        assert len(state.tapes) == len(before.tapes)
        assert added == (kind == "place")
        if kind == "place":
            assert [(f, w) for q, f, w in ae.squares(state) if q == event["square"]] == [(event["die"], i)]
        if kind == "pass":
            assert not ae.open_squares(before, event["die"])
    # dice as the rules say
    if kind == "throw":
        assert len(state.thrown) == ae.dice_count(before) == min(n + 1 + len(before.complete), n + 3)
        assert state.phase == "keep" and state.due == before.turn
    elif kind == "keep":
        assert len(state.kept) == len(state.thrown) - (n - 1) and len(state.handed) == n - 1
        assert Counter(state.kept) + Counter(state.handed) == Counter(state.thrown)
        assert state.phase == "turn" and state.due == state.turn
    else:
        left = Counter(before.kept if before.phase == "turn" else before.handed) - Counter(_spent(event))
        if before.phase == "turn":
            assert len(_spent(event)) in (1, 2) and Counter(state.kept) == left and state.handed == before.handed
            if state.phase != "over":
                assert (state.phase, state.due) == (("turn", i) if left else ("others", (i + 1) % n))
        else:
            assert len(_spent(event)) == 1
            if state.phase == "throw":
                assert not left and (i + 1) % n == before.turn and state.turn == (before.turn + 1) % n
            elif state.phase != "over":
                assert Counter(state.handed) == left and state.due == (i + 1) % n
    # completion, runs, scores and the end
    assert set(before.complete) <= set(state.complete)
    assert ae.dice_count(state) == min(n + 1 + len(state.complete), n + 3)
    if kind in ("build", "place") and len(ae.squares(state)) <= BRUTE_SQUARES:
        complete, runs = brute_view(state)
        assert list(state.complete) == complete
        assert ae.runs(state) == runs
    if state.phase == "over":
        assert len(state.complete) >= 3 and len(before.complete) < 3 and state.due is None
        if len(state.complete) == 4:
            assert len(before.complete) == 2
        scores = ae.scores(state)
        top = max(scores.values())
        assert [state.seats[k].name for k in state.winners] == [s for s, v in scores.items() if v == top]
    else:
        assert len(state.complete) < 3 and not state.winners


def play(seed, check_replay=False, check_view=False):
    rnd = random.Random(seed)
    n = 2 + seed % 4
    state = ae.setup(_seats(n), {}, seed)
    turns = refusals = 0
    spent: Counter = Counter()
    while state.phase != "over":
        if rnd.random() < 0.05:
            fields = dict(vars(state))
            with pytest.raises(core.IllegalEvent):
                ae.apply(state, _illegal(rnd, state))
            assert dict(vars(state)) == fields
        for _ in range(40):
            event = _legal(rnd, state)
            fields = dict(vars(state))
            try:
                after = ae.apply(state, event)
            except core.IllegalEvent:
                assert dict(vars(state)) == fields  # a refused event changes nothing
                refusals += 1
                continue
            break
        else:
            raise AssertionError(f"seed {seed}: no legal event found in phase {state.phase}")
        if event["type"] == "throw":
            turns += 1
            assert turns <= MAX_TURNS, f"seed {seed}: the game does not end"
            spent = Counter()
        elif event["type"] in ("build", "place", "pass"):
            spent[state.due] += len(_spent(event))
        _check(state, after, event, n)
        if after.phase == "throw":  # a turn ended: the turn player spent every kept die, the others one each
            t = state.turn
            assert spent == Counter({k: (len(state.thrown) - (n - 1) if k == t else 1) for k in range(n)})
        state = after
        if check_view:
            v = ae.view(state)
            assert v["scores"] == {k: sum(r[k] for r in v["runs"].values()) for k in v["scores"]}
            json.dumps(v)
    assert ae.expects(state)["inputs"] == []
    if check_replay:
        again, steps = core.replay(ae, _seats(n), {}, seed, core.event_list(state))
        assert all(s.accepted for s in steps)
        assert again == state
    return state, turns


def test_playouts():
    seats, lengths, fours = Counter(), [], 0
    for seed in range(GAMES):
        state, turns = play(seed, check_replay=seed % 50 == 0, check_view=seed % 25 == 0)
        seats[len(state.seats)] += 1
        lengths.append(turns)
        fours += len(state.complete) == 4
    assert seats == {2: 250, 3: 250, 4: 250, 5: 250}
    assert max(lengths) <= MAX_TURNS
    assert fours > 0  # some game ended on an action that completed the 3rd and 4th colours
