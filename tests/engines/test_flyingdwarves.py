"""Flying Dwarves, rule by rule (docs/rules/flyingdwarves.md, the script format's (docs/replay.md) Flying Dwarves section)."""
from __future__ import annotations

import json

import pytest

from engines import core
from engines import flyingdwarves as fd
from engines.core import DataError, IllegalEvent, SetupError

NAMES = ("Aki", "Ben", "Chika", "Dan", "Emi")
COLOURS = ("red", "blue", "green", "yellow", "white")
# 0 start, 1 mine 2, 2 treasure 1, 3 wasteland, 4 lot, 5 mine ?, 6 mine 1, 7 lot, 8 mine 3, 9 lot
BOARD = ["start", "mine 2", "treasure 1", "wasteland", "lot", "mine ?", "mine 1", "lot", "mine 3", "lot"]


def seats(n=3):
    return [{"name": NAMES[i], "colour": COLOURS[i]} for i in range(n)]


def ev(kind, seat=None, **kw):
    e = {"type": kind, **kw}
    if seat is not None:
        e["seat"] = seat
    return e


def new(n=3, board=BOARD, items=None, deck="dealt", seed=1):
    opts = {"board": board, "deck": deck}
    opts["items"] = items or ["+1"] * 10
    return fd.setup(seats(n), opts, seed)


def started(n=3, **kw):
    """Handicaps chosen (points where possible), items then cleared: the first propel."""
    s = new(n, **kw)
    order = {3: ["1 point", "1 item"], 4: ["2 points", "1 point", "1 item"],
             5: ["2 points", "1 point", "2 items", "1 item"]}[n]
    for k, seat in enumerate(range(n - 1, 0, -1)):
        s = fd.apply(s, ev("handicap", NAMES[seat], choice=order[k]))
        while s.phase == "draw":
            t = s.tasks[0]
            s = fd.apply(s, ev("draw", NAMES[t[1]], cards=list(s.deck[: t[2]])))
    assert s.phase == "propel"
    return core.replace(s, items=((),) * n, points=(3,) * n)


def at(s, **kw):
    return core.replace(s, **kw)


def passes(s, *names):
    """Each seat named passes, in turn (priority moves one seat clockwise per pass)."""
    for name in names:
        s = fd.apply(s, ev("pass", name))
    return s


def propel(s, *cards):
    for i, c in enumerate(cards):
        s = fd.apply(s, ev("propel", NAMES[i], card=c))
    return s


def pts(s):
    return list(s.points)


# --- setup and handicaps -------------------------------------------------------------------

def test_setup_hands_points_and_cubes():
    s = new(4)
    assert s.hands == ((0, 1, 2, 3, 4),) * 4 and s.points == (3,) * 4 and s.supply == (4,) * 4
    assert all(s.start_cube) and s.p == (0,) * 4
    s5 = new(5)
    assert s5.hands[0] == (0, 1, 2, 3, 4, 5)


def test_handicaps_in_reverse_turn_order_each_once_first_player_none():
    s = new(4)
    assert fd.expects(s)["inputs"][0]["seats"] == ["Dan"]
    opts = [o["value"] for o in fd.expects(s)["inputs"][0]["fields"][0]["options"]]
    assert opts == ["1 point", "1 item", "2 points"]
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("handicap", "Ben", choice="1 point"))
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("handicap", "Dan", choice="2 items"))  # 5 seats only
    s = fd.apply(s, ev("handicap", "Dan", choice="2 points"))
    assert s.points[3] == 5
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("handicap", "Chika", choice="2 points"))  # taken
    s = fd.apply(s, ev("handicap", "Chika", choice="1 item"))
    assert len(s.items[2]) == 1  # dealt: drawn at once
    s = fd.apply(s, ev("handicap", "Ben", choice="1 point"))
    assert s.phase == "propel" and s.points == (3, 4, 3, 5)
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("handicap", "Aki", choice="1 point"))


def test_three_seats_offer_no_two_points():
    s = new(3)
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("handicap", "Chika", choice="2 points"))


