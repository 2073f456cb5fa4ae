"""The shipped Ari Express script (docs/examples/ariexpress.jsonl) replays to the result
worked out by hand in its comments."""
from __future__ import annotations

from tests.engines.examples import replayed


def test_the_example_uses_every_event_and_refuses_only_what_it_says():
    steps, _ = replayed("ariexpress.jsonl")
    accepted = [s["event"] for s in steps if s["accepted"]]
    assert {e["type"] for e in accepted} == {"throw", "keep", "build", "place", "pass"}
    builds = [e for e in accepted if e["type"] == "build"]
    assert any(e.get("bonus") for e in builds)  # a bonus worker with two equal dice
    assert any(len(e["dice"]) == 1 for e in builds)  # a one-die build
    assert any(str(e["tape"]["from"]).startswith("t") for e in builds)  # a junction
    assert any(e["tape"]["to"] is None for e in builds)  # a loose end
    refused = [s for s in steps if not s["accepted"]]
    assert len(refused) == 6
    assert all("refused" in s["event"].get("comment", "") for s in refused)
    assert all("refused" not in s["event"].get("comment", "") for s in steps if s["accepted"])
    assert [s["error"] for s in refused] == [
        "place: square t2.2 shows 5, not 1; empty squares showing 1: none",
        "Ben keeps 2 of the 4 dice thrown (one goes to each other player); saw 3",
        "Chika builds with two dice only on their own turn; with a die handed on, build with that one die "
        "(when no empty square shows it)",
        "bonus: square t4.2 shows 5, not 6; empty squares showing 6: none",
        "Aki throws all 6 dice in hand; saw 5",
        "the game is over; no event is expected",
    ]


def test_the_example_ends_as_worked_out_by_hand():
    _, final = replayed("ariexpress.jsonl")
    assert final["game"] == "ariexpress"
    assert final["phase"] == "over" and final["due"] is None
    assert final["complete"] == ["red", "blue", "yellow"]
    # red: Aki's route red-1 t1.1 t1.2 t5.1 t5.2 red-2 (4), Ben's t1.3 t2.1 t2.2 t2.3 (4);
    # blue: Chika's t3.1-t3.3 (3); yellow: Aki's t7.1 t7.2 (2); green (t4.2 empty) scores nothing
    assert final["runs"] == {"red": {"Aki": 4, "Ben": 4, "Chika": 0},
                             "blue": {"Aki": 0, "Ben": 0, "Chika": 3},
                             "yellow": {"Aki": 2, "Ben": 0, "Chika": 0}}
    assert final["scores"] == {"Aki": 6, "Ben": 4, "Chika": 3}
    assert final["winners"] == ["Aki"]
    assert final["dice"] == 6  # 3 + 1 per complete colour, at most 3 + 3
    assert final["workers"] == {
        "t1.1": "Aki", "t1.2": "Aki", "t1.3": "Ben", "t1.4": "Aki",
        "t2.1": "Ben", "t2.2": "Ben", "t2.3": "Ben",
        "t3.1": "Chika", "t3.2": "Chika", "t3.3": "Chika",
        "t4.1": "Chika", "t4.3": "Chika",
        "t5.1": "Aki", "t5.2": "Aki",
        "t6.1": "Ben", "t6.2": "Ben",
        "t7.1": "Aki", "t7.2": "Aki",
    }
