"""The demo's hands at the synthetic tray (pi.demo and the /demo routes): a throw for the
seat that asks or claimed, a tray that takes 40 dice and says so when it cannot, a rethrow
of the dice a seat picked, a pyramid laid out for "Read my layout".

The camera thread runs with a detector that reads the tray's own labels, so these tests
check the demo and the table, not the model; tests/pi/test_demo_camera.py plays the games
with the real detector."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from pi.table import Table
from pi.web import create_app
from vision.camera import SyntheticTable
from vision.detector import Detection
from vision.settle import Settler

from tests.pi.conftest import wait_until

SEATS4 = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"},
          {"name": "Chie", "colour": "green"}, {"name": "Dai", "colour": "yellow"}]


class LabelDetector:
    """Reads what the synthetic tray drew in its last frame, exactly."""

    reads_sides = True
    colours = None

    def __init__(self, synthetic: SyntheticTable) -> None:
        self.synthetic = synthetic

    def detect(self, image):
        return [Detection(tuple(box), face, 0.99, colour, die[5])
                for (box, face, colour), die in zip(self.synthetic.labels, self.synthetic.dice)]


def _demo_table(config, store, die_px=None):
    synthetic = SyntheticTable(seed=1, die_px=die_px, tumble_frames=2)
    table = Table(config, store, camera=synthetic, detector=LabelDetector(synthetic),
                  settler=Settler(settle_frames=2), synthetic=synthetic, frame_interval=0.0, rng=random.Random(3))
    return table, synthetic


@pytest.fixture
def demo(config, store):
    table, synthetic = _demo_table(config, store)
    table.start()
    yield table, synthetic
    table.stop()


def events(table) -> list[dict]:
    return table.store.events(table.record.id)


def through_camera(table, do) -> dict:
    """Do a demo action, wait until the camera's roll is applied, return the new event."""
    before = len(events(table))
    result = do()
    assert result["ok"], result
    wait_until(table, lambda: len(events(table)) > before or table.prompt is not None)
    assert table.prompt is None, table.prompt
    return events(table)[-1]


