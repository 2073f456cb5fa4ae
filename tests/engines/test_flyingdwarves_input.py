"""Flying Dwarves and bad input: every refusal and data error in English and Japanese, numbers
that are not whole numbers (strings, other digits, floats, NaN, infinity) refused rather
than crashing, every list bounded and echoed short, and a long game as fast per event at
its end as at its start."""
from __future__ import annotations

import re
import time

import pytest

from engines import core
from engines import flyingdwarves as fd
from engines.core import DataError, IllegalEvent

NAMES = ("Aki", "Ben", "Chika")
SEATS = [{"name": n, "colour": c} for n, c in zip(NAMES, ("red", "blue", "green"))]
BOARD = ["start", "mine 2", "treasure 1", "wasteland", "lot", "mine ?", "mine 1", "lot", "mine 3", "lot"]
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
NOT_WHOLE = ["3", "３", "٣", 3.0, 3.5, float("nan"), float("inf"), -float("inf"), True, [3], {"n": 3}, 10 ** 100]


def bilingual(exc):
    """The refusal says what is wrong in English and in real Japanese, briefly."""
    assert exc.en and exc.ja and exc.ja != exc.en and JAPANESE.search(exc.ja), (exc.en, exc.ja)
    assert len(exc.en) < 600 and len(exc.ja) < 600, exc.en[:100]


def refused(state, event):
    with pytest.raises(IllegalEvent) as err:
        fd.apply(state, event)
    bilingual(err.value)
    return err.value


def started(**options):
    s = fd.setup(SEATS, {"board": BOARD, "items": ["+1"] * 10, **options}, 1)
    s = fd.apply(s, {"type": "handicap", "seat": "Chika", "choice": "1 point"})
    return fd.apply(s, {"type": "handicap", "seat": "Ben", "choice": "1 item"})


def propelled(s, *cards):
    for name, card in zip(NAMES, cards):
        s = fd.apply(s, {"type": "propel", "seat": name, "card": card})
    return s


def test_the_propel_input_offers_each_seat_only_the_cards_in_its_hand():
    s = core.replace(started(), hands=((0, 1, 4), (0, 2), (0, 1, 2, 3, 4)))
    s = fd.apply(s, {"type": "propel", "seat": "Aki", "card": 4})
    field = fd.expects(s)["inputs"][0]["fields"][0]
    assert field["only"] == {"Aki": [0, 1, 4], "Ben": [0, 2], "Chika": [0, 1, 2, 3, 4]}  # unchanged by a choice
    assert "only" not in core.public(fd.expects(s))["inputs"][0]["fields"][0]
    assert "only" not in str(fd.view(s)["expects"])


@pytest.mark.parametrize("card", [*NOT_WHOLE, None])
def test_a_propulsion_card_that_is_not_a_whole_number_is_refused(card):
    refused(started(), {"type": "propel", "seat": "Aki", "card": card})


@pytest.mark.parametrize("card", [*NOT_WHOLE, 0, -1, 7])
def test_a_discard_that_is_not_a_card_above_zero_in_hand_is_refused(card):
    """(null is no discard: allowed.)"""
    s = core.replace(started(), p=(4, 0, 0))
    s = fd.apply(propelled(s, 1, 0, 0), {"type": "move", "seat": "Aki"})
    assert s.phase == "discard"
    refused(s, {"type": "discard", "seat": "Aki", "card": card})


@pytest.mark.parametrize("lot", [*NOT_WHOLE, "t①.1", "t².1", "4", "４", 4.0, -4, 1])
def test_a_lot_that_is_not_a_lot_with_room_is_refused(lot):
    s = core.replace(started(), p=(len(BOARD) - 1, 0, 0))
    s = fd.apply(propelled(s, 2, 0, 0), {"type": "move", "seat": "Aki"})
    assert s.phase == "start_cube"
    refused(s, {"type": "start_cube", "seat": "Aki", "lot": lot})


@pytest.mark.parametrize("place", ["true", 1, 0, float("nan"), None])
def test_invest_takes_only_true_or_false(place):
    s = fd.apply(propelled(started(), 4, 0, 0), {"type": "move", "seat": "Aki"})
    assert s.phase == "invest"
    refused(s, {"type": "invest", "seat": "Aki", "place": place})


@pytest.mark.parametrize("event", [
    {"type": "move", "seat": "x" * 1_000_000},
    {"type": "handicap", "seat": "Chika", "choice": "1 point" * 100_000},
    {"type": "handicap", "seat": ["Chika"] * 100_000, "choice": "1 point"},
])
def test_huge_input_before_the_game_starts_is_refused_at_once_and_echoed_short(event):
    s = fd.setup(SEATS, {"board": BOARD, "deck": "physical"}, 1)
    t = time.process_time()
    refused(s, event)
    assert time.process_time() - t < 0.05


