"""A table that plays ALEA games until it is killed (tests/pi/test_crash.py runs it).

``python -m tests.pi.crash_worker DATA_DIR`` resumes the unfinished game in DATA_DIR (or
starts one), then plays: every choice is drawn from a generator seeded by the game and the
number of events so far (undone ones included), so a worker killed and started again plays the same game on.
After each input the table accepted (stored and committed), it prints one line, flushed:
``{"game": id, "events": [...]}`` (the events it stored: the input's, and the forced moves
that followed) or ``{"game": id, "undone": n}`` (an undo takes back as many events as it
says: a round's secret choices, several forced moves, or none).
"""
from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Chie", "colour": "green"}]


def main(data_dir: str) -> None:
    from pi import config as config_module
    from pi import inputs
    from pi.store import Store
    from pi.table import Table

    config = dataclasses.replace(config_module.load(None), data_dir=Path(data_dir))
    store = Store(config.db_path)
    table = Table(config, store)
    if not table.resume():
        table.start_game("alea", SEATS, {"deck": "dealt"}, seed=len(store.games()))
    while True:
        game_id = table.record.id
        n = len(store.events(game_id))
        rng = random.Random(game_id * 100_003 + len(store.history(game_id)))  # undone events count too
        exp = table.expects_now()
        if not exp["inputs"]:
            table.end_game()
            table.start_game("alea", SEATS, {"deck": "dealt"}, seed=len(store.games()))
            continue
        if n and rng.random() < 0.05:
            undone = table.undo()
            if undone["ok"]:
                print(json.dumps({"game": game_id, "undone": undone["undone"]}), flush=True)
            continue
        inp = exp["inputs"][0]
        if inputs.dice_field(inp):
            dice = [{"colour": "red" if d["colour"] == "*" else d["colour"], "face": rng.randint(1, 6)}
                    for d in inp["dice"] for _ in range(d["count"])]
            result = table.typed_throw(dice)
        else:
            seat = inp["seats"][0] if inp["seats"] else None
            result = table.act(seat, inp["type"], inputs.sample_values(inp, rng))
        if not result["ok"]:
            raise SystemExit(f"refused: {result['error']['en']}")
        print(json.dumps({"game": game_id, "events": store.events(game_id)[n:]}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
