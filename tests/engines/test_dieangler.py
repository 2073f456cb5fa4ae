"""Lord of the Die-angler, rule by rule (docs/rules/dieangler.md, the script format's (docs/replay.md) Die-angler
section and its rules decisions), and every refusal docs/replay.md lists."""
from __future__ import annotations

import pytest

from engines import dieangler as da
from engines.core import DataError, IllegalEvent, SetupError

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Chika", "colour": "green"}]
FISH = [
    {"id": "P1", "target": 5},
    {"id": "P2", "target": 8},
    {"id": "P3", "target": 10},
    {"id": "X1", "target": 3},
    {"id": "X2", "target": 3},
]


def new(fish=None, play=3, lure=False, seats=SEATS, deck="physical", first="P1"):
    options = {"deck": deck, "fish": fish or FISH, "play": play, "lure": lure}
    state = da.setup(seats, options, 7)
    if deck == "physical" and first:
        state = da.apply(state, {"type": "fish", "fish": first})
    return state


def go(state, *events):
    for event in events:
        state = da.apply(state, event)
    return state


def choose(state, **choices):
    """choose(state, Aki=(2, ["d10"]), Ben=0, ...): every seat's choice, in seat order."""
    for seat in (s.name for s in state.seats):
        c = choices.get(seat, 0)
        d6, special = (c, []) if isinstance(c, int) else c
        state = da.apply(state, {"type": "choose", "seat": seat, "d6": d6, "special": special})
    return state


def refused(state, event, *words):
    with pytest.raises(IllegalEvent) as info:
        da.apply(state, event)
    for w in words:
        assert w in str(info.value), str(info.value)
    return str(info.value)


def fish_by_id(fid, target, condition=""):
    return da.fish_from([{"id": fid, "target": target, "condition": condition}], "test")[0]


# --- setup, options, data ----------------------------------------------------------------


def test_default_deck_has_15_fish_of_every_condition_kind():
    fish = da.load_fish()
    assert len(fish) == 15 and len({f.id for f in fish}) == 15
    assert {f.kind for f in fish} == {"none", "faces", "marks", "distinct"}
    state = da.setup(SEATS, {}, 1)
    assert state.play == 10 and len(state.aside) == 5 and state.up is not None
    assert da.view(state)["deck"] == {"mode": "dealt", "left": 9, "set_aside": 5, "play": 10, "total": 15}


