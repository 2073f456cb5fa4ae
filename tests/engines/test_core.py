"""engines.core: seats, dice, the seeded generator, replay, and engines.load."""
from __future__ import annotations

import importlib.util

import pytest

import engines
from engines import alea
from engines.core import (
    Die,
    IllegalEvent,
    Seat,
    SetupError,
    dice_from,
    event_list,
    replay,
    rng_below,
    rng_face,
    rng_next,
    rng_seed,
    rng_shuffle,
    seats_from,
)


def test_pcg32_matches_the_reference_sequence():
    # pcg32-demo (pcg-c-basic) with seed 42, stream 54 prints these first values.
    rng = rng_seed(42, 54)
    values = []
    for _ in range(6):
        value, rng = rng_next(rng)
        values.append(value)
    assert values == [0xA15C02B7, 0x7B47F409, 0xBA1D3330, 0x83D2F293, 0xBFA4784B, 0xCBED606E]


def test_same_seed_same_draws_and_state_is_a_value():
    a, b = rng_seed(7), rng_seed(7)
    assert a == b
    va, a2 = rng_next(a)
    vb, _ = rng_next(b)
    assert va == vb
    assert a2 != a  # the generator advanced without changing the old value
    assert rng_next(a)[0] == va


def test_rng_below_stays_in_range_and_reaches_every_value():
    rng = rng_seed(1)
    seen = set()
    for _ in range(600):
        k, rng = rng_below(rng, 6)
        assert 0 <= k < 6
        seen.add(k)
    assert seen == set(range(6))
    face, _ = rng_face(rng)
    assert 1 <= face <= 6


def test_shuffle_is_a_seeded_permutation():
    items = tuple(range(22))
    shuffled, _ = rng_shuffle(rng_seed(3), items)
    assert sorted(shuffled) == list(items)
    assert shuffled != items
    assert rng_shuffle(rng_seed(3), items)[0] == shuffled
    assert rng_shuffle(rng_seed(4), items)[0] != shuffled


def test_seed_must_be_an_integer():
    with pytest.raises(SetupError, match="seed must be a whole number"):
        rng_seed("7")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [2**63, -(2**70)])
def test_seed_out_of_64_bits_is_refused(seed):
    with pytest.raises(SetupError, match="2\\*\\*63"):
        rng_seed(seed)


def test_seats_from_accepts_dicts_and_seats_and_checks_them():
    seats = seats_from([{"name": "Aki", "colour": "red"}, Seat("Ben", "blue")], 2, 5)
    assert seats == (Seat("Aki", "red"), Seat("Ben", "blue"))
    with pytest.raises(SetupError, match="for 3 to 5 seats, saw 2"):
        seats_from(seats, 3, 5)
    with pytest.raises(SetupError, match="share the colour 'red'"):
        seats_from([Seat("Aki", "red"), Seat("Ben", "red")], 2, 5)
    with pytest.raises(SetupError, match="share the name 'Aki'"):
        seats_from([Seat("Aki", "red"), Seat("Aki", "blue")], 2, 5)
    with pytest.raises(SetupError, match="has the colour null"):
        seats_from([{"name": "Aki"}], 1, 5)
    # colours are names chosen per table (RULES.md), not only those the host page offers
    assert seats_from([{"name": "Aki", "colour": "amber"}, {"name": "Ben", "colour": "smoky quartz"}], 2, 5) == (
        Seat("Aki", "amber"), Seat("Ben", "smoky quartz"))
    for bad in ("", " ", "a\nb", "x" * 41, 3):
        with pytest.raises(SetupError, match="a colour is a name of 1 to 40 printable characters"):
            seats_from([{"name": "Aki", "colour": bad}], 1, 5)
    # the "any colour" wildcard of an input's dice is no seat colour
    with pytest.raises(SetupError, match='has the colour "\\*"') as refused:
        seats_from([{"name": "Aki", "colour": "*"}], 1, 5)
    assert refused.value.ja != refused.value.en and "色" in refused.value.ja
    with pytest.raises(SetupError, match="usable name"):
        seats_from([{"name": "A" * 41, "colour": "red"}], 1, 5)
    with pytest.raises(SetupError, match="usable name"):
        seats_from([{"name": "\ud800", "colour": "red"}], 1, 5)


