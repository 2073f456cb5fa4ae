"""Lord of the Die-angler (ダイ公望): 2 to 5 players, each with 5 d6, a d10 and a d20.

The rules are docs/rules/dieangler.md. A
fish card (お魚カード) is turned over each round; every seat secretly chooses its rod
(釣り竿): a number of d6 (0-5) and any special dice (d10, d20) not cooling down
(クールダウン). After the reveal (オープン) the seats fish (アプローチ) in order: fewest
dice first, then fewer special dice, still equal: together as one group. Before its throw
each seat of the group due declares each special die's use: chum (撒き餌: counts like a d6),
re-approach (再アプローチ: odd face 1 rethrow, even 2) or, with the advanced option, lure
(ルアー: odd face changes one die by 1, even by 2 in all). The group throws; seats with
rethrows or an unused lure die then play their turns (rethrow, lure, done). A seat catches
the fish (フィッシュオン) when the sum of its counted dice (d6 and chum) reaches the
target and the condition holds. One success in a group takes it; several: the smallest
sum; a shared smallest sum: nobody, and no later group fishes. An uncaught fish carries
over (キャリーオーバー) to the next catcher. Special dice chosen in a round cool the next
round, thrown or not. After the last fish the most fish wins; tied leaders: an extension
(延長戦) with the set-aside fish, played by every seat.

Options: ``deck`` (``"dealt"``: shuffled with the seed, the first ``play`` fish played, the
rest set aside; ``"physical"``: the host names each fish turned over), ``fish`` (a list
of ``{"id", "name", "name_ja", "target", "condition"}`` replacing data/dieangler.toml),
``play`` (fish in the main game, default 10), ``lure`` (``true``: the lure is allowed).

Events (docs/replay.md, "Lord of the Die-angler events, by example"): ``fish``, ``choose``
(secret), ``uses``, ``throw``, ``rethrow``, ``lure``, ``done``. Phases: ``fish``,
``choose``, ``uses``, ``throw``, ``turn``, ``over``.

Decisions where the printed rules are silent:
- ``play`` defaults to 10, or to the number of fish when fewer are given.
- In a group every seat's turn is open at once after the throw; they may act in any order.
  A seat's turn stays open while it has a re-approach die with a right left (an unspent
  re-approach die always has one) or an unused lure die, until its ``done``; a right or
  lure with no die to act on (no d6, no other unused special) is not "left": a seat whose
  only die is its re-approach die has its turn end at the throw.
- A d6 named in ``picked`` or ``changes`` is any die of the seat showing that face (they
  are alike). A lure change of 0 is refused as "no change".
- A lure die may change an unused lure or re-approach die, and a chum die; its own face
  counts for nothing else.
- Condition faces may be 1-20 (a chum d20 may supply them); ``= =`` marks and ``≠`` compare
  counted values (a d10's 0 is 10).
- Fish carried when the extension ends go to nobody too, like those of the main game.
- ``≠`` with a single counted die holds.
- ``expects`` offers one secret ``choose`` input per set of special dice that seats may
  choose (cooling is public), each listing the seats of that set still to choose; the
  list of inputs depends on cooling only, so its public form never tells who has chosen.
- A throw may name one seat of the group (``"seat"``); it is still the whole group's throw.
- A round's judged throws stay in the view until the next reveal.

Beside this module: ``dieangler_fish`` (the fish cards: data file, ``fish`` option, the
catch condition), ``dieangler_hand`` (a seat's hand and its turn: rethrow, lure),
``dieangler_inputs`` (``expects``) and ``dieangler_words`` (the glossary of
data/dieangler.toml and the phrases built from it).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.core import (
    EMPTY,
    Chain,
    deck_setting,
    field,
    option,
    DataError,
    IllegalEvent,
    Rng,
    Seat,
    apply_move,
    check_options,
    dice_from,
    log_lines,
    move,
    option_choice,
    option_int,
    public,
    replace,
    rng_seed,
    rng_shuffle,
    say,
    seat_index,
    seat_view,
    seats_from,
    short,
    whole,
)
from engines.dieangler_fish import Fish, condition_holds, fish_from, load_fish, meets
from engines.dieangler_hand import SPECIALS, Hand, lure, rethrow, thrown
from engines.dieangler_inputs import MAX_D6, available, expects, group_dice, named, to_declare, uses_allowed
from engines.dieangler_words import (
    EN,
    GLOSSARY,
    JA,
    SIDES,
    and_en,
    and_ja,
    choice_text,
    dice_counts,
    die_names,
    face,
    fish_text,
    listing,
    spec_text,
)

__all__ = ["State", "Fish", "Hand", "GLOSSARY", "setup", "expects", "apply", "view", "load_fish", "fish_from", "meets",
           "condition_holds", "MIN_SEATS", "MAX_SEATS"]

GAME = "dieangler"
TITLE = {"en": "Lord of the Die-angler", "ja": "ダイ公望"}
SCORE_TERM = "caught"  # the scores are the fish each seat caught (RULES.md: most fish wins)
MIN_SEATS, MAX_SEATS = 2, 5
OPTIONS = ("deck", "fish", "play", "lure")
DECK_MODES = ("dealt", "physical")
DEFAULT_PLAY = 10
#: The options the host chooses on the start form (fields as in expects; None: the rules'
#: own default). Scripts may also give their own fish cards.
SETTINGS = (
    deck_setting("fish cards", GLOSSARY["fish"]["ja"]),
    field("play", "choice", "Fish cards played", f"使う{GLOSSARY['fish']['ja']}の枚数", default=None, options=[
        option(None, f"as the rules say ({DEFAULT_PLAY})", f"ルールどおり（{DEFAULT_PLAY}枚）"),
        *(option(n, str(n), f"{n}枚") for n in (3, 5, 7, 12, 15))]),
    field("lure", "bool", f"Play with the {GLOSSARY['lure']['en']}", f"{GLOSSARY['lure']['ja']}を使う", default=False),
)


@dataclass(frozen=True)
class State:
    """A game of Die-angler. Seat-indexed tuples follow ``seats``."""

    seats: tuple[Seat, ...]
    options: str
    seed: int
    deck_mode: str
    fish: tuple[Fish, ...]
    play: int
    lure: bool
    rng: Rng
    events: Chain = EMPTY
    log: Chain = EMPTY
    phase: str = "choose"
    stage: str = "main"  # "main" or "extension"
    round: int = 0
    pile: tuple[str, ...] = ()  # dealt: still to turn over this stage; physical: never named
    aside: tuple[str, ...] = ()  # dealt: the set-aside fish
    turned: int = 0  # fish turned over in this stage
    up: str | None = None
    carried: tuple[str, ...] = ()
    unclaimed: tuple[str, ...] = ()
    caught: tuple[tuple[str, ...], ...] = ()
    ext_caught: tuple[int, ...] = ()
    choices: tuple[tuple[int, tuple[str, ...]] | None, ...] = ()
    revealed: bool = False
    cooling: tuple[tuple[str, ...], ...] = ()
    groups: tuple[tuple[int, ...], ...] = ()
    group: int = 0
    hands: tuple[Hand | None, ...] = ()
    throws: tuple[dict, ...] = ()  # judged throws of this round (JSON-able)
    leaders: tuple[int, ...] = ()  # the main game's tied leaders, once an extension starts
    winners: tuple[int, ...] = ()


def _set(values: tuple, i: int, value: Any) -> tuple:
    return values[:i] + (value,) + values[i + 1:]


# --- setup -------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: the first fish turned over (or awaited from the host, physical deck)."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = check_options({} if options is None else options, OPTIONS)
    deck_mode = option_choice(options, "deck", DECK_MODES, "dealt")
    fish = load_fish() if "fish" not in options else fish_from(options["fish"], "options.fish")
    play = option_int(options, "play", 1, len(fish), min(DEFAULT_PLAY, len(fish)))
    lure = options.get("lure", False)
    if not isinstance(lure, bool):  # core.option_choice would take 1 and 0 for true and false
        raise DataError(f"option 'lure' is {short(lure)}; give true (the lure allowed) or false",
                        f"オプション lure が {short(lure)} です。true（ルアーあり）か false にしてください")
    ids = tuple(f.id for f in fish)
    rng = rng_seed(seed)
    if deck_mode == "dealt":
        order, rng = rng_shuffle(rng, ids)
        pile, aside = order[:play], order[play:]
    else:
        pile, aside = ids, ()
    n = len(table_seats)
    state = State(
        seats=table_seats, options=json.dumps(options, sort_keys=True, ensure_ascii=False), seed=seed,
        deck_mode=deck_mode, fish=fish, play=play, lure=lure, rng=rng, pile=pile, aside=aside,
        caught=((),) * n, ext_caught=(0,) * n, choices=(None,) * n, cooling=((),) * n, hands=(None,) * n,
    )
    return _next_round(state)


# --- helpers -----------------------------------------------------------------------------


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _fish(state: State, fid: str) -> Fish:
    return next(f for f in state.fish if f.id == fid)


def _stage_total(state: State) -> int:
    return state.play if state.stage == "main" else len(state.fish) - state.play


# --- rounds ------------------------------------------------------------------------------


def _next_round(state: State) -> State:
    """Turn over the next fish of this stage, or end the stage."""
    if state.turned >= _stage_total(state):
        return _end_stage(state)
    state = replace(state, round=state.round + 1, choices=(None,) * len(state.seats), revealed=False,
                    groups=(), group=0, hands=(None,) * len(state.seats))
    if state.deck_mode == "physical":
        return replace(state, phase="fish", up=None)
    return _show_fish(replace(state, up=state.pile[0], pile=state.pile[1:], turned=state.turned + 1))


def _show_fish(state: State) -> State:
    en, ja = fish_text(_fish(state, state.up))
    n = len(state.carried)
    extra, extra_ja = (f" ({n} carried under it)", f"（{JA['carried']}{n}枚）") if n else ("", "")
    extension = state.stage == "extension"
    stage = f"{EN['extension'].capitalize()}, {EN['round']}" if extension else EN["round"].capitalize()
    stage_ja = f"{JA['extension']} {JA['round']}" if extension else JA["round"]
    state = say(state, f"{stage} {state.round}: {EN['fish']} {en}{extra}", f"{stage_ja}{state.round}: {ja}{extra_ja}")
    return replace(state, phase="choose")


def _end_stage(state: State) -> State:
    if state.carried:
        lost = ", ".join(state.carried)
        state = say(state, f"Carried {EN['fish']} {lost} go to nobody",
                    f"{JA['carried']}の{JA['fish']} {'、'.join(state.carried)} は誰のものにもならない")
        state = replace(state, unclaimed=state.unclaimed + state.carried, carried=())
    state = replace(state, up=None, hands=(None,) * len(state.seats), groups=(), group=0)
    if state.stage == "extension":
        best = max(state.ext_caught)
        winners = tuple(i for i, n in enumerate(state.ext_caught) if n == best) if best else state.leaders
        return _over(state, winners)
    scores = [len(c) for c in state.caught]
    best = max(scores)
    leaders = tuple(i for i, n in enumerate(scores) if n == best)
    aside = len(state.fish) - state.play
    if len(leaders) == 1 or not aside:
        return _over(state, leaders)
    who, who_ja = named(state, leaders)
    state = say(state, f"{who} tie with {best} {EN['fish']}: the {EN['extension']} with the {aside} set-aside "
                       f"{EN['fish']}, every seat fishes",
                f"{who_ja}が{best}枚で同点: {JA['set_aside']}{aside}枚で{JA['extension']}（全員参加）")
    pile = state.aside if state.deck_mode == "dealt" else state.pile
    state = replace(state, stage="extension", leaders=leaders, pile=pile, aside=(), turned=0)
    return _next_round(state)


def _over(state: State, winners: tuple[int, ...]) -> State:
    scores = ", ".join(f"{s.name} {len(c)}" for s, c in zip(state.seats, state.caught))
    scores_ja = "、".join(f"{s.name} {len(c)}枚" for s, c in zip(state.seats, state.caught))
    who, who_ja = named(state, winners)
    return say(replace(state, phase="over", winners=winners),
               f"Game over ({scores}): {who} win{'s' if len(winners) == 1 else ''}",
               f"ゲーム終了（{scores_ja}）: {who_ja}の勝利")


def _end_round(state: State, catcher: int | None) -> State:
    fish = state.carried + (state.up,)
    if catcher is None:
        state = say(state, f"Nobody caught {state.up}: it carries over ({len(fish)} waiting)",
                    f"{state.up}は釣れず: {JA['carried']}（{len(fish)}枚）")
        state = replace(state, carried=fish)
    else:
        caught = _set(state.caught, catcher, state.caught[catcher] + fish)
        ext = state.ext_caught
        if state.stage == "extension":
            ext = _set(ext, catcher, ext[catcher] + len(fish))
        name = state.seats[catcher].name
        state = say(state, f"{name} catches {', '.join(fish)}", f"{name}が{'、'.join(fish)}を釣り上げた")
        state = replace(state, caught=caught, ext_caught=ext, carried=())
    cooling = tuple(c[1] if c else () for c in state.choices)
    state = replace(state, cooling=cooling, up=None)
    return _next_round(state)


def _reveal(state: State) -> State:
    names = _names(state)
    texts = [choice_text(c) for c in state.choices]
    rods = "; ".join(f"{n}: {en}" for n, (en, _) in zip(names, texts))
    rods_ja = "、".join(f"{n}: {ja}" for n, (_, ja) in zip(names, texts))
    state = say(replace(state, revealed=True, throws=()), f"{EN['open'].capitalize()}! {rods}", f"{JA['open']}！ {rods_ja}")
    keys: dict[tuple[int, int], list[int]] = {}
    for i, (d6, special) in enumerate(state.choices):
        if d6 + len(special):
            keys.setdefault((d6 + len(special), len(special)), []).append(i)
    groups = tuple(tuple(keys[k]) for k in sorted(keys))
    if not groups:
        state = say(state, "Nobody chose a die", f"誰も{JA['dice']}を選ばなかった")
        return _end_round(state, None)
    order = " / ".join(and_en([names[i] for i in g]) for g in groups)
    order_ja = " / ".join(and_ja([names[i] for i in g]) for g in groups)
    state = say(replace(state, groups=groups, group=0), f"{EN['order'].capitalize()}: {order}", f"{JA['order']}: {order_ja}")
    return _start_group(state)


def _start_group(state: State) -> State:
    hands = list(state.hands)
    for i in state.groups[state.group]:
        hands[i] = Hand()
    state = replace(state, hands=tuple(hands))
    return replace(state, phase="uses" if to_declare(state) else "throw")


def _judge(state: State) -> State:
    fish = _fish(state, state.up)
    results = []
    throws = list(state.throws)
    for i in state.groups[state.group]:
        hand = state.hands[i]
        values = hand.counted()
        results.append((i, sum(values), meets(fish, values)))
        throws.append(_throw_entry(state, i, hand, fish))
    state = replace(state, throws=tuple(throws))
    marks = [f"{state.seats[i].name} {s}{' ✓' if ok else ''}" for i, s, ok in results]
    state = say(state, f"Judged: {', '.join(marks)} ({EN['target']} {fish.target})",
                f"判定: {'、'.join(marks)}（{JA['target']} {fish.target}）")
    wins = [(s, i) for i, s, ok in results if ok]
    if wins:
        low = min(s for s, _ in wins)
        best = [i for s, i in wins if s == low]
        if len(best) == 1:
            return _end_round(state, best[0])
        who, who_ja = named(state, best)
        state = say(state, f"{who} tie at {low}, closest to the {EN['target']}: nobody takes it, no later {EN['group']} fishes",
                    f"{who_ja}が{low}で同点: 誰も獲得できず、後の{JA['group']}は釣らない")
        return _end_round(state, None)
    if state.group + 1 < len(state.groups):
        return _start_group(replace(state, group=state.group + 1))
    return _end_round(state, None)


def _throw_entry(state: State, i: int, hand: Hand, fish: Fish) -> dict[str, Any]:
    values = hand.counted()
    colour = state.seats[i].colour
    dice = [{"colour": colour, "face": f} for f in hand.d6]
    for k, v in hand.special:
        dice.append({"colour": colour, "face": face(k, v), "sides": SIDES[k], "value": v, "use": hand.use(k)})
    return {"seat": state.seats[i].name, "group": state.group, "dice": dice, "sum": sum(values),
            "meets": meets(fish, values), "condition_met": condition_holds(fish, values), "counted": list(values)}


# --- apply -------------------------------------------------------------------------------


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    if (state.deck_mode == "dealt" and state.phase != "over" and isinstance(event, Mapping)
            and event.get("type") == "fish"):
        raise IllegalEvent(f"saw a fish event, but this game turns over its {EN['fish']} cards itself (deck: dealt); "
                           "fish events are for a table that turns over its printed deck (deck: physical)",
                           f"fish イベントが来ましたが、このゲームは{JA['fish']}を自分でめくります（deck: dealt）。"
                           f"fish イベントは印刷された山札をめくる卓（deck: physical）のものです")
    return apply_move(state, event, MOVES, expects)


def _turn_fish(state: State, event: Mapping[str, Any]) -> State:
    fid = event["fish"]
    pile = listing(state.pile)
    if fid not in [f.id for f in state.fish]:
        raise IllegalEvent(f"{EN['fish']} {short(fid)} is not in this game's deck; expected one of {pile}",
                           f"{JA['fish']} {short(fid)} はこのゲームの山札にありません。{pile} のどれかです")
    if fid not in state.pile:
        raise IllegalEvent(f"{EN['fish']} {fid} was already turned over; expected one of {pile}",
                           f"{JA['fish']} {fid} はもうめくられています。{pile} のどれかです")
    return _show_fish(replace(state, up=fid, pile=tuple(f for f in state.pile if f != fid), turned=state.turned + 1))


def _choose(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    name = state.seats[i].name
    if state.choices[i] is not None:
        raise IllegalEvent(f"{name} has already chosen; a choice is locked once given",
                           f"{name}はもう選びました。選んだ{JA['rod']}は変えられません")
    d6 = event["d6"]
    if not whole(d6, 0, MAX_D6):
        raise IllegalEvent(f"{name} chose {short(d6)} {EN['d6']}; choose a whole number from 0 to {MAX_D6}",
                           f"{name}の{JA['d6']}の数 {short(d6)} は選べません。0〜{MAX_D6}の整数にしてください")
    special = event.get("special", [])
    if not isinstance(special, list):
        raise IllegalEvent(f"special is {short(special)}; give a list like [\"d10\"] or []",
                           f"special は [\"d10\"] や [] のようなリストで書いてください（{short(special)}）")
    if len(special) > len(SPECIALS):
        raise IllegalEvent(f"special lists {len(special)} dice; each seat has one d10 and one d20",
                           f"special に{len(special)}個あります。{JA['special']}は1人に{JA['d10']}と{JA['d20']}が1個ずつです")
    for k in special:
        if k not in SPECIALS:
            raise IllegalEvent(f"{name} chose the special die {short(k)}; the {EN['special']} are \"d10\" and \"d20\"",
                               f"{name}が選んだ {short(k)} は{JA['special']}ではありません。"
                               f"{JA['special']}は \"d10\"（{JA['d10']}）と \"d20\"（{JA['d20']}）です")
        if special.count(k) > 1:
            raise IllegalEvent(f"{name} chose the {EN[k]} twice; each seat has one {EN[k]}",
                               f"{name}が{JA[k]}を2回選びました。{JA[k]}は1人1個です")
        if k in state.cooling[i]:
            raise IllegalEvent(f"{name}'s {EN[k]} is {EN['cooling']} this round (chosen last round); choose another",
                               f"{name}の{JA[k]}は前のラウンドで選んだので{JA['cooling']}中です。ほかのダイスを選んでください")
    choice = (d6, tuple(k for k in SPECIALS if k in special))
    state = replace(state, choices=_set(state.choices, i, choice))
    if any(c is None for c in state.choices):
        return state
    return _reveal(state)


def _uses(state: State, event: Mapping[str, Any]) -> State:
    i = seat_index(state.seats, event["seat"])
    name = state.seats[i].name
    due = to_declare(state)
    if i not in due:
        who, who_ja = named(state, due)
        if i not in state.groups[state.group]:
            raise IllegalEvent(f"{name} is not in the {EN['group']} due; waiting for {who} to declare",
                               f"{name}は今釣る{JA['group']}にいません。宣言を待っているのは{who_ja}です")
        if state.choices[i][1]:
            raise IllegalEvent(f"{name} has already declared; declared uses cannot change",
                               f"{name}はもう宣言しました。宣言した{JA['use']}は変えられません")
        raise IllegalEvent(f"{name} has no {EN['special']} to declare; waiting for {who}",
                           f"{name}には宣言する{JA['special']}がありません。宣言を待っているのは{who_ja}です")
    special = state.choices[i][1]
    given = tuple(k for k in SPECIALS if k in event)
    if given != special:
        (want, want_ja), (saw, saw_ja) = die_names(special), die_names(given)
        raise IllegalEvent(f"{name} must declare exactly their {EN['special']} ({want}), saw {saw}",
                           f"{name}は自分の{JA['special']}（{want_ja}）の{JA['use']}を過不足なく宣言してください（来たのは{saw_ja}）")
    allowed = uses_allowed(state)
    for k in special:
        u = event[k]
        if u == "lure" and not state.lure:
            raise IllegalEvent(f"the {EN['lure']} is an advanced option that is off in this game; use chum or reapproach",
                               f"{JA['lure']}は上級ルールで、このゲームでは使えません。"
                               f"chum（{JA['chum']}）か reapproach（{JA['reapproach']}）にしてください")
        if u not in allowed:
            listed = ", ".join(allowed)
            raise IllegalEvent(f"the {EN['use']} of the {EN[k]} is {short(u)}; use {listed}",
                               f"{JA[k]}の{JA['use']} {short(u)} はありません。"
                               + "、".join(f"{v}（{JA[v]}）" for v in allowed) + " から選んでください")
    uses = tuple((k, event[k]) for k in special)
    state = replace(state, hands=_set(state.hands, i, Hand(uses=uses)))
    state = say(state, f"{name} declares " + ", ".join(f"{k} {EN[u]}" for k, u in uses),
                f"{name}の宣言: " + "、".join(f"{JA[k]} {JA[u]}" for k, u in uses))
    return state if to_declare(state) else replace(state, phase="throw")


def _throw(state: State, event: Mapping[str, Any]) -> State:
    group = state.groups[state.group]
    who, who_ja = named(state, group)
    if "seat" in event:
        i = seat_index(state.seats, event["seat"])
        if i not in group:
            name = state.seats[i].name
            raise IllegalEvent(f"the {EN['throw']} names {name}, but the {EN['group']} due is {who}",
                               f"{name}はいま釣る{JA['group']}ではありません（いまの{JA['group']}: {who_ja}）")
    dice = dice_from(event["dice"], sides=(6, 10, 20))
    wanted = Counter({(d["colour"], d["sides"]): d["count"] for d in group_dice(state)})
    seen = dice_counts(dice)
    if seen != wanted:
        (want, want_ja), (saw, saw_ja) = spec_text(wanted), spec_text(seen)
        raise IllegalEvent(f"expected {want} ({who}'s {EN['throw']}), saw {saw}",
                           f"{who_ja}の{JA['throw']}で振るのは{want_ja}です（来たのは{saw_ja}）")
    hands = list(state.hands)
    for i in group:
        hands[i] = thrown(hands[i], state.choices[i][1], [d for d in dice if d.colour == state.seats[i].colour])
    lines = [(state.seats[i].name, hands[i]) for i in group]
    state = say(replace(state, hands=tuple(hands)), "Thrown: " + "; ".join(f"{n} {h.line('en')}" for n, h in lines),
                f"{JA['throw']}: " + "、".join(f"{n} {h.line('ja')}" for n, h in lines))
    return _after_action(state)


def _after_action(state: State) -> State:
    if any(state.hands[i].open for i in state.groups[state.group]):
        return replace(state, phase="turn")
    return _judge(state)


def _turn_seat(state: State, event: Mapping[str, Any]) -> tuple[int, Hand]:
    i = seat_index(state.seats, event["seat"])
    hand = state.hands[i]
    if i not in state.groups[state.group] or hand is None or not hand.open:
        who, who_ja = named(state, [j for j in state.groups[state.group] if state.hands[j].open])
        name = state.seats[i].name
        raise IllegalEvent(f"{name}'s {EN['turn']} is not open; open turns: {who}",
                           f"{name}の{JA['turn']}ではありません。{JA['turn']}中なのは{who_ja}です")
    return i, hand


def _rethrow(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    return _turn_move(state, i, *rethrow(hand, event, state.seats[i].name, state.seats[i].colour))


def _lure(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    return _turn_move(state, i, *lure(hand, event, state.seats[i].name))


def _turn_move(state: State, i: int, hand: Hand, en: str, ja: str) -> State:
    return _after_action(say(replace(state, hands=_set(state.hands, i, hand)), en, ja))


def _done(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    name = state.seats[i].name
    state = replace(state, hands=_set(state.hands, i, hand.with_(open=False)))
    state = say(state, f"{name} ends the {EN['turn']}", f"{name}が{JA['turn']}を終えた")
    return _after_action(state)


MOVES = {
    "fish": move(_turn_fish, phases=("fish",), required=("fish",)),
    "choose": move(_choose, phases=("choose",), required=("seat", "d6"), optional=("special",)),
    "uses": move(_uses, phases=("uses",), optional=SPECIALS),
    "throw": move(_throw, phases=("throw",), required=("dice",), optional=("seat",)),
    "rethrow": move(_rethrow, phases=("turn",), required=("seat", "by", "picked", "dice")),
    "lure": move(_lure, phases=("turn",), required=("seat", "by", "changes")),
    "done": move(_done, phases=("turn",)),
}


# --- view --------------------------------------------------------------------------------


def _hand_view(state: State, i: int, fish: Fish | None) -> dict[str, Any]:
    hand = state.hands[i]
    out: dict[str, Any] = {"seat": state.seats[i].name, "uses": dict(hand.uses), "thrown": hand.thrown, "open": hand.open}
    if hand.thrown and fish is not None:
        entry = _throw_entry(state, i, hand, fish)
        out.update(dice=entry["dice"], sum=entry["sum"], meets=entry["meets"], condition_met=entry["condition_met"],
                   counted=entry["counted"])
        out["rights"] = {k: {"left": hand.rights_left(k), "fixed": r is not None} for k, r in hand.rights}
        out["lured"] = list(hand.lured)
    return out


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game as the pages show it; with ``seat``, that seat's own choice under "mine"."""
    names = _names(state)
    fish = _fish(state, state.up) if state.up else None
    fishing = state.revealed and state.phase in ("uses", "throw", "turn")
    aside = len(state.aside) if state.deck_mode == "dealt" else (len(state.fish) - state.play if state.stage == "main" else 0)
    out: dict[str, Any] = {
        "game": GAME,
        "phase": state.phase,
        "stage": state.stage,
        "round": state.round,
        "scores": {n: len(c) for n, c in zip(names, state.caught)},
        "winners": [names[i] for i in state.winners],
        "seats": [s.as_dict() for s in state.seats],
        "caught": {n: list(c) for n, c in zip(names, state.caught)},
        "carried": list(state.carried),
        "cooling": {n: list(c) for n, c in zip(names, state.cooling)},
        "fish": fish.as_dict() if fish else None,
        "lure": state.lure,
        "deck": {"mode": state.deck_mode, "left": _stage_total(state) - state.turned if state.phase != "over" else 0,
                 "set_aside": aside, "play": state.play, "total": len(state.fish)},
        "unclaimed": list(state.unclaimed),
        "extension": {n: state.ext_caught[i] for i, n in enumerate(names)} if state.stage == "extension" else None,
        "choices": ({n: {"d6": c[0], "special": list(c[1])} for n, c in zip(names, state.choices)}
                    if state.revealed and all(state.choices) else None),
        "order": [[names[i] for i in g] for g in state.groups] if state.revealed else [],
        "next": [names[i] for i in state.groups[state.group]] if fishing else [],
        "hands": [_hand_view(state, i, fish) for i in state.groups[state.group]] if fishing else [],
        "throws": [dict(t) for t in state.throws],
        "expects": public(expects(state)),
        "log": log_lines(state),
    }
    if seat is not None:
        i, mine = seat_view(state, seat)
        choice = state.choices[i] if state.phase != "over" else None
        out["mine"] = {
            **mine,
            "choice": {"d6": choice[0], "special": list(choice[1])} if choice else None,
            "to_choose": state.phase == "choose" and choice is None,
            "available": list(available(state, i)),
        }
    return out
