"""No leak of hidden information, for every game that exists: the game is driven through its
secret phases on a table with mock seat buttons; before and after each secret choice but
the last of a round, every route, the live stream and the camera view are requested as a
viewer and as each other seat, and nothing may differ (not the value, not "has chosen",
not a version number that would tell when something happened)."""
from __future__ import annotations

import random

import pytest

import engines
from pi import inputs
from pi.web import create_app

NAMES = ["Aki", "Ben", "Chie", "Dai", "Emi"]
#: The games whose rules have a simultaneous secret choice (docs/rules/).
SECRET_GAMES = {"alea", "dieangler", "flyingdwarves"}
COLOURS = ["red", "blue", "green", "yellow", "purple"]


def _games_with_secrets() -> list[str]:
    out = []
    for name in engines.GAMES:
        try:
            engines.load(name)
        except ValueError:
            continue
        out.append(name)
    return out


def _observe(client, table, observer: str | None) -> dict[str, str]:
    """Everything ``observer`` (None: a viewer) can fetch, as text."""
    seen = {}
    paths = ["/", "/api/state", "/api/live", "/history", "/api/history", "/stats", "/api/stats",
             "/camera.jpg", "/roll.jpg"]
    if observer is not None:
        token = table.record.tokens[observer]
        paths += [f"/seat/{token}", f"/seat/{token}/state", f"/seat/{token}/live"]
    for path in paths:
        response = client.get(path, headers={"Accept-Language": "en"})
        seen[path] = f"{response.status_code} {response.get_data(as_text=True)}"
    return seen


def _stream_is_silent(client, table, observer: str | None, act) -> bool:
    """Open the observer's live stream, do ``act``, and see whether the stream sends a view
    before its next keepalive."""
    path = "/events" if observer is None else f"/seat/{table.record.tokens[observer]}/events"
    response = client.get(path, buffered=False)
    try:
        chunks = iter(response.response)
        buffer = ""
        while "data: " not in buffer:  # the first view, sent at once
            chunk = next(chunks)
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        act()
        buffer = ""
        for chunk in chunks:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            if "data: " in buffer:
                return False
            if ": keepalive" in buffer:
                return True
        return True
    finally:
        response.close()


def _step(table, rng) -> bool:
    """One non-secret input with plausible values; False when none was accepted."""
    exp = table.expects_now()
    for inp in exp["inputs"]:
        if inp.get("secret"):
            continue
        for _ in range(30):
            values = inputs.sample_values(inp, rng)
            name = inputs.dice_field(inp)
            if name:
                values[name] = [{"colour": "red" if d["colour"] == "*" else d["colour"],
                                 "face": rng.choice(list(inputs.FACES[d["sides"]])), "sides": d["sides"]}
                                for d in inp.get("dice") or [] for _ in range(d["count"])]
            seat = inp["seats"][0] if inp["seats"] else None
            if table.act(seat, inp["type"], values)["ok"]:
                return True
    return False


@pytest.mark.parametrize("game", _games_with_secrets())
def test_no_secret_choice_can_be_read_before_the_reveal(game, panel_and_table, config):
    panel, table = panel_and_table
    engine = engines.load(game)
    players = min(3, engine.MAX_SEATS) if engine.MIN_SEATS <= 3 else engine.MIN_SEATS
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
    assert table.start_game(game, seats, {}, seed=3)["ok"]
    app = create_app(table, config, {"TESTING": True, "SSE_KEEPALIVE_S": 0.2, "SSE_MAX_S": 10})
    client = app.test_client()
    rng = random.Random(7)
    secret_rounds = 0
    for _ in range(400):
        exp = table.expects_now()
        if not exp["inputs"]:
            break
        secret = next((i for i in exp["inputs"] if i.get("secret")), None)
        if secret is None:
            if not _step(table, rng):
                break
            continue
        secret_rounds += 1
        # A game may split one secret choice over several inputs (seats with other options).
        choosers = [seat for i in exp["inputs"] if i.get("secret") for seat in i["seats"]]
        for chooser in choosers:
            still = [i for i in table.expects_now()["inputs"] if i.get("secret")]
            due = next(i for i in still if chooser in i["seats"])
            last = [s for i in still for s in i["seats"]] == [chooser]
            observers = [None] + [s["name"] for s in seats if s["name"] != chooser]

            def choose():
                for _ in range(30):
                    values = inputs.sample_values(due, rng)
                    for f in due["fields"]:  # some special options too, so that they cool later
                        if f["kind"] == "multi" and f.get("options"):
                            values[f["name"]] = [o["value"] for o in f["options"] if rng.random() < 0.5]
                    if table.act(chooser, due["type"], values)["ok"]:
                        return
                raise AssertionError(f"no value of {due} was accepted for {chooser}")

            before = {o: _observe(client, table, o) for o in observers}
            if last:
                choose()
                continue
            if rng.random() < 0.5:
                assert _stream_is_silent(client, table, rng.choice(observers), choose)
            else:
                choose()
            after = {o: _observe(client, table, o) for o in observers}
            for o in observers:
                for path in before[o]:
                    assert after[o][path] == before[o][path], f"{game}: {chooser}'s choice shows to {o} on {path}"
        if secret_rounds >= 4:
            break
    if game in SECRET_GAMES:
        assert secret_rounds > 0, f"{game}: the drive never reached a secret choice"


def test_a_seats_page_holds_what_that_seat_may_choose_and_nobody_elses(table):
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:3], COLOURS[:3])]
    assert table.start_game("flyingdwarves", seats, {}, seed=3)["ok"]
    for _ in range(40):  # to the first choice of propulsion cards, whose field's "only" lists each hand
        due = table.expects_now()["inputs"]
        if any(f.get("only") for i in due for f in i.get("fields", [])):
            break
        assert _step(table, random.Random(1))
    else:
        raise AssertionError("no input with a per-seat field came up")
    mine = table.snapshot("Ben")["my_inputs"]
    onlies = [f["only"] for i in mine for f in i.get("fields", []) if "only" in f]
    assert onlies and all(set(only) == {"Ben"} for only in onlies), onlies