def test_physical_item_handicap_needs_a_draw_of_cards_in_the_deck():
    s = new(3, deck="physical", items=["+1", "-2", "copy"])
    s = fd.apply(s, ev("handicap", "Chika", choice="1 item"))
    assert s.phase == "draw"
    inp = fd.expects(s)["inputs"][0]
    assert inp["type"] == "draw" and inp["fields"][0]["kind"] == "multi" and inp["fields"][0]["min"] == 1
    for bad in (["+1", "-2"], ["+3"], []):
        with pytest.raises(IllegalEvent):
            fd.apply(s, ev("draw", "Chika", cards=bad))
    s = fd.apply(s, ev("draw", "Chika", cards=["copy"]))
    assert s.items[2] == ("copy",) and sorted(s.deck) == ["+1", "-2"] and s.phase == "handicap"


def test_dealt_deck_refuses_draw_events():
    s = new(3)
    s = fd.apply(s, ev("handicap", "Chika", choice="1 item"))
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("draw", "Ben", cards=["+1"]))


# --- propulsion cards ---------------------------------------------------------------------

def test_propel_is_secret_until_all_have_chosen():
    s = started(3)
    s = fd.apply(s, ev("propel", "Aki", card=3))
    pub = fd.view(s)
    text = json.dumps(pub)
    assert pub["played"] == {} and pub["order"] == [] and pub["phase"] == "propel"
    assert "Aki" not in json.dumps(pub["expects"]) and '"chosen"' not in text
    assert fd.view(s, "Aki")["mine"]["chosen"] == 3
    assert fd.view(s, "Ben")["mine"]["chosen"] is None
    assert core.public(fd.expects(s))["inputs"][0]["seats"] == []
    assert fd.expects(s)["inputs"][0]["seats"] == ["Ben", "Chika"]
    f = fd.expects(s)["inputs"][0]["fields"][0]
    assert f["kind"] == "number" and f["button"] is True and f["max"] == 4


def test_propel_refusals_name_only_the_own_hand():
    s = started(3)
    s = at(s, hands=((0, 1), (0, 2, 3), (0, 4)))
    with pytest.raises(IllegalEvent, match="your hand holds 0, 1") as err:
        fd.apply(s, ev("propel", "Aki", card=3))
    assert "2, 3" not in str(err.value)
    with pytest.raises(IllegalEvent, match="a propulsion card is a whole number 0-4 with 3 players, saw 5"):
        fd.apply(s, ev("propel", "Aki", card=5))
    s = fd.apply(s, ev("propel", "Aki", card=1))
    with pytest.raises(IllegalEvent, match="already"):
        fd.apply(s, ev("propel", "Aki", card=0))


def test_reveal_cards_leave_hand_and_zero_returns_discards_then_itself():
    s = started(3)
    s = at(s, hands=((0, 1, 4), (0, 2), (0, 1, 3)), discards=((2, 3), (1, 3, 4), (2, 4)))
    s = propel(s, 0, 2, 3)
    assert s.hands == ((1, 2, 3, 4), (0,), (0, 1)) and s.discards == ((), (1, 3, 4), (2, 4))
    assert s.phase == "move" and s.mover == 0
    s = fd.apply(s, ev("move", "Aki"))  # 0: stays, nothing happens
    assert s.p[0] == 0 and s.hands[0] == (0, 1, 2, 3, 4) and s.points[0] == 3
    s = fd.apply(s, ev("move", "Ben"))  # 2: treasure 1
    assert s.discards[1] == (1, 2, 3, 4) and len(s.items[1]) == 1


# --- movement ------------------------------------------------------------------------------

def test_blocked_spaces_step_back_but_treasure_is_shared():
    s = propel(started(3), 2, 2, 2)
    s = fd.apply(s, ev("move", "Aki"))
    s = fd.apply(s, ev("move", "Ben"))
    assert s.p[:2] == (2, 2)  # treasure holds both
    s = fd.apply(s, ev("move", "Chika"))
    assert s.p[2] == 2
    s = propel(s, 1, 3, 4)  # round 2 starts with Ben
    assert s.order == (1, 2, 0)
    s = fd.apply(s, ev("move", "Ben"))  # to 5
    s = fd.apply(s, ev("discard", "Ben", card=None))
    s = fd.apply(s, ev("move", "Chika"))  # to 6
    assert s.p[2] == 6
    s = fd.apply(s, ev("move", "Aki"))  # 1: to 3 (wasteland), free
    assert s.p[0] == 3


