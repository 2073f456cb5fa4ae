"""The holes a hostile guest on the table's Wi-Fi found (issue 27), each closed: numbers out
of bounds, malformed and deeply nested JSON, a redirect out of the site or through a CRLF,
a failed start that damaged the running game, history before a game is over, a host cookie
that outlived its logout, and the host page changing at a seat's lock. The server's own
holes (idle connections, HEAD and vanished live streams) are in test_attacks_server.py."""
from __future__ import annotations

import json

import pytest

from pi.web import create_app
from tests.pi.conftest import SEATS3, declare

DEEP = "[" * 30_000 + "]" * 30_000
#: Bodies no route may answer with a 500: deep, malformed, not UTF-8, numbers out of bounds.
BAD_JSON = {
    "deep list": DEEP.encode(),
    "deep object": ('{"a":' * 10_000 + "1" + "}" * 10_000).encode(),  # within the 64 KiB of a request
    "33 deep": ("[" * 33 + "]" * 33).encode(),
    "truncated": b'{"type": "declare", "value": ',
    "not utf-8": b'{"pin": "\xff\xfe"}',
    "NaN": b'{"value": NaN}',
    "infinity": b'{"value": 1e999}',
    "beyond 64 bits": b'{"value": 18446744073709551616, "seed": 18446744073709551616}',
    "10**5000": b'{"value": 1' + b"0" * 5000 + b"}",
    "trailing junk": b'{"type": "declare"} x',
}


@pytest.fixture
def app(table, config):
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    return create_app(table, config, {"TESTING": True, "SSE_KEEPALIVE_S": 0.2, "SSE_MAX_S": 10})


def _host(app, pin="4821"):
    """A client logged in as the host, sending its CSRF token with every request."""
    client = app.test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    assert client.post("/host/login", data={"pin": pin}).status_code == 302
    return client


def _json_routes(app, table) -> list[str]:
    """Every route that takes a POST, with this game's seat link where it needs one."""
    token = table.record.tokens["Aki"]
    out = []
    for rule in app.url_map.iter_rules():
        if "POST" not in rule.methods:
            continue
        path = rule.rule.replace("<token>", token).replace("<code>", "en").replace("<colour>", "red")
        out.append(path)
    return sorted(out)


def _stored(table) -> tuple:
    store = table.store
    return (store.games(), [store.history(g.id) for g in store.games()], table.record, table.snapshot("Aki"))


# ------------------------------------------------------------------------------ JSON


@pytest.mark.parametrize("name", list(BAD_JSON))
def test_malformed_json_is_a_clear_400_on_every_route(app, table, name):
    host = _host(app)
    before = _stored(table)
    routes = _json_routes(app, table)
    assert {"/host/login", "/host/start", f"/seat/{table.record.tokens['Aki']}/act"} <= set(routes)
    for path in routes:
        response = host.post(path, data=BAD_JSON[name], content_type="application/json")
        assert response.status_code == 400, (path, response.status_code)
        assert "JSON" in response.json["error"]["en"] and "JSON" in response.json["error"]["ja"], path
    assert _stored(table) == before


def test_json_nested_within_the_bound_still_works(app, table):
    token = table.record.tokens["Aki"]
    client = app.test_client()
    answer = client.post(f"/seat/{token}/act", json={"type": "declare", "value": 2, "extra": [[[[1]]]]})
    assert answer.status_code == 200 and answer.json["ok"]


# ------------------------------------------------------------------------------ numbers


@pytest.mark.parametrize("value", [10**10, -(10**10), True, 1.5, "١", "²", "1_0", "1e3", 2**62, "9" * 5000])
def test_numbers_are_bounded_before_the_engine(app, table, monkeypatch, value):
    """A number field takes a whole number of ASCII digits (or a JSON integer, never a bool
    or a float) of at most 10**9; anything else is refused before the engine sees it."""
    seen = []
    engine_apply = table.engine.apply
    monkeypatch.setattr(table.engine, "apply", lambda state, event: (seen.append(event), engine_apply(state, event))[1])
    token = table.record.tokens["Aki"]
    client = app.test_client()
    before = _stored(table)
    as_json = client.post(f"/seat/{token}/act", json={"type": "declare", "value": value})
    as_form = client.post(f"/seat/{token}/act", data={"type": "declare", "value": str(value)},
                          headers={"Accept": "application/json"})
    for answer in (as_json, as_form):
        assert answer.status_code == 409 and "whole number" in answer.json["error"]["en"], answer.json
        assert "整数" in answer.json["error"]["ja"]
    assert seen == [] and _stored(table) == before
    # ASCII digits with spaces around them, as a form may send them, are a number
    assert client.post(f"/seat/{token}/act", json={"type": "declare", "value": " 2 "}).json["ok"]
    assert seen == [{"type": "declare", "seat": "Aki", "value": 2}]


