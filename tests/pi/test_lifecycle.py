"""The game's life cycle at the table, on a made-up game (tests/pi/relay.py): forced moves,
undo past them and through secret choices, a game that ends by its rules, and the rounds."""
from __future__ import annotations

import pytest

from pi.lifecycle import forced_event
from tests.pi.relay import relay_table

TAKE = {"type": "take", "seats": ["Ben"], "secret": False, "prompt": {"en": "-", "ja": "-"},
        "fields": [{"name": "token", "kind": "choice", "options": [{"value": "gold"}]}]}


def _expects(*inputs):
    return {"phase": "x", "inputs": list(inputs), "winners": []}


def _events(table):
    return table.store.events(table.record.id)


def _bid(table, *bids):
    for seat, n in zip(("Aki", "Ben", "Chie"), bids):
        assert table.act(seat, "bid", {"n": n})["ok"]


@pytest.mark.parametrize("inp, event", [
    (TAKE, {"type": "take", "seat": "Ben", "token": "gold"}),  # a choice of one option
    (dict(TAKE, fields=[]), {"type": "take", "seat": "Ben"}),  # nothing to fill in
    (dict(TAKE, fields=[{"name": "n", "kind": "number", "min": 2, "max": 2}]), {"type": "take", "seat": "Ben", "n": 2}),
    (dict(TAKE, fields=[{"name": "n", "kind": "number", "min": 0, "max": 9, "only": {"Ben": [4]}}]),
     {"type": "take", "seat": "Ben", "n": 4}),  # the one card in Ben's hand
    (dict(TAKE, fields=[{"name": "a.b", "kind": "choice", "options": [{"value": None}]}]),
     {"type": "take", "seat": "Ben", "a": {"b": None}}),
])
def test_a_move_with_nothing_to_choose_is_forced(inp, event):
    assert forced_event(_expects(inp)) == event


@pytest.mark.parametrize("inp", [
    dict(TAKE, fields=[{"name": "token", "kind": "choice", "options": [{"value": "gold"}, {"value": "silver"}]}]),
    dict(TAKE, fields=[{"name": "n", "kind": "number", "min": 0, "max": 1}]),
    dict(TAKE, fields=[{"name": "n", "kind": "number", "min": 0, "max": 9, "only": {"Ben": [1, 4], "Aki": [2]}}]),
    dict(TAKE, fields=[{"name": "yes", "kind": "bool"}]),
    dict(TAKE, fields=[{"name": "cards", "kind": "multi", "options": [{"value": 1}], "min": 1, "max": 1}]),
    dict(TAKE, secret=True, fields=[]),  # a secret choice is the player's, even with nothing in it
    dict(TAKE, seats=["Ben", "Chie"], fields=[]),  # two seats: either may be the one to act
    dict(TAKE, seats=[], fields=[]),  # the host's
    dict(TAKE, together=True, fields=[]),
    dict(TAKE, fields=[{"name": "dice", "kind": "dice"}], dice=[{"colour": "red", "count": 1}], camera="new"),
])
def test_a_choice_a_secret_a_throw_or_the_host_is_never_forced(inp):
    assert forced_event(_expects(inp)) is None


def test_nothing_is_forced_while_the_game_waits_on_another_input_too():
    other = dict(TAKE, type="pass", fields=[])
    assert forced_event(_expects(TAKE, other)) is None
    assert forced_event(_expects()) is None and forced_event(None) is None


def test_the_table_sends_forced_moves_one_after_another(table):
    relay_table(table)
    _bid(table, 2, 0, 1)
    assert table.typed_throw([{"colour": "red", "face": 4}])["ok"]
    assert table.expects_now()["inputs"][0]["seats"] == ["Aki"]  # two tokens to choose from: Aki decides
    assert table.act("Aki", "take", {"token": "silver"})["ok"]
    # Ben bid 0: gold is all he may take, so the table takes it for him; Chie chooses.
    assert _events(table)[-1] == {"type": "take", "seat": "Ben", "token": "gold"}
    assert table.expects_now()["inputs"][0]["seats"] == ["Chie"]
    assert table.act("Chie", "take", {"token": "gold"})["ok"]
    # Closing the round has no field: sent at once, and round 2's secret bids are not.
    assert _events(table)[-1] == {"type": "close", "seat": "Aki"}
    assert table.expects_now()["inputs"][0]["type"] == "bid"


