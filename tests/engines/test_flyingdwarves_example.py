"""The shipped Flying Dwarves script (docs/examples/flyingdwarves.jsonl) replays to the
result worked out by hand below."""
from __future__ import annotations

from tests.engines.examples import replayed


def test_the_example_uses_every_event_and_refuses_only_what_it_says():
    steps, _ = replayed("flyingdwarves.jsonl")
    assert {s["event"]["type"] for s in steps if s["accepted"]} == {
        "handicap", "draw", "propel", "item", "pass", "swap", "develop", "move", "discard", "invest", "start_cube"}
    used = [s["event"]["card"] for s in steps if s["accepted"] and s["event"]["type"] == "item"]
    assert {"copy", "cancel", "swap", "develop", "+2", "-1"} <= set(used)
    refused = [s for s in steps if not s["accepted"]]
    assert len(refused) == 9
    assert all("refused" in s["event"].get("comment", "") for s in refused)
    assert all("refused" not in s["event"].get("comment", "") for s in steps if s["accepted"])
    # every seat at priority passes with an event, a seat holding no item card too: three
    # exchanges of three seats, each ended by three passes in a row
    assert sum(s["accepted"] and s["event"]["type"] == "pass" for s in steps) == 9
    # the refusal of a propel names only the seat's own hand
    bad = [s for s in refused if s["event"]["type"] == "propel" and s["event"]["card"] == 3][0]
    assert bad["error"] == "card 3 is not in your hand; your hand holds 0, 1, 2, 4"


def test_the_example_ends_as_worked_out_by_hand():
    _, final = replayed("flyingdwarves.jsonl")
    assert final["phase"] == "over"
    # Points by round (start 3 each; Ben's handicap +1):
    # Aki:   r4 mine 3 (+3) after r3 mine 2 (+2) = 8; r5 mine 1 = 9; r8 pays Ben 1, Chika 1 = 7;
    #        r9 mine 2 = 9; r11 mine 2 = 11; 17 moved, 7 from the goal: -3 -> 8.
    # Ben:   4; r2 pays Chika 1 = 3; r6 mine 1 = 4; r7 own lot with 2 cubes = 6; r8 ? mine,
    #        discards 3 = 9, Aki pays 1 = 10; r10 mine 3 = 13; r11 goal first +6 = 19.
    # Chika: 3; r2 Ben pays 1 = 4, mine 3 (+2 stands: copy of cancel voids the cancel) = 7;
    #        r3 mine 1 = 8; r6 ? mine, discards 3 = 11; r8 Aki pays 1 = 12; r10 mine 1 = 13;
    #        r11 goal second +3 = 16; lot 7 (her start cube alone) +1 -> 17.
    # Lots 3 and 10 are tied 1-1: no majority.
    assert final["scores"] == {"Aki": 8, "Ben": 19, "Chika": 17}
    assert final["winners"] == ["Ben"]
    assert final["positions"] == {"Aki": 5, "Ben": 0, "Chika": 2}
    assert final["laps"] == {"Aki": 1, "Ben": 2, "Chika": 2}
    assert final["lots"] == {"3": {"Ben": 1, "Chika": 1}, "7": {"Chika": 1}, "10": {"Ben": 1, "Chika": 1}}
    assert final["finished"] == ["Ben", "Chika"]
    assert final["final"] == {"Aki": {"penalty": 3, "majority": 0}, "Ben": {"penalty": 0, "majority": 0},
                              "Chika": {"penalty": 0, "majority": 1}}
    assert final["discards"] == {"Aki": [1, 2, 3, 4], "Ben": [1, 3], "Chika": [2, 3, 4]}
    assert final["items"] == {"Aki": 1, "Ben": 0, "Chika": 1}
