"""Die-angler: bad input gets a refusal in English and Japanese, never a crash (ASCII digits
only, NaN and infinities refused, every list an event carries bounded, huge values echoed
short); the "*" wildcard is no colour; d10 and d20 are named in the expects of a throw;
the glossary names one thing one way; events and log are chains, so an event costs the
same at event 10 and at event 100,000."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from engines import dieangler as da
from engines.core import MAX_DICE, Chain, DataError, IllegalEvent, replace
from engines.dieangler_fish import MAX_FISH

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
FISH = [{"id": "A", "target": 30}, {"id": "B", "target": 3}]
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "dieangler.jsonl"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def bilingual(exc) -> str:
    assert exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (exc.en, exc.ja)
    assert len(exc.en) < 400 and len(exc.ja) < 400, "a message echoes its input short"
    return exc.en


def refused(state, event, *words):
    started = time.process_time()
    with pytest.raises(IllegalEvent) as info:
        da.apply(state, event)
    assert time.process_time() - started < 0.5, "a refused event costs milliseconds, whatever it holds"
    text = bilingual(info.value)
    for w in words:
        assert w in text, text
    return text


def bad_setup(options, *words, seats=SEATS):
    with pytest.raises(DataError) as info:
        da.setup(seats, options, 0)
    text = bilingual(info.value)
    for w in words:
        assert w in text, text


def turn() -> da.State:
    """Aki's turn, with a re-approach d10 (2 rights) and a lure d20 (even) after the throw."""
    state = da.setup(SEATS, {"deck": "physical", "lure": True, "fish": FISH}, 0)
    state = da.apply(state, {"type": "fish", "fish": "A"})
    state = da.apply(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d10", "d20"]})
    state = da.apply(state, {"type": "choose", "seat": "Ben", "d6": 4})
    state = da.apply(state, {"type": "uses", "seat": "Aki", "d10": "reapproach", "d20": "lure"})
    state = da.apply(state, {"type": "throw", "dice": [["red", 1], ["red", 2, 10], ["red", 2, 20]]})
    assert state.phase == "turn"
    return state


# --- data and options ------------------------------------------------------------------------


@pytest.mark.parametrize("condition", ["t²", "①", "４ ４", "1 ²", "6 ٣", "21", "0"])
def test_a_condition_takes_ascii_faces_1_to_20_only(condition):
    bad_setup({"fish": [{"id": "A", "target": 3, "condition": condition}]}, "fish A", "condition")


@pytest.mark.parametrize("fish, words", [
    ([{"id": "A", "target": float("nan")}], "target is nan"),
    ([{"id": "A", "target": float("inf")}], "target is inf"),
    ([{"id": "A", "target": 10**100}], "target is 1000"),
    ([{"id": "A", "target": 3.0}], "target is 3.0"),
    ([{"id": "A" * 41, "target": 3}], "no usable id"),
    ([{"id": "A", "target": 3, "name": "N" * 41}], "name is"),
    ([{"id": "A", "target": 3, "condition": "1 " * 30}], "condition is"),
    ([{"id": f"A{i}", "target": 3} for i in range(MAX_FISH + 1)], f"at most {MAX_FISH}"),
    ("fish", "non-empty list"),
])
def test_fish_options_are_bounded(fish, words):
    bad_setup({"fish": fish}, "options.fish", words)


@pytest.mark.parametrize("options, words", [
    ({"play": float("nan")}, "option 'play'"),
    ({"play": True}, "option 'play'"),
    ({"lure": 1}, "option 'lure'"),
    ({"deck": ["dealt"]}, "option 'deck'"),
    ({"colour": 1}, "unknown option"),
])
def test_options_are_refused_in_both_languages(options, words):
    bad_setup(options, words)


def test_a_bad_data_file_is_refused_in_both_languages(tmp_path):
    path = tmp_path / "fish.toml"
    path.write_text("[[fish]\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        da.load_fish(path)
    assert "not valid TOML" in bilingual(info.value)
    with pytest.raises(DataError) as info:
        da.load_fish(tmp_path / "none.toml")
    assert "cannot read" in bilingual(info.value)


# --- events ----------------------------------------------------------------------------------


@pytest.mark.parametrize("d6", [float("nan"), float("inf"), 1.0, True, 10**100, "1", "１"])
def test_a_choice_takes_whole_numbers_only(d6):
    state = da.apply(da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0), {"type": "fish", "fish": "A"})
    refused(state, {"type": "choose", "seat": "Aki", "d6": d6}, "from 0 to 5")


def test_lists_and_names_an_event_carries_are_bounded():
    state = da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0)
    refused(state, {"type": "fish", "fish": "x" * 10**6}, "not in this game's deck")
    state = da.apply(state, {"type": "fish", "fish": "A"})
    refused(state, {"type": "choose", "seat": "x" * 10**6, "d6": 1}, "unknown seat")
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d10"] * 10**5}, "one d10 and one d20")
    refused(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": [["d10"]]}, "special die")
    state = da.apply(state, {"type": "choose", "seat": "Aki", "d6": 1})
    state = da.apply(state, {"type": "choose", "seat": "Ben", "d6": 2})
    refused(state, {"type": "throw", "dice": [["red", 1]] * 10**5}, f"at most {MAX_DICE}")
    refused(state, {"type": "throw", "dice": [["red", float("inf")]]}, "shows inf")
    refused(state, {"type": "throw", "dice": [["red", float("nan")]]}, "shows nan")
    refused(state, {"type": "throw", "dice": [["red", "1"]]}, "expected a face")


def test_a_rethrow_refuses_what_is_not_a_die_or_too_much():
    state = turn()
    rethrow = {"type": "rethrow", "seat": "Aki", "by": "d10", "dice": [["red", 1]]}
    refused(state, dict(rethrow, picked=[10**100]), "picked holds 1000")
    refused(state, dict(rethrow, picked=[float("nan")]), "picked holds nan")
    refused(state, dict(rethrow, picked=[1.0]), "picked holds 1.0")
    refused(state, dict(rethrow, picked=[True]), "picked holds true")
    refused(state, dict(rethrow, picked=[1] * 10**5), f"at most {MAX_DICE}")
    refused(state, dict(rethrow, picked="d20"), "picked must be a list of", 'saw "d20"')
    refused(state, dict(rethrow, picked=["x" * 10**6]), "not a special die")
    refused(state, dict(rethrow, picked=[1], by=["d10"]), 'by is ["d10"]')
    refused(state, dict(rethrow, picked=[1], dice=[["red", 1]] * 10**5), f"at most {MAX_DICE}")


def test_a_lure_refuses_what_is_not_a_change_or_too_much():
    state = turn()
    lure = {"type": "lure", "seat": "Aki", "by": "d20"}
    refused(state, dict(lure, changes=[[1, float("nan")]]), "a change is [die, delta]")
    refused(state, dict(lure, changes=[[1, float("inf")]]), "a change is [die, delta]")
    refused(state, dict(lure, changes=[[1, 10**100]]), "a change is [die, delta]")
    refused(state, dict(lure, changes=[[1, True]]), "a change is [die, delta]")
    refused(state, dict(lure, changes=[[10**100, 1]]), "a die in changes")
    refused(state, dict(lure, changes=[[1.0, 1]]), "a die in changes")
    refused(state, dict(lure, changes=[["d10", 1]] * 10**5), f"at most {MAX_DICE}")
    refused(state, dict(lure, changes={"1": 1}), "changes must be a list of", "saw {")


# --- the wildcard, d10 and d20 in expects ------------------------------------------------------


def test_the_wildcard_is_no_colour_of_a_seat_or_a_die():
    bad_setup({}, "colour", seats=[{"name": "Aki", "colour": "*"}, {"name": "Ben", "colour": "blue"}])
    state = da.apply(da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0), {"type": "fish", "fish": "B"})
    state = da.apply(state, {"type": "choose", "seat": "Aki", "d6": 1, "special": ["d20"]})
    state = da.apply(state, {"type": "choose", "seat": "Ben", "d6": 0})
    state = da.apply(state, {"type": "uses", "seat": "Aki", "d20": "chum"})
    inp = da.expects(state)["inputs"][0]
    assert inp["dice"] == [{"colour": "red", "sides": 6, "count": 1}, {"colour": "red", "sides": 20, "count": 1}]
    refused(state, {"type": "throw", "dice": [["*", 3], ["red", 4, 20]]}, "no colour")
    refused(state, {"type": "throw", "dice": [["blue", 3], ["red", 4, 20]]}, "expected 1 red d6")
    state = da.apply(state, {"type": "throw", "dice": [["red", 3], ["red", 4, 20]]})  # the seat's own colour
    assert da.view(state)["caught"]["Aki"] == ["B"]


