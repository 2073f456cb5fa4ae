"""Seeded random Chiritsumo games through the one playout driver (``engines.playout.play``):
2,000 garden games (2-4 seats) and 2,000 solo games, events chosen from ``expects`` (the
throws' dice and the pyramids' layouts by this test, from the dice each input names), with
illegal events mixed in.

After every accepted event: dice are conserved (every seat's held dice plus the dust pile,
or plus the solo reserve, stay the same per colour, and every seat holds 10); each build
scores what an independent scorer written from docs/rules/chiritsumo.md says; totals grow by the round
scores exactly when a round ends (solo: at each build); scores never fall. Every game ends
and its winners follow the rules; every refusal met says why in English and in real
Japanese; for every third game ``core.replay`` of the event list rebuilds the final state
exactly (all of them would double the time).
"""
from __future__ import annotations

import math
import random
import re

from engines import chiritsumo as chiri
from engines.playout import GENERIC, Playout, play

GAMES = 2000
MAX_EVENTS = 1500
NAMES = ["Aki", "Ben", "Cy", "Dee"]
COLOURS = ["red", "blue", "green", "yellow"]
DICE_COLOURS = ("clear", "yellow", "red", "blue")
SIZES = (4, 3, 2, 1)
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


PLACES = [(r, i) for r in range(4) for i in range(SIZES[r])]


def _lines(shape) -> list[list[tuple[int, int]]]:
    out = []
    for r, i in PLACES:
        line = shape(r, i)
        if all(p in PLACES for p in line):
            out.append(line)
    return out


#: From the rule text: mountain (r,i) (r-1,i) (r-1,i+1); river along a row or either
#: diagonal; wing (r,i) (r,i+1) (r-1,i+1).
MOUNTAINS = _lines(lambda r, i: [(r, i), (r - 1, i), (r - 1, i + 1)])
RIVERS = (_lines(lambda r, i: [(r, i), (r, i + 1), (r, i + 2)]) + _lines(lambda r, i: [(r, i), (r + 1, i), (r + 2, i)])
          + _lines(lambda r, i: [(r, i), (r + 1, i - 1), (r + 2, i - 2)]))
WINGS = _lines(lambda r, i: [(r, i), (r, i + 1), (r - 1, i + 1)])
assert (len(MOUNTAINS), len(RIVERS), len(WINGS)) == (6, 9, 3)


def ref_score(rows) -> tuple[int, bool, bool]:
    """(points, complete, fuji) of a layout, straight from the rule text."""
    cell = {(r, i): rows[r][i] for r, i in PLACES}

    def same(line) -> bool:
        a, b, c = (cell[p] for p in line)
        return bool(a and b and c) and a[0] == b[0] == c[0] != "clear"

    mountains = sum(map(same, MOUNTAINS))
    rivers = sum(map(same, RIVERS))
    wings = sum(map(same, WINGS))
    complete = all(cell.values())
    fuji = (
        complete
        and cell[(3, 0)][0] == "clear"
        and same([(0, 0), (0, 1), (1, 0)])
        and same([(0, 2), (0, 3), (1, 2)])
        and same([(1, 1), (2, 0), (2, 1)])
        and len({cell[(0, 0)][0], cell[(0, 2)][0], cell[(1, 1)][0]}) == 3
    )
    tri = lambda k: k * (k + 1) // 2  # noqa: E731
    points = tri(mountains) + tri(rivers) + (0, 2, 5, 10)[wings] + (3 * cell[(3, 0)][1] if complete else 0) + (30 if fuji else 0)
    return points, complete, fuji


def random_throw(inp: dict, rng: random.Random) -> list:
    """All the dice the throw input asks for, faces alike, neighbours or anything."""
    base = rng.randint(1, 5)
    style = rng.random()
    dice = []
    for spec in inp["dice"]:
        for _ in range(spec["count"]):
            if style < 0.35:
                face = base  # all alike: any layout is legal
            elif style < 0.7:
                face = base + rng.randint(0, 1)  # two faces side by side: usually a complete pyramid
            else:
                face = rng.randint(1, 6)
            dice.append([spec["colour"], face])
    rng.shuffle(dice)
    return dice


def random_layout(throw: list, rng: random.Random, grouped: float = 0.3) -> list:
    """A legal layout of some of ``throw``: places filled bottom-up with dice that fit
    (highest faces first, colours grouped with probability ``grouped``: more patterns)."""
    roll = rng.random()
    if roll < grouped:
        order = sorted(throw, key=lambda d: (-d[1], d[0]))
    elif roll < 0.7:
        order = sorted(throw, key=lambda d: -d[1])
    else:
        order = rng.sample(throw, len(throw))
    left = list(order)
    rows = [[None] * n for n in SIZES]
    skip = rng.choice([0.0, 0.0, 0.1, 0.3])
    for r in range(4):
        for i in range(SIZES[r]):
            if rng.random() < skip:
                continue
            fits = []
            for d in left:
                if i > 0 and rows[r][i - 1] is not None and abs(rows[r][i - 1][1] - d[1]) > 1:
                    continue
                if r > 0:
                    a, b = rows[r - 1][i], rows[r - 1][i + 1]
                    if a is None or b is None or d[1] > min(a[1], b[1]):
                        continue
                fits.append(d)
            if fits:
                # prefer the first that fits (highest face first keeps the rows able to grow)
                d = fits[0] if rng.random() < 0.8 else rng.choice(fits)
                left.remove(d)
                rows[r][i] = d
    return rows


