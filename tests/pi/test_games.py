"""Every game that exists, played at random through the table and its pages: at every step
the status page, each seat's page and the host page render (200, no stack trace), and the
table's inputs lead the game on to its end or far into it."""
from __future__ import annotations

import random

import pytest

import engines
from pi import inputs
from pi.web import create_app

NAMES = ["Aki", "Ben", "Chie", "Dai", "Emi"]
COLOURS = ["red", "blue", "green", "yellow", "purple"]


def _ready() -> list[str]:
    out = []
    for name in engines.GAMES:
        try:
            engines.load(name)
        except ValueError:
            continue
        out.append(name)
    return out


def random_step(table, rng: random.Random) -> bool:
    """One input the game waits for, with random plausible values; False when none of the
    tries was accepted."""
    exp = table.expects_now()
    todo = list(exp["inputs"])
    rng.shuffle(todo)
    for inp in todo:
        for _ in range(25):
            values = inputs.sample_values(inp, rng)
            name = inputs.dice_field(inp)
            if name:
                if inp.get("dice") is None:
                    break  # a rethrow of picked-up dice: left to the players
                values[name] = [{"colour": "red" if d["colour"] == "*" else d["colour"],
                                 "face": rng.choice(list(inputs.FACES[d["sides"]])), "sides": d["sides"]}
                                for d in inp["dice"] for _ in range(d["count"])]
            seats = inp["seats"] if not inp.get("together") else inp["seats"][:1]
            seat = rng.choice(seats) if seats else None
            if inp.get("together"):
                seat = None
            if seat is not None and not inp.get("secret"):
                values["seat"] = seat
                seat = None  # the host sends it for the seat
            if table.act(seat, inp["type"], values)["ok"]:
                return True
    return False


@pytest.mark.parametrize("game", _ready())
def test_a_random_game_through_the_pages(game, table, config):
    engine = engines.load(game)
    players = max(engine.MIN_SEATS, min(3, engine.MAX_SEATS))
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
    assert table.start_game(game, seats, {}, seed=5)["ok"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.post("/host/login", data={"pin": config.host_pin})
    rng = random.Random(9)
    steps = 0
    for steps in range(250):
        pages = ["/", "/host"] + [f"/seat/{token}" for token in table.record.tokens.values()]
        for lang in ("en", "ja"):
            for path in pages if steps % 10 == 0 else pages[:1]:
                response = client.get(path, headers={"Accept-Language": lang})
                assert response.status_code == 200, (game, steps, path)
                assert "Traceback" not in response.get_data(as_text=True)
        if not table.expects_now()["inputs"] or not random_step(table, rng):
            break
    assert steps >= 10, f"{game}: the random play stopped after {steps} steps at {table.expects_now()}"


def test_a_refused_pyramid_is_drawn_on_the_seats_page_with_the_offending_dice(table, config):
    seats = [{"name": "Aki", "colour": "green"}, {"name": "Ben", "colour": "red"}]
    assert table.start_game("chiritsumo", seats, {}, seed=1)["ok"]
    throw = [["clear", 1], ["yellow", 1], ["yellow", 4], ["yellow", 4], ["red", 2], ["red", 3], ["red", 3],
             ["blue", 3], ["blue", 5], ["blue", 6]]
    assert table.act(None, "throw", {"seat": "Aki", "dice": throw})["ok"]
    rows = [[["yellow", 1], ["yellow", 4], None, None], [None, None, None], [None, None], [None]]  # 1 beside 4
    result = table.act("Aki", "build", {"rows": rows})
    assert not result["ok"] and "±1" in result["error"]["ja"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    mine = client.get(f"/seat/{table.record.tokens['Aki']}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="refused-layout"' in mine and mine.count("die yellow bad") == 2
    assert 'id="refused-layout"' not in client.get("/").get_data(as_text=True)
    assert 'id="refused-layout"' not in client.get(f"/seat/{table.record.tokens['Ben']}").get_data(as_text=True)


def test_the_die_anglers_throws_table_shows_the_fish_ups_throws_only(table, config):
    """Once a fish is judged the next one is turned over at once: its page must not show the
    last fish's throws (with their ✓ against the last target) under the new fish."""
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:3], COLOURS[:3])]
    assert table.start_game("dieangler", seats, {}, seed=5)["ok"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    rng = random.Random(3)
    seen = set()
    for _ in range(400):
        view = table.engine.view(table.state, None)
        page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
        if view["throws"]:
            fishing = bool(view["order"])  # revealed: the fish up is being fished
            assert ('id="throws"' in page) == fishing, view["phase"]
            seen.add(fishing)
        if seen == {True, False} or not table.expects_now()["inputs"] or not random_step(table, rng):
            break
    assert seen == {True, False}, "the random game never judged a fish and turned over the next"


def test_the_hosts_dice_pad_offers_the_games_dice_colours(table, config):
    """Chiritsumo's dice are clear, yellow, red and blue whatever the seats' colours: the
    host's correction pad offers those; a game whose seat colours are whose dice offers the
    seats' colours."""
    import html
    import json
    import re

    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.post("/host/login", data={"pin": config.host_pin})

    def pad_colours() -> list[str]:
        page = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
        spec = re.search(r'data-pad="dice" data-spec="([^"]*)"', page).group(1)
        return json.loads(html.unescape(spec))["colours"]

    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:3], COLOURS[:3])]
    assert table.start_game("chiritsumo", seats, {}, seed=1)["ok"]
    throw = [["clear", 1], ["yellow", 1], ["yellow", 4], ["yellow", 4], ["red", 2], ["red", 3], ["red", 3],
             ["blue", 3], ["blue", 5], ["blue", 6]]
    assert table.act(None, "throw", {"seat": "Aki", "dice": throw})["ok"]
    assert pad_colours() == ["clear", "yellow", "red", "blue"]
    assert table.start_game("alea", seats, {}, seed=1)["ok"]
    for seat, value in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        assert table.act(seat, "declare", {"value": value}, "phone")["ok"]
    assert table.act(None, "throw", {"dice": [{"colour": "red", "face": 3}]})["ok"]
    assert pad_colours() == ["red", "blue", "green"]
