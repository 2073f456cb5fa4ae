"""Sky City ALEA: one test per rule of docs/rules/alea.md, named after the rule."""
from __future__ import annotations

import json

import pytest

from engines import alea
from tests.engines.alea_inputs import due
from engines.core import IllegalEvent, SetupError, event_list, replay

SEATS = [
    {"name": "Aki", "colour": "red"},
    {"name": "Ben", "colour": "blue"},
    {"name": "Cy", "colour": "green"},
    {"name": "Dee", "colour": "yellow"},
    {"name": "Eri", "colour": "white"},
]
COLOUR = {s["name"]: s["colour"] for s in SEATS}
NEVER = "total >= 200"  # no table of 25 dice reaches it


def game(players: int = 3, condition: str = NEVER, **options) -> alea.State:
    """A game whose deck is one custom card with ``condition`` (turned over every round)."""
    options.setdefault("cards", [{"id": "X1", "name": "Test", "players": [3, 4, 5], "condition": condition}])
    return alea.setup(SEATS[:players], options, seed=1)


def declare(state: alea.State, **values: int) -> alea.State:
    for seat, value in values.items():
        state = alea.apply(state, {"type": "declare", "seat": seat, "value": value})
    return state


def dice(seat: str, *faces: int) -> list[dict]:
    return [{"colour": COLOUR[seat], "face": f} for f in faces]


def throw(state: alea.State, *dice_lists: list[dict]) -> alea.State:
    return alea.apply(state, {"type": "throw", "dice": [d for ds in dice_lists for d in ds]})


def rethrow(state: alea.State, faces: list[int]) -> alea.State:
    """An escape: rethrow every die on the table, in table order, showing ``faces``."""
    table = alea.view(state)["table"]
    assert len(faces) == len(table)
    return alea.apply(state, {"type": "throw", "dice": [{"colour": d["colour"], "face": f} for d, f in zip(table, faces)]})


def scores(state: alea.State) -> dict[str, int]:
    return alea.view(state)["scores"]


# --- setup and the deck ------------------------------------------------------------------


def test_players_start_at_zero_and_round_one_turns_over_a_trap_card():
    state = alea.setup(SEATS[:4], {}, seed=3)
    view = alea.view(state)
    assert view["scores"] == {"Aki": 0, "Ben": 0, "Cy": 0, "Dee": 0}
    assert view["round"] == 1 and view["phase"] == "declare"
    assert view["card"]["id"].startswith("T")
    assert view["log"][0]["en"].startswith("Round 1: trap card")
    assert view["log"][0]["ja"].startswith("ラウンド1")


def test_only_cards_marked_for_this_player_count_are_used():
    deck = alea.load_deck()
    for players in (3, 4, 5):
        allowed = {c.id for c in deck if players in c.players}
        state = alea.setup(SEATS[:players], {}, seed=players)
        seen = set()
        for _ in range(len(allowed) + 3):
            seen.add(state.card)
            state = declare(state, **{s["name"]: 0 for s in SEATS[:players]})  # round ends at once
            if state.phase != "declare":
                break
        assert seen <= allowed
        assert len(seen) >= min(len(allowed), 3)


def test_deck_is_shuffled_with_the_seed_and_reshuffled_when_empty():
    cards = [{"id": f"C{i}", "players": [3], "condition": NEVER} for i in range(3)]
    state = alea.setup(SEATS[:3], {"cards": cards}, seed=11)
    turned = []
    for _ in range(7):
        turned.append(state.card)
        state = declare(state, Aki=0, Ben=0, Cy=0)
    assert sorted(turned[:3]) == ["C0", "C1", "C2"]  # each card once before a reshuffle
    assert sorted(turned[3:6]) == ["C0", "C1", "C2"]
    assert any("shuffled" in line["en"] for line in alea.view(state)["log"])
    again = alea.setup(SEATS[:3], {"cards": cards}, seed=11)
    assert again.card == turned[0]  # same seed, same deal


