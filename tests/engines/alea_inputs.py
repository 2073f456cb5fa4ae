"""ALEA's ``expects`` read in short, for the ALEA tests."""
from __future__ import annotations

from engines import alea


def due(state) -> dict:
    """The one input ALEA waits for, in short: {"kind", "seats", "dice" per colour, "reroll"},
    {"kind": "card", "cards"} or {"kind": "over", "winner"} (docs/contracts.md has the full form)."""
    exp = alea.expects(state)
    if not exp["inputs"]:
        return {"kind": "over", "winner": exp["winners"][0] if exp["winners"] else None}
    (inp,) = exp["inputs"]
    if inp["type"] == "card":
        return {"kind": "card", "cards": [o["value"] for o in inp["fields"][0]["options"]]}
    if inp["type"] == "declare":
        return {"kind": "declare", "seats": inp["seats"], "min": 0, "max": inp["fields"][0]["max"]}
    dice = {d["colour"]: d["count"] for d in inp["dice"]}
    return {"kind": "throw", "seats": inp["seats"], "dice": dice, "reroll": inp["camera"] == "all" and "*" not in dice}
