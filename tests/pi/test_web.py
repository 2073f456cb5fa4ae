"""The phone pages through Flask's test client: languages, seat links, secrecy, the host
page behind its PIN, the live stream and error pages."""
from __future__ import annotations

import json

import pytest

from pi.web import create_app
from tests.pi.conftest import SEATS3, declare, declare_on_button, first_card, kind


@pytest.fixture
def app(table, config):
    table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=5)
    return create_app(table, config, {"TESTING": True, "SSE_KEEPALIVE_S": 0.2, "SSE_MAX_S": 10})


@pytest.fixture
def client(app):
    return app.test_client()


def _token(table, seat):
    return table.record.tokens[seat]


def _csrf(client):
    """Send this browser's CSRF token with every later request, as the pages do."""
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]


def _login(client, pin="4821"):
    _csrf(client)
    return client.post("/host/login", data={"pin": pin})


def test_status_page_in_japanese_and_english(client):
    ja = client.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    en = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"}).get_data(as_text=True)
    assert '<html lang="ja">' in ja and "秘密の選択を待っています" in ja and "得点" not in en
    assert '<html lang="en">' in en and "Waiting for secret choices" in en
    assert "Aki" in en and "ラウンド1" in ja  # the engine's log line, in the page's language
    assert 'name="viewport"' in en
    from markupsafe import escape

    from hardware.panel import GRAMMAR

    for lang, page in (("en", en), ("ja", ja)):  # the seat button's grammar, every rule
        for line in GRAMMAR[lang].splitlines():
            assert str(escape(line.strip())) in page


def test_language_switch_sets_a_cookie(client):
    response = client.post("/lang/en", data={"next": "/"}, headers={"Accept-Language": "ja"})
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert "lang=en" in response.headers["Set-Cookie"]
    page = client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert '<html lang="en">' in page
    client.post("/lang/ja", data={"next": "https://evil.example/x"})
    assert '<html lang="ja">' in client.get("/").get_data(as_text=True)
    assert client.post("/lang/fr").status_code == 404


def test_config_language_is_the_default(table, config):
    app = create_app(table, config, {"TESTING": True})  # config.language is "ja"
    assert '<html lang="ja">' in app.test_client().get("/").get_data(as_text=True)


def test_seat_page_with_a_valid_and_a_wrong_token(client, table):
    page = client.get(f"/seat/{_token(table, 'Ben')}").get_data(as_text=True)
    assert "Ben" in page and 'id="form-declare"' in page
    wrong = client.get("/seat/not-a-token")
    assert wrong.status_code == 404
    body = wrong.get_data(as_text=True)
    assert "Aki" not in body and "Ben" not in body and "Traceback" not in body
    assert "QR" in body  # says what to do: scan the seat's QR code again
    refused = client.post("/seat/not-a-token/act", json={"type": "declare", "value": 1})
    assert refused.status_code == 404 and "earlier game" in refused.json["error"]["en"]
    assert table.snapshot()["view"]["declarations"] is None and len(table.store.events(table.record.id)) == 0


def test_a_seat_link_lasts_across_games(client, table):
    token = _token(table, "Ben")
    response = client.get(f"/seat/{token}/events", buffered=False)
    try:
        _events(response, 1)
        table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=6)
        assert _token(table, "Ben") == token
        (next_game,) = _events(response, 1)  # the open page follows the next game
        assert next_game["state"]["game"]["id"] == table.record.id
    finally:
        response.close()
    # The link is the table seat's (its button): another player there keeps it.
    table.start_game("alea", [SEATS3[0], {"name": "Bea", "colour": "blue", "button": "Ben"}, SEATS3[2]], {}, seed=7)
    assert _token(table, "Bea") == token
    assert "Bea" in client.get(f"/seat/{token}").get_data(as_text=True)


