"""ALEA trap conditions in plain words (both languages) and as a drawing, in the view."""
from __future__ import annotations

import re

import pytest

from engines import alea
from engines.alea_data import load_deck
from engines.alea_traps import parse_condition
from engines.alea_words import drawing, words

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Cy", "colour": "green"}]


@pytest.mark.parametrize("card", load_deck(), ids=lambda c: c.id)
def test_every_default_card_has_words_in_both_languages(card):
    said = words(card.tree)
    assert said["en"] and said["ja"] and said["en"] != said["ja"]
    assert JAPANESE.search(said["ja"]) and not JAPANESE.search(said["en"])
    assert "(" not in said["en"] and "==" not in said["en"]  # words, not the card's code


@pytest.mark.parametrize(
    "condition, en, ja",
    [
        ("count(3) == 2", "exactly two 3s", "3がちょうど2個"),
        ("count(3) == 2/4", "exactly two or four 3s", "3がちょうど2個か4個"),
        ("count(1) == 1", "exactly one 1", "1がちょうど1個"),
        ("1 1 2", "at least two 1s and one 2", "少なくとも1が2個と2が1個"),
        ("1 2 3 4", "at least one each of 1, 2, 3 and 4", "少なくとも1・2・3・4が1個ずつ"),
        ("A A A A", "at least four of a kind", "少なくとも同じ目が4個"),
        ("A A B B C C", "at least two each of three different faces", "少なくとも異なる3種類の目が2個ずつ"),
        ("A A A B", "at least three of a kind and one die of another face", "少なくとも同じ目が3個と、別の目が1個"),
        ("6 A A", "at least one 6 and, besides it, two of a kind", "少なくとも6が1個と、それとは別に同じ目が2個"),
        ("total >= 30", "a total of 30 or more", "出目の合計が30以上"),
        ("? (2,3,4) >= 5", "at least five dice showing 2, 3 or 4", "2・3・4の目が合わせて5個以上"),
        ("count(6) > count(1)", "more 6s than 1s", "6の目が1の目より多い"),
        ("6 6 and total >= 30", "at least two 6s and a total of 30 or more", "少なくとも6が2個、かつ出目の合計が30以上"),
        ("1 1 1 or 6 6 6", "at least three 1s, or at least three 6s", "少なくとも1が3個、または少なくとも6が3個"),
    ],
)
def test_parsed_conditions_give_the_expected_words(condition, en, ja):
    assert words(parse_condition(condition)) == {"en": en, "ja": ja}


def test_the_drawing_names_the_faces_of_each_term():
    assert drawing(parse_condition("6 6 and total >= 30")) == [[6, 6]]
    assert drawing(parse_condition("1 1 1 or 6 6 6")) == [[1, 1, 1], [6, 6, 6]]
    assert drawing(parse_condition("6 A A")) == [[6, "A", "A"]]
    assert drawing(parse_condition("count(6) > count(1)")) == [[6, 1]]
    assert drawing(parse_condition("total >= 30")) == []


def test_the_view_shows_the_card_up_in_words_and_as_a_drawing_after_the_old_keys():
    cards = [{"id": "MINE", "name": "Mine", "players": [3], "condition": "count(3) == 2"}]
    card = alea.view(alea.setup(SEATS, {"cards": cards}, 0))["card"]
    assert list(card) == ["id", "name", "name_ja", "players", "condition", "words", "drawing"]
    assert card["words"] == {"en": "exactly two 3s", "ja": "3がちょうど2個"}
    assert card["drawing"] == [[3]]
