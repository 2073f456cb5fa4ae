"""Ari Express, rule by rule (docs/rules/ariexpress.md, the script format's (docs/replay.md) Ari Express section), and
the exact scoring checked against a brute-force listing of every route."""
from __future__ import annotations

import json
import random
import re
import time

import pytest

from engines import ariexpress as ae
from engines import ariexpress_board as board
from engines import ariexpress_data
from engines import ariexpress_routes as routes
from engines import core
from engines.core import DataError, IllegalEvent, SetupError
from pi.cli import main

NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")
COLOURS = ("white", "black", "pink", "orange", "purple")  # the seats' workers
NESTS = ("red", "blue", "yellow", "green")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def seats(n=3):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


def ev(kind, seat, **kw):
    return {"type": kind, "seat": seat, **kw}


def new(n=3, options=None, seed=0):
    return ae.setup(seats(n), options, seed)


def due(s):
    return s.seats[s.due].name


def at(s, **kw):
    return ae.replace(s, **kw)


def throw(s, *faces, colour="white"):
    return ae.apply(s, ev("throw", due(s), dice=[[colour, f] for f in faces]))


def keep(s, *faces):
    return ae.apply(s, ev("keep", due(s), dice=list(faces)))


def tape(faces, frm=None, to=None):
    return {"faces": list(faces), "from": frm, "to": to}


def build(s, dice, faces, frm=None, to=None, bonus=None, seat=None):
    e = ev("build", seat or due(s), dice=list(dice), tape=tape(faces, frm, to))
    if bonus is not None:
        e["bonus"] = bonus
    return ae.apply(s, e)


def place(s, die, square, seat=None):
    return ae.apply(s, ev("place", seat or due(s), die=die, square=square))


def pass_(s, die, seat=None):
    return ae.apply(s, ev("pass", seat or due(s), die=die))


def turn(n=3, thrown=None, kept=None):
    """A new game in which the first seat has thrown and kept."""
    s = new(n)
    thrown = thrown or list(range(1, n + 2))
    s = throw(s, *thrown)
    return keep(s, *(kept or thrown[:2]))


def bilingual(exc):
    """An error a player at the table can read in both languages."""
    assert exc.en and exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), exc.text


def refused(s, event, match=None):
    """The event is refused, in English and Japanese, and the state is unchanged (its
    fields and its view)."""
    fields = dict(vars(s))
    shown = json.dumps(ae.view(s), sort_keys=True)
    with pytest.raises(IllegalEvent, match=match) as caught:
        ae.apply(s, event)
    bilingual(caught.value)
    assert dict(vars(s)) == fields
    assert json.dumps(ae.view(s), sort_keys=True) == shown
    return caught.value


def network(s, *tapes):
    """``s`` with these tapes already built: (faces, from, to, owners), owners a string of
    seat initials per square ('.' empty); complete colours as the engine finds them."""
    initials = {seat.name[0]: k for k, seat in enumerate(s.seats)}
    built = tuple((tuple(f), a, b) for f, a, b, _ in tapes)
    owners = tuple(tuple(-1 if c == "." else initials[c] for c in o) for *_, o in tapes)
    assert all(len(f) == len(o) for (f, _, _), o in zip(built, owners))
    s = at(s, tapes=s.tapes + built, owners=s.owners + owners)
    return at(s, complete=ae.complete_colours(s))


def neighbours(s, name):
    adj, _, names = ae.graph(s)
    return {names[w] for w in adj[names.index(name)]}


def workers(s):
    return ae.view(s)["workers"]


# --- brute force: every simple route listed ------------------------------------------------

def brute_runs(adj, owner, a, b, n):
    """Per seat, the longest run over every complete simple route from a to b (None: no
    complete route), by listing every route."""
    best = None
    path, on = [], set()

    def walk(u):
        nonlocal best
        for w in adj[u]:
            if w == b:
                got = [0] * n
                run, last = 0, None
                for x in path:
                    run = run + 1 if owner[x] == last else 1
                    last = owner[x]
                    got[last] = max(got[last], run)
                best = got if best is None else [max(p, q) for p, q in zip(best, got)]
            elif w >= routes.NESTS and owner[w] >= 0 and w not in on:
                on.add(w)
                path.append(w)
                walk(w)
                path.pop()
                on.discard(w)

    walk(a)
    return None if best is None else tuple(best)


def brute_view(s):
    """complete and runs as the rules define them, by listing routes."""
    adj, owner, _ = ae.graph(s)
    n = len(s.seats)
    complete, runs = [], {}
    for c, colour in enumerate(s.nests):
        got = brute_runs(adj, owner, 2 * c, 2 * c + 1, n)
        if got is not None:
            complete.append(colour)
            runs[colour] = dict(zip(NAMES, got))
    return complete, runs


# --- setup, options and data ----------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_first_seat_throws_players_plus_one_dice(n):
    s = new(n)
    v = ae.view(s)
    assert v["phase"] == "throw" and v["due"] == "Aki" and v["dice"] == n + 1
    assert v["complete"] == [] and v["workers"] == {} and v["runs"] == {} and v["winners"] == []
    assert v["scores"] == {name: 0 for name in NAMES[:n]}
    assert ae.expects(s)["inputs"][0]["type"] == "throw" and ae.expects(s)["inputs"][0]["seats"] == ["Aki"]
    assert ae.nest_names(s) == ["red-1", "red-2", "blue-1", "blue-2", "yellow-1", "yellow-2", "green-1", "green-2"]


@pytest.mark.parametrize("n", [0, 1, 6, 7])
def test_setup_refuses_seats_outside_2_to_5(n):
    with pytest.raises(SetupError, match="2 to 5 seats"):
        ae.setup([{"name": f"P{i}", "colour": f"c{i}"} for i in range(n)])


def test_setup_refuses_an_unknown_option_and_a_bad_seed():
    for options, seed, match in [({"board": "big"}, 0, "unknown option"),
                                 ({"nests": list(NESTS), "bonus": False}, 0, "unknown option"),
                                 (["nests"], 0, "options must be an object"),
                                 (None, "7", "seed"), (None, 2**64, "seed"), (None, float("nan"), "seed")]:
        with pytest.raises(SetupError, match=match) as caught:
            new(3, options, seed)
        bilingual(caught.value)


@pytest.mark.parametrize("nests", [
    ["red", "blue", "yellow"],  # three
    ["red", "blue", "yellow", "green", "white"],  # five
    ["red", "red", "yellow", "green"],  # not distinct
    ["red", "blue", "yellow", ""],  # empty
    ["red", "blue", "yellow", "dark-green"],  # '-' would make nest names ambiguous
    ["red", "blue", "yellow", " green"],
    "red blue yellow green",
    ["red", "blue", "yellow", 4],
    ["red", "blue", "yellow", "g" * (core.MAX_NAME + 1)],
])
def test_setup_refuses_bad_nests(nests):
    with pytest.raises(SetupError, match="option nests") as caught:
        new(3, {"nests": nests})
    bilingual(caught.value)