def test_undo_goes_back_past_forced_moves_to_the_last_real_action(table):
    relay_table(table)
    _bid(table, 2, 0, 1)
    table.typed_throw([{"colour": "red", "face": 4}])
    table.act("Aki", "take", {"token": "silver"})
    table.act("Chie", "take", {"token": "gold"})
    assert table.undo()["undone"] == 0  # round 2's secret bids are open: reopened first
    undone = table.undo()  # Chie's take, and the close the table sent after it
    assert undone["ok"] and undone["undone"] == 2 and undone["message"] == {
        "en": "Undone: Chie took gold; and the move the table sent after it.",
        "ja": "取り消しました: Chieがgoldを取った（その後テーブルが自動で送った1件も）"}
    assert _events(table)[-1] == {"type": "take", "seat": "Ben", "token": "gold"}
    assert table.expects_now()["inputs"][0]["seats"] == ["Chie"]  # not sent again: Chie chooses again
    assert table.undo()["ok"]  # Aki's take, and Ben's forced one
    assert _events(table)[-1]["type"] == "throw" and table.expects_now()["inputs"][0]["seats"] == ["Aki"]


def _sources(table):
    return [(r.event["type"], r.event.get("seat"), r.source) for r in table.store.records(table.record.id)]


def test_each_event_keeps_the_input_it_came_from(panel_and_table, clock):
    from tests.pi.conftest import declare_on_button, roll_of

    panel, table = panel_and_table
    relay_table(table)
    declare_on_button(panel, clock, "Aki", 2)
    assert table.act("Ben", "bid", {"n": 0})["ok"]
    assert table.act(None, "bid", {"seat": "Chie", "n": 1})["ok"] is False  # a secret choice is the seat's own
    assert table.act("Chie", "bid", {"n": 1})["ok"]
    assert table.settled_roll(roll_of([("red", 6)]))["ok"]
    assert table.correct_throw([{"colour": "red", "face": 5}])["ok"]
    assert table.act(None, "take", {"seat": "Aki", "token": "silver"}, source="host")["ok"]
    assert table.act("Chie", "take", {"token": "gold"})["ok"]
    assert _sources(table) == [
        ("bid", "Aki", "button"), ("bid", "Ben", "phone"), ("bid", "Chie", "phone"),
        ("throw", "Aki", "corrected"), ("take", "Aki", "host"), ("take", "Ben", "forced"),
        ("take", "Chie", "phone"), ("close", "Aki", "forced")]
    # Round 2: the throw typed on the host page, then on the thrower's phone.
    for seat in ("Aki", "Ben", "Chie"):
        table.act(seat, "bid", {"n": 1})
    assert table.typed_throw([{"colour": "red", "face": 2}])["ok"]
    table.undo()
    assert table.act("Aki", "throw", {"dice": [{"colour": "red", "face": 3}]})["ok"]
    assert _sources(table)[-1] == ("throw", "Aki", "seat_typed")


def test_the_log_says_which_events_were_typed_corrected_or_forced(table):
    relay_table(table)
    _bid(table, 2, 0, 1)
    assert "(" not in str(table.snapshot()["log"])  # the reveal: phones' choices go unmarked
    table.typed_throw([{"colour": "red", "face": 4}])
    table.act("Aki", "take", {"token": "silver"})
    log = [line["en"] for line in table.snapshot()["log"]]
    assert log[-3:] == ["Aki threw 4 (typed by the host)", "Aki took silver",
                        "Ben took gold (sent by the table: nothing to choose)"]
    assert table.snapshot("Ben")["log"][-1]["ja"] == "Benがgoldを取った（選択肢がないためテーブルが送信）"


def _to_round_two(table):
    """Relay played through round 1 (Aki 2, Ben 0, Chie 1; Aki throws 4)."""
    _bid(table, 2, 0, 1)
    table.typed_throw([{"colour": "red", "face": 4}])
    table.act("Aki", "take", {"token": "silver"})
    table.act("Chie", "take", {"token": "gold"})
    assert table.snapshot()["view"]["round"] == 2


