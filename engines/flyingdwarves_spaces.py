"""What the spaces of Flying Dwarves do: a disc landing on a mine, a treasure, the
wasteland or a lot; cubes placed on lots; the goal; the scoring at the end."""
from __future__ import annotations

from engines.core import replace, say
from engines.flyingdwarves_data import count_en, en, ja
from engines.flyingdwarves_state import State, names, set_at

GOAL_BONUS = (6, 3)
MAJORITY = {1: 1, 2: 3, 3: 5}


def land(state: State, i: int, k: int) -> tuple[State, list[tuple]]:
    """What the space ``k`` does to seat ``i`` landing on it, and the tasks it leaves."""
    kind, value = state.board[k]
    name = names(state)[i]
    if kind == "mine" and value == "?":
        return state, [("discard", i)]
    if kind == "mine":
        state = replace(state, points=set_at(state.points, i, state.points[i] + value))
        return say(state, f"{name} {en('mine')}s {count_en(value, 'point')}.", f"{name}は{value}点を採掘。"), []
    if kind == "treasure":
        return state, [("draw", i, value)]
    if kind == "wasteland":
        return _wasteland(state, i), []
    if kind == "lot":
        return _lot(state, i, k), [("invest", i, k)]
    return state, []


def _wasteland(state: State, i: int) -> State:
    hand = list(state.hands[i])
    lost = sorted((c for c in hand if c > 0), reverse=True)[:2]
    for c in lost:
        hand.remove(c)
    state = replace(state, hands=set_at(state.hands, i, tuple(hand)),
                    discards=set_at(state.discards, i, tuple(sorted(state.discards[i] + tuple(lost)))))
    name = names(state)[i]
    if not lost:
        return say(state, f"{name} discards nothing in the {en('wasteland')}.",
                   f"{name}は{ja('wasteland')}で捨てる{ja('propulsion_card')}がありません。")
    return say(state, f"{name} discards {', '.join(map(str, lost))} in the {en('wasteland')}.",
               f"{name}は{ja('wasteland')}で{'、'.join(map(str, lost))}を捨てます。")


def _lot(state: State, i: int, k: int) -> State:
    """A developed lot: its owner scores every cube on it; anyone else pays each owner."""
    counts = state.cubes[k]
    name = names(state)[i]
    points = list(state.points)
    if counts[i]:
        points[i] += sum(counts)
        return say(replace(state, points=tuple(points)), f"{name} scores {sum(counts)} on a {en('lot')} of theirs.",
                   f"{name}は自分の{ja('developed_lot')}で{sum(counts)}点。")
    if not sum(counts):
        return state
    for j, c in enumerate(counts):
        points[i] -= c
        points[j] += c
    return say(replace(state, points=tuple(points)), f"{name} pays the {en('lot')}'s owners {sum(counts)}.",
               f"{name}は{ja('developed_lot')}の所有者に{sum(counts)}点を払います。")


def goal(state: State, i: int) -> State:
    """Seat ``i`` at the goal (two laps) for the first time: arrival bonus +6, +3, then 0."""
    if state.p[i] < 2 * len(state.board) or i in state.finished:
        return state
    k = len(state.finished)
    bonus = GOAL_BONUS[k] if k < len(GOAL_BONUS) else 0
    name = names(state)[i]
    state = replace(state, finished=state.finished + (i,), points=set_at(state.points, i, state.points[i] + bonus))
    return say(state, f"{name} reaches the {en('goal')}, arrival {k + 1}: +{bonus} {en('points')}.",
               f"{name}が{ja('goal')}（{k + 1}着）: {bonus}点。")


def final_parts(state: State) -> list[tuple[int, int]]:
    """(distance penalty, lot majority points) per seat, as the end would score them now."""
    n, L = len(state.seats), len(state.board)
    out = []
    for i in range(n):
        pen = 0
        if i not in state.finished:
            d = 2 * L - state.p[i]
            if d > 5:
                pen = 3 * -(-(d - 5) // 5)
        maj = 0
        for counts in state.cubes:
            best = max(counts)
            if best and counts[i] == best and counts.count(best) == 1:
                maj += MAJORITY[min(sum(counts), 3)]
        out.append((pen, maj))
    return out


def game_over(state: State) -> State:
    """The end: distance penalties and lot majorities scored, the best totals win."""
    parts = final_parts(state)
    totals = [pt - pen + maj for pt, (pen, maj) in zip(state.points, parts)]
    best = max(totals)
    winners = tuple(i for i, t in enumerate(totals) if t == best)
    seats = names(state)
    state = replace(state, phase="over", final=tuple(parts), points=tuple(totals), winners=winners, mover=None)
    for i, (pen, maj) in enumerate(parts):
        penalty = f"-{pen}" if pen else "0"
        state = say(state, f"{seats[i]}: {en('distance_penalty')} {penalty}, {en('majority')} +{maj}, total {totals[i]}.",
                    f"{seats[i]}: {ja('distance_penalty')} {penalty}、{ja('majority')} +{maj}、合計{totals[i]}点。")
    return say(state, f"The game is over; {', '.join(seats[i] for i in winners)} "
               f"{'wins' if len(winners) == 1 else 'share the win'}.",
               f"ゲーム終了。勝者: {'・'.join(seats[i] for i in winners)}。")


def add_cube(state: State, i: int, k: int) -> State:
    """One more cube of seat ``i`` on the lot at space ``k``."""
    return replace(state, cubes=set_at(state.cubes, k, set_at(state.cubes[k], i, state.cubes[k][i] + 1)))


def place(state: State, i: int, k: int) -> State:
    """One of seat ``i``'s supply cubes onto the lot at space ``k``."""
    return add_cube(replace(state, supply=set_at(state.supply, i, state.supply[i] - 1)), i, k)
