"""Lord of the Die-angler: one seat's rod in the group due (its ``Hand``) and what the seat
does with it in its turn: rethrow with a re-approach right (再アプローチ), change faces
with a lure (ルアー). Each move takes a hand and an event and gives the new hand and its
log line, or raises ``IllegalEvent``; the game module puts them into the state."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.core import MAX_DICE, Die, IllegalEvent, bounded_list, dice_from, short, whole
from engines.dieangler_words import EN, JA, SIDES, dice_counts, die_names, face, hand_text, spec_text

SPECIALS = ("d10", "d20")
#: The largest change one [die, delta] of a lure may name (a lure changes 2 in all at most).
MAX_DELTA = 20


@dataclass(frozen=True)
class Hand:
    """One seat's rod in the group due: declared uses, then the dice thrown and its turn."""

    uses: tuple[tuple[str, str], ...] = ()  # (special, use), d10 first
    thrown: bool = False
    d6: tuple[int, ...] = ()  # faces, sorted
    special: tuple[tuple[str, int], ...] = ()  # (special, value 1-10 / 1-20)
    rights: tuple[tuple[str, int | None], ...] = ()  # re-approach dice: None until the first right is spent
    lured: tuple[str, ...] = ()  # lure dice used
    open: bool = False

    def use(self, kind: str) -> str | None:
        return dict(self.uses).get(kind)

    def value(self, kind: str) -> int:
        return dict(self.special)[kind]

    def used(self, kind: str) -> bool:
        """A special whose ability was used: a spent re-approach die or a used lure die."""
        if kind in self.lured:
            return True
        return dict(self.rights).get(kind) is not None

    def rights_left(self, kind: str) -> int:
        left = dict(self.rights)[kind]
        return (1 if self.value(kind) % 2 else 2) if left is None else left

    def counted(self) -> tuple[int, ...]:
        return self.d6 + tuple(v for k, v in self.special if self.use(k) == "chum")

    def pickable(self, by: str) -> bool:
        """Whether a right or lure of ``by`` has a die to act on (a d6, or another unused special)."""
        return bool(self.d6) or any(k != by and not self.used(k) for k, _ in self.special)

    def can_act(self) -> bool:
        """A re-approach right or an unused lure left, with a die to act on."""
        return any(self.rights_left(k) and self.pickable(k) for k, _ in self.rights) or any(
            k not in self.lured and self.pickable(k) for k, u in self.uses if u == "lure")

    def with_(self, **changes: Any) -> "Hand":
        """This hand with ``changes``; its turn stays open while it can act (unless given)."""
        new = Hand(**{**self.__dict__, **changes})
        return new if "open" in changes else Hand(**{**new.__dict__, "open": new.can_act()})

    def line(self, lang: str) -> str:
        """The hand and its sum, for the log: "3 4 d20:4(chum) (sum 11)" / "...（合計 11）"."""
        total = sum(self.counted())
        if lang == "en":
            return f"{hand_text(self, 'en')} ({EN['sum']} {total})"
        return f"{hand_text(self, 'ja')}（{JA['sum']} {total}）"


def _value(kind: str, shown: int) -> int:
    """What a special die's face counts (a d10's 0 counts 10)."""
    return (shown or 10) if kind == "d10" else shown


def thrown(hand: Hand, specials: Sequence[str], dice: Sequence[Die]) -> Hand:
    """``hand`` (its uses declared) after the throw of its ``dice`` (one per special)."""
    special = tuple((k, _value(k, next(d.face for d in dice if d.sides == SIDES[k]))) for k in specials)
    return hand.with_(thrown=True, d6=tuple(sorted(d.face for d in dice if d.sides == 6)), special=special,
                      rights=tuple((k, None) for k, u in hand.uses if u == "reapproach"))


def _special_arg(hand: Hand, raw: Any, what: str, name: str) -> str:
    if raw not in SPECIALS or raw not in dict(hand.special):
        shown, shown_ja = die_names([k for k, _ in hand.special])
        raise IllegalEvent(f"{what} names {short(raw)}, not a special die {name} threw ({shown})",
                           f"{what} の {short(raw)} は{name}が振った{JA['special']}（{shown_ja}）ではありません")
    return raw


def _bounded_list(raw: Any, what: str, example: str, meaning: str, meaning_ja: str) -> list:
    """``raw`` if it is a list of 1 to ``MAX_DICE`` items; IllegalEvent otherwise."""
    if raw == []:
        raise IllegalEvent(f"{what} is empty; give a list like {example} ({meaning})",
                           f"{what} は {example} のようなリスト（{meaning_ja}）で書いてください（空です）")
    return bounded_list(raw, what, what, f"{meaning}, like {example}", f"{meaning_ja}（例: {example}）")