def test_physical_deck_waits_for_the_host_to_name_each_card():
    state = alea.setup(SEATS[:3], {"deck": "physical"}, seed=0)
    exp = due(state)
    three = [c.id for c in alea.load_deck() if 3 in c.players]
    assert exp == {"kind": "card", "cards": three}
    five_only = next(c.id for c in alea.load_deck() if 3 not in c.players)
    with pytest.raises(IllegalEvent, match=f'card "{five_only}" is not in the 3-player deck'):
        alea.apply(state, {"type": "card", "card": five_only})
    state = alea.apply(state, {"type": "card", "card": three[0]})
    assert alea.view(state)["card"]["id"] == three[0]
    state = declare(state, Aki=0, Ben=0, Cy=0)
    with pytest.raises(IllegalEvent, match=f"{three[0]} was already turned over"):
        alea.apply(state, {"type": "card", "card": three[0]})
    for card in three[1:]:
        state = alea.apply(state, {"type": "card", "card": card})
        state = declare(state, Aki=0, Ben=0, Cy=0)
    assert due(state)["cards"] == three  # all used: the deck is shuffled again
    assert alea.view(state)["deck"] == {"mode": "physical", "left": 0, "discards": len(three)}
    state = alea.apply(state, {"type": "card", "card": three[0]})
    assert alea.view(state)["deck"] == {"mode": "physical", "left": len(three) - 1, "discards": 0}


def test_dealt_deck_refuses_card_events():
    """A card event at a table whose cards the game deals says so; at a physical-deck table
    between cards it says what the table waits for."""
    state = game()
    err = refused(state, {"type": "card", "card": "X1"})
    assert "deals its trap cards itself (deck: dealt)" in err.en and "deck: dealt" in err.ja
    physical = alea.setup(SEATS[:3], {"deck": "physical"}, seed=0)
    physical = alea.apply(physical, {"type": "card", "card": due(physical)["cards"][0]})
    with pytest.raises(IllegalEvent, match=r"saw a card event, but the table is waiting for declare: Declare in secret how many dice you will throw \(0-5\)"):
        alea.apply(physical, {"type": "card", "card": "X1"})


def test_setup_refuses_bad_seats_and_options():
    with pytest.raises(SetupError, match="3 to 5 seats, saw 2"):
        alea.setup(SEATS[:2], {}, 0)
    with pytest.raises(SetupError, match="3 to 5 seats, saw 6"):
        alea.setup(SEATS + [{"name": "Fu", "colour": "black"}], {}, 0)
    with pytest.raises(SetupError, match=r'unknown option\(s\) \["speed"\]'):
        alea.setup(SEATS[:3], {"speed": 2}, 0)
    with pytest.raises(SetupError, match="option 'deck' is \"shuffled\"; expected one of \"dealt\", \"physical\""):
        alea.setup(SEATS[:3], {"deck": "shuffled"}, 0)
    with pytest.raises(SetupError, match="option 'target' is 0; expected a whole number from 1 to 1000000"):
        alea.setup(SEATS[:3], {"target": 0}, 0)
    with pytest.raises(SetupError, match="options.cards: card Z: 'players'"):
        alea.setup(SEATS[:3], {"cards": [{"id": "Z", "players": [7], "condition": "1"}]}, 0)
    with pytest.raises(SetupError, match="no trap card is marked for 3 players"):
        alea.setup(SEATS[:3], {"cards": [{"id": "Z", "players": [5], "condition": "1"}]}, 0)


# --- declarations --------------------------------------------------------------------------


def test_declarations_are_secret_until_everyone_has_declared():
    state = game()
    public, ben = alea.view(state), alea.view(state, "Ben")
    state = declare(state, Aki=4)
    assert alea.view(state) == public  # not even "Aki has declared"
    assert alea.view(state, "Ben") == ben
    assert alea.view(state, "Aki")["mine"]["declaration"] == 4
    (open_input,) = alea.view(state)["expects"]["inputs"]
    assert open_input["type"] == "declare" and open_input["secret"] and open_input["seats"] == []  # nobody named
    assert alea.expects(state)["inputs"][0]["seats"] == ["Ben", "Cy"]  # the table's own form knows
    assert alea.view(state)["declarations"] is None
    state = declare(state, Ben=2)
    assert alea.view(state) == public | {}  # still nothing shown
    state = declare(state, Cy=0)
    assert alea.view(state)["declarations"] == {"Aki": 4, "Ben": 2, "Cy": 0}
    assert "Declarations: Aki 4, Ben 2, Cy 0" in alea.view(state)["log"][-1]["en"]


def test_declaration_is_locked_once_given():
    state = declare(game(), Aki=2)
    with pytest.raises(IllegalEvent, match="Aki has already declared; a declaration is locked once given"):
        declare(state, Aki=3)


