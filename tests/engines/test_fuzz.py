"""Property-based fuzzing (Hypothesis) of every game engine that exists: random and
malformed events, thrown at states reached by random play, are either applied or refused
with IllegalEvent; a refusal changes nothing; nothing else is ever raised."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from engines.core import IllegalEvent

NAMES = ["Aki", "Ben", "Chika", "Dan", "Emi"]
COLOURS = ["red", "blue", "green", "yellow", "purple"]
PYTHON_WORDS = re.compile(r'(?<!")\b(None|True|False)\b(?!")')


def _ready():
    out = []
    for name in engines.GAMES:
        try:
            out.append(engines.load(name))
        except ValueError:  # not written yet
            continue
    return out


ENGINES = _ready()

_scalar = st.one_of(st.none(), st.booleans(), st.integers(-3, 25), st.text(max_size=6),
                    st.sampled_from(["d6", "d10", "d20", "red", "blue", "null", "dust", "Aki", "chum"]))
_value = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                      max_leaves=12)


def _event_types(engine) -> list[str]:
    """Event types to try: the ones the engine asks for in some state, and junk."""
    return ["throw", "declare", "choose", "uses", "rethrow", "lure", "done", "fish", "card", "build", "exchange",
            "pass", "swap", "keep", "place", "handicap", "draw", "propel", "item", "develop", "move", "discard",
            "invest", "start_cube", "", "Throw"]


@st.composite
def events(draw, engine, seats):
    event = {"type": draw(st.sampled_from(_event_types(engine)) | st.text(max_size=5) | _scalar)}
    if draw(st.booleans()):
        event["seat"] = draw(st.sampled_from(seats) | _scalar)
    for key in draw(st.lists(st.sampled_from(["dice", "value", "d6", "special", "card", "fish", "rows", "with",
                                              "give", "take", "die", "square", "tape", "by", "picked", "changes",
                                              "choice", "cards", "lot", "place", "comment"]), max_size=4)):
        event[key] = draw(_value)
    if draw(st.booleans()):
        event = draw(st.sampled_from([None, [], "throw", 3, {"type": None}]))
    return event


def _state_after_random_play(engine, players: int, steps: int, seed: int):
    """A state some way into a game: random play through the inputs ``expects`` lists."""
    from pi import inputs

    rng = random.Random(seed)
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
    state = engine.setup(seats, {}, seed)
    for _ in range(steps):
        todo = engine.expects(state)["inputs"]
        if not todo:
            break
        inp = rng.choice(todo)
        values = inputs.sample_values(inp, rng)
        name = inputs.dice_field(inp)
        if name:
            values[name] = [[("red" if d["colour"] == "*" else d["colour"]), rng.choice(list(inputs.FACES[d["sides"]])),
                             d["sides"]] for d in inp.get("dice") or [] for _ in range(d["count"])]
        event = {"type": inp["type"], **values}
        if inp["seats"] and not inp.get("together"):
            event["seat"] = rng.choice(inp["seats"])
        try:
            state = engine.apply(state, event)
        except IllegalEvent:
            continue
    return state, [s["name"] for s in seats]


@pytest.mark.parametrize("engine", ENGINES, ids=[e.__name__.split(".")[-1] for e in ENGINES])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), steps=st.integers(0, 60), seed=st.integers(0, 10_000))
def test_random_events_are_applied_or_refused_and_a_refusal_changes_nothing(engine, data, steps, seed):
    players = data.draw(st.integers(engine.MIN_SEATS, engine.MAX_SEATS))
    state, seats = _state_after_random_play(engine, players, steps, seed)
    before = (engine.view(state), engine.expects(state), state.events)
    for _ in range(5):
        event = data.draw(events(engine, seats))
        try:
            new = engine.apply(state, event)
        except IllegalEvent as exc:
            assert str(exc)  # a message a player can act on
            # in the words of JSON, which scripts are written in: null and true, never None and True
            assert not PYTHON_WORDS.search(str(exc)), str(exc)
            assert (engine.view(state), engine.expects(state), state.events) == before
            continue
        assert len(new.events) == len(state.events) + 1
        state = new
        before = (engine.view(state), engine.expects(state), state.events)
