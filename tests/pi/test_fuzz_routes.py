"""Property-based fuzzing (Hypothesis) of every route of the pages: random methods, paths,
bodies and headers, as a spectator, a seat and the logged-in host. No 500, no stack trace,
and a refused request (4xx) changes nothing."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi.web import create_app
from tests.pi.conftest import SEATS3

_junk = st.one_of(st.text(max_size=12), st.integers(-5, 10**6).map(str), st.sampled_from(
    ["..", "%00", "<script>", "null", "Aki", "declare", "throw", "card", "0", "-1", "99999999999999999999"]))


@st.composite
def requests(draw, tokens):
    token = draw(st.sampled_from(tokens) | _junk)
    path = draw(st.sampled_from([
        "/", "/events", "/api/state", "/api/live", "/camera.jpg", "/roll.jpg", "/history", "/api/history",
        "/stats", "/api/stats", f"/history/{draw(_junk)}.jsonl", "/lang/en", f"/lang/{draw(_junk)}",
        f"/seat/{token}", f"/seat/{token}/act", f"/seat/{token}/faces", f"/seat/{token}/live", f"/seat/{token}/state",
        "/host", "/host/login", "/host/logout", "/host/start", "/host/act", "/host/throw", "/host/correct",
        "/host/undo", "/host/end", "/host/links", f"/host/calibrate/capture/{draw(_junk)}", "/host/calibrate/save",
        "/host/teach",
        f"/{draw(_junk)}", "/demo/throw"]))
    method = draw(st.sampled_from(["GET", "POST", "POST", "POST", "PUT", "DELETE"]))
    kind = draw(st.sampled_from(["none", "json", "form", "raw"]))
    body: dict = {}
    if kind == "json":
        value = draw(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 30), st.text(max_size=8)),
                                  lambda i: st.one_of(st.lists(i, max_size=4), st.dictionaries(
                                      st.sampled_from(["type", "value", "dice", "seat", "card", "pin", "game",
                                                       "seats", "options", "faces", "seed"]) | st.text(max_size=4),
                                      i, max_size=5)), max_leaves=10))
        body = {"data": json.dumps(value), "content_type": "application/json"}
    elif kind == "form":
        body = {"data": draw(st.dictionaries(st.sampled_from(["type", "value", "dice", "seat", "card", "pin", "game",
                                                              "options", "seed", "face", "seat_0", "name_0",
                                                              "colour_0"]), _junk, max_size=6))}
    elif kind == "raw":
        body = {"data": draw(st.binary(max_size=64)), "content_type": draw(st.sampled_from(
            ["application/json", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data"]))}
    accept = draw(st.sampled_from(["text/html", "application/json", "*/*"]))
    return method, path, body, accept


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    import dataclasses

    from pi import config as config_module
    from pi.store import Store
    from pi.table import Table

    base = config_module.load(None)
    config = dataclasses.replace(base, data_dir=tmp_path_factory.mktemp("fuzz"), seats=base.seats[:3], host_pin="4821")
    store = Store(config.db_path)
    table = Table(config, store)
    table.start_game("alea", SEATS3, {}, seed=1)
    app = create_app(table, config, {"TESTING": False, "PROPAGATE_EXCEPTIONS": False, "SSE_MAX_S": 0.0})
    yield table, app
    table.stop()
    store.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_request_crashes_the_pages_or_changes_anything_when_refused(world, data):
    table, app = world
    client = app.test_client()
    client.get("/")
    with client.session_transaction() as session:
        token = session["csrf"]
    if data.draw(st.booleans()):
        client.post("/host/login", data={"pin": "4821", "csrf": token})
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token if data.draw(st.booleans()) else "forged"
    tokens = list(table.record.tokens.values()) if table.record else ["none"]
    method, path, body, accept = data.draw(requests(tokens))
    before = (json.dumps(table.snapshot()["view"], sort_keys=True),
              table.record.id if table.record else None,
              len(table.store.events(table.record.id)) if table.record else 0)
    response = client.open(path, method=method, headers={"Accept": accept}, **body)
    text = response.get_data(as_text=True) if not response.is_streamed else ""
    response.close()
    assert response.status_code < 500, (method, path, body, response.status_code)
    assert "Traceback" not in text
    if response.status_code >= 400:
        after = (json.dumps(table.snapshot()["view"], sort_keys=True),
                 table.record.id if table.record else None,
                 len(table.store.events(table.record.id)) if table.record else 0)
        assert after == before, (method, path, body)
    if table.record is None or not table.expects_now()["inputs"]:
        table.start_game("alea", SEATS3, {}, seed=1)