def test_step_back_many_and_never_behind_the_start_space():
    s = started(3)
    s = at(s, p=(4, 5, 3))
    s = propel(s, 3, 1, 1)
    # Aki (4) would reach 7, then Ben 6, Chika 4
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 7
    s = fd.apply(s, ev("invest", "Aki", place=False))
    s = fd.apply(s, ev("move", "Ben"))
    assert s.p[1] == 6
    s = fd.apply(s, ev("move", "Chika"))  # 3 -> 4, free (nobody there moved)
    assert s.p[2] == 4
    s = at(s)
    s = fd.apply(s, ev("invest", "Chika", place=False))
    # next round: Ben from 6 plays 1 -> 7 free; Chika from 4 plays 3 -> 7 blocked, 6 ... back to 4? 5 free
    s = at(s, hands=((0, 1, 2, 3, 4),) * 3, discards=((),) * 3)
    s = propel(s, 0, 1, 3)
    s = fd.apply(s, ev("move", "Ben"))
    s = fd.apply(s, ev("invest", "Ben", place=False))
    s = fd.apply(s, ev("move", "Chika"))
    assert s.p[2] == 6


def test_blocked_back_to_start_space_gives_nothing():
    s = propel(started(3), 1, 1, 2)
    s = fd.apply(s, ev("move", "Aki"))  # 0 -> 1, mine 2
    assert s.p[0] == 1 and s.points[0] == 5
    s = fd.apply(s, ev("move", "Ben"))  # 1 is taken by a disc that moved: back to 0, its start
    assert s.p[1] == 0 and s.points[1] == 3 and s.discards[1] == (1,)
    s = fd.apply(s, ev("move", "Chika"))  # 0 -> 2, treasure
    assert s.p[2] == 2 and len(s.items[2]) == 1


def test_discs_that_have_not_moved_do_not_block():
    s = at(started(3), p=(0, 0, 2))
    s = propel(s, 2, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))  # Chika stands on 2 but has not moved yet: fine
    assert s.p[0] == 2


def test_zero_move_after_items_does_nothing():
    s = started(3)
    s = at(s, items=(("-3",), (), ()))
    s = propel(s, 2, 1, 1)
    s = fd.apply(s, ev("item", "Aki", card="-3"))
    s = passes(s, "Ben", "Chika", "Aki")
    assert s.phase == "move" and s.modifier == -3
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 0 and s.points[0] == 3 and s.discards[0] == (2,)


# --- spaces --------------------------------------------------------------------------------