def test_dice_from_reads_colour_and_face_and_refuses_bad_dice():
    assert dice_from([{"colour": "red", "face": 6}]) == (Die("red", 6),)
    assert dice_from([["red", 6], ("blue", 1)]) == (Die("red", 6), Die("blue", 1))
    for bad, message in [
        ([{"colour": "red", "face": 7}], "shows 7; expected a face from 1 to 6"),
        ([{"colour": "red", "face": 0}], "shows 0"),
        ([{"colour": "red", "face": True}], "shows true"),
        ([{"colour": "red", "face": "3"}], 'shows "3"'),
        ([{"face": 3}], "has no colour"),
        ([{"colour": "red", "face": 3, "sides": 8}], "has 8 sides"),
        ([{"colour": "red", "face": 3, "spin": 1}], "unknown key"),
        ("red 3", "must be a list"),
        ([["red", 3, 1]], "has 1 sides"),
        ([["red", 3, 1, 2]], r"or \[colour, face\]"),
        ([["red", 9]], "shows 9"),
    ]:
        with pytest.raises(IllegalEvent, match=message):
            dice_from(bad)


def test_dice_from_reads_d10_and_d20_where_the_game_allows_them():
    both = (6, 10, 20)
    assert dice_from([["red", 0, 10], {"colour": "red", "face": 20, "sides": 20}], sides=both) == (
        Die("red", 0, 10), Die("red", 20, 20))
    assert Die("red", 0, 10).as_dict() == {"colour": "red", "face": 0, "sides": 10}
    for bad, message in [
        ([["red", 10, 10]], "shows 10; expected a face from 0 to 9"),
        ([["red", 0, 20]], "shows 0; expected a face from 1 to 20"),
        ([["red", 3, 12]], "has 12 sides; this game uses d6 or d10 or d20"),
    ]:
        with pytest.raises(IllegalEvent, match=message):
            dice_from(bad, sides=both)
    with pytest.raises(IllegalEvent, match="six-sided"):
        dice_from([["red", 3, 10]])


def test_replay_applies_events_and_reports_refusals():
    seats = [Seat("Aki", "red"), Seat("Ben", "blue"), Seat("Cy", "green")]
    events = [
        {"type": "declare", "seat": "Aki", "value": 0},
        {"type": "declare", "seat": "Aki", "value": 1},
        {"type": "declare", "seat": "Zed", "value": 1},
    ]
    state, steps = replay(alea, seats, {}, 5, events)
    assert [s.accepted for s in steps] == [True, False, False]
    assert "already declared" in steps[1].error
    assert 'unknown seat "Zed"' in steps[2].error
    assert event_list(state) == events[:1]


def test_load_names_the_known_games():
    assert engines.load("alea") is alea
    with pytest.raises(ValueError, match="alea, dieangler, chiritsumo, ariexpress, flyingdwarves"):
        engines.load("monopoly")


def test_load_of_a_game_not_written_yet_says_so():
    missing = [g for g in engines.GAMES if importlib.util.find_spec(f"engines.{g}") is None]
    if not missing:
        pytest.skip("every game has an engine now")
    with pytest.raises(engines.GameNotImplemented, match="not implemented yet.*alea") as err:
        engines.load(missing[0])
    assert isinstance(err.value, ValueError)


def test_a_seat_offered_several_inputs_at_once_needs_each_ones_action():
    from engines.core import an_input, expects_problems, text

    def offered(*inputs):
        return expects_problems({"phase": "turn", "winners": [], "inputs": list(inputs)}, ["Aki", "Ben"])

    build = an_input("build", ["Aki"], text("Aki: build.", "Aki: 作る。"))
    named = an_input("pass", ["Aki"], text("Aki: pass.", "Aki: パス。"), action=text("Pass", "パス"))
    assert offered(build) == [] and offered(named) == []  # one input alone needs no name
    assert offered(dict(build, seats=["Ben"]), named) == []  # one each
    assert offered(build, named) == ["Aki may send ['build', 'pass'] at once, and not every one names its action"]
    assert offered(dict(build, action=text("Build", "作る")), named) == []
    assert offered(dict(named, action={"en": "Pass"})) == ["input 'pass' has an action not named in both languages"]


def test_waiting_for_joins_the_prompts_of_several_inputs_into_one_sentence():
    from engines.core import waiting_for

    expects = {"inputs": [{"type": "exchange", "seats": ["Aki"], "prompt": {"en": "Swap two dice.", "ja": "交換する。"}},
                          {"type": "throw", "seats": ["Aki"], "prompt": {"en": "Throw.", "ja": "振る。"}},
                          {"type": "declare", "seats": ["Ben"], "secret": True, "prompt": {"en": "Declare.", "ja": "宣言。"}}]}
    said = waiting_for(expects)
    assert said["en"] == "the table is waiting for exchange (Aki): Swap two dice; or throw (Aki): Throw; or declare: Declare"
    assert said["ja"] == "待っているのは次の入力です: exchange (Aki): 交換する。／throw (Aki): 振る。／declare: 宣言。"
