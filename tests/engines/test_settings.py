"""The options a host chooses on the start form (``engine.SETTINGS``): every value offered
starts a game, and None (the rules' own default) is never sent."""
from __future__ import annotations

import pytest

import engines
from engines.core import expects_problems

NAMES = ["Aki", "Ben", "Chika", "Dan"]
COLOURS = ["red", "blue", "green", "yellow"]


@pytest.mark.parametrize("game", engines.GAMES)
def test_every_setting_offered_starts_a_game(game):
    engine = engines.load(game)
    settings = list(getattr(engine, "SETTINGS", ()))
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES, COLOURS)][: max(engine.MIN_SEATS, 3)]
    form = {"type": "start", "seats": [], "secret": False, "prompt": {"en": "Start", "ja": "開始"}, "fields": settings}
    assert not expects_problems({"phase": "start", "winners": [], "inputs": [form]}, [])
    for f in settings:
        values = [o["value"] for o in f["options"]] if f["kind"] == "choice" else [True, False]
        for value in values:
            options = {} if value is None else {f["name"]: value}
            engine.setup(seats, options, 1)  # no DataError
