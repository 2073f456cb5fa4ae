"""Sky City ALEA trap conditions (トラップの条件) in plain words, and their drawing.

``words(tree)`` says what a parsed condition (``engines.alea_traps``) asks of the dice on
the table, in English and Japanese ("exactly two or four 3s" / "3がちょうど2個か4個"), and
``drawing(tree)`` lists what a page draws for it: per term, the faces it names (1-6) and
its letters ("A"). Both are built from the tree, so a card a script defines gets them too.
"""
from __future__ import annotations

from collections import Counter

from engines.alea_traps import AnyOf, Combined, Condition, CountIs, CountMore, Faces, Total

__all__ = ["words", "drawing"]

_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_LETTERS = "ABCDEF"


def _n(count: int) -> str:
    """A count in English words up to ten ("two"), in digits above."""
    return _NUMBERS[count] if count < len(_NUMBERS) else str(count)


def _face(face: int, count: int) -> str:
    """"two 3s", "one 6"."""
    return f"{_n(count)} {face}" + ("" if count == 1 else "s")


def _listed(items: list[str], word: str) -> str:
    """"1, 2 and 3" (``word`` "and"), "2, 3 or 4"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def _digits(counts: tuple[int, ...]) -> tuple[str, str]:
    """The listed faces of a faces term: "two 1s and one 2" / "1が2個と2が1個"."""
    named = [(face, count) for face, count in enumerate(counts, 1) if count]
    sizes = {count for _, count in named}
    if len(named) > 1 and len(sizes) == 1:
        (count,) = sizes
        faces = [str(face) for face, _ in named]
        return f"{_n(count)} each of {_listed(faces, 'and')}", f"{'・'.join(faces)}が{count}個ずつ"
    return (_listed([_face(f, c) for f, c in named], "and"),
            "と".join(f"{f}が{c}個" for f, c in named))


def _letter_group(size: int, kinds: int, other: bool) -> tuple[str, str]:
    """``kinds`` different faces shown ``size`` times each; ``other``: besides a group before."""
    if kinds == 1:
        if size == 1:
            return ("one die of another face", "別の目が1個") if other else ("one die of any face", "どれかの目が1個")
        return (f"{_n(size)} of another face", f"別の同じ目が{size}個") if other else (f"{_n(size)} of a kind", f"同じ目が{size}個")
    en_other, ja_other = ("other", "別の") if other else ("different", "異なる")
    if size == 1:
        return f"{_n(kinds)} {en_other} faces", f"{ja_other}{kinds}種類の目が1個ずつ"
    return f"{_n(size)} each of {_n(kinds)} {en_other} faces", f"{ja_other}{kinds}種類の目が{size}個ずつ"


def _letters(groups: tuple[int, ...]) -> tuple[str, str]:
    """The letters of a faces term: "three of a kind and one die of another face"."""
    en, ja = [], []
    for i, (size, kinds) in enumerate(sorted(Counter(groups).items(), reverse=True)):
        e, j = _letter_group(size, kinds, other=i > 0)
        en.append(e)
        ja.append(j)
    return " and ".join(en), "と、".join(ja)


def _faces_words(term: Faces) -> tuple[str, str]:
    if not term.letters:
        en, ja = _digits(term.digits)
    elif not any(term.digits):
        en, ja = _letters(term.letters)
    else:
        (d_en, d_ja), (l_en, l_ja) = _digits(term.digits), _letters(term.letters)
        it = "it" if sum(term.digits) == 1 else "them"
        en, ja = f"{d_en} and, besides {it}, {l_en}", f"{d_ja}と、それとは別に{l_ja}"
    return f"at least {en}", f"少なくとも{ja}"


def _count_is(term: CountIs) -> tuple[str, str]:
    if term.values == (0,):
        return f"no {term.face}s", f"{term.face}が1個もない"
    plural = "" if term.values == (1,) else "s"
    return (f"exactly {_listed([_n(v) for v in term.values], 'or')} {term.face}{plural}",
            f"{term.face}がちょうど" + "か".join(f"{v}個" for v in term.values))


def _pair(tree: Condition) -> tuple[str, str]:
    """(English, Japanese) words of a condition."""
    if isinstance(tree, Faces):
        return _faces_words(tree)
    if isinstance(tree, Total):
        return f"a total of {tree.at_least} or more", f"出目の合計が{tree.at_least}以上"
    if isinstance(tree, AnyOf):
        dice = "die" if tree.at_least == 1 else "dice"
        return (f"at least {_n(tree.at_least)} {dice} showing {_listed([str(f) for f in tree.faces], 'or')}",
                f"{'・'.join(str(f) for f in tree.faces)}の目が合わせて{tree.at_least}個以上")
    if isinstance(tree, CountIs):
        return _count_is(tree)
    if isinstance(tree, CountMore):
        return f"more {tree.face}s than {tree.than}s", f"{tree.face}の目が{tree.than}の目より多い"
    assert isinstance(tree, Combined), tree
    parts = [_pair(p) for p in tree.parts]
    if tree.op == "or":
        return ", or ".join(e for e, _ in parts), "、または".join(j for _, j in parts)
    joiner = ", and " if any(" and " in e for e, _ in parts) else " and "
    return joiner.join(e for e, _ in parts), "、かつ".join(j for _, j in parts)


def words(tree: Condition) -> dict[str, str]:
    """What the condition asks of the dice on the table, ``{"en", "ja"}``."""
    en, ja = _pair(tree)
    return {"en": en, "ja": ja}


def _symbols(tree: Condition) -> list[list[int | str]]:
    if isinstance(tree, Combined):
        return [symbols for part in tree.parts for symbols in _symbols(part)]
    if isinstance(tree, Faces):
        faces: list[int | str] = [f for f, count in enumerate(tree.digits, 1) for _ in range(count)]
        return [faces + [_LETTERS[i] for i, size in enumerate(tree.letters) for _ in range(size)]]
    if isinstance(tree, AnyOf):
        return [list(tree.faces)]
    if isinstance(tree, CountIs):
        return [[tree.face]]
    if isinstance(tree, CountMore):
        return [[tree.face, tree.than]]
    return [[]]  # a total names no face


def drawing(tree: Condition) -> list[list[int | str]]:
    """Per term of the condition, the faces it names (1-6, as often as it names them) and
    its letters ("A", "B": any faces, different letters different faces); terms that name
    no face (a total) are left out."""
    return [symbols for symbols in _symbols(tree) if symbols]