def test_typed_dice_and_faces_are_bounded(app, table):
    host = _host(app)
    before = _stored(table)
    for dice in ([{"colour": "red", "face": True}], [{"colour": "red", "face": 3.0}], [{"colour": "red", "face": 10**12}],
                 [{"colour": "red", "face": "٣"}], [{"colour": "red" * 20, "face": 3}], [{"colour": "red", "face": 3}] * 65,
                 [["red", 3]], "red 3"):
        answer = host.post("/host/throw", json={"dice": dice})
        assert answer.status_code == 409 and answer.json["error"] == {
            "en": answer.json["error"]["en"], "ja": answer.json["error"]["ja"]}, dice
    for text in ("red ٣", "red 99999999999999999999", "red ²", ", ".join(["red 3"] * 65)):
        answer = host.post("/host/throw", data={"dice": text}, headers={"Accept": "application/json"})
        assert answer.status_code == 409, text
    token = table.record.tokens["Aki"]
    for faces in ([True], ["٣"], [1.0], [10**9], [{}], [3] * 64 + [None]):
        refused = app.test_client().post(f"/seat/{token}/faces", json={"faces": faces})
        assert refused.status_code == 409 and "digits 0-9" in refused.json["error"]["en"], faces
    refused = app.test_client().post(f"/seat/{token}/faces", data={"face.0": "٣"}, headers={"Accept": "application/json"})
    assert refused.status_code == 409
    assert _stored(table) == before


# ------------------------------------------------------------------------------ start


@pytest.mark.parametrize("seed", [2**63, -(2**70), 2**63 - 1 + 1, "١٢", "12.5", 12.5, True, "9" * 400])
def test_a_failed_start_leaves_the_running_game_as_it_was(app, table, config, seed):
    """Store, events, history, the table's game and what a restart brings back: the same."""
    declare(table, "Aki", 2)
    host = _host(app)
    before = _stored(table)
    body = {"game": "alea", "seats": SEATS3, "options": {}, "seed": seed, "confirm": 1}
    as_json = host.post("/host/start", json=body)
    assert as_json.status_code in (400, 409) and as_json.json["error"]["ja"]
    form = {"game": "alea", "seed": str(seed), "confirm": "1"}
    for i, s in enumerate(SEATS3):
        form.update({f"seat_{i}": "on", f"name_{i}": s["name"], f"colour_{i}": s["colour"]})
    as_form = host.post("/host/start", data=form, headers={"Accept": "application/json"})
    assert as_form.status_code == 409 and "seed" in as_form.json["error"]["en"].lower()
    assert _stored(table) == before
    assert host.get(f"/history/{table.record.id}.jsonl").status_code == 404
    _restarted_table_has(table, config, before)


def test_a_start_the_store_cannot_keep_leaves_the_running_game(app, table, config, monkeypatch):
    """The running game ends in the same transaction as the new one is stored: when the
    store fails midway, the running game is neither ended nor lost."""
    declare(table, "Aki", 2)
    before = _stored(table)
    calls = []

    def failing_clock():
        calls.append(1)
        if len(calls) == 2:  # the old game's end is written; the new game's row fails
            raise OSError("disk full")
        return 1000.0

    monkeypatch.setattr(table.store, "_clock", failing_clock)
    result = table.start_game("alea", SEATS3, {}, seed=3)
    assert not result["ok"] and "nothing changed" in result["error"]["en"] and len(calls) == 2
    monkeypatch.undo()
    assert _stored(table) == before and table.store.unfinished().id == table.record.id
    _restarted_table_has(table, config, before)


