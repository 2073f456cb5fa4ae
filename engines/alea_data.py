"""Sky City ALEA trap cards (トラップカード) as data: the deck file and cards given in options.

A card is a ``[[card]]`` table of ``data/alea.toml`` (or an entry of a game's ``cards``
option): ``id``, ``name``, ``name_ja``, ``players``, ``condition``. Every card is checked
when it loads; a ``DataError`` names the file (or ``options.cards``), the card and why.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.alea_traps import Condition, parse_condition
from engines.alea_words import drawing, words
from engines.core import MAX_NAME, DataError, read_toml, short, whole

__all__ = ["Card", "card_from", "cards_from", "load_deck", "option_cards", "deck_for", "PLAYER_COUNTS", "MAX_CARDS"]

PLAYER_COUNTS = (3, 4, 5)
#: The most cards a deck may hold (the printed deck has 22).
MAX_CARDS = 100
#: The longest card name, in either language.
MAX_CARD_NAME = 80
_CARD_KEYS = {"id", "name", "name_ja", "players", "condition"}


@dataclass(frozen=True)
class Card:
    """One trap card: id, English and Japanese names, the player counts, the condition."""

    id: str
    name: str
    name_ja: str
    players: tuple[int, ...]
    condition: str
    tree: Condition

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "name_ja": self.name_ja,
            "players": list(self.players),
            "condition": self.condition,
        }

    def shown(self) -> dict[str, Any]:
        """``as_dict`` with the condition in plain words (``words``: ``{"en", "ja"}``) and
        what a page draws for it (``drawing``: per term, faces 1-6 and letters)."""
        return {**self.as_dict(), "words": words(self.tree), "drawing": drawing(self.tree)}


def card_from(raw: Any, source: str = "options", default_players: tuple[int, ...] | None = None) -> Card:
    """A card from a TOML table or an options dict; ``DataError`` names source, card, reason.

    ``players`` is required unless ``default_players`` is given (cards passed in a game's
    options may leave it out: they are then used with every player count).
    """
    if not isinstance(raw, Mapping):
        raise DataError(f"{source}: a card must be a table with id, name, players, condition; saw {short(raw)}",
                        f"{source}: カードは id・name・players・condition を持つ表で書いてください（{short(raw)}）")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id.strip() or len(card_id) > MAX_NAME or not card_id.isprintable():
        raise DataError(f"{source}: a card has no usable 'id' (saw {short(card_id)}); give each card a short id "
                        f"like \"T01\" (at most {MAX_NAME} characters)",
                        f"{source}: カードの id {short(card_id)} は使えません。\"T01\" のような短い id"
                        f"（{MAX_NAME}文字まで）を付けてください")

    def fail(en: str, ja: str) -> DataError:
        return DataError(f"{source}: card {card_id}: {en}", f"{source}: カード {card_id}: {ja}")

    unknown = sorted(set(raw) - _CARD_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {short(unknown)}; a card has {short(sorted(_CARD_KEYS))}",
                   f"不明な項目 {short(unknown)} があります。カードの項目は {short(sorted(_CARD_KEYS))} です")
    name = raw.get("name", card_id)
    name_ja = raw.get("name_ja", name)
    if not all(isinstance(n, str) and len(n) <= MAX_CARD_NAME for n in (name, name_ja)):
        raise fail(f"'name' and 'name_ja' must be text of at most {MAX_CARD_NAME} characters",
                   f"name と name_ja は{MAX_CARD_NAME}文字までの文字列で書いてください")
    players = raw.get("players", None if default_players is None else list(default_players))
    if not isinstance(players, list) or not players or not all(whole(p, 3, 5) for p in players):
        raise fail(f"'players' must be a list of player counts among 3, 4, 5 (like [3, 4]); saw {short(players)}",
                   f"players は 3・4・5 の人数のリスト（[3, 4] など）で書いてください（{short(players)}）")
    if len(set(players)) != len(players):
        raise fail(f"'players' lists a count twice: {short(players)}", f"players に同じ人数が2回あります: {short(players)}")
    condition = raw.get("condition")
    if not isinstance(condition, str):
        raise fail(f"'condition' must be text like \"1 1 2\"; saw {short(condition)}",
                   f"condition は \"1 1 2\" のような文字列で書いてください（{short(condition)}）")
    try:
        tree = parse_condition(condition)
    except DataError as exc:
        raise fail(exc.en, exc.ja) from None
    return Card(card_id, name, name_ja, tuple(sorted(players)), condition.strip(), tree)


def cards_from(raw_cards: Any, source: str = "options", default_players: tuple[int, ...] | None = None) -> tuple[Card, ...]:
    """Cards from a list of tables (at most ``MAX_CARDS``); ids must be unique."""
    if not isinstance(raw_cards, list):
        raise DataError(f"{source}: give a list of cards, saw {short(raw_cards)}",
                        f"{source}: カードのリストを書いてください（{short(raw_cards)}）")
    if not raw_cards:
        raise DataError(f"{source}: the deck has no cards", f"{source}: 山札にカードがありません")
    if len(raw_cards) > MAX_CARDS:
        raise DataError(f"{source}: {len(raw_cards)} cards; a deck holds at most {MAX_CARDS}",
                        f"{source}: カードが{len(raw_cards)}枚あります。山札は{MAX_CARDS}枚までです")
    cards = tuple(card_from(raw, source, default_players) for raw in raw_cards)
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise DataError(f"{source}: card {card.id}: the id is used twice; give each card its own id",
                            f"{source}: カード {card.id}: 同じ id が2回使われています。カードごとに別の id にしてください")
        seen.add(card.id)
    return cards


def option_cards(raw: Any) -> tuple[Card, ...]:
    """The ``cards`` option: cards without ``players`` are used with every player count."""
    return cards_from(raw, "options.cards", default_players=PLAYER_COUNTS)


@lru_cache(maxsize=8)
def _load_deck_cached(path: str | None) -> tuple[Card, ...]:
    source, data = read_toml("data/alea.toml", path)
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list):
        raise DataError(f"{source}: no cards found; write each card as a [[card]] table",
                        f"{source}: カードがありません。カードは1枚ずつ [[card]] の表で書いてください")
    return cards_from(raw_cards, source)


def load_deck(path: str | Path | None = None) -> tuple[Card, ...]:
    """The trap cards of a deck file (the packaged default deck when ``path`` is None)."""
    return _load_deck_cached(None if path is None else str(path))


def deck_for(cards: Iterable[Card], players: int) -> tuple[Card, ...]:
    """The cards used with ``players`` players."""
    return tuple(c for c in cards if players in c.players)
