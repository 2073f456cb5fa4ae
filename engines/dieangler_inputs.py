"""Lord of the Die-angler: what the game waits for now (``expects``, docs/contracts.md),
and the few facts about the round it is built from (who is due to declare, what the group
due throws, which special dice a seat may choose)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engines.core import an_input, field, option, text
from engines.dieangler_hand import SPECIALS
from engines.dieangler_words import EN, JA, SIDES, and_en, and_ja, both, fish_text

if TYPE_CHECKING:
    from engines.dieangler import State

MAX_D6 = 5
#: What a special die may be declared for (the lure only with the advanced option). Not
#: ``USES``: an engine's ``USES`` tells the pages which parts of the table a game uses.
SPECIAL_USES = ("chum", "reapproach", "lure")


def named(state: State, seats: Sequence[int]) -> tuple[str, str]:
    """The seats at ``seats`` named in English ("Aki and Ben") and Japanese ("Aki・Ben")."""
    names = [state.seats[i].name for i in seats]
    return and_en(names), and_ja(names)


def to_declare(state: State) -> list[int]:
    """The seats of the group due still to declare their special dice's uses."""
    if not state.groups or state.phase == "over":
        return []
    return [i for i in state.groups[state.group] if state.choices[i][1] and not state.hands[i].uses]


def group_dice(state: State) -> list[dict[str, Any]]:
    """What the group due throws: ``{"colour", "sides", "count"}`` per seat and kind of die."""
    out = []
    for i in state.groups[state.group]:
        d6, special = state.choices[i]
        colour = state.seats[i].colour
        if d6:
            out.append({"colour": colour, "sides": 6, "count": d6})
        out.extend({"colour": colour, "sides": SIDES[k], "count": 1} for k in special)
    return out


def available(state: State, i: int) -> tuple[str, ...]:
    """The special dice seat ``i`` may choose (those not cooling down)."""
    return tuple(k for k in SPECIALS if k not in state.cooling[i])


def uses_allowed(state: State) -> tuple[str, ...]:
    """The uses a special die may be declared for in this game."""
    return SPECIAL_USES if state.lure else SPECIAL_USES[:2]


def _only(values: Sequence[str]) -> dict[str, str]:
    """A choice's ``default`` when it has one option: nothing to choose there."""
    return {"default": values[0]} if len(values) == 1 else {}


def _die_options(kinds: Sequence[str]) -> list[dict[str, Any]]:
    return [option(k, *both(k)) for k in kinds]


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    inputs = _INPUTS[state.phase](state) if state.phase != "over" else []
    return {"phase": state.phase, "inputs": inputs, "winners": [state.seats[i].name for i in state.winners]}


def _fish_inputs(state: State) -> list[dict[str, Any]]:
    pile = set(state.pile)
    options = [option(f.id, *fish_text(f)) for f in state.fish if f.id in pile]
    return [an_input("fish", [], text(f"{EN['host'].capitalize()}: turn over the next {EN['fish']} and name it.",
                                      f"{JA['host']}: 次の{JA['fish']}をめくって、どのカードか選んでください。"),
                     [field("fish", "choice", EN["fish"].capitalize(), JA["fish"], options=options)])]


def _choose_inputs(state: State) -> list[dict[str, Any]]:
    # One input per set of special dice seats may choose (cooling is public); the list
    # depends on cooling only, never on who has chosen.
    sets: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(state.seats)):
        sets.setdefault(available(state, i), []).append(i)
    prompt = text(f"Choose your {EN['rod']} in secret: how many {EN['d6']} (0-5) and which {EN['special']}.",
                  f"{JA['rod']}を秘密に選んでください: {JA['d6']}の数（0〜5）と{JA['special']}。")
    return [an_input("choose", [state.seats[i].name for i in seats if state.choices[i] is None], prompt, [
        field("d6", "number", f"Number of {EN['d6']}", f"{JA['d6']}の数", min=0, max=MAX_D6, button=True),
        field("special", "multi", EN["special"].capitalize(), JA["special"], default=[], min=0, max=len(avail),
              options=_die_options(avail)),
    ], secret=True) for avail, seats in sets.items()]


