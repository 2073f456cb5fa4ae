"""Ari Express stays fast in long games: an event costs the same at event 2,000 and at
event 20,000.

The long game is legal and never ends: tapes join only loose ends and squares, never a
nest, so no colour is ever complete; once ``SQUARES`` squares are laid and taken, the dice
are passed. ``long_script(n)`` writes such a game (run this module to write one:
``python -m tests.engines.test_ariexpress_speed 100000 > long.jsonl``, then time
``dicetable replay long.jsonl``).
"""
from __future__ import annotations

import json
import random
import sys
import time

from engines import ariexpress as ae
from engines.core import replay

SEATS = [{"name": n, "colour": c} for n, c in (("Aki", "white"), ("Ben", "black"), ("Cy", "pink"), ("Dee", "orange"))]
SEED = 7
SQUARES = 200  # the table the long game lays before it only places and passes


def _spend(rnd: random.Random, state: ae.State) -> dict:
    """Place when a square fits; else build a tape off the nests while the table is small;
    else pass."""
    seat = state.seats[state.due].name
    held = list(state.kept if state.phase == "turn" else state.handed)
    fits = [(q, f) for f in sorted(set(held)) for q in ae.open_squares(state, f)]
    if fits:
        square, face = rnd.choice(fits)
        return {"type": "place", "seat": seat, "die": face, "square": square}
    squares = [q for q, _, _ in ae.squares(state)]
    faces = [rnd.randint(1, 6) for _ in range(rnd.randint(2, 6))]
    if len(squares) + len(faces) > SQUARES:
        return {"type": "pass", "seat": seat, "die": held[0]}
    dice = rnd.sample(held, 2) if state.phase == "turn" and len(held) >= 2 else held[:1]
    ends = [None, rnd.choice(squares) if squares else None]
    rnd.shuffle(ends)
    return {"type": "build", "seat": seat, "dice": dice, "tape": {"faces": faces, "from": ends[0], "to": ends[1]}}


def long_events(n: int, seed: int = SEED) -> list[dict]:
    """``n`` events of a random legal 4-seat game that never ends, each accepted in turn."""
    rnd = random.Random(seed)
    state = ae.setup(SEATS, {}, seed)
    events = []
    while len(events) < n:
        seat = state.seats[state.due].name
        if state.phase == "throw":
            event = {"type": "throw", "seat": seat, "dice": [["white", rnd.randint(1, 6)] for _ in range(ae.dice_count(state))]}
        elif state.phase == "keep":
            event = {"type": "keep", "seat": seat, "dice": rnd.sample(list(state.thrown), len(state.thrown) - len(SEATS) + 1)}
        else:
            event = _spend(rnd, state)
        state = ae.apply(state, event)
        events.append(event)
    assert state.complete == ()
    return events


def long_script(n: int, seed: int = SEED) -> list[str]:
    """The lines of a game script with ``n`` accepted Ari Express events."""
    header = {"game": "ariexpress", "seats": SEATS, "options": {}, "seed": seed}
    return [json.dumps(line) for line in [header, *long_events(n, seed)]]


def per_event(events: list[dict], runs: int) -> float:
    """Seconds per event to replay ``events`` (the best of ``runs`` runs)."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        state, steps = replay(ae, SEATS, {}, SEED, events)
        best = min(best, time.process_time() - start)
        assert all(s.accepted for s in steps) and len(state.events) == len(events)
    return best / len(events)


def test_replaying_an_event_costs_the_same_at_2k_and_20k_events():
    events = long_events(20_000)
    assert not any(e["type"] == "build" for e in events[2_000:])  # the table is laid within the first 2,000
    short, long = per_event(events[:2_000], 3), per_event(events, 1)
    assert long < 2 * short, f"{long * 1e6:.1f} µs per event over 20k events, {short * 1e6:.1f} µs over 2k"


if __name__ == "__main__":
    print("\n".join(long_script(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)))
