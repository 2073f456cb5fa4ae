"""The shipped Die-angler script (docs/examples/dieangler.jsonl) replays to the result
worked out by hand in its comments."""
from __future__ import annotations

from tests.engines.examples import replayed


def test_the_example_uses_every_event_and_refuses_only_what_it_says():
    steps, _ = replayed("dieangler.jsonl")
    assert {s["event"]["type"] for s in steps if s["accepted"]} == {
        "fish", "choose", "uses", "throw", "rethrow", "lure", "done"}
    refused = [s for s in steps if not s["accepted"]]
    assert len(refused) == 7
    assert all("refused" in s["event"].get("comment", "") for s in refused)
    assert all("refused" not in s["event"].get("comment", "") for s in steps if s["accepted"])
    # a special die rethrown with another die's right
    assert any(s["accepted"] and s["event"]["type"] == "rethrow" and "d20" in s["event"]["picked"]
               and s["event"]["by"] == "d10" for s in steps)


def test_the_example_ends_in_the_extension_won_by_chika():
    _, final = replayed("dieangler.jsonl")
    assert final["phase"] == "over"
    assert final["stage"] == "extension"
    # main game: Aki F1 (carried from a tie) + F2, Ben F3 (lure) + F4; tied 2-2
    # extension: Chika F5, F6 tied between Aki and Ben, carried, goes to nobody
    assert final["scores"] == {"Aki": 2, "Ben": 2, "Chika": 1}
    assert final["winners"] == ["Chika"]
    assert final["caught"] == {"Aki": ["F1", "F2"], "Ben": ["F3", "F4"], "Chika": ["F5"]}
    assert final["carried"] == []
    assert final["unclaimed"] == ["F6"]
    assert final["cooling"] == {"Aki": [], "Ben": [], "Chika": ["d10"]}
    assert final["extension"] == {"Aki": 0, "Ben": 0, "Chika": 1}