def test_option_nests_names_the_nests():
    s = new(2, {"nests": ["purple", "orange", "white", "black"]})
    assert ae.nest_names(s)[:2] == ["purple-1", "purple-2"]
    s = throw(s, 1, 2, 3)
    s = keep(s, 1, 2)
    refused(s, ev("build", "Aki", dice=[1, 2], tape=tape([1, 2], "red-1", None)), "red-1")
    s = build(s, [1, 2], [1, 2], "purple-1", "purple-2")
    assert ae.view(s)["complete"] == ["purple"]
    assert ae.view(s)["nests"][0] == {"colour": "purple", "ja": "紫", "nests": ["purple-1", "purple-2"]}


def test_bad_seats_or_option_exit_2_from_replay(tmp_path, capsys):
    header = {"game": "ariexpress", "seats": seats(1), "options": {}, "seed": 0}
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(header) + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "2 to 5 seats" in capsys.readouterr().err
    path.write_text(json.dumps({**header, "seats": seats(2), "options": {"tapes": 3}}) + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "unknown option" in capsys.readouterr().err


def test_default_data_is_valid():
    nests, names = ariexpress_data.load_data()
    assert nests == NESTS
    assert all(names[c] for c in nests)


def test_bad_data_file_names_the_file_and_what_is_wrong(tmp_path):
    p = tmp_path / "ants.toml"
    for text_, match in [
        ('nests = ["red", "blue"\n', r"ants\.toml: not valid TOML"),
        ('nests = ["red", "blue", "yellow"]\n[names]\nred = "赤"\n', r"ants\.toml: 'nests' must be a list of 4"),
        ('nests = ["red", "blue", "blue", "green"]\n', r"ants\.toml: the 4 nest colours must differ"),
        ('nests = ["red", "blue", "yellow", "green"]\n[names]\nred = "赤"\nblue = "青"\n',
         r"ants\.toml: \[names\] has no Japanese name for nest colour\(s\) yellow, green"),
        ('nests = ["red", "blue", "yellow", "green"]\nnames = 3\n', r"ants\.toml: \[names\]"),
    ]:
        p.write_text(text_, encoding="utf-8")
        with pytest.raises(DataError, match=match) as caught:
            ariexpress_data.load_data(p)
        bilingual(caught.value)
    with pytest.raises(DataError, match="cannot read") as caught:
        ariexpress_data.load_data(tmp_path / "missing.toml")
    bilingual(caught.value)
    p.write_text('nests = ["a", "b", "c", "d"]\n[names]\na = "A"\nb = "B"\nc = "C"\nd = "D"\n', encoding="utf-8")
    assert ariexpress_data.load_data(p) == (("a", "b", "c", "d"), {"a": "A", "b": "B", "c": "C", "d": "D"})


# --- the turn: throw, keep, the turn player's dice, the dice handed on -------------------------

def test_turn_order_throw_keep_turn_player_then_the_others_clockwise():
    s = new(3)
    s = throw(s, 1, 2, 3, 4)
    assert (s.phase, due(s), s.thrown) == ("keep", "Aki", (1, 2, 3, 4))
    s = keep(s, 3, 4)
    assert (s.phase, due(s), s.kept, s.handed) == ("turn", "Aki", (3, 4), (1, 2))
    s = build(s, [3, 4], [6, 6], "red-1", None)
    assert (s.phase, due(s), s.kept, s.handed) == ("others", "Ben", (), (1, 2))
    s = pass_(s, 1)
    assert (s.phase, due(s), s.handed) == ("others", "Chika", (2,))
    s = build(s, [2], [1, 2, 3], "t1.2", None)
    assert (s.phase, due(s), s.turn) == ("throw", "Ben", 1)
    assert s.thrown == s.kept == s.handed == ()
    # Ben's turn: then Chika and Aki, clockwise from Ben
    s = keep(throw(s, 5, 5, 6, 6), 6, 6)
    s = build(s, [6, 6], [4, 4], None, "blue-1")
    assert due(s) == "Chika"
    s = pass_(s, 5)
    assert due(s) == "Aki"
    s = pass_(s, 5)
    assert (s.phase, due(s)) == ("throw", "Chika")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_throw_all_in_hand_keep_all_but_one_per_other_player(n):
    s = new(n)
    s = throw(s, *([6] * (n + 1)))
    assert len(s.thrown) == n + 1
    refused(s, ev("keep", "Aki", dice=[6]), "keeps 2")
    refused(s, ev("keep", "Aki", dice=[6, 6, 6]), "keeps 2")
    s = keep(s, 6, 6)
    assert len(s.kept) == 2 and len(s.handed) == n - 1
    # every other seat takes one die, then the next seat throws
    s = build(s, [6, 6], [1, 1], None, None)
    for k in range(1, n):
        assert (s.phase, due(s)) == ("others", NAMES[k])
        s = pass_(s, 6)
    assert (s.phase, due(s)) == ("throw", "Ben")


def test_throw_refusals_wrong_count_or_face():
    s = new(3)
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 3), "all 4 dice")
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 5), "all 4 dice")
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 3 + [["white", 7]]), "7")
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 3 + [["white", 0]]), "0")
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 3 + [["white", 5, 10]]), "six-sided")
    refused(s, ev("throw", "Aki", dice=[["white", 1]] * 3 + [["white", "5"]]))
    refused(s, ev("throw", "Aki", dice="1 2 3 4"))


def test_a_thrown_die_colour_is_not_checked():
    s = new(3)
    s = ae.apply(s, ev("throw", "Aki", dice=[["red", 1], ["clear", 2], {"colour": "black", "face": 3}, ["pink", 4]]))
    assert s.thrown == (1, 2, 3, 4)


def test_keep_refusals_face_not_thrown_each_die_once():
    s = throw(new(3), 2, 3, 4, 5)
    refused(s, ev("keep", "Aki", dice=[2, 6]), "did not throw a 6")
    refused(s, ev("keep", "Aki", dice=[2, 2]), "threw only one 2")
    refused(s, ev("keep", "Aki", dice=[2, 7]), "1-6")
    refused(s, ev("keep", "Aki", dice=[["white", 2], ["white", 3]]))
    s = keep(s, 5, 2)
    assert s.kept == (5, 2) and sorted(s.handed) == [3, 4]


def test_events_out_of_order_are_refused():
    s = new(3)
    refused(s, ev("keep", "Aki", dice=[1, 2]), r"waiting for throw \(Aki\): Aki: throw all 4 dice")
    refused(s, ev("place", "Aki", die=1, square="t1.1"), "throw")
    refused(s, ev("pass", "Aki", die=1), "throw")
    refused(s, ev("build", "Aki", dice=[1, 2], tape=tape([1, 2])), "throw")
    s = throw(s, 1, 2, 3, 4)
    refused(s, ev("throw", "Aki", dice=[["w", 1]] * 4), "keep")
    refused(s, ev("build", "Aki", dice=[1, 2], tape=tape([1, 2])), "keep")
    s = keep(s, 1, 2)
    refused(s, ev("throw", "Aki", dice=[["w", 1]] * 4), r"build \(Aki\): Aki \(kept dice 1 2\): build a tape")
    refused(s, ev("keep", "Aki", dice=[1, 2]), "spend")
    s = build(s, [1, 2], [5, 6])
    refused(s, ev("throw", "Aki", dice=[["w", 1]] * 4), r"Ben \(dice received 3 4\): build a tape with one die")
    refused(s, ev("keep", "Ben", dice=[3, 4]))


