"""Seeded random Die-angler games through the one playout driver (engines.playout): 2,000
of them (2-5 seats, lure on and off, dealt and physical decks, the default fish and small
custom decks that reach the extension often), legal events chosen from ``expects`` with
illegal events mixed in.

After every accepted event: while the secret choice is open the public view and another
seat's view are exactly what they were before the choice; a used special die (spent
re-approach, used lure) never changes again and is never rethrown; fish are conserved
(caught + carried + up + unclaimed + deck + set aside = all, each fish in one place); the
scores are the catches. Every game ends, its winners follow the rules, every refusal met
says what was wrong in English and in Japanese, and ``core.replay`` of the event list
rebuilds the final state exactly.
"""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from engines import dieangler as da
from engines.core import IllegalEvent
from engines.playout import GENERIC, play

GAMES = 2000
NAMES = ["Aki", "Ben", "Cy", "Dee", "Eri"]
COLOURS = ["red", "blue", "green", "purple", "yellow"]
SIDES = {"d10": 10, "d20": 20}
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def small_deck(rnd: random.Random) -> list[dict]:
    conditions = ["", "", "1 6", "4", "= =", "= = =", "≠", "!=", "3 3"]
    n = rnd.randint(2, 6)
    return [{"id": f"S{k}", "target": rnd.randint(1, 16), "condition": rnd.choice(conditions)} for k in range(n)]


def game_setup(game: int) -> tuple[list[dict], dict]:
    rnd = random.Random(game)
    n = rnd.randint(2, 5)
    options: dict = {"lure": rnd.random() < 0.5, "deck": rnd.choice(["dealt", "physical"])}
    if rnd.random() < 0.6:
        deck = small_deck(rnd)
        options["fish"] = deck
        options["play"] = rnd.randint(1, len(deck))
    elif rnd.random() < 0.5:
        options["play"] = rnd.randint(1, 15)
    return [{"name": NAMES[k], "colour": COLOURS[k]} for k in range(n)], options


def face(sides: int, rnd: random.Random) -> int:
    return rnd.randrange(0, 10) if sides == 10 else rnd.randint(1, sides)


def the_hand(state: da.State, seat: str) -> tuple[da.Hand, str]:
    i = [s.name for s in state.seats].index(seat)
    return state.hands[i], state.seats[i].colour


class Values:
    """The driver's ``value`` hook: the dice of a throw, and a rethrow's or a lure's fields,
    which depend on the hand and on the ``by`` chosen just before (fields are filled in
    order, so the hook remembers ``by`` and ``picked`` of the event being built)."""

    def __init__(self) -> None:
        self.memo: dict[str, object] = {}

    def __call__(self, rnd, state, inp, seat, fld):
        kind, name = inp["type"], fld["name"]
        if kind == "throw":
            dice = [[d["colour"], face(d["sides"], rnd), d["sides"]] for d in inp["dice"] for _ in range(d["count"])]
            rnd.shuffle(dice)
            return dice
        if kind not in ("rethrow", "lure"):
            return GENERIC
        hand, colour = the_hand(state, seat)
        if name == "by":
            self.memo["by"] = rnd.choice(fld["options"])["value"]
            return self.memo["by"]
        by = self.memo["by"]
        if name == "picked":
            pool = list(hand.d6) + [k for k, _ in hand.special if k != by and not hand.used(k)]
            self.memo["picked"] = [p for p in pool if rnd.random() < 0.5] or [rnd.choice(pool)]
            return self.memo["picked"]
        if name == "dice":
            return [[colour, face(6, rnd), 6] if isinstance(p, int) else [colour, face(SIDES[p], rnd), SIDES[p]]
                    for p in self.memo["picked"]]
        return lure_changes(hand, by, rnd)


