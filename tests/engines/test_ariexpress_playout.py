"""Seeded random games of Ari Express through the one playout driver (engines.playout),
with illegal events mixed in; the rules' invariants are checked after every accepted
event, and every refusal met must say what was wrong in English and in Japanese."""
from __future__ import annotations

import json
import re
from collections import Counter

from engines import ariexpress as ae
from engines.playout import GENERIC, play
from tests.engines.test_ariexpress import brute_view

GAMES = 1000
MAX_TURNS = 60  # no seeded game comes near it: tapes are mostly laid between a colour's nests
BRUTE_SQUARES = 40  # routes are listed by brute force up to this many squares
COLOURS = ("white", "black", "pink", "orange", "purple")
NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
HUGE_FACES = [1] * 1_000_000  # made once: the engine must refuse them by their length alone
HUGE_NAME = "t" + "9" * 100_000


def _seats(n):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


class Game:
    """The hooks of one playout: the dice of a throw and the ends of a tape (``value``),
    events the rules refuse (``illegal``), the invariants (``check``), and what they saw."""

    def __init__(self, n):
        self.n = n
        self.turns = 0
        self.spent = Counter()
        self.refused_now = None  # (state, its fields) an illegal event was just tried on
        self.to = None  # the other end of the tape being filled in

    def value(self, rnd, state, inp, seat, field):
        """A throw's dice (the generic value cannot know them), and a tape's two ends: mostly
        between a colour still open's two nests, or from one to a square, so games end."""
        if field["kind"] == "dice":
            return [[rnd.choice(COLOURS), rnd.randint(1, 6)] for _ in range(inp["dice"][0]["count"])]
        if field["name"] == "tape.from":
            colour = rnd.choice([c for c in state.nests if c not in state.complete])
            ends = rnd.sample([f"{colour}-1", f"{colour}-2"], 2)
            squares = [o["value"] for o in field["options"] if "face" in o]
            roll = rnd.random()
            if roll < 0.6 and squares:
                ends[1] = rnd.choice(squares)
            elif roll >= 0.35:
                return GENERIC
            self.to = ends[1]
            return ends[0]
        if field["name"] == "tape.to" and self.to is not None:
            to, self.to = self.to, None
            return to
        return GENERIC

    @staticmethod
    def weight(inp):
        return {"place": 1.0, "build": 1.2, "pass": 0.3}.get(inp["type"], 1.0)

    def illegal(self, rnd, state):
        """An event the rules refuse whatever the state."""
        self.refused_now = (state, dict(vars(state)))
        names = [s.name for s in state.seats]
        idle = [nm for k, nm in enumerate(names) if k != state.due]
        seat = rnd.choice(names)
        taken = [(q, f) for q, f, who in ae.squares(state) if who is not None]
        kinds = [
            {"type": "pass", "seat": rnd.choice(idle), "die": rnd.randint(1, 6)},
            {"type": "throw", "seat": seat, "dice": [["white", 3]] * (ae.dice_count(state) + 1)},
            {"type": "build", "seat": seat, "dice": [1, 2, 3], "tape": {"faces": [1, 2], "from": None, "to": None}},
            {"type": "build", "seat": seat, "dice": [1], "tape": {"faces": [1], "from": None, "to": None}},
            {"type": "build", "seat": seat, "dice": [1, 2],
             "tape": {"faces": rnd.choice([[1] * (ae.MAX_TAPE + 1), HUGE_FACES]), "from": None, "to": None}},
            {"type": "place", "seat": seat, "die": rnd.choice([7, 0, 3.0, float("nan"), float("inf"), "3", True]),
             "square": "t1.1"},
            {"type": "place", "seat": seat, "die": 3, "square": rnd.choice(["t².1", "t①.1", "t1.١", HUGE_NAME])},
            {"type": "build", "seat": seat, "dice": [3], "tape": {"faces": [1, 2], "from": rnd.choice(["t².1", "t①.1"]),
                                                                 "to": None}},
            {"type": "keep", "seat": seat, "dice": rnd.choice([[9], HUGE_FACES, [float("nan")]])},
            {"type": "sleep", "seat": seat},
            {"type": "pass", "seat": HUGE_NAME, "die": 1},
        ]
        if taken:
            square, face = rnd.choice(taken)
            kinds.append({"type": "place", "seat": seat, "die": face, "square": square})
        if state.phase in ("turn", "others"):
            kinds.append({"type": "build", "seat": seat, "dice": [1, 2], "tape": {"faces": [3, 4], "from": "red-1", "to": "red-1"}})
        return rnd.choice(kinds)

    def check(self, before, event, state):
        if self.refused_now is not None:  # the refusals before this event changed nothing
            assert self.refused_now[0] is before and dict(vars(before)) == self.refused_now[1]
            self.refused_now = None
        _check(before, state, event, self.n)
        kind = event["type"]
        if kind == "throw":
            self.turns += 1
            assert self.turns <= MAX_TURNS, "the game does not end"
            self.spent = Counter()
        elif kind in ("build", "place", "pass"):
            self.spent[before.due] += len(_spent(event))
        if state.phase == "throw" and kind != "throw":  # a turn ended: the turn player spent every kept die, the others one each
            t = before.turn
            assert self.spent == Counter({k: (len(before.thrown) - (self.n - 1) if k == t else 1) for k in range(self.n)})


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
        # every colour complete after the ending action counts (one action may complete several)
        assert len(state.complete) >= 3 and len(before.complete) < 3 and state.due is None
        scores = ae.scores(state)
        top = max(scores.values())
        assert [state.seats[k].name for k in state.winners] == [s for s, v in scores.items() if v == top]
    else:
        assert len(state.complete) < 3 and not state.winners
    _check_offers(state)


