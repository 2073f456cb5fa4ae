"""The host's teaching session (/host/teach, host_teach.html): choose the die, lay it down
showing each face in turn (at the demo table the synthetic table lays it down), the page
says which faces are still missing, and a clear finish. Bad requests change nothing."""
from __future__ import annotations

import pytest

from pi.calibration import faces_path
from pi.table import Table
from pi.web import create_app

EN = {"Accept-Language": "en"}
JSON = {"Accept": "application/json"}


@pytest.fixture
def demo(config, store):
    """A demo table (the synthetic table is its camera and the demo's hands) and a host client."""
    from vision.camera import SyntheticTable
    from vision.detector import Detector

    synthetic = SyntheticTable(seed=3, tumble_frames=0)
    table = Table(config, store, camera=synthetic, detector=Detector(), settler=None, synthetic=synthetic,
                  frame_interval=0.01)
    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.post("/host/login", data={"pin": config.host_pin})
    yield table, client, synthetic
    table.stop()


def page(client, lang: str = "en") -> str:
    response = client.get("/host/teach", headers={"Accept-Language": lang})
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_the_host_page_opens_the_teaching_session(demo):
    _, client, _ = demo
    host = client.get("/host", headers=EN).get_data(as_text=True)
    assert 'id="teach"' in host and 'href="/host/teach"' in host
    text = page(client)
    assert all(f'id="teach-d{n}"' in text for n in (6, 10, 20)) and "Which die?" in text