def test_mine_points():
    s = propel(started(3), 1, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.points[0] == 5


def test_question_mine_discard_for_points_never_zero():
    s = started(3)
    s = at(s, p=(4, 0, 0))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.phase == "discard"
    card = fd.expects(s)["inputs"][0]["fields"][0]
    assert [o["value"] for o in card["options"]] == [None, 2, 3, 4]
    assert card["default"] is None  # the default keeps the cards
    for bad in (0, 1, 7):
        with pytest.raises(IllegalEvent):
            fd.apply(s, ev("discard", "Aki", card=bad))
    s = fd.apply(s, ev("discard", "Aki", card=4))
    assert s.points[0] == 7 and s.discards[0] == (1, 4) and s.hands[0] == (0, 2, 3)


def test_question_mine_with_only_zero_in_hand_asks_nothing():
    s = started(3)
    s = at(s, p=(4, 0, 0), hands=((0, 1), (0, 1, 2, 3, 4), (0, 1, 2, 3, 4)))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.phase == "move" and s.mover == 1


def test_treasure_draws_and_reshuffles_the_used_pile():
    s = started(3, items=["+2", "-1"])
    s = at(s, deck=(), used=("+2", "-1"))
    s = propel(s, 2, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert len(s.items[0]) == 1 and len(s.deck) == 1 and s.used == ()
    assert sorted(s.items[0] + s.deck) == ["+2", "-1"]


def test_treasure_deck_and_used_empty_draws_fewer():
    s = started(3)
    s = at(s, deck=(), used=(), p=(1, 0, 0))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.items[0] == () and s.mover == 1


def test_physical_treasure_after_deck_runs_out_takes_the_used_pile():
    s = started(3, deck="physical", items=["+1", "copy", "cancel"])
    s = at(s, deck=("+1",), used=("copy", "cancel"), p=(0, 0, 0))
    board = ["start", "treasure 2"] + BOARD[2:]
    s = at(s, board=tuple(fd.board_from(board, "t")))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.phase == "draw"
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("draw", "Aki", cards=["copy", "cancel"]))  # the deck's +1 comes first
    s = fd.apply(s, ev("draw", "Aki", cards=["+1", "cancel"]))
    assert sorted(s.items[0]) == ["+1", "cancel"] and s.deck == ("copy",) and s.used == ()


def test_wasteland_discards_the_two_highest_never_zero():
    s = started(3)
    s = at(s, p=(1, 0, 0))
    s = propel(s, 2, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.hands[0] == (0, 1) and s.discards[0] == (2, 3, 4)
    s2 = at(started(3), p=(1, 0, 0), hands=((0, 2),) + ((0, 1, 2, 3, 4),) * 2)
    s2 = propel(s2, 2, 0, 0)
    s2 = fd.apply(s2, ev("move", "Aki"))
    assert s2.hands[0] == (0,) and s2.discards[0] == (2,)


def test_lot_invest_score_own_pay_others_and_cap():
    s = started(3)
    s = propel(s, 4, 3, 0)
    s = fd.apply(s, ev("move", "Aki"))  # 4: lot, empty
    assert s.phase == "invest"
    assert fd.expects(s)["inputs"][0]["fields"][0]["kind"] == "bool"
    s = fd.apply(s, ev("invest", "Aki", place=True))
    assert s.cubes[4][0] == 1 and s.supply[0] == 3
    s = fd.apply(s, ev("move", "Ben"))  # 3: wasteland
    s = fd.apply(s, ev("move", "Chika"))
    s = propel(s, 0, 1, 4)  # round 2: Ben, Chika, Aki
    s = fd.apply(s, ev("move", "Ben"))  # 3 -> 4: pays Aki 1, then may invest
    assert pts(s) == [4, 2, 3] and s.phase == "invest"
    s = fd.apply(s, ev("invest", "Ben", place=True))
    assert s.cubes[4] == (1, 1, 0)
    assert fd.lots_with_room(s) == [7, 9]  # cap 2 with 3 seats
    s = fd.apply(s, ev("move", "Chika"))  # 0 + 4 = 4, Ben moved there: back to 3
    assert s.p[2] == 3
    s = fd.apply(s, ev("move", "Aki"))


def test_lot_full_refuses_invest_and_owner_scores_all_cubes():
    s = started(3)
    cubes = list(s.cubes)
    cubes[4] = (1, 1, 0)
    s = at(s, cubes=tuple(cubes), supply=(3, 3, 4))
    s = propel(s, 4, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.points[0] == 5 and s.phase == "move"  # full: no invest asked
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("invest", "Aki", place=True))
    s2 = at(started(3), cubes=tuple(cubes), supply=(3, 3, 4))
    s2 = propel(s2, 0, 0, 4)
    s2 = fd.apply(s2, ev("move", "Aki"))
    s2 = fd.apply(s2, ev("move", "Ben"))
    s2 = fd.apply(s2, ev("move", "Chika"))
    assert pts(s2) == [4, 4, 1]


def test_cap_three_with_four_seats():
    s = started(4)
    cubes = list(s.cubes)
    cubes[4] = (1, 1, 0, 0)
    s = at(s, cubes=tuple(cubes))
    s = propel(s, 0, 0, 4, 0)
    for name in ("Aki", "Ben", "Chika"):
        s = fd.apply(s, ev("move", name))
    assert s.phase == "invest"
    s = fd.apply(s, ev("invest", "Chika", place=True))
    assert sum(s.cubes[4]) == 3


# --- laps, goal, end -----------------------------------------------------------------------

def test_start_cube_after_one_lap_and_goal_bonuses_and_end():
    s = started(3)
    L = len(BOARD)
    s = at(s, p=(L - 1, 2 * L - 2, 2 * L - 1), offered=(False, True, True))
    s = propel(s, 2, 3, 4)
    s = fd.apply(s, ev("move", "Aki"))  # to L+1: mine 2, then the start cube
    assert s.points[0] == 5 and s.phase == "start_cube"
    opts = [o["value"] for o in fd.expects(s)["inputs"][0]["fields"][0]["options"]]
    assert opts == [4, 7, 9, None]
    with pytest.raises(IllegalEvent, match="is not a lot with room; choose one of 4, 7, 9 or null"):
        fd.apply(s, ev("start_cube", "Aki", lot=1))
    with pytest.raises(IllegalEvent, match='a lot is named by its space\'s number, like 4; saw "7"'):
        fd.apply(s, ev("start_cube", "Aki", lot="7"))
    s = fd.apply(s, ev("start_cube", "Aki", lot=7))
    assert s.cubes[7][0] == 1 and not s.start_cube[0] and s.supply[0] == 4
    s = fd.apply(s, ev("move", "Ben"))  # 2L+1 is blocked by Aki: 2L, the start: goal, first
    assert s.finished == (1,) and s.p[1] == 2 * L
    assert s.points[1] == 3 + 6
    s = fd.apply(s, ev("move", "Chika"))  # 2L+3, wasteland: goal, second
    assert s.finished == (1, 2) and s.phase == "over"
    # Aki at L+1: d = L-1 = 9 -> -3; Aki holds lot 7 alone: +1
    assert s.final[0] == (3, 1)
    assert s.points == (5 - 3 + 1, 9, 3 + 3)
    assert s.winners == (1,)
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("move", "Aki"))
    assert fd.expects(s)["inputs"] == []


def test_game_ends_at_the_end_of_the_round_not_at_the_arrival():
    s = started(3)
    L = len(BOARD)
    s = at(s, p=(2 * L - 1, 2 * L - 1, 0), offered=(True, True, False))
    s = propel(s, 1, 1, 1)
    s = fd.apply(s, ev("move", "Aki"))
    s = fd.apply(s, ev("move", "Ben"))  # blocked at 2L? space 0 taken by Aki -> back to 2L-1 = start: stays
    assert s.finished == (0,) and s.p[1] == 2 * L - 1
    s = fd.apply(s, ev("move", "Chika"))
    assert s.phase == "propel"


def test_third_arrival_scores_nothing_and_finished_seats_play_on():
    s = started(3)
    L = len(BOARD)
    s = at(s, p=(2 * L + 1, 2 * L - 1, 2 * L - 2), finished=(0,), offered=(True,) * 3)
    s = propel(s, 1, 2, 3)
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 2 * L + 2
    s = fd.apply(s, ev("move", "Ben"))
    s = fd.apply(s, ev("move", "Chika"))
    assert s.finished == (0, 1, 2) and s.phase == "over"


def test_distance_penalty_steps():
    s = started(3)
    L = len(BOARD)
    for d, pen in ((5, 0), (6, 3), (10, 3), (11, 6), (15, 6), (16, 9)):
        t = at(s, p=(2 * L - d, 0, 0))
        assert fd.final_parts(t)[0][0] == pen


def test_majority_sole_top_holder_scores_by_cubes_on_the_lot():
    s = started(4)
    cubes = list(s.cubes)
    cubes[4] = (2, 1, 0, 0)  # 3 cubes: Aki 5
    cubes[7] = (1, 1, 0, 0)  # tie: nobody
    cubes[9] = (0, 0, 2, 0)  # 2 cubes: Chika 3
    s = at(s, cubes=tuple(cubes))
    assert [m for _, m in fd.final_parts(s)] == [5, 0, 3, 0]


# --- items ----------------------------------------------------------------------------------

def resolved(cards):
    eff, void = fd.resolve_items(cards)
    return [e for e, v in zip(eff, void) if not v and e is not None]


def test_resolution_copy_cancel():
    assert resolved(["+2", "copy"]) == ["+2", "+2"]
    assert resolved(["copy", "+1"]) == ["+1"]
    assert resolved(["+2", "-1", "cancel"]) == ["+2", "cancel"]
    assert resolved(["+2", "cancel", "cancel"]) == ["+2", "cancel"]  # a voided cancel voids nothing
    assert resolved(["-2", "cancel", "copy"]) == ["-2", "cancel"]  # the copied cancel voids the cancel
    assert resolved(["+3", "copy", "cancel"]) == ["+3", "cancel"]  # the copy is voided
    assert resolved(["cancel", "+1"]) == ["cancel", "+1"]  # first cancel: nothing before it


def test_items_plus_minus_priority_and_all_pass():
    s = started(3)
    s = at(s, items=(("+2",), ("-1", "copy"), ("cancel",)))
    s = propel(s, 1, 0, 0)
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("item", "Ben", card="cancel"))  # not held
    s = fd.apply(s, ev("item", "Ben", card="-1"))
    assert s.phase == "exchange" and s.priority == 2
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("pass", "Aki"))  # out of priority
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("move", "Aki"))
    s = fd.apply(s, ev("pass", "Chika"))
    s = fd.apply(s, ev("item", "Aki", card="+2"))  # an item: the passes count from 0 again
    assert s.priority == 1 and s.passes == 0
    s = fd.apply(s, ev("item", "Ben", card="copy"))
    assert s.priority == 2
    s = passes(s, "Chika", "Aki")
    assert s.phase == "exchange" and s.priority == 1  # two passes of three: it goes on
    s = fd.apply(s, ev("pass", "Ben"))  # Ben, who holds nothing now, passes too: all passed
    assert s.phase == "move" and s.modifier == -1 + 2 + 2
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("item", "Chika", card="cancel"))  # the exchange is over
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 4 and sorted(s.used) == ["+2", "-1", "copy"]


