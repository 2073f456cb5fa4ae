"""Where the page draws the Ari Express (アリ急行) network: nests and squares as points.

Both functions take the nest colours and the tapes (``(faces, from, to)``, in the order they
were built, each end a nest name, a square name of an earlier tape or None) and nothing of
the rules.

- ``board``: every nest and square in a cell of its own on a square grid (no two overlap,
  however many tapes are laid), nests on a circle, a colour's two nests facing each other;
  a tape's squares take the free cells nearest to the curve between its ends. Drawn by
  ``pi/web/templates/games/ariexpress.html``.
- ``drawing``: the older layout in a 100 x 100 box, where squares may overlap; the view
  keeps it unchanged for the pages and scripts that read it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

Tape = tuple[tuple[int, ...], "str | None", "str | None"]

#: The side of one grid cell in the board's units; a page draws a square 4.8 wide in it.
CELL = 6


def square_name(tape: int, k: int) -> str:
    """Square ``k`` (0-based) of tape ``tape`` (0-based) as scripts write it: ``t1.1``."""
    return f"t{tape + 1}.{k + 1}"


def _curve(p: tuple[float, float] | None, q: tuple[float, float] | None, n: int, t: int,
           centre: float, radius: float, step: float, bow: float) -> list[tuple[float, float]]:
    """``n`` points for tape ``t`` between its ends ``p`` and ``q`` (None: loose): on a
    curve bowed by the tape's number (in steps of ``bow``) when both are joined, else
    ``step`` apart from the joined end toward the centre (a tape loose at both ends starts
    ``radius`` from the centre)."""
    if p is None and q is None:
        a = math.radians(t * 67)
        p = (centre + radius * math.cos(a), centre + radius * math.sin(a))
    if p is not None and q is not None:
        bow = ((t % 5) - 2) * bow
        mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
        dx, dy = q[0] - p[0], q[1] - p[1]
        norm = math.hypot(dx, dy) or 1.0
        cx, cy = mx - dy / norm * bow, my + dx / norm * bow
        points = []
        for k in range(n):
            u = (k + 1) / (n + 1)
            points.append(((1 - u) ** 2 * p[0] + 2 * u * (1 - u) * cx + u * u * q[0],
                           (1 - u) ** 2 * p[1] + 2 * u * (1 - u) * cy + u * u * q[1]))
        return points
    base = p if p is not None else q
    assert base is not None
    a = math.atan2(centre - base[1], centre - base[0]) + math.radians(((t % 7) - 3) * 20)
    line = [(base[0] + step * (k + 1) * math.cos(a), base[1] + step * (k + 1) * math.sin(a)) for k in range(n)]
    return line if p is not None else line[::-1]


def _nest_points(nests: Sequence[str], centre: float, radius: float) -> dict[str, tuple[float, float]]:
    """The nests on a circle, a colour's two nests facing each other."""
    at = {}
    for c, colour in enumerate(nests):
        for k in (0, 1):
            a = math.radians(c * 45 + k * 180 - 90)
            at[f"{colour}-{k + 1}"] = (centre + radius * math.cos(a), centre + radius * math.sin(a))
    return at


def drawing(nests: Sequence[str], tapes: Sequence[Tape], edges: list[list[str]]) -> dict[str, Any]:
    """The older layout: nests and squares in a 100 x 100 box (squares clamped to its
    edge, so they may overlap), and ``edges``."""
    at = _nest_points(nests, 50, 44)
    for t, (faces, start, end) in enumerate(tapes):
        p = at.get(start) if start is not None else None
        q = at.get(end) if end is not None else None
        points = _curve(p, q, len(faces), t, 50, 18, min(7.0, 40.0 / len(faces)), 8.0)
        for k, (x, y) in enumerate(points):
            at[square_name(t, k)] = (min(97.0, max(3.0, x)), min(97.0, max(3.0, y)))
    return {"at": {n: [round(x, 1), round(y, 1)] for n, (x, y) in at.items()}, "edges": edges}


def board(nests: Sequence[str], tapes: Sequence[Tape]) -> dict[str, Any]:
    """``{"size": side, "at": {name: [x, y]}}``: the centre of the grid cell of every nest
    and square, no two in one cell, in a ``side`` x ``side`` box."""
    side, at = _board(tuple(nests), tuple(tapes))
    return {"size": side, "at": {n: list(xy) for n, xy in at}}


@lru_cache(maxsize=16)
def _board(nests: tuple[str, ...], tapes: tuple[Tape, ...]) -> tuple[int, tuple[tuple[str, tuple[int, int]], ...]]:
    count = len(nests) * 2 + sum(len(faces) for faces, _, _ in tapes)
    cells = max(15, math.isqrt(3 * count) + 3)  # at most a third of the cells taken
    centre = (cells - 1) / 2
    taken: set[tuple[int, int]] = set()
    cell: dict[str, tuple[int, int]] = {}
    for name, point in _nest_points(nests, centre, centre - 1).items():  # a cell in from the edge
        cell[name] = _free_cell(point, taken, cells)
    for t, (faces, start, end) in enumerate(tapes):
        p = cell.get(start) if start is not None else None
        q = cell.get(end) if end is not None else None
        for k, point in enumerate(_curve(p, q, len(faces), t, centre, cells / 5, 1.0, cells * 0.08)):
            cell[square_name(t, k)] = _free_cell(point, taken, cells)
    return cells * CELL, tuple((n, (col * CELL + CELL // 2, row * CELL + CELL // 2)) for n, (col, row) in cell.items())


def _free_cell(point: tuple[float, float], taken: set[tuple[int, int]], cells: int) -> tuple[int, int]:
    """The free cell nearest to ``point`` (ring by ring around it), now taken."""
    x = min(cells - 1.0, max(0.0, point[0]))
    y = min(cells - 1.0, max(0.0, point[1]))
    for r in range(cells):
        free = [c for c in _ring(round(x), round(y), r) if 0 <= c[0] < cells and 0 <= c[1] < cells and c not in taken]
        if free:
            best = min(free, key=lambda c: ((c[0] - x) ** 2 + (c[1] - y) ** 2, c))
            taken.add(best)
            return best
    raise AssertionError("a third of the cells or fewer are taken: one is always free")


def _ring(x: int, y: int, r: int) -> list[tuple[int, int]]:
    """The cells ``r`` cells away from (x, y), rows and columns alike."""
    if r == 0:
        return [(x, y)]
    rows = [(x + d, y + e) for e in (-r, r) for d in range(-r, r + 1)]
    return rows + [(x + e, y + d) for e in (-r, r) for d in range(1 - r, r)]