def test_declaration_must_be_0_to_5():
    state = game()
    for bad in (6, -1, "3", 2.0, True, None):
        with pytest.raises(IllegalEvent, match="a declaration is a whole number from 0 to 5"):
            alea.apply(state, {"type": "declare", "seat": "Aki", "value": bad})


def test_declaration_by_unknown_seat_refused():
    with pytest.raises(IllegalEvent, match='unknown seat "Zed"; the seats are Aki, Ben, Cy'):
        declare(game(), Zed=1)


def test_everyone_declares_zero_nobody_scores_and_the_round_ends():
    state = declare(game(), Aki=0, Ben=0, Cy=0)
    assert scores(state) == {"Aki": 0, "Ben": 0, "Cy": 0}
    assert state.round == 2 and state.phase == "declare"
    assert any("Everyone declared 0" in line["en"] for line in alea.view(state)["log"])


# --- throwing groups -------------------------------------------------------------------------


def test_groups_throw_smallest_declaration_first_and_equal_declarations_together():
    state = declare(game(4), Aki=3, Ben=1, Cy=3, Dee=0)
    assert due(state) == {"kind": "throw", "seats": ["Ben"], "dice": {"blue": 1}, "reroll": False}
    state = throw(state, dice("Ben", 2))
    assert due(state) == {
        "kind": "throw",
        "seats": ["Aki", "Cy"],
        "dice": {"red": 3, "green": 3},
        "reroll": False,
    }
    assert alea.view(state)["groups"] == [["Ben"], ["Aki", "Cy"]]


def test_safe_group_scores_its_declarations_and_dice_stay_on_the_table():
    state = declare(game(), Aki=1, Ben=2, Cy=0)
    state = throw(state, dice("Aki", 5))
    assert scores(state) == {"Aki": 1, "Ben": 0, "Cy": 0}
    assert alea.view(state)["table"] == [{"colour": "red", "face": 5}]
    state = throw(state, dice("Ben", 3, 4))
    assert scores(state) == {"Aki": 1, "Ben": 2, "Cy": 0}
    assert state.round == 2  # every group threw: the round ended and the dice were collected
    assert alea.view(state)["table"] == []


def test_trap_is_checked_against_all_dice_on_the_table():
    state = declare(game(condition="1 1 1"), Aki=2, Ben=1, Cy=0)
    state = throw(state, dice("Ben", 1))  # one 1: safe
    state = throw(state, dice("Aki", 1, 1))  # Aki's two 1s + Ben's 1 on the table: trapped
    assert state.phase == "escape"
    assert scores(state)["Aki"] == 0


def test_first_group_trapped_round_ends_and_zero_declarers_score_3():
    state = declare(game(4, condition="6 6"), Aki=2, Ben=2, Cy=0, Dee=4)
    state = throw(state, dice("Aki", 6, 1), dice("Ben", 6, 3))
    assert scores(state) == {"Aki": 0, "Ben": 0, "Cy": 3, "Dee": 0}
    assert state.round == 2 and state.phase == "declare"  # no escape, Dee never threw
    assert any("TRAP on the first throw" in line["en"] for line in alea.view(state)["log"])


def test_later_group_trapped_each_player_escapes_once_lowest_score_first_ties_in_seat_order():
    state = game(4, condition="1 1 1")
    # Round 1 leaves Cy on 3 points, Aki, Ben and Dee on 0.
    state = throw(declare(state, Aki=0, Ben=0, Cy=3, Dee=0), dice("Cy", 2, 3, 4))
    assert scores(state) == {"Aki": 0, "Ben": 0, "Cy": 3, "Dee": 0}
    state = declare(state, Aki=2, Ben=1, Cy=2, Dee=2)
    state = throw(state, dice("Ben", 1))
    state = throw(state, dice("Aki", 1, 5), dice("Cy", 1, 5), dice("Dee", 4, 5))
    assert alea.view(state)["escapes"] == ["Aki", "Dee", "Cy"]  # 0, 0 (seat order), then 3
    assert due(state)["seats"] == ["Aki"]
    state = rethrow(state, [2, 2, 3, 3, 4, 4, 5])
    assert due(state)["seats"] == ["Dee"]
    state = rethrow(state, [1, 1, 1, 3, 4, 4, 5])
    assert due(state)["seats"] == ["Cy"]  # Dee failed, Cy still gets an escape
    state = rethrow(state, [2, 2, 3, 3, 4, 4, 5])
    assert scores(state) == {"Aki": 2, "Ben": 1, "Cy": 5, "Dee": 0}
    assert state.round == 3