def test_a_seat_without_items_is_offered_the_pass_alone_and_must_send_it():
    s = started(3)
    s = at(s, items=(("+2", "+1"), (), ()))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("item", "Aki", card="+2"))
    assert s.priority == 1
    inputs = fd.expects(s)["inputs"]
    assert [(i["type"], i["seats"], i["fields"]) for i in inputs] == [("pass", ["Ben"], [])]
    with pytest.raises(IllegalEvent, match="Ben"):
        fd.apply(s, ev("move", "Aki"))  # the engine never passes for Ben
    s = fd.apply(s, ev("pass", "Ben"))
    assert s.phase == "exchange" and s.priority == 2 and s.passes == 1
    s = fd.apply(s, ev("pass", "Chika"))
    assert s.priority == 0
    assert [i["type"] for i in fd.expects(s)["inputs"]] == ["item", "pass"]  # Aki holds the +1
    s = fd.apply(s, ev("pass", "Aki"))
    assert s.phase == "move" and s.modifier == 2 and s.ex_done


def test_the_exchange_ends_only_after_every_seat_passed_in_a_row():
    s = started(4)
    s = at(s, items=(("+1", "+1"), (), ("-1",), ()))
    s = propel(s, 1, 0, 0, 0)
    s = fd.apply(s, ev("item", "Aki", card="+1"))
    s = passes(s, "Ben")
    s = fd.apply(s, ev("item", "Chika", card="-1"))  # resets the count: four more passes are due
    s = passes(s, "Dan", "Aki", "Ben")
    assert s.phase == "exchange" and s.priority == 2
    s = passes(s, "Chika")
    assert s.phase == "move" and s.modifier == 0


