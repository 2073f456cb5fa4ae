"""ALEA stays fast in long games: an event costs the same at event 2,000 and at event 20,000.

``long_script(n)`` writes a legal game script of ``n`` accepted events (a test helper; run
this module to write one: ``python -m tests.engines.test_alea_speed 100000 > long.jsonl``,
then time ``dicetable replay long.jsonl``).
"""
from __future__ import annotations

import json
import random
import sys
import time

from engines import alea
from engines.core import replay

SEATS = [{"name": n, "colour": c} for n, c in (("Aki", "red"), ("Ben", "blue"), ("Cy", "green"), ("Dee", "yellow"))]
OPTIONS = {"target": alea.MAX_TARGET}  # nobody reaches it: the game goes on as long as asked
SEED = 7


def long_events(n: int, seed: int = SEED) -> list[dict]:
    """``n`` events of a random legal 4-seat game, each accepted in turn."""
    rnd = random.Random(seed)
    state = alea.setup(SEATS, OPTIONS, seed)
    events = []
    while len(events) < n:
        (inp,) = alea.expects(state)["inputs"]
        if inp["type"] == "declare":
            event = {"type": "declare", "seat": inp["seats"][0], "value": rnd.choice([0, 1, 1, 2, 2, 3, 4, 5])}
        else:
            dice = [[d["colour"], rnd.randint(1, 6)] for d in inp["dice"] for _ in range(d["count"])]
            event = {"type": "throw", "dice": dice}
        state = alea.apply(state, event)
        events.append(event)
    return events


def long_script(n: int, seed: int = SEED) -> list[str]:
    """The lines of a game script with ``n`` accepted ALEA events."""
    header = {"game": "alea", "seats": SEATS, "options": OPTIONS, "seed": seed}
    return [json.dumps(line) for line in [header, *long_events(n, seed)]]


def per_event(events: list[dict]) -> float:
    """CPU seconds per event to replay ``events`` (the best of three runs): this process's
    time, so another process keeping the cores busy does not count."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        state, steps = replay(alea, SEATS, OPTIONS, SEED, events)
        best = min(best, time.process_time() - start)
        assert all(s.accepted for s in steps) and len(state.events) == len(events)
    return best / len(events)


def test_replaying_an_event_costs_the_same_at_2k_and_20k_events():
    events = long_events(20_000)
    short, long = per_event(events[:2_000]), per_event(events)
    assert long < 2 * short, f"{long * 1e6:.1f} µs per event over 20k events, {short * 1e6:.1f} µs over 2k"


if __name__ == "__main__":
    print("\n".join(long_script(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)))
