"""Lord of the Die-angler (ダイ公望): 2 to 5 players, each with 5 d6, a d10 and a d20.

The rules are RULES.md section 2 and the Die-angler section of SCRIPTS.md (binding). A
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

Decisions where RULES.md and SCRIPTS.md are silent:
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
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engines.core import (
    IllegalEvent,
    Rng,
    Seat,
    SetupError,
    dice_from,
    event_kind,
    event_text,
    public,
    read_toml,
    replace,
    rng_seed,
    rng_shuffle,
    seats_from,
    text,
)

__all__ = ["State", "Fish", "FishError", "setup", "expects", "apply", "view", "load_fish", "fish_from", "meets",
           "condition_holds", "MIN_SEATS", "MAX_SEATS"]

GAME = "dieangler"
TITLE = {"en": "Lord of the Die-angler", "ja": "ダイ公望"}
MIN_SEATS, MAX_SEATS = 2, 5
MAX_D6 = 5
SPECIALS = ("d10", "d20")
SIDES = {"d10": 10, "d20": 20}
USES = ("chum", "reapproach", "lure")
OPTIONS = ("deck", "fish", "play", "lure")
DECK_MODES = ("dealt", "physical")
DEFAULT_PLAY = 10
DATA_FILE = "data/dieangler.toml"

USE_TEXT = {
    "chum": ("chum", "撒き餌"),
    "reapproach": ("re-approach", "再アプローチ"),
    "lure": ("lure", "ルアー"),
}


class FishError(ValueError):
    """A fish card that cannot be used; the message names the file, the fish and why."""


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


def _parse_condition(raw: str) -> tuple[str, tuple[int, ...], int]:
    s = raw.strip()
    if not s:
        return "none", (), 0
    if s in ("≠", "!="):
        return "distinct", (), 0
    if set(s) <= {"=", " ", "\t"}:
        k = s.count("=")
        if k < 2:
            raise ValueError("a '=' condition needs at least 2 marks, like \"= =\"")
        return "marks", (), k
    faces = []
    for word in s.split():
        if not word.isdigit() or not 1 <= int(word) <= 20:
            raise ValueError(
                f"condition {raw!r} is not understood; write faces like \"1 6\", marks like \"= = =\", or \"≠\""
            )
        faces.append(int(word))
    return "faces", tuple(sorted(faces)), 0


def fish_from(raw: Any, where: str) -> tuple[Fish, ...]:
    """Fish from a list of tables (the data file's ``[[fish]]`` or the ``fish`` option), checked."""
    if not isinstance(raw, list) or not raw:
        raise FishError(f"{where}: give a non-empty list of fish, saw {raw!r}")
    out: list[Fish] = []
    seen: set[str] = set()
    for n, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping):
            raise FishError(f"{where}: fish {n} is {item!r}; give a table with id and target")
        fid = item.get("id")
        if not isinstance(fid, str) or not fid.strip():
            raise FishError(f"{where}: fish {n} has no id (saw {fid!r}); give each fish a short text id like \"F01\"")
        label = f"{where}: fish {fid}"
        unknown = sorted(set(item) - {"id", "name", "name_ja", "target", "condition"})
        if unknown:
            raise FishError(f"{label}: unknown key(s) {unknown}; a fish has id, name, name_ja, target, condition")
        if fid in seen:
            raise FishError(f"{label}: the id is used twice; each fish needs its own id")
        seen.add(fid)
        target = item.get("target")
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise FishError(f"{label}: target is {target!r}; give a whole number of at least 1")
        name, name_ja = item.get("name", fid), item.get("name_ja", item.get("name", fid))
        for key, value in (("name", name), ("name_ja", name_ja)):
            if not isinstance(value, str):
                raise FishError(f"{label}: {key} is {value!r}; give a text")
        condition = item.get("condition", "")
        if not isinstance(condition, str):
            raise FishError(f"{label}: condition is {condition!r}; give a text like \"1 6\", \"= =\" or \"≠\"")
        try:
            kind, faces, marks = _parse_condition(condition)
        except ValueError as exc:
            raise FishError(f"{label}: {exc}") from None
        out.append(Fish(fid, name, name_ja, target, condition.strip(), kind, faces, marks))
    return tuple(out)


def load_fish(path: str | Path | None = None) -> tuple[Fish, ...]:
    """The fish of a TOML file (default: the packaged data/dieangler.toml), checked."""
    if path is None:
        return _default_fish()
    return _read_fish(path)