def lure_changes(hand: da.Hand, by: str, rnd: random.Random) -> list:
    budget = 1 if hand.value(by) % 2 else 2
    targets = [(f, 6, f) for f in hand.d6] + [(k, SIDES[k], v) for k, v in hand.special if k != by and not hand.used(k)]
    rnd.shuffle(targets)
    changes, spent = [], 0
    for die, top, value in targets:
        if spent >= budget:
            break
        step = rnd.choice([1, -1]) * (2 if budget - spent == 2 and rnd.random() < 0.5 else 1)
        if 1 <= value + step <= top:
            changes.append([die, step])
            spent += abs(step)
    return changes


def illegal_events(state: da.State, rnd: random.Random) -> list[dict]:
    """Events the rules must refuse now, malformed ones among them (NaN, huge, too many)."""
    names = [s.name for s in state.seats]
    phase = state.phase
    out: list[dict] = [{"type": "dance", "seat": names[0]}, {"type": "done"},
                       {"type": "choose", "seat": names[0], "d6": float("nan")},
                       {"type": "throw", "dice": [["red", 1]] * 100}]
    if phase != "fish":
        out.append({"type": "fish", "fish": state.fish[0].id})
    else:
        out.append({"type": "fish", "fish": "nope"})
        named = [f.id for f in state.fish if f.id not in state.pile]
        if named:
            out.append({"type": "fish", "fish": rnd.choice(named)})
        out.append({"type": "choose", "seat": names[0], "d6": 1})
    if phase == "choose":
        out.append({"type": "choose", "seat": rnd.choice(names), "d6": 6})
        out.append({"type": "choose", "seat": rnd.choice(names), "d6": 1.0})
        out.append({"type": "choose", "seat": rnd.choice(names), "d6": 1, "special": ["d12"]})
        out.append({"type": "choose", "seat": rnd.choice(names), "d6": 1, "special": ["d10", "d10"]})
        out.append({"type": "choose", "seat": rnd.choice(names), "d6": 1, "special": ["d10"] * 1000})
        out.append({"type": "choose", "seat": "Nobody", "d6": 1})
        for i, c in enumerate(state.choices):
            if c is not None:
                out.append({"type": "choose", "seat": names[i], "d6": 0})
            for k in state.cooling[i]:
                out.append({"type": "choose", "seat": names[i], "d6": 1, "special": [k]})
        out.append({"type": "throw", "dice": [["red", 3]]})
    if phase in ("uses", "throw", "turn"):
        group = state.groups[state.group]
        others = [names[i] for i in range(len(names)) if i not in group]
        if others:
            out.append({"type": "uses", "seat": rnd.choice(others), "d10": "chum"})
            out.append({"type": "done", "seat": rnd.choice(others)})
    if phase == "uses":
        due = [i for i in state.groups[state.group] if state.choices[i][1] and not state.hands[i].uses]
        i = rnd.choice(due)
        special = state.choices[i][1]
        out.append({"type": "uses", "seat": names[i]})  # not its dice
        wrong = {k: "chum" for k in ("d10", "d20") if k not in special} or {}
        out.append({"type": "uses", "seat": names[i], **wrong, **{k: "chum" for k in special}} if wrong else
                   {"type": "uses", "seat": names[i], special[0]: "spin"})
        out.append({"type": "uses", "seat": names[i], special[0]: ["chum"]})
        if not state.lure:
            out.append({"type": "uses", "seat": names[i], **{k: "lure" for k in special}})
        out.append({"type": "throw", "dice": []})
    if phase == "throw":
        spec = da.expects(state)["inputs"][0]["dice"]
        dice = [[d["colour"], 1, d["sides"]] for d in spec for _ in range(d["count"])]
        out.append({"type": "throw", "dice": dice[1:]})
        out.append({"type": "throw", "dice": dice + [[dice[0][0], 2]]})
        out.append({"type": "throw", "dice": [["*", f, s] for _, f, s in dice]})  # "*" is no colour
        bad = [list(d) for d in dice]
        bad[0][1] = 7 if bad[0][2] == 6 else 21
        out.append({"type": "throw", "dice": bad})
        bad[0][1] = float("inf")
        out.append({"type": "throw", "dice": bad})
        out.append({"type": "rethrow", "seat": names[0], "by": "d10", "picked": [1], "dice": [["red", 1]]})
    if phase == "turn":
        out.extend(turn_illegal(state, names))
    return out