def test_escape_rethrows_all_dice_on_the_table():
    state = declare(game(condition="1 1 1"), Aki=2, Ben=1, Cy=0)
    state = throw(state, dice("Ben", 1))
    state = throw(state, dice("Aki", 1, 1))
    assert due(state) == {"kind": "throw", "seats": ["Aki"], "dice": {"red": 2, "blue": 1}, "reroll": True}
    with pytest.raises(IllegalEvent, match=r"expected 2 red and 1 blue dice \(Aki's escape: rethrow all 3 dice"):
        throw(state, dice("Aki", 2, 3))


def test_successful_escapes_continue_the_round_with_the_last_rethrow_on_the_table():
    state = declare(game(condition="1 1 1"), Aki=1, Ben=2, Cy=3)
    state = throw(state, dice("Aki", 1))
    state = throw(state, dice("Ben", 1, 1))
    state = rethrow(state, [5, 6, 1])  # Ben escapes
    assert scores(state) == {"Aki": 1, "Ben": 2, "Cy": 0}
    assert state.phase == "throw" and due(state)["seats"] == ["Cy"]
    assert sorted(d["face"] for d in alea.view(state)["table"]) == [1, 5, 6]
    state = throw(state, dice("Cy", 1, 2, 3))  # the kept 1 plus Cy's 1: two 1s only
    assert scores(state) == {"Aki": 1, "Ben": 2, "Cy": 3}


def test_failed_escape_ends_the_round_after_all_escapes_of_the_group_and_later_groups_do_not_throw():
    state = declare(game(condition="1 1 1"), Aki=1, Ben=2, Cy=2)
    state = throw(state, dice("Aki", 1))
    state = throw(state, dice("Ben", 1, 2), dice("Cy", 1, 2))
    assert alea.view(state)["escapes"] == ["Ben", "Cy"]
    state = rethrow(state, [1, 1, 1, 2, 2])  # Ben fails
    assert state.phase == "escape"  # Cy still escapes
    state = rethrow(state, [2, 2, 3, 3, 4])  # Cy escapes
    assert scores(state) == {"Aki": 1, "Ben": 0, "Cy": 2}
    assert state.round == 2
    state = declare(game(condition="1 1 1"), Aki=1, Ben=2, Cy=3)
    state = throw(state, dice("Aki", 1))
    state = throw(state, dice("Ben", 1, 1))
    state = rethrow(state, [1, 1, 1])
    assert state.round == 2 and scores(state) == {"Aki": 1, "Ben": 0, "Cy": 0}  # Cy never threw


def test_trap_points_go_to_nobody_in_the_trapped_group_before_escaping():
    state = declare(game(condition="6"), Aki=1, Ben=1, Cy=2)
    state = throw(state, dice("Aki", 2), dice("Ben", 3))
    state = throw(state, dice("Cy", 6, 6))
    assert scores(state) == {"Aki": 1, "Ben": 1, "Cy": 0}


# --- the end of the game -------------------------------------------------------------------


def five_each(state: alea.State, players: int) -> alea.State:
    names = [s["name"] for s in SEATS[:players]]
    state = declare(state, **{n: 5 for n in names})
    return throw(state, *[dice(n, 2, 2, 3, 3, 4) for n in names])


def test_last_round_starts_after_someone_reaches_10_and_points_count_double():
    state = five_each(game(4), 4)
    assert scores(state)["Aki"] == 5 and not state.last_round
    state = five_each(state, 4)
    assert scores(state)["Aki"] == 10 and state.last_round and state.round == 3
    assert alea.view(state)["double"] is True
    state = declare(state, Aki=1, Ben=0, Cy=0, Dee=0)
    state = throw(state, dice("Aki", 4))
    assert scores(state) == {"Aki": 12, "Ben": 10, "Cy": 10, "Dee": 10}  # 1 point doubled
    assert state.phase == "over" and alea.view(state)["winner"] == "Aki"


def test_last_round_with_3_players_starts_at_12():
    state = five_each(game(3), 3)
    state = five_each(state, 3)
    assert scores(state)["Aki"] == 10 and not state.last_round
    state = five_each(state, 3)
    assert scores(state)["Aki"] == 15 and state.last_round


def test_target_option_overrides_the_last_round_threshold():
    state = five_each(game(3, target=5), 3)
    assert state.last_round