def test_undo_of_a_reveal_takes_back_every_choice_of_that_round(table):
    relay_table(table)
    _to_round_two(table)
    before = len(_events(table))
    _bid(table, 1, 3, 0)  # Chie's bid reveals them all
    words = table.undo_words()
    assert words["en"] == "Bids: Aki 1, Ben 3, Chie 0; every seat chooses again"
    assert table.undo()["ok"]
    assert len(_events(table)) == before and table.expects_now()["inputs"][0]["seats"] == ["Aki", "Ben", "Chie"]
    assert table.snapshot()["undone"] == {"en": f"Undone: {words['en']}.", "ja": f"取り消しました: {words['ja']}"}
    undone = table.snapshot()["undone"]
    assert table.act("Aki", "bid", {"n": 2})["ok"] and table.snapshot()["undone"] == undone  # a hidden lock: no tell
    assert table.act("Ben", "bid", {"n": 1})["ok"] and table.act("Chie", "bid", {"n": 0})["ok"]
    assert table.snapshot()["undone"] is None  # until the next event everyone sees


def test_an_open_secret_choice_changes_nothing_the_host_sees(table):
    from pi.web.host import host_view

    relay_table(table)
    _to_round_two(table)
    host = host_view(table)
    correctable = table.last_throw_dice()
    assert table.act("Ben", "bid", {"n": 3})["ok"]  # the first lock of round 2
    assert host_view(table) == host and table.last_throw_dice() == correctable
    assert table.undo()["undone"] == 1  # Ben bids again, with everyone
    assert table.act("Ben", "bid", {"n": 2})["ok"]
    # Reopened once: now undo takes back what everyone saw last (Chie's take, and the
    # table's close), with Ben's new bid.
    assert table.undo()["message"]["en"].startswith("Undone: Chie took gold")
    table.act("Chie", "take", {"token": "gold"})
    assert table.expects_now()["inputs"][0]["seats"] == ["Aki", "Ben", "Chie"]


def test_a_correction_keeps_the_secret_choices_made_since(table):
    relay_table(table)
    _bid(table, 2, 0, 1)
    assert table.typed_throw([{"colour": "red", "face": 4}])["ok"]
    table.act("Aki", "take", {"token": "silver"})  # Ben's take is forced after it
    assert table.last_throw_dice() == []  # the last action is Aki's take, not the throw
    table.undo()
    assert table.last_throw_dice() == [{"colour": "red", "face": 4}]
    assert table.correct_throw([{"colour": "red", "face": 6}])["ok"]
    assert [(r.event["type"], r.source) for r in table.store.records(table.record.id)][-1] == ("throw", "corrected")


def test_a_game_that_ends_by_its_rules_is_in_history_at_once(table):
    relay_table(table, rounds=1)
    _bid(table, 2, 0, 1)
    table.typed_throw([{"colour": "red", "face": 4}])
    table.act("Aki", "take", {"token": "gold"})
    table.act("Chie", "take", {"token": "gold"})  # the close is forced: the game is over
    game = table.store.game(table.record.id)
    assert game.ended is not None and game.winner == "Aki, Ben, Chie"
    assert not table.running() and table.snapshot()["view"]["winners"] == ["Aki", "Ben", "Chie"]
    assert table.undo()["ok"]  # Chie's take, and its end: playing again
    assert table.store.game(table.record.id).ended is None and table.running()
    table.act("Chie", "take", {"token": "silver"})
    assert table.store.game(table.record.id).winner == "Aki, Ben"
    assert table.end_game()["ok"]  # puts the finished game away, as it ended
    assert table.store.game(game.id).winner == "Aki, Ben"


ROUND_1 = ["Round 1: bid in secret.", "Bids: Aki 2, Ben 0, Chie 1", "Aki threw 4 (typed by the host)",
           "Aki took silver", "Ben took gold (sent by the table: nothing to choose)", "Chie took gold",
           "Aki closed round 1 (sent by the table: nothing to choose)", "Round 2: bid in secret."]