def test_declaring_through_the_seat_page(client, table):
    token = _token(table, "Aki")
    response = client.post(f"/seat/{token}/act", data={"type": "declare", "value": "3"})
    assert response.status_code == 302
    page = client.get(f"/seat/{token}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Locked: 3" in page
    again = client.post(f"/seat/{token}/act", json={"type": "declare", "value": 2})
    assert again.status_code == 409 and again.json["error"]["en"] and again.json["error"]["ja"]
    bad = client.post(f"/seat/{_token(table, 'Ben')}/act", json={"type": "declare", "value": "x"})
    assert bad.status_code == 409
    assert client.post(f"/seat/{_token(table, 'Ben')}/act", json={"type": "declare", "value": 1}).json == {"ok": True}


def test_no_declaration_shows_before_the_reveal(client, table):
    def public():
        state = client.get("/api/state").json
        state.pop("version")
        return state, client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)

    chie = f"/seat/{_token(table, 'Chie')}"
    before_state, before_html = public()
    before_chie = client.get(chie, headers={"Accept-Language": "en"}).get_data(as_text=True)
    client.post(f"/seat/{_token(table, 'Aki')}/act", data={"type": "declare", "value": "4"})
    client.post(f"/seat/{_token(table, 'Ben')}/act", data={"type": "declare", "value": "2"})
    after_state, after_html = public()
    assert after_state == before_state and after_html == before_html
    assert client.get(chie, headers={"Accept-Language": "en"}).get_data(as_text=True) == before_chie
    client.post(f"{chie}/act", data={"type": "declare", "value": "1"})
    revealed, html = public()
    assert revealed["view"]["declarations"] == {"Aki": 4, "Ben": 2, "Chie": 1}
    assert 'class="declared">4<' in html


def test_host_page_needs_the_pin(client, table):
    page = client.get("/host").get_data(as_text=True)
    assert 'name="pin"' in page and "<svg" not in page
    refused = client.post("/host/undo", headers={"Accept-Language": "en"}, follow_redirects=True)
    assert "Log in with the host PIN first." in refused.get_data(as_text=True)
    assert client.post("/host/undo", json={}).status_code == 403
    assert client.post("/host/end", json={}).json["error"]["ja"]
    assert table.record is not None  # nothing changed
    wrong = _login(client, "1111")
    assert wrong.status_code == 403
    assert _login(client).status_code == 302
    host = client.get("/host").get_data(as_text=True)
    assert "<svg" in host and "/seat/" in host  # each seat's link as a QR code


def test_wrong_pins_are_rate_limited(client):
    for _ in range(5):
        assert _login(client, "0000").status_code == 403
    assert _login(client, "4821").status_code == 429  # even the right PIN waits now


def test_the_start_form_offers_the_colours_the_camera_names(client, table):
    """A seat's colour is chosen from those the camera can tell (the default palette, or
    the table's calibrated colours), never one whose dice it could not attribute."""
    import re

    from vision.colours import DEFAULT_PALETTE, ColourTable

    def offered() -> list[str]:
        page = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
        select = re.search(r'<select name="colour_0"[^>]*>(.*?)</select>', page, re.S).group(1)
        return re.findall(r'<option value="([^"]+)"', select)

    _login(client)
    assert offered() == list(DEFAULT_PALETTE)

    class Detector:  # a table whose calibration knows three colours
        colours = ColourTable.default()
        colours.entries = [e for e in colours.entries if e.name in ("red", "blue", "clear")]

    table.calibration.detector = Detector()
    assert offered() == ["red", "blue", "clear"]


