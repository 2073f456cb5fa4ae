"""Chiritsumo stays fast in long games: an event costs the same at event 20,000 as at the start.

A garden game where both seats build an empty pyramid every round never ends (nobody
scores, nothing completes): its throws and builds are a legal game as long as asked.
``long_events(n)`` writes one; ``python -m tests.engines.test_chiritsumo_speed`` prints the
time per event of the first and the last 2,000 events of 20,000.
"""
from __future__ import annotations

import random
import time

from engines import chiritsumo as chiri

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
EMPTY = [[None] * n for n in (4, 3, 2, 1)]
BLOCK = 2_000


def long_events(n: int, seed: int = 7) -> list[dict]:
    """``n`` events of a legal 2-seat garden game: each round both seats throw their dice
    (random faces) and build an empty pyramid."""
    rnd = random.Random(seed)
    events: list[dict] = []
    held = ["clear"] + ["yellow", "red", "blue"] * 3
    while len(events) < n:
        for seat in ("Aki", "Ben"):
            events.append({"type": "throw", "seat": seat, "dice": [[c, rnd.randint(1, 6)] for c in held]})
        events += [{"type": "build", "seat": seat, "rows": EMPTY} for seat in ("Aki", "Ben")]
    return events[:n]


def block_times(events: list[dict]) -> list[float]:
    """Seconds to apply each block of ``BLOCK`` events, one after the other."""
    state = chiri.setup(SEATS, {}, 0)
    times = []
    for start in range(0, len(events), BLOCK):
        t = time.process_time()
        for event in events[start:start + BLOCK]:
            state = chiri.apply(state, event)
        times.append(time.process_time() - t)
    assert len(state.events) == len(events) and state.phase == "play"
    return times


def test_an_event_costs_the_same_at_20k_events_as_at_the_start():
    times = block_times(long_events(10 * BLOCK))
    assert min(times[-3:]) < 2 * min(times[:3]), times


if __name__ == "__main__":
    first, *_, last = block_times(long_events(10 * BLOCK))
    print(f"events 0-2,000: {first / BLOCK * 1e6:.1f} µs per event; events 18,000-20,000: {last / BLOCK * 1e6:.1f} µs")
