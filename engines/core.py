"""What every game engine shares: seats, dice, events, errors, the seeded generator.

An engine is a module of four pure functions (see ARCHITECTURE.md):

- ``setup(seats, options, seed) -> state``
- ``expects(state) -> dict``: what the game waits for now
- ``apply(state, event) -> state``, or raises ``IllegalEvent`` (the old state is untouched)
- ``view(state, seat=None) -> dict``: JSON-able, with ``seat``'s own secrets under "mine"

States are frozen dataclasses holding tuples. Each state keeps its own event list
(``state.events``, the events as JSON text) and the state of its random generator
(``state.rng``), so a game is its seats, options, seed and events: ``replay`` rebuilds it.

The generator is PCG32 (O'Neill, pcg-random.org, "XSH RR" output), written as pure
functions on an ``Rng`` value: every draw returns the value and the next ``Rng``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "Seat",
    "Die",
    "IllegalEvent",
    "SetupError",
    "Rng",
    "rng_seed",
    "rng_next",
    "rng_below",
    "rng_shuffle",
    "rng_face",
    "seats_from",
    "dice_from",
    "event_text",
    "event_list",
    "replay",
    "ReplayStep",
]


class IllegalEvent(ValueError):
    """An event the rules refuse; the message says what was seen and what was expected."""


class SetupError(ValueError):
    """Seats or options a game cannot start with; the message names the fix."""


@dataclass(frozen=True)
class Seat:
    """A player at the table and the colour of their dice."""

    name: str
    colour: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "colour": self.colour}


@dataclass(frozen=True)
class Die:
    """One die as read on the table: its colour, the face up, its number of sides."""

    colour: str
    face: int
    sides: int = 6

    def as_dict(self) -> dict[str, Any]:
        return {"colour": self.colour, "face": self.face}


def seats_from(seats: Iterable[Seat | Mapping[str, Any]], min_seats: int, max_seats: int) -> tuple[Seat, ...]:
    """Seats from ``Seat`` values or ``{"name", "colour"}`` dicts, checked.

    Names and colours must be non-empty strings, each unique at the table.
    """
    result: list[Seat] = []
    for i, seat in enumerate(seats):
        if isinstance(seat, Seat):
            name, colour = seat.name, seat.colour
        elif isinstance(seat, Mapping):
            name, colour = seat.get("name"), seat.get("colour", seat.get("color"))
        else:
            raise SetupError(f"seat {i + 1} is {seat!r}; give each seat as {{\"name\": ..., \"colour\": ...}}")
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"seat {i + 1} has no name (saw {name!r}); give each seat a non-empty \"name\"")
        if not isinstance(colour, str) or not colour.strip():
            raise SetupError(f"seat {name!r} has no colour (saw {colour!r}); give each seat a dice \"colour\"")
        result.append(Seat(name, colour))
    if not min_seats <= len(result) <= max_seats:
        raise SetupError(f"this game is for {min_seats} to {max_seats} seats, saw {len(result)}")
    names = [s.name for s in result]
    colours = [s.colour for s in result]
    for label, values in (("name", names), ("colour", colours)):
        doubles = sorted({v for v in values if values.count(v) > 1})
        if doubles:
            raise SetupError(f"two seats share the {label} {doubles[0]!r}; each seat needs its own {label}")
    return tuple(result)


def dice_from(raw: Any, what: str = "dice") -> tuple[Die, ...]:
    """Dice of a throw event: a list of ``{"colour": str, "face": 1..6}``, checked.

    ``"color"`` is read as ``"colour"``; ``"sides"``, when given, must be 6. A die may also
    be written as a ``[colour, face]`` pair.
    """
    if not isinstance(raw, list):
        raise IllegalEvent(f"'{what}' must be a list of {{\"colour\": ..., \"face\": 1-6}}, saw {raw!r}")
    dice = []
    for i, item in enumerate(raw):
        if isinstance(item, (list, tuple)) and len(item) == 2:
            item = {"colour": item[0], "face": item[1]}
        if not isinstance(item, Mapping):
            raise IllegalEvent(f"die {i + 1} must be {{\"colour\": ..., \"face\": 1-6}} or [colour, face], saw {item!r}")
        unknown = sorted(set(item) - {"colour", "color", "face", "sides"})
        if unknown:
            raise IllegalEvent(f"die {i + 1} has unknown key(s) {unknown}; a die has 'colour' and 'face'")
        colour, face = item.get("colour", item.get("color")), item.get("face")
        sides = item.get("sides", 6)
        if not isinstance(colour, str) or not colour:
            raise IllegalEvent(f"die {i + 1} has no colour (saw {colour!r}); expected a colour name like \"red\"")
        if sides != 6 or isinstance(sides, bool):
            raise IllegalEvent(f"die {i + 1} has {sides!r} sides; this game uses six-sided dice")
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise IllegalEvent(f"die {i + 1} ({colour}) shows {face!r}; expected a face from 1 to 6")
        dice.append(Die(colour, face))
    return tuple(dice)


def event_text(event: Mapping[str, Any]) -> str:
    """The canonical JSON text an event is kept as in a state's event list."""
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def event_list(state: Any) -> list[dict[str, Any]]:
    """The accepted events of a game, oldest first, as plain dicts."""
    return [json.loads(text) for text in state.events]


