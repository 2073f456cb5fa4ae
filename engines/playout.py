"""The random-playout driver every engine's playout test uses.

A playout plays one seeded game to its end, choosing each event from what ``expects``
offers (a random input, a random seat of it, a random value for each field), with illegal
events mixed in that must be refused. After every accepted event the test's ``check``
sees the state before and after. Every refusal met on the way is kept, so a test can
check their texts (both languages).

The game decides what a random legal value is only where the generic one cannot know it
(``value``): e.g. the dice of a throw, or a card a physical deck really holds.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

from engines.core import IllegalEvent, event_list, expects_problems, replay

#: What a ``value`` hook returns to leave a field to the generic choice.
GENERIC = object()

Value = Callable[[random.Random, Any, Mapping[str, Any], str, Mapping[str, Any]], Any]


@dataclass
class Playout:
    """One played game: its final state, the events accepted, the refusals met."""

    state: Any
    events: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[tuple[Any, IllegalEvent]] = field(default_factory=list)


def generic_value(rnd: random.Random, fld: Mapping[str, Any]) -> Any:
    """A random value of a field by its kind alone (docs/contracts.md)."""
    kind = fld["kind"]
    if kind == "number":
        return rnd.randint(fld["min"], fld["max"])
    if kind == "choice":
        return rnd.choice(fld["options"])["value"]
    if kind == "bool":
        return rnd.random() < 0.5
    if kind == "multi":
        values = [o["value"] for o in fld["options"]]
        n = rnd.randint(fld.get("min", 0), fld.get("max", len(values)))
        return [rnd.choice(values) for _ in range(n)] if fld.get("repeat") else rnd.sample(values, min(n, len(values)))
    if kind == "numbers":
        return [rnd.randint(fld["min"], fld["max"]) for _ in range(rnd.randint(1, 4))]
    raise AssertionError(f"field {fld['name']!r} of kind {kind!r} needs the game's value hook")


def event_for(rnd: random.Random, state: Any, inp: Mapping[str, Any], seat: str | None, value: Value | None) -> dict[str, Any]:
    """An event for input ``inp`` sent by ``seat``, every field filled."""
    event: dict[str, Any] = {"type": inp["type"]}
    if seat is not None and not inp.get("together"):
        event["seat"] = seat
    for fld in inp["fields"]:
        v = value(rnd, state, inp, seat, fld) if value else GENERIC
        if v is GENERIC:
            v = generic_value(rnd, fld)
        *outer, last = fld["name"].split(".")
        target = event
        for part in outer:
            target = target.setdefault(part, {})
        target[last] = v
    return event


def play(
    game: ModuleType,
    seats: Sequence[Mapping[str, str]],
    options: Mapping[str, Any],
    seed: int,
    *,
    value: Value | None = None,
    illegal: Callable[[random.Random, Any], Any] | None = None,
    check: Callable[[Any, dict[str, Any], Any], None] | None = None,
    weight: Callable[[Mapping[str, Any]], float] | None = None,
    illegal_rate: float = 0.08,
    max_steps: int = 5000,
    tries: int = 50,
    check_replay: bool = False,
) -> Playout:
    """Play one game to its end (see the module's docstring).

    ``illegal(rnd, state)`` returns an event the rules must refuse (or None); ``check(before,
    event, after)`` runs after each accepted event; ``weight(input)`` biases which input is
    taken (e.g. fewer optional item plays, so games stay short). Each expects is checked
    against docs/contracts.md. A random value the rules refuse is tried again, up to
    ``tries`` times; a game that never accepts anything, or does not end in ``max_steps``,
    fails the test.
    """
    rnd = random.Random(seed)
    state = game.setup(list(seats), dict(options), seed)
    names = [s["name"] for s in seats]
    out = Playout(state)
    for _ in range(max_steps):
        ex = game.expects(state)
        problems = expects_problems(ex, names)
        assert not problems, problems
        if not ex["inputs"]:
            break
        if illegal and rnd.random() < illegal_rate:
            bad = illegal(rnd, state)
            if bad is not None:
                try:
                    game.apply(state, bad)
                except IllegalEvent as exc:
                    out.refusals.append((bad, exc))
                else:
                    raise AssertionError(f"an illegal event was accepted: {bad}")
        choices = [(inp, s) for inp in ex["inputs"] for s in (inp["seats"] or [None])]
        weights = [weight(inp) if weight else 1.0 for inp, _ in choices]
        for _ in range(tries):
            inp, seat = rnd.choices(choices, weights)[0]
            event = event_for(rnd, state, inp, seat, value)
            try:
                after = game.apply(state, event)
            except IllegalEvent as exc:
                out.refusals.append((event, exc))
                continue
            if check:
                check(state, event, after)
            state = after
            out.events.append(event)
            break
        else:
            raise AssertionError(f"no offered event was accepted in {tries} tries; expects: {ex}")
    else:
        raise AssertionError(f"the game did not end in {max_steps} events")
    out.state = state
    if check_replay:
        again, steps = replay(game, list(seats), dict(options), seed, event_list(state))
        assert all(s.accepted for s in steps), [s.error for s in steps if not s.accepted]
        assert again == state
    return out
