"""Ari Express (アリ急行): ants lay tapes of printed die faces between their nests, 2-5 players.

The rules are docs/rules/ariexpress.md.
Four colours have two nests each (``"red-1"``, ``"red-2"``, ...; option ``nests``, data
file ``engines/data/ariexpress.toml``). Tapes are numbered 1, 2, ... as they are built;
square ``"t3.2"`` is the 2nd printed face of tape 3 from its ``from`` end. A tape's squares
follow each other; its ``from`` end joins its first square and its ``to`` end its last, to
a nest, to a square of an earlier tape (a junction) or to nothing (``null``, a loose end).

A turn: the turn player throws every die in hand (players + 1, one more per complete
colour from the next throw on, at most players + 3), keeps all but one die per other
player and spends every kept die, in any order:
  build (2 dice, any faces): a new tape; the builder's workers go on its first and last
  squares; with two equal dice also a bonus worker on an empty square of that face (the
  new tape's included), which may be declined;
  place (1 die): a worker on an empty square showing the die's face;
  build with 1 die, or pass (spend it for nothing): only when no empty square shows its face.
Then each other seat, clockwise from the turn player's left, takes one of the dice handed
on and spends it the same way (one die: place, or build / pass when no square fits). Then
the next seat throws.

A colour is complete when some route from one of its nests to the other (squares only,
no square twice, never through a nest) has a worker on every square. Colours are checked
after every build and place; the game ends at once when 3 are complete (all 4 count if the
ending action completed two). Score: per complete colour, each seat's longest run of its
own consecutive workers on any complete route of that colour (``engines/ariexpress_routes.py``
finds it exactly, without listing the routes); the top score wins, ties share.

Decisions where the printed rules are silent (written here as the rules ask):
- A throw's dice are shared: their colour is not checked, only their number and faces.
- A tape may join a square of the tape it continues (both ends on one tape are refused only
  when they are the same square), and several tapes may join one square or one nest.
- The turn player may spend the kept dice one at a time in any order, so the two dice of a
  build must both still be unspent when the build is made.
- ``runs`` and ``scores`` are shown while the game runs too (the standing if it ended now).
- A tape has at most ``MAX_TAPE`` (100) squares and the table at most ``MAX_SQUARES``
  (1,000): masking tape's printed faces are about 2 cm apart, so 100 squares are a 2 m
  strip, as long as a big table, and 1,000 squares are 20 m of tape, several times what a
  game lays before three colours are complete. A build beyond either is refused; the dice
  can still be placed or passed, so no game is stuck.

Events (docs/replay.md):
  ``{"type": "throw", "seat": "Aki", "dice": [["white", 3], ...]}``
  ``{"type": "keep", "seat": "Aki", "dice": [3, 5]}``
  ``{"type": "build", "seat": "Aki", "dice": [2, 2], "tape": {"faces": [6, 2, 5, 1], "from": "red-1", "to": "t1.3"}, "bonus": "t2.2"}``
  ``{"type": "place", "seat": "Ben", "die": 4, "square": "t1.2"}``
  ``{"type": "pass", "seat": "Ben", "die": 4}``
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines import ariexpress_board as board
from engines.ariexpress_board import square_name
from engines.ariexpress_cli import COMMANDS  # noqa: F401  (pi.cli reads engine.COMMANDS)
from engines.ariexpress_data import DATA_FILE, colour_ja, default_data, nests_from
from engines.ariexpress_state import (State, complete_colours, complete_routes, dice_count, graph, nest_names,
                                      open_squares, runs, scores, seat_names, square_at, squares)
from engines.core import (MAX_DICE, IllegalEvent, Seat, an_input, apply_move, bounded_list, check_options, dice_from,
                          field, joined, load_glossary, log_lines, move, option, replace, rng_seed, say, seat_index,
                          seat_view, seats_from, short, text, waiting_for, whole)

GAME = "ariexpress"
GLOSSARY = load_glossary(DATA_FILE)
EN = {key: names["en"] for key, names in GLOSSARY.items()}
JA = {key: names["ja"] for key, names in GLOSSARY.items()}
TITLE = GLOSSARY["title"]
#: What the table shows for this game (pi.web.game_uses): dice under the camera and the
#: seats' worker colours; no secret choice, so no seat buttons.
USES = frozenset({"dice", "seat_colours"})
MIN_SEATS = 2
MAX_SEATS = 5
OPTIONS = ("nests",)
END_AT = 3  # complete colours that end the game
FACES = range(1, 7)
MAX_TAPE = 100  # squares of one tape (see the module docstring)
MAX_SQUARES = 1000  # squares on the table
BONUS_ON_NEW_TAPE = 7  # inner squares of the tape being built offered for a bonus (t.2 to t.8)


# --- setup ---------------------------------------------------------------------------------


def setup(seats: Sequence[Seat | Mapping[str, Any]], options: Mapping[str, Any] | None = None, seed: int = 0) -> State:
    """A new game: the first seat throws, no tape yet."""
    table_seats = seats_from(seats, MIN_SEATS, MAX_SEATS)
    options = check_options({} if options is None else options, OPTIONS)
    rng_seed(seed)  # checks the seed as every game does; Ari Express draws nothing
    nests = nests_from(options["nests"], "option nests") if "nests" in options else default_data()[0]
    state = State(seats=table_seats, options=json.dumps(options, sort_keys=True, ensure_ascii=False),
                  seed=seed, nests=nests)
    first, n = table_seats[0].name, dice_count(state)
    return say(state, f"{EN['title']} for {len(table_seats)}: {first} throws {n} {EN['dice']}",
               f"{JA['title']} {len(table_seats)}人: {first}が{JA['dice']}{n}個を振ります")


# --- small helpers -----------------------------------------------------------------------


def _faces_text(faces: Sequence[int]) -> str:
    return " ".join(str(f) for f in faces) or "none"


def _faces_ja(faces: Sequence[int]) -> str:
    return " ".join(str(f) for f in faces) or "なし"


def _held(state: State) -> tuple[int, ...]:
    return state.kept if state.phase == "turn" else state.handed


def _take(held: tuple[int, ...], faces: Sequence[int], who: str, verb: str, verb_ja: str) -> tuple[int, ...]:
    """``held`` without ``faces`` (each once); IllegalEvent when a face is not held."""
    have, want = Counter(held), Counter(faces)
    for f in faces:
        if have[f] < want[f]:
            if verb == "keep":  # from the dice just thrown
                has_en = f"threw only one {f}" if have[f] == 1 else f"did not throw a {f}"
                where_ja = f"{who}が振った{JA['dice']}に"
            else:
                has_en = f"holds only one {f} to {verb}" if have[f] == 1 else f"does not hold a {f} to {verb}"
                where_ja = f"{who}の手元に"
            has_ja = f"{f}の{JA['dice']}は1個だけです" if have[f] == 1 else f"{f}の{JA['dice']}はありません"
            raise IllegalEvent(f"{who} {has_en}; the dice {who} may {verb} now: {_faces_text(held)}",
                               f"{where_ja}{has_ja}（いま{verb_ja}{JA['dice']}: {_faces_ja(held)}）")
    out = list(held)
    for f in faces:
        out.remove(f)
    return tuple(out)


def _face(raw: Any, what: str, what_ja: str) -> int:
    if not whole(raw, FACES[0], FACES[-1]):
        raise IllegalEvent(f"{what} must be a die face 1-6, saw {short(raw)}",
                           f"{what_ja}は{JA['dice']}の{JA['face']}（1〜6）で書いてください（{short(raw)}）")
    return raw


def _faces(raw: Any, what: str, what_ja: str, most: int = MAX_DICE) -> list[int]:
    """A list of at most ``most`` die faces."""
    bounded_list(raw, what, what_ja, "die faces 1-6", f"{JA['dice']}の{JA['face']}（1〜6）", most)
    return [_face(f, f"{what}: each face", what_ja) for f in raw]


def _due(handler: Callable[[State, int, Mapping[str, Any]], State]) -> Callable[[State, Mapping[str, Any]], State]:
    """A move's handler for the seat due only: ``handler(state, seat index, event)``."""
    def run(state: State, event: Mapping[str, Any]) -> State:
        i = seat_index(state.seats, event["seat"])
        if i != state.due:
            name = state.seats[i].name
            raise IllegalEvent.of(joined(text(f"{name} is not due: ", f"いまは{name}の{JA['turn']}ではありません。"),
                                         waiting_for(expects(state))))
        return handler(state, i, event)
    return run


