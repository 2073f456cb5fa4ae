"""What the table says aloud: announcements derived from two public views.

The voice reads nothing but what every page may show: the engine's public view
(``view(state)`` with no seat: its log, its public ``expects``, scores and winners). An
announcement is made of the log lines an event added (the engines write them in English
and Japanese; nothing here knows a game's rules), shortened for the ear, and of whose
turn it is now (from the public ``expects``). A secret choice is never spoken before its
reveal because the public view does not hold it (``engines.core.public``).

- ``announcements(before, after, lang, number)``: what to say when the public view goes
  from ``before`` to ``after`` (``before`` None: a game the voice has not heard yet);
- ``speakable(line, lang, names)``: one log line as it is spoken: long runs of dice are
  left out (everyone sees them), symbols become words, and in Japanese the seats' names
  written in Latin letters are read in katakana (Open JTalk spells Latin letter by letter).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from engines.core import COLOURS

LANGUAGES = ("ja", "en")


@dataclass(frozen=True)
class Announcement:
    """One thing the table says: ``kind`` (reveal, verdict, turn, winner), the event
    number it follows, its sentences (each synthesised on its own, so the first is heard
    while the next is made) and the sounds played before the words."""

    number: int
    lang: str
    kind: str
    sentences: tuple[str, ...]
    sounds: tuple[str, ...] = field(default=())

    @property
    def text(self) -> str:
        joiner = "" if self.lang == "ja" else " "
        return joiner.join(self.sentences)


# --- from views to announcements -------------------------------------------------------------


def secret_open(view: Mapping[str, Any] | None) -> bool:
    """Whether the view's game waits for a secret choice."""
    return bool(view) and any(i.get("secret") for i in (view.get("expects") or {}).get("inputs", []))