def _take_d6(hand: Hand, faces: list[int], name: str, what: str) -> list[int]:
    """``hand.d6`` less one die per face in ``faces``; IllegalEvent for a die not shown
    (a face named twice is two such dice)."""
    left = list(hand.d6)
    for f in faces:
        if f not in left:
            listed = " ".join(map(str, hand.d6))
            shown, shown_ja = listed or "nothing", listed or "ありません"
            held = hand.d6.count(f)
            if not held:
                raise IllegalEvent(f"{what} names a {EN['d6']} showing {short(f)}, but {name}'s {EN['d6']} show {shown}",
                                   f"{what} に出目 {short(f)} の{JA['d6']}がありますが、{name}の{JA['d6']}の出目は{shown_ja}")
            named = faces.count(f)
            raise IllegalEvent(f"{what} names {named} {EN['d6']} showing {short(f)}, but {name} has {held} "
                               f"(a face twice is two such dice; {name}'s {EN['d6']} show {shown})",
                               f"{what} に出目 {short(f)} の{JA['d6']}が{named}個ありますが、{name}のは{held}個です"
                               f"（同じ目を2回書くと2個です。{name}の{JA['d6']}の出目は{shown_ja}）")
        left.remove(f)
    return left


def _used_refusal(kind: str, verb: str, verb_ja: str) -> IllegalEvent:
    return IllegalEvent(f"the {EN[kind]}'s ability was used; it can no longer be {verb}",
                        f"{JA[kind]}は能力を使ったので、もう{verb_ja}")


def rethrow(hand: Hand, event: Mapping[str, Any], name: str, colour: str) -> tuple[Hand, str, str]:
    """(the hand after a rethrow event, the log line in English and Japanese)."""
    by = event["by"]
    if by not in SPECIALS or hand.use(by) != "reapproach":
        mine, mine_ja = die_names([k for k, _ in hand.rights])
        raise IllegalEvent(f"by is {short(by)}; name a {EN['reapproach']} die of {name}'s ({mine})",
                           f"by の {short(by)} は使えません。{name}の{JA['reapproach']}のダイス（{mine_ja}）を指定してください")
    if not hand.rights_left(by):
        raise IllegalEvent(f"{name}'s {EN[by]} has no {EN['rethrow']} {EN['right']} left",
                           f"{name}の{JA[by]}には{JA['rethrow']}の{JA['right']}が残っていません")
    picked = _bounded_list(event["picked"], "picked", '[3, "d20"]', 'the dice picked up: a d6 by its face, "d10"/"d20" by name',
                           f'拾ったダイス: {JA["d6"]}は出目、{JA["d10"]}・{JA["d20"]}は "d10"/"d20"')
    faces, specials = [], []
    for p in picked:
        if isinstance(p, str):
            k = _special_arg(hand, p, "picked", name)
            if k == by:
                raise IllegalEvent(f"the {EN[by]} never rethrows itself with its own {EN['right']}",
                                   f"{JA[by]}は自分の{JA['right']}で自分を振り直せません")
            if k in specials:
                raise IllegalEvent(f"picked names the {EN[k]} twice", f"picked に{JA[k]}が2回あります")
            if hand.used(k):
                raise _used_refusal(k, "rethrown", "振り直せません")
            specials.append(k)
        elif whole(p, -(10**9), 10**9):
            faces.append(p)
        else:
            raise IllegalEvent(f"picked holds {short(p)}; a d6 is written as its face, a special die as \"d10\" or \"d20\"",
                               f"picked の {short(p)} は読めません。{JA['d6']}は出目、{JA['special']}は \"d10\" か \"d20\" で書きます")
    left = _take_d6(hand, faces, name, "picked")
    dice = dice_from(event["dice"], sides=(6, 10, 20))
    wanted = Counter({(colour, 6): len(faces)}) + Counter((colour, SIDES[k]) for k in specials)
    seen = dice_counts(dice)
    if seen != wanted:
        (want, want_ja), (saw, saw_ja) = spec_text(wanted), spec_text(seen)
        raise IllegalEvent(f"the new dice must match the picked ones ({want}), saw {saw}",
                           f"新しい出目は拾ったダイス（{want_ja}）と同じ色・種類・数にしてください（来たのは{saw_ja}）")
    rights = tuple((k, (hand.rights_left(k) - 1) if k == by else r) for k, r in hand.rights)
    special = tuple((k, _value(k, next(d.face for d in dice if d.sides == SIDES[k])) if k in specials else v)
                    for k, v in hand.special)
    new = hand.with_(d6=tuple(sorted(left + [d.face for d in dice if d.sides == 6])), special=special, rights=rights)
    before = " ".join(str(p) for p in picked)
    before_ja = " ".join(_die_ja(p) for p in picked)
    return (new, f"{name} rethrows {before} with the {by}: {new.line('en')}",
            f"{name}が{JA[by]}の{JA['right']}で{before_ja}を{JA['rethrow']}: {new.line('ja')}")