def test_3_points_for_declaring_0_count_double_in_the_last_round():
    state = five_each(five_each(game(4, condition="6 6"), 4), 4)
    assert state.last_round
    state = declare(state, Aki=0, Ben=2, Cy=3, Dee=3)
    state = throw(state, dice("Ben", 6, 6))
    assert scores(state) == {"Aki": 16, "Ben": 10, "Cy": 10, "Dee": 10}
    assert alea.view(state)["winner"] == "Aki"


def test_game_ends_after_the_last_round_and_refuses_further_events():
    state = five_each(five_each(game(4), 4), 4)
    state = declare(state, Aki=0, Ben=0, Cy=0, Dee=1)
    state = throw(state, dice("Dee", 3))
    assert due(state) == {"kind": "over", "winner": "Dee"}
    with pytest.raises(IllegalEvent, match=r"the game is over \(Dee won\)"):
        declare(state, Aki=1)


def test_tied_leaders_throw_10_dice_most_ones_wins_repeated_until_one_remains():
    state = five_each(five_each(game(4), 4), 4)
    state = declare(state, Aki=0, Ben=0, Cy=0, Dee=0)  # everyone 0 in the last round: game over
    assert state.phase == "tiebreak"
    assert due(state) == {"kind": "throw", "seats": ["Aki"], "dice": {"*": 10}, "reroll": False}
    ten = lambda ones: [{"colour": "any", "face": 1}] * ones + [{"colour": "any", "face": 4}] * (10 - ones)  # noqa: E731
    state = throw(state, ten(2))
    state = throw(state, ten(3))
    state = throw(state, ten(3))
    state = throw(state, ten(1))
    assert alea.view(state)["tiebreak"]["seats"] == ["Ben", "Cy"]  # still tied, again
    assert due(state)["seats"] == ["Ben"]
    with pytest.raises(IllegalEvent, match=r"expected 10 dice of any colour \(Ben's tie-break throw\), saw 9"):
        throw(state, ten(1)[:9])
    state = throw(state, ten(0))
    state = throw(state, ten(1))
    assert state.phase == "over" and alea.view(state)["winner"] == "Cy"
    assert scores(state) == {"Aki": 10, "Ben": 10, "Cy": 10, "Dee": 10}


# --- refused events ------------------------------------------------------------------------


def test_throw_of_wrong_colours_or_counts_is_refused_naming_what_was_seen_and_expected():
    state = declare(game(4), Aki=3, Ben=3, Cy=0, Dee=0)
    message = r"expected 3 red and 3 blue dice \(Aki and Ben's throw\), saw 2 red and 3 blue"
    with pytest.raises(IllegalEvent, match=message):
        throw(state, dice("Aki", 1, 2), dice("Ben", 1, 2, 3))
    with pytest.raises(IllegalEvent, match=r"saw 3 red, 3 blue and 1 green"):
        throw(state, dice("Aki", 1, 2, 3), dice("Ben", 1, 2, 3), dice("Cy", 4))
    with pytest.raises(IllegalEvent, match=r"saw no dice"):
        throw(state, [])


def test_faces_outside_1_to_6_are_refused():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    for face in (0, 7, -1):
        with pytest.raises(IllegalEvent, match=f"shows {face}; expected a face from 1 to 6"):
            throw(state, dice("Aki", face))


def test_throw_while_declarations_are_awaited_is_refused():
    with pytest.raises(IllegalEvent, match="saw a throw event, but the table is waiting for declare: Declare in secret"):
        throw(declare(game(), Aki=1), dice("Aki", 3))


def test_declaration_while_a_throw_is_awaited_is_refused():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    with pytest.raises(IllegalEvent, match=r"waiting for a throw event: 1 red die \(Aki's throw\)"):
        declare(state, Ben=2)


def test_malformed_events_are_refused():
    state = game()
    for event, message in [
        ({"type": "roll"}, 'unknown event type "roll"; expected one of declare, card, throw'),
        ({"seat": "Aki", "value": 1}, "unknown event type null"),
        ({"type": "declare", "seat": "Aki"}, "the declare event has no value"),
        ({"type": "declare", "seat": "Aki", "value": 1, "colour": "red"}, r'unknown field\(s\) \["colour"\]'),
        ("declare Aki 1", "an event is an object"),
    ]:
        with pytest.raises(IllegalEvent, match=message):
            alea.apply(state, event)