def client_of(table, config, demo_pages=True):
    client = create_app(table, config, {"TESTING": True, "DEMO": demo_pages}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.environ_base["HTTP_ACCEPT"] = "application/json"
    return client


def test_a_seat_throws_its_own_dice_and_the_status_page_throws_for_the_seat_that_claimed(demo):
    table, synthetic = demo
    assert table.start_game("chiritsumo", SEATS4[:3], {}, seed=1)["ok"]
    assert through_camera(table, lambda: table.demo.throw("Chie"))["seat"] == "Chie"  # not the first due
    assert table.claim_throw("Ben")["ok"]  # "This was my throw" before the status page's Throw
    assert through_camera(table, table.demo.throw)["seat"] == "Ben"
    assert through_camera(table, table.demo.throw)["seat"] == "Aki"
    assert len(synthetic.dice) == 30
    assert table.demo.throw() == {"ok": False, "error": {"en": "Nobody has to throw right now.",
                                                         "ja": "いまはダイスを振る人がいません。"}}
    assert table.demo.throw("Aki")["error"]["en"] == "You have no throw to make now."


def test_four_seats_fill_the_tray_with_forty_dice_through_the_pages(demo, config):
    table, synthetic = demo
    assert table.start_game("chiritsumo", SEATS4, {}, seed=2)["ok"]
    client = client_of(table, config)
    for seat in ("Dai", "Chie", "Ben", "Aki"):
        token = table.record.tokens[seat]
        event = through_camera(table, lambda: client.post(f"/demo/throw/{token}").get_json())
        assert event["seat"] == seat and len(event["dice"]) == 10
    assert len(synthetic.dice) == 40
    assert Counter(d[0] for d in synthetic.dice) == Counter(d["colour"] for e in events(table) for d in e["dice"])


def test_a_tray_too_small_for_the_dice_says_so_and_changes_nothing(config, store):
    table, synthetic = _demo_table(config, store, die_px=80)  # room for about a dozen such dice
    assert table.start_game("chiritsumo", SEATS4, {}, seed=2)["ok"]
    client = client_of(table, config)
    table.start()
    try:
        through_camera(table, lambda: client.post("/demo/throw").get_json())
        tray, before = synthetic.dice, events(table)
        answer = client.post("/demo/throw")
    finally:
        table.stop()
    assert answer.status_code == 409
    assert answer.get_json()["error"]["en"].startswith("The demo tray cannot take these dice (cannot place 10 dice")
    assert "トレイ" in answer.get_json()["error"]["ja"]
    assert synthetic.dice == tray and events(table) == before


def test_a_seat_lays_out_the_dice_it_placed_and_reads_them_from_the_camera(demo, config):
    table, synthetic = demo
    assert table.start_game("chiritsumo", SEATS4[:2], {}, seed=3)["ok"]
    client = client_of(table, config)
    aki = table.record.tokens["Aki"]
    through_camera(table, lambda: table.demo.throw("Aki"))
    mine = events(table)[-1]["dice"]
    # Two dice showing one face may lie side by side (ten dice, six faces: there are two).
    a, b = next((a, b) for i, a in enumerate(mine) for b in mine[i + 1:] if a["face"] == b["face"])
    rows = [[[a["colour"], a["face"]], [b["colour"], b["face"]], None, None], [None, None, None], [None, None], [None]]
    refused = client.post(f"/demo/lay-out/{aki}", data={"rows": json.dumps(rows)})
    assert refused.status_code == 409 and "Ben still to throw" in refused.get_json()["error"]["en"]
    assert len(synthetic.dice) == 10  # nothing laid
    through_camera(table, lambda: table.demo.throw("Ben"))
    assert "Tap your dice into their places first" in client.post(f"/demo/lay-out/{aki}").get_json()["error"]["en"]
    bad = client.post(f"/demo/lay-out/{aki}", data={"rows": "[[1, 2]]"}).get_json()["error"]["en"]
    assert bad == "A layout has rows of 4, 3, 2, 1 places, bottom first."
    seen = table.last_roll
    assert client.post(f"/demo/lay-out/{aki}", data={"rows": json.dumps(rows)}).get_json() == {"ok": True, "laid": 2}
    assert [(c, f) for c, f, *_ in synthetic.dice] == [(a["colour"], a["face"]), (b["colour"], b["face"])]
    wait_until(table, lambda: table.last_roll is not seen and len(table.last_roll) == 2)
    assert client.post(f"/seat/{aki}/layout").get_json()["ok"]
    read = [[d and [d["colour"], d["face"]] for d in row] for row in events(table)[-1]["rows"]]
    assert events(table)[-1]["type"] == "build" and read == rows


def _dieangler_turn(table) -> None:
    """Aki and Ben take three d6 and the d10 for a re-approach, and throw together."""
    assert table.start_game("dieangler", SEATS4[:2], {}, seed=1)["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "choose", {"d6": 3, "special": ["d10"]})["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "uses", {"d10": "reapproach"})["ok"]
    event = through_camera(table, table.demo.throw)
    assert event["type"] == "throw" and len(event["dice"]) == 8


def test_a_seat_rethrows_the_dice_its_form_picked_and_the_camera_reads_a_rethrow(demo, config):
    table, synthetic = demo
    _dieangler_turn(table)
    client = client_of(table, config)
    aki = table.record.tokens["Aki"]
    page = client.get(f"/seat/{aki}", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert 'form="form-rethrow" formaction="/demo/rethrow/' in page
    before = synthetic.dice
    red = [i for i, d in enumerate(before) if d[0] == "red" and d[5] == 6]
    face = before[red[0]][1]
    missing = next(f for f in range(1, 7) if f not in {before[i][1] for i in red})
    assert "None of your dice on the tray" in client.post(f"/demo/rethrow/{aki}", data={"picked": str(missing)}).get_json()["error"]["en"]
    assert synthetic.dice == before
    event = through_camera(table, lambda: client.post(f"/demo/rethrow/{aki}", data={"picked": str(face)}).get_json())
    assert event["type"] == "rethrow" and event["seat"] == "Aki" and event["picked"] == [face]
    assert [d["colour"] for d in event["dice"]] == ["red"]
    after = synthetic.dice
    moved = [i for i, (b, a) in enumerate(zip(before, after)) if b != a]
    assert len(moved) == 1 and after[moved[0]][:2] == ("red", event["dice"][0]["face"])


def test_the_second_seat_of_a_group_rethrows_through_the_camera(demo):
    table, synthetic = demo
    _dieangler_turn(table)
    event = through_camera(table, lambda: table.demo.rethrow("Ben"))
    assert event["type"] == "rethrow" and event["seat"] == "Ben"


def test_a_demo_throw_the_camera_did_not_take_is_applied_as_thrown_for_its_seat(config, store):
    table, synthetic = _demo_table(config, store)  # the camera thread is not running
    assert table.start_game("chiritsumo", SEATS4[:2], {}, seed=1)["ok"]
    thrown = table.demo.throw("Ben")["thrown"]
    assert table.snapshot()["demo_pending"]
    assert table.demo.apply_thrown()["ok"]
    assert events(table)[-1] == {"type": "throw", "seat": "Ben", "dice": thrown}


def test_the_seat_page_offers_the_demo_hands_only_in_the_demo(demo, config):
    table, _ = demo
    assert table.start_game("chiritsumo", SEATS4[:1], {}, seed=1)["ok"]
    token = table.record.tokens["Aki"]
    page = client_of(table, config).get(f"/seat/{token}", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f'data-post="/demo/throw/{token}"' in page
    plain = client_of(table, config, demo_pages=False)
    assert 'id="demo-throw-mine"' not in plain.get(f"/seat/{token}", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert plain.post(f"/demo/throw/{token}").status_code == 404
    through_camera(table, lambda: table.demo.throw("Aki"))
    page = client_of(table, config).get(f"/seat/{token}", headers={"Accept": "text/html"}).get_data(as_text=True)
    assert f'form="form-build" formaction="/demo/lay-out/{token}"' in page
    assert client_of(table, config).post("/demo/lay-out/not-a-seat").status_code == 404


def test_dice_of_a_colour_the_tray_cannot_draw_are_applied_as_typed(demo):
    table, synthetic = demo
    assert table.start_game("ariexpress", [{"name": "Aki", "colour": "teal"}, {"name": "Ben", "colour": "red"}],
                            {}, seed=1)["ok"]
    assert "teal" not in synthetic.colours
    assert table.demo.throw()["ok"]
    thrown = events(table)[-1]
    assert thrown["type"] == "throw" and {d["colour"] for d in thrown["dice"]} == {"teal"}
    assert synthetic.dice == [] and not table.demo.pending


def test_a_special_die_is_rethrown_only_when_the_seat_picked_it(demo, config):
    table, synthetic = demo
    assert table.start_game("dieangler", SEATS4[:2], {}, seed=1)["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "choose", {"d6": 0, "special": ["d10", "d20"]})["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "uses", {"d10": "reapproach", "d20": "chum"})["ok"]
    through_camera(table, table.demo.throw)
    before = synthetic.dice
    assert table.demo.rethrow("Aki")["error"]["en"].startswith("Choose the dice to pick up first")
    assert synthetic.dice == before
    client = client_of(table, config)
    event = through_camera(table, lambda: client.post(f"/demo/rethrow/{table.record.tokens['Aki']}",
                                                      data={"picked": "d20"}).get_json())
    assert event["type"] == "rethrow" and event["picked"] == ["d20"] and event["dice"][0]["sides"] == 20