def turn_illegal(state: da.State, names: list[str]) -> list[dict]:
    out: list[dict] = []
    for i in state.groups[state.group]:
        hand = state.hands[i]
        colour = state.seats[i].colour
        seat = names[i]
        if not hand.open:
            out.append({"type": "done", "seat": seat})
            continue
        for k, _ in hand.rights:
            if hand.rights_left(k):
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [], "dice": []})
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [k], "dice": [[colour, 1, SIDES[k]]]})
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [7], "dice": [[colour, 1]]})
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [10**100], "dice": [[colour, 1]]})
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [1] * 1000, "dice": [[colour, 1]]})
                if hand.d6:
                    out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [hand.d6[0]], "dice": []})
                    out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [float(hand.d6[0])],
                                "dice": [[colour, 1]]})
            else:
                out.append({"type": "rethrow", "seat": seat, "by": k, "picked": [hand.d6[0] if hand.d6 else "d20"],
                            "dice": [[colour, 1]]})
        for k, _ in hand.special:
            if hand.used(k):
                other = [j for j, _ in hand.rights if j != k and hand.rights_left(j)]
                if other:
                    out.append({"type": "rethrow", "seat": seat, "by": other[0], "picked": [k],
                                "dice": [[colour, 1, SIDES[k]]]})
                lures = [j for j, u in hand.uses if u == "lure" and j not in hand.lured and j != k]
                if lures:
                    out.append({"type": "lure", "seat": seat, "by": lures[0], "changes": [[k, 1]]})
        for k, u in hand.uses:
            if u == "lure" and k not in hand.lured:
                out.append({"type": "lure", "seat": seat, "by": k, "changes": []})
                out.append({"type": "lure", "seat": seat, "by": k, "changes": [[k, 1]]})
                out.append({"type": "lure", "seat": seat, "by": k, "changes": [[1, float("nan")]]})
                out.append({"type": "lure", "seat": seat, "by": k, "changes": [[10**100, 1]]})
                out.append({"type": "lure", "seat": seat, "by": k, "changes": [[1, 10**100]]})
                if hand.d6:
                    f = hand.d6[0]
                    out.append({"type": "lure", "seat": seat, "by": k, "changes": [[f, 0]]})
                    out.append({"type": "lure", "seat": seat, "by": k,
                                "changes": [[f, 1 if f < 6 else -1]] * 3})  # 3 in all: over any budget
                    out.append({"type": "lure", "seat": seat, "by": k, "changes": [[1, -1]] if 1 in hand.d6 else [[9, 1]]})
            elif u == "lure":
                out.append({"type": "lure", "seat": seat, "by": k, "changes": [[1, 1]]})
    return out


def fish_places(state: da.State) -> Counter:
    places = Counter()
    for c in state.caught:
        places.update(c)
    places.update(state.carried)
    places.update(state.unclaimed)
    if state.up:
        places[state.up] += 1
    return places


def check(before: da.State, event: dict, after: da.State) -> None:
    """The invariants after every accepted event (the driver's ``check`` hook)."""
    ids = [f.id for f in after.fish]
    places = fish_places(after)
    if after.deck_mode == "dealt":
        places.update(after.pile)
        places.update(after.aside)
        assert places == Counter(ids)
    else:
        assert all(n == 1 for n in places.values())
        assert set(places) | set(after.pile) == set(ids) and not set(places) & set(after.pile)
    if event["type"] == "choose":
        check_secrecy(before, event, after)
    check_used_specials(before, after)


