"""Seeded random Die-angler games: 2,000 of them (2-5 seats, lure on and off, dealt and
physical decks, the default fish and small custom decks that reach the extension often),
legal events chosen from ``expects`` with illegal events mixed in.

After every event: a refused event is refused (states are values: nothing changes);
while the secret choice is open the public view and another seat's view are exactly
what they were before the choice; a used special die (spent re-approach, used lure) never
changes again and is never rethrown; fish are conserved (caught + carried + up +
unclaimed + deck + set aside = all, each fish in one place); the scores are the catches.
Every game ends, its winners follow the rules, and ``core.replay`` of the event list
rebuilds the final state exactly.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engines import dieangler as da
from engines.core import IllegalEvent, event_list, replay

GAMES = 2000
MAX_EVENTS = 2000
NAMES = ["Aki", "Ben", "Cy", "Dee", "Eri"]
COLOURS = ["red", "blue", "green", "purple", "yellow"]
SIDES = {"d10": 10, "d20": 20}


def small_deck(rng: random.Random) -> list[dict]:
    conditions = ["", "", "1 6", "4", "= =", "= = =", "≠", "!=", "3 3"]
    n = rng.randint(2, 6)
    return [{"id": f"S{k}", "target": rng.randint(1, 16), "condition": rng.choice(conditions)} for k in range(n)]


def face(sides: int, rng: random.Random) -> int:
    return rng.randrange(0, 10) if sides == 10 else rng.randint(1, sides)


def legal_event(state: da.State, rng: random.Random) -> dict:
    exp = da.expects(state)
    inputs = exp["inputs"]
    phase = exp["phase"]
    if phase == "fish":
        return {"type": "fish", "fish": rng.choice(inputs[0]["fields"][0]["options"])["value"]}
    if phase == "choose":
        inp = rng.choice([i for i in inputs if i["seats"]])
        seat = rng.choice(inp["seats"])
        opts = [o["value"] for o in inp["fields"][1]["options"]]
        special = [k for k in opts if rng.random() < 0.4]
        d6 = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5])
        event = {"type": "choose", "seat": seat, "d6": d6}
        if special or rng.random() < 0.5:
            event["special"] = special
        return event
    if phase == "uses":
        inp = rng.choice(inputs)
        event = {"type": "uses", "seat": inp["seats"][0]}
        for f in inp["fields"]:
            event[f["name"]] = rng.choice(f["options"])["value"]
        return event
    if phase == "throw":
        inp = inputs[0]
        dice = [[d["colour"], face(d["sides"], rng), d["sides"]] for d in inp["dice"] for _ in range(d["count"])]
        rng.shuffle(dice)
        return {"type": "throw", "dice": dice}
    assert phase == "turn"
    inp = rng.choice(inputs)
    seat = inp["seats"][0] if inp["type"] != "done" else rng.choice(inp["seats"])
    i = [s.name for s in state.seats].index(seat)
    hand = state.hands[i]
    colour = state.seats[i].colour
    if inp["type"] == "done" or (inp["type"] == "rethrow" and rng.random() < 0.15):
        return {"type": "done", "seat": seat}
    if inp["type"] == "rethrow":
        by = rng.choice(inp["fields"][0]["options"])["value"]
        pool = list(hand.d6) + [k for k, _ in hand.special if k != by and not hand.used(k)]
        assert pool, "a rethrow is offered with nothing to pick up"
        picked = [p for p in pool if rng.random() < 0.5] or [rng.choice(pool)]
        dice = [[colour, face(6 if isinstance(p, int) else SIDES[p], rng), 6 if isinstance(p, int) else SIDES[p]]
                for p in picked]
        return {"type": "rethrow", "seat": seat, "by": by, "picked": picked, "dice": dice}
    by = rng.choice(inp["fields"][0]["options"])["value"]
    budget = 1 if hand.value(by) % 2 else 2
    targets = [(f, 6, f) for f in hand.d6] + [(k, SIDES[k], v) for k, v in hand.special if k != by and not hand.used(k)]
    changes = []
    spent = 0
    rng.shuffle(targets)
    for die, top, value in targets:
        if spent >= budget:
            break
        step = rng.choice([1, -1]) * (2 if budget - spent == 2 and rng.random() < 0.5 else 1)
        if 1 <= value + step <= top:
            changes.append([die, step])
            spent += abs(step)
    if not changes:
        return {"type": "done", "seat": seat}
    return {"type": "lure", "seat": seat, "by": by, "changes": changes}


def illegal_events(state: da.State, rng: random.Random) -> list[dict]:
    """Events the rules must refuse now."""
    names = [s.name for s in state.seats]
    phase = state.phase
    out: list[dict] = [{"type": "dance", "seat": names[0]}, {"type": "done"}]
    if phase != "fish":
        out.append({"type": "fish", "fish": state.fish[0].id})
    else:
        out.append({"type": "fish", "fish": "nope"})
        named = [f.id for f in state.fish if f.id not in state.pile]
        if named:
            out.append({"type": "fish", "fish": rng.choice(named)})
        out.append({"type": "choose", "seat": names[0], "d6": 1})
    if phase == "choose":
        out.append({"type": "choose", "seat": rng.choice(names), "d6": 6})
        out.append({"type": "choose", "seat": rng.choice(names), "d6": 1, "special": ["d12"]})
        out.append({"type": "choose", "seat": rng.choice(names), "d6": 1, "special": ["d10", "d10"]})
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
            out.append({"type": "uses", "seat": rng.choice(others), "d10": "chum"})
            out.append({"type": "done", "seat": rng.choice(others)})
    if phase == "uses":
        due = [i for i in state.groups[state.group] if state.choices[i][1] and not state.hands[i].uses]
        i = rng.choice(due)
        special = state.choices[i][1]
        out.append({"type": "uses", "seat": names[i]})  # not its dice
        wrong = {k: "chum" for k in ("d10", "d20") if k not in special} or {}
        out.append({"type": "uses", "seat": names[i], **wrong, **{k: "chum" for k in special}} if wrong else
                   {"type": "uses", "seat": names[i], special[0]: "spin"})
        if not state.lure:
            out.append({"type": "uses", "seat": names[i], **{k: "lure" for k in special}})
        out.append({"type": "throw", "dice": []})
    if phase == "throw":
        spec = da.expects(state)["inputs"][0]["dice"]
        dice = [[d["colour"], 1, d["sides"]] for d in spec for _ in range(d["count"])]
        out.append({"type": "throw", "dice": dice[1:]})
        out.append({"type": "throw", "dice": dice + [[dice[0][0], 2]]})
        bad = [list(d) for d in dice]
        bad[0][1] = 7 if bad[0][2] == 6 else 21
        out.append({"type": "throw", "dice": bad})
        out.append({"type": "rethrow", "seat": names[0], "by": "d10", "picked": [1], "dice": [["red", 1]]})
    if phase == "turn":
        for i in state.groups[state.group]:
            hand = state.hands[i]
            colour = state.seats[i].colour
            if not hand.open:
                out.append({"type": "done", "seat": names[i]})
                continue
            for k, _ in hand.rights:
                if hand.rights_left(k):
                    out.append({"type": "rethrow", "seat": names[i], "by": k, "picked": [], "dice": []})
                    out.append({"type": "rethrow", "seat": names[i], "by": k, "picked": [k], "dice": [[colour, 1, SIDES[k]]]})
                    out.append({"type": "rethrow", "seat": names[i], "by": k, "picked": [7], "dice": [[colour, 1]]})
                    if hand.d6:
                        out.append({"type": "rethrow", "seat": names[i], "by": k, "picked": [hand.d6[0]], "dice": []})
                else:
                    out.append({"type": "rethrow", "seat": names[i], "by": k, "picked": [hand.d6[0] if hand.d6 else "d20"],
                                "dice": [[colour, 1]]})
            for k, _ in hand.special:
                if hand.used(k):
                    other = [j for j, _ in hand.rights if j != k and hand.rights_left(j)]
                    if other:
                        out.append({"type": "rethrow", "seat": names[i], "by": other[0], "picked": [k],
                                    "dice": [[colour, 1, SIDES[k]]]})
                    lures = [j for j, u in hand.uses if u == "lure" and j not in hand.lured and j != k]
                    if lures:
                        out.append({"type": "lure", "seat": names[i], "by": lures[0], "changes": [[k, 1]]})
            for k, u in hand.uses:
                if u == "lure" and k not in hand.lured:
                    out.append({"type": "lure", "seat": names[i], "by": k, "changes": []})
                    out.append({"type": "lure", "seat": names[i], "by": k, "changes": [[k, 1]]})
                    if hand.d6:
                        out.append({"type": "lure", "seat": names[i], "by": k, "changes": [[hand.d6[0], 0]]})
                        f = hand.d6[0]
                        out.append({"type": "lure", "seat": names[i], "by": k,
                                    "changes": [[f, 1 if f < 6 else -1]] * 3})  # 3 in all: over any budget
                        out.append({"type": "lure", "seat": names[i], "by": k, "changes": [[1, -1]] if 1 in hand.d6 else [[9, 1]]})
                elif u == "lure":
                    out.append({"type": "lure", "seat": names[i], "by": k, "changes": [[1, 1]]})
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


def check_invariants(prev: da.State, state: da.State, event: dict, prev_view: dict, rng: random.Random) -> dict:
    names = [s.name for s in state.seats]
    ids = [f.id for f in state.fish]
    # fish conserved
    places = fish_places(state)
    if state.deck_mode == "dealt":
        places.update(state.pile)
        places.update(state.aside)
        assert places == Counter(ids)
    else:
        assert all(n == 1 for n in places.values())
        assert set(places) | set(state.pile) == set(ids) and not set(places) & set(state.pile)
    if state.phase != "choose" and prev.phase != "choose" and rng.random() < 0.7:
        return {}  # the view is checked at every secret choice and at a sample of the other events
    v = da.view(state)
    total = sum(len(c) for c in v["caught"].values()) + len(v["carried"]) + (1 if v["fish"] else 0) \
        + len(v["unclaimed"]) + v["deck"]["left"] + v["deck"]["set_aside"]
    if state.phase != "over":
        assert total == len(ids)
    assert v["scores"] == {n: len(c) for n, c in v["caught"].items()}
    # secrecy
    if prev.phase == "choose" and state.phase == "choose" and (state.round, state.stage) == (prev.round, prev.stage):
        assert v == prev_view
        other = rng.choice([n for n in names if n != event["seat"]])
        assert da.view(state, other) == da.view(prev, other)
        mine = da.view(state, event["seat"])["mine"]["choice"]
        assert mine == {"d6": event["d6"], "special": sorted(event.get("special", []))}
    if state.phase == "choose":
        assert v["choices"] is None and v["order"] == [] and v["hands"] == []
    # used specials stay as they were, rights only go down
    if prev.phase in ("throw", "turn") and state.groups == prev.groups and state.group == prev.group \
            and state.round == prev.round and state.stage == prev.stage:
        for i in state.groups[state.group]:
            a, b = prev.hands[i], state.hands[i]
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
    return v


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


def play(game: int) -> tuple[da.State, int]:
    rng = random.Random(game)
    n = rng.randint(2, 5)
    options: dict = {"lure": rng.random() < 0.5, "deck": rng.choice(["dealt", "physical"])}
    if rng.random() < 0.6:
        deck = small_deck(rng)
        options["fish"] = deck
        options["play"] = rng.randint(1, len(deck))
    elif rng.random() < 0.5:
        options["play"] = rng.randint(1, 15)
    seats = [{"name": NAMES[k], "colour": COLOURS[k]} for k in range(n)]
    state = da.setup(seats, options, game)
    view = da.view(state)
    refused = 0
    for _ in range(MAX_EVENTS):
        if state.phase == "over":
            break
        if rng.random() < 0.15:
            for bad in rng.sample(illegal_events(state, rng), 1):
                with pytest.raises(IllegalEvent):
                    da.apply(state, bad)
                refused += 1
        event = legal_event(state, rng)
        new = da.apply(state, event)
        view = check_invariants(state, new, event, view, rng)
        state = new
    assert state.phase == "over", f"game {game} did not end"
    assert da.expects(state)["inputs"] == []
    for bad in illegal_events(state, rng)[:3]:
        with pytest.raises(IllegalEvent):
            da.apply(state, bad)
    assert da.view(state)["winners"] == expected_winners(state)
    assert da.view(state)["carried"] == []
    return state, refused


@pytest.mark.parametrize("chunk", range(10))
def test_random_playouts(chunk):
    stats = Counter()
    for game in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        state, refused = play(game)
        stats["refused"] += refused
        stats["extension"] += state.stage == "extension"
        stats["shared"] += len(state.winners) > 1
        stats["lure"] += any('"type":"lure"' in e for e in state.events)
        if game % 4 == 0:
            seats = [s.as_dict() for s in state.seats]
            rebuilt, steps = replay(da, seats, __import__("json").loads(state.options), state.seed, event_list(state))
            assert all(s.accepted for s in steps)
            assert rebuilt == state
    assert stats["refused"] > 0 and stats["extension"] > 0 and stats["shared"] > 0 and stats["lure"] > 0