def test_throw_naming_a_seat_must_name_the_thrower():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    with pytest.raises(IllegalEvent, match=r"the throw names Ben, but the table is waiting for 1 red die \(Aki's throw\)"):
        alea.apply(state, {"type": "throw", "seat": "Ben", "dice": dice("Aki", 3)})
    state = alea.apply(state, {"type": "throw", "seat": "Aki", "dice": dice("Aki", 3), "comment": "ok"})
    assert scores(state)["Aki"] == 1


def test_refused_event_leaves_the_state_unchanged():
    state = declare(game(), Aki=1, Ben=2)
    before = json.dumps(alea.view(state, "Aki"))
    with pytest.raises(IllegalEvent):
        declare(state, Aki=3)
    with pytest.raises(IllegalEvent):
        throw(state, dice("Aki", 9))
    assert json.dumps(alea.view(state, "Aki")) == before
    assert len(state.events) == 2


# --- views and replays ---------------------------------------------------------------------


def test_view_is_plain_json_with_the_contract_keys():
    state = declare(game(), Aki=1, Ben=0, Cy=2)
    view = alea.view(state, "Cy")
    assert json.loads(json.dumps(view)) == view
    for key in ("game", "round", "phase", "scores", "winner", "seats", "expects", "table", "log", "mine"):
        assert key in view
    assert view["game"] == "alea"
    assert all(set(line) == {"en", "ja"} for line in view["log"])
    with pytest.raises(ValueError, match='unknown seat "Zed"'):
        alea.view(state, "Zed")


def test_the_event_list_rebuilds_the_game_exactly():
    state = alea.setup(SEATS[:4], {}, seed=9)
    state = declare(state, Aki=2, Ben=0, Cy=1, Dee=3)
    state = throw(state, dice("Cy", 4))
    rebuilt, steps = replay(alea, SEATS[:4], {}, 9, event_list(state))
    assert all(s.accepted for s in steps)
    assert rebuilt == state
    undone, _ = replay(alea, SEATS[:4], {}, 9, event_list(state)[:-1])
    assert undone.phase == "throw" and due(undone)["seats"] == ["Cy"]


def test_cards_in_options_without_players_are_used_with_every_count():
    state = alea.setup(SEATS[:5], {"cards": [{"id": "Q", "condition": "6 6"}]}, seed=0)
    assert alea.view(state)["card"]["players"] == [3, 4, 5]


def test_color_is_read_as_colour():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    state = alea.apply(state, {"type": "throw", "dice": [{"color": "red", "face": 2}]})
    assert scores(state)["Aki"] == 1


def test_expects_describes_each_input_for_pages_that_know_no_game():
    state = declare(game(4), Aki=3, Ben=1, Cy=3, Dee=0)
    exp = alea.expects(state)
    assert exp["phase"] == "throw" and exp["winners"] == []
    (throw_input,) = exp["inputs"]
    assert throw_input["type"] == "throw" and throw_input["seats"] == ["Ben"] and not throw_input["secret"]
    assert throw_input["dice"] == [{"colour": "blue", "sides": 6, "count": 1}]
    assert throw_input["camera"] == "new"
    assert [f["kind"] for f in throw_input["fields"]] == ["dice"]
    assert set(throw_input["prompt"]) == {"en", "ja"} and "Ben" in throw_input["prompt"]["en"]
    (declare_input,) = alea.expects(game(4))["inputs"]
    (value,) = declare_input["fields"]
    assert value == {"name": "value", "kind": "number", "min": 0, "max": 5, "button": True,
                     "label": {"en": "Dice to throw", "ja": "振るダイスの数"}}
    assert not any(name in declare_input["prompt"]["en"] for name in ("Aki", "Ben", "Cy", "Dee"))


# --- bad input: refused in both languages, never a crash ------------------------------------


def refused(state: alea.State, event) -> IllegalEvent:
    with pytest.raises(IllegalEvent) as err:
        alea.apply(state, event)
    assert err.value.ja and err.value.ja != err.value.en
    return err.value


def test_declarations_that_are_not_ascii_whole_numbers_are_refused():
    state = game()
    for bad in (float("nan"), float("inf"), 2.5, "３", "2", "²"):
        exc = refused(state, {"type": "declare", "seat": "Aki", "value": bad})
        assert "a declaration is a whole number from 0 to 5" in exc.en and "0〜5の整数" in exc.ja