def test_a_pass_out_of_priority_or_outside_an_exchange_is_refused():
    s = started(3)
    s = at(s, items=(("+1",), ("-1",), ()))
    s = propel(s, 1, 0, 0)
    with pytest.raises(IllegalEvent, match="saw a pass event"):
        fd.apply(s, ev("pass", "Aki"))  # no exchange is open
    s = fd.apply(s, ev("item", "Ben", card="-1"))
    for seat in ("Aki", "Ben"):
        with pytest.raises(IllegalEvent, match=f"{seat} cannot pass now") as err:
            fd.apply(s, ev("pass", seat))
        assert "Chika" in err.value.ja and "パス" in err.value.ja


def test_cancel_voids_the_card_before():
    s = started(3)
    s = at(s, items=(("+3",), ("cancel",), ()))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("item", "Aki", card="+3"))
    s = fd.apply(s, ev("item", "Ben", card="cancel"))
    s = passes(s, "Chika", "Aki", "Ben")
    assert s.phase == "move" and s.modifier == 0
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 1


def test_swap_robot_one_candidate_and_tie_choice():
    s = started(3)
    s = at(s, p=(0, 2, 5), items=((), ("swap",), ()))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("item", "Ben", card="swap"))
    s = passes(s, "Chika", "Aki", "Ben")
    # Aki (0) swaps with the least above: Ben (2)
    assert s.p[:2] == (2, 0) and s.phase == "move"
    s = fd.apply(s, ev("move", "Aki"))
    assert s.p[0] == 3
    t = started(3)
    t = at(t, p=(0, 2, 2), items=(("swap",), (), ()))
    t = propel(t, 1, 0, 0)
    t = fd.apply(t, ev("item", "Aki", card="swap"))
    t = passes(t, "Ben", "Chika", "Aki")
    assert t.phase == "swap"
    opts = [o["value"] for o in fd.expects(t)["inputs"][0]["fields"][0]["options"]]
    assert opts == ["Ben", "Chika"]
    with pytest.raises(IllegalEvent):
        fd.apply(t, ev("swap", "Aki", **{"with": "Aki"}))
    t = fd.apply(t, ev("swap", "Aki", **{"with": "Chika"}))
    assert t.p == (2, 2, 0)