def test_events_from_a_seat_not_due_are_refused():
    s = new(3)
    refused(s, ev("throw", "Ben", dice=[["w", 1]] * 4), "Ben is not due")
    s = throw(s, 1, 2, 3, 4)
    refused(s, ev("keep", "Chika", dice=[1, 2]), "not due")
    s = keep(s, 1, 2)
    refused(s, ev("pass", "Ben", die=3), "Ben is not due")  # a die Ben will be handed
    s = build(s, [1, 2], [5, 6])
    refused(s, ev("pass", "Chika", die=3), "Chika is not due")  # Ben first, clockwise
    refused(s, ev("pass", "Aki", die=3), "Aki is not due")  # the turn player is done
    refused(s, ev("pass", "Zed", die=3), "unknown seat")
    refused(s, {"type": "pass", "die": 3}, "no seat")
    refused(s, ev("pass", "Ben", die=3, square="t1.1"), "unknown field")
    refused(s, ev("move", "Ben"), "unknown event type")
    refused(s, "pass")


def test_the_turn_player_spends_kept_dice_in_any_order_only_a_build_takes_two():
    s = turn(3, [1, 2, 3, 4], [3, 4])
    s = at(s, kept=(1, 2, 3))  # as with a complete colour: 5 thrown, 3 kept
    s = build(s, [1, 3], [1, 2, 5, 1], "red-1", None)
    assert s.kept == (2,) and s.phase == "turn"
    s = place(s, 2, "t1.2")
    assert s.kept == () and s.phase == "others"
    s = turn(3, [1, 2, 3, 4], [3, 4])
    s = pass_(s, 3)  # no square yet: nothing shows 3
    assert s.kept == (4,) and s.phase == "turn"
    refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([1, 2])), "does not hold a 3")
    s = build(s, [4], [2, 4], None, None)  # one die, no square shows 4 (the new tape's 4 is taken)
    assert s.phase == "others" and workers(s) == {"t1.1": "Aki", "t1.2": "Aki"}


def test_a_die_the_seat_does_not_hold_is_refused():
    s = turn(3, [1, 2, 3, 4], [3, 4])  # Aki kept 3 4; 1 and 2 go on
    refused(s, ev("build", "Aki", dice=[3, 5], tape=tape([1, 2])), "does not hold a 5")
    refused(s, ev("build", "Aki", dice=[3, 1], tape=tape([1, 2])), "does not hold a 1")  # handed on
    refused(s, ev("pass", "Aki", die=2), "does not hold a 2")
    refused(s, ev("build", "Aki", dice=[3, 3], tape=tape([1, 2])), "holds only one 3")  # each die once
    s = build(s, [3, 4], [5, 6])
    refused(s, ev("pass", "Ben", die=3), "does not hold a 3")  # kept by Aki, spent
    s = pass_(s, 1)
    refused(s, ev("pass", "Chika", die=1), "does not hold a 1")  # Ben took it
    refused(s, ev("place", "Chika", die=1, square="t1.1"), "does not hold a 1")
    refused(s, ev("pass", "Chika", die=0), "1-6")
    s = pass_(s, 2)
    assert s.phase == "throw"


def test_two_dice_only_from_the_turn_player():
    s = turn(4, [1, 2, 3, 4, 5], [1, 2])
    s = build(s, [1, 2], [6, 6])
    assert s.handed == (3, 4, 5)
    refused(s, ev("build", "Ben", dice=[3, 4], tape=tape([1, 2])), "two dice only on their own turn")
    refused(s, ev("build", "Ben", dice=[3, 6], tape=tape([1, 2])), "two dice only on their own turn")  # 6 not handed


# --- dice in hand ---------------------------------------------------------------------------

def test_a_complete_colour_adds_a_die_from_the_next_throw_on():
    s = turn(3, [1, 1, 2, 3], [1, 1])
    s = build(s, [1, 1], [4, 5], "red-1", "red-2")
    assert s.complete == ("red",)
    assert len(s.handed) == 2 and ae.view(s)["dice"] == 5  # this turn's dice stay as thrown
    s = pass_(pass_(s, 2), 3)
    refused(s, ev("throw", "Ben", dice=[["w", 1]] * 4), "all 5 dice")
    s = throw(s, 1, 2, 3, 4, 6)
    refused(s, ev("keep", "Ben", dice=[1, 2]), "keeps 3 of the 5")
    s = keep(s, 1, 2, 3)
    assert s.handed == (4, 6)


def test_dice_in_hand_players_plus_one_plus_complete_at_most_players_plus_three():
    for n in (2, 3, 4, 5):
        s = new(n)
        for c in range(5):
            assert ae.dice_count(at(s, complete=NESTS[:c])) == min(n + 1 + c, n + 3)


# --- build ----------------------------------------------------------------------------------

def test_build_lays_a_tape_with_the_builders_workers_on_its_first_and_last_squares():
    s = turn(3, [1, 2, 3, 4], [3, 4])
    s = build(s, [3, 4], [6, 2, 5, 1], "red-1", None)
    assert s.tapes == (((6, 2, 5, 1), "red-1", None),)
    assert workers(s) == {"t1.1": "Aki", "t1.4": "Aki"}
    assert ae.squares(s) == [("t1.1", 6, 0), ("t1.2", 2, None), ("t1.3", 5, None), ("t1.4", 1, 0)]
    assert neighbours(s, "t1.1") == {"red-1", "t1.2"} and neighbours(s, "t1.4") == {"t1.3"}
    tapes = ae.view(s)["tapes"]
    assert tapes[0]["id"] == 1 and tapes[0]["from"] == "red-1" and tapes[0]["to"] is None


