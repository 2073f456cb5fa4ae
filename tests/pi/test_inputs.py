"""The table with a game it has never heard of: a tiny made-up engine whose ``expects``
uses every kind of input (a secret choice on the buttons, a choice, a group throw, a
rethrow of picked-up dice with its ``picked`` field). The table, the buttons and the pages
must serve it from ``expects`` alone."""
from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace

import json

import pytest

from engines.core import IllegalEvent, Seat, dice_from, event_text
from pi import inputs
from pi.web import create_app
from tests.pi.conftest import SEATS3, declare_on_button, roll_of


@dataclass(frozen=True)
class Toy:
    seats: tuple
    phase: str = "bid"
    bids: tuple = ()
    picked: tuple = ()
    table: tuple = ()
    events: tuple = ()
    special: bool = False  # Aki also throws a d10


def _setup(seats, options, seed):
    return Toy(tuple(Seat(s.name, s.colour) for s in seats), special=bool(options.get("special")))


def _expects(state):
    names = [s.name for s in state.seats]
    done = {b[0] for b in state.bids}
    if state.phase == "bid":
        return {"phase": "bid", "winners": [], "inputs": [{
            "type": "bid", "seats": [n for n in names if n not in done], "secret": True,
            "prompt": {"en": "Bid in secret.", "ja": "秘密に入札してください。"},
            "fields": [{"name": "n", "kind": "number", "min": 0, "max": 3, "button": True},
                       {"name": "extra", "kind": "multi", "options": [{"value": "x"}, {"value": "y"}], "default": []}]}]}
    if state.phase == "throw":
        return {"phase": "throw", "winners": [], "inputs": [{
            "type": "throw", "seats": names, "secret": False, "together": True,
            "prompt": {"en": "Everyone throws one die.", "ja": "全員1個振る。"},
            "fields": [{"name": "dice", "kind": "dice"}], "camera": "new",
            "dice": [{"colour": s.colour, "sides": 6, "count": 1} for s in state.seats]
            + ([{"colour": state.seats[0].colour, "sides": 10, "count": 1}] if state.special else [])}]}
    if state.phase == "rethrow":
        return {"phase": "rethrow", "winners": [], "inputs": [
            {"type": "again", "seats": [names[0]], "secret": False, "prompt": {"en": "Aki may rethrow.", "ja": "-"},
             "fields": [{"name": "how", "kind": "choice", "options": [{"value": "gently"}, {"value": None}]},
                        {"name": "picked", "kind": "picked", "names": {"10": "d10"}},
                        {"name": "dice", "kind": "dice"}], "camera": "rethrown", "dice": None},
            {"type": "stop", "seats": [names[0]], "secret": False, "prompt": {"en": "or stop.", "ja": "-"},
             "fields": []}]}
    return {"phase": "over", "winners": [names[0]], "inputs": []}


def _apply(state, event):
    kind, names = event.get("type"), [s.name for s in state.seats]
    if kind == "bid" and state.phase == "bid" and event.get("seat") in names:
        if event["seat"] in {b[0] for b in state.bids} or event.get("n") not in range(4):
            raise IllegalEvent("bid refused", "入札できません")
        if state.special and event["n"] == 2:
            raise IllegalEvent("you hold no 2", "2を持っていません")
        bids = state.bids + ((event["seat"], event["n"], tuple(event["extra"])),)
        return replace(state, bids=bids, phase="throw" if len(bids) == len(names) else "bid",
                       events=state.events + (event_text(event),))
    if kind == "throw" and state.phase == "throw" and "seat" not in event:
        dice = dice_from(event["dice"], sides=(6, 10))
        wanted = [s.colour for s in state.seats] + ([state.seats[0].colour] if state.special else [])
        if sorted(d.colour for d in dice) != sorted(wanted):
            raise IllegalEvent("one die per seat", "1席につきダイス1個です")
        return replace(state, table=dice, phase="rethrow", events=state.events + (event_text(event),))
    if kind == "again" and state.phase == "rethrow" and event.get("seat") == names[0]:
        return replace(state, picked=tuple(event["picked"]), events=state.events + (event_text(event),))
    if kind == "stop" and state.phase == "rethrow":
        return replace(state, phase="over", events=state.events + (event_text(event),))
    raise IllegalEvent(f"not now: {event}", f"いまは受け付けません: {event}")