@lru_cache(maxsize=1)
def _default_fish() -> tuple[Fish, ...]:
    return _read_fish(None)


def _read_fish(path: str | Path | None) -> tuple[Fish, ...]:
    where, data = read_toml(DATA_FILE, path, FishError)
    return fish_from(data.get("fish"), where)


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
    events: tuple[str, ...] = ()
    log: tuple[tuple[str, str], ...] = ()
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
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise SetupError(f"options must be an object like {{\"deck\": \"dealt\"}}, saw {options!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SetupError(f"unknown option(s) {unknown} for dieangler; the options are {', '.join(OPTIONS)}")
    deck_mode = options.get("deck", "dealt")
    if deck_mode not in DECK_MODES:
        raise SetupError(f"option deck is {deck_mode!r}; use \"dealt\" (the engine shuffles) or \"physical\"")
    try:
        fish = load_fish() if "fish" not in options else fish_from(options["fish"], "options.fish")
    except FishError as exc:
        raise SetupError(str(exc)) from None
    play = options.get("play", min(DEFAULT_PLAY, len(fish)))
    if isinstance(play, bool) or not isinstance(play, int) or not 1 <= play <= len(fish):
        raise SetupError(f"option play is {play!r}; give a whole number of fish from 1 to {len(fish)}")
    lure = options.get("lure", False)
    if not isinstance(lure, bool):
        raise SetupError(f"option lure is {lure!r}; give true (lure allowed) or false")
    try:
        options_text = json.dumps(dict(options), sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        raise SetupError("options must be plain JSON values (text, numbers, lists, objects)") from None
    ids = tuple(f.id for f in fish)
    rng = rng_seed(seed)
    if deck_mode == "dealt":
        order, rng = rng_shuffle(rng, ids)
        pile, aside = order[:play], order[play:]
    else:
        pile, aside = ids, ()
    n = len(table_seats)
    state = State(
        seats=table_seats, options=options_text, seed=seed, deck_mode=deck_mode, fish=fish, play=play,
        lure=lure, rng=rng, pile=pile, aside=aside, caught=((),) * n, ext_caught=(0,) * n,
        choices=(None,) * n, cooling=((),) * n, hands=(None,) * n,
    )
    return _next_round(state)


# --- helpers -----------------------------------------------------------------------------


def _names(state: State) -> list[str]:
    return [s.name for s in state.seats]


def _fish(state: State, fid: str) -> Fish:
    return next(f for f in state.fish if f.id == fid)


def _say(state: State, en: str, ja: str) -> State:
    return replace(state, log=state.log + ((en, ja),))


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _stage_total(state: State) -> int:
    return state.play if state.stage == "main" else len(state.fish) - state.play


def _face(kind: str, value: int) -> int:
    """The face a die shows for a value (a d10's 10 shows 0)."""
    return value % 10 if kind == "d10" else value


def _fish_text(fish: Fish) -> tuple[str, str]:
    cond = f", condition {fish.condition}" if fish.condition else ""
    cond_ja = f"、条件 {fish.condition}" if fish.condition else ""
    return (f"{fish.id} {fish.name} (target {fish.target}{cond})", f"{fish.id} {fish.name_ja}（目標 {fish.target}{cond_ja}）")


def _choice_text(choice: tuple[int, tuple[str, ...]] | None) -> tuple[str, str]:
    d6, special = choice or (0, ())
    if not d6 and not special:
        return "no dice", "ダイスなし"
    parts = [f"{d6} d6"] if d6 else []
    return " + ".join(parts + list(special)), " + ".join(([f"6面体{d6}個"] if d6 else []) + list(special))


def _hand_text(hand: Hand, ja: bool = False) -> str:
    parts = [str(f) for f in hand.d6]
    for k, v in hand.special:
        parts.append(f"{k}:{_face(k, v)}({USE_TEXT[hand.use(k)][1 if ja else 0]})")
    return " ".join(parts) or "-"


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
    en, ja = _fish_text(_fish(state, state.up))
    extra = f" ({len(state.carried)} carried under it)" if state.carried else ""
    extra_ja = f"（キャリーオーバー{len(state.carried)}枚）" if state.carried else ""
    stage = "Extension, round" if state.stage == "extension" else "Round"
    stage_ja = "延長戦 ラウンド" if state.stage == "extension" else "ラウンド"
    state = _say(state, f"{stage} {state.round}: fish {en}{extra}", f"{stage_ja}{state.round}: {ja}{extra_ja}")
    return replace(state, phase="choose")


def _end_stage(state: State) -> State:
    names = _names(state)
    if state.carried:
        lost = ", ".join(state.carried)
        state = _say(state, f"Carried fish {lost} go to nobody", f"キャリーオーバーの魚 {lost} は誰のものにもならない")
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
    who = _and([names[i] for i in leaders])
    state = _say(state, f"{who} tie with {best} fish: the extension with the {aside} set-aside fish, every seat fishes",
                 f"{'・'.join(names[i] for i in leaders)}が{best}匹で同点: 残りの{aside}枚で延長戦（全員参加）")
    pile = state.aside if state.deck_mode == "dealt" else state.pile
    state = replace(state, stage="extension", leaders=leaders, pile=pile, aside=(), turned=0)
    return _next_round(state)


def _over(state: State, winners: tuple[int, ...]) -> State:
    names = _names(state)
    scores = ", ".join(f"{n} {len(c)}" for n, c in zip(names, state.caught))
    who = _and([names[i] for i in winners])
    return _say(replace(state, phase="over", winners=winners),
                f"Game over ({scores}): {who} win{'s' if len(winners) == 1 else ''}",
                f"ゲーム終了（{scores}）: {'・'.join(names[i] for i in winners)}の勝利")


def _end_round(state: State, catcher: int | None) -> State:
    names = _names(state)
    fish = state.carried + (state.up,)
    if catcher is None:
        state = _say(state, f"Nobody caught {state.up}: it carries over ({len(fish)} waiting)",
                     f"{state.up}は釣れず: キャリーオーバー（{len(fish)}枚）")
        state = replace(state, carried=fish)
    else:
        caught = _set(state.caught, catcher, state.caught[catcher] + fish)
        ext = state.ext_caught
        if state.stage == "extension":
            ext = _set(ext, catcher, ext[catcher] + len(fish))
        state = _say(state, f"{names[catcher]} catches {', '.join(fish)}", f"{names[catcher]}が{', '.join(fish)}を釣り上げた")
        state = replace(state, caught=caught, ext_caught=ext, carried=())
    cooling = tuple(c[1] if c else () for c in state.choices)
    state = replace(state, cooling=cooling, up=None)
    return _next_round(state)


def _reveal(state: State) -> State:
    names = _names(state)
    listing = "; ".join(f"{n}: {_choice_text(c)[0]}" for n, c in zip(names, state.choices))
    listing_ja = "; ".join(f"{n}: {_choice_text(c)[1]}" for n, c in zip(names, state.choices))
    state = _say(replace(state, revealed=True, throws=()), f"Open! {listing}", f"オープン! {listing_ja}")
    keys = {}
    for i, (d6, special) in enumerate(state.choices):
        if d6 + len(special):
            keys.setdefault((d6 + len(special), len(special)), []).append(i)
    groups = tuple(tuple(keys[k]) for k in sorted(keys))
    if not groups:
        state = _say(state, "Nobody chose a die", "誰もダイスを選ばなかった")
        return _end_round(state, None)
    order = " / ".join(_and([names[i] for i in g]) for g in groups)
    state = _say(replace(state, groups=groups, group=0), f"Fishing order: {order}", f"釣る順番: {order}")
    return _start_group(state)


def _start_group(state: State) -> State:
    group = state.groups[state.group]
    hands = list(state.hands)
    for i in group:
        hands[i] = Hand()
    state = replace(state, hands=tuple(hands))
    return replace(state, phase="uses" if _to_declare(state) else "throw")


def _to_declare(state: State) -> list[int]:
    if not state.groups or state.phase == "over":
        return []
    return [i for i in state.groups[state.group]
            if state.choices[i][1] and not state.hands[i].uses]


def _group_dice(state: State) -> list[dict[str, Any]]:
    out = []
    for i in state.groups[state.group]:
        d6, special = state.choices[i]
        colour = state.seats[i].colour
        if d6:
            out.append({"colour": colour, "sides": 6, "count": d6})
        out.extend({"colour": colour, "sides": SIDES[k], "count": 1} for k in special)
    return out


def _judge(state: State) -> State:
    names = _names(state)
    fish = _fish(state, state.up)
    group = state.groups[state.group]
    results = []
    throws = list(state.throws)
    for i in group:
        hand = state.hands[i]
        values = hand.counted()
        ok = meets(fish, values)
        results.append((i, sum(values), ok))
        throws.append(_throw_entry(state, i, hand, fish))
    state = replace(state, throws=tuple(throws))
    summary = ", ".join(f"{names[i]} {s}{' ✓' if ok else ''}" for i, s, ok in results)
    state = _say(state, f"Judged: {summary} (target {fish.target})", f"判定: {summary}（目標 {fish.target}）")
    wins = [(s, i) for i, s, ok in results if ok]
    if wins:
        low = min(s for s, _ in wins)
        best = [i for s, i in wins if s == low]
        if len(best) == 1:
            return _end_round(state, best[0])
        who = _and([names[i] for i in best])
        state = _say(state, f"{who} tie at {low}, closest to the target: nobody takes it, no later group fishes",
                     f"{'・'.join(names[i] for i in best)}が{low}で同点: 誰も獲得できず、後の組は釣らない")
        return _end_round(state, None)
    if state.group + 1 < len(state.groups):
        return _start_group(replace(state, group=state.group + 1))
    return _end_round(state, None)


def _throw_entry(state: State, i: int, hand: Hand, fish: Fish) -> dict[str, Any]:
    values = hand.counted()
    colour = state.seats[i].colour
    dice = [{"colour": colour, "face": f} for f in hand.d6]
    for k, v in hand.special:
        dice.append({"colour": colour, "face": _face(k, v), "sides": SIDES[k], "value": v, "use": hand.use(k)})
    return {"seat": state.seats[i].name, "group": state.group, "dice": dice, "sum": sum(values),
            "meets": meets(fish, values), "condition_met": condition_holds(fish, values), "counted": list(values)}


# --- expects -----------------------------------------------------------------------------


def _field(name: str, kind: str, en: str, ja: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": kind, "label": text(en, ja), **more}


def _available(state: State, i: int) -> tuple[str, ...]:
    return tuple(k for k in SPECIALS if k not in state.cooling[i])


def _use_options(state: State) -> list[dict[str, Any]]:
    uses = USES if state.lure else USES[:2]
    return [{"value": u, "label": text(*USE_TEXT[u])} for u in uses]


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = _names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": [names[i] for i in state.winners]}
    inputs = out["inputs"]
    if state.phase == "fish":
        options = [{"value": f.id, "label": text(*_fish_text(f))} for f in state.fish if f.id in state.pile]
        inputs.append({
            "type": "fish", "seats": [], "secret": False,
            "prompt": text("Host: turn over the next fish card and name it.", "ホスト: 次のお魚カードをめくり、選んでください。"),
            "fields": [_field("fish", "choice", "Fish card", "お魚カード", options=options)],
        })
    elif state.phase == "choose":
        # One input per set of specials seats may choose (cooling is public); the list
        # depends on cooling only, never on who has chosen.
        sets: dict[tuple[str, ...], list[int]] = {}
        for i in range(len(state.seats)):
            sets.setdefault(_available(state, i), []).append(i)
        for avail, seats in sets.items():
            special = _field("special", "multi", "Special dice", "特殊ダイス", default=[], min=0, max=len(avail),
                             options=[{"value": k, "label": text(k, k)} for k in avail])
            inputs.append({
                "type": "choose", "seats": [names[i] for i in seats if state.choices[i] is None], "secret": True,
                "prompt": text("Choose in secret your rod: how many d6 (0-5) and which special dice.",
                               "釣り竿を秘密に選んでください: 6面体の数（0〜5）と特殊ダイス。"),
                "fields": [_field("d6", "number", "Six-sided dice", "6面体ダイスの数", min=0, max=MAX_D6, button=True),
                           special],
            })
    elif state.phase == "uses":
        for i in _to_declare(state):
            fields = [_field(k, "choice", f"Use of the {k}", f"{k}の使い方", options=_use_options(state))
                      for k in state.choices[i][1]]
            inputs.append({
                "type": "uses", "seats": [names[i]], "secret": False,
                "prompt": text(f"{names[i]}: declare the use of each special die before the throw.",
                               f"{names[i]}: 振る前に特殊ダイスの使い方を宣言してください。"),
                "fields": fields,
            })
    elif state.phase == "throw":
        group = state.groups[state.group]
        who = _and([names[i] for i in group])
        inputs.append({
            "type": "throw", "seats": [names[i] for i in group], "secret": False, "together": True,
            "prompt": text(f"{who}: throw your chosen dice.", f"{'・'.join(names[i] for i in group)}: 選んだダイスを振ってください。"),
            "fields": [_field("dice", "dice", "Dice", "ダイス")],
            "dice": _group_dice(state), "camera": "new",
        })
    elif state.phase == "turn":
        open_seats = [i for i in state.groups[state.group] if state.hands[i].open]
        for i in open_seats:
            hand = state.hands[i]
            by = [k for k, _ in hand.rights if hand.rights_left(k) and hand.pickable(k)]
            if by:
                inputs.append({
                    "type": "rethrow", "seats": [names[i]], "secret": False,
                    "prompt": text(f"{names[i]}: rethrow any of your dice with a re-approach right.",
                                   f"{names[i]}: 再アプローチの権利でダイスを振り直せます。"),
                    "fields": [
                        _field("by", "choice", "Right of", "使う権利", options=[
                            {"value": k, "label": text(f"{k} ({hand.rights_left(k)} left)", f"{k}（残り{hand.rights_left(k)}回）")}
                            for k in by]),
                        _field("picked", "picked", "Dice picked up", "振り直すダイス", names={"10": "d10", "20": "d20"}),
                        _field("dice", "dice", "New faces", "新しい出目"),
                    ],
                    "dice": None, "camera": "rethrown",
                })
            lures = [k for k, u in hand.uses if u == "lure" and k not in hand.lured and hand.pickable(k)]
            if lures:
                inputs.append({
                    "type": "lure", "seats": [names[i]], "secret": False,
                    "prompt": text(f"{names[i]}: change your dice with a lure (odd: 1 in all, even: 2).",
                                   f"{names[i]}: ルアーで出目を変えられます（奇数: 合計1、偶数: 合計2）。"),
                    "fields": [
                        _field("by", "choice", "Lure die", "ルアーのダイス",
                               options=[{"value": k, "label": text(k, k)} for k in lures]),
                        _field("changes", "json", "Changes [die, +/-]", "変更 [ダイス, ±]", example=[[2, 1], ["d10", -1]]),
                    ],
                })
        inputs.append({
            "type": "done", "seats": [names[i] for i in open_seats], "secret": False,
            "prompt": text("End your turn when you are happy with your dice.", "ダイスに満足したら手番を終えてください。"),
            "fields": [],
        })
    return out


# --- apply -------------------------------------------------------------------------------

_KEYS = {
    "fish": ({"fish"}, set()),
    "choose": ({"seat", "d6"}, {"special"}),
    "uses": ({"seat"}, {"d10", "d20"}),
    "throw": ({"dice"}, {"seat"}),
    "rethrow": ({"seat", "by", "picked", "dice"}, set()),
    "lure": ({"seat", "by", "changes"}, set()),
    "done": ({"seat"}, set()),
}
_PHASE_OF = {"fish": "fish", "choose": "choose", "uses": "uses", "throw": "throw",
             "rethrow": "turn", "lure": "turn", "done": "turn"}


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    kind = event_kind(event, _KEYS)
    if state.phase == "over":
        raise IllegalEvent("the game is over; no event is expected")
    if _PHASE_OF[kind] != state.phase:
        raise IllegalEvent(f"saw a {kind} event, but {_waiting_for(state)}")
    handler = {"fish": _turn_fish, "choose": _choose, "uses": _uses, "throw": _throw,
               "rethrow": _rethrow, "lure": _lure, "done": _done}[kind]
    new = handler(state, event)
    return replace(new, events=state.events + (event_text(event),))


def _waiting_for(state: State) -> str:
    names = _names(state)
    if state.phase == "fish":
        return "the table is waiting for the host to name the fish turned over (a fish event)"
    if state.phase == "choose":
        return "the table is waiting for the secret choices (choose events)"
    if state.phase == "uses":
        return f"the table is waiting for {_and([names[i] for i in _to_declare(state)])} to declare their special dice (uses)"
    if state.phase == "throw":
        return f"the table is waiting for the throw of {_and([names[i] for i in state.groups[state.group]])}"
    if state.phase == "turn":
        seats = [names[i] for i in state.groups[state.group] if state.hands[i].open]
        return f"the table is waiting for {_and(seats)} to rethrow, lure or end their turn (done)"
    return "the game is over"


def _seat_index(state: State, name: Any) -> int:
    for i, seat in enumerate(state.seats):
        if seat.name == name:
            return i
    raise IllegalEvent(f"unknown seat {name!r}; the seats are {', '.join(_names(state))}")


def _turn_fish(state: State, event: Mapping[str, Any]) -> State:
    fid = event["fish"]
    ids = [f.id for f in state.fish]
    if fid not in ids:
        raise IllegalEvent(f"fish {fid!r} is not in this game's deck; expected one of {', '.join(state.pile)}")
    if fid not in state.pile:
        raise IllegalEvent(f"fish {fid} was already turned over; expected one of {', '.join(state.pile)}")
    pile = tuple(f for f in state.pile if f != fid)
    return _show_fish(replace(state, up=fid, pile=pile, turned=state.turned + 1))


def _choose(state: State, event: Mapping[str, Any]) -> State:
    i = _seat_index(state, event["seat"])
    name = state.seats[i].name
    if state.choices[i] is not None:
        raise IllegalEvent(f"{name} has already chosen; a choice is locked once given")
    d6 = event["d6"]
    if isinstance(d6, bool) or not isinstance(d6, int) or not 0 <= d6 <= MAX_D6:
        raise IllegalEvent(f"{name} chose {d6!r} d6; choose a whole number from 0 to {MAX_D6}")
    special = event.get("special", [])
    if not isinstance(special, list):
        raise IllegalEvent(f"special is {special!r}; give a list like [\"d10\"] or []")
    for k in special:
        if k not in SPECIALS:
            raise IllegalEvent(f"{name} chose the special die {k!r}; the special dice are \"d10\" and \"d20\"")
        if special.count(k) > 1:
            raise IllegalEvent(f"{name} chose the {k} twice; each seat has one {k}")
        if k in state.cooling[i]:
            raise IllegalEvent(f"{name}'s {k} is cooling down this round (chosen last round); choose another")
    choice = (d6, tuple(k for k in SPECIALS if k in special))
    state = replace(state, choices=_set(state.choices, i, choice))
    if any(c is None for c in state.choices):
        return state
    return _reveal(state)


def _uses(state: State, event: Mapping[str, Any]) -> State:
    i = _seat_index(state, event["seat"])
    names = _names(state)
    due = _to_declare(state)
    if i not in due:
        if i not in state.groups[state.group]:
            raise IllegalEvent(f"{names[i]} is not in the group due; waiting for {_and([names[j] for j in due])} to declare")
        if state.choices[i][1]:
            raise IllegalEvent(f"{names[i]} has already declared; declared uses cannot change")
        raise IllegalEvent(f"{names[i]} has no special dice to declare; waiting for {_and([names[j] for j in due])}")
    special = state.choices[i][1]
    given = tuple(k for k in SPECIALS if k in event)
    if given != special:
        raise IllegalEvent(f"{names[i]} must declare exactly their special dice ({', '.join(special)}), saw {', '.join(given) or 'none'}")
    uses = []
    for k in special:
        u = event[k]
        if u not in USES:
            raise IllegalEvent(f"the use of the {k} is {u!r}; use chum, reapproach" + (" or lure" if state.lure else ""))
        if u == "lure" and not state.lure:
            raise IllegalEvent("the lure is an advanced option that is off in this game; use chum or reapproach")
        uses.append((k, u))
    hands = _set(state.hands, i, Hand(uses=tuple(uses)))
    listing = ", ".join(f"{k} {USE_TEXT[u][0]}" for k, u in uses)
    listing_ja = "、".join(f"{k} {USE_TEXT[u][1]}" for k, u in uses)
    state = _say(replace(state, hands=hands), f"{names[i]} declares {listing}", f"{names[i]}の宣言: {listing_ja}")
    if not _to_declare(state):
        state = replace(state, phase="throw")
    return state


def _dice_counts(dice: Iterable[Any]) -> Counter:
    return Counter((d.colour, d.sides) for d in dice)


def _spec_text(spec: Counter) -> str:
    if not spec:
        return "no dice"
    return ", ".join(f"{n} {c} {'d6' if s == 6 else f'd{s}'}" for (c, s), n in sorted(spec.items()))


def _throw(state: State, event: Mapping[str, Any]) -> State:
    names = _names(state)
    group = state.groups[state.group]
    if "seat" in event:
        i = _seat_index(state, event["seat"])
        if i not in group:
            raise IllegalEvent(f"the throw names {names[i]}, but the group due is {_and([names[j] for j in group])}")
    dice = dice_from(event["dice"], sides=(6, 10, 20))
    wanted = Counter({(d["colour"], d["sides"]): d["count"] for d in _group_dice(state)})
    seen = _dice_counts(dice)
    if seen != wanted:
        raise IllegalEvent(f"expected {_spec_text(wanted)} ({_and([names[i] for i in group])}'s throw), saw {_spec_text(seen)}")
    hands = list(state.hands)
    lines, lines_ja = [], []
    for i in group:
        colour = state.seats[i].colour
        mine = [d for d in dice if d.colour == colour]
        hand = hands[i]
        special = tuple((k, next((d.face or 10) if k == "d10" else d.face for d in mine if d.sides == SIDES[k]))
                        for k in state.choices[i][1])
        hand = Hand(uses=hand.uses, thrown=True, d6=tuple(sorted(d.face for d in mine if d.sides == 6)),
                    special=special, rights=tuple((k, None) for k, u in hand.uses if u == "reapproach"))
        hand = _replace_hand(hand, open=hand.can_act())
        hands[i] = hand
        lines.append(f"{names[i]} {_hand_text(hand)} (sum {sum(hand.counted())})")
        lines_ja.append(f"{names[i]} {_hand_text(hand, True)}（合計 {sum(hand.counted())}）")
    state = _say(replace(state, hands=tuple(hands)), "Thrown: " + "; ".join(lines), "振った: " + "; ".join(lines_ja))
    return _after_action(state)


def _replace_hand(hand: Hand, **changes: Any) -> Hand:
    return Hand(**{**hand.__dict__, **changes})


def _after_action(state: State) -> State:
    if any(state.hands[i].open for i in state.groups[state.group]):
        return replace(state, phase="turn")
    return _judge(state)


def _turn_seat(state: State, event: Mapping[str, Any]) -> tuple[int, Hand]:
    i = _seat_index(state, event["seat"])
    hand = state.hands[i]
    if i not in state.groups[state.group] or hand is None or not hand.open:
        seats = [state.seats[j].name for j in state.groups[state.group] if state.hands[j].open]
        raise IllegalEvent(f"{state.seats[i].name}'s turn is not open; open turns: {_and(seats)}")
    return i, hand


def _special_arg(hand: Hand, raw: Any, what: str, name: str) -> str:
    if raw not in SPECIALS or raw not in dict(hand.special):
        raise IllegalEvent(f"{what} {raw!r} is not a special die {name} threw ({', '.join(k for k, _ in hand.special) or 'none'})")
    return raw


def _take_d6(hand: Hand, faces: list[int], name: str, what: str) -> list[int]:
    """``hand.d6`` less one die per face in ``faces``; IllegalEvent for a die not shown."""
    left = list(hand.d6)
    for f in faces:
        if f not in left:
            raise IllegalEvent(f"{what} names a d6 showing {f}, but {name}'s d6 show {' '.join(map(str, hand.d6)) or 'nothing'}"
                               " (a face twice: two such dice)")
        left.remove(f)
    return left


def _rethrow(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    name = state.seats[i].name
    by = event["by"]
    if by not in SPECIALS or hand.use(by) != "reapproach":
        raise IllegalEvent(f"by is {by!r}; name a re-approach die of {name}'s ({', '.join(k for k, _ in hand.rights) or 'none'})")
    if not hand.rights_left(by):
        raise IllegalEvent(f"{name}'s {by} has no rethrow right left")
    picked = event["picked"]
    if not isinstance(picked, list) or not picked:
        raise IllegalEvent("picked is empty; list the dice picked up: d6 by their face before the rethrow, \"d10\"/\"d20\" by name")
    faces, specials = [], []
    for p in picked:
        if isinstance(p, str):
            k = _special_arg(hand, p, "picked", name)
            if k == by:
                raise IllegalEvent(f"the {by} never rethrows itself with its own right")
            if k in specials:
                raise IllegalEvent(f"picked names the {k} twice")
            if hand.used(k):
                raise IllegalEvent(f"the {k}'s ability was used; it can no longer be rethrown")
            specials.append(k)
        elif isinstance(p, int) and not isinstance(p, bool):
            faces.append(p)
        else:
            raise IllegalEvent(f"picked holds {p!r}; a d6 is written as its face, a special die as \"d10\" or \"d20\"")
    left = _take_d6(hand, faces, name, "picked")
    dice = dice_from(event["dice"], sides=(6, 10, 20))
    colour = state.seats[i].colour
    wanted = Counter({(colour, 6): len(faces)}) + Counter((colour, SIDES[k]) for k in specials)
    seen = _dice_counts(dice)
    if seen != +wanted:
        raise IllegalEvent(f"the new dice must match the picked ones ({_spec_text(+wanted)}), saw {_spec_text(seen)}")
    rights = tuple((k, (hand.rights_left(k) - 1) if k == by else r) for k, r in hand.rights)
    special = tuple(
        (k, next((d.face or 10) if k == "d10" else d.face for d in dice if d.sides == SIDES[k]) if k in specials else v)
        for k, v in hand.special)
    new = _replace_hand(hand, d6=tuple(sorted(left + [d.face for d in dice if d.sides == 6])), special=special, rights=rights)
    new = _replace_hand(new, open=new.can_act())
    before = " ".join(str(p) for p in picked)
    state = _say(replace(state, hands=_set(state.hands, i, new)),
                 f"{name} rethrows {before} with the {by}: {_hand_text(new)} (sum {sum(new.counted())})",
                 f"{name}が{by}の権利で{before}を振り直し: {_hand_text(new, True)}（合計 {sum(new.counted())}）")
    return _after_action(state)


def _lure(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    name = state.seats[i].name
    by = event["by"]
    if by not in SPECIALS or hand.use(by) != "lure":
        raise IllegalEvent(f"by is {by!r}; name a lure die of {name}'s")
    if by in hand.lured:
        raise IllegalEvent(f"{name}'s {by} has already lured; each lure die is used once")
    changes = event["changes"]
    if not isinstance(changes, list) or not changes:
        raise IllegalEvent("changes is empty; give [die, delta] pairs like [[2, 1], [\"d10\", -1]]")
    budget = 1 if hand.value(by) % 2 else 2
    faces, special_delta, total = [], {}, 0
    for c in changes:
        if not isinstance(c, list) or len(c) != 2 or isinstance(c[1], bool) or not isinstance(c[1], int):
            raise IllegalEvent(f"a change is [die, delta] like [2, 1] or [\"d10\", -1], saw {c!r}")
        die, delta = c
        if delta == 0:
            raise IllegalEvent("a change of 0 is no change; give +1/-1 (or +2/-2 with an even lure)")
        total += abs(delta)
        if isinstance(die, str):
            k = _special_arg(hand, die, "changes", name)
            if k == by:
                raise IllegalEvent("a lure die cannot change itself")
            if k in special_delta:
                raise IllegalEvent(f"changes names the {k} twice; give its whole change at once")
            if hand.used(k):
                raise IllegalEvent(f"the {k}'s ability was used; it can no longer be changed")
            value = hand.value(k) + delta
            if not 1 <= value <= SIDES[k]:
                raise IllegalEvent(f"the {k} would show {value}; a {k} counts from 1 to {SIDES[k]}")
            special_delta[k] = delta
        elif isinstance(die, int) and not isinstance(die, bool):
            if not 1 <= die + delta <= 6:
                raise IllegalEvent(f"a d6 showing {die} changed by {delta:+d} would show {die + delta}; a d6 shows 1 to 6")
            faces.append((die, delta))
        else:
            raise IllegalEvent(f"a die in changes is written as its face (d6) or \"d10\"/\"d20\", saw {die!r}")
    if total > budget:
        raise IllegalEvent(f"the {by} shows {_face(by, hand.value(by))} ({'odd' if budget == 1 else 'even'}): "
                           f"it changes faces by {budget} in all, saw {total}")
    left = _take_d6(hand, [f for f, _ in faces], name, "changes")
    d6 = tuple(sorted(left + [f + d for f, d in faces]))
    special = tuple((k, v + special_delta.get(k, 0)) for k, v in hand.special)
    new = _replace_hand(hand, d6=d6, special=special, lured=hand.lured + (by,))
    new = _replace_hand(new, open=new.can_act())
    listing = ", ".join(f"{d} {x:+d}" for d, x in changes)
    state = _say(replace(state, hands=_set(state.hands, i, new)),
                 f"{name} lures with the {by} ({listing}): {_hand_text(new)} (sum {sum(new.counted())})",
                 f"{name}が{by}のルアー（{listing}）: {_hand_text(new, True)}（合計 {sum(new.counted())}）")
    return _after_action(state)


def _done(state: State, event: Mapping[str, Any]) -> State:
    i, hand = _turn_seat(state, event)
    name = state.seats[i].name
    state = replace(state, hands=_set(state.hands, i, _replace_hand(hand, open=False)))
    state = _say(state, f"{name} ends the turn", f"{name}が手番を終えた")
    return _after_action(state)


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
        "log": [{"en": en, "ja": ja} for en, ja in state.log],
    }
    if seat is not None:
        if seat not in names:
            raise ValueError(f"unknown seat {seat!r}; the seats are {', '.join(names)}")
        i = names.index(seat)
        choice = state.choices[i] if state.phase != "over" else None
        out["mine"] = {
            "seat": seat,
            "colour": state.seats[i].colour,
            "choice": {"d6": choice[0], "special": list(choice[1])} if choice else None,
            "to_choose": state.phase == "choose" and choice is None,
            "available": list(_available(state, i)),
        }
    return out