def test_build_refusals_tape_faces_and_ends():
    s = turn(3, [1, 2, 3, 4], [3, 4])
    s = build(s, [3, 4], [6, 2, 5, 1], "red-1", None)
    s = at(s, phase="turn", due=0, kept=(3, 4), handed=(1, 2))
    for faces in ([5], [], [1, 7], [0, 2], "12"):
        refused(s, ev("build", "Aki", dice=[3, 4], tape=tape(faces, "red-2", None)))
    refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([5], "red-2", None)), "at least 2 squares")
    for end in ("red-3", "purple-1", "t2.1", "t1.5", "t0.1", "t1", "1.1", 5, True, ["red-1"]):
        refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([1, 2], end, None)), "tape end 'from'")
        refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([1, 2], "red-2", end)), "tape end 'to'")
    refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([1, 2], "red-2", "red-2")), "both ends")
    refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([1, 2], "t1.2", "t1.2")), "both ends")
    refused(s, ev("build", "Aki", dice=[3, 4], tape=[1, 2]), "tape is")
    refused(s, ev("build", "Aki", dice=[3, 4], tape={"faces": [1, 2], "from": None, "via": "t1.1"}), "tape is")
    refused(s, ev("build", "Aki", dice=[3, 4, 1], tape=tape([1, 2])), "saw 3")
    refused(s, ev("build", "Aki", dice=[], tape=tape([1, 2])), "saw 0")
    # two squares of one tape, or two different nests, are fine; so are two loose ends
    assert build(s, [3, 4], [1, 2], "t1.1", "t1.4").tapes[1] == ((1, 2), "t1.1", "t1.4")
    assert build(s, [3, 4], [1, 2], "red-2", "blue-1").tapes[1] == ((1, 2), "red-2", "blue-1")
    assert build(s, [3, 4], [1, 2], None, None).tapes[1] == ((1, 2), None, None)


def test_square_names_are_written_exactly():
    s = turn(2, [1, 2, 3], [1, 2])
    s = build(s, [1, 2], [3, 4, 5], "red-1", None)  # t1.2 (4) and t1.3 (5) empty
    for name in ("t01.2", "t1.02", "t1.2 ", "T1.2", "t\u0661.2", "t1.\u0662", "t².1", "t①.1", "t1.²", "t１.2",
                 "t1..2", "t.2", "t1.", "t-1.2", "t" + "1" * 10_000 + ".2", "t1.2" + " " * 10_000):
        for e in (ev("build", "Ben", dice=[3], tape=tape([1, 2], name, None)),
                  ev("build", "Ben", dice=[3], tape=tape([1, 2], None, name))):
            exc = refused(s, e, "tape end '(from|to)'")
            assert len(exc.en) < 400 and len(exc.ja) < 400  # a long name is echoed short
        refused(s, ev("place", "Ben", die=3, square=name), "no square")
    assert build(s, [3], [1, 2], "t1.2", None).tapes[1] == ((1, 2), "t1.2", None)


def test_a_replay_with_a_square_named_in_other_digits_refuses_it(tmp_path, capsys):
    path = tmp_path / "digits.jsonl"
    lines = [{"game": "ariexpress", "seats": seats(2), "options": {}, "seed": 0},
             ev("throw", "Aki", dice=[["w", 1], ["w", 2], ["w", 3]]), ev("keep", "Aki", dice=[1, 2]),
             ev("build", "Aki", dice=[1, 2], tape=tape([4, 5, 6], "red-1", None)),
             ev("place", "Ben", die=3, square="t².1"), ev("build", "Ben", dice=[3], tape=tape([1, 2], "t①.1", None))]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["accepted"] for o in out[:-1]] == [True, True, True, False, False]


# --- bounds: no event can cost more than milliseconds ----------------------------------------

def test_a_tape_holds_at_most_max_tape_squares():
    s = turn(2, [1, 2, 3], [1, 2])
    refused(s, ev("build", "Aki", dice=[1, 2], tape=tape([1] * (ae.MAX_TAPE + 1), "red-1", None)),
            f"holds {ae.MAX_TAPE + 1} items; at most {ae.MAX_TAPE}")
    started = time.process_time()
    refused(s, ev("build", "Aki", dice=[1, 2], tape=tape([1] * 1_000_000, "red-1", None)), "at most")
    assert time.process_time() - started < 1.0  # refused by its length, not read square by square
    s = build(s, [1, 2], [1] * ae.MAX_TAPE, "red-1", None)
    assert len(ae.squares(s)) == ae.MAX_TAPE


def test_the_table_holds_at_most_max_squares_then_dice_are_placed_or_passed():
    full = (((2,) * 50, None, None),) * (ae.MAX_SQUARES // 50)
    s = at(turn(2, [1, 3, 4], [3, 4]), tapes=full, owners=((0,) * 50,) * len(full))
    assert len(ae.squares(s)) == ae.MAX_SQUARES
    refused(s, ev("build", "Aki", dice=[3, 4], tape=tape([5, 6])), f"at most {ae.MAX_SQUARES} squares")
    assert "build" in [i["type"] for i in ae.expects(s)["inputs"]]  # offered: it is the tape that does not fit
    s = pass_(pass_(s, 3), 4)
    assert s.phase == "others" and s.kept == ()
    s = at(s, tapes=full[:-1], owners=((0,) * 50,) * (len(full) - 1))
    assert build(s, [1], [5] * 50).tapes[-1] == ((5,) * 50, None, None)  # exactly full


def test_dice_lists_are_bounded():
    s = throw(new(3), 1, 2, 3, 4)
    started = time.process_time()
    refused(s, ev("keep", "Aki", dice=[1] * 1_000_000), f"at most {core.MAX_DICE}")
    refused(new(3), ev("throw", "Aki", dice=[["w", 1]] * 1_000_000), f"at most {core.MAX_DICE}")
    s = keep(s, 1, 2)
    refused(s, ev("build", "Aki", dice=[1] * 1_000_000, tape=tape([1, 2])), f"at most {core.MAX_DICE}")
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), 3.0, "3", "３", True, None, [3], {"face": 3}])
def test_a_face_is_a_whole_number_from_1_to_6(bad):
    s = throw(new(3), 1, 2, 3, 3)
    refused(s, ev("keep", "Aki", dice=[3, bad]), "1-6")
    s = keep(s, 3, 3)
    s = build(s, [3], [3, 5], "red-1", None)  # t1.2 (5) empty
    refused(s, ev("place", "Aki", die=bad, square="t1.2"), "1-6")
    refused(s, ev("pass", "Aki", die=bad), "1-6")
    refused(s, ev("build", "Aki", dice=[bad], tape=tape([1, 2])), "1-6")
    refused(s, ev("build", "Aki", dice=[3], tape=tape([1, bad])), "1-6")
    refused(new(3), ev("throw", "Aki", dice=[["w", 1]] * 3 + [["w", bad]]))


def test_a_bonus_worker_with_two_equal_dice_on_an_empty_square_of_their_face():
    s = turn(3, [5, 5, 2, 3], [5, 5])
    s = build(s, [5, 5], [2, 5, 5, 3], "red-1", None, bonus="t1.3")  # the new tape's own square
    assert workers(s) == {"t1.1": "Aki", "t1.3": "Aki", "t1.4": "Aki"}
    # on an earlier tape's square
    s = at(s, phase="turn", due=0, kept=(5, 5), handed=(2, 3))
    s2 = build(s, [5, 5], [1, 1], None, None, bonus="t1.2")
    assert workers(s2)["t1.2"] == "Aki" and s2.kept == () and s2.phase == "others"
    # declined: absent or null
    s3 = build(s, [5, 5], [1, 1], None, None)
    s4 = ae.apply(s, {**ev("build", "Aki", dice=[5, 5], tape=tape([1, 1])), "bonus": None})
    assert s3.owners == s4.owners and s3.kept == s4.kept == ()
    assert "t1.2" not in workers(s3) and len(workers(s3)) == len(workers(s)) + 2