def test_the_last_rounds_result_stays_until_the_next_round_shows_something(table):
    relay_table(table)
    assert table.snapshot()["last_round"] is None
    _to_round_two(table)
    last = table.snapshot()["last_round"]
    assert last["round"] == 1 and [line["en"] for line in last["lines"]] == ROUND_1
    table.act("Ben", "bid", {"n": 1})  # a lock shows nothing: the summary stays
    assert table.snapshot()["last_round"] == last
    table.act("Aki", "bid", {"n": 1})
    table.act("Chie", "bid", {"n": 0})  # the reveal is round 2's first line
    assert table.snapshot()["last_round"] is None


def test_every_round_of_a_game_being_played_or_over(table, config):
    from pi.web import create_app

    relay_table(table)
    _to_round_two(table)
    _bid(table, 1, 3, 0)
    client = create_app(table, config, {"TESTING": True}).test_client()
    game_id = table.record.id
    rounds = client.get(f"/api/history/{game_id}").json["rounds"]
    assert [r["round"] for r in rounds] == [1, 2]
    assert [line["en"] for line in rounds[0]["lines"]] == ROUND_1 and rounds[1]["lines"][0]["en"].startswith("Bids:")
    page = client.get(f"/history/{game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert page.index("Round 2") < page.index("Round 1") and "Being played" in page  # the newest first
    assert 'id="playing-rounds"' in client.get("/history").get_data(as_text=True)
    table.end_game()
    assert client.get(f"/api/history/{game_id}").json["rounds"] == rounds  # replayed from the store: the same
    assert client.get("/history/999").status_code == 404


def _random_input(table, rng):
    """Send something the game waits for, with plausible values (throws typed by the host)."""
    from pi import inputs

    inp = rng.choice(table.expects_now()["inputs"])
    if inputs.dice_field(inp):
        dice = [{"colour": "red" if d["colour"] == "*" else d["colour"], "face": rng.choice(inputs.FACES[d.get("sides", 6)]),
                 "sides": d.get("sides", 6)} for d in inp.get("dice") or [] for _ in range(d["count"])]
        values = {inputs.dice_field(inp): dice, **inputs.seat_value(inp)}
        return table.act(None, inp["type"], values, source="typed") if inp.get("dice") else None
    seat = rng.choice(inp["seats"]) if inp["seats"] else None
    values = inputs.sample_values(inp, rng)
    if inp.get("secret"):
        return table.act(seat, inp["type"], values)
    return table.act(None, inp["type"], {**values, **({"seat": seat} if seat else {})}, source="host")


@pytest.mark.parametrize("game", ["alea", "dieangler", "chiritsumo", "ariexpress", "flyingdwarves"])
def test_no_game_is_left_waiting_on_a_forced_move(table, game):
    """Played at random through the table, with undos: the table never waits on a seat that
    has nothing to choose, never forces a throw or a secret choice, and undo never lands
    on a forced move (which the table would only send again)."""
    import random

    rng = random.Random(7)
    from tests.pi.conftest import SEATS3

    assert table.start_game(game, SEATS3, {}, seed=3)["ok"]
    for _ in range(150):
        if not table.expects_now()["inputs"]:
            break
        if rng.random() < 0.1:
            table.undo()
        else:
            _random_input(table, rng)
        assert forced_event(table.expects_now()) is None
    for entry in table.ledger.entries:
        if entry.source == "forced":
            assert not entry.secret and not entry.throw


def test_a_game_that_cannot_start_says_why_in_both_languages(table):
    seat = [{"name": "Aki", "colour": "red"}]
    few = table.start_game("alea", seat, {}, seed=1)  # ALEA is for 3 to 5
    assert not few["ok"] and few["error"]["ja"] == "ゲームを始められません: このゲームは3〜5人用です（1席）"
    unknown = table.start_game("chess", seat, {}, seed=1)
    assert not unknown["ok"] and '"chess"' in unknown["error"]["ja"] and "alea" in unknown["error"]["ja"]


def test_a_game_gets_a_seed_too_large_to_search_for(table):
    seats = [{"name": n, "colour": c} for n, c in (("Aki", "red"), ("Ben", "blue"), ("Chie", "green"))]
    assert table.start_game("alea", seats, {})["ok"]
    seed = table.record.seed
    assert seed >= 2 ** 31 and table.store.game(table.record.id).seed == seed  # about 1 in 4 billion is smaller