def test_a_d10_is_taught_face_by_face_until_none_is_missing(demo, config):
    table, client, synthetic = demo
    response = client.post("/host/teach/start", data={"sides": "10"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/host/teach")
    text = page(client)
    assert "Teaching a d10" in text and "0 of 10 faces shown" in text and "Lay the die down showing 0" in text
    assert "0 の面を上にしてダイスを置いてください" in page(client, "ja")
    # The big button photographs the face asked for: the demo lays a d10 showing it down.
    assert client.post("/host/teach", data={"sides": "10", "face": "0"}).status_code == 302
    assert [(d[1], d[5]) for d in synthetic.dice] == [(0, 10)]
    assert faces_path(config).is_file()
    text = page(client)
    assert "1 of 10 faces shown" in text and "Still missing: 1, 2, 3, 4, 5, 6, 7, 8, 9" in text
    assert "Lay the die down showing 1" in text
    for face in range(9, 0, -1):  # any face, in any order (the die showed another one)
        response = client.post("/host/teach", json={"face": face}, headers=JSON)
        assert response.status_code == 200 and response.get_json()["ok"], response.get_data(as_text=True)
    assert table.calibration.teaching()["missing"] == []
    text = page(client)
    assert "10 of 10 faces shown" in text and "Every face is shown" in text and 'id="teach-photo"' not in text
    assert client.post("/host/teach/finish").status_code == 302
    assert table.calibration.teaching() is None
    text = page(client)
    assert "Taught the d10: 10 of 10 faces shown." in text and 'id="teach-d20"' in text
    assert set(table.camera.detector.faces.sides.tolist()) == {10}


def test_a_d6_is_asked_for_each_face_again_turned_once_every_face_is_shown(demo):
    """One photo of each face teaches a numbered d6 less surely than two (pi.calibration.LOOKS):
    once none is missing, the session asks for each face again, and says how many are left."""
    table, client, _ = demo
    assert client.post("/host/teach/start", json={"sides": 6}, headers=JSON).get_json()["ok"]
    for face in range(1, 7):
        assert client.post("/host/teach", json={"face": face}, headers=JSON).get_json()["ok"]
    session = table.calibration.teaching()
    assert (session["missing"], session["again"], session["next"]) == ([], [1, 2, 3, 4, 5, 6], 1)
    text = page(client)
    assert "6 of 6 faces shown · second photos: 6 to go" in text and "Turn the die and lay it down showing 1 again" in text
    assert "もう一度 1 の面を上にして" in page(client, "ja") and 'id="teach-photo"' in text
    for face in (1, 2, 3, 4, 5):
        assert client.post("/host/teach", json={"face": face}, headers=JSON).get_json()["ok"]
    assert "second photos: 1 to go" in page(client) and table.calibration.teaching()["next"] == 6
    assert client.post("/host/teach", json={"face": 6}, headers=JSON).get_json()["ok"]
    assert table.calibration.teaching()["next"] is None and "Every face is shown" in page(client)
    finished = client.post("/host/teach/finish", json={}, headers=JSON).get_json()
    assert finished == {"ok": True, "sides": 6, "shown": [1, 2, 3, 4, 5, 6], "missing": []}


def test_finishing_early_says_which_faces_are_still_missing(demo):
    table, client, _ = demo
    assert client.post("/host/teach/start", json={"sides": 6}, headers=JSON).get_json()["ok"]
    for face in (6, 3):
        assert client.post("/host/teach", json={"face": face}, headers=JSON).get_json()["ok"]
    finished = client.post("/host/teach/finish", json={}, headers=JSON).get_json()
    assert finished == {"ok": True, "sides": 6, "shown": [3, 6], "missing": [1, 2, 4, 5]}
    assert "Taught the d6: 2 of 6 faces shown; still missing: 1, 2, 4, 5." in page(client)
    assert "d6 を教えました: 6面のうち2面。まだの面: 1, 2, 4, 5。" in page(client, "ja")


@pytest.mark.parametrize("fields", [
    {"face": "²"}, {"face": "٣"}, {"face": "１"}, {"face": "1e3"}, {"face": "9" * 400}, {"face": "-1"},
    {"face": "6.0"}, {"face": " "}, {}, {"sides": "6"}, {"face": "6", "sides": "²"}, {"face": "6", "sides": "7"},
    {"face": "6", "sides": "1" * 40}, {"face": "0", "sides": "6"}, {"face": "21", "sides": "20"},
])
def test_bad_teaching_requests_are_refused_and_change_nothing(demo, config, fields):
    table, client, synthetic = demo
    before = synthetic.dice
    response = client.post("/host/teach", data=fields, headers=JSON)
    assert response.status_code == 409, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert "Choose the" in error["en"] and "選んでください" in error["ja"]
    response = client.post("/host/teach", data=fields)  # the page's form: back to the page, saying why
    assert response.status_code == 302 and "Choose the" in page(client)
    assert synthetic.dice == before and not faces_path(config).exists() and table.camera.detector.faces is None


@pytest.mark.parametrize("body", [{"face": [6]}, {"face": "²"}, {"face": 6, "sides": True}, {"face": 6.5},
                                  {"face": 10 ** 30}, {"face": None}, {"face": {"6": 6}}])
def test_bad_json_teaching_requests_are_refused(demo, config, body):
    table, client, synthetic = demo
    response = client.post("/host/teach", json=body, headers=JSON)
    if body == {"face": 10 ** 30}:  # no JSON number that big reaches a route (pi.web)
        assert response.status_code == 400 and response.get_json()["error"]["en"]
    else:
        assert response.status_code == 409 and "Choose the" in response.get_json()["error"]["en"]
    assert synthetic.dice == [] and not faces_path(config).exists()


def test_bad_session_requests_change_nothing(demo):
    table, client, synthetic = demo
    for sides in ("²", "8", "", "1" * 100):
        response = client.post("/host/teach/start", data={"sides": sides}, headers=JSON)
        assert response.status_code == 409 and "d6, d10 or d20" in response.get_json()["error"]["en"]
    assert table.calibration.teaching() is None
    response = client.post("/host/teach/finish", headers=JSON)
    assert response.status_code == 409 and "No teaching session" in response.get_json()["error"]["en"]
    assert client.post("/host/teach/start", data={"sides": "20"}, headers=JSON).get_json()["ok"]
    response = client.post("/host/teach", data={"face": "6", "sides": "6"}, headers=JSON)
    assert response.status_code == 409 and "teaches a d20" in response.get_json()["error"]["en"]
    assert table.calibration.teaching()["shown"] == [] and synthetic.dice == []


def test_the_demo_lays_no_die_down_while_a_game_is_on(demo, config):
    import engines

    table, client, synthetic = demo
    seats = [{"name": s.name, "colour": s.colour} for s in config.seats[:2]]
    game = next(g for g in engines.GAMES if engines.load(g).MIN_SEATS <= 2)
    assert table.start_game(game, seats, {}, seed=1)["ok"]
    before = synthetic.dice
    response = client.post("/host/teach", data={"face": "6"}, headers=JSON)
    assert response.status_code == 409 and "End the game first" in response.get_json()["error"]["en"]
    assert synthetic.dice == before and not faces_path(config).exists()


def test_teaching_needs_a_host(config, store):
    table = Table(config, store)
    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    assert client.get("/host/teach").status_code == 302
    assert client.post("/host/teach/start", data={"sides": "6"}, headers=JSON).status_code == 403
    assert table.calibration.teaching() is None


@pytest.mark.parametrize("path", ["/host/teach", "/host/teach/start", "/host/teach/finish"])
@pytest.mark.parametrize("body", ["[6]", "not json", "6", '"6"', "{" * 5000, '{"face": {"face": {"face": 6}}}'])
def test_odd_bodies_are_refused_clearly(demo, config, path, body):
    table, client, synthetic = demo
    response = client.post(path, data=body, content_type="application/json", headers=JSON)
    assert response.status_code in (400, 409) and response.get_json()["error"]["en"], response.get_data(as_text=True)
    assert table.calibration.teaching() is None and synthetic.dice == [] and not faces_path(config).exists()