def test_dice_that_are_not_whole_faces_are_refused():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    for face in (float("nan"), float("inf"), 2.0, "3", None):
        exc = refused(state, {"type": "throw", "dice": [{"colour": "red", "face": face}]})
        assert "expected a face from 1 to 6" in exc.en


def test_every_list_and_name_an_event_carries_is_bounded():
    state = declare(game(), Aki=1, Ben=0, Cy=0)
    exc = refused(state, {"type": "throw", "dice": [["red", 3]] * 61})
    assert "at most 60" in exc.en
    exc = refused(state, {"type": "throw", "seat": "Z" * 1_000_000, "dice": dice("Aki", 3)})
    assert len(exc.en) < 200 and len(exc.ja) < 200  # the name echoed in short
    physical = alea.setup(SEATS[:3], {"deck": "physical"}, seed=0)
    for bad in ("T" * 1_000_000, ["T01"], {"id": "T01"}, 1, None):
        exc = refused(physical, {"type": "card", "card": bad})
        assert "is not in the 3-player deck" in exc.en and len(exc.en) < 400


def test_options_that_are_not_plain_numbers_or_too_big_are_refused():
    for options, message in [
        ({"target": float("nan")}, "option 'target' is nan"),
        ({"target": 10.0}, "option 'target' is 10.0"),
        ({"target": 1_000_001}, "from 1 to 1000000"),
        ({"cards": [{"id": f"C{i}", "condition": "1"} for i in range(101)]}, "at most 100"),
        ({"cards": [{"id": "C", "condition": "total >= ５"}]}, "cannot read"),
        ({"cards": "T01"}, "give a list of cards"),
    ]:
        with pytest.raises(SetupError, match=message) as err:
            alea.setup(SEATS[:3], options, 0)
        assert err.value.ja and err.value.ja != err.value.en


def test_a_seat_coloured_like_the_any_colour_wildcard_is_refused():
    with pytest.raises(SetupError, match='has the colour "\\*"'):
        alea.setup([{"name": "Aki", "colour": "*"}] + SEATS[1:3], {}, 0)


def test_only_dice_of_the_groups_own_colours_count_as_its_dice():
    state = declare(game(), Aki=2, Ben=0, Cy=0)
    exc = refused(state, {"type": "throw", "dice": dice("Aki", 3) + dice("Ben", 4)})
    assert exc.en == "expected 2 red dice (Aki's throw), saw 1 red and 1 blue"
    assert exc.ja == "必要なのはダイス 赤2個（Akiの番）ですが、振られたのは赤1個・青1個でした"
    exc = refused(state, {"type": "throw", "dice": [{"colour": "*", "face": 3}] * 2})
    assert "no colour" in exc.en


def test_the_end_of_the_game_is_said_in_both_languages():
    state = five_each(five_each(game(4), 4), 4)
    state = throw(declare(state, Aki=0, Ben=0, Cy=0, Dee=1), dice("Dee", 3))
    exc = refused(state, {"type": "declare", "seat": "Aki", "value": 1})
    assert exc.ja == "ゲームは終わりました（Deeの勝利）。これ以上イベントは受け付けません"


def test_seat_colours_are_the_tables_own_names():
    """Colours are names chosen per table (RULES.md): a seat's dice may be "amber" or
    "smoky quartz", and a throw is checked against those names like any other."""
    seats = [{"name": "Aki", "colour": "amber"}, {"name": "Ben", "colour": "smoky quartz"}, {"name": "Cy", "colour": "red"}]
    state = alea.setup(seats, {"cards": [{"id": "X1", "name": "Test", "players": [3], "condition": NEVER}]}, seed=1)
    state = declare(state, Aki=2, Ben=1, Cy=0)
    err = refused(state, {"type": "throw", "dice": [{"colour": "red", "face": 3}]})
    assert "smoky quartz" in err.en
    state = throw(state, [{"colour": "smoky quartz", "face": 3}])
    assert [d["colour"] for d in alea.view(state)["table"]] == ["smoky quartz"]


def test_the_log_names_the_trap_condition_in_words_of_each_language():
    """The round's first log line says the trap condition as the board does, not in the
    card notation ("4 4 4 or total >= 60" is English on a Japanese page)."""
    state = game(condition="4 4 4 or total >= 60")
    line = alea.view(state)["log"][-1]
    assert line["en"].endswith(": at least three 4s, or a total of 60 or more")
    assert line["ja"].endswith(": 少なくとも4が3個、または出目の合計が60以上") and "or" not in line["ja"]