# --- expects -----------------------------------------------------------------------------


def _square_option(name: str, face: int) -> dict[str, Any]:
    """A square to choose, with the face it shows (the page offers it for that face only)."""
    return {**option(name, f"{EN['square']} {name} ({face})", f"{JA['square']} {name}（{face}）"), "face": face}


def _face_options(faces: Sequence[int]) -> list[dict[str, Any]]:
    return [option(f, str(f), str(f)) for f in sorted(set(faces))]


def _end_options(state: State, laid: list[tuple[str, int, int | None]]) -> list[dict[str, Any]]:
    """What a tape end may join: nothing, a nest, any square ``laid`` (``squares``)."""
    out = [option(None, f"nothing (a {EN['loose_end']})", f"なし（{JA['loose_end']}）")]
    for n in nest_names(state):
        out.append(option(n, f"{EN['nest']} {n}", f"{JA['nest']} {_end_ja(state, n)}"))
    return out + [_square_option(name, face) for name, face, _ in laid]


def _end_ja(state: State, end: str | None) -> str:
    """A tape end in Japanese: a nest by its colour's Japanese name ("緑2" for green-2, as
    the board labels it), a square by its id, nothing as the glossary's loose end."""
    if end is None:
        return JA["loose_end"]
    if end in nest_names(state):
        colour, _, k = end.rpartition("-")
        return f"{colour_ja(colour)}{k}"
    return end