def _restarted_table_has(table, config, before) -> None:
    from pi.table import Table

    again = Table(config, table.store)
    try:
        assert again.resume()
        assert again.record.id == before[2].id and again.snapshot("Aki") == before[3]
    finally:
        again.stop()


# ------------------------------------------------------------------------------ redirects


@pytest.mark.parametrize("target, where", [
    ("/%0d%0aX", "/"), ("/\r\nSet-Cookie: x=1", "/"), ("//evil.example", "/"), ("https://x.example/a", "/a"),
    ("/\\evil.example", "/"), ("\\\\evil.example", "/"), ("javascript:alert(1)", "/"), ("/host?x=1", "/host?x=1"),
    ("/ページ", "/"), ("", "/"), ("/\x00", "/"), ("http:/\\evil", "/"), ("///evil", "/evil"),
])
def test_the_language_switch_goes_back_only_to_this_site(client_plain, target, where):
    from urllib.parse import unquote

    response = client_plain.post("/lang/en", data={"next": unquote(target) if "%" in target else target})
    assert response.status_code == 302 and response.headers["Location"] == where
    referred = client_plain.post("/lang/ja", headers={"Referer": "https://evil.example//x"})
    assert referred.status_code == 302 and referred.headers["Location"] == "/"


@pytest.fixture
def client_plain(app):
    return app.test_client()


# ------------------------------------------------------------------------------ logout


def test_logging_out_ends_the_host_session_on_the_server(app, table, config):
    host = _host(app)
    saved = host.get_cookie("session").value
    csrf = host.environ_base["HTTP_X_CSRF_TOKEN"]
    assert host.post("/host/links", json={}).status_code == 200
    assert host.post("/host/logout").status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", saved)
    thief.environ_base["HTTP_X_CSRF_TOKEN"] = csrf
    refused = thief.post("/host/links", json={})
    assert refused.status_code == 403 and "PIN" in refused.json["error"]["en"]
    assert "pin" in thief.get("/host").get_data(as_text=True)  # the login form, not the host page
    again = _host(app)  # a new login works, and survives a restart of the pages
    assert again.post("/host/links", json={}).status_code == 200
    restarted = create_app(table, config, {"TESTING": True})
    later = restarted.test_client()
    later.set_cookie("session", again.get_cookie("session").value)
    later.environ_base["HTTP_X_CSRF_TOKEN"] = again.environ_base["HTTP_X_CSRF_TOKEN"]
    assert later.post("/host/links", json={}).status_code == 200


def test_a_forged_or_old_host_flag_is_no_login(app, table):
    """Only the current generation counts (a session signed before this version said True)."""
    client = app.test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    table.store.end_host_sessions()
    for forged in (True, 1.0, "1", 0, None):
        with client.session_transaction() as session:
            session["host"] = forged
        assert client.post("/host/links", json={}).status_code == 403, forged
    with client.session_transaction() as session:
        session["host"] = 1
    assert client.post("/host/links", json={}).status_code == 200


# ------------------------------------------------------------------------------ secrets


def _observe(app_client, table, observer):
    from tests.pi.test_secrets import _observe as observe_routes

    seen = observe_routes(app_client, table, None if observer == "host" else observer)
    game_id = table.record.id
    for path in (f"/history/{game_id}", f"/api/history/{game_id}", f"/history/{game_id}.jsonl",
                 *(["/host"] if observer == "host" else [])):
        response = app_client.get(path, headers={"Accept-Language": "en"})
        seen[path] = f"{response.status_code} {response.get_data(as_text=True)}"
    return seen