# --- PCG32 -----------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1
_MULT = 6364136223846793005


@dataclass(frozen=True)
class Rng:
    """The state of a PCG32 generator (64-bit state, odd 64-bit increment)."""

    state: int
    inc: int


def rng_seed(seed: int, stream: int = 54) -> Rng:
    """A generator seeded like the reference ``pcg32_srandom_r(seed, stream)``."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SetupError(f"the seed must be an integer, saw {seed!r}")
    inc = ((stream << 1) | 1) & _MASK64
    rng = Rng(0, inc)
    _, rng = rng_next(rng)
    rng = Rng((rng.state + seed) & _MASK64, inc)
    _, rng = rng_next(rng)
    return rng


def rng_next(rng: Rng) -> tuple[int, Rng]:
    """The next 32-bit value and the generator after it."""
    old = rng.state
    new = Rng((old * _MULT + rng.inc) & _MASK64, rng.inc)
    xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
    rot = old >> 59
    value = ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & 0xFFFFFFFF
    return value, new


def rng_below(rng: Rng, bound: int) -> tuple[int, Rng]:
    """A uniform integer in ``0..bound-1`` (no modulo bias) and the next generator."""
    if bound <= 0:
        raise ValueError(f"bound must be positive, saw {bound}")
    threshold = ((1 << 32) - bound) % bound
    while True:
        value, rng = rng_next(rng)
        if value >= threshold:
            return value % bound, rng


def rng_face(rng: Rng, sides: int = 6) -> tuple[int, Rng]:
    """A die face ``1..sides`` and the next generator."""
    k, rng = rng_below(rng, sides)
    return k + 1, rng


def rng_shuffle(rng: Rng, items: Sequence[Any]) -> tuple[tuple[Any, ...], Rng]:
    """A Fisher-Yates shuffle of ``items`` as a new tuple, and the next generator."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j, rng = rng_below(rng, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out), rng


# --- replay ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """What happened to one event of a replay: accepted, or refused with the reason."""

    event: Any
    accepted: bool
    error: str | None = None


def replay(
    game: ModuleType,
    seats: Sequence[Seat | Mapping[str, Any]],
    options: Mapping[str, Any] | None,
    seed: int,
    events: Iterable[Any],
) -> tuple[Any, list[ReplayStep]]:
    """Set a game up and apply each event in turn; refused events change nothing.

    Returns the final state and one ``ReplayStep`` per event. ``setup`` errors
    (``SetupError``) propagate: without a game there is nothing to replay.
    """
    state = game.setup(seats, dict(options or {}), seed)
    steps = []
    for event in events:
        try:
            state = game.apply(state, event)
        except IllegalEvent as exc:
            steps.append(ReplayStep(event, False, str(exc)))
        else:
            steps.append(ReplayStep(event, True))
    return state, steps