def due_seats(view: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The seats of the last input a public view waits for (a game lists what a seat
    may do on another's turn, like an item card, before the turn's own move; a secret
    input names nobody)."""
    inputs = (view.get("expects") or {}).get("inputs", []) if view else []
    return tuple(inputs[-1].get("seats") or ()) if inputs else ()


def announcements(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, lang: str,
                  number: int) -> list[Announcement]:
    """What to say when the public view goes from ``before`` to ``after``.

    ``before`` None: the whole log of ``after`` is new (a game just started). A log that
    is not ``before``'s log continued (an undo took lines back) says nothing of the past:
    only whose turn it is. The first announcement of a reveal (a secret choice was open,
    now it is not) carries the chime for "every seat has locked" and the reveal sound.
    """
    if not after:
        return []
    names = [s["name"] for s in after.get("seats", [])]
    old_log = list(before.get("log") or []) if before else []
    new_log = list(after.get("log") or [])
    fresh = new_log[len(old_log):] if new_log[: len(old_log)] == old_log else []
    sentences = tuple(sentence(s, lang) for s in (speakable(line[lang], lang, names) for line in fresh) if s)
    out: list[Announcement] = []
    over = not (after.get("expects") or {}).get("inputs")
    if sentences:
        revealed = secret_open(before) and not secret_open(after)
        kind = "winner" if over and after.get("winners") else "reveal" if revealed else "verdict"
        out.append(Announcement(number, lang, kind, sentences, ("locked", "reveal") if revealed else ()))
    if over:
        return out
    turn = turn_words(after, lang, names)
    # Said when someone new must act: not when seats of a step everyone takes finish it.
    newly_due = not set(due_seats(after)) <= set(due_seats(before))
    if turn and (newly_due or secret_open(after) and not secret_open(before)):
        out.append(Announcement(number, lang, "turn", (turn,)))
    return out


def sentence(text: str, lang: str) -> str:
    """``text`` ending as a sentence does, so that lines said one after the other pause."""
    if lang == "ja":
        return text if text.endswith(("。", "！", "!", "？")) else text.rstrip(".") + "。"
    return text if text.endswith((".", "!", "?")) else text + "."


def turn_words(view: Mapping[str, Any], lang: str, names: Sequence[str]) -> str:
    """Whose turn it is, in words ("Aki's turn." / "アキの番です。"), or that everyone
    chooses in secret; empty when the view waits for nobody in particular."""
    if secret_open(view):
        return "全員、秘密に選んでください。" if lang == "ja" else "Everyone, choose in secret."
    seats = due_seats(view)
    if not seats:
        return ""
    if lang == "ja":
        return "と".join(reading(s) for s in seats) + "の番です。"
    who = seats[0] if len(seats) == 1 else ", ".join(seats[:-1]) + " and " + seats[-1]
    return f"{who}'s turn." if len(seats) == 1 else f"{who}, your turn."


# --- one log line as it is spoken ------------------------------------------------------------

#: Four or more dice or numbers in a row ("1 1 2 2 3 5", "C2 Y4 Y4 R4"): shown on the pages,
#: too long to hear.
_RUN = re.compile(r"(?<![0-9A-Za-z.])[A-Za-z]?\d+(?: [A-Za-z]?\d+){3,}(?![0-9A-Za-z.])")
_PAREN = re.compile(r"\s*[(（][^()（）]*[)）]")
_CLAUSE = re.compile(r"(; |: |；|：)")

#: Symbols and words the engines' lines use, as they are said (a small glossary for the ear).
_SAY = {
    "en": ((" ✓", " hit"), ("(s)", "s"), (" / ", ", then "), ("✓", " hit")),
    "ja": ((" ✓", " 達成"), ("✓", "達成"), (" / ", "、次に"), ("〜", "から"), (" and ", "と"),
           ("+", "プラス"), ("d10", "ディー10"), ("d20", "ディー20"), ("d6", "6面体")),
}
_MINUS = re.compile(r"(?<![0-9A-Za-z])-(?=\d)")
_COLOUR = re.compile(r"\b(" + "|".join(sorted(COLOURS, key=len, reverse=True)) + r")\b")


def speakable(line: str, lang: str, names: Sequence[str] = ()) -> str:
    """``line`` (one language of a log line) as the voice says it; "" when nothing is
    left worth saying."""
    text = _PAREN.sub(lambda m: "" if _RUN.search(m.group(0)) else m.group(0), line)
    parts = _CLAUSE.split(text)
    kept: list[str] = []
    for i in range(0, len(parts), 2):
        clause = parts[i].strip()
        if not clause or _RUN.search(clause):
            continue
        if kept:
            kept.append(parts[i - 1] if i else " ")
        kept.append(clause)
    text = "".join(kept).strip(" ;:；：")
    for old, new in _SAY[lang]:
        text = text.replace(old, new)
    if lang == "ja":
        text = _MINUS.sub("マイナス", text)
        text = _COLOUR.sub(lambda m: COLOURS[m.group(1)], text)
        for name in sorted(names, key=len, reverse=True):
            text = text.replace(name, reading(name))
    return text.strip()


# --- names in katakana ----------------------------------------------------------------------

_KANA = {
    "a": "ア", "i": "イ", "u": "ウ", "e": "エ", "o": "オ",
    "ka": "カ", "ki": "キ", "ku": "ク", "ke": "ケ", "ko": "コ", "ga": "ガ", "gi": "ギ", "gu": "グ", "ge": "ゲ", "go": "ゴ",
    "sa": "サ", "shi": "シ", "si": "シ", "su": "ス", "se": "セ", "so": "ソ",
    "za": "ザ", "ji": "ジ", "zi": "ジ", "zu": "ズ", "ze": "ゼ", "zo": "ゾ",
    "ta": "タ", "chi": "チ", "ti": "ティ", "tsu": "ツ", "tu": "トゥ", "te": "テ", "to": "ト",
    "da": "ダ", "di": "ディ", "du": "ドゥ", "de": "デ", "do": "ド",
    "na": "ナ", "ni": "ニ", "nu": "ヌ", "ne": "ネ", "no": "ノ",
    "ha": "ハ", "hi": "ヒ", "fu": "フ", "hu": "フ", "he": "ヘ", "ho": "ホ",
    "fa": "ファ", "fi": "フィ", "fe": "フェ", "fo": "フォ",
    "ba": "バ", "bi": "ビ", "bu": "ブ", "be": "ベ", "bo": "ボ", "pa": "パ", "pi": "ピ", "pu": "プ", "pe": "ペ", "po": "ポ",
    "ma": "マ", "mi": "ミ", "mu": "ム", "me": "メ", "mo": "モ",
    "ya": "ヤ", "yu": "ユ", "yo": "ヨ", "ra": "ラ", "ri": "リ", "ru": "ル", "re": "レ", "ro": "ロ",
    "la": "ラ", "li": "リ", "lu": "ル", "le": "レ", "lo": "ロ", "wa": "ワ", "wo": "ヲ",
    "va": "ヴァ", "vi": "ヴィ", "vu": "ヴ", "ve": "ヴェ", "vo": "ヴォ",
    "kya": "キャ", "kyu": "キュ", "kyo": "キョ", "sha": "シャ", "shu": "シュ", "she": "シェ", "sho": "ショ",
    "cha": "チャ", "chu": "チュ", "che": "チェ", "cho": "チョ", "ja": "ジャ", "ju": "ジュ", "je": "ジェ", "jo": "ジョ",
    "nya": "ニャ", "nyu": "ニュ", "nyo": "ニョ", "hya": "ヒャ", "hyu": "ヒュ", "hyo": "ヒョ",
    "mya": "ミャ", "myu": "ミュ", "myo": "ミョ", "rya": "リャ", "ryu": "リュ", "ryo": "リョ",
    "gya": "ギャ", "gyu": "ギュ", "gyo": "ギョ", "bya": "ビャ", "byu": "ビュ", "byo": "ビョ",
    "pya": "ピャ", "pyu": "ピュ", "pyo": "ピョ",
}
#: A consonant with no vowel after it ("Tom", "Jack"), said with the vowel Japanese adds.
_ALONE = {"k": "ク", "g": "グ", "s": "ス", "z": "ズ", "t": "ト", "d": "ド", "h": "フ", "f": "フ", "b": "ブ",
          "p": "プ", "m": "ム", "r": "ル", "l": "ル", "v": "ヴ", "w": "ウ", "y": "イ", "j": "ジ", "c": "ク",
          "x": "クス", "q": "ク"}


def reading(name: str) -> str:
    """A seat's name as the Japanese voice reads it: a name in Latin letters ("Chika") in
    katakana as a romanised Japanese name (チカ); any other name as it is."""
    if not re.fullmatch(r"[A-Za-z]+", name):
        return name
    word, out, i = name.lower(), [], 0
    while i < len(word):
        if word[i] == "n" and (i + 1 == len(word) or word[i + 1] not in "aiueoy"):
            out.append("ン")
            i += 1
            continue
        if i + 1 < len(word) and (word[i] == word[i + 1] or word[i:i + 2] == "ck") and word[i] not in "aiueon":
            out.append("ッ")
            i += 1
            continue
        for size in (3, 2, 1):
            if word[i:i + size] in _KANA:
                out.append(_KANA[word[i:i + size]])
                i += size
                break
        else:
            out.append(_ALONE.get(word[i], ""))
            i += 1
    return "".join(out) or name