def test_host_starts_corrects_undoes_and_ends(client, table, store):
    _login(client)
    form = {"game": "alea", "seat_0": "1", "name_0": "Aki", "colour_0": "red", "seat_1": "1", "name_1": "Ben",
            "colour_1": "blue", "seat_2": "1", "name_2": "Chie", "colour_2": "green", "alea.deck": "physical",
            "alea.target": "null",  # tapped: real cards, the rules' own target
            "seed": "3"}
    running = table.record.id
    unconfirmed = client.post("/host/start", data=form, headers={"Accept-Language": "en"}, follow_redirects=True)
    assert "needs your confirmation" in unconfirmed.get_data(as_text=True) and table.record.id == running
    response = client.post("/host/start", data={**form, "confirm": "1"})  # the page's dialog said yes
    assert response.status_code == 302 and store.game(running).ended is not None
    assert table.record.options == {"deck": "physical"} and kind(table) == "card"
    host = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="form-card"' in host and "Three Ones" in host  # the picker names the cards
    refused = client.post("/host/start", json={"game": "alea", "seats": SEATS3, "options": {"deck": "nope"},
                                               "confirm": True})
    assert refused.status_code == 409 and "deck" in refused.json["error"]["en"]
    bad_options = client.post("/host/start", data={**form, "alea.target": "seven", "confirm": "1"},
                              headers={"Accept-Language": "en"}, follow_redirects=True)
    assert "option &#39;target&#39; is &#34;seven&#34;" in bad_options.get_data(as_text=True)  # never offered
    assert kind(table) == "card"  # the refused starts changed nothing
    card = first_card(table)
    assert client.post("/host/act", json={"type": "card", "card": "NOPE"}).status_code == 409
    assert client.post("/host/act", data={"type": "card", "card": card}).status_code == 302
    assert kind(table) == "declare"
    assert client.post("/host/act", json={"type": "declare", "seat": "Aki", "value": 1}).status_code == 409
    for seat, v in (("Aki", 1), ("Ben", 2), ("Chie", 2)):
        declare(table, seat, v)
    assert client.post("/host/throw", data={"dice": "red 2"}).status_code == 302
    assert store.events(table.record.id)[-1] == {"type": "throw", "dice": [{"colour": "red", "face": 2}]}
    host = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'value="red 2"' in host  # the correction form holds the last throw
    assert 'id="correct-form"' in host
    assert client.post("/host/correct", data={"dice": "red 6"}).status_code == 302
    assert store.events(table.record.id)[-1]["dice"] == [{"colour": "red", "face": 6}]
    refused = client.post("/host/correct", json={"dice": [{"colour": "red", "face": 7}]})
    assert refused.status_code == 409 and "face" in refused.json["error"]["en"]
    unreadable = client.post("/host/throw", data={"dice": "three reds"}, follow_redirects=True)
    assert "colour and face" in unreadable.get_data(as_text=True) or "色と目" in unreadable.get_data(as_text=True)
    faces = [{"colour": "blue", "face": 2}, {"colour": "blue", "face": 3},
             {"colour": "green", "face": 2}, {"colour": "green", "face": 3}]
    assert table.typed_throw(faces)["ok"] and kind(table) == "card"  # round over
    assert table.act(None, "card", {"card": first_card(table)})["ok"]
    host = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="correct-form"' not in host  # only a throw that is the last event can be corrected
    n = len(store.events(table.record.id))
    assert client.post("/host/undo", json={}).status_code == 409 and len(store.events(table.record.id)) == n
    # The declarations are open: the first undo reopens them (whoever has declared), the
    # next takes back the card.
    reopened = client.post("/host/undo", json={"confirm": True}).json
    assert reopened["message"]["en"] == "Undone: the secret choices made so far; every seat chooses again."
    assert len(store.events(table.record.id)) == n
    undone = client.post("/host/undo", json={"confirm": True}).json
    assert undone["ok"] and undone["message"]["en"].startswith("Undone: Round 2: trap card")
    assert len(store.events(table.record.id)) == n - 1 and kind(table) == "card"
    assert client.post("/host/end", json={}).json["error"]["en"].startswith("Nothing was done")
    assert client.post("/host/end", json={"confirm": True}).json == {"ok": True}
    assert table.record is None and store.unfinished() is None


def _read(response, count, limit=200, until_keepalive=False):
    """The next ``count`` data events of a streamed response; with ``until_keepalive``,
    the data events sent before the next keepalive comment."""
    found, buffer = [], ""
    chunks = iter(response.response)
    for _ in range(limit):
        chunk = next(chunks)
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            if until_keepalive and block.startswith(": keepalive"):
                return found
            for line in block.splitlines():
                if line.startswith("data: "):
                    found.append(json.loads(line[6:]))
        if not until_keepalive and len(found) >= count:
            return found
    raise AssertionError(f"only {len(found)} events in {limit} chunks")


def _events(response, count, limit=200):
    return _read(response, count, limit)


def test_live_stream_emits_on_every_visible_change(client, table):
    response = client.get("/events", buffered=False)
    try:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert response.headers["Cache-Control"] == "no-cache"
        assert response.headers["X-Accel-Buffering"] == "no"
        first = _events(response, 1)[0]
        assert first["state"]["inputs"][0]["type"] == "declare" and "html" in first
        assert first["state"]["inputs"][0]["seats"] == []  # who still has to declare is secret
        # A seat locking changes nothing anyone may see: not even an event is sent.
        internal = table.version
        declare(table, "Aki", 2)
        assert table.version > internal and table.snapshot()["version"] == first["version"]
        assert _read(response, 0, until_keepalive=True) == []
        declare(table, "Ben", 1)
        declare(table, "Chie", 0)
        (revealed,) = _events(response, 1)
        assert revealed["state"]["view"]["declarations"] == {"Aki": 2, "Ben": 1, "Chie": 0}
        assert 'class="declared">2<' in revealed["html"]
    finally:
        response.close()