@pytest.mark.parametrize("game", ["alea", "dieangler", "flyingdwarves"])
def test_a_lock_changes_nothing_the_host_a_viewer_or_another_seat_sees(game, table, config):
    """A game with secret phases, played into them (ALEA's and Die-angler's after a throw:
    the host page's "Correct the last throw" form is shown): one seat locks; the host page, the game's history and
    download, and every public route are the same before and after, for the host, a
    viewer and another seat."""
    import random

    import engines
    from pi import inputs
    from tests.pi.test_secrets import COLOURS, NAMES, _step

    engine = engines.load(game)
    players = min(3, engine.MAX_SEATS) if engine.MIN_SEATS <= 3 else engine.MIN_SEATS
    seats = [{"name": n, "colour": c} for n, c in zip(NAMES[:players], COLOURS[:players])]
    assert table.start_game(game, seats, {}, seed=3)["ok"]
    app = create_app(table, config, {"TESTING": True})
    host, viewer = _host(app), app.test_client()
    rng = random.Random(5)
    checked = throws = 0
    for _ in range(300):
        due = [i for i in table.expects_now()["inputs"] if i.get("secret")]
        if not due:
            if not table.expects_now()["inputs"] or not _step(table, rng):
                break
            continue
        choosers = [s for i in due for s in i["seats"]]
        if len(choosers) > 1:
            chooser = choosers[0]
            inp = next(i for i in due if chooser in i["seats"])
            observers = {"host": host, None: viewer, **{s["name"]: viewer for s in seats if s["name"] != chooser}}
            before = {o: _observe(c, table, o) for o, c in observers.items()}
            for _ in range(30):
                if table.act(chooser, inp["type"], inputs.sample_values(inp, rng))["ok"]:
                    break
            assert len([s for i in table.expects_now()["inputs"] if i.get("secret") for s in i["seats"]]) == len(choosers) - 1
            after = {o: _observe(c, table, o) for o, c in observers.items()}
            for o in observers:
                for path in before[o]:
                    assert after[o][path] == before[o][path], f"{game}: {chooser}'s lock shows to {o} on {path}"
            assert before["host"][f"/history/{table.record.id}.jsonl"].startswith("404")
            checked += 1
            throws += bool(table.last_throw_dice())
            if checked >= 2 and throws:
                return
        for chooser in choosers:  # everyone locks: the reveal, then on to the next phase
            inp = next((i for i in table.expects_now()["inputs"] if i.get("secret") and chooser in i["seats"]), None)
            for _ in range(30):
                if inp is None or table.act(chooser, inp["type"], inputs.sample_values(inp, rng))["ok"]:
                    break
    assert checked and (throws or game == "flyingdwarves"), f"{game}: {checked} locks checked, {throws} after a throw"


def test_history_opens_only_once_the_game_is_over(app, table):
    game_id = table.record.id
    client = app.test_client()
    declare(table, "Aki", 3)
    table.store.end_game(game_id)  # the store says ended (as a failed start once made it), the table plays on
    assert client.get(f"/history/{game_id}.jsonl").status_code == 404
    assert all(g["id"] != game_id for g in client.get("/api/history").json)
    assert '"value": 3' not in client.get(f"/api/history/{game_id}").get_data(as_text=True)
    table.store.reopen(game_id)
    table.end_game()  # ended by the host: public now
    script = client.get(f"/history/{game_id}.jsonl")
    assert script.status_code == 200 and '"value": 3' in script.get_data(as_text=True)


@pytest.mark.parametrize("text", [DEEP, "[" * 33 + "]" * 33, "[NaN]", "[1e999]", "[18446744073709551616]"])
def test_a_form_fields_json_is_bounded_too(text):
    """A layout typed in a form is JSON as well: the same bounds, a clear refusal."""
    from werkzeug.datastructures import MultiDict

    from pi import inputs

    inp = {"type": "lay", "seats": ["Aki"], "fields": [{"name": "layout", "kind": "layout", "label": {"en": "Layout"}}]}
    with pytest.raises(inputs.InputError, match="not valid JSON"):
        inputs.event_from_values(inp, "Aki", MultiDict({"layout": text}))
    assert inputs.event_from_values(inp, "Aki", MultiDict({"layout": "[[1, null]]"}))["layout"] == [[1, None]]


@pytest.mark.parametrize("number", ["١", "%D9%A1", "１", str(2**63), "9" * 400, "-1", "+1"])
def test_a_game_number_in_a_path_is_ascii_and_within_64_bits(app, table, number):
    game_id = table.record.id
    table.end_game()
    client = app.test_client()
    assert client.get(f"/history/{game_id}.jsonl").status_code == 200
    for path in (f"/history/{number}.jsonl", f"/history/{number}", f"/api/history/{number}"):
        assert client.get(path).status_code == 404, path
