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
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import ModuleType
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

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
    "FACES",
    "text",
    "public",
    "Command",
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
        if self.sides == 6:
            return {"colour": self.colour, "face": self.face}
        return {"colour": self.colour, "face": self.face, "sides": self.sides}


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


#: The faces a die of each kind shows (a d10's 0 counts as 10 where the game says so).
FACES = {6: range(1, 7), 10: range(0, 10), 20: range(1, 21)}


def dice_from(raw: Any, what: str = "dice", sides: Iterable[int] = (6,)) -> tuple[Die, ...]:
    """Dice of a throw event: a list of ``{"colour": str, "face": int, "sides": 6}``, checked
    (each as `die_from` reads it)."""
    if not isinstance(raw, list):
        raise IllegalEvent(f"'{what}' must be a list of {{\"colour\": ..., \"face\": 1-6}}, saw {raw!r}")
    return tuple(die_from(item, f"die {i + 1}", sides) for i, item in enumerate(raw))


def die_from(item: Any, label: str = "die", sides: Iterable[int] = (6,)) -> Die:
    """One die, ``{"colour": str, "face": int, "sides": 6}``, checked; `label` names it in
    the error.

    ``"color"`` is read as ``"colour"``; ``"sides"`` defaults to 6 and must be one of
    ``sides`` (6, 10 or 20: a d10 shows 0-9, a d20 1-20). A die may also be written as a
    ``[colour, face]`` pair or a ``[colour, face, sides]`` triple.
    """
    allowed = tuple(sides)
    if isinstance(item, (list, tuple)) and len(item) in (2, 3):
        item = dict(zip(("colour", "face", "sides"), item))
    if not isinstance(item, Mapping):
        raise IllegalEvent(f"{label} must be {{\"colour\": ..., \"face\": 1-6}} or [colour, face], saw {item!r}")
    unknown = sorted(set(item) - {"colour", "color", "face", "sides"})
    if unknown:
        raise IllegalEvent(f"{label} has unknown key(s) {unknown}; a die has 'colour' and 'face'")
    colour, face = item.get("colour", item.get("color")), item.get("face")
    n = item.get("sides", 6)
    if not isinstance(colour, str) or not colour:
        raise IllegalEvent(f"{label} has no colour (saw {colour!r}); expected a colour name like \"red\"")
    if isinstance(n, bool) or n not in allowed:
        kinds = " or ".join(f"d{k}" for k in allowed)
        if allowed == (6,):
            raise IllegalEvent(f"{label} has {n!r} sides; this game uses six-sided dice")
        raise IllegalEvent(f"{label} has {n!r} sides; this game uses {kinds}")
    faces = FACES[n]
    if isinstance(face, bool) or not isinstance(face, int) or face not in faces:
        raise IllegalEvent(
            f"{label} ({colour}{'' if n == 6 else f' d{n}'}) shows {face!r}; "
            f"expected a face from {faces[0]} to {faces[-1]}"
        )
    return Die(colour, face, n)


def text(en: str, ja: str) -> dict[str, str]:
    """A line the pages show, in English and Japanese."""
    return {"en": en, "ja": ja}


def public(expects: Mapping[str, Any]) -> dict[str, Any]:
    """``expects`` as anyone may see it: a secret input does not say who still has to
    choose (its ``seats`` is emptied)."""
    inputs = [dict(i, seats=[]) if i.get("secret") else dict(i) for i in expects.get("inputs", [])]
    return {**expects, "inputs": inputs}


def event_text(event: Mapping[str, Any]) -> str:
    """The canonical JSON text an event is kept as in a state's event list."""
    return json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def replace(state: Any, **changes: Any) -> Any:
    """A copy of a frozen state dataclass with ``changes``, like ``dataclasses.replace``
    without re-running ``__init__`` (apply makes many of these)."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def read_toml(data_file: str, path: str | Path | None, error: type[Exception]) -> tuple[str, dict[str, Any]]:
    """(where, parsed TOML) of a game's data file: the packaged ``engines/<data_file>``
    when ``path`` is None, else the file at ``path``; ``error`` (naming the file) when it
    cannot be read or is not TOML."""
    if path is None:
        where = f"engines/{data_file}"
        raw = resources.files("engines").joinpath(data_file).read_text(encoding="utf-8")
    else:
        where = str(path)
        try:
            raw = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise error(f"{where}: cannot read the data file ({exc.strerror})") from None
    try:
        return where, tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: not valid TOML ({exc})") from None


def event_kind(event: Any, keys: Mapping[str, tuple[set[str], set[str]]]) -> str:
    """The ``"type"`` of an event whose fields fit ``keys`` (type -> (required fields,
    optional fields); ``"type"`` and ``"comment"`` always allowed); IllegalEvent naming
    what is missing or unknown otherwise."""
    if not isinstance(event, Mapping):
        raise IllegalEvent(f"an event is an object with a \"type\" ({', '.join(keys)}); saw {event!r}")
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in keys:
        raise IllegalEvent(f"unknown event type {kind!r}; expected one of {', '.join(keys)}")
    required, optional = keys[kind]
    missing = sorted(required - set(event))
    if missing:
        raise IllegalEvent(f"the {kind} event has no {', '.join(missing)}; see docs/replay.md for its fields")
    unknown = sorted(set(event) - required - optional - {"type", "comment"})
    if unknown:
        raise IllegalEvent(f"the {kind} event has unknown field(s) {unknown}; expected {sorted(required | optional)}")
    return kind


def event_list(state: Any) -> list[dict[str, Any]]:
    """The accepted events of a game, oldest first, as plain dicts."""
    return [json.loads(text) for text in state.events]


@dataclass(frozen=True)
class Command:
    """A ``dicetable`` subcommand a game offers (ALEA's ``odds``, ...); ``pi.cli`` registers
    every game's commands without knowing them.

    ``arguments`` are ``(flags, argparse keyword arguments)`` pairs. ``run(args, out,
    clock)`` writes its report to ``out`` and returns the exit status; ``clock`` (seconds,
    monotonic) is passed in for commands that time something, so engines read no clock.
    """

    name: str
    help: str
    description: str
    arguments: tuple[tuple[tuple[str, ...], Mapping[str, Any]], ...]
    run: Callable[..., int]


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
