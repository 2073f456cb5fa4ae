"""Lord of the Die-angler's fish cards (お魚カード): reading them from the data file or the
``fish`` option, and whether counted dice catch one.

A fish has an id, English and Japanese names, a target (the counted dice must sum to at
least it) and an optional condition (条件), checked against the counted dice as well:
faces ``"1 6"`` (each on its own die; ``"4 4"``: two 4s), k ``=`` marks ``"= = ="`` (k ≥ 2:
k dice show one face), ``"≠"`` or ``"!="`` (all counted dice differ). A d10's 0 counts 10.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.core import MAX_NAME, DataError, ascii_int, read_toml, short, whole

DATA_FILE = "data/dieangler.toml"
#: Bounds on a deck, so that no setup or event can cost more than milliseconds.
MAX_FISH = 1000
MAX_TARGET = 999
MAX_FACE = 20
KEYS = ("id", "name", "name_ja", "target", "condition")


@dataclass(frozen=True)
class Fish:
    """A fish card: its target and its condition (kind ``none``, ``faces``, ``marks``,
    ``distinct``)."""

    id: str
    name: str
    name_ja: str
    target: int
    condition: str
    kind: str
    faces: tuple[int, ...] = ()
    marks: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "name_ja": self.name_ja, "target": self.target,
                "condition": self.condition, "kind": self.kind}


def meets(fish: Fish, values: Sequence[int]) -> bool:
    """Whether counted dice showing ``values`` catch ``fish`` (sum and condition)."""
    return sum(values) >= fish.target and condition_holds(fish, values)


def condition_holds(fish: Fish, values: Sequence[int]) -> bool:
    """Whether counted dice showing ``values`` meet ``fish``'s condition (its target aside)."""
    counts = Counter(values)
    if fish.kind == "faces":
        return all(counts[f] >= n for f, n in Counter(fish.faces).items())
    if fish.kind == "marks":
        return bool(counts) and max(counts.values()) >= fish.marks
    if fish.kind == "distinct":
        return all(n == 1 for n in counts.values())
    return True


def load_fish(path: str | Path | None = None) -> tuple[Fish, ...]:
    """The fish of a TOML file (default: the packaged data/dieangler.toml), checked."""
    if path is None:
        return _default_fish()
    return _read_fish(path)


@lru_cache(maxsize=1)
def _default_fish() -> tuple[Fish, ...]:
    return _read_fish(None)


def _read_fish(path: str | Path | None) -> tuple[Fish, ...]:
    where, data = read_toml(DATA_FILE, path)
    return fish_from(data.get("fish"), where)


def fish_from(raw: Any, where: str) -> tuple[Fish, ...]:
    """Fish from a list of tables (the data file's ``[[fish]]`` or the ``fish`` option),
    checked; ``DataError`` naming ``where``, the fish and the fault."""
    if not isinstance(raw, list) or not raw:
        raise DataError(f"{where}: give a non-empty list of fish, saw {short(raw)}",
                        f"{where}: お魚カードを1枚以上のリストで書いてください（{short(raw)}）")
    if len(raw) > MAX_FISH:
        raise DataError(f"{where}: {len(raw)} fish; a deck holds at most {MAX_FISH}",
                        f"{where}: お魚カードが{len(raw)}枚あります。山札は最大{MAX_FISH}枚です")
    out: list[Fish] = []
    seen: set[str] = set()
    for n, item in enumerate(raw, start=1):
        fish = _one_fish(item, n, where)
        if fish.id in seen:
            raise DataError(f"{where}: fish {fish.id}: the id is used twice; each fish needs its own id",
                            f"{where}: お魚カード {fish.id}: 同じ id が2回使われています。カードごとに別の id にしてください")
        seen.add(fish.id)
        out.append(fish)
    return tuple(out)


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_NAME and value.isprintable()


def _one_fish(item: Any, n: int, where: str) -> Fish:
    if not isinstance(item, Mapping):
        raise DataError(f"{where}: fish {n} is {short(item)}; give a table with id and target",
                        f"{where}: {n}枚目のお魚カードが {short(item)} です。id と target を持つ表で書いてください")
    fid = item.get("id")
    if not _text(fid) or not fid.strip():
        raise DataError(f"{where}: fish {n} has no usable id (saw {short(fid)}); give each fish a short text id "
                        f"like \"F01\" (at most {MAX_NAME} characters)",
                        f"{where}: {n}枚目のお魚カードの id {short(fid)} は使えません。"
                        f"\"F01\" のような{MAX_NAME}文字以内の id を付けてください")
    label, label_ja = f"{where}: fish {fid}", f"{where}: お魚カード {fid}"
    unknown = sorted(set(item) - set(KEYS), key=str)
    if unknown:
        raise DataError(f"{label}: unknown key(s) {short(unknown)}; a fish has {', '.join(KEYS)}",
                        f"{label_ja}: 不明な項目 {short(unknown)} があります。使える項目は {', '.join(KEYS)} です")
    if "target" not in item:
        raise DataError(f"{label}: target is missing; give a whole number from 1 to {MAX_TARGET}",
                        f"{label_ja}: 目標 (target) がありません。1〜{MAX_TARGET}の整数で書いてください")
    target = item["target"]
    if not whole(target, 1, MAX_TARGET):
        raise DataError(f"{label}: target is {short(target)}; give a whole number from 1 to {MAX_TARGET}",
                        f"{label_ja}: 目標 {short(target)} は使えません。1〜{MAX_TARGET}の整数にしてください")
    name = item.get("name", fid)
    name_ja = item.get("name_ja", name)
    for key, value in (("name", name), ("name_ja", name_ja)):
        if not _text(value):
            raise DataError(f"{label}: {key} is {short(value)}; give a text of 1 to {MAX_NAME} characters",
                            f"{label_ja}: {key} が {short(value)} です。1〜{MAX_NAME}文字の文字列にしてください")
    condition = item.get("condition", "")
    if not isinstance(condition, str) or len(condition) > MAX_NAME:
        raise DataError(f"{label}: condition is {short(condition)}; give a text like \"1 6\", \"= =\" or \"≠\"",
                        f"{label_ja}: 条件 {short(condition)} は使えません。\"1 6\"、\"= =\"、\"≠\" のように書いてください")
    kind, faces, marks = _condition(condition, label, label_ja)
    return Fish(fid, name, name_ja, target, condition.strip(), kind, faces, marks)


def _condition(raw: str, label: str, label_ja: str) -> tuple[str, tuple[int, ...], int]:
    """(kind, faces, marks) of a condition text; DataError when it is not understood."""
    s = raw.strip()
    if not s:
        return "none", (), 0
    if s in ("≠", "!="):
        return "distinct", (), 0
    if set(s) <= {"=", " ", "\t"}:
        if s.count("=") < 2:
            raise DataError(f"{label}: a '=' condition needs at least 2 marks, like \"= =\"",
                            f"{label_ja}: = の条件には2つ以上のマークが必要です（\"= =\" のように）")
        return "marks", (), s.count("=")
    faces = [ascii_int(word) for word in s.split()]
    if any(f is None or not 1 <= f <= MAX_FACE for f in faces):
        raise DataError(f"{label}: condition {short(raw)} is not understood; write faces 1 to {MAX_FACE} like \"1 6\", "
                        "marks like \"= = =\", or \"≠\"",
                        f"{label_ja}: 条件 {short(raw)} を読み取れません。出目（1〜{MAX_FACE}）なら \"1 6\"、"
                        "同じ目なら \"= = =\"、すべて異なる目なら \"≠\" と書いてください")
    return "faces", tuple(sorted(faces)), 0