def check_secrecy(before: da.State, event: dict, after: da.State) -> None:
    v = da.view(after)
    assert v["scores"] == {n: len(c) for n, c in v["caught"].items()}
    if after.phase != "over":
        total = sum(len(c) for c in v["caught"].values()) + len(v["carried"]) + (1 if v["fish"] else 0) \
            + len(v["unclaimed"]) + v["deck"]["left"] + v["deck"]["set_aside"]
        assert total == len(after.fish)
    if after.phase == "choose" and (after.round, after.stage) == (before.round, before.stage):
        assert v == da.view(before)
        assert v["choices"] is None and v["order"] == [] and v["hands"] == []
        other = next(s.name for s in after.seats if s.name != event["seat"])
        assert da.view(after, other) == da.view(before, other)
        mine = da.view(after, event["seat"])["mine"]["choice"]
        assert mine == {"d6": event["d6"], "special": sorted(event.get("special", []))}


def check_used_specials(before: da.State, after: da.State) -> None:
    """A used special stays as it was, rights only go down, a closed turn never changes."""
    if before.phase not in ("throw", "turn") or (after.groups, after.group, after.round, after.stage) != (
            before.groups, before.group, before.round, before.stage):
        return
    for i in after.groups[after.group]:
        a, b = before.hands[i], after.hands[i]
        if not a.thrown:
            continue
        for k, val in a.special:
            if a.used(k):
                assert b.used(k) and b.value(k) == val
        for k, _ in a.rights:
            if a.used(k):
                assert b.rights_left(k) <= a.rights_left(k)
        assert set(a.lured) <= set(b.lured)
        if not a.open:
            assert b == a


def expected_winners(state: da.State) -> list[str]:
    names = [s.name for s in state.seats]
    main = [len(c) - e for c, e in zip(state.caught, state.ext_caught)]
    best = max(main)
    leaders = [i for i, n in enumerate(main) if n == best]
    if len(leaders) == 1 or state.stage == "main":
        return [names[i] for i in leaders]
    top = max(state.ext_caught)
    if top == 0:
        return [names[i] for i in leaders]
    return [names[i] for i, n in enumerate(state.ext_caught) if n == top]


def assert_bilingual(refusals) -> None:
    for event, exc in refusals:
        assert exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (event, exc.en, exc.ja)


def play_game(game: int, illegal_rate: float = 0.15):
    seats, options = game_setup(game)
    out = play(da, seats, options, game, value=Values(), check=check, illegal_rate=illegal_rate,
               illegal=lambda rnd, state: rnd.choice(illegal_events(state, rnd)), check_replay=game % 4 == 0)
    state = out.state
    assert state.phase == "over" and da.expects(state)["inputs"] == []
    rnd = random.Random(game)
    for bad in illegal_events(state, rnd)[:4]:
        with pytest.raises(IllegalEvent):
            da.apply(state, bad)
    assert da.view(state)["winners"] == expected_winners(state)
    assert da.view(state)["carried"] == []
    assert_bilingual(out.refusals)
    return out


@pytest.mark.parametrize("chunk", range(10))
def test_random_playouts(chunk):
    stats = Counter()
    for game in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        out = play_game(game)
        stats["refused"] += len(out.refusals)
        stats["extension"] += out.state.stage == "extension"
        stats["shared"] += len(out.state.winners) > 1
        stats["lure"] += any(e["type"] == "lure" for e in out.events)
    assert stats["refused"] > 0 and stats["extension"] > 0 and stats["shared"] > 0 and stats["lure"] > 0


def test_every_refusal_met_in_playouts_is_in_english_and_japanese():
    """Illegal events every other step: each refusal's Japanese is there, differs from its
    English and is Japanese."""
    kinds = Counter()
    for game in range(100):
        out = play_game(10_000 + game, illegal_rate=0.5)
        kinds.update(e.get("type") if isinstance(e, dict) else "?" for e, _ in out.refusals)
    assert {"fish", "choose", "uses", "throw", "rethrow", "lure", "done", "dance"} <= set(kinds)