def _view(state, seat=None):
    names = [s.name for s in state.seats]
    out = {"game": "toy", "phase": state.phase, "scores": {n: 0 for n in names},
           "winners": _expects(state)["winners"], "seats": [s.as_dict() for s in state.seats], "log": [],
           "picked": list(state.picked), "revealed": [list(b[:2]) for b in state.bids] if state.phase != "bid" else None}
    if seat is not None:
        out["mine"] = {"bid": next((b[1] for b in state.bids if b[0] == seat), None)}
    return out


TOY = SimpleNamespace(setup=_setup, expects=_expects, apply=_apply, view=_view, TITLE={"en": "Toy", "ja": "おもちゃ"})


@pytest.fixture
def toy(panel_and_table, store):
    panel, table = panel_and_table
    table.engine_loader = lambda name: TOY
    assert table.start_game("toy", SEATS3, {}, seed=1)["ok"]
    return panel, table


def test_a_secret_choice_from_a_button_a_phone_form_and_the_host_is_refused(toy, clock, config):
    panel, table = toy
    client = create_app(table, config, {"TESTING": True}).test_client()
    token = table.record.tokens["Ben"]
    page = client.get(f"/seat/{token}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'id="form-bid"' in page and 'name="extra"' in page and "Bid in secret." in page
    public = client.get("/api/state").json
    assert public["inputs"][0]["seats"] == [] and public["secret_open"]
    assert (panel.led("Aki"), panel.led("Chie")) == ("entering", "entering")
    # The host may not make a player's secret choice.
    host = table.act(None, "bid", {"seat": "Aki", "n": 1})
    assert not host["ok"] and "cannot send bid" in host["error"]["en"]
    huge = table.act("Ben", "x" * 20_000, {})["error"]
    assert len(huge["en"]) < 1_000 and len(huge["ja"]) < 1_000  # a type is echoed cut short
    assert "cannot send null now" in table.act("Ben", None, {})["error"]["en"]
    # Ben on his phone: a form with a checkbox list; the LED follows.
    sent = client.post(f"/seat/{token}/act", data={"type": "bid", "n": "2", "extra": ["y"], "extra.present": "1"})
    assert sent.status_code == 302
    assert panel.led("Ben") == "locked"
    assert table.snapshot("Ben")["view"]["mine"] == {"bid": 2}
    assert client.get("/api/state").json["inputs"] == public["inputs"]  # nothing public changed
    # Aki on the button: the number counted, the other field at its default.
    declare_on_button(panel, clock, "Aki", 3)
    bad = client.post(f"/seat/{table.record.tokens['Chie']}/act", json={"type": "bid", "n": "lots"})
    assert bad.status_code == 409 and "whole number" in bad.json["error"]["en"]
    assert client.post(f"/seat/{table.record.tokens['Chie']}/act", json={"type": "bid", "n": 0}).json == {"ok": True}
    assert table.snapshot()["view"]["revealed"] == [["Ben", 2], ["Aki", 3], ["Chie", 0]]
    assert panel.led("Aki") == "revealed"
    events = table.store.events(table.record.id)
    assert events[1] == {"type": "bid", "seat": "Aki", "n": 3, "extra": []}
    assert events[0] == {"type": "bid", "seat": "Ben", "n": 2, "extra": ["y"]}


def test_a_group_throw_then_a_rethrow_of_the_picked_up_die(toy):
    panel, table = toy
    for seat, n in (("Aki", 1), ("Ben", 1), ("Chie", 1)):
        assert table.act(seat, "bid", {"n": n})["ok"]
    first = roll_of([("red", 2), ("blue", 5), ("green", 6)])
    assert table.settled_roll(first)["ok"]
    assert table.store.events(table.record.id)[-1] == {
        "type": "throw", "dice": [{"colour": "red", "face": 2}, {"colour": "blue", "face": 5},
                                  {"colour": "green", "face": 6}]}
    # Aki picks up the red 2 and throws it again: a rethrow, with what it showed before.
    red, blue, green = first.dice
    import dataclasses

    again = type(first)((dataclasses.replace(red, face=4, status="rethrown"),
                         dataclasses.replace(blue, status="still"), dataclasses.replace(green, status="still")), 1.0)
    assert table.settled_roll(again)["ok"], table.prompt
    assert table.store.events(table.record.id)[-1] == {
        "type": "again", "seat": "Aki", "how": "gently", "picked": [2], "dice": [{"colour": "red", "face": 4}]}
    assert table.snapshot()["view"]["picked"] == [2]
    # Typed on the seat page instead: picked as text, a choice whose value is null.
    assert table.act("Aki", "again", _form({"type": "again", "how": "null", "picked": "4", "dice": "red 1"}))["ok"]
    assert table.store.events(table.record.id)[-1]["how"] is None
    assert not table.act("Ben", "stop", {})["ok"]  # only Aki may
    assert table.act("Aki", "stop", {})["ok"]
    assert table.snapshot()["due"]["en"] == "Game over: Aki wins."


def _form(values):
    from werkzeug.datastructures import MultiDict

    return MultiDict(values)


def test_dice_that_do_not_fit_give_a_prompt_naming_sides():
    inp = {"type": "throw", "seats": ["Aki"], "dice": [{"colour": "red", "sides": 6, "count": 2},
                                                       {"colour": "red", "sides": 10, "count": 1}]}
    seen = [SimpleNamespace(colour="red", face=3, sides=6, cocked=False),
            SimpleNamespace(colour="red", face=0, sides=10, cocked=False)]
    problem = inputs.dice_problem(inp, seen)
    assert "Expected 2 red and 1 red d10 dice (Aki)" in problem["en"] and "1 red and 1 red d10" in problem["en"]
    seen.append(SimpleNamespace(colour="red", face=5, sides=6, cocked=False))
    assert inputs.dice_problem(inp, seen) is None
    assert inputs.parse_dice("red 3, red 7 d10, blue 20 d20") == [
        {"colour": "red", "face": 3}, {"colour": "red", "face": 7, "sides": 10},
        {"colour": "blue", "face": 20, "sides": 20}]
    assert inputs.parse_dice("three reds") is None


def test_dice_the_camera_cannot_read_are_typed_by_their_owner(panel_and_table, config):
    panel, table = panel_and_table
    table.engine_loader = lambda name: TOY
    assert table.start_game("toy", SEATS3, {"special": True}, seed=1)["ok"]
    for seat in ("Aki", "Ben", "Chie"):
        assert table.act(seat, "bid", {"n": 1})["ok"]
    result = table.settled_roll(roll_of([("red", 2), ("blue", 5), ("green", 6)]))
    assert result["ok"] and not result["applied"] and result["waiting"] == ["Aki"]
    assert "Aki: type your d10 on your seat page" in table.snapshot()["prompt"]["en"]
    assert table.snapshot("Aki")["to_type"] == [{"colour": "red", "sides": 10}]
    assert table.snapshot("Ben")["to_type"] == []
    client = create_app(table, config, {"TESTING": True}).test_client()
    aki = f"/seat/{table.record.tokens['Aki']}"
    assert 'id="form-faces"' in client.get(aki).get_data(as_text=True)
    assert client.post(f"/seat/{table.record.tokens['Ben']}/faces", json={"faces": [3]}).status_code == 409
    refused = client.post(f"{aki}/faces", json={"faces": [10]})
    assert refused.status_code == 409 and "0 to 9" in refused.json["error"]["en"]
    assert client.post(f"{aki}/faces", data={"face.0": "0"}).status_code == 302  # tapped on the pad
    assert table.store.events(table.record.id)[-1]["dice"] == [
        {"colour": "red", "face": 2}, {"colour": "blue", "face": 5}, {"colour": "green", "face": 6},
        {"colour": "red", "face": 0, "sides": 10}]
    assert table.snapshot()["prompt"] is None and table.pending is None


def _throw_due_with_a_camera_that_reads_sides(panel_and_table):
    """The toy game waiting for Aki's throw of d6 and a red d10, read by a camera that tells
    d10 and d20 apart; and the three d6 of that throw as the camera would report them."""
    panel, table = panel_and_table
    table.engine_loader = lambda name: TOY
    table.camera.detector = SimpleNamespace(reads_sides=True)
    assert table.start_game("toy", SEATS3, {"special": True}, seed=1)["ok"]
    for seat in ("Aki", "Ben", "Chie"):
        assert table.act(seat, "bid", {"n": 1})["ok"]
    return table, roll_of([("red", 2), ("blue", 5), ("green", 6)]).dice


def test_a_camera_that_reads_d10_and_d20_applies_the_whole_throw(panel_and_table):
    from vision.settle import Roll

    table, d6 = _throw_due_with_a_camera_that_reads_sides(panel_and_table)
    wrong = replace(d6[0], id=900, face=7, sides=20)  # a d20 where the game wants a d10
    assert not table.settled_roll(Roll(d6 + (wrong,), 0.0))["ok"]
    assert "1 red d20" in table.snapshot()["prompt"]["en"] and table.pending is None
    d10 = replace(d6[0], id=901, face=0, sides=10)
    assert table.settled_roll(Roll(d6 + (d10,), 0.0))["ok"], table.prompt
    assert table.store.events(table.record.id)[-1]["dice"][-1] == {"colour": "red", "face": 0, "sides": 10}
    assert table.pending is None


def test_a_d10_the_camera_is_unsure_of_is_typed_by_its_owner_the_rest_read(panel_and_table):
    from vision.settle import Roll

    table, d6 = _throw_due_with_a_camera_that_reads_sides(panel_and_table)
    unsure = replace(d6[0], id=902, face=0, sides=10, sure=False, cocked=True)
    result = table.settled_roll(Roll(d6 + (unsure,), 0.0))
    assert result["ok"] and not result["applied"] and result["waiting"] == ["Aki"]
    assert table.snapshot("Aki")["to_type"] == [{"colour": "red", "sides": 10}]
    assert table.type_faces("Aki", [7])["ok"]
    assert table.store.events(table.record.id)[-1]["dice"] == [
        {"colour": "red", "face": 2}, {"colour": "blue", "face": 5}, {"colour": "green", "face": 6},
        {"colour": "red", "face": 7, "sides": 10}]


def test_dice_left_to_type_come_off_what_the_camera_must_see():
    inp = {"dice": [{"colour": "*", "sides": 6, "count": 3}, {"colour": "*", "sides": 10, "count": 2},
                    {"colour": "red", "sides": 20, "count": 1}]}
    assert inputs.without(inp, [("red", 10, 1), ("red", 20, 1)])["dice"] == [
        {"colour": "*", "sides": 6, "count": 3}, {"colour": "*", "sides": 10, "count": 1}]
    sure = SimpleNamespace(colour="red", face=4, sides=10, cocked=False)
    unsure = SimpleNamespace(colour="blue", face=0, sides=10, cocked=True)
    extra = SimpleNamespace(colour="blue", face=0, sides=20, cocked=True)  # not expected: stays, for the prompt
    assert inputs.unsure_part(inp, [sure, unsure, extra]) == ([sure, extra], [("blue", 10, 1)])


def _pair_expects(state):
    """The toy game, but after the group's throw Aki and Ben may each rethrow dice they pick up."""
    if state.phase != "rethrow":
        return _expects(state)
    return {"phase": "rethrow", "winners": [], "inputs": [
        {"type": "again", "seats": [s.name], "secret": False,
         "prompt": {"en": f"{s.name} may rethrow.", "ja": f"{s.name}は振り直せます。"},
         "fields": [{"name": "picked", "kind": "picked", "names": {"10": "d10"}}, {"name": "dice", "kind": "dice"}],
         "camera": "rethrown", "dice": None} for s in state.seats[:2]]}


def _pair_apply(state, event):
    if event.get("type") == "again" and state.phase == "rethrow":
        return replace(state, events=state.events + (event_text(event),))
    return _apply(state, event)


PAIR = SimpleNamespace(setup=_setup, expects=_pair_expects, apply=_pair_apply, view=_view, TITLE=TOY.TITLE)


def _pair_thrown(panel_and_table, special=False):
    """The pair game after the group's throw (Aki's red d10 too, read by a camera that reads
    d10 and d20, when ``special``), and the dice of that throw."""
    from vision.settle import Roll

    panel, table = panel_and_table
    table.engine_loader = lambda name: PAIR
    table.camera.detector = SimpleNamespace(reads_sides=True)
    assert table.start_game("pair", SEATS3, {"special": special}, seed=1)["ok"]
    for seat in ("Aki", "Ben", "Chie"):
        assert table.act(seat, "bid", {"n": 1})["ok"]
    dice = roll_of([("red", 2), ("blue", 5), ("green", 6)]).dice
    if special:
        dice += (replace(dice[0], id=903, face=4, sides=10),)
    assert table.settled_roll(Roll(dice, 0.0))["ok"] and table.expects_now()["phase"] == "rethrow"
    return table, dice


def _moved(dice, moves, t):
    """A settled roll of ``dice`` where the dice of ``moves`` ({index: new face}) were thrown again."""
    from vision.settle import Roll

    return Roll(tuple(replace(d, face=moves[k], status="rethrown") if k in moves else replace(d, status="still")
                      for k, d in enumerate(dice)), t)


def test_a_rethrow_goes_to_the_seat_whose_dice_moved_or_that_claims_it(panel_and_table):
    table, (red, blue, green) = _pair_thrown(panel_and_table)
    # Ben's blue die moved: his rethrow, though Aki's is listed first.
    assert table.settled_roll(_moved((red, blue, green), {1: 3}, 1.0))["ok"]
    assert table.store.events(table.record.id)[-1] == {
        "type": "again", "seat": "Ben", "picked": [5], "dice": [{"colour": "blue", "face": 3}]}
    assert not table.snapshot("Aki")["claimable"]  # the dice's colour tells: no "This was my throw"
    # Red and blue moved: the dice do not tell whose rethrow it is, and the table says so.
    events = table.store.events(table.record.id)
    result = table.settled_roll(_moved((red, blue, green), {0: 1, 1: 4}, 2.0))
    assert result["ok"] and not result["applied"] and result["waiting"] == ["Aki", "Ben"]
    assert "the dice do not tell whose throw this is" in table.snapshot()["prompt"]["en"]
    assert "自分の振り" in table.snapshot()["prompt"]["ja"]
    assert table.store.events(table.record.id) == events
    assert table.snapshot("Aki")["claimable"] and not table.snapshot("Chie")["claimable"]
    assert not table.claim_throw("Chie")["ok"]
    assert table.claim_throw("Aki")["ok"]  # "This was my throw": the dice on the tray are Aki's rethrow
    assert table.store.events(table.record.id)[-1] == {
        "type": "again", "seat": "Aki", "picked": [2, 3], "dice": [{"colour": "red", "face": 1},
                                                                   {"colour": "blue", "face": 4}]}
    assert table.snapshot()["prompt"] is None


def test_a_rethrown_d10_the_camera_is_unsure_of_is_typed_by_its_owner(panel_and_table):
    from vision.settle import Roll

    table, dice = _pair_thrown(panel_and_table, special=True)
    red, blue, green, d10 = dice
    unsure = replace(d10, face=0, status="rethrown", sure=False, cocked=True)
    roll = Roll((replace(red, face=6, status="rethrown"), replace(blue, status="still"),
                 replace(green, status="still"), unsure), 1.0)
    result = table.settled_roll(roll)
    assert result["ok"] and not result["applied"] and result["waiting"] == ["Aki"]
    assert table.snapshot("Aki")["to_type"] == [{"colour": "red", "sides": 10}]
    assert "Aki: type your d10 on your seat page" in table.snapshot()["prompt"]["en"]
    assert table.type_faces("Aki", [7])["ok"]
    assert table.store.events(table.record.id)[-1] == {
        "type": "again", "seat": "Aki", "picked": [2, "d10"],
        "dice": [{"colour": "red", "face": 6}, {"colour": "red", "face": 7, "sides": 10}]}
    # The d10 alone, rethrown and unsure: Aki types it; nothing the camera read is missing.
    again = Roll((replace(red, face=6, status="still"), replace(blue, status="still"), replace(green, status="still"),
                  replace(unsure, id=d10.id)), 2.0)
    assert table.settled_roll(again)["waiting"] == ["Aki"]
    assert table.type_faces("Aki", [0])["ok"]
    assert table.store.events(table.record.id)[-1] == {
        "type": "again", "seat": "Aki", "picked": ["d10"], "dice": [{"colour": "red", "face": 0, "sides": 10}]}


def _each_setup(seats, options, seed):
    return Toy(tuple(Seat(s.name, s.colour) for s in seats), phase="throws")


def _each_expects(state):
    done = {b[0] for b in state.bids}
    todo = [s.name for s in state.seats if s.name not in done]
    return {"phase": "throws" if todo else "over", "winners": [] if todo else [state.seats[0].name], "inputs": [
        {"type": "throw", "seats": [n], "secret": False, "prompt": {"en": f"{n} throws two white dice.", "ja": "-"},
         "fields": [{"name": "dice", "kind": "dice"}], "camera": "new",
         "dice": [{"colour": "white", "sides": 6, "count": 2}]} for n in todo]}


def _each_apply(state, event):
    if event.get("type") != "throw" or event.get("seat") not in [i["seats"][0] for i in _each_expects(state)["inputs"]]:
        raise IllegalEvent(f"not now: {event}", f"いまは受け付けません: {event}")
    faces = tuple(d.face for d in dice_from(event["dice"]))
    return replace(state, bids=state.bids + ((event["seat"], faces, ()),), events=state.events + (event_text(event),))


EACH = SimpleNamespace(setup=_each_setup, expects=_each_expects, apply=_each_apply,
                       view=lambda state, seat=None: {**_view(state, seat), "thrown": [[b[0], list(b[1])] for b in state.bids]})


def test_alike_dice_of_several_throwers_wait_for_the_thrower_to_claim_them(table, config):
    table.engine_loader = lambda name: EACH
    assert table.start_game("each", SEATS3, {}, seed=1)["ok"]
    result = table.settled_roll(roll_of([("white", 2), ("white", 5)]))
    assert result["ok"] and not result["applied"] and result["waiting"] == ["Aki", "Ben", "Chie"]
    assert "This was my throw" in table.snapshot()["prompt"]["en"]
    assert table.snapshot("Ben")["claimable"] and not table.snapshot()["claimable"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    ben = f"/seat/{table.record.tokens['Ben']}"
    assert 'id="form-claim"' in client.get(ben).get_data(as_text=True)
    assert client.post(f"{ben}/claim", json={}).json["ok"]  # the dice on the tray become Ben's throw
    assert table.snapshot()["view"]["thrown"] == [["Ben", [2, 5]]]
    assert table.snapshot()["prompt"] is None
    # Chie claims before she throws: her dice go to her at once.
    assert table.claim_throw("Chie")["ok"]
    roll = roll_of([("white", 6), ("white", 1)])
    assert table.settled_roll(roll)["ok"]
    assert table.snapshot()["view"]["thrown"][-1] == ["Chie", [6, 1]]
    assert not table.claim_throw("Ben")["ok"]  # Ben has thrown already
    assert table.settled_roll(roll_of([("white", 3), ("white", 3)]))["ok"]  # one thrower left: no claim needed
    assert table.snapshot()["view"]["thrown"][-1] == ["Aki", [3, 3]]


def _lay_expects(state):
    if state.bids:
        return {"phase": "over", "winners": [state.seats[0].name], "inputs": []}
    return {"phase": "lay", "winners": [], "inputs": [{
        "type": "lay", "seats": [state.seats[0].name], "secret": False, "prompt": {"en": "Lay out.", "ja": "-"},
        "fields": [{"name": "rows", "kind": "layout", "rows": [2, 1], "label": {"en": "Rows", "ja": "段"}}]}]}


def _lay_apply(state, event):
    if event.get("type") != "lay" or state.bids:
        raise IllegalEvent("not now", "いまは受け付けません")
    return replace(state, bids=((event["seat"], json.dumps(event["rows"]), ()),), events=state.events + (event_text(event),))


LAY = SimpleNamespace(setup=_each_setup, expects=_lay_expects, apply=_lay_apply,
                      view=lambda state, seat=None: {**_view(state, seat), "laid": [b[1] for b in state.bids]})


def test_a_layout_is_read_from_the_dice_laid_under_the_camera(table, config):
    from vision.settle import Roll, TrackedDie

    table.engine_loader = lambda name: LAY
    assert table.start_game("lay", SEATS3, {}, seed=1)["ok"]
    client = create_app(table, config, {"TESTING": True}).test_client()
    aki = f"/seat/{table.record.tokens['Aki']}"
    assert 'id="read-layout"' in client.get(aki, headers={"Accept-Language": "en"}).get_data(as_text=True)

    def die(i, colour, face, x, y):
        return TrackedDie(i, colour, face, (x, y, x + 40, y + 40), 0.97, "new", False)

    table.settled_roll(Roll((die(1, "red", 3, 100, 200), die(2, "red", 5, 146, 200), die(3, "blue", 4, 100, 154)), 0.0))
    off = table.read_layout("Aki")  # the top die sits over one die, not between two
    assert not off["ok"] and "cannot place the dice" in off["error"]["en"]
    assert not table.read_layout("Ben")["ok"]  # not Ben's input
    table.settled_roll(Roll((die(1, "red", 3, 100, 200), die(2, "red", 5, 146, 200), die(3, "blue", 4, 123, 154)), 1.0))
    assert client.post(f"{aki}/layout", json={}).json == {"ok": True}
    assert json.loads(table.snapshot()["view"]["laid"][0]) == [
        [{"colour": "red", "face": 3}, {"colour": "red", "face": 5}], [{"colour": "blue", "face": 4}]]


def test_a_refused_button_choice_is_said_on_the_seats_own_page_only(panel_and_table, clock, config):
    panel, table = panel_and_table
    table.engine_loader = lambda name: TOY
    assert table.start_game("toy", SEATS3, {"special": True}, seed=1)["ok"]
    public = table.snapshot()
    ben = table.snapshot("Ben")
    declare_on_button(panel, clock, "Aki", 2)  # refused: Aki holds no 2
    assert panel.led("Aki") == "entering"  # enter again
    assert table.snapshot("Aki")["note"]["en"] == "you hold no 2"
    assert table.snapshot() == public and table.snapshot("Ben") == ben  # nobody else learns of it
    client = create_app(table, config, {"TESTING": True}).test_client()
    aki = f"/seat/{table.record.tokens['Aki']}"
    for lang, words in (("en", "you hold no 2"), ("ja", "2を持っていません")):
        assert words not in client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert words in client.get(aki, headers={"Accept-Language": lang}).get_data(as_text=True)
    declare_on_button(panel, clock, "Aki", 1)
    assert table.snapshot("Aki")["note"] is None and table.snapshot("Aki")["view"]["mine"] == {"bid": 1}


def test_now_says_once_what_several_seats_are_told_alike():
    from engines.core import an_input, text
    from pi.snapshots import due_words

    def item(seat):
        return an_input("item", [seat], text(f"{seat}: you may use an item card on Aki's move.",
                                             f"{seat}: Akiの移動にアイテムカードを使えます。"),
                        action=text("Use an item card", "アイテムカードを使う"))

    move = an_input("move", ["Aki"], text("Aki: move your disc 1 space.", "Aki: 円盤駒を1マス進めてください。"),
                    action=text("Move your disc", "円盤駒を進める"))
    expects = {"phase": "move", "winners": [], "inputs": [item("Ben"), item("Chie"), item("Aki"), move]}
    assert due_words(expects, None) == {
        "en": "Ben, Chie: you may use an item card on Aki's move. / Aki: use an item card or move your disc.",
        "ja": "Ben・Chie: Akiの移動にアイテムカードを使えます。 / Aki: アイテムカードを使う・円盤駒を進める"}
    # a seat's own page: its own step, then who else is due
    assert due_words(expects, "Aki")["en"] == "Aki: use an item card or move your disc. Also waiting for Ben and Chie."
    assert due_words(expects, "Ben") == {
        "en": "Ben: you may use an item card on Aki's move. Also waiting for Chie and Aki.",
        "ja": "Ben: Akiの移動にアイテムカードを使えます。 ほかにChie・Akiを待っています。"}
    assert due_words(expects, "Dai") == due_words(expects, None)  # nothing due: the table's line
    # nobody is named as still choosing in secret, not even on a chooser's page
    choose = an_input("choose", ["Ben", "Chie"], text("Choose in secret.", "秘密に選んでください。"), secret=True)
    assert due_words({"phase": "choose", "winners": [], "inputs": [choose]}, "Ben")["en"] == "Choose in secret."
    assert due_words({"phase": "choose", "winners": [], "inputs": [choose, dict(choose, seats=["Aki"])]},
                     "Ben")["en"] == "Choose in secret."