def illegal_event(rng: random.Random, state: chiri.State) -> dict:
    """An event the rules must refuse in this state, whatever the seed: out of turn, of the
    wrong shape, or with bad input (no number where a face goes, too many dice, long names)."""
    names = [s.name for s in state.seats]
    exp = chiri.expects(state)
    empty = [[None] * n for n in SIZES]
    choices: list[dict] = [
        {"type": "throw", "seat": "Nobody", "dice": []},
        {"type": "throw", "seat": "x" * 100_000, "dice": []},
        {"type": "dance", "seat": names[0]},
        {"type": "build", "seat": names[0]},
        {"type": "build", "seat": names[0], "rows": "x" * 100_000},
        {"type": "exchange", "seat": names[0], "with": ["x"] * 100_000, "give": "red", "take": "blue"},
    ]
    throwing = {s for i in exp["inputs"] if i["type"] == "throw" for s in i["seats"]}
    building = {s for i in exp["inputs"] if i["type"] == "build" for s in i["seats"]}
    for name in names:
        if name not in throwing:  # thrown already this round, or not the time to throw
            choices.append({"type": "throw", "seat": name, "dice": [["red", 3]] * 3})
        if name not in building:
            choices.append({"type": "build", "seat": name, "rows": empty})
    for inp in exp["inputs"]:
        seat = inp["seats"][0]
        if inp["type"] == "throw":
            good = random_throw(inp, rng)
            choices.append({"type": "throw", "seat": seat, "dice": good[:-1]})
            choices.append({"type": "throw", "seat": seat, "dice": good + [["clear", 2]]})
            choices.append({"type": "throw", "seat": seat, "dice": [[c, 7] for c, _ in good]})
            choices.append({"type": "throw", "seat": seat, "dice": [[c, rng.choice([math.nan, math.inf, 3.0, "3", True])]
                                                                     for c, _ in good]})
            choices.append({"type": "throw", "seat": seat, "dice": good * 100})
        elif inp["type"] == "build":
            throw = [[d["colour"], d["face"]] for d in inp["fields"][0]["dice"]]
            rows = random_layout(throw, rng)
            extra = rows[0][:3] + [throw[0]] if rows[0][0] is not None else None
            if extra is not None and sum(1 for d in (extra + [d for row in rows[1:] for d in row]) if d == throw[0]) > throw.count(throw[0]):
                choices.append({"type": "build", "seat": seat, "rows": [extra] + rows[1:]})
            low = min(d[1] for d in throw)
            high = max(d[1] for d in throw)
            if high - low >= 2:  # side by side differing by 2+
                a = next(d for d in throw if d[1] == low)
                b = next(d for d in throw if d[1] == high)
                choices.append({"type": "build", "seat": seat, "rows": [[a, b, None, None]] + empty[1:]})
            choices.append({"type": "build", "seat": seat, "rows": [[None] * 4, [throw[0], None, None], [None] * 2, [None]]})
            choices.append({"type": "build", "seat": seat, "rows": rows[:3]})
            choices.append({"type": "build", "seat": seat, "rows": [[[throw[0][0], math.nan]] + empty[0][1:]] + empty[1:]})
            choices.append({"type": "build", "seat": seat, "rows": [row * 1000 for row in rows]})
        elif inp["type"] == "exchange":
            choices.append({"type": "exchange", "seat": seat, "with": seat, "give": "red", "take": "blue"})
            choices.append({"type": "exchange", "seat": seat, "with": "dust" if state.dust is None else names[0] if seat != names[0] else names[1],
                            "give": "red", "take": "red"})
            choices.append({"type": "exchange", "seat": seat, "with": "Nobody", "give": "red", "take": "blue"})
            choices.append({"type": "exchange", "seat": seat, "with": "dust", "give": ["red"] * 100_000, "take": "blue"})
            if state.last_exchanger is not None:
                choices.append({"type": "exchange", "seat": seat, "with": names[state.last_exchanger], "give": "red", "take": "blue"})
            others = [n for n in names if n != seat]
            choices.append({"type": "pass", "seat": rng.choice(others)})
            choices.append({"type": "swap", "seat": seat, "give": "red"})
        elif inp["type"] == "swap":
            choices.append({"type": "swap", "seat": seat, "give": "clear"})
            choices.append({"type": "swap", "seat": seat, "give": math.nan})
            choices.append({"type": "pass", "seat": seat})
            choices.append({"type": "throw", "seat": seat, "dice": [["clear", 3]]})
    if state.phase == "over":
        choices.append({"type": "pass", "seat": names[0]})
    return rng.choice(choices)


