"""Lord of the Die-angler's words: the glossary (one English and one Japanese name per game
term, from data/dieangler.toml) and the phrases the engine builds from it for its log,
prompts and refusals."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from engines.core import colour_ja, load_glossary
from engines.dieangler_fish import DATA_FILE, Fish

GLOSSARY = load_glossary(DATA_FILE)
#: A term's name in one language: ``EN["chum"]`` is "chum", ``JA["chum"]`` is "撒き餌".
EN = {key: names["en"] for key, names in GLOSSARY.items()}
JA = {key: names["ja"] for key, names in GLOSSARY.items()}
SIDES = {"d10": 10, "d20": 20}
#: The glossary term of a die by its sides (a throw holds only these).
KINDS = {6: "d6", 10: "d10", 20: "d20"}
#: Most ids a message lists before it says how many more there are.
LISTED = 12


def both(key: str) -> tuple[str, str]:
    """A term's (English, Japanese) names."""
    return EN[key], JA[key]


def and_en(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def and_ja(items: Sequence[str]) -> str:
    return "・".join(items)


def listing(values: Sequence[str]) -> str:
    """Ids for a message, at most ``LISTED`` of them."""
    more = f" (+{len(values) - LISTED})" if len(values) > LISTED else ""
    return ", ".join(values[:LISTED]) + more


def face(kind: str, value: int) -> int:
    """The face a die shows for a value (a d10's 10 shows 0)."""
    return value % 10 if kind == "d10" else value


def fish_text(fish: Fish) -> tuple[str, str]:
    cond = f", {EN['condition']} {fish.condition}" if fish.condition else ""
    cond_ja = f"、{JA['condition']} {fish.condition}" if fish.condition else ""
    return (f"{fish.id} {fish.name} ({EN['target']} {fish.target}{cond})",
            f"{fish.id} {fish.name_ja}（{JA['target']} {fish.target}{cond_ja}）")


def choice_text(choice: tuple[int, tuple[str, ...]] | None) -> tuple[str, str]:
    """A seat's revealed rod: "2 d6 + d10" / "6面体2個 + 10面体" (special dice by their glossary names)."""
    d6, special = choice or (0, ())
    if not d6 and not special:
        return f"no {EN['dice']}", f"{JA['dice']}なし"
    en = [f"{d6} {EN['d6']}"] if d6 else []
    ja = [f"{JA['d6']}{d6}個"] if d6 else []
    return " + ".join(en + [EN[k] for k in special]), " + ".join(ja + [JA[k] for k in special])


def hand_text(hand: Any, lang: str) -> str:
    """A thrown hand: its d6 faces, then each special die as ``d20:9(chum)``."""
    names = EN if lang == "en" else JA
    parts = [str(f) for f in hand.d6]
    parts += [f"{names[k]}:{face(k, v)}({names[hand.use(k)]})" for k, v in hand.special]
    return " ".join(parts) or "-"


def dice_counts(dice: Iterable[Any]) -> Counter:
    """(colour, sides) -> how many, of ``core.Die`` values."""
    return Counter((d.colour, d.sides) for d in dice)


def spec_text(spec: Counter) -> tuple[str, str]:
    """Dice counted by (colour, sides), in words: "2 red d6, 1 red d10" / "赤の6面体2個、赤の10面体1個"."""
    if not spec:
        return f"no {EN['dice']}", f"{JA['dice']}なし"
    items = sorted(spec.items())
    return (", ".join(f"{n} {c} {EN[KINDS[s]]}" for (c, s), n in items),
            "、".join(f"{colour_ja(c)}の{JA[KINDS[s]]}{n}個" for (c, s), n in items))


def die_names(kinds: Sequence[str]) -> tuple[str, str]:
    """Special dice named in both languages ("d10, d20" / "10面体・20面体"); "none" / "なし"."""
    return ", ".join(EN[k] for k in kinds) or "none", "・".join(JA[k] for k in kinds) or "なし"