def test_seat_stream_shows_only_its_own_choice(client, table):
    declare(table, "Aki", 2)
    response = client.get(f"/seat/{_token(table, 'Ben')}/events", buffered=False)
    try:
        (event,) = _events(response, 1)
        assert event["state"]["view"]["mine"] == {"seat": "Ben", "colour": "blue", "declaration": None,
                                                  "to_declare": True}
        assert "Aki" not in json.dumps(event["state"]["view"]["mine"])
    finally:
        response.close()


def test_error_pages_are_not_stack_traces(table, config):
    app = create_app(table, config, {"TESTING": False, "PROPAGATE_EXCEPTIONS": False})

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals")

    client = app.test_client()
    for path, method, code in (("/nope", "get", 404), ("/host/undo", "get", 405), ("/boom", "get", 500)):
        response = getattr(client, method)(path, headers={"Accept-Language": "en"})
        body = response.get_data(as_text=True)
        assert response.status_code == code
        assert "Traceback" not in body and "secret internals" not in body and "<html" in body
    api = client.get("/api/nope")
    assert api.status_code == 404 and api.json["error"]["en"] and api.json["error"]["ja"]
    assert client.post("/seat/x/act", json={"type": "declare", "value": 1}).json["error"]["ja"]


def test_pictures(client, table):
    assert client.get("/camera.jpg").status_code == 404  # no camera frame yet
    assert client.get("/roll.jpg").status_code == 404


def test_demo_buttons_press_the_mock_pins(panel_and_table, config, clock):
    panel, table = panel_and_table
    table.start_game("alea", SEATS3, {}, seed=1)
    client = create_app(table, config, {"TESTING": True, "DEMO": True}).test_client()
    assert 'id="virtual-buttons"' in client.get("/").get_data(as_text=True)
    assert client.post("/demo/press/Aki").status_code == 403  # no CSRF token
    _csrf(client)
    for _ in range(2):
        assert client.post("/demo/press/Aki").json == {"ok": True}
        clock.advance(0.1)
        client.post("/demo/release/Aki")
        clock.advance(0.1)
    client.post("/demo/press/Aki")
    clock.advance(1.5)
    client.post("/demo/release/Aki")
    assert table.snapshot("Aki")["view"]["mine"]["declaration"] == 2
    assert client.post("/demo/press/Nobody").status_code == 409
    declare_on_button(panel, clock, "Ben", 0)
    declare(table, "Chie", 0)
    assert kind(table) == "throw"
    assert client.post("/demo/throw").json["ok"]  # no synthetic camera: applied as typed dice
    assert table.store.events(table.record.id)[-1]["type"] == "throw"


def test_demo_routes_exist_only_in_demo_mode(client):
    _csrf(client)
    assert client.post("/demo/throw").status_code == 404