def test_bonus_refusals():
    s = turn(3, [5, 5, 2, 3], [5, 5])
    s = build(s, [5, 5], [2, 5, 4, 3], "red-1", None)
    s = at(s, phase="turn", due=0, kept=(5, 5), handed=(2, 3))
    b = ev("build", "Aki", dice=[5, 5], tape=tape([5, 6, 5]))
    refused(s, {**b, "bonus": "t9.9"}, "bonus: there is no square")
    refused(s, {**b, "bonus": "t2.1"}, "bonus: square t2.1 is taken by Aki")  # the new tape's first square
    refused(s, {**b, "bonus": "t1.1"}, "taken")
    refused(s, {**b, "bonus": "t1.3"}, "shows 4, not 5")
    refused(s, {**b, "bonus": "t2.2"}, "shows 6, not 5")
    refused(s, {**b, "bonus": 2}, "no square")
    s = at(s, kept=(5, 6))
    refused(s, {**ev("build", "Aki", dice=[5, 6], tape=tape([5, 6])), "bonus": "t1.2"}, "two equal dice")
    # one die (no empty 6 shows): no bonus either
    s = at(s, kept=(6,), handed=(2, 3))
    refused(s, {**ev("build", "Aki", dice=[6], tape=tape([5, 6])), "bonus": "t1.2"}, "two equal dice")


def test_bonus_with_no_square_of_the_face_is_simply_none():
    s = turn(2, [3, 3, 1], [3, 3])
    s = build(s, [3, 3], [1, 2])
    assert len(workers(s)) == 2


def test_one_die_build_or_pass_only_when_no_empty_square_shows_its_face():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [3, 3, 4, 4], "red-1", None)  # t1.2 (3) and t1.3 (4) are empty
    assert s.handed == (3, 4)
    refused(s, ev("pass", "Ben", die=3), "empty square.* t1.2 show 3")
    refused(s, ev("build", "Ben", dice=[4], tape=tape([1, 2])), "t1.3 show 4")
    s = place(s, 4, "t1.3")
    refused(s, ev("build", "Chika", dice=[3], tape=tape([1, 2])), "t1.2 show 3")
    s = place(s, 3, "t1.2")
    assert s.phase == "throw"
    # the same for the turn player's own dice
    s = keep(throw(s, 4, 4, 3, 6), 4, 6)
    s = at(s, tapes=s.tapes + (((4, 6), None, None),), owners=s.owners + ((-1, -1),))
    refused(s, ev("pass", "Ben", die=4), "t2.1 show 4")
    refused(s, ev("build", "Ben", dice=[6], tape=tape([1, 2])), "t2.2 show 6")
    assert build(s, [4, 6], [1, 2]).kept == ()  # two dice: any faces


def test_no_square_fits_is_judged_as_the_die_is_spent():
    s = turn(3, [1, 2, 5, 5], [1, 2])
    refused(s, ev("place", "Aki", die=1, square="t1.1"), 'no square "t1.1"; empty squares showing 1: none')
    s = build(s, [1, 2], [6, 5, 6], "red-1", None)  # a new empty 5: t1.2
    refused(s, ev("pass", "Ben", die=5), "t1.2 show 5")
    s = place(s, 5, "t1.2")
    s = pass_(s, 5)  # Chika's 5: no empty 5 any more
    assert s.phase == "throw"
    assert workers(s) == {"t1.1": "Aki", "t1.2": "Ben", "t1.3": "Aki"}


def test_before_any_tape_a_handed_die_builds_or_passes():
    s = turn(2, [1, 2, 3], [1, 2])
    s = pass_(s, 1)
    s = pass_(s, 2)
    assert s.phase == "others" and due(s) == "Ben"
    refused(s, ev("place", "Ben", die=3, square="t1.1"), "no square")
    s = build(s, [3], [3, 3], "blue-1", None)
    assert workers(s) == {"t1.1": "Ben", "t1.2": "Ben"} and s.phase == "throw" and due(s) == "Ben"


# --- place ----------------------------------------------------------------------------------

def test_place_a_worker_on_an_empty_square_of_the_die_face():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [6, 3, 4, 3, 6], "red-1", "red-2")
    refused(s, ev("place", "Ben", die=3, square="t1.3"), "shows 4, not 3")
    refused(s, ev("place", "Ben", die=3, square="t1.1"), "taken by Aki")
    refused(s, ev("place", "Ben", die=3, square="t2.2"), 'no square "t2.2"')
    refused(s, ev("place", "Ben", die=3, square=None), "no square")
    refused(s, ev("place", "Ben", die=5, square="t1.2"), "does not hold a 5")
    s = place(s, 3, "t1.4")
    assert workers(s)["t1.4"] == "Ben" and due(s) == "Chika"
    refused(s, ev("place", "Chika", die=4, square="t1.4"), "taken by Ben")
    s = place(s, 4, "t1.3")
    assert workers(s) == {"t1.1": "Aki", "t1.3": "Chika", "t1.4": "Ben", "t1.5": "Aki"}


# --- junctions (decision 1) -------------------------------------------------------------------

def test_a_junction_joins_the_new_end_square_next_to_the_built_square():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [1, 2, 3], "red-1", None)
    s = at(s, phase="turn", due=0, kept=(3, 4), handed=(1, 2))
    s = build(s, [3, 4], [4, 5], "t1.2", "red-2")  # onto an empty square
    # the junction square is t1.2 of tape 1 only; tape 2's first square lies next to it
    assert neighbours(s, "t1.2") == {"t1.1", "t1.3", "t2.1"}
    assert neighbours(s, "t2.1") == {"t1.2", "t2.2"} and neighbours(s, "t2.2") == {"t2.1", "red-2"}
    assert workers(s) == {"t1.1": "Aki", "t1.3": "Aki", "t2.1": "Aki", "t2.2": "Aki"}
    assert s.complete == ()  # t1.2 is on the route and still empty
    s = place(s, 2, "t1.2")
    assert s.complete == ("red",)  # red-1 t1.1 t1.2 t2.1 t2.2 red-2; the loose t1.3 is not needed
    # an occupied square takes an end too, and several tapes join one square or one nest
    s = at(s, phase="turn", due=0, kept=(5, 6), handed=(1, 2))
    s = build(s, [5, 6], [6, 6], "t1.2", "red-1")
    assert neighbours(s, "t1.2") == {"t1.1", "t1.3", "t2.1", "t3.1"}
    assert neighbours(s, "red-1") == {"t1.1", "t3.2"}


def test_crossing_tapes_do_not_join():
    s = network(new(2), ([1, 2, 3], "red-1", None, "AAA"), ([4, 5, 6], None, "red-2", "AAA"))
    assert neighbours(s, "t1.3") == {"t1.2"} and neighbours(s, "t2.1") == {"t2.2"}
    assert s.complete == ()