def test_bad_fish_file_names_the_file_the_fish_and_the_fault(tmp_path):
    path = tmp_path / "fish.toml"
    path.write_text('[[fish]]\nid = "Z9"\ntarget = 0\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"fish.toml: fish Z9: target is 0"):
        da.load_fish(path)
    path.write_text('[[fish]]\nid = "Z8"\ntarget = 5\ncondition = "="\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"fish Z8: .*at least 2 marks"):
        da.load_fish(path)
    path.write_text('[[fish]]\nid = "Z7"\ntarget = 5\ncondition = "big"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r'fish Z7: condition "big"'):
        da.load_fish(path)


@pytest.mark.parametrize("options, words", [
    ({"colour": 1}, "unknown option"),
    ({"deck": "shuffled"}, "option 'deck'"),
    ({"play": 0}, "option 'play'"),
    ({"play": 16}, "option 'play'"),
    ({"lure": "yes"}, "option 'lure'"),
    ({"fish": [{"id": "A"}]}, "options.fish: fish A: target"),
    ({"fish": [{"id": "A", "target": 3}, {"id": "A", "target": 4}]}, "used twice"),
    ({"fish": []}, "non-empty list"),
])
def test_options_are_checked(options, words):
    with pytest.raises(SetupError, match=words):
        da.setup(SEATS, options, 0)


def test_seat_counts_two_to_five():
    with pytest.raises(SetupError):
        da.setup(SEATS[:1], {}, 0)
    da.setup(SEATS[:2], {}, 0)


def test_dealt_deck_plays_the_first_fish_and_sets_the_rest_aside():
    state = da.setup(SEATS, {"fish": FISH, "play": 2}, 3)
    assert len(state.pile) == 1 and len(state.aside) == 3 and state.phase == "choose"
    refused(state, {"type": "fish", "fish": "P1"}, "saw a fish event", "turns over its fish cards itself (deck: dealt)")


# --- conditions ---------------------------------------------------------------------------


def test_conditions_faces_marks_and_all_different():
    assert da.meets(fish_by_id("a", 5), [2, 3]) and not da.meets(fish_by_id("a", 6), [2, 3])
    faces = fish_by_id("f", 5, "4 4")
    assert da.meets(faces, [4, 4]) and not da.meets(faces, [4, 5, 6])
    assert da.meets(fish_by_id("f", 3, "1 6"), [1, 6]) and not da.meets(fish_by_id("f", 3, "1 6"), [6, 6])
    marks = fish_by_id("m", 3, "= = =")
    assert da.meets(marks, [2, 2, 2]) and da.meets(marks, [5, 5, 5, 1]) and not da.meets(marks, [5, 5, 1, 1])
    assert da.meets(fish_by_id("m", 3, "= ="), [3, 3])
    distinct = fish_by_id("d", 3, "≠")
    assert da.meets(distinct, [1, 2, 6]) and not da.meets(distinct, [1, 2, 2])
    assert da.meets(fish_by_id("d", 3, "!="), [10, 4])


# --- the secret choice --------------------------------------------------------------------


def test_nothing_of_a_choice_is_public_before_the_reveal():
    state = new()
    before = da.view(state)
    ben_before = da.view(state, "Ben")
    state = go(state, {"type": "choose", "seat": "Aki", "d6": 3, "special": ["d20"]})
    assert da.view(state) == before
    assert da.view(state, "Ben") == ben_before
    assert da.view(state, "Aki")["mine"]["choice"] == {"d6": 3, "special": ["d20"]}
    assert da.view(state)["expects"]["inputs"][0]["seats"] == []
    assert da.expects(state)["inputs"][0]["seats"] == ["Ben", "Chika"]
    state = go(state, {"type": "choose", "seat": "Ben", "d6": 1}, {"type": "choose", "seat": "Chika", "d6": 2})
    assert da.view(state)["choices"] == {"Aki": {"d6": 3, "special": ["d20"]}, "Ben": {"d6": 1, "special": []},
                                         "Chika": {"d6": 2, "special": []}}


def test_choose_refusals():
    state = da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0)
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1}, "saw a choose event", "turn over the next fish")  # no fish up
    state = new()
    refused(state, {"type": "choose", "seat": "Aki", "d6": 6}, "0 to 5")
    refused(state, {"type": "choose", "seat": "Aki", "d6": -1}, "0 to 5")
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d12"]}, "special dice are")
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d10", "d10"]}, "twice")
    state = go(state, {"type": "choose", "seat": "Aki", "d6": 1})
    refused(state, {"type": "choose", "seat": "Aki", "d6": 2}, "already chosen")


# --- order --------------------------------------------------------------------------------


def test_order_fewest_dice_then_fewer_specials_then_together_and_no_dice_no_fishing():
    state = choose(new(seats=SEATS + [{"name": "Dan", "colour": "purple"}]),
                   Aki=(2, ["d10"]), Ben=3, Chika=(2, ["d20"]), Dan=0)
    assert da.view(state)["order"] == [["Ben"], ["Aki", "Chika"]]
    assert da.view(state)["next"] == ["Ben"]
    state = choose(new(), Aki=4, Ben=2, Chika=(3, ["d10"]))
    assert da.view(state)["order"] == [["Ben"], ["Aki"], ["Chika"]]


def test_a_d10_and_a_d20_count_alike_for_the_order():
    state = choose(new(), Aki=(1, ["d10"]), Ben=(1, ["d20"]), Chika=(0, ["d10", "d20"]))
    assert da.view(state)["order"] == [["Aki", "Ben"], ["Chika"]]


def test_the_first_group_to_catch_ends_the_round_and_later_groups_never_fish():
    state = choose(new(), Aki=1, Ben=2, Chika=(2, ["d10"]))  # target 5
    state = go(state, {"type": "throw", "dice": [["red", 2]]})
    assert da.view(state)["next"] == ["Ben"] and state.phase == "throw"  # Chika's uses wait for her group
    state = go(state, {"type": "throw", "dice": [["blue", 2], ["blue", 4]]})
    assert da.view(state)["caught"]["Ben"] == ["P1"] and state.phase == "fish"
    # Chika's group never fished: she declared nothing, but her d10 cools
    assert da.view(state)["cooling"] == {"Aki": [], "Ben": [], "Chika": ["d10"]}


# --- uses ---------------------------------------------------------------------------------