def test_run_with_a_bad_config_says_so_in_one_line_and_exits_2(tmp_path, capsys):
    from pi.cli import main

    bad = tmp_path / "dicetable.toml"
    bad.write_text('host_pin = "12"\n')
    with pytest.raises(SystemExit) as exc:
        main(["run", "--config", str(bad)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "host_pin" in err


def test_a_data_folder_that_cannot_be_made_is_one_line_not_a_traceback(tmp_path, capsys):
    from pi.cli import main

    blocker = tmp_path / "file"
    blocker.write_text("")  # a file where the data folder should go
    assert main(["demo", "--no-browser", "--data-dir", str(blocker / "data")]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "data_dir" in err and str(blocker) in err


def test_a_port_or_host_the_demo_cannot_serve_on_is_one_line_not_a_traceback(tmp_path, capsys):
    from pi.cli import main

    with pytest.raises(SystemExit) as exc:  # argparse: a port past 65535 would wrap round
        main(["demo", "--no-browser", "--port", "99999"])
    assert exc.value.code == 2 and "use 1 to 65535" in capsys.readouterr().err
    assert main(["demo", "--no-browser", "--mute", "--data-dir", str(tmp_path / "data"),
                 "--host", "no.such.host.invalid", "--port", "8765"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cannot serve on no.such.host.invalid:8765" in err and "--host" in err


def test_the_demo_appliance_serves_its_pages(config):
    import urllib.request

    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(config, demo=True, pin_factory=MockFactory(), animate=False)
    try:
        assert appliance.synthetic is not None and appliance.table.camera.camera is appliance.synthetic
        appliance.table.start_game("alea", SEATS3, {}, seed=2)
        port = appliance.serve_in_thread("127.0.0.1", 0)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as response:
            state = json.load(response)
        assert state["inputs"][0]["type"] == "declare" and state["game"]["game"] == "alea"
        # The demo's throw control is there only while a throw is due: not during the
        # secret declarations, but once they are revealed.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert 'id="demo-throw"' not in response.read().decode()
        for seat in ("Aki", "Ben", "Chie"):
            assert declare(appliance.table, seat, 1)["ok"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert 'id="demo-throw"' in response.read().decode()
    finally:
        appliance.close()


def test_seat_links_use_the_lan_address_when_served_on_the_lan(monkeypatch):
    from pi.web import host

    monkeypatch.setattr(host, "lan_address", lambda: "192.168.1.20")
    assert host.phone_root("http://127.0.0.1:8080/", "0.0.0.0") == "http://192.168.1.20:8080"
    assert host.phone_root("http://127.0.0.1:8080/", "127.0.0.1") == "http://127.0.0.1:8080"
    assert host.phone_root("http://dicetable.local:8080/", "0.0.0.0") == "http://192.168.1.20:8080"  # no name: phones on a hotspot lack its DNS


def test_live_streams_are_capped_and_pages_poll_beyond_the_cap(table, config):
    table.start_game("alea", SEATS3, {}, seed=5)
    app = create_app(table, config, {"TESTING": True, "SSE_PUBLIC_MAX": 1, "SSE_SEAT_MAX": 1, "SSE_MAX_S": 10})
    client = app.test_client()
    first = client.get("/events", buffered=False)
    try:
        _events(first, 1)
        full = client.get("/events")
        assert full.status_code == 503 and full.headers["Retry-After"] and full.json["error"]["ja"]
        polled = client.get("/api/live").json  # a page beyond the cap polls instead
        assert polled["state"]["game"]["game"] == "alea" and "due-text" in polled["html"]
        seat = client.get(f"/seat/{_token(table, 'Ben')}/events", buffered=False)  # the seats' own pool
        try:
            assert _events(seat, 1)[0]["state"]["view"]["mine"]["seat"] == "Ben"
            assert client.get(f"/seat/{_token(table, 'Aki')}/events").status_code == 503
            assert client.get(f"/seat/{_token(table, 'Aki')}/live").json["state"]["view"]["mine"]["seat"] == "Aki"
        finally:
            seat.close()
        assert client.get("/seat/not-a-token/live").status_code == 404
    finally:
        first.close()
    again = client.get("/events", buffered=False)  # a closed stream gives its slot back
    try:
        assert again.status_code == 200
    finally:
        again.close()


def test_host_actions_need_the_csrf_token_of_the_session(client, table):
    _login(client)
    token = client.environ_base.pop("HTTP_X_CSRF_TOKEN")
    events = len(table.store.events(table.record.id))
    forged = client.post("/host/undo", headers={"Accept-Language": "en"})
    assert forged.status_code == 403 and "reload the page" in forged.get_data(as_text=True)
    forged_ja = client.post("/host/undo", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert '<html lang="ja"' in forged_ja and "reload the page" not in forged_ja  # the hooks' pages speak it too
    assert client.post("/host/end", json={}, headers={"X-CSRF-Token": "guess"}).status_code == 403
    assert table.record is not None and len(table.store.events(table.record.id)) == events
    page = client.get("/host").get_data(as_text=True)
    assert f'name="csrf" value="{token}"' in page  # every form of the page carries it
    assert client.post("/host/end", data={"csrf": token, "confirm": "1"}).status_code == 302 and table.record is None


def test_repeated_wrong_pins_lock_the_address_out(table, config):
    app = create_app(table, config, {"TESTING": True, "PIN_WINDOW_S": 0.0, "PIN_LOCKOUT_AFTER": 3})
    client = app.test_client()
    _csrf(client)
    for _ in range(3):
        assert client.post("/host/login", data={"pin": "0000"}).status_code == 403
    locked = client.post("/host/login", data={"pin": "4821"}, headers={"Accept-Language": "en"})
    assert locked.status_code == 429 and "locked for 15 minutes" in locked.get_data(as_text=True)


def test_wrong_pins_from_many_addresses_lock_the_whole_table_out(table, config):
    app = create_app(table, config, {"TESTING": True, "PIN_TABLE_LIMIT": 6})
    client = app.test_client()
    _csrf(client)
    for address in range(6):  # a phone that changes its address after each wrong PIN
        wrong = client.post("/host/login", data={"pin": "0000"}, environ_base={"REMOTE_ADDR": f"10.42.0.{address + 10}"})
        assert wrong.status_code == 403
    right = client.post("/host/login", data={"pin": "4821"}, headers={"Accept-Language": "en"},
                        environ_base={"REMOTE_ADDR": "10.42.0.99"})
    assert right.status_code == 429 and "restart dicetable" in right.get_data(as_text=True)
    assert 'name="pin"' in client.get("/host").get_data(as_text=True)  # still the login page


def test_reissued_seat_links_replace_the_old_ones(client, table, store):
    old = _token(table, "Ben")
    _login(client)
    assert client.post("/host/links", json={}).json == {"ok": True}
    new = _token(table, "Ben")
    assert new != old
    assert client.get(f"/seat/{old}").status_code == 404
    assert client.post(f"/seat/{old}/act", json={"type": "declare", "value": 1}).status_code == 404
    assert client.get(f"/seat/{new}").status_code == 200
    from pi.table import Table

    again = Table(table.config, store)  # after a restart the new links stay the valid ones
    assert again.resume() and again.record.tokens["Ben"] == new


def test_the_script_of_a_game_says_how_each_event_came_in_and_still_replays(client, table):
    import io

    from pi.replay import play_script

    for seat, v in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        declare(table, seat, v)
    assert table.typed_throw([{"colour": "red", "face": 6}])["ok"]
    assert table.correct_throw([{"colour": "red", "face": 5}])["ok"]
    game_id = table.record.id
    table.end_game()
    script = client.get(f"/history/{game_id}.jsonl").get_data(as_text=True).splitlines()
    events = [json.loads(line) for line in script[1:]]
    assert [e.get("comment") for e in events] == ["sent from the seat's phone"] * 3 + ["corrected by the host"]
    out = io.StringIO()
    assert play_script(io.StringIO("\n".join(script)), out) == 0
    assert all(json.loads(line)["accepted"] for line in out.getvalue().splitlines()[:-1])


def test_what_cannot_be_taken_back_asks_first_in_the_pages_language(client, table):
    import html

    _login(client)
    for seat, v in (("Aki", 1), ("Ben", 2), ("Chie", 2)):
        declare(table, seat, v)
    for lang, words in (("en", ("End Sky City ALEA now?", "Undo this? Declarations", "Start a new game?")),
                        ("ja", ("を終了しますか？", "取り消しますか？", "新しいゲームを始めますか？"))):
        page = html.unescape(client.get("/host", headers={"Accept-Language": lang}).get_data(as_text=True))
        confirms = [line for line in page.splitlines() if "data-confirm=" in line]
        assert len(confirms) == 3 and all(any(w in c for c in confirms) for w in words), confirms
    assert 'id="undo-what"' in client.get("/host").get_data(as_text=True)
    # A confirmation given for one action never undoes another: the page sends what it showed.
    shown = client.get("/host").get_data(as_text=True).split('name="undo" value="')[1].split('"')[0]
    assert table.typed_throw([{"colour": "red", "face": 2}])["ok"]
    stale = client.post("/host/undo", data={"confirm": "1", "undo": shown}, headers={"Accept-Language": "en"},
                        follow_redirects=True)
    assert "the game moved on" in stale.get_data(as_text=True) and table.store.events(table.record.id)[-1]["type"] == "throw"
    fresh = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    key = fresh.split('name="undo" value="')[1].split('"')[0]
    after = client.post("/host/undo", data={"confirm": "1", "undo": key}, headers={"Accept-Language": "en"},
                        follow_redirects=True).get_data(as_text=True)
    assert 'id="undone"' in after and "Undone: " in after and table.store.events(table.record.id)[-1]["type"] == "declare"


def test_the_host_page_does_not_change_when_a_seat_locks(client, table):
    _login(client)
    for seat, v in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        declare(table, seat, v)
    assert table.typed_throw([{"colour": "red", "face": 2}])["ok"]
    if kind(table) != "declare":
        pytest.skip("this seed's round does not end with Aki's throw")
    before = client.get("/host").get_data(as_text=True)
    assert 'id="correct-form"' in before
    declare(table, "Ben", 3)  # the first lock of round 2
    assert client.get("/host").get_data(as_text=True) == before
    undone = client.post("/host/undo", json={"confirm": True}).json
    assert undone["ok"] and "undone" not in undone  # its count would say how many seats had locked
    status = client.get("/").get_data(as_text=True)
    assert 'id="undone"' in status
    declare(table, "Chie", 1)  # a lock after the undo: the notice stays, or its going would tell who
    assert client.get("/").get_data(as_text=True) == status


def test_history_says_who_won_or_that_the_host_ended_it(client, table):
    _login(client)
    abandoned = table.record.id
    assert client.post("/host/end", json={"confirm": True}).json["ok"]
    page = client.get("/history", headers={"Accept-Language": "en"}).get_data(as_text=True)
    section = page.split(f'id="game-{abandoned}"')[1]
    assert "Ended by the host" in section and "Winner: none" not in section
    ja = client.get("/history", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "ホストが終了" in ja


def test_a_seat_link_waits_between_games_and_opens_the_next(client, table):
    token = _token(table, "Ben")
    assert table.end_game()["ok"] and table.record is None
    waiting = client.get(f"/seat/{token}", headers={"Accept-Language": "en"})
    assert waiting.status_code == 200 and "Waiting for the host to start the next game" in waiting.get_data(as_text=True)
    assert client.get("/seat/not-a-token").status_code == 404  # a wrong link still says nothing
    assert table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=6)["ok"]
    page = client.get(f"/seat/{token}").get_data(as_text=True)
    assert 'data-seat="Ben"' in page  # the same link, the next game


def test_every_answer_carries_the_security_headers(client, table):
    for path in ("/", f"/seat/{_token(table, 'Aki')}", "/host", "/nowhere", "/api/state"):
        headers = client.get(path).headers
        assert "script-src 'self'" in headers["Content-Security-Policy"], path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path


def test_a_seat_that_may_do_several_things_is_offered_them_by_name(table, config):
    """Ari Express lets the seat holding dice place a worker, build a tape or pass: its page
    offers the three actions by name (each opens its own form), and "Now" names them once
    instead of repeating three prompts; the host page offers the same, naming the seat."""
    import random

    from pi import inputs
    from tests.pi.test_games import random_step

    assert table.start_game("ariexpress", SEATS3, {}, seed=7)["ok"]
    rng = random.Random(3)
    while [len(a) for a in inputs.choosing(table.expects_now()["inputs"]).values()] != [3]:
        assert random_step(table, rng)
    [(seat, actions)] = inputs.choosing(table.expects_now()["inputs"]).items()
    assert [a["en"] for a in actions] == ["Place a worker", "Build a tape", "Pass"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    for lang in ("en", "ja"):
        page = client.get(f"/seat/{_token(table, seat)}", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert page.count('<details class="action"') == 3
        for a, type_ in zip(actions, ("place", "build", "pass")):
            assert f'<summary class="big">{a[lang]}</summary>' in page and f'id="form-{type_}"' in page
    [die] = next(i for i in table.expects_now()["inputs"] if i["type"] == "pass")["fields"]
    assert len(die["options"]) == 1  # a choice of one comes chosen: nothing left to tap but Send
    assert f'value="{die["options"][0]["value"]}" id="pass-die-0" checked required>' in page
    assert table.snapshot()["due"] == {"en": f"{seat}: place a worker, build a tape or pass.",
                                       "ja": f"{seat}: 働きアリを配置する・線路を作る・パス"}
    _login(client)
    host = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert f'<summary class="big">{seat}: Build a tape</summary>' in host
    other = next(s["name"] for s in SEATS3 if s["name"] != seat)
    page = client.get(f"/seat/{_token(table, other)}").get_data(as_text=True)
    assert "details class=\"action\"" not in page and "action-menu" not in page


def test_the_host_page_names_each_element_once(table, config):
    """Flying Dwarves offers an item card to every seat holding one before a move: the host
    page shows one form per seat, and no id is given twice (a label or a button would
    reach the wrong form)."""
    import random
    import re
    from collections import Counter

    from pi import inputs
    from tests.pi.test_games import random_step

    assert table.start_game("flyingdwarves", SEATS3, {}, seed=7)["ok"]
    rng = random.Random(3)
    for _ in range(500):
        types = [i["type"] for i in inputs.for_host(table.expects_now())]
        if types.count("item") > 1:
            break
        assert random_step(table, rng)
    else:
        raise AssertionError("no two seats were offered an item card at once")
    client = create_app(table, config, {"TESTING": True}).test_client()
    _login(client)
    page = client.get("/host").get_data(as_text=True)
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert 'id="form-item-1"' in page and not [i for i in set(ids) if ids.count(i) > 1]
    # a seat offered only an item card sees it offered, not chosen: Send alone must not use it
    alone = next(s for s, n in Counter(s for i in table.expects_now()["inputs"] for s in i["seats"]).items() if n == 1)
    [item] = [i for i in table.expects_now()["inputs"] if alone in i["seats"]]
    assert len(item["fields"][0]["options"]) == 1
    page = client.get(f"/seat/{_token(table, alone)}").get_data(as_text=True)
    assert 'id="form-item"' in page and " checked" not in page.split('id="form-item"')[1].split("</form>")[0]


def test_chiritsumo_shows_held_dice_as_counts_by_colour_not_as_faces(table, config):
    assert table.start_game("chiritsumo", SEATS3, {}, seed=2)["ok"]
    held = table.snapshot()["view"]["pyramids"]["Aki"]["held"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    line = page.split('class="seat-pyramid" data-seat="Aki"')[1].split("</p>")[0]
    assert '<span class="die' not in line  # a die drawn with "3" on it would read as a face
    for colour, n in held.items():
        if n:
            assert f'<span class="swatch {colour}"></span>{colour} ×{n}</span>' in line
    _login(client)  # its seats have no colours: the seat links show none
    links = client.get("/host").get_data(as_text=True).split('id="seat-links"')[1].split("</section>")[0]
    assert 'class="seat-link"' in links and "swatch" not in links


def test_the_scores_table_says_what_the_game_counts(table, config):
    client = create_app(table, config, {"TESTING": True}).test_client()
    assert table.start_game("dieangler", SEATS3, {}, seed=2)["ok"]
    for lang, word in (("en", "Fish caught"), ("ja", "釣ったお魚カード")):
        page = client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert f"<th>{word}</th>" in page.split('id="scores"')[1].split("</thead>")[0]
    assert table.start_game("ariexpress", SEATS3, {}, seed=2)["ok"]  # no word of its own
    page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<th>Points</th>" in page.split('id="scores"')[1].split("</thead>")[0]


def test_flying_dwarves_shows_a_locked_card_only_until_the_reveal(table, config):
    import random

    from tests.pi.test_games import random_step

    assert table.start_game("flyingdwarves", SEATS3, {}, seed=4)["ok"]
    rng = random.Random(1)
    while not any(i["type"] == "propel" for i in table.expects_now()["inputs"]):
        assert random_step(table, rng)
    client = create_app(table, config, {"TESTING": True}).test_client()
    first, *rest = next(i for i in table.expects_now()["inputs"] if i["type"] == "propel")["seats"]
    for seat in (first, *rest):
        card = table.snapshot(seat)["view"]["mine"]["hand"][0]
        assert table.act(seat, "propel", {"card": card})["ok"]
        page = client.get(f"/seat/{_token(table, first)}").get_data(as_text=True)
        assert ('id="chosen"' in page) == (seat != rest[-1])  # the last lock reveals every card


@pytest.mark.parametrize("game, stale", [
    ("alea", ['id="mine"', "Last round"]),  # "not declared yet", the last round's double
    ("dieangler", ['id="mine"']),  # "my rod: not chosen yet"
    ("ariexpress", ['id="turn"', 'id="dice-of-turn"']),  # whose turn, the dice of a turn
])
def test_a_game_ended_by_its_rules_asks_nothing_more_of_its_pages(client, table, game, stale):
    """A game's example script played to its end (its refused lines refused): the seat page
    keeps nothing of a turn or a choice still to make, and the host page puts the finished
    game away instead of ending it."""
    import json
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "docs" / "examples" / f"{game}.jsonl"
    header, *events = [json.loads(line) for line in script.read_text(encoding="utf-8").splitlines()
                       if line.strip() and not line.startswith("#")]
    assert table.start_game(game, header["seats"], header.get("options", {}), seed=header.get("seed"))["ok"]
    with table._lock:
        for event in events:
            table.apply(event, "typed")
    table.after_change()
    assert not table.running()
    seat = client.get(f"/seat/{_token(table, header['seats'][1]['name'])}", headers={"Accept-Language": "en"})
    page = seat.get_data(as_text=True)
    assert seat.status_code == 200 and "Game over" in page
    assert [s for s in stale if s in page] == []
    _login(client)
    host = client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Put the finished game away" in host and "End the game" not in host
    assert client.post("/host/end", json={}).json["ok"] and table.record is None  # nothing to confirm