def _uses_inputs(state: State) -> list[dict[str, Any]]:
    uses = [option(u, *both(u)) for u in uses_allowed(state)]
    out = []
    for i in to_declare(state):
        name = state.seats[i].name
        fields = [field(k, "choice", f"{EN['use'].capitalize()} of the {EN[k]}", f"{JA[k]}の{JA['use']}", options=uses)
                  for k in state.choices[i][1]]
        out.append(an_input("uses", [name], text(f"{name}: declare the {EN['use']} of each of your {EN['special']} "
                                                 "before the throw.",
                                                 f"{name}: 振る前に{JA['special']}の{JA['use']}を宣言してください。"), fields))
    return out


def _throw_inputs(state: State) -> list[dict[str, Any]]:
    group = state.groups[state.group]
    who, who_ja = named(state, group)
    return [an_input("throw", [state.seats[i].name for i in group],
                     text(f"{who}: throw your chosen dice.", f"{who_ja}: 選んだダイスを振ってください（{JA['throw']}）。"),
                     [field("dice", "dice", EN["dice"].capitalize(), JA["dice"])],
                     together=True, dice=group_dice(state), camera="new")]


def _turn_inputs(state: State) -> list[dict[str, Any]]:
    open_seats = [i for i in state.groups[state.group] if state.hands[i].open]
    out = []
    for i in open_seats:
        name, hand = state.seats[i].name, state.hands[i]
        by = [k for k, _ in hand.rights if hand.rights_left(k) and hand.pickable(k)]
        if by:
            out.append(an_input("rethrow", [name], text(
                f"{name}: {EN['rethrow']} any of your dice with a {EN['reapproach']} {EN['right']}.",
                f"{name}: {JA['reapproach']}の{JA['right']}でダイスを振り直せます（{JA['rethrow']}）。"), [
                field("by", "choice", f"{EN['right'].capitalize()} of", f"使う{JA['right']}", options=[
                    option(k, f"{EN[k]} ({hand.rights_left(k)} left)", f"{JA[k]}（残り{hand.rights_left(k)}回）")
                    for k in by], **_only(by)),
                field("picked", "picked", "Dice picked up", "拾ったダイス", names={"10": "d10", "20": "d20"}),
                field("dice", "dice", "New faces", "新しい出目"),
            ], dice=None, camera="rethrown", action=text(EN["rethrow"].capitalize(), JA["rethrow"])))
        lures = [k for k, u in hand.uses if u == "lure" and k not in hand.lured and hand.pickable(k)]
        if lures:
            out.append(an_input("lure", [name], text(
                f"{name}: change your dice with a {EN['lure']} (odd: 1 in all, even: 2).",
                f"{name}: {JA['lure']}で出目を変えられます（奇数: 合計1、偶数: 合計2）。"), [
                field("by", "choice", f"{EN['lure'].capitalize()} die", f"{JA['lure']}のダイス", options=_die_options(lures),
                      **_only(lures)),
                field("changes", "multi", "Changes (1 in all with an odd lure, 2 with an even one)",
                      f"変更（{JA['lure']}が奇数なら合計1、偶数なら合計2）", min=1, max=2, options=_change_options(hand, lures)),
            ], action=text(f"Use a {EN['lure']}", f"{JA['lure']}を使う")))
    out.append(an_input("done", [state.seats[i].name for i in open_seats],
                        text(f"End your {EN['turn']} when you are happy with your dice.",
                             f"ダイスに満足したら{JA['turn']}を終えてください。"),
                        action=text(f"End your {EN['turn']}", f"{JA['turn']}を終える")))
    return out


_INPUTS = {"fish": _fish_inputs, "choose": _choose_inputs, "uses": _uses_inputs, "throw": _throw_inputs,
           "turn": _turn_inputs}


def _change_options(hand: Any, lures: Sequence[str]) -> list[dict[str, Any]]:
    """Every change one lure may make to a die of the hand, ``[die, delta]`` (a d6 by its
    face, a special by its name), labelled as the face it gives: "2 → 3". A lure die never
    changes itself, so the only lure die left is not offered."""
    out = []
    for f in sorted(set(hand.d6)):
        out += [option([f, d], f"{EN['d6']} {f} → {f + d}", f"{JA['d6']} {f}→{f + d}")
                for d in (-2, -1, 1, 2) if 1 <= f + d <= 6]
    for k, v in hand.special:
        if not hand.used(k) and list(lures) != [k]:
            out += [option([k, d], f"{EN[k]} {v} → {v + d}", f"{JA[k]} {v}→{v + d}")
                    for d in (-2, -1, 1, 2) if 1 <= v + d <= SIDES[k]]
    return out