def totals(state: chiri.State) -> tuple[int, ...]:
    """Garden: the dice per colour of all seats and the pile; solo: clear dice held or in
    reserve, and dice held (each swap sends one coloured die back to the box)."""
    if state.mode == "solo":
        return (state.held[0][0] + state.reserve, sum(state.held[0]))
    per_colour = [sum(h[k] for h in state.held) for k in range(4)]
    if state.dust is not None:
        per_colour = [n + d for n, d in zip(per_colour, state.dust)]
    per_colour[0] += state.reserve
    return tuple(per_colour)


def value_for(grouped: float):
    """The game's values the driver cannot choose: a throw's dice and a pyramid's layout
    (of the dice the build field names; colours grouped with probability ``grouped``)."""

    def value(rng: random.Random, state, inp: dict, seat, fld: dict):
        if fld["kind"] == "dice":
            return random_throw(inp, rng)
        if fld["kind"] == "layout":
            return random_layout([[d["colour"], d["face"]] for d in fld["dice"]], rng, grouped)
        return GENERIC

    return value


def check(before: chiri.State, event: dict, after: chiri.State) -> None:
    """The invariants of one accepted event (see the module's docstring)."""
    assert totals(after) == totals(before)
    assert all(sum(h) == 10 for h in after.held)
    assert all(n >= 0 for h in after.held for n in h) and (after.dust is None or min(after.dust) >= 0)
    points = 0
    if event["type"] == "build":
        i = [s.name for s in after.seats].index(event["seat"])
        points, complete, fuji = ref_score(event["rows"])
        assert (after.points[i], after.complete[i], after.fuji[i]) == (points, complete, fuji)
    if after.mode == "solo":
        assert after.scores[0] == before.scores[0] + points
    else:
        if event["type"] == "build" and (after.phase != "play" or after.round != before.round):
            assert after.round_scores == tuple(after.points)  # every pyramid scored after the last build
        round_over = after.round != before.round or after.ended_by == "total"
        added = after.round_scores if round_over else (0,) * len(after.seats)
        assert after.scores == tuple(t + p for t, p in zip(before.scores, added))
    assert all(a >= b for a, b in zip(after.scores, before.scores))


def check_refusals(game: Playout) -> None:
    """Every refusal met says why in English and in Japanese (real Japanese, not a copy)."""
    for event, exc in game.refusals:
        assert exc.en and exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (event, exc.en, exc.ja)


def played(mode: str, players: int, seed: int, check_replay: bool = True) -> Playout:
    grouped = random.Random(seed).choice([0.1, 0.5, 0.7])  # how often a build groups its colours: short or long games
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
    game = play(chiri, seats, {"mode": mode}, seed, value=value_for(grouped), illegal=illegal_event, check=check,
                illegal_rate=0.12, max_steps=MAX_EVENTS, check_replay=check_replay)
    check_end(game.state)
    check_refusals(game)
    return game


def check_end(state: chiri.State) -> None:
    names = [s.name for s in state.seats]
    winners = list(state.winners)
    assert chiri.expects(state) == {"phase": "over", "inputs": [], "winners": [names[i] for i in winners]}
    if state.mode == "solo":
        assert state.held[0][0] == 4 and state.reserve == 0
        assert state.rank == chiri.rank_of(state.scores[0])
        assert winners == ([0] if state.scores[0] >= 15 else [])
        return
    if state.ended_by == "total":
        best = max(state.scores)
        assert best > 30 and winners == [i for i, s in enumerate(state.scores) if s == best]
    elif state.ended_by == "chiritsumo":
        assert len(winners) == 1 and state.held[winners[0]][0] == 4
    else:
        assert state.ended_by == "fuji" and winners
        assert all(ref_score([[None if d is None else [d.colour, d.face] for d in row] for row in state.pyramids[i]])[2] for i in winners)




def test_garden_playouts():
    ends = {"total": 0, "fuji": 0, "chiritsumo": 0}
    refused = 0
    for seed in range(GAMES):
        game = played("garden", 2 + seed % 3, seed, check_replay=seed % 3 == 0)
        ends[game.state.ended_by] += 1
        refused += len(game.refusals)
    assert ends["total"] > GAMES // 2 and ends["chiritsumo"] > 0 and ends["fuji"] >= 0
    assert refused > GAMES


def test_solo_playouts():
    ranks = set()
    for seed in range(GAMES):
        ranks.add(played("solo", 1, 10_000 + seed, check_replay=seed % 3 == 0).state.rank)
    assert {"none", "dust_heap", "hill"} <= ranks


def test_a_view_of_a_finished_game_is_complete():
    view = chiri.view(played("garden", 3, 5).state)
    assert view["phase"] == "over" and view["winners"]
    for seat in view["pyramids"].values():
        if seat["rows"] is not None:
            assert seat["best"]["total"] >= seat["points"]
