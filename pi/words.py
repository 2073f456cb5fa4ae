"""Words the table says about dice, in English and Japanese (results, prompts, colours)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from engines.core import colour_ja  # the one list of colour names, both languages

Result = dict[str, Any]



def ok(**extra: Any) -> Result:
    return {"ok": True, **extra}


def error(en: str, ja: str) -> Result:
    return {"ok": False, "error": {"en": en, "ja": ja}}


def no_game() -> Result:
    return error("No game is running; the host starts one on the host page.",
                 "ゲームが始まっていません。ホスト画面から開始してください。")


def refused(exc: Any) -> Result:
    """An engine's refusal (an ``EngineError``, always in both languages) for the pages."""
    return error(exc.en, exc.ja)


def join_en(parts: Sequence[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _kind(colour: str, sides: int, en: bool) -> str:
    name = ("of any colour" if en else "色を問わず") if colour == "*" else (colour if en else colour_ja(colour))
    if sides == 6:
        return name
    return f"{name} d{sides}" if en else f"{name}d{sides}"


def dice_words(counts: Iterable[tuple[str, int, int]]) -> dict[str, str]:
    """``[("red", 6, 3), ("red", 10, 1)]`` (colour, sides, count) -> "3 red and 1 red d10 dice"."""
    counts = [(c, s, n) for c, s, n in counts if n]
    if not counts:
        return {"en": "no dice", "ja": "ダイスなし"}
    total = sum(n for _, _, n in counts)
    en = join_en([f"{n} {_kind(c, s, True)}" for c, s, n in counts])
    if any(c == "*" for c, _, _ in counts) and len(counts) == 1:
        c, s, n = counts[0]
        en = f"{n} {'die' if n == 1 else 'dice'}{'' if s == 6 else f' (d{s})'} of any colour"
    else:
        en = f"{en} {'die' if total == 1 else 'dice'}"
    ja = "、".join(f"{_kind(c, s, False)}{n}個" for c, s, n in counts)
    return {"en": en, "ja": ja}


def spec_counts(spec: Sequence[Mapping[str, Any]] | None) -> list[tuple[str, int, int]]:
    """An input's ``dice`` list as (colour, sides, count) triples."""
    return [(str(d.get("colour", "*")), int(d.get("sides", 6)), int(d.get("count", 0))) for d in spec or []]