def test_every_throw_names_the_sides_of_its_d10_and_d20_and_a_rethrow_names_them_in_picked():
    state = da.apply(da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0), {"type": "fish", "fish": "A"})
    state = da.apply(state, {"type": "choose", "seat": "Aki", "d6": 2, "special": ["d10", "d20"]})
    state = da.apply(state, {"type": "choose", "seat": "Ben", "d6": 0, "special": ["d10"]})
    state = da.apply(state, {"type": "uses", "seat": "Ben", "d10": "chum"})
    assert da.expects(state)["inputs"][0]["dice"] == [{"colour": "blue", "sides": 10, "count": 1}]
    state = da.apply(state, {"type": "throw", "dice": [["blue", 1, 10]]})
    state = da.apply(state, {"type": "uses", "seat": "Aki", "d10": "chum", "d20": "reapproach"})
    inp = da.expects(state)["inputs"][0]
    assert inp["dice"] == [{"colour": "red", "sides": 6, "count": 2}, {"colour": "red", "sides": 10, "count": 1},
                           {"colour": "red", "sides": 20, "count": 1}]
    state = da.apply(state, {"type": "throw", "dice": [["red", 1], ["red", 1], ["red", 1, 10], ["red", 2, 20]]})
    rethrow = next(i for i in da.expects(state)["inputs"] if i["type"] == "rethrow")
    # which dice are picked up is the player's to choose: the rethrow's size is open, and
    # the picked field names the d10 and d20 by their sides
    assert rethrow["dice"] is None and rethrow["camera"] == "rethrown"
    assert next(f for f in rethrow["fields"] if f["name"] == "picked")["names"] == {"10": "d10", "20": "d20"}


