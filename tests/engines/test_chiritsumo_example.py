"""The shipped Chiritsumo scripts (docs/examples/chiritsumo*.jsonl) replay to the result
worked out by hand in their comments."""
from __future__ import annotations

from tests.engines.examples import replayed


def counts(clear, yellow, red, blue):
    return {"clear": clear, "yellow": yellow, "red": red, "blue": blue}


def test_the_garden_example_ends_with_aki_above_30():
    steps, final = replayed("chiritsumo.jsonl")
    refused = [s["line"] for s in steps if not s["accepted"]]
    assert all("refused" in s["event"].get("comment", "") for s in steps if not s["accepted"])
    assert all("refused" not in s["event"].get("comment", "") for s in steps if s["accepted"])
    assert len(refused) == 6
    assert {s["event"]["type"] for s in steps if s["accepted"]} == {"throw", "build", "exchange", "pass"}
    assert final["phase"] == "over"
    assert final["scores"] == {"Aki": 34, "Ben": 25, "Chika": 10}  # 12+12+10, 9+15+1, 1+8+1
    assert final["winners"] == ["Aki"]
    assert final["round_scores"] == {"Aki": 10, "Ben": 1, "Chika": 1}
    assert final["held"] == {"Aki": counts(1, 3, 3, 3), "Ben": counts(3, 2, 2, 3), "Chika": counts(0, 4, 3, 3)}
    assert final["dust"] == counts(0, 2, 3, 2)
    assert final["rank"] is None


def test_the_solo_example_piles_up_to_mt_fuji():
    steps, final = replayed("chiritsumo-solo.jsonl")
    assert [s["accepted"] for s in steps].count(False) == 3
    assert all("refused" in s["event"].get("comment", "") for s in steps if not s["accepted"])
    assert {s["event"]["type"] for s in steps if s["accepted"]} == {"throw", "build", "swap"}
    assert final["phase"] == "over"
    assert final["scores"] == {"Aki": 58}  # 41 + 0 + 10 + 7 + 0
    assert final["winners"] == ["Aki"]
    assert final["round_scores"] == {"Aki": 0}
    assert final["held"] == {"Aki": counts(4, 2, 2, 2)}
    assert final["dust"] is None
    assert final["rank"] == "fuji"
