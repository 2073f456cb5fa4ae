"""ALEA trap cards: the deck file, the condition grammar, and the exact odds."""
from __future__ import annotations

import itertools
import time
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from engines import alea_traps
from engines.alea_data import card_from, load_deck
from engines.alea_traps import KINDS, odds_table, parse_condition, trap_odds, trap_odds_exact, triggered
from engines.core import DataError
from tests.engines.alea_reference import triggers as triggers_by_hand


def card(condition: str):
    return card_from({"id": "X", "players": [3, 4, 5], "condition": condition})


# --- the default deck ----------------------------------------------------------------------


def test_default_deck_has_22_cards_with_unique_ids():
    deck = load_deck()
    assert len(deck) == 22
    assert len({c.id for c in deck}) == 22
    assert all(c.name and c.name_ja for c in deck)


def test_default_deck_uses_every_condition_kind_and_both_combinators():
    used = set()
    for c in load_deck():
        used |= c.tree.kinds()
    assert used == set(KINDS)


def test_default_deck_has_at_least_8_cards_for_each_player_count():
    counts = Counter(p for c in load_deck() for p in c.players)
    assert all(counts[p] >= 8 for p in (3, 4, 5)), counts


# --- malformed cards are refused at load -------------------------------------------------------


@pytest.mark.parametrize(
    "body, reason",
    [
        ('id = "B1"\nplayers = [3]\ncondition = "1 1 7"', "card B1: cannot read '1 1 7'"),
        ('id = "B2"\nplayers = [3]\ncondition = "total > 20"', "card B2: cannot read 'total > 20'"),
        ('id = "B3"\nplayers = [2, 3]\ncondition = "1 1"', r"card B3: 'players' must be a list of player counts"),
        ('id = "B4"\ncondition = "1 1"', r"card B4: 'players' must be a list"),
        ('id = "B5"\nplayers = [3]', "card B5: 'condition' must be text"),
        ('id = "B6"\nplayers = [3]\ncondition = "1 1"\ncolour = "red"', r'card B6: unknown key\(s\) \["colour"\]'),
        ('id = "B7"\nplayers = [3]\ncondition = "A B C D E F G"', "card B7: .*more than 6 different letters"),
        ('id = "B8"\nplayers = [3]\ncondition = "count(6) > count(6)"', "card B8: .*can never trigger"),
        ('id = "B9"\nplayers = [3]\ncondition = "1 and"', "card B9: cannot read"),
        ('players = [3]\ncondition = "1 1"', "a card has no usable 'id'"),
        ('id = "B10"\nplayers = [3, 3]\ncondition = "1"', "card B10: 'players' lists a count twice"),
    ],
)
def test_malformed_card_is_refused_naming_file_card_and_reason(tmp_path, body, reason):
    path = tmp_path / "deck.toml"
    path.write_text(f'[[card]]\nid = "OK"\nplayers = [3]\ncondition = "1 1"\n\n[[card]]\n{body}\n', encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}: .*{reason}" if not reason.startswith("a card") else reason) as err:
        load_deck(path)
    assert str(path) in str(err.value)


def test_duplicate_card_ids_are_refused(tmp_path):
    path = tmp_path / "deck.toml"
    path.write_text('[[card]]\nid = "A"\nplayers = [3]\ncondition = "1"\n' * 2, encoding="utf-8")
    with pytest.raises(DataError, match="card A: the id is used twice"):
        load_deck(path)