# --- completion -----------------------------------------------------------------------------

def test_a_two_square_tape_between_a_colours_nests_completes_it_at_once():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [3, 3], "red-1", "red-2")
    assert s.complete == ("red",) and ae.view(s)["complete"] == ["red"]
    assert ae.view(s)["runs"] == {"red": {"Aki": 2, "Ben": 0, "Chika": 0}}


def test_completion_needs_a_worker_on_every_square_of_a_route_any_seats():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [6, 3, 4, 6], "blue-2", "blue-1")
    assert s.complete == ()
    s = place(s, 3, "t1.2")  # Ben
    assert s.complete == ()
    s = place(s, 4, "t1.3")  # Chika: the colour is complete after the place
    assert s.complete == ("blue",)
    assert ae.runs(s) == {"blue": {"Aki": 1, "Ben": 1, "Chika": 1}}


def test_a_route_never_runs_through_a_nest():
    s = network(new(2), ([1, 1], "red-1", "blue-1", "AA"), ([2, 2], "blue-1", "red-2", "BB"),
                ([3, 3], "blue-1", "blue-2", "A."))
    assert s.complete == ()
    s = network(s, ([4, 4], "blue-2", "red-2", "AB"))
    assert s.complete == ()  # red-1 .. blue-1 .. red-2 would pass a nest
    s = at(s, phase="others", due=1, turn=0, handed=(3,))
    s = place(s, 3, "t3.2")
    assert s.complete == ("blue",)  # blue itself is complete by t3


def test_completion_is_checked_after_a_build_with_its_bonus():
    s = turn(3, [1, 1, 5, 6], [1, 1])
    s = build(s, [1, 1], [1, 4, 1], "yellow-1", "yellow-2")  # no empty 1 for a bonus
    s = pass_(pass_(s, 5), 6)
    s = keep(throw(s, 4, 4, 2, 2), 4, 4)
    s = build(s, [4, 4], [2, 3], "green-1", "green-2", bonus="t1.2")  # green, and yellow by the bonus
    assert s.complete == ("yellow", "green")
    assert ae.view(s)["dice"] == 6  # two colours: +2 from the next throw (decision 7)
    assert s.handed == (2, 2)
    s = pass_(pass_(s, 2), 2)
    refused(s, ev("throw", "Chika", dice=[["w", 1]] * 5), "all 6 dice")
    s = throw(s, 1, 1, 2, 3, 4, 5)
    s = keep(s, 1, 1, 2, 3)
    # the third colour ends the game at once; Chika's other kept dice are not spent
    s = build(s, [2, 3], [5, 5], "red-2", "red-1")
    assert s.phase == "over" and s.due is None and s.complete == ("red", "yellow", "green")
    v = ae.view(s)
    assert v["runs"] == {"red": {"Aki": 0, "Ben": 0, "Chika": 2}, "yellow": {"Aki": 1, "Ben": 1, "Chika": 0},
                         "green": {"Aki": 0, "Ben": 2, "Chika": 0}}
    assert v["scores"] == {"Aki": 1, "Ben": 3, "Chika": 2} and v["winners"] == ["Ben"]
    assert v["due"] is None and v["phase"] == "over"
    assert ae.expects(s)["inputs"] == [] and ae.expects(s)["winners"] == ["Ben"]
    for e in (ev("place", "Chika", die=1, square="t1.1"), ev("throw", "Aki", dice=[["w", 1]] * 6),
              ev("pass", "Chika", die=1), ev("build", "Chika", dice=[1, 1], tape=tape([1, 2]))):
        refused(s, e, "the game is over")


def _two_at_once(done):
    """Yellow and green wait for one square, t1.2 (a 2), shared by both routes."""
    s = new(3)
    s = network(s, ([1, 2, 3], "yellow-1", "green-1", "A.B"), ([4, 5], "t1.2", "yellow-2", "AA"),
                ([5, 4], "t1.2", "green-2", "BB"))
    for c in done:
        s = network(s, ([6, 6], f"{c}-1", f"{c}-2", "CC"))
    return at(s, phase="others", turn=0, due=1, handed=(2, 6))


def test_a_place_that_completes_two_colours_adds_two_dice():
    s = _two_at_once([])
    assert s.complete == ()
    s = place(s, 2, "t1.2")
    assert s.complete == ("yellow", "green") and s.phase == "others" and ae.dice_count(s) == 6


def test_the_third_colour_ends_the_game_and_scores_only_complete_colours():
    s = _two_at_once(["red"])
    s = place(s, 2, "t1.2")
    assert s.phase == "over" and s.complete == ("red", "yellow", "green")
    assert ae.view(s)["runs"] == {"red": {"Aki": 0, "Ben": 0, "Chika": 2},
                                  "yellow": {"Aki": 2, "Ben": 1, "Chika": 0},
                                  "green": {"Aki": 0, "Ben": 4, "Chika": 0}}


def test_all_four_are_scored_when_the_last_action_completes_two():
    s = _two_at_once(["red", "blue"])
    assert s.complete == ("red", "blue") and s.phase == "others"
    s = place(s, 2, "t1.2")  # Ben's worker completes yellow and green at once (decision 8)
    assert s.phase == "over" and s.complete == NESTS
    v = ae.view(s)
    # yellow: A(t1.1) B(t1.2) A A; green: B(t1.3) B(t1.2) B B
    assert v["runs"] == {"red": {"Aki": 0, "Ben": 0, "Chika": 2}, "blue": {"Aki": 0, "Ben": 0, "Chika": 2},
                         "yellow": {"Aki": 2, "Ben": 1, "Chika": 0}, "green": {"Aki": 0, "Ben": 4, "Chika": 0}}
    assert v["scores"] == {"Aki": 2, "Ben": 5, "Chika": 4} and v["winners"] == ["Ben"]
    refused(s, ev("pass", "Chika", die=6), "over")


# --- runs, scores and winners ---------------------------------------------------------------

def test_a_run_is_consecutive_squares_of_one_seat_on_a_complete_route():
    s = network(new(3), ([1, 2, 3, 4, 5], "red-1", "red-2", "AABAA"))
    assert ae.runs(s) == {"red": {"Aki": 2, "Ben": 1, "Chika": 0}}
    assert ae.scores(s) == {"Aki": 2, "Ben": 1, "Chika": 0}


def test_squares_off_the_route_do_not_count():
    # Aki's side tape hangs off t1.1: t2.2 t2.1 t1.1 is no route
    s = network(new(2), ([1, 2, 3], "red-1", "red-2", "ABA"), ([4, 5], "t1.1", None, "AA"))
    assert ae.runs(s) == {"red": {"Aki": 1, "Ben": 1}}
    # a tape to another colour's nest is no part of red's route either
    s = network(new(2), ([1, 2, 3], "red-1", "red-2", "ABA"), ([4, 5], "t1.3", "blue-1", "AA"))
    assert ae.runs(s) == {"red": {"Aki": 1, "Ben": 1}}