def _check_offers(state):
    """Only choices that can be taken are offered: a square to place on is empty and shows a
    die held; a bonus square is empty and shows the face of two equal dice held."""
    held = Counter(state.kept if state.phase == "turn" else state.handed)
    faces = {q: (f, w) for q, f, w in ae.squares(state)}
    for inp in ae.expects(state)["inputs"]:
        for field in inp["fields"]:
            for o in field.get("options", []):
                if "face" in o:
                    assert faces[o["value"]][0] == o["face"]
                if field["name"] == "square":
                    assert faces[o["value"]][1] is None and held[o["face"]] >= 1
                if field["name"] == "bonus" and "face" in o:
                    assert faces[o["value"]][1] is None and held[o["face"]] >= 2


def _bilingual(refusals):
    for event, exc in refusals:
        assert exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (exc.en, exc.ja)
        assert len(exc.en) < 3000 and len(exc.ja) < 3000, exc.en[:200]  # huge input is echoed short


def test_playouts():
    seats, lengths, fours, refused = Counter(), [], 0, 0
    for seed in range(GAMES):
        n = 2 + seed % 4
        game = Game(n)
        out = play(ae, _seats(n), {}, seed, value=game.value, illegal=game.illegal, check=game.check,
                   weight=game.weight, check_replay=seed % 50 == 0)
        state = out.state
        assert state.phase == "over" and ae.expects(state)["inputs"] == []
        _bilingual(out.refusals)
        refused += len(out.refusals)
        if seed % 25 == 0:
            v = ae.view(state)
            assert v["scores"] == {k: sum(r[k] for r in v["runs"].values()) for k in v["scores"]}
            json.dumps(v)
        seats[n] += 1
        lengths.append(game.turns)
        fours += len(state.complete) == 4
    assert seats == {2: 250, 3: 250, 4: 250, 5: 250}
    assert max(lengths) <= MAX_TURNS
    assert fours > 0  # some game ended on an action that completed the 3rd and 4th colours
    assert refused > GAMES  # illegal events and refused random values were met, and read in both languages