def _bonus_field(state: State, held: Sequence[int], empty: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """The bonus field when the seat holds two equal dice: no bonus, the ``empty`` squares
    of their faces, or an inner square of the tape about to be built (its face is typed)."""
    pairs = {f for f, k in Counter(held).items() if k >= 2}
    if not pairs:
        return []
    t = len(state.tapes)
    options = [option(None, f"no {EN['bonus']}", f"{JA['bonus']}なし")]
    options += [_square_option(n, f) for n, f in empty if f in pairs]
    options += [option(square_name(t, k), f"new {EN['tape']}, {EN['square']} {k + 1}",
                       f"新しい{JA['tape']}の{k + 1}番目の{JA['square']}") for k in range(1, BONUS_ON_NEW_TAPE + 1)]
    return [field("bonus", "choice", f"{EN['doubles'].capitalize()}: a {EN['bonus']} {EN['worker']} on",
                  f"{JA['doubles']}の{JA['bonus']}: {JA['worker']}を配置する{JA['square']}", default=None, options=options)]


def _holder(state: State, who: str, held: Sequence[int]) -> dict[str, str]:
    """"Aki (kept dice 1 2): " to start a prompt."""
    term = "kept" if state.phase == "turn" else "received"  # "handed" (渡した) is the turn player's word
    return text(f"{who} ({EN[term]} {_faces_text(held)}): ", f"{who}（{JA[term]} {_faces_ja(held)}）: ")


def _spend_inputs(state: State, seat: str, held: tuple[int, ...], two: bool) -> list[dict[str, Any]]:
    """place / build / pass inputs for a seat holding ``held`` (``two``: may build with 2)."""
    laid = squares(state)
    empty = [(n, f) for n, f, owner in laid if owner is None]
    shown = {f for _, f in empty}
    faces = sorted(set(held))
    fits = [f for f in faces if f in shown]
    blocked = [f for f in faces if f not in shown]
    who = _holder(state, seat, held)
    out: list[dict[str, Any]] = []
    if fits:
        out.append(an_input("place", [seat], joined(who, text(
            f"{EN['place']} a {EN['worker']} with one die on an empty {EN['square']} of its {EN['face']}.",
            f"{JA['dice']}1個で、その{JA['face']}の空いている{JA['square']}に{JA['worker']}を置いてください。")), [
            field("die", "choice", "Die", JA["dice"], options=_face_options(fits)),
            field("square", "choice", EN["square"].capitalize(), JA["square"],
                  options=[_square_option(n, f) for n, f in empty if f in fits]),
        ], action=text(f"{EN['place'].capitalize()} a {EN['worker']}", JA["place"])))
    many = two and len(held) >= 2
    build_faces = faces if many else blocked
    if build_faces:
        ends = _end_options(state, laid)
        two_en, two_ja = ("two dice (any faces) or ", f"{JA['dice']}2個（{JA['face']}は自由）か、") if many else ("", "")
        out.append(an_input("build", [seat], joined(who, text(
            f"{EN['build']} a {EN['tape']} with {two_en}one die no empty {EN['square']} shows; "
            f"your {EN['worker']}s go on its first and last {EN['square']}s.",
            f"{two_ja}空いている{JA['square']}にない{JA['face']}の{JA['dice']}1個で{JA['build']}ことができます"
            f"（{JA['tape']}を敷きます）。"
            f"{JA['first_end']}と{JA['last_end']}の{JA['square']}に{JA['worker']}を置きます。")), [
            field("dice", "multi", EN["dice"].capitalize(), JA["dice"], repeat=True, min=1, max=2 if many else 1,
                  options=_face_options(build_faces)),
            field("tape.faces", "numbers", "Printed faces, from one end to the other",
                  f"{JA['tape']}に印刷された{JA['face']}（{JA['first_end']}から順に）", min=1, max=6),
            field("tape.from", "choice", f"{EN['first_end'].capitalize()} joins", f"{JA['first_end']}の接続先",
                  options=ends),
            field("tape.to", "choice", f"{EN['last_end'].capitalize()} joins", f"{JA['last_end']}の接続先",
                  options=list(ends)),
            *(_bonus_field(state, held, empty) if many else []),
        ], action=text(f"{EN['build'].capitalize()} a {EN['tape']}", JA["build"])))
    if blocked:
        out.append(an_input("pass", [seat], joined(who, text(
            f"{EN['pass']}: spend a die no empty {EN['square']} shows, without building.",
            f"{JA['pass']}: 空いている{JA['square']}にない{JA['face']}の{JA['dice']}は、何もせずに使い切ることもできます。")),
            [field("die", "choice", "Die", JA["dice"], options=_face_options(blocked))],
            action=text(EN["pass"].capitalize(), JA["pass"])))
    return out


def expects(state: State) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    names = seat_names(state)
    out: dict[str, Any] = {"phase": state.phase, "inputs": [], "winners": [names[i] for i in state.winners]}
    if state.phase == "over":
        return out
    assert state.due is not None
    who = names[state.due]
    if state.phase == "throw":
        n = dice_count(state)
        out["inputs"].append(an_input("throw", [who], text(
            f"{who}: {EN['throw']} all {n} {EN['dice']}.", f"{who}: {JA['dice']}{n}個をすべて振ってください。"),
            [field("dice", "dice", EN["dice"].capitalize(), JA["dice"])],
            dice=[{"colour": "*", "sides": 6, "count": n}], camera="all"))
    elif state.phase == "keep":
        keep = len(state.thrown) - len(names) + 1
        out["inputs"].append(an_input("keep", [who], text(
            f"{who}: {EN['keep']} {keep} of {_faces_text(state.thrown)}; one goes to each other player.",
            f"{who}: {JA['dice']} {_faces_ja(state.thrown)} のうち{keep}個を残してください。"
            "残りはほかのプレイヤーに1個ずつ渡します。"),
            [field("dice", "multi", f"{EN['dice'].capitalize()} to {EN['keep']}", f"{JA['keep']}{JA['dice']}",
                   repeat=True, min=keep, max=keep, options=_face_options(state.thrown))]))
    else:
        out["inputs"].extend(_spend_inputs(state, who, _held(state), two=state.phase == "turn"))
    return out


# --- apply -------------------------------------------------------------------------------


def apply(state: State, event: Mapping[str, Any]) -> State:
    """The state after ``event``, or ``IllegalEvent`` saying what was seen and expected."""
    return apply_move(state, event, MOVES, expects)


def _throw(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    dice = dice_from(event["dice"])
    n = dice_count(state)
    if len(dice) != n:
        raise IllegalEvent(f"{name} throws all {n} dice in hand; saw {len(dice)}",
                           f"{name}は手持ちの{JA['dice']}{n}個をすべて振ります（{len(dice)}個でした）")
    faces = tuple(d.face for d in dice)
    state = replace(state, phase="keep", thrown=faces)
    return say(state, f"{name} threw {_faces_text(faces)}", f"{name}が{_faces_ja(faces)}を振った")


def _keep(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    keep = _faces(event["dice"], "keep: dice", f"{JA['keep']}{JA['dice']}")
    count = len(state.thrown) - len(state.seats) + 1
    if len(keep) != count:
        raise IllegalEvent(f"{name} keeps {count} of the {len(state.thrown)} dice thrown "
                           f"(one goes to each other player); saw {len(keep)}",
                           f"{name}が{JA['keep']}のは振った{len(state.thrown)}個のうち{count}個です"
                           f"（ほかのプレイヤーに1個ずつ渡します）。{len(keep)}個でした")
    handed = _take(state.thrown, keep, name, "keep", "残せる")
    state = replace(state, phase="turn", kept=tuple(keep), handed=handed)
    return say(state, f"{name} kept {_faces_text(keep)} and hands on {_faces_text(handed)}",
               f"{name}は{_faces_ja(keep)}を残し、{_faces_ja(handed)}を渡した")


def _spend(state: State, faces: Sequence[int]) -> State:
    """Remove spent dice from the turn player's kept dice or the dice handed on."""
    left = _take(_held(state), faces, state.seats[state.due].name, "spend", "使える")  # type: ignore[index]
    return replace(state, kept=left) if state.phase == "turn" else replace(state, handed=left)


def _advance(state: State) -> State:
    """After a die is spent: the next seat due, the next phase, or the next turn."""
    if state.phase == "over":
        return state
    n = len(state.seats)
    if state.phase == "turn":
        if state.kept:
            return state
        return replace(state, phase="others", due=(state.turn + 1) % n)
    nxt = (state.due + 1) % n  # type: ignore[operator]
    if nxt != state.turn and state.handed:
        return replace(state, due=nxt)
    turn = (state.turn + 1) % n
    state = replace(state, phase="throw", turn=turn, due=turn, thrown=(), kept=(), handed=())
    name, k = state.seats[turn].name, dice_count(state)
    return say(state, f"{name}'s turn: {EN['throw']} {k} {EN['dice']}", f"{name}の{JA['turn']}: {JA['dice']}{k}個を振ってください")


def _check_completion(state: State) -> State:
    now = complete_colours(state)
    new = [c for c in now if c not in state.complete]
    if not new:
        return state
    state = replace(state, complete=now)
    state = say(state, f"{', '.join(new)} {EN['complete']}: {len(now)} of 4 {EN['colour']}s",
                f"{'・'.join(colour_ja(c) for c in new)}の{JA['route']}が{JA['complete']}（{len(now)}/4{JA['colour']}）")
    if len(now) < END_AT:
        return state
    totals = scores(state)
    top = max(totals.values())
    winners = tuple(k for k, name in enumerate(seat_names(state)) if totals[name] == top)
    state = replace(state, phase="over", due=None, winners=winners)
    names = [state.seats[k].name for k in winners]
    return say(state, f"{EN['game_over'].capitalize()}: {' and '.join(names)} won with {top}",
               f"{JA['game_over']}: {'と'.join(names)}の勝ち（{top}点）")


def _die_to_spend(state: State, raw: Any, who: str) -> int:
    face = _face(raw, "die", JA["dice"])
    _take(_held(state), [face], who, "spend", "使える")
    return face


def _place(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    face = _die_to_spend(state, event["die"], name)
    t, k = _empty_square(state, event["square"], face, "place", JA["place"])
    state = _spend(state, [face])
    state = replace(state, owners=_own(state.owners, t, k, i))
    square = event["square"]
    state = say(state, f"{name} placed a {EN['worker']} on {square} with a {face}",
                f"{name}が{face}で{square}に{JA['worker']}を配置した")
    return _advance(_check_completion(state))


def _pass(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    face = _die_to_spend(state, event["die"], name)
    _no_square_fits(state, face, f"{name} may not {EN['pass']} a {face}", f"{name}は{face}を{JA['pass']}できません")
    state = say(_spend(state, [face]), f"{name} passed a {face}", f"{name}は{face}の{JA['dice']}を{JA['pass']}した")
    return _advance(state)


def _no_square_fits(state: State, face: int, en: str, ja: str) -> None:
    """IllegalEvent (``en``/``ja`` and the squares) when an empty square shows ``face``."""
    fits = open_squares(state, face)
    if fits:
        raise IllegalEvent(f"{en}: empty {EN['square']}(s) {', '.join(fits)} show {face}; place there",
                           f"{ja}。{face}の空いている{JA['square']}があります（{', '.join(fits)}）。そこに置いてください")


def _empty_square(state: State, square: Any, face: int, what: str, what_ja: str) -> tuple[int, int]:
    """(tape, index) of ``square`` when it is empty and shows ``face``; else IllegalEvent
    naming the empty squares that do."""
    at = square_at(state, square)
    if at is not None and state.owners[at[0]][at[1]] < 0 and state.tapes[at[0]][0][at[1]] == face:
        return at
    fits = ", ".join(open_squares(state, face))
    tail = text(f"empty squares showing {face}: {fits or 'none'}", f"（{face}の空いている{JA['square']}: {fits or 'なし'}）")
    if at is None:
        raise IllegalEvent(f"{what}: there is no {EN['square']} {short(square)}; {tail['en']}",
                           f"{what_ja}: {JA['square']} {short(square)} はありません{tail['ja']}")
    t, k = at
    if state.owners[t][k] >= 0:
        owner = state.seats[state.owners[t][k]].name
        raise IllegalEvent(f"{what}: {EN['square']} {square} is taken by {owner}; {tail['en']}",
                           f"{what_ja}: {JA['square']} {square} には{owner}の{JA['worker']}がいます{tail['ja']}")
    shown = state.tapes[t][0][k]
    raise IllegalEvent(f"{what}: {EN['square']} {square} shows {shown}, not {face}; {tail['en']}",
                       f"{what_ja}: {JA['square']} {square} の{JA['face']}は{shown}で、{face}ではありません{tail['ja']}")


def _own(owners: tuple[tuple[int, ...], ...], t: int, k: int, seat: int) -> tuple[tuple[int, ...], ...]:
    row = owners[t][:k] + (seat,) + owners[t][k + 1:]
    return owners[:t] + (row,) + owners[t + 1:]


def _end(state: State, raw: Any, which: str, which_ja: str) -> str | None:
    if raw is None or raw in nest_names(state) or square_at(state, raw) is not None:
        return raw
    raise IllegalEvent(f"build: {EN['tape']} end '{which}' is {short(raw)}; expected a {EN['nest']} "
                       f"({', '.join(nest_names(state))}), a built {EN['square']} like t1.2, or null for a {EN['loose_end']}",
                       f"{JA['build']}: {JA['tape']}の{which_ja} {short(raw)} はつなげません。{JA['nest']}"
                       f"（{', '.join(nest_names(state))}）、t1.2 のような敷いた{JA['tape']}の{JA['square']}、"
                       f"または null（{JA['loose_end']}）を書いてください")


def _tape(state: State, tape: Any) -> tuple[list[int], str | None, str | None]:
    """A new tape's faces and ends, checked."""
    if not isinstance(tape, Mapping) or set(tape) != {"faces", "from", "to"}:
        raise IllegalEvent(f"build: {EN['tape']} is {{\"faces\": [...], \"from\": end, \"to\": end}} (an end: a {EN['nest']}, "
                           f"a {EN['square']} like t1.2, or null for a {EN['loose_end']}), saw {short(tape)}",
                           f"{JA['build']}: {JA['tape']}は {{\"faces\": [...], \"from\": 端, \"to\": 端}} で書きます"
                           f"（端は{JA['nest']}、t1.2 のような{JA['square']}、または null）。{short(tape)} でした")
    faces = _faces(tape["faces"], f"build: {EN['tape']} faces", f"{JA['tape']}の{JA['face']}", MAX_TAPE)
    if len(faces) < 2:
        raise IllegalEvent(f"build: a {EN['tape']} has at least 2 {EN['square']}s, saw {len(faces)}",
                           f"{JA['build']}: {JA['tape']}には{JA['square']}が2つ以上必要です（{len(faces)}つでした）")
    on_table = sum(len(f) for f, _, _ in state.tapes)
    if on_table + len(faces) > MAX_SQUARES:
        raise IllegalEvent(f"build: the table holds at most {MAX_SQUARES} {EN['square']}s and has {on_table}; "
                           f"a {EN['tape']} of {len(faces)} does not fit (place or {EN['pass']} the dice)",
                           f"{JA['build']}: 卓に置ける{JA['square']}は最大{MAX_SQUARES}で、いま{on_table}あります。"
                           f"{JA['square']}{len(faces)}個の{JA['tape']}は敷けません（{JA['dice']}は配置か{JA['pass']}に使ってください）")
    start = _end(state, tape["from"], "from", JA["first_end"])
    end = _end(state, tape["to"], "to", JA["last_end"])
    if start is not None and start == end:
        raise IllegalEvent(f"build: both ends of a {EN['tape']} join {start}; join them to two different places",
                           f"{JA['build']}: {JA['tape']}の両端が同じ {start} につながっています。別々の場所につないでください")
    return faces, start, end


def _build(state: State, i: int, event: Mapping[str, Any]) -> State:
    name = state.seats[i].name
    dice = _faces(event["dice"], "build: dice", JA["dice"])
    if len(dice) not in (1, 2):
        raise IllegalEvent(f"build: a {EN['tape']} takes 2 dice, or 1 die whose face no empty square shows; saw {len(dice)}",
                           f"{JA['build']}には{JA['dice']}2個、または空いている{JA['square']}にない{JA['face']}の"
                           f"{JA['dice']}1個を使います（{len(dice)}個でした）")
    if len(dice) == 2 and state.phase != "turn":
        raise IllegalEvent(f"{name} builds with two dice only on their own turn; with a die handed on, "
                           "build with that one die (when no empty square shows it)",
                           f"{JA['dice']}2個で{JA['build']}のは自分の{JA['turn']}だけです。渡された{JA['dice']}では、"
                           f"その{JA['face']}の空いている{JA['square']}がないときに1個で{JA['build']}ことができます")
    _take(_held(state), dice, name, "build with", "使える")
    if len(dice) == 1:
        _no_square_fits(state, dice[0], f"{name} may not build with one {dice[0]}",
                        f"{name}は{dice[0]}の{JA['dice']}1個で{JA['build']}ことはできません")
    faces, start, end = _tape(state, event["tape"])
    bonus = event.get("bonus")
    if bonus is not None and not (len(dice) == 2 and dice[0] == dice[1]):
        raise IllegalEvent(f"build: a {EN['bonus']} {EN['worker']} comes only with {EN['doubles']}; saw {_faces_text(dice)}",
                           f"{JA['build']}: {JA['bonus']}の{JA['worker']}は{JA['doubles']}のときだけです"
                           f"（{_faces_ja(dice)}でした）")
    t = len(state.tapes)
    owners = (i,) + (-1,) * (len(faces) - 2) + (i,)
    built = replace(state, tapes=state.tapes + ((tuple(faces), start, end),), owners=state.owners + (owners,))
    if bonus is not None:
        bt, bk = _empty_square(built, bonus, dice[0], "bonus", JA["bonus"])
        built = replace(built, owners=_own(built.owners, bt, bk, i))
    state = _spend(built, dice)
    loose = f"a {EN['loose_end']}"
    ends = f"{start or loose} to {end or loose}"
    extra = (f", {EN['bonus']} {EN['worker']} on {bonus}", f"、{JA['bonus']}で{bonus}") if bonus is not None else ("", "")
    state = say(state, f"{name} built {EN['tape']} {t + 1} ({_faces_text(faces)}) from {ends}{extra[0]}",
                f"{name}が{JA['tape']}{t + 1}（{_faces_ja(faces)}）を敷いた: {_end_ja(state, start)}〜{_end_ja(state, end)}{extra[1]}")
    return _advance(_check_completion(state))


SPEND = ("turn", "others")
MOVES = {
    "throw": move(_due(_throw), phases=("throw",), required=("seat", "dice")),
    "keep": move(_due(_keep), phases=("keep",), required=("seat", "dice")),
    "build": move(_due(_build), phases=SPEND, required=("seat", "dice", "tape"), optional=("bonus",)),
    "place": move(_due(_place), phases=SPEND, required=("seat", "die", "square")),
    "pass": move(_due(_pass), phases=SPEND, required=("seat", "die")),
}


# --- view --------------------------------------------------------------------------------


def view(state: State, seat: str | None = None) -> dict[str, Any]:
    """The game for the pages and replay (the keys of docs/replay.md)."""
    names = seat_names(state)
    adj, _, nodes = graph(state)
    edges = [[nodes[a], nodes[b]] for a in range(len(adj)) for b in adj[a] if a < b]  # by node, as drawn before
    complete = complete_routes(state)
    out: dict[str, Any] = {
        "game": GAME,
        "phase": state.phase,
        "due": None if state.due is None else names[state.due],
        "turn": names[state.turn],
        "dice": dice_count(state),
        "complete": list(state.complete),
        "workers": {n: names[who] for n, _, who in squares(state) if who is not None},
        "runs": runs(state),
        "scores": scores(state),
        "winners": [names[i] for i in state.winners],
        "seats": [s.as_dict() for s in state.seats],
        "nests": [{"colour": c, "ja": colour_ja(c), "nests": [f"{c}-1", f"{c}-2"]} for c in state.nests],
        "thrown": list(state.thrown),
        "kept": list(state.kept),
        "handed": list(state.handed),
        "tapes": [{"id": t + 1, "faces": list(faces), "from": start, "to": end,
                   "squares": [{"name": square_name(t, k), "face": f,
                                "worker": None if state.owners[t][k] < 0 else names[state.owners[t][k]]}
                               for k, f in enumerate(faces)]}
                  for t, (faces, start, end) in enumerate(state.tapes)],
        "routes": complete,
        "drawing": board.drawing(state.nests, state.tapes, edges),
        "log": log_lines(state),
    }
    held = _held(state) if state.phase in SPEND else ()
    out["open"] = sorted({n for f in set(held) for n in open_squares(state, f)})
    if seat is not None:
        out["mine"] = seat_view(state, seat)[1]
    return out


def scene(state: State) -> dict[str, Any]:
    """What the page draws beyond the view (docs/contracts.md, ``scene``): the network laid
    out on a grid, each nest and square in a cell of its own (``at``: name -> [x, y]), and
    every complete route with its colour, nest to nest."""
    complete = complete_routes(state)
    return {"board": {**board.board(state.nests, state.tapes),
                      "routes": [{"colour": c, "nodes": [f"{c}-1", *path, f"{c}-2"]}
                                 for c, paths in complete.items() for path in paths]}}
