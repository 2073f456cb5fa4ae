"""Dice laid flat in rows (a Chiritsumo pyramid): which die sits on which place.

``place_rows(dice, rows=(4, 3, 2, 1))`` takes the dice of one settled roll (anything with a
``box``) laid out as a brick-bond pyramid: row 0 at the bottom of the picture with
``rows[0]`` places, each row above shifted by half a die. The layout may lie anywhere on the
tray and be turned by up to about 40°. It returns, for each row, a list of places holding
the index of the die on it or None (an empty place), or raises ``LayoutError`` saying why
the dice do not form such rows (two dice on one place, a die off every place).

How: the dice's nearest neighbours give the pitch; the row direction is the angle (within
±45°) at which the dice centres fall into straight bands whose dice are a whole number of
pitches apart; bands are rows, counted from the
bottom of the picture; along the rows the places of row r sit at ``x0 + (i + r/2) * pitch``,
and ``x0`` is the one offset (tried from every die) that puts the most dice on a place.

Limits: without a full bottom row nothing says where the places start, so the dice are
placed from the left (the same layout relative to each other); without two dice side by
side the distance between places is guessed from the dice's size.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


class LayoutError(ValueError):
    """The dice do not lie in the expected rows; the message says what is wrong."""


@dataclass(frozen=True)
class Placement:
    rows: list[list[int | None]]  # per row, bottom first: the die index on each place
    angle_deg: float
    pitch: float


def _centres(dice: Sequence[Any]) -> np.ndarray:
    boxes = np.array([getattr(d, "box", d) for d in dice], dtype=float).reshape(-1, 4)
    return np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1), boxes


def _bands(values: np.ndarray, gap: float) -> list[list[int]]:
    order = np.argsort(values)
    bands: list[list[int]] = [[int(order[0])]]
    for a, b in zip(order[:-1], order[1:]):
        if values[b] - values[a] > gap:
            bands.append([])
        bands[-1].append(int(b))
    return bands


def place_rows(dice: Sequence[Any], rows: Sequence[int] = (4, 3, 2, 1)) -> Placement:
    if not dice:
        raise LayoutError("no dice are on the tray")
    centres, boxes = _centres(dice)
    size = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    if len(dice) > 1:
        d = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
        np.fill_diagonal(d, np.inf)
        nearest = d.min(axis=1)
        close = nearest[nearest < 2.0 * size]
        # Side by side in a row is the closest a die's neighbour can be (a die of the next
        # row is 1.12 pitches away): the lower quartile of the nearest distances.
        pitch = float(np.percentile(close, 25)) if close.size else 1.1 * size  # dice lie a little apart
        pitch = max(pitch, size * 0.9)
    else:
        pitch = size
    best = None
    for step in range(-45, 46):
        theta = math.radians(step)
        c, s = math.cos(theta), math.sin(theta)
        along = centres[:, 0] * c + centres[:, 1] * s  # along the rows
        across = -centres[:, 0] * s + centres[:, 1] * c  # down the picture
        bands = _bands(across, 0.45 * pitch)
        if len(bands) > len(rows):
            continue
        # Rows are straight (no spread across them) and their dice sit a whole number of
        # pitches apart (a brick pyramid's diagonals are straight too, but 1.12 pitches apart).
        cost = sum(float(np.ptp(across[b])) for b in bands)
        for band in bands:
            xs = np.sort(along[band])
            gaps = np.diff(xs) / pitch
            cost += float(np.sum(np.abs(gaps - np.round(gaps)))) * pitch
        cost += 0.002 * abs(step) * pitch  # a moderate turn is likelier than a steep one
        cost += 0.25 * pitch * len(bands)  # and as few rows as the dice allow
        if best is None or cost < best[0]:
            best = (cost, step, along, across, bands)
    if best is None:
        raise LayoutError(f"the dice do not lie in {len(rows)} rows or fewer")
    _, step, along, across, bands = best
    gaps = [g for band in bands for g in np.diff(np.sort(along[band])) if g > 0.5 * pitch]
    if gaps:  # the pitch again, from the rows found: gaps of whole numbers of places
        pitch = float(np.median([g / max(1, round(g / pitch)) for g in gaps]))
    bands.sort(key=lambda b: -float(np.mean(across[b])))  # the bottom row first
    row_of = {i: r for r, band in enumerate(bands) for i in band}
    # The offset of the bottom-left place: tried from every die on every place of its row.
    best_fit = None
    for i, r in row_of.items():
        for slot in range(rows[r]):
            x0 = along[i] - (slot + r / 2.0) * pitch
            placed: dict[tuple[int, int], int] = {}
            off = 0
            clash = False
            for j, rj in row_of.items():
                u = (along[j] - x0) / pitch - rj / 2.0
                k = int(round(u))
                if abs(u - k) > 0.35 or not 0 <= k < rows[rj]:
                    off += 1
                    continue
                if (rj, k) in placed:
                    clash = True
                placed[(rj, k)] = j
            key = (off, clash, sum(k for _, k in placed))  # ties: the leftmost places
            if best_fit is None or key < best_fit[0]:
                best_fit = (key, placed)
    (off, clash, _), placed = best_fit
    if off:
        raise LayoutError(f"{off} {'die lies' if off == 1 else 'dice lie'} off the places of the rows; "
                          "lay the dice in straight rows, each row half a die in from the one below")
    if clash:
        raise LayoutError("two dice lie on one place; move them apart")
    out: list[list[int | None]] = [[None] * n for n in rows]
    for (r, k), j in placed.items():
        out[r][k] = j
    return Placement(out, float(step), pitch)
