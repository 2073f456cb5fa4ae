"""Ari Express (アリ急行): the state of a game and what it reads off the table's network:
squares, completion, runs and scores (``engines/ariexpress_routes.py`` finds the runs
exactly). The rules that change the state are in ``engines/ariexpress.py``."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engines import ariexpress_routes as routes
from engines.ariexpress_board import square_name
from engines.core import EMPTY, MAX_NAME, Chain, Seat, ascii_int


# --- state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A game of Ari Express. Seat-indexed tuples follow ``seats``."""

    seats: tuple[Seat, ...]
    options: str  # the options as given, JSON text
    seed: int
    nests: tuple[str, ...]  # the 4 colours, in order
    tapes: tuple[tuple[tuple[int, ...], str | None, str | None], ...] = ()  # (faces, from, to)
    owners: tuple[tuple[int, ...], ...] = ()  # per tape, per square: seat index or -1
    phase: str = "throw"  # throw, keep, turn, others, over
    turn: int = 0  # the turn player
    due: int | None = 0  # the seat that acts next
    thrown: tuple[int, ...] = ()  # the turn's throw (faces)
    kept: tuple[int, ...] = ()  # the turn player's kept dice not spent yet
    handed: tuple[int, ...] = ()  # dice handed on, not taken yet
    complete: tuple[str, ...] = ()  # complete colours, in nests order
    winners: tuple[int, ...] = ()
    events: Chain = EMPTY
    log: Chain = EMPTY


# --- the network -------------------------------------------------------------------------


def dice_count(state: State) -> int:
    """Dice the next throw holds: players + 1, +1 per complete colour, at most players + 3."""
    n = len(state.seats)
    return min(n + 1 + len(state.complete), n + 3)


def nest_names(state: State) -> list[str]:
    return [f"{c}-{k}" for c in state.nests for k in (1, 2)]


def squares(state: State) -> list[tuple[str, int, int | None]]:
    """Every square: (name, printed face, seat index or None)."""
    return [(square_name(t, k), face, None if state.owners[t][k] < 0 else state.owners[t][k])
            for t, (faces, _, _) in enumerate(state.tapes) for k, face in enumerate(faces)]


def square_at(state: State, name: Any) -> tuple[int, int] | None:
    """(tape, index) of a square name like ``t2.3``; None when there is no such square.
    Only the name as ``square_name`` writes it counts: ASCII digits, no leading zero."""
    if not isinstance(name, str) or len(name) > MAX_NAME or not name.startswith("t"):
        return None
    tape, _, k = name[1:].partition(".")
    t, i = ascii_int(tape), ascii_int(k)
    if t is None or i is None or not (0 < t <= len(state.tapes) and 0 < i <= len(state.tapes[t - 1][0])):
        return None
    return (t - 1, i - 1) if square_name(t - 1, i - 1) == name else None


def open_squares(state: State, face: int) -> list[str]:
    """The empty squares showing ``face``."""
    return [square_name(t, k) for t, (faces, _, _) in enumerate(state.tapes) for k, f in enumerate(faces)
            if f == face and state.owners[t][k] < 0]


@lru_cache(maxsize=8)
def _network(nests: tuple[str, ...], tapes: tuple[Any, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[str, ...]]:
    """Adjacency over nodes (0-7 the nests, colour c at 2c and 2c + 1; then every square)
    and the node names; it changes only when a tape is built."""
    names = [f"{c}-{k}" for c in nests for k in (1, 2)]
    node = {n: i for i, n in enumerate(names)}
    for t, (faces, _, _) in enumerate(tapes):
        for k in range(len(faces)):
            node[square_name(t, k)] = len(names)
            names.append(square_name(t, k))
    adj: list[set[int]] = [set() for _ in names]

    def join(a: int, b: int) -> None:
        adj[a].add(b)
        adj[b].add(a)

    for t, (faces, start, end) in enumerate(tapes):
        first = node[square_name(t, 0)]
        for k in range(1, len(faces)):
            join(first + k - 1, first + k)
        if start is not None:
            join(node[start], first)
        if end is not None:
            join(node[end], first + len(faces) - 1)
    return tuple(tuple(sorted(a)) for a in adj), tuple(names)


def graph(state: State) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[str, ...]]:
    """The network for ``ariexpress_routes``: adjacency over nodes (0-7 the nests, colour c
    at 2c and 2c + 1; then every square), owner per node (-1: nest or empty), node names."""
    adj, names = _network(state.nests, state.tapes)
    return adj, (-1,) * routes.NESTS + tuple(o for row in state.owners for o in row), names


@lru_cache(maxsize=64)
def _runs(adj: tuple[tuple[int, ...], ...], owner: tuple[int, ...], colour: int, seats: int) -> tuple[int, ...] | None:
    return routes.best_runs(adj, owner, 2 * colour, 2 * colour + 1, seats)


def complete_colours(state: State) -> tuple[str, ...]:
    adj, owner, _ = graph(state)
    return tuple(c for i, c in enumerate(state.nests) if routes.complete(adj, owner, 2 * i, 2 * i + 1))


def runs(state: State) -> dict[str, dict[str, int]]:
    """Per complete colour, each seat's longest run on any complete route of that colour."""
    adj, owner, _ = graph(state)
    names = seat_names(state)
    out = {}
    for c in state.complete:
        got = _runs(adj, owner, state.nests.index(c), len(names)) or (0,) * len(names)
        out[c] = dict(zip(names, got))
    return out


def scores(state: State) -> dict[str, int]:
    per = runs(state)
    return {name: sum(r[name] for r in per.values()) for name in seat_names(state)}


def complete_routes(state: State, limit: int = 4) -> dict[str, list[list[str]]]:
    """Per complete colour, up to ``limit`` of its complete routes (squares in order)."""
    adj, owner, names = graph(state)
    out = {}
    for c in state.complete:
        i = state.nests.index(c)
        out[c] = [[names[x] for x in path] for path in routes.routes(adj, owner, 2 * i, 2 * i + 1, limit)]
    return out


def seat_names(state: State) -> list[str]:
    return [s.name for s in state.seats]
