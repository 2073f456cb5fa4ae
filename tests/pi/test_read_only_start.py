"""A card already read-only when the service starts (issue 27, item 4): the appliance
starts anyway, shows the last game as it was, refuses every write with the read-only
message, says so on the pages and in /healthz, and leaves the store's file as it was."""
from __future__ import annotations

import sqlite3

from pi import store as store_module
from tests.pi.conftest import SEATS3, declare
from tests.pi.test_health import BANNER, _build, _login


def read_only_card(config, monkeypatch) -> None:
    """The data folder's card read-only from now on, as SQLite and the kernel see it:
    opening the store for writing fails as on a read-only card (the tests run as root, so
    chmod would not do); reading it with SQLite's read-only URI works."""
    real = sqlite3.connect

    def connect(target, *args, **kwargs):
        if not kwargs.get("uri") and str(target).startswith(str(config.data_dir)):
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_card_read_only_at_the_start_shows_the_last_game_and_refuses_every_write(config, monkeypatch):
    before = _build(config)
    try:
        assert before.table.start_game("alea", SEATS3, {}, seed=1)["ok"]
        assert declare(before.table, "Aki", 2)["ok"]
        game_id = before.table.record.id
        saved = before.store.events(game_id)
    finally:
        before.close()
    on_card = config.db_path.read_bytes()

    read_only_card(config, monkeypatch)
    appliance = _build(config)  # used to stop: "cannot start" and a restart loop
    table, store, client = appliance.table, appliance.store, appliance.app.test_client()
    try:
        assert store.read_only and store.write_error == "read_only"
        assert table.resume() and table.record.id == game_id
        assert store.events(game_id) == saved
        state = table.state
        _login(client, config)
        for lang, words in zip(("en", "ja"), BANNER["read_only"]):
            client.set_cookie("lang", lang)
            page = client.get("/")
            assert page.status_code == 200 and words in page.get_data(as_text=True)
            assert words in client.get("/host").get_data(as_text=True)
        client.set_cookie("lang", "en")
        ended = client.post("/host/end", json={"confirm": 1})
        assert ended.status_code == 503 and BANNER["read_only"][0] in ended.json["error"]["en"]
        token = table.record.tokens["Ben"]
        moved = client.post(f"/seat/{token}/act", json={"type": "declare", "value": 3})
        assert moved.status_code == 409 and "nothing changed" in moved.json["error"]["en"]
        assert table.state is state and store.events(game_id) == saved and store.write_error == "read_only"
        sick = client.get("/healthz")
        assert sick.status_code == 503 and "store" in sick.json["problems"]
        assert not sick.json["store"]["writable"] and sick.json["store"]["write_error"] == "read_only"
    finally:
        appliance.close()
    assert config.db_path.read_bytes() == on_card  # nothing written to the card


def test_no_store_on_a_read_only_card_starts_with_nothing_and_says_so(config, monkeypatch):
    monkeypatch.setattr(store_module, "read_only_disk", lambda folder: True)
    appliance = _build(config)
    client = appliance.app.test_client()
    try:
        assert appliance.store.games() == [] and not appliance.table.resume()
        client.set_cookie("lang", "en")
        page = client.get("/")
        assert page.status_code == 200 and BANNER["read_only"][0] in page.get_data(as_text=True)
        assert client.get("/healthz").status_code == 503
        _login(client, config)
        started = client.post("/host/start", json={"game": "alea", "seats": SEATS3, "seed": 1})
        assert started.status_code in (409, 503) and appliance.store.games() == []
    finally:
        appliance.close()
    assert not config.db_path.exists()  # no store made on the card