def test_no_square_twice_a_loop_does_not_lengthen_a_run():
    # red-1 t1.1 t1.2 t1.3 red-2; a loop t1.2 t2.1 t2.2 t3.1 t3.2 back to t1.2
    s = network(new(2), ([1, 2, 3], "red-1", "red-2", "BAB"), ([4, 5], "t1.2", None, "AA"),
                ([6, 6], "t2.2", "t1.2", "AA"))
    assert ae.runs(s) == {"red": {"Aki": 1, "Ben": 1}}
    # with the loop joined to t1.1 instead, t1.1 t2.. t3.. t1.2 is a simple route of Aki's
    s = network(new(2), ([1, 2, 3], "red-1", "red-2", "BAB"), ([4, 5], "t1.1", None, "AA"),
                ([6, 6], "t2.2", "t1.2", "AA"))
    assert ae.runs(s) == {"red": {"Aki": 5, "Ben": 1}}  # t2.1 t2.2 t3.1 t3.2 t1.2 after Ben's t1.1


def test_each_seat_takes_its_best_complete_route_later_ones_included():
    s = network(new(3), ([1, 1, 1, 1], "red-1", "red-2", "AAAB"))
    assert ae.runs(s)["red"] == {"Aki": 3, "Ben": 1, "Chika": 0}
    s = network(s, ([2, 2, 2, 2, 2], "red-2", "red-1", "BBBB."))
    assert ae.runs(s)["red"] == {"Aki": 3, "Ben": 1, "Chika": 0}  # not complete yet
    s = network(s, ([3, 3], "t2.5", None, "CC"))
    assert ae.runs(s)["red"] == {"Aki": 3, "Ben": 1, "Chika": 0}
    s = at(s, owners=s.owners[:1] + ((1, 1, 1, 1, 2),) + s.owners[2:])
    assert ae.runs(s)["red"] == {"Aki": 3, "Ben": 4, "Chika": 1}  # each on its own route


def test_later_routes_count_through_the_events_too():
    s = turn(2, [1, 2, 3], [1, 2])
    s = build(s, [1, 2], [5, 5], "red-1", "red-2")
    s = pass_(s, 3)
    assert ae.scores(s) == {"Aki": 2, "Ben": 0}
    s = keep(throw(s, 6, 6, 1, 1), 6, 6, 1)  # red is complete: 4 thrown, 3 kept
    s = build(s, [6, 6], [4, 6, 4], "red-1", "red-2", bonus="t2.2")
    assert ae.runs(s)["red"] == {"Aki": 2, "Ben": 3}


def test_runs_list_every_seat_and_only_complete_colours():
    s = network(new(4), ([1, 1], "red-1", "red-2", "AA"), ([2, 2, 2], "blue-1", "blue-2", "BB."))
    v = ae.view(s)
    assert v["complete"] == ["red"]
    assert v["runs"] == {"red": {"Aki": 2, "Ben": 0, "Chika": 0, "Dan": 0}}
    assert v["scores"] == {"Aki": 2, "Ben": 0, "Chika": 0, "Dan": 0}
    assert v["winners"] == []  # the standing, no winner before the end


def test_scores_sum_the_colours_and_tied_top_scores_share_the_win():
    s = network(new(3), ([1, 1, 1], "red-1", "red-2", "AAB"), ([2, 2, 2], "blue-1", "blue-2", "BBA"),
                ([3, 3, 3], "green-1", "green-2", "C.A"))
    s = at(s, phase="others", turn=2, due=0, handed=(3, 5))
    s = place(s, 3, "t3.2")
    assert s.phase == "over"
    v = ae.view(s)
    assert v["scores"] == {"Aki": 2 + 1 + 2, "Ben": 1 + 2, "Chika": 1}
    s = network(new(3), ([1, 1, 1], "red-1", "red-2", "AAB"), ([2, 2, 2], "blue-1", "blue-2", "BBA"),
                ([3, 3, 3], "green-1", "green-2", "C.B"))
    s = at(s, phase="others", turn=2, due=0, handed=(3, 5))
    s = place(s, 3, "t3.2")
    v = ae.view(s)
    assert v["scores"] == {"Aki": 2 + 1 + 1, "Ben": 1 + 2 + 1, "Chika": 1}
    assert v["winners"] == ["Aki", "Ben"]


# --- view -----------------------------------------------------------------------------------

VIEW_KEYS = ["game", "phase", "due", "turn", "dice", "complete", "workers", "runs", "scores", "winners", "seats",
             "nests", "thrown", "kept", "handed", "tapes", "routes", "drawing", "log", "open"]  # the board layout is scene(), not the view


def test_view_keys():
    s = turn(3, [1, 2, 3, 4], [1, 2])
    s = build(s, [1, 2], [3, 4, 5], "red-1", "red-2")
    assert list(ae.view(s)) == VIEW_KEYS  # the order replay prints; keys are only ever added at the end
    v = ae.view(s, "Ben")
    assert list(v) == VIEW_KEYS + ["mine"] and v["mine"] == {"seat": "Ben", "colour": "black"}
    assert v["game"] == "ariexpress" and v["phase"] == "others" and v["due"] == "Ben" and v["dice"] == 4
    assert v["workers"] == {"t1.1": "Aki", "t1.3": "Aki"}
    assert v["complete"] == [] and v["runs"] == {} and v["scores"] == {"Aki": 0, "Ben": 0, "Chika": 0}
    json.dumps(v)
    with pytest.raises(IllegalEvent, match="unknown seat"):
        ae.view(s, "Zed")


