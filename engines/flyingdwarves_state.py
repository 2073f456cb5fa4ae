"""The state of a game of Flying Dwarves, and the questions the rules and the pages ask of it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import EMPTY, Chain, Rng, Seat
from engines.flyingdwarves_data import Space

SUPPLY = 4


@dataclass(frozen=True)
class State:
    """A game of Flying Dwarves. Seat-indexed tuples follow ``seats``; ``p`` is spaces moved.

    ``tasks`` is what is still to be done, first first (a seat's turn, a draw, an offer to
    invest, ...); ``events`` and ``log`` are chains, so that applying an event costs the same
    however long the game has been going."""

    seats: tuple[Seat, ...]
    board: tuple[Space, ...]
    item_cards: tuple[str, ...]
    deck_mode: str
    rng: Rng
    events: Chain = EMPTY
    log: Chain = EMPTY
    phase: str = "handicap"
    round: int = 0
    order: tuple[int, ...] = ()
    mover: int | None = None
    tasks: tuple[tuple, ...] = ()
    handicaps_left: tuple[str, ...] = ()
    handicaps: tuple[str | None, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    discards: tuple[tuple[int, ...], ...] = ()
    chosen: tuple[int | None, ...] = ()
    played: tuple[int | None, ...] = ()
    p: tuple[int, ...] = ()
    moved: tuple[bool, ...] = ()
    points: tuple[int, ...] = ()
    supply: tuple[int, ...] = ()
    start_cube: tuple[bool, ...] = ()
    offered: tuple[bool, ...] = ()
    cubes: tuple[tuple[int, ...], ...] = ()  # per space, cubes per seat
    items: tuple[tuple[str, ...], ...] = ()
    deck: tuple[str, ...] = ()
    used: tuple[str, ...] = ()
    finished: tuple[int, ...] = ()
    ex_played: tuple[tuple[int, str], ...] = ()
    ex_done: bool = False
    priority: int | None = None
    passes: int = 0
    modifier: int = 0
    final: tuple[tuple[int, int], ...] = ()  # (penalty, majority) per seat once over
    winners: tuple[int, ...] = ()


def set_at(values: tuple, i: int, value: Any) -> tuple:
    """``values`` with item ``i`` replaced."""
    return values[:i] + (value,) + values[i + 1:]


def names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def top_card_for(n: int) -> int:
    """The highest propulsion card with ``n`` seats: 5 with 5 seats, else 4."""
    return 5 if n == 5 else 4


def top_card(state: State) -> int:
    return top_card_for(len(state.seats))


def cap(state: State) -> int:
    """Cubes a lot holds at most: 2 with 3 seats, else 3."""
    return 2 if len(state.seats) == 3 else 3


def lots_with_room(state: State) -> list[int]:
    c = cap(state)
    return [k for k, s in enumerate(state.board) if s[0] == "lot" and sum(state.cubes[k]) < c]


def task_seat(state: State) -> int:
    """The seat of the task the game waits on (a handicap, a draw, a discard, ...)."""
    return state.tasks[0][1]


def draw_due(state: State, n: int) -> int:
    """Item cards a draw of ``n`` takes: fewer when the deck and the used pile run out."""
    return min(n, len(state.deck) + len(state.used))


def swap_candidates(state: State) -> list[int]:
    """Unfinished seats with the least progress above the mover's."""
    m = state.mover
    above = [j for j in range(len(state.seats)) if j != m and j not in state.finished and state.p[j] > state.p[m]]
    if not above:
        return []
    least = min(state.p[j] for j in above)
    return [j for j in above if state.p[j] == least]