def test_uses_are_declared_by_the_group_due_before_its_throw():
    state = choose(new(lure=True), Aki=(1, ["d10", "d20"]), Ben=(1, ["d10", "d20"]), Chika=0)
    assert state.phase == "uses"
    inputs = da.expects(state)["inputs"]
    assert [(i["type"], i["seats"], [f["name"] for f in i["fields"]]) for i in inputs] == [
        ("uses", ["Aki"], ["d10", "d20"]), ("uses", ["Ben"], ["d10", "d20"])]
    assert [o["value"] for o in inputs[0]["fields"][0]["options"]] == ["chum", "reapproach", "lure"]
    refused(state, {"type": "throw", "dice": []}, "saw a throw event")
    refused(state, {"type": "uses", "seat": "Chika", "d10": "chum"}, "not in the group due")
    refused(state, {"type": "uses", "seat": "Aki", "d10": "chum"}, "exactly their special dice")
    refused(state, {"type": "uses", "seat": "Ben", "d20": "chum"}, "exactly their special dice")
    refused(state, {"type": "uses", "seat": "Ben", "d10": "chum", "d20": "nap"}, "use of the d20")
    state = go(state, {"type": "uses", "seat": "Ben", "d10": "chum", "d20": "chum"})
    assert state.phase == "uses"
    refused(state, {"type": "uses", "seat": "Ben", "d20": "reapproach"}, "already declared")
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "lure", "d20": "reapproach"})
    assert state.phase == "throw"


def test_lure_is_refused_when_the_option_is_off():
    state = choose(new(), Aki=(1, ["d10"]), Ben=0, Chika=0)
    refused(state, {"type": "uses", "seat": "Aki", "d10": "lure"}, "off in this game")
    assert [o["value"] for o in da.expects(state)["inputs"][0]["fields"][0]["options"]] == ["chum", "reapproach"]


# --- throws -------------------------------------------------------------------------------


def test_throw_must_show_the_groups_dice_by_colour_and_sides():
    state = choose(new(), Aki=(2, ["d10"]), Ben=(2, ["d20"]), Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "chum"}, {"type": "uses", "seat": "Ben", "d20": "chum"})
    inp = da.expects(state)["inputs"][0]
    assert inp["type"] == "throw" and inp["camera"] == "new" and inp["together"]
    assert inp["dice"] == [{"colour": "red", "sides": 6, "count": 2}, {"colour": "red", "sides": 10, "count": 1},
                           {"colour": "blue", "sides": 6, "count": 2}, {"colour": "blue", "sides": 20, "count": 1}]
    good = [["red", 1], ["red", 1], ["red", 0, 10], ["blue", 1], ["blue", 1], ["blue", 1, 20]]
    refused(state, {"type": "throw", "dice": good[:-1]}, "expected")
    refused(state, {"type": "throw", "dice": good[:2] + [["red", 1, 20]] + good[3:]}, "expected")
    refused(state, {"type": "throw", "dice": good[:2] + [["red", 10, 10]] + good[3:]}, "from 0 to 9")
    refused(state, {"type": "throw", "dice": good[:5] + [["blue", 21, 20]]}, "from 1 to 20")
    refused(state, {"type": "throw", "dice": [["red", 7]] + good[1:]}, "from 1 to 6")
    state = go(state, {"type": "throw", "dice": good})
    # a chum d10's 0 counts 10: Aki 1+1+10 = 12, Ben 1+1+1 = 3; target 5: Aki alone succeeds
    assert da.view(state)["caught"]["Aki"] == ["P1"]
    assert da.view(state)["throws"][0]["sum"] == 12 and da.view(state)["throws"][1]["meets"] is False


