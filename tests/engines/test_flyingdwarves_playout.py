"""Seeded random games of Flying Dwarves through the one playout driver (engines.playout),
with illegal events mixed in; the invariants are checked after every accepted event, and
every refusal met must say what was wrong in English and in Japanese."""
from __future__ import annotations

import re
from collections import Counter

from engines import flyingdwarves as fd
from engines.flyingdwarves_state import draw_due
from engines.playout import GENERIC, play

GAMES = 2000
COLOURS = ("red", "blue", "green", "yellow", "white")
NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")
# Most games run on a short loop with every kind of space (the default board of 30 spaces
# is played one game in four), so that 2,000 games stay fast.
SHORT = ["start", "mine 1", "treasure 1", "lot", "mine ?", "mine 2", "wasteland", "lot",
         "treasure 2", "mine 3", "lot", "mine 1", "lot", "mine ?"]
# One game in eight on a loop shorter than a move (every move laps it), with big numbers.
TINY = ["start", "mine 12", "lot", "treasure 3"]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def _seats(n):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


def _options(seed):
    options = {"deck": "physical" if seed % 2 else "dealt"}
    if seed % 4:
        options["board"] = TINY if seed % 8 == 1 else SHORT
    return options


def _value(rnd, state, inp, seat, field):
    """A propulsion card from the seat's hand (mostly the best: shorter games); the item
    cards a physical deck really holds."""
    if inp["type"] == "propel":
        hand = field["only"][seat]
        return hand[-1] if rnd.random() < 0.6 else rnd.choice(hand)
    if inp["type"] == "draw":
        n = draw_due(state, state.tasks[0][2])
        deck = list(state.deck)
        return rnd.sample(deck, n) if n <= len(deck) else deck + rnd.sample(list(state.used), n - len(deck))
    return GENERIC


def _weight(inp):
    return 0.25 if inp["type"] == "item" else 1.0  # items less often than moves: shorter games


def _illegal(rnd, state):
    names = [s.name for s in state.seats]
    ex = fd.expects(state)
    due = {s for inp in ex["inputs"] for s in inp["seats"]}
    idle = [n for n in names if n not in due]
    seat = rnd.choice(names)
    kinds = [
        {"type": "move", "seat": rnd.choice(idle)} if idle else {"type": "bogus"},
        {"type": "propel", "seat": seat, "card": rnd.choice([9, -1, 2.0, float("nan"), float("inf"), "3", "３", True])},
        {"type": "item", "seat": seat, "card": "+9"},
        {"type": "discard", "seat": seat, "card": rnd.choice([0, 9, float("nan"), "²"])},
        {"type": "invest", "seat": rnd.choice(idle) if idle else "Nobody", "place": True},
        {"type": "swap", "seat": seat, "with": "Nobody"},
        {"type": "handicap", "seat": seat, "choice": "3 points"},
        {"type": "start_cube", "seat": seat, "lot": rnd.choice([0, 1.5, float("inf"), "t①.1"])},
        {"type": "develop", "seat": seat, "lot": 0},
        {"type": "move", "seat": "x" * 100_000},
    ]
    if state.phase != "draw":
        kinds.append({"type": "draw", "seat": seat, "cards": ["+1"] * rnd.choice([1, 100_000])})
    if state.phase == "exchange":
        kinds.append({"type": "pass", "seat": rnd.choice([n for n in names if n != names[state.priority]])})
    return rnd.choice(kinds)


def _cards(state):
    return sorted(state.deck + state.used + sum(state.items, ()))


def _check(before, ev, state):
    n, L = len(state.seats), len(state.board)
    assert _cards(state) == sorted(state.item_cards)
    if (state.cubes, state.supply, state.start_cube) != (before.cubes, before.supply, before.start_cube):
        per_seat = [sum(col) for col in zip(*state.cubes)]
        for i in range(n):
            assert per_seat[i] + state.supply[i] + state.start_cube[i] == fd.SUPPLY + 1
        c = fd.cap(state)
        for k in range(L):
            t = sum(state.cubes[k])
            assert t <= c
            assert not t or state.board[k][0] == "lot"
    if ev["type"] == "move":
        i = [s.name for s in state.seats].index(ev["seat"])
        k = state.p[i] % L
        if state.p[i] != before.p[i] and state.board[k][0] != "treasure":
            for j in range(n):
                if j != i and before.moved[j]:
                    assert state.p[j] % L != k
        assert state.p[i] >= before.p[i]
    _check_exchange(before, ev, state)
    # counts are said in words a player reads ("1 space", "2 item cards"), never "space(s)"
    assert not any("(s)" in inp["prompt"]["en"] for inp in fd.expects(state)["inputs"])
    # points change only with the events that move them
    if ev["type"] in ("propel", "item", "pass", "swap", "develop", "start_cube", "draw", "invest"):
        if state.phase != "over":
            diff = [a - b for a, b in zip(state.points, before.points)]
            for k, j in enumerate(state.finished[len(before.finished):], start=len(before.finished)):
                diff[j] -= fd.GOAL_BONUS[k] if k < 2 else 0
            assert diff == [0] * n
    assert len(state.finished) <= n
    if state.phase not in ("propel", "over"):
        _hand_ok(state)


def _check_exchange(before, ev, state):
    """Priority moves exactly one seat clockwise per item or pass; n passes in a row end it;
    a seat holding no item card is offered the pass alone."""
    n = len(state.seats)
    if ev["type"] in ("item", "pass") and state.phase == "exchange":
        sender = [s.name for s in state.seats].index(ev["seat"])
        assert state.priority == (sender + 1) % n
        assert state.passes == (before.passes + 1 if ev["type"] == "pass" else 0)
    if ev["type"] == "pass" and state.phase != "exchange":
        assert before.passes == n - 1  # the n-th pass in a row ended the exchange
    if state.phase == "exchange" and not state.items[state.priority]:
        assert [i["type"] for i in fd.expects(state)["inputs"]] == ["pass"]


def _hand_ok(state):
    """Propulsion cards are conserved: hand + discards + the card in play is 0..top."""
    top = fd.top_card(state)
    for i in range(len(state.seats)):
        cards = list(state.hands[i]) + list(state.discards[i])
        if len(cards) == top:  # the played card is out until the end of its move
            cards.append(state.played[i])
        assert sorted(cards) == list(range(top + 1)), (i, state.hands[i], state.discards[i], state.played[i])


def _bilingual(refusals):
    for event, exc in refusals:
        assert exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (event, exc.en, exc.ja)
        assert len(exc.en) < 2000 and len(exc.ja) < 2000, event  # huge input is echoed short


def test_playouts():
    ended, refused = Counter(), Counter()
    for seed in range(GAMES):
        n = 3 + seed % 3
        out = play(fd, _seats(n), _options(seed), seed, value=_value, illegal=_illegal, check=_check,
                   weight=_weight, check_replay=seed % 50 == 0)
        assert out.state.phase == "over" and out.state.winners
        assert not any("(s)" in line["en"] for line in fd.view(out.state)["log"])
        _bilingual(out.refusals)
        ended[n] += 1
        refused.update(event.get("type") if isinstance(event, dict) else "?" for event, _ in out.refusals)
    assert sum(ended.values()) == GAMES
    # every kind of refusal was met, in both languages
    assert set(refused) >= {"move", "propel", "item", "discard", "invest", "swap", "handicap", "start_cube",
                            "develop", "draw", "pass", "bogus"}
