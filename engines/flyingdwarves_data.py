"""Flying Dwarves' data: the glossary, the board and the item deck of
``engines/data/flyingdwarves.toml`` (or of a script's options), checked, and the names of
spaces, item cards and handicaps in both languages, built from the glossary."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.core import DataError, count_en, load_glossary, read_toml, short  # noqa: F401 (count_en re-exported)

DATA_FILE = "data/flyingdwarves.toml"
#: One English and one Japanese name per term of the game (the data file's [glossary]).
GLOSSARY = load_glossary(DATA_FILE)
ROBOTS = ("copy", "cancel", "swap", "develop")
HANDICAPS = ("1 point", "1 item", "2 points", "2 items")
#: At most this many spaces on a board and cards in an item deck, so no game is slow to play.
MAX_SPACES = 200
MAX_ITEMS = 200

Space = tuple[str, Any]


def en(key: str) -> str:
    """A glossary term in English."""
    return GLOSSARY[key]["en"]


def ja(key: str) -> str:
    """A glossary term in Japanese."""
    return GLOSSARY[key]["ja"]


def _where_ja(where: str) -> str:
    return where.replace("option ", "オプション ")


def _space_error(where: str, i: int, raw: Any, en_: str, ja_: str) -> DataError:
    return DataError(f"{where}: {en('board')} {en('space')} {i} ({short(raw)}): {en_}",
                     f"{_where_ja(where)}: {ja('board')}の{i}番の{ja('space')}（{short(raw)}）: {ja_}")


def board_from(raw: Any, where: str) -> tuple[Space, ...]:
    """The board of a data file or option: ``(kind, value)`` per space, checked."""
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_SPACES:
        raise DataError(f"{where}: 'board' must be a list of 2 to {MAX_SPACES} spaces (the start and more), "
                        f"saw {short(raw)}",
                        f"{_where_ja(where)}: board は{ja('start')}を含む2〜{MAX_SPACES}個の{ja('space')}の"
                        f"リストで書いてください（{short(raw)}）")
    return tuple(_space(i, s, where) for i, s in enumerate(raw))


def _space(i: int, s: Any, where: str) -> Space:
    if not isinstance(s, str):
        raise _space_error(where, i, s, "a space is a string like \"mine 2\"",
                           "マスは \"mine 2\" のような文字列で書いてください")
    parts = s.split()
    kind = parts[0] if parts else ""
    if (i == 0) != (s == "start"):
        raise _space_error(where, i, s, "space 0, and only space 0, is \"start\" (the start is also the goal)",
                           f"0番のマスだけが \"start\"（{ja('start')}。{ja('goal')}を兼ねます）です")
    if s == "start":
        return "start", None
    if kind in ("wasteland", "lot") and len(parts) == 1:
        return kind, None
    if kind == "mine" and parts[1:] == ["?"]:
        return "mine", "?"
    if kind in ("mine", "treasure") and len(parts) == 2:
        if not re.fullmatch(r"[1-9][0-9]?", parts[1]):
            either = " or ?" if kind == "mine" else ""
            raise _space_error(where, i, s, f"the number of a {kind} must be 1 to 99{either}",
                               f"{ja(kind)}の数字は1〜99{'か ?' if kind == 'mine' else ''}で書いてください")
        return kind, int(parts[1])
    raise _space_error(where, i, s, "unknown space; expected \"start\", \"mine N\", \"mine ?\", "
                                    "\"treasure N\", \"wasteland\" or \"lot\"",
                       "不明なマスです。\"start\"、\"mine N\"、\"mine ?\"、\"treasure N\"、\"wasteland\"、\"lot\" のどれかです")


def items_from(raw: Any, where: str) -> tuple[str, ...]:
    """The item deck of a data file or option, checked."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_ITEMS:
        raise DataError(f"{where}: 'items' must be a list of 1 to {MAX_ITEMS} item cards, saw {short(raw)}",
                        f"{_where_ja(where)}: items は1〜{MAX_ITEMS}枚の{ja('item_card')}のリストで書いてください"
                        f"（{short(raw)}）")
    for i, c in enumerate(raw):
        if not (isinstance(c, str) and (c in ROBOTS or re.fullmatch(r"[+-][1-9][0-9]?", c))):
            raise DataError(f"{where}: item card {i + 1} ({short(c)}) is unknown; expected \"+N\" or \"-N\" "
                            "(N 1 to 99), \"copy\", \"cancel\", \"swap\" or \"develop\"",
                            f"{_where_ja(where)}: {i + 1}枚目の{ja('item_card')}（{short(c)}）は不明です。"
                            "\"+N\"・\"-N\"（Nは1〜99）、\"copy\"、\"cancel\"、\"swap\"、\"develop\" のどれかです")
    return tuple(raw)


def load_data(path: str | Path | None = None) -> tuple[tuple[Space, ...], tuple[str, ...]]:
    """Board and item deck of a TOML file (default: the packaged data file), checked."""
    return _default_data() if path is None else _read_data(path)


@lru_cache(maxsize=1)
def _default_data() -> tuple[tuple[Space, ...], tuple[str, ...]]:
    return _read_data(None)


def _read_data(path: str | Path | None) -> tuple[tuple[Space, ...], tuple[str, ...]]:
    where, data = read_toml(DATA_FILE, path)
    return board_from(data.get("board"), where), items_from(data.get("items"), where)


# --- names, both languages ----------------------------------------------------------------


def space_name(space: Space) -> tuple[str, str]:
    """A space as the log names it: ``("mine 3", "鉱山3")``."""
    kind, value = space
    if value is None:
        return en(kind), ja(kind)
    return f"{en(kind)} {value}", f"{ja(kind)}{value}"


def item_name(card: str) -> tuple[str, str]:
    """An item card's name: a robot's from the glossary, ``+N`` / ``-N`` as written."""
    return (en(card), ja(card)) if card in ROBOTS else (card, card)


def handicap_name(handicap: str) -> tuple[str, str]:
    """A handicap's name: ``("1 item", "アイテムカード1枚")``."""
    n, what = handicap.split()
    if what.startswith("point"):
        return handicap, f"{ja('points')}{n}点"
    return handicap, f"{ja('item_card')}{n}枚"