def test_chum_counts_for_the_sum_and_the_conditions():
    fish = [{"id": "Q", "target": 9, "condition": "4 4"}, {"id": "R", "target": 3}]
    state = choose(new(fish=fish, play=2, first="Q"), Aki=(1, ["d20"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d20": "chum"},
               {"type": "throw", "dice": [["red", 4], ["red", 4, 20]]})
    assert da.view(state)["caught"]["Aki"] == []  # 8 < 9
    entry = da.view(state)["throws"][0]
    assert (entry["sum"], entry["counted"], entry["condition_met"], entry["meets"]) == (8, [4, 4], True, False)
    state = go(state, {"type": "fish", "fish": "R"})
    assert da.view(state)["carried"] == ["Q"]


def test_reapproach_die_counts_for_nothing_and_rethrows_once_on_odd_twice_on_even():
    fish = [{"id": "D", "target": 5, "condition": "≠"}, {"id": "E", "target": 30}]
    state = choose(new(fish=fish, play=2, first="D"), Aki=(2, ["d20"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d20": "reapproach"},
               {"type": "throw", "dice": [["red", 2], ["red", 3], ["red", 3, 20]]})
    hand = da.view(state)["hands"][0]
    assert hand["sum"] == 5 and hand["meets"] is True and hand["counted"] == [2, 3]  # the d20's 3 is not counted
    assert hand["rights"] == {"d20": {"left": 1, "fixed": False}}
    state = go(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": [2], "dice": [["red", 1]]})
    assert state.phase == "fish"  # the one right spent: the turn ended by itself and was judged
    assert da.view(state)["carried"] == ["D"]  # 1 + 3 = 4 < 5
    state = choose(go(state, {"type": "fish", "fish": "E"}), Aki=(2, ["d10"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "reapproach"},
               {"type": "throw", "dice": [["red", 2], ["red", 3], ["red", 0, 10]]})
    assert da.view(state)["hands"][0]["rights"] == {"d10": {"left": 2, "fixed": False}}  # 0 = 10, even
    state = go(state, {"type": "rethrow", "seat": "Aki", "by": "d10", "picked": [2, 3], "dice": [["red", 6], ["red", 6]]})
    assert da.view(state)["hands"][0]["rights"] == {"d10": {"left": 1, "fixed": True}}
    assert state.phase == "turn"
    state = go(state, {"type": "done", "seat": "Aki"})
    assert state.phase == "over"


def test_a_special_die_is_rethrown_with_anothers_right_and_gets_rights_from_its_new_face():
    fish = [{"id": "T", "target": 40}, {"id": "U", "target": 40}]
    state = choose(new(fish=fish, play=2, first="T"), Aki=(1, ["d10", "d20"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "reapproach", "d20": "reapproach"},
               {"type": "throw", "dice": [["red", 1], ["red", 2, 10], ["red", 5, 20]]})
    assert da.view(state)["hands"][0]["rights"] == {"d10": {"left": 2, "fixed": False}, "d20": {"left": 1, "fixed": False}}
    # the d10's right rethrows the d20, which then has its rights from its new (even) face
    state = go(state, {"type": "rethrow", "seat": "Aki", "by": "d10", "picked": ["d20"], "dice": [["red", 8, 20]]})
    assert da.view(state)["hands"][0]["rights"] == {"d10": {"left": 1, "fixed": True}, "d20": {"left": 2, "fixed": False}}
    # the d20's right cannot rethrow the d10, whose ability is used, nor the d20 itself
    refused(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": ["d10"], "dice": [["red", 4, 10]]},
            "ability was used")
    refused(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": ["d20"], "dice": [["red", 4, 20]]},
            "never rethrows itself")
    state = go(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": [1], "dice": [["red", 6]]})
    # now the d10 (1 left) cannot rethrow the d20 either: its first right is spent
    refused(state, {"type": "rethrow", "seat": "Aki", "by": "d10", "picked": ["d20"], "dice": [["red", 4, 20]]},
            "ability was used")
    assert da.view(state)["hands"][0]["rights"] == {"d10": {"left": 1, "fixed": True}, "d20": {"left": 1, "fixed": True}}


def test_rethrow_refusals():
    fish = [{"id": "T", "target": 40}, {"id": "U", "target": 40}]
    state = choose(new(fish=fish, play=2, first="T"), Aki=(2, ["d10", "d20"]), Ben=1, Chika=0)
    state = go(state, {"type": "throw", "dice": [["blue", 3]]},
               {"type": "uses", "seat": "Aki", "d10": "reapproach", "d20": "chum"},
               {"type": "throw", "dice": [["red", 1], ["red", 4], ["red", 3, 10], ["red", 5, 20]]})
    ok = {"type": "rethrow", "seat": "Aki", "by": "d10", "picked": [4, "d20"], "dice": [["red", 6], ["red", 17, 20]]}
    refused(state, dict(ok, seat="Ben"), "turn is not open")
    refused(state, dict(ok, by="d20"), "re-approach die")
    refused(state, dict(ok, by="d6"), "re-approach die")
    refused(state, dict(ok, picked=[]), "picked is empty")
    refused(state, dict(ok, picked=[6, "d20"]), "showing 6")
    refused(state, dict(ok, picked=[4, 4]), "names 2 d6 showing 4, but Aki has 1")  # a face twice: two dice
    refused(state, dict(ok, picked=[4, "d10"]), "never rethrows itself")
    refused(state, dict(ok, dice=[["red", 6]]), "must match")
    refused(state, dict(ok, dice=[["red", 6], ["blue", 17, 20]]), "must match")
    refused(state, dict(ok, dice=[["red", 6], ["red", 7, 10]]), "must match")
    state = go(state, ok)  # the d10 showed 3: one right, now spent; chum dice may be rethrown
    assert state.phase == "fish"
    assert da.view(state)["throws"][-1]["dice"] == [
        {"colour": "red", "face": 1}, {"colour": "red", "face": 6},
        {"colour": "red", "face": 3, "sides": 10, "value": 3, "use": "reapproach"},
        {"colour": "red", "face": 17, "sides": 20, "value": 17, "use": "chum"}]
    refused(state, ok, "saw a rethrow event")


def test_lure_changes_by_one_on_odd_and_two_in_all_on_even():
    fish = [{"id": "L", "target": 12}, {"id": "M", "target": 12}]
    state = choose(new(fish=fish, play=2, first="L", lure=True), Aki=(2, ["d10", "d20"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "lure", "d20": "reapproach"},
               {"type": "throw", "dice": [["red", 3], ["red", 5], ["red", 4, 10], ["red", 7, 20]]})
    inputs = {i["type"]: i for i in da.expects(state)["inputs"]}
    assert set(inputs) == {"rethrow", "lure", "done"}
    # the changes are tapped, never typed: every [die, delta] the hand allows, as its new face
    changes = inputs["lure"]["fields"][1]
    assert changes["kind"] == "multi" and (changes["min"], changes["max"]) == (1, 2)
    values = [o["value"] for o in changes["options"]]
    assert [3, 1] in values and [5, -2] in values and ["d20", 1] in values and [5, 2] not in values
    assert {"en": "d6 3 → 4", "ja": changes["options"][values.index([3, 1])]["label"]["ja"]} == \
        changes["options"][values.index([3, 1])]["label"]
    assert inputs["rethrow"]["camera"] == "rethrown" and inputs["rethrow"]["dice"] is None
    assert inputs["rethrow"]["fields"][1] == {"name": "picked", "kind": "picked", "label": inputs["rethrow"]["fields"][1]["label"],
                                              "names": {"10": "d10", "20": "d20"}}
    refused(state, {"type": "lure", "seat": "Aki", "by": "d20", "changes": [[3, 1]]}, "lure die")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": []}, "empty")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[3, 0]]}, "no change")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[3, 3]]}, "2 in all")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[3, 1], [5, 1], ["d20", 1]]}, "2 in all")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [["d10", 1]]}, "cannot change itself")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [["d20", 1], ["d20", -1]]}, "twice")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[5, 2]]}, "1 to 6")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[4, 1]]}, "showing 4")
    # the even d10 turns the odd re-approach d20 even before its use: 2 rights, not 1
    state = go(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [["d20", 1]]})
    assert da.view(state)["hands"][0]["rights"] == {"d20": {"left": 2, "fixed": False}}
    refused(state, {"type": "lure", "seat": "Aki", "by": "d10", "changes": [[3, 1]]}, "already lured")
    # a used lure die is never rethrown
    refused(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": ["d10"], "dice": [["red", 1, 10]]},
            "ability was used")
    state = go(state, {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": [3], "dice": [["red", 2]]},
               {"type": "rethrow", "seat": "Aki", "by": "d20", "picked": [2], "dice": [["red", 6]]})
    assert da.view(state)["carried"] == ["L"]  # 5 + 6 = 11 < 12 (the lure d10 counts nothing)


def test_an_odd_lure_changes_one_die_by_one_and_the_range_is_the_dies_own():
    fish = [{"id": "L", "target": 12}, {"id": "M", "target": 12}]
    state = choose(new(fish=fish, play=2, first="L", lure=True), Aki=(1, ["d10", "d20"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "chum", "d20": "lure"},
               {"type": "throw", "dice": [["red", 2], ["red", 0, 10], ["red", 5, 20]]})
    refused(state, {"type": "lure", "seat": "Aki", "by": "d20", "changes": [[2, 2]]}, "1 in all")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d20", "changes": [[2, 1], ["d10", -1]]}, "1 in all")
    refused(state, {"type": "lure", "seat": "Aki", "by": "d20", "changes": [["d10", 1]]}, "from 1 to 10")
    state = go(state, {"type": "lure", "seat": "Aki", "by": "d20", "changes": [[2, -1]]})
    assert da.view(state)["carried"] == ["L"]  # 1 + 10 = 11 < 12


def test_done_ends_a_turn_and_is_refused_when_no_turn_is_open():
    fish = [{"id": "T", "target": 7}, {"id": "U", "target": 7}]
    state = choose(new(fish=fish, play=2, first="T"), Aki=(2, ["d10"]), Ben=(2, ["d20"]), Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "reapproach"}, {"type": "uses", "seat": "Ben", "d20": "chum"},
               {"type": "throw", "dice": [["red", 3], ["red", 4], ["red", 1, 10], ["blue", 1], ["blue", 1], ["blue", 5, 20]]})
    # Ben (chum only) had nothing left: his turn ended at the throw; Aki's is open
    assert da.expects(state)["inputs"][-1] == dict(da.expects(state)["inputs"][-1], type="done", seats=["Aki"])
    refused(state, {"type": "done", "seat": "Ben"}, "not open")
    refused(state, {"type": "done", "seat": "Chika"}, "not open")
    state = go(state, {"type": "done", "seat": "Aki"})
    # Aki 7 and Ben 7 both succeed at the same sum: nobody takes it
    assert da.view(state)["carried"] == ["T"]


# --- simultaneous groups ------------------------------------------------------------------


def test_simultaneous_successes_the_smallest_sum_takes_it():
    state = choose(new(), Aki=2, Ben=2, Chika=2)  # target 5
    state = go(state, {"type": "throw", "dice": [["red", 5], ["red", 5], ["blue", 3], ["blue", 3], ["green", 1], ["green", 1]]})
    assert da.view(state)["caught"] == {"Aki": [], "Ben": ["P1"], "Chika": []}


def test_a_shared_closest_sum_takes_nothing_even_with_a_farther_success_and_stops_later_groups():
    state = choose(new(), Aki=2, Ben=2, Chika=3)  # target 5
    state = go(state, {"type": "throw", "dice": [["red", 3], ["red", 3], ["blue", 2], ["blue", 4]]})
    assert da.view(state)["carried"] == ["P1"] and state.phase == "fish"  # Chika never fished
    state = go(state, {"type": "fish", "fish": "P2"})
    state = choose(state, Aki=3, Ben=1, Chika=1)  # target 8
    state = go(state, {"type": "throw", "dice": [["blue", 5], ["green", 4]]},
               {"type": "throw", "dice": [["red", 6], ["red", 6], ["red", 6]]})
    assert da.view(state)["caught"]["Aki"] == ["P1", "P2"]  # the carried fish first, in turn-over order
    assert da.view(state)["carried"] == []


def test_one_success_in_a_group_takes_it_and_a_failed_group_passes_to_the_next():
    state = choose(new(), Aki=1, Ben=1, Chika=2)
    state = go(state, {"type": "throw", "dice": [["red", 6], ["blue", 2]]})
    assert da.view(state)["caught"]["Aki"] == ["P1"]
    state = choose(go(state, {"type": "fish", "fish": "P2"}), Aki=1, Ben=1, Chika=2)
    state = go(state, {"type": "throw", "dice": [["red", 6], ["blue", 2]]})
    assert da.view(state)["next"] == ["Chika"]


# --- carry-over, cooling, the end -----------------------------------------------------------


def test_nobody_choosing_a_die_carries_the_fish_over():
    state = choose(new(), Aki=0, Ben=0, Chika=0)
    assert state.phase == "fish" and da.view(state)["carried"] == ["P1"]


def test_chosen_special_dice_cool_one_round_thrown_or_not():
    state = choose(new(), Aki=(1, ["d10", "d20"]), Ben=(3, ["d20"]), Chika=0)  # Ben's group never fishes
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "chum", "d20": "chum"},
               {"type": "throw", "dice": [["red", 1], ["red", 5, 10], ["red", 5, 20]]})
    assert da.view(state)["caught"]["Aki"] == ["P1"]
    assert da.view(state)["cooling"] == {"Aki": ["d10", "d20"], "Ben": ["d20"], "Chika": []}
    state = go(state, {"type": "fish", "fish": "P2"})
    choose_inputs = [i for i in da.expects(state)["inputs"] if i["type"] == "choose"]
    assert [(i["seats"], [o["value"] for o in i["fields"][1]["options"]]) for i in choose_inputs] == [
        (["Aki"], []), (["Ben"], ["d10"]), (["Chika"], ["d10", "d20"])]
    assert choose_inputs[0]["fields"][0] == dict(choose_inputs[0]["fields"][0], kind="number", min=0, max=5, button=True)
    assert choose_inputs[0]["fields"][1]["default"] == []
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d10"]}, "cooling")
    refused(state, {"type": "choose", "seat": "Ben", "d6": 1, "special": ["d20"]}, "cooling")
    state = choose(state, Aki=0, Ben=(0, ["d10"]), Chika=0)  # Ben fishes alone with his d10
    assert da.view(state)["cooling"] == {"Aki": ["d10", "d20"], "Ben": ["d20"], "Chika": []}
    state = go(state, {"type": "uses", "seat": "Ben", "d10": "chum"}, {"type": "throw", "dice": [["blue", 2, 10]]})
    assert da.view(state)["cooling"] == {"Aki": [], "Ben": ["d10"], "Chika": []}


def test_fish_carried_at_the_end_go_to_nobody_and_the_single_leader_wins():
    state = choose(new(play=2), Aki=1, Ben=0, Chika=0)
    state = go(state, {"type": "throw", "dice": [["red", 6]]}, {"type": "fish", "fish": "P2"})
    state = choose(state, Aki=0, Ben=0, Chika=0)
    v = da.view(state)
    assert v["phase"] == "over" and v["winners"] == ["Aki"] and v["scores"] == {"Aki": 1, "Ben": 0, "Chika": 0}
    assert v["carried"] == [] and v["unclaimed"] == ["P2"]
    refused(state, {"type": "fish", "fish": "P3"}, "game is over")
    assert da.expects(state) == {"phase": "over", "inputs": [], "winners": ["Aki"]}


def test_tied_leaders_start_an_extension_that_every_seat_plays_with_the_set_aside_fish():
    state = choose(new(play=2), Aki=1, Ben=0, Chika=0)
    state = go(state, {"type": "throw", "dice": [["red", 6]]}, {"type": "fish", "fish": "P2"})
    state = choose(state, Aki=0, Ben=3, Chika=0)
    state = go(state, {"type": "throw", "dice": [["blue", 6], ["blue", 6], ["blue", 6]]})
    v = da.view(state)
    assert v["phase"] == "fish" and v["stage"] == "extension" and v["winners"] == []
    assert v["deck"]["left"] == 3 and v["deck"]["set_aside"] == 0
    refused(state, {"type": "fish", "fish": "P1"}, "already turned over")
    # Chika, out of the lead, catches the most in the extension and wins
    state = go(state, {"type": "fish", "fish": "X1"})
    state = choose(state, Aki=0, Ben=0, Chika=1)
    state = go(state, {"type": "throw", "dice": [["green", 3]]}, {"type": "fish", "fish": "P3"})
    state = choose(state, Aki=0, Ben=0, Chika=0)  # carried
    state = go(state, {"type": "fish", "fish": "X2"})
    state = choose(state, Aki=1, Ben=0, Chika=1)
    state = go(state, {"type": "throw", "dice": [["red", 4], ["green", 3]]})
    v = da.view(state)
    assert v["phase"] == "over" and v["scores"] == {"Aki": 1, "Ben": 1, "Chika": 3}
    assert v["caught"] == {"Aki": ["P1"], "Ben": ["P2"], "Chika": ["X1", "P3", "X2"]}
    assert v["extension"] == {"Aki": 0, "Ben": 0, "Chika": 3}
    assert v["winners"] == ["Chika"]


def test_an_extension_with_no_catch_leaves_the_tied_leaders_sharing():
    fish = [{"id": "A", "target": 2}, {"id": "B", "target": 2}, {"id": "C", "target": 50}]
    state = da.setup(SEATS, {"fish": fish, "play": 2, "deck": "physical"}, 0)
    state = go(state, {"type": "fish", "fish": "A"})
    state = go(choose(state, Aki=1), {"type": "throw", "dice": [["red", 6]]}, {"type": "fish", "fish": "B"})
    state = go(choose(state, Chika=1), {"type": "throw", "dice": [["green", 6]]}, {"type": "fish", "fish": "C"})
    state = go(choose(state, Ben=1), {"type": "throw", "dice": [["blue", 6]]})
    v = da.view(state)
    assert v["phase"] == "over" and v["winners"] == ["Aki", "Chika"] and v["unclaimed"] == ["C"]


def test_nothing_set_aside_the_tied_leaders_share_at_once():
    fish = [{"id": "A", "target": 2}, {"id": "B", "target": 2}]
    state = da.setup(SEATS[:2], {"fish": fish, "deck": "physical"}, 0)
    assert state.play == 2
    state = go(state, {"type": "fish", "fish": "A"})
    state = go(choose(state, Aki=1), {"type": "throw", "dice": [["red", 6]]}, {"type": "fish", "fish": "B"})
    state = go(choose(state, Ben=1), {"type": "throw", "dice": [["blue", 6]]})
    assert da.view(state)["phase"] == "over" and da.view(state)["winners"] == ["Aki", "Ben"]


# --- fish events ---------------------------------------------------------------------------


def test_fish_refusals():
    state = da.setup(SEATS, {"deck": "physical", "fish": FISH, "play": 3}, 0)
    assert state.phase == "fish"
    inp = da.expects(state)["inputs"][0]
    assert inp["type"] == "fish" and inp["seats"] == [] and [o["value"] for o in inp["fields"][0]["options"]] == [
        "P1", "P2", "P3", "X1", "X2"]
    refused(state, {"type": "fish", "fish": "Z1"}, "not in this game's deck")
    state = go(state, {"type": "fish", "fish": "P2"})
    refused(state, {"type": "fish", "fish": "P3"}, "saw a fish event")  # not between rounds
    state = choose(state, Aki=0, Ben=0, Chika=0)
    refused(state, {"type": "fish", "fish": "P2"}, "already turned over")


def test_events_are_checked_for_their_fields():
    state = new()
    refused(state, {"type": "choose", "seat": "Aki"}, "no d6")
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "colour": "red"}, "unknown field")
    refused(state, {"type": "swim"}, "unknown event type")
    refused(state, ["choose"], "an event is an object")
    refused(state, {"type": "choose", "seat": "Zed", "d6": 1}, "unknown seat")


def test_the_view_has_the_final_keys_and_the_status_page_keys():
    state = choose(new(), Aki=(1, ["d10"]), Ben=1, Chika=0)
    v = da.view(state, "Aki")
    for key in ("game", "phase", "scores", "winners", "seats", "log", "caught", "carried", "cooling", "fish",
                "order", "next", "hands", "throws", "deck", "expects", "mine"):
        assert key in v
    assert v["fish"] == {"id": "P1", "name": "P1", "name_ja": "P1", "target": 5, "condition": "", "kind": "none"}
    assert v["mine"]["choice"] == {"d6": 1, "special": ["d10"]}
    assert "mine" not in da.view(state)


def test_a_turn_with_nothing_to_act_on_ends_at_the_throw():
    state = choose(new(), Aki=(0, ["d10"]), Ben=0, Chika=0)
    state = go(state, {"type": "uses", "seat": "Aki", "d10": "reapproach"}, {"type": "throw", "dice": [["red", 4, 10]]})
    assert state.phase == "fish" and da.view(state)["carried"] == ["P1"]  # nothing counted: 0 < 5
    state = choose(go(state, {"type": "fish", "fish": "P2"}), Aki=0, Ben=(2, []), Chika=0)
    state = go(state, {"type": "throw", "dice": [["blue", 1], ["blue", 1]]})  # plain d6: no turn to end
    assert state.phase == "fish" and da.view(state)["carried"] == ["P1", "P2"]


def test_the_fishing_order_is_said_in_each_languages_words():
    """Seats in one group are joined by "and" in English and by "・" in Japanese (no English
    word on a Japanese page)."""
    state = choose(new(), Aki=2, Ben=2, Chika=1)
    line = next(l for l in da.view(state)["log"] if l["en"].startswith("Fishing order"))
    assert line["en"] == "Fishing order: Chika / Aki and Ben"
    assert line["ja"] == "釣る順番: Chika / Aki・Ben"
