"""An independent reading of docs/rules/alea.md, for checking the ALEA engine.

Written straight from the rule text, with none of the engine's code: ``triggers`` tries
every assignment of faces to letters, and ``referee`` plays a whole game as one loop over
rounds and groups. The random playouts compare the engine's scores and winner with it.
"""
from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence


def triggers(condition: str, faces: Sequence[int]) -> bool:
    """Whether dice showing ``faces`` trigger ``condition`` (the deck's spelling)."""
    counts = Counter(faces)

    def term(text: str) -> bool:
        text = text.strip()
        if text.startswith("total"):
            return sum(faces) >= int(text.split(">=")[1])
        if text.startswith("?"):
            listed, n = text[1:].split(">=")
            wanted = {int(x) for x in listed.strip(" ()").split(",")}
            return sum(1 for f in faces if f in wanted) >= int(n)
        if "==" in text:
            face = int(text[6])
            return counts[face] in {int(v) for v in text.split("==")[1].split("/")}
        if ">" in text:
            a, b = int(text[6]), int(text.split(">")[1].strip()[6])
            return counts[a] > counts[b]
        tokens = text.split()
        letters = sorted({t for t in tokens if t.isalpha()})
        for assignment in itertools.permutations(range(1, 7), len(letters)):
            mapping = dict(zip(letters, assignment))
            need = Counter(mapping.get(t) or int(t) for t in tokens)
            if all(counts[f] >= k for f, k in need.items()):
                return True
        return False

    return any(all(term(t) for t in alt.split(" and ")) for alt in condition.split(" or "))


def referee(seats: Sequence[str], target: int, events: Iterable[tuple]) -> tuple[dict[str, int], str]:
    """The final scores and the winner of a game.

    ``events`` are the accepted events in order: ``("declare", seat, value)`` and
    ``("throw", condition, faces)`` (the trap card's condition when the dice were thrown;
    None in the tie-break). Card events are left out.
    """
    stream = iter(events)
    n = len(seats)
    scores = [0] * n
    last = False
    while True:
        declared: dict[str, int] = {}
        while len(declared) < n:
            _, seat, value = next(stream)
            declared[seat] = value
        decl = [declared[s] for s in seats]
        mult = 2 if last else 1
        table: list[int] = []
        for k, value in enumerate(sorted({v for v in decl if v})):
            group = [i for i in range(n) if decl[i] == value]
            _, condition, faces = next(stream)
            table = table + list(faces)
            if not triggers(condition, table):
                for i in group:
                    scores[i] += value * mult
                continue
            if k == 0:  # the first group: no escape, 3 points for each 0
                for i in range(n):
                    if decl[i] == 0:
                        scores[i] += 3 * mult
                break
            failed = False
            for i in sorted(group, key=lambda i: (scores[i], i)):  # keys taken before any escape
                _, _, table = next(stream)
                if triggers(condition, table):
                    failed = True
                else:
                    scores[i] += value * mult
            if failed:
                break
        if last:
            break
        last = max(scores) >= target
    leaders = [i for i in range(n) if scores[i] == max(scores)]
    while len(leaders) > 1:
        ones = [list(next(stream)[2]).count(1) for _ in leaders]
        leaders = [i for i, o in zip(leaders, ones) if o == max(ones)]
    return dict(zip(seats, scores)), seats[leaders[0]]