def test_the_board_gives_every_nest_and_square_a_cell_of_its_own():
    rnd = random.Random(7)
    for _ in range(30):
        s = _random_table(rnd, rnd.randint(2, 5))
        b = ae.scene(s)["board"]
        names = ae.nest_names(s) + [q for q, _, _ in ae.squares(s)]
        assert sorted(b["at"]) == sorted(names)
        points = [tuple(xy) for xy in b["at"].values()]
        assert len(set(points)) == len(points)  # no two in one place ...
        assert all(abs(p[0] - q[0]) >= board.CELL or abs(p[1] - q[1]) >= board.CELL  # ... nor touching
                   for k, p in enumerate(points) for q in points[:k])
        assert all(board.CELL / 2 <= x <= b["size"] - board.CELL / 2 for xy in points for x in xy)
    # a big table: as many squares as the table holds, tapes crowding one nest
    tapes = tuple((((1, 2, 3, 4, 5) * 10), "red-1" if t % 2 else None, None) for t in range(ae.MAX_SQUARES // 50))
    s = at(new(2), tapes=tapes, owners=tuple((-1,) * 50 for _ in tapes))
    started = time.process_time()
    b = ae.scene(s)["board"]
    assert time.process_time() - started < 2.0
    assert len(set(map(tuple, b["at"].values()))) == ae.MAX_SQUARES + 8


def test_the_board_draws_each_complete_route_in_its_colour():
    s = network(new(2), ([1, 2, 3], "red-1", "red-2", "ABA"), ([4, 5], "t1.1", "red-2", "AA"),
                ([6, 6], "blue-1", "blue-2", "B."))
    v = ae.view(s)
    assert ae.scene(s)["board"]["routes"] == [{"colour": "red", "nodes": ["red-1", "t1.1", "t1.2", "t1.3", "red-2"]},
                                    {"colour": "red", "nodes": ["red-1", "t1.1", "t2.1", "t2.2", "red-2"]}]
    assert v["routes"] == {"red": [["t1.1", "t1.2", "t1.3"], ["t1.1", "t2.1", "t2.2"]]}
    assert [sq["name"] for tp in v["tapes"] if tp["id"] == 2 for sq in tp["squares"]] == ["t2.1", "t2.2"]


# --- expects: only choices that can be taken -------------------------------------------------

def _field(s, kind, name):
    inp = next(i for i in ae.expects(s)["inputs"] if i["type"] == kind)
    return next((f for f in inp["fields"] if f["name"] == name), None)


def test_a_square_option_carries_its_face_and_occupied_squares_are_not_offered():
    s = turn(3, [4, 4, 5, 6], [4, 4])
    s = build(s, [4, 4], [6, 4, 5, 4, 6], "red-1", None, bonus="t1.2")  # t1.3 (5), t1.4 (4) empty
    square = _field(s, "place", "square")
    assert [(o["value"], o["face"]) for o in square["options"]] == [("t1.3", 5)]  # Ben holds 5 and 6
    ends = _field(s, "build", "tape.from")
    assert {o["value"]: o.get("face") for o in ends["options"] if "face" in o} == {
        "t1.1": 6, "t1.2": 4, "t1.3": 5, "t1.4": 4, "t1.5": 6}  # any built square takes an end
    assert _field(s, "build", "bonus") is None  # one die handed on: no bonus to offer


def test_the_bonus_offers_only_empty_squares_of_a_pair_held():
    s = turn(3, [4, 4, 5, 6], [4, 5])
    assert _field(s, "build", "bonus") is None  # no pair kept
    s = turn(3, [4, 4, 5, 6], [4, 4])
    s = at(s, tapes=(((4, 5, 4, 2), None, None),), owners=((0, -1, -1, -1),))
    bonus = _field(s, "build", "bonus")
    squares = [(o["value"], o.get("face")) for o in bonus["options"]]
    assert squares[:2] == [(None, None), ("t1.3", 4)]  # not t1.1 (taken), nor t1.2 (5) or t1.4 (2)
    assert [v for v, f in squares[2:]] == [f"t2.{k}" for k in range(2, 9)]  # the new tape's, faces typed with it
    assert bonus["default"] is None


def test_replay_of_the_event_list_rebuilds_the_state():
    s = turn(3, [1, 2, 3, 3], [3, 3])
    s = build(s, [3, 3], [3, 1, 2], "red-1", None, bonus=None)
    s = place(s, 1, "t1.2")
    s = build(s, [2], [5, 2], "t1.3", "red-2")
    again, steps = core.replay(ae, seats(3), {}, 0, core.event_list(s))
    assert all(st.accepted for st in steps)
    assert again == s


# --- the exact scoring against brute force --------------------------------------------------

def test_best_runs_equals_brute_force_on_random_networks():
    checked = complete = 0
    for seed in range(600):
        n_squares = 3 + seed % 20
        junctions = seed % 8
        n = 2 + seed % 4
        occupied = (0.6, 0.8, 0.9, 1.0)[seed // 7 % 4]
        net = routes.random_network(seed, n_squares, junctions, seats=n, occupied=occupied)
        for c in range(4):
            want = brute_runs(net.adj, net.owner, 2 * c, 2 * c + 1, n)
            assert routes.best_runs(net.adj, net.owner, 2 * c, 2 * c + 1, n) == want, (seed, c)
            assert routes.complete(net.adj, net.owner, 2 * c, 2 * c + 1) == (want is not None), (seed, c)
            checked += 1
            complete += want is not None
    assert checked == 2400 and complete > 300  # enough complete colours to mean something


def _random_table(rnd, n):
    """Tapes laid as the rules allow (ends: a nest, a built square or nothing), each square
    occupied at random."""
    s = new(n)
    liked = rnd.sample(NESTS, 2)  # most nest ends go to two colours, so that routes form
    for _ in range(rnd.randint(1, 9)):
        names = [q for q, _, _ in ae.squares(s)]
        ends = ae.nest_names(s) + names + [None]

        def end():
            roll = rnd.random()
            if names and roll < 0.5:
                return rnd.choice(names)
            if roll < 0.8:
                return f"{rnd.choice(liked)}-{rnd.randint(1, 2)}"
            return rnd.choice(ends)

        frm, to = end(), end()
        if frm is not None and frm == to:
            to = None
        faces = [rnd.randint(1, 6) for _ in range(rnd.randint(2, 4))]
        fill = rnd.choice((0.6, 0.85, 1.0))
        owners = "".join(NAMES[rnd.randrange(n)][0] if rnd.random() < fill else "." for _ in faces)
        s = network(s, (faces, frm, to, owners))
    return s


def test_engine_networks_score_as_brute_force_finds():
    rnd = random.Random(4)
    complete = 0
    for _ in range(400):
        s = _random_table(rnd, rnd.randint(2, 5))
        want_complete, want_runs = brute_view(s)
        assert list(s.complete) == want_complete
        assert ae.runs(s) == want_runs
        complete += len(want_complete)
        adj, owner, names = ae.graph(s)
        for c, found in ae.complete_routes(s, limit=50).items():
            for r in found:  # each listed route is simple, complete, and runs nest to nest
                assert len(set(r)) == len(r) and all(q.startswith("t") for q in r)
                assert all(owner[names.index(q)] >= 0 for q in r)
                path = [f"{c}-1"] + r + [f"{c}-2"]
                assert all(names.index(q) in adj[names.index(p)] for p, q in zip(path, path[1:]))
    assert complete > 120


def test_a_tape_names_both_ends_even_when_loose():
    state = ae.setup([{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}])
    state = ae.apply(state, {"type": "throw", "seat": "Aki", "dice": [["w", 1], ["w", 2], ["w", 3]]})
    state = ae.apply(state, {"type": "keep", "seat": "Aki", "dice": [1, 2]})
    event = {"type": "build", "seat": "Aki", "dice": [1, 2], "tape": {"faces": [1, 2], "from": "red-1"}}
    with pytest.raises(ae.IllegalEvent, match="null for a loose end"):
        ae.apply(state, event)
    built = ae.apply(state, {**event, "tape": {"faces": [1, 2], "from": "red-1", "to": None}})
    assert built.tapes[0] == ((1, 2), "red-1", None)
    # The log names a nest as the board labels it in each language.
    line = ae.view(built)["log"][-1]
    assert line["en"].endswith("from red-1 to a loose end") and line["ja"].endswith(": 赤1〜つながっていない端")