def test_deck_file_that_is_not_toml_or_has_no_cards_is_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[card]\n", encoding="utf-8")
    with pytest.raises(DataError, match="bad.toml: not valid TOML"):
        load_deck(bad)
    empty = tmp_path / "empty.toml"
    empty.write_text('title = "x"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"empty.toml: no cards found; write each card as a \[\[card\]\] table"):
        load_deck(empty)
    with pytest.raises(DataError, match="cannot read the data file"):
        load_deck(tmp_path / "missing.toml")


# --- what each condition kind means ------------------------------------------------------------


def test_listed_faces_need_each_face_with_multiplicity():
    c = card("1 1 2")
    assert triggered(c, [1, 2, 1])
    assert triggered(c, [1, 1, 2, 6, 6])
    assert not triggered(c, [1, 2, 2])
    assert not triggered(c, [])


def test_letters_are_any_faces_and_different_letters_are_different_faces():
    c = card("A A B")
    assert triggered(c, [3, 3, 4])
    assert not triggered(c, [3, 3, 3])  # B must differ from A
    assert triggered(c, [3, 3, 3, 5])
    assert not triggered(c, [1, 2, 3, 4, 5, 6])


def test_letter_may_equal_a_listed_digit_and_the_counts_add():
    c = card("6 A A")
    assert triggered(c, [6, 6, 6])  # A = 6 needs three 6s
    assert not triggered(c, [6, 6])
    assert triggered(c, [6, 2, 2])
    assert not triggered(c, [2, 2, 3])


def test_total_is_the_sum_of_all_faces():
    c = card("total >= 20")
    assert triggered(c, [6, 6, 6, 2])
    assert not triggered(c, [6, 6, 6, 1])


def test_any_of_counts_dice_showing_any_listed_face():
    c = card("? (2,3,4) >= 5")
    assert triggered(c, [2, 2, 3, 4, 4])
    assert not triggered(c, [2, 2, 3, 4, 5, 6, 1])


def test_count_is_exactly_one_of_the_listed_numbers():
    c = card("count(3) == 2/4")
    assert triggered(c, [3, 3, 1])
    assert triggered(c, [3, 3, 3, 3])
    assert not triggered(c, [3, 3, 3])
    assert not triggered(c, [3])


def test_count_more_one_six_and_no_one_triggers():
    c = card("count(6) > count(1)")
    assert triggered(c, [6])
    assert not triggered(c, [6, 1])
    assert not triggered(c, [])
    assert triggered(c, [6, 6, 1])


def test_and_binds_tighter_than_or():
    c = card("1 1 and 2 or 6 6 6")
    assert triggered(c, [6, 6, 6])
    assert triggered(c, [1, 1, 2])
    assert not triggered(c, [1, 1, 6])
    assert parse_condition("1 AND 2").kinds() == {"and", "faces"}


# --- exact odds ------------------------------------------------------------------------------


@pytest.mark.parametrize("card_id", [c.id for c in load_deck()])
def test_odds_match_brute_force_over_every_throw_of_up_to_4_dice(card_id):
    c = next(c for c in load_deck() if c.id == card_id)
    for n in range(5):
        hits = sum(triggers_by_hand(c.condition, faces) for faces in itertools.product(range(1, 7), repeat=n))
        assert trap_odds_exact(c, n) == Fraction(hits, 6**n), (c.condition, n)


def test_odds_are_exact_for_many_dice():
    # P(at least three 1s among n dice), by the binomial formula.
    c = card("1 1 1")
    for n in (0, 3, 10, 25):
        expected = sum(Fraction(comb(n, k) * 5 ** (n - k), 6**n) for k in range(3, n + 1))
        assert trap_odds_exact(c, n) == expected
    assert trap_odds(card("total >= 25"), 25) == 1.0
    assert trap_odds(card("total >= 151"), 25) == 0.0
    assert trap_odds_exact(card("count(1) == 0"), 25) == Fraction(5**25, 6**25)


def test_odds_refuse_a_number_of_dice_out_of_range():
    with pytest.raises(ValueError, match="from 0 to 25"):
        trap_odds(card("1"), 26)


def test_odds_of_the_whole_deck_take_under_2_seconds():
    alea_traps._throws.cache_clear()
    alea_traps._prefixes.cache_clear()
    start = time.process_time()
    table = odds_table(load_deck())
    elapsed = time.process_time() - start
    assert len(table) == 22 and all(len(row) == 26 for row in table.values())
    assert elapsed < 2.0, f"22 cards x 26 values took {elapsed:.2f} s"


def test_conditions_read_lower_case_letters_and_other_spellings():
    assert triggered(card("a a b"), [2, 2, 3]) and not triggered(card("a a b"), [2, 2, 2])
    assert triggered(card("total ≥ 12"), [6, 6])
    assert triggered(card("count(3) = 2/4"), [3, 3]) and not triggered(card("count(3) = 2/4"), [3])
    assert triggered(card("?(2,3,4)>=2 AND count(6)>count(1)"), [2, 3, 6])


# --- bounds, ASCII digits and both languages ----------------------------------------------------


@pytest.mark.parametrize("condition", ["total >= ３０", "count(3) == ²", "? (2,3) >= ①", "count(3) == ٣", "１ 1 1"])
def test_conditions_read_ascii_digits_only(condition):
    with pytest.raises(DataError, match="cannot read") as err:
        parse_condition(condition)
    assert "読めません" in err.value.ja


def test_card_data_errors_say_what_is_wrong_in_both_languages():
    cases = [
        ({"id": "X", "condition": "1 " * 150}, "longer than 200 characters"),
        ({"id": "X" * 41, "condition": "1"}, "no usable 'id'"),
        ({"id": "X", "name": "n" * 81, "condition": "1"}, "at most 80 characters"),
        ({"id": "X", "players": [3, float("nan")], "condition": "1"}, "'players' must be a list"),
        ({"id": "X", "players": [3.0], "condition": "1"}, "'players' must be a list"),
        ({"id": "X", "condition": "count(3) == 26"}, "more than 25 dice"),
    ]
    for raw, message in cases:
        with pytest.raises(DataError, match=message) as err:
            card_from(raw, default_players=(3, 4, 5))
        assert err.value.ja and err.value.ja != err.value.en


def test_a_deck_holds_at_most_100_cards():
    from engines.alea_data import cards_from

    with pytest.raises(DataError, match="a deck holds at most 100") as err:
        cards_from([{"id": f"C{i}", "players": [3], "condition": "1"} for i in range(101)])
    assert "100枚まで" in err.value.ja


def test_odds_of_too_many_dice_are_refused_in_both_languages():
    with pytest.raises(DataError) as err:
        trap_odds_exact(card("1"), float("nan"))
    assert "0〜25" in err.value.ja