def test_develop_robot_places_a_mover_cube():
    s = started(3)
    s = at(s, items=((), (), ("develop",)))
    s = propel(s, 1, 0, 0)
    s = fd.apply(s, ev("item", "Chika", card="develop"))
    s = passes(s, "Aki", "Ben", "Chika")
    assert s.phase == "develop" and fd.expects(s)["inputs"][0]["seats"] == ["Aki"]
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("develop", "Aki", lot=3))
    s = fd.apply(s, ev("develop", "Aki", lot=9))
    assert s.cubes[9][0] == 1 and s.supply[0] == 3 and s.phase == "move"


def test_one_exchange_per_move():
    s = started(3)
    s = at(s, items=(("+1", "+1"), (), ()))
    s = propel(s, 1, 1, 1)
    s = fd.apply(s, ev("item", "Aki", card="+1"))
    s = passes(s, "Ben", "Chika", "Aki")
    assert s.phase == "move" and s.ex_done
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("item", "Aki", card="+1"))
    s = fd.apply(s, ev("move", "Aki"))
    assert s.mover == 1 and not s.ex_done
    s = fd.apply(s, ev("item", "Aki", card="+1"))  # a new move: a new exchange


# --- data ----------------------------------------------------------------------------------

def test_default_data_is_valid_and_sized():
    board, items = fd.load_data()
    assert len(items) == 40 and board[0] == ("start", None)
    kinds = {k for k, _ in board}
    assert kinds == {"start", "mine", "treasure", "wasteland", "lot"}
    assert ("mine", "?") in board