# --- glossary, chains ------------------------------------------------------------------------------


def test_the_glossary_names_the_terms_as_the_original_rules_do():
    g = da.GLOSSARY
    assert {k: g[k]["ja"] for k in ("fish", "rod", "chum", "reapproach", "lure", "cooling", "extension", "carried")} == {
        "fish": "お魚カード", "rod": "釣り竿", "chum": "撒き餌", "reapproach": "再アプローチ", "lure": "ルアー",
        "cooling": "クールダウン", "extension": "延長戦", "carried": "キャリーオーバー"}


def test_labels_and_prompts_use_the_glossary_names():
    state = da.setup(SEATS, {"deck": "physical", "lure": True, "fish": FISH}, 0)
    fish = da.expects(state)["inputs"][0]
    assert fish["fields"][0]["label"]["ja"] == da.GLOSSARY["fish"]["ja"]
    assert da.GLOSSARY["fish"]["ja"] in fish["prompt"]["ja"]
    state = da.apply(state, {"type": "fish", "fish": "A"})
    choose = da.expects(state)["inputs"][0]
    assert [o["label"] for o in choose["fields"][1]["options"]] == [da.GLOSSARY["d10"], da.GLOSSARY["d20"]]
    assert da.GLOSSARY["rod"]["ja"] in choose["prompt"]["ja"] and da.GLOSSARY["rod"]["en"] in choose["prompt"]["en"]
    state = da.apply(state, {"type": "choose", "seat": "Aki", "d6": 0, "special": ["d10"]})
    state = da.apply(state, {"type": "choose", "seat": "Ben", "d6": 4})
    uses = da.expects(state)["inputs"][0]["fields"][0]["options"]
    assert [o["label"] for o in uses] == [da.GLOSSARY[u] for u in ("chum", "reapproach", "lure")]
    state = da.apply(state, {"type": "uses", "seat": "Aki", "d10": "chum"})
    assert da.view(state)["log"][-1] == {"en": "Aki declares d10 chum", "ja": "Akiの宣言: 10面体 撒き餌"}


def test_events_and_log_are_chains_that_grow_without_copying():
    state = da.setup(SEATS, {"deck": "physical", "fish": FISH}, 0)
    assert isinstance(state.events, Chain) and isinstance(state.log, Chain)
    new = da.apply(state, {"type": "fish", "fish": "A"})
    assert len(new.events) == len(state.events) + 1 and len(new.log) == len(state.log) + 1
    assert tuple(new.events)[:-1] == tuple(state.events)


def test_an_event_costs_the_same_after_100_000_events():
    """The example game's events applied to its start, and to the same start with 100,000
    events and log lines behind it: per event, the long game costs about the same."""
    lines = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    head, events = lines[0], lines[1:]
    start = da.setup(head["seats"], head["options"], head["seed"])
    long_events, long_log = start.events, start.log
    for _ in range(100_000):
        long_events, long_log = long_events.add("{}"), long_log.add(("-", "-"))
    long_start = replace(start, events=long_events, log=long_log)

    def cost(state) -> float:
        best = float("inf")
        for _ in range(5):
            began = time.process_time()
            for _ in range(10):
                s = state
                for event in events:
                    try:
                        s = da.apply(s, event)
                    except IllegalEvent:
                        pass
            best = min(best, time.process_time() - began)
        return best

    assert len(long_start.events) == 100_000 + len(start.events)
    assert cost(long_start) < 3 * cost(start) + 0.01


def test_the_engine_does_not_tell_the_pages_it_uses_less_of_the_table_than_it_does():
    """``engine.USES`` tells the pages which parts of the table a game uses (dice, seat
    buttons, seat colours); the Die-angler uses them all, so it leaves the default."""
    assert not hasattr(da, "USES")