def lure(hand: Hand, event: Mapping[str, Any], name: str) -> tuple[Hand, str, str]:
    """(the hand after a lure event, the log line in English and Japanese)."""
    by = event["by"]
    if by not in SPECIALS or hand.use(by) != "lure":
        raise IllegalEvent(f"by is {short(by)}; name a {EN['lure']} die of {name}'s",
                           f"by の {short(by)} は使えません。{name}の{JA['lure']}のダイスを指定してください")
    if by in hand.lured:
        raise IllegalEvent(f"{name}'s {EN[by]} has already lured; each {EN['lure']} die is used once",
                           f"{name}の{JA[by]}はもう{JA['lure']}を使いました。{JA['lure']}はダイス1個につき1回です")
    changes = _bounded_list(event["changes"], "changes", '[[2, 1], ["d10", -1]]', "[die, delta] pairs",
                            "[ダイス, 増減] の組")
    budget = 1 if hand.value(by) % 2 else 2
    faces, special_delta, total = [], {}, 0
    for c in changes:
        if not (isinstance(c, list) and len(c) == 2 and whole(c[1], -MAX_DELTA, MAX_DELTA)):
            raise IllegalEvent(f"a change is [die, delta] like [2, 1] or [\"d10\", -1], saw {short(c)}",
                               f"変更は [2, 1] や [\"d10\", -1] のように [ダイス, 増減] で書きます（{short(c)}）")
        die, delta = c
        if delta == 0:
            raise IllegalEvent(f"a change of 0 is no change; give +1/-1 (or +2/-2 with an even {EN['lure']})",
                               f"0 は変更になりません。+1/-1（偶数の{JA['lure']}なら +2/-2）にしてください")
        total += abs(delta)
        if total > budget:  # before the faces: "+2 with an odd lure" is the mistake, not the 7
            parity, parity_ja = ("odd", "奇数") if budget == 1 else ("even", "偶数")
            shown = face(by, hand.value(by))
            raise IllegalEvent(f"the {EN[by]} shows {shown} ({parity}): it changes faces by {budget} in all, saw {total}",
                               f"{JA[by]}の出目は{shown}（{parity_ja}）なので、変えられるのは合計{budget}までです（指定は合計{total}）")
        if isinstance(die, str):
            special_delta[_lure_special(hand, by, die, delta, special_delta, name)] = delta
        elif whole(die, -(10**9), 10**9):
            if not 1 <= die + delta <= 6:
                raise IllegalEvent(f"a {EN['d6']} showing {die} changed by {delta:+d} would show {die + delta}; "
                                   f"a {EN['d6']} shows 1 to 6",
                                   f"出目 {die} の{JA['d6']}を {delta:+d} すると {die + delta} になります。{JA['d6']}の目は1〜6です")
            faces.append((die, delta))
        else:
            raise IllegalEvent(f"a die in changes is written as its face (d6) or \"d10\"/\"d20\", saw {short(die)}",
                               f"changes のダイスは出目（{JA['d6']}）か \"d10\"/\"d20\" で書きます（{short(die)}）")
    left = _take_d6(hand, [f for f, _ in faces], name, "changes")
    special = tuple((k, v + special_delta.get(k, 0)) for k, v in hand.special)
    new = hand.with_(d6=tuple(sorted(left + [f + d for f, d in faces])), special=special, lured=hand.lured + (by,))
    listing = ", ".join(f"{d} {x:+d}" for d, x in changes)
    return (new, f"{name} lures with the {by} ({listing}): {new.line('en')}",
            f"{name}が{JA[by]}の{JA['lure']}（{', '.join(f'{_die_ja(d)} {x:+d}' for d, x in changes)}）: "
            f"{new.line('ja')}")


def _lure_special(hand: Hand, by: str, die: str, delta: int, seen: Mapping[str, int], name: str) -> str:
    """The special die a lure changes by ``delta``, checked."""
    k = _special_arg(hand, die, "changes", name)
    if k == by:
        raise IllegalEvent(f"a {EN['lure']} die cannot change itself", f"{JA['lure']}のダイスは自分の出目を変えられません")
    if k in seen:
        raise IllegalEvent(f"changes names the {EN[k]} twice; give its whole change at once",
                           f"changes に{JA[k]}が2回あります。1つの変更にまとめてください")
    if hand.used(k):
        raise _used_refusal(k, "changed", "出目を変えられません")
    value = hand.value(k) + delta
    if not 1 <= value <= SIDES[k]:
        raise IllegalEvent(f"the {EN[k]} would show {value}; a {EN[k]} counts from 1 to {SIDES[k]}",
                           f"{JA[k]}が{value}になってしまいます。{JA[k]}は1〜{SIDES[k]}です")
    return k


def _die_ja(die: Any) -> str:
    """A die of ``picked`` or ``changes`` in Japanese: a d6 by its face, a special die by name (10面体)."""
    return JA[die] if die in SIDES else str(die)
