"""The history of finished games (with their scripts, which replay plays back) and the dice
statistics page, through Flask's test client."""
from __future__ import annotations

import io
import json
import random

import pytest

from pi import dicestats
from pi.web import create_app
from tests.pi.conftest import SEATS3, kind


@pytest.fixture
def client(table, config):
    return create_app(table, config, {"TESTING": True}).test_client()


def _play_to_the_end(table, rng: random.Random) -> None:
    from pi import inputs

    while kind(table) != "over":
        (inp,) = table.expects_now()["inputs"]
        if inputs.dice_field(inp):
            dice = [{"colour": "red" if d["colour"] == "*" else d["colour"], "face": rng.randint(1, 6)}
                    for d in inp["dice"] for _ in range(d["count"])]
            assert table.typed_throw(dice)["ok"]
        else:
            for seat in inp["seats"] or [None]:
                assert table.act(seat, inp["type"], inputs.sample_values(inp, rng))["ok"]


def _replayed(client, game_id) -> list[dict]:
    """The verdicts and final view of the downloaded script of game ``game_id``, replayed."""
    from pi.replay import play_script

    script = client.get(f"/history/{game_id}.jsonl")
    assert script.status_code == 200 and "attachment" in script.headers["Content-Disposition"]
    out = io.StringIO()
    assert play_script(io.StringIO(script.get_data(as_text=True)), out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all(line["accepted"] for line in lines[:-1])
    return lines


def test_a_finished_game_is_listed_and_its_script_replays(client, table):
    table.start_game("alea", SEATS3, {}, seed=3)
    assert client.get(f"/history/{table.record.id}.jsonl").status_code == 404  # being played: may hold secrets
    _play_to_the_end(table, random.Random(1))
    final = table.snapshot()["view"]
    game_id = table.record.id
    # Ended by its rules: in History at once, its script downloads before the host ends it.
    assert _replayed(client, game_id)[-1]["final"]["winners"] == final["winners"]
    assert table.end_game()["ok"]
    page = client.get("/history", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Sky City ALEA" in page and all(s["name"] in page for s in SEATS3)
    assert f"Winner: {', '.join(final['winners'])}" in page
    listed = client.get("/api/history").json
    assert [g["id"] for g in listed] == [game_id]
    assert listed[0]["scores"] == final["scores"] and listed[0]["winners"] == final["winners"]
    lines = _replayed(client, game_id)
    assert lines[-1]["final"]["scores"] == final["scores"] and lines[-1]["final"]["winners"] == final["winners"]
    assert client.get("/history/999.jsonl").status_code == 404
    assert client.get(f"/history/{10**20}.jsonl").status_code == 404  # beyond SQLite integers


def test_no_history_yet(client):
    assert "No finished game yet" in client.get("/history", headers={"Accept-Language": "en"}).get_data(as_text=True)


def test_chi_square_p_values_match_the_tables():
    # Critical values at p = 0.05 from any chi-square table.
    for x, dof in ((3.841, 1), (11.070, 5), (16.919, 9), (30.144, 19)):
        assert dicestats.chi2_sf(x, dof) == pytest.approx(0.05, abs=2e-4)
    assert dicestats.chi2_sf(0, 5) == 1.0
    assert dicestats.chi2_sf(1.0, 5) == pytest.approx(0.9626, abs=1e-4)


def test_dice_statistics_wait_for_enough_rolls_then_test_fairness(client, table):
    from tests.pi.conftest import roll_of

    for face in (1, 2, 3, 4, 5, 6) * 3:
        table.store.record_roll(None, [d.__dict__ for d in roll_of([("red", face)]).dice])
    stats = client.get("/api/stats").json
    (red,) = stats
    assert red["rolls"] == 18 and red["counts"]["3"] == 3 and red["p_value"] is None and red["rolls_needed"] == 30
    page = client.get("/stats", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "needs 30 dice of this kind (12 more)" in page
    for _ in range(30):  # a loaded die: sixes only
        table.store.record_roll(None, [d.__dict__ for d in roll_of([("red", 6)]).dice])
    (red,) = client.get("/api/stats").json
    assert red["rolls"] == 48 and red["p_value"] < 1e-6
    assert "likely biased" in client.get("/stats", headers={"Accept-Language": "en"}).get_data(as_text=True)
    still = roll_of([("blue", 2)], status="still")  # a die lying still is not a new throw
    table.store.record_roll(None, [d.__dict__ for d in still.dice])
    assert [s["colour"] for s in client.get("/api/stats").json] == ["red"]


def test_history_heads_the_scores_with_the_games_own_word_and_shows_each_round_whole(client, table):
    table.start_game("dieangler", SEATS3, {}, seed=3)
    game_id = table.record.id
    assert table.end_game()["ok"]
    listing = client.get("/history", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<th>Fish caught</th>" in listing and "<th>Points</th>" not in listing
    page = client.get(f"/history/{game_id}", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "<th>釣ったお魚カード</th>" in page
    assert '<ol class="log">' not in page and '<ol class="log whole">' in page  # no inner scroll box
