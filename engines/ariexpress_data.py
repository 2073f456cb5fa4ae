"""Ari Express (アリ急行) data: the nest colours and their Japanese names, read from
``engines/data/ariexpress.toml`` (or a file of the table's own) and checked."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.core import MAX_NAME, DataError, read_toml, short

DATA_FILE = "data/ariexpress.toml"


def nests_from(raw: Any, where: str) -> tuple[str, ...]:
    """The four nest colours of a data file or option, checked."""
    if (not isinstance(raw, list) or len(raw) != 4
            or not all(isinstance(c, str) and c.strip() and c == c.strip() and "-" not in c and len(c) <= MAX_NAME
                       for c in raw)):
        raise DataError(f"{where}: 'nests' must be a list of 4 colour names like [\"red\", \"blue\", \"yellow\", \"green\"] "
                        f"(no spaces or '-', at most {MAX_NAME} characters), saw {short(raw)}",
                        f"{where}: nests は [\"red\", \"blue\", \"yellow\", \"green\"] のような4色の名前のリストで書いてください"
                        f"（空白や '-' は使えません。{MAX_NAME}文字まで）。{short(raw)} でした")
    if len(set(raw)) != 4:
        raise DataError(f"{where}: the 4 nest colours must differ, saw {short(raw)}",
                        f"{where}: アリの巣の4色はすべて別の色にしてください（{short(raw)}）")
    return tuple(raw)


def load_data(path: str | Path | None = None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The nest colours and the colours' Japanese names of a TOML file (default: packaged)."""
    where, data = read_toml(DATA_FILE, path)
    nests = nests_from(data.get("nests"), where)
    names = data.get("names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) and v for v in names.values()):
        raise DataError(f"{where}: [names] maps a colour to its Japanese name, e.g. red = \"赤\"; saw {short(names)}",
                        f"{where}: [names] には色ごとの日本語名を red = \"赤\" のように書いてください（{short(names)}）")
    missing = [c for c in nests if c not in names]
    if missing:
        raise DataError(f"{where}: [names] has no Japanese name for nest colour(s) {', '.join(missing)}",
                        f"{where}: [names] にアリの巣の色 {', '.join(missing)} の日本語名がありません")
    return nests, dict(names)


@lru_cache(maxsize=1)
def default_data() -> tuple[tuple[str, ...], dict[str, str]]:
    """The packaged nest colours and names (read once)."""
    return load_data(None)


def colour_ja(colour: str) -> str:
    """A nest colour's Japanese name (the colour itself when the data file has none)."""
    return default_data()[1].get(colour, colour)