def test_huge_lists_in_play_are_refused_at_once_and_echoed_short():
    s = fd.setup(SEATS, {"board": BOARD, "deck": "physical", "items": ["+1", "-1", "copy"]}, 1)
    s = fd.apply(s, {"type": "handicap", "seat": "Chika", "choice": "1 item"})
    assert s.phase == "draw"
    bad = [{"type": "draw", "seat": "Chika", "cards": ["+1"] * 1_000_000},
           {"type": "draw", "seat": "Chika", "cards": ["copy" * 1_000_000]},
           {"type": "draw", "seat": "Chika", "cards": [float("nan")]}]
    s2 = fd.apply(fd.apply(s, {"type": "draw", "seat": "Chika", "cards": ["copy"]}),
                  {"type": "handicap", "seat": "Ben", "choice": "1 point"})
    s2 = propelled(s2, 1, 0, 0)
    bad2 = [{"type": "item", "seat": "Chika", "card": "copy" * 1_000_000},
            {"type": "item", "seat": "Chika", "card": ["copy"] * 1_000_000}]
    for state, events in ((s, bad), (s2, bad2)):
        for event in events:
            t = time.process_time()
            refused(state, event)
            assert time.process_time() - t < 0.2


def test_a_swap_with_someone_not_a_candidate_is_refused_in_both_languages():
    s = core.replace(started(), p=(0, 2, 2), items=(("swap",), (), ()))
    s = fd.apply(propelled(s, 1, 0, 0), {"type": "item", "seat": "Aki", "card": "swap"})
    for name in ("Ben", "Chika", "Aki"):
        s = fd.apply(s, {"type": "pass", "seat": name})
    assert s.phase == "swap"
    for other in ("Aki", "Zed", "x" * 100_000, 1, None):
        err = refused(s, {"type": "swap", "seat": "Aki", "with": other})
        assert "Ben" in err.ja and "Chika" in err.ja


@pytest.mark.parametrize("options", [
    {"board": ["start"] + ["mine 1"] * 200},
    {"items": ["+1"] * 201},
    {"board": "start mine 1"},
    {"board": ["start", "mine ３"]},
    {"board": ["start", "treasure ٣"]},
    {"board": ["start", "mine 1", "start"]},
    {"board": ["start", 3]},
    {"items": ["+３"]},
    {"items": []},
    {"deck": "shuffled"},
    {"colour": "red"},
])
def test_options_a_game_cannot_start_with_are_named_in_both_languages(options):
    with pytest.raises(DataError) as err:
        fd.setup(SEATS, options, 0)
    bilingual(err.value)


def test_the_longest_board_and_deck_set_up():
    s = fd.setup(SEATS, {"board": ["start"] + ["mine 99"] * 199, "items": ["-99"] * 200}, 0)
    assert len(s.board) == 200 and len(s.deck) == 200


def test_a_data_file_that_cannot_be_read_is_named_in_both_languages(tmp_path):
    with pytest.raises(DataError) as err:
        fd.load_data(tmp_path / "missing.toml")
    bilingual(err.value)
    (tmp_path / "bad.toml").write_text("board = [")
    with pytest.raises(DataError) as err:
        fd.load_data(tmp_path / "bad.toml")
    bilingual(err.value)


def test_the_glossary_names_every_space_and_robot():
    for key in ("start", "mine", "treasure", "wasteland", "lot", "copy", "cancel", "swap", "develop"):
        assert fd.GLOSSARY[key]["en"] and JAPANESE.search(fd.GLOSSARY[key]["ja"])


def test_a_long_game_costs_the_same_per_event_at_its_end_as_at_its_start():
    """Every seat plays its 0 each round: a legal game that never ends. Applying events
    18,000-20,000 takes about as long as applying events 0-2,000 (the event list and the
    log are chains, never copied)."""
    events = []
    for r in range(3400):
        order = [NAMES[(r + k) % 3] for k in range(3)]
        events += [{"type": "propel", "seat": n, "card": 0} for n in order]
        events += [{"type": "move", "seat": n} for n in order]
    s = started()
    times = []
    for block in range(10):
        t = time.process_time()
        for event in events[block * 2000:(block + 1) * 2000]:
            s = fd.apply(s, event)
        times.append(time.process_time() - t)
    assert len(s.events) == 20_002 and s.phase == "propel"
    assert min(times[-3:]) < 3 * min(times[:3]), times