def test_bad_data_names_file_entry_and_fault(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('board = ["start", "mine 1", "lot", "volcano", "lot", "mine 2"]\nitems = ["+1"]\n')
    with pytest.raises(DataError, match=r'bad.toml: board space 3 \("volcano"\).*unknown space'):
        fd.load_data(p)
    p.write_text('board = ["start", "mine 1", "lot", "wasteland", "lot", "mine 2"]\nitems = ["+1", "+0"]\n')
    with pytest.raises(DataError, match=r'bad.toml: item card 2 \("\+0"\)'):
        fd.load_data(p)
    with pytest.raises(SetupError, match="option board: board space 0"):
        fd.setup(seats(3), {"board": ["lot"] * 8}, 0)
    with pytest.raises(SetupError, match="option items"):
        fd.setup(seats(3), {"items": ["robot"]}, 0)
    with pytest.raises(SetupError):
        fd.setup(seats(3), {"deck": "shuffled"}, 0)
    with pytest.raises(SetupError):
        fd.setup(seats(2), {}, 0)


def test_any_loop_of_two_spaces_or_more_and_any_numbers_set_up():
    """docs/replay.md gives the board and the items no length or range: a hand-worked game may
    play a short loop with big mines (numbers up to 99, so a move stays a move)."""
    s = fd.setup(seats(3), {"board": ["start", "mine 12"], "items": ["+10", "-11", "copy"]}, 0)
    assert s.board == (("start", None), ("mine", 12)) and "+10" in s.deck + s.used
    assert fd.board_from(["start", "treasure 7", "lot"], "x")[1] == ("treasure", 7)
    for board in (["start"], ["start", "mine 0"], ["start", "mine 01"], ["start", "mine ²"], ["start", "mine 100"]):
        with pytest.raises(SetupError, match="option board"):
            fd.setup(seats(3), {"board": board}, 0)
    for card in ("+0", "+", "+1.5", "+²", "+100", "+" + "9" * 5000):
        with pytest.raises(SetupError, match="option items"):
            fd.setup(seats(3), {"items": [card]}, 0)


def test_view_keys():
    s = started(3)
    v = fd.view(s, "Aki")
    for key in ("game", "phase", "scores", "winners", "seats", "log", "positions", "laps", "lots", "discards",
                "items", "finished", "board", "hand_sizes", "expects"):
        assert key in v
    assert v["mine"]["hand"] == [0, 1, 2, 3, 4]
    json.dumps(v)


def test_five_seats_two_items_handicap_and_card_five():
    s = new(5, items=["+1", "-1", "copy", "cancel", "swap", "develop"])
    opts = [o["value"] for o in fd.expects(s)["inputs"][0]["fields"][0]["options"]]
    assert opts == ["1 point", "1 item", "2 points", "2 items"]
    s = fd.apply(s, ev("handicap", "Emi", choice="2 items"))
    assert len(s.items[4]) == 2 and len(s.deck) == 4
    s = fd.apply(s, ev("handicap", "Dan", choice="2 points"))
    s = fd.apply(s, ev("handicap", "Chika", choice="1 item"))
    s = fd.apply(s, ev("handicap", "Ben", choice="1 point"))
    assert s.points == (3, 4, 3, 5, 3) and s.phase == "propel"
    assert fd.expects(s)["inputs"][0]["fields"][0]["max"] == 5
    s = fd.apply(s, ev("propel", "Aki", card=5))
    assert s.chosen[0] == 5


def test_paying_may_go_negative_and_payments_go_to_each_owner():
    s = started(4)
    cubes = list(s.cubes)
    cubes[4] = (0, 2, 1, 0)
    s = at(s, cubes=tuple(cubes), points=(1, 3, 3, 3))
    s = propel(s, 4, 0, 0, 0)
    s = fd.apply(s, ev("move", "Aki"))
    assert pts(s) == [-2, 5, 4, 3] and s.phase == "move"  # the lot is full (3 with 4 seats)


def test_events_out_of_turn_are_refused_and_name_what_is_due():
    s = propel(started(3), 1, 1, 1)
    with pytest.raises(IllegalEvent, match=r"Ben cannot move now; the table is waiting for move \(Aki\)"):
        fd.apply(s, ev("move", "Ben"))
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("pass", "Aki"))  # no exchange is open
    with pytest.raises(IllegalEvent):
        fd.apply(s, ev("propel", "Aki", card=2))
    with pytest.raises(IllegalEvent, match="unknown seat"):
        fd.apply(s, ev("move", "Zed"))
    with pytest.raises(IllegalEvent, match="unknown field"):
        fd.apply(s, ev("move", "Aki", card=2))


def test_replay_of_the_event_list_rebuilds_the_state():
    s = new(3)
    s = fd.apply(s, ev("handicap", "Chika", choice="1 item"))
    s = fd.apply(s, ev("handicap", "Ben", choice="1 point"))
    s = propel(s, 2, 3, 4)
    s = fd.apply(s, ev("item", "Chika", card="+1"))
    s = passes(s, "Aki", "Ben", "Chika")
    s = fd.apply(s, ev("move", "Aki"))
    s = fd.apply(s, ev("move", "Ben"))
    again, steps = core.replay(fd, seats(3), {"board": BOARD, "deck": "dealt", "items": ["+1"] * 10}, 1,
                               core.event_list(s))
    assert all(st.accepted for st in steps)
    assert again == s
