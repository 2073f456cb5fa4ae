"""Turning dice into the throw the game waits for: a settled roll of the camera (which dice
are new, which were picked up and thrown again, whose throw it is when several seats may
throw), dice the camera cannot read typed by their owners, a layout read from the camera,
and throws typed or corrected by hand.

It knows no game: the throw inputs of ``expects`` say which dice a throw must show and
which dice of a roll it takes (``camera``: new, all, rethrown). Every throw reaches the
game through ``table.apply``; this module keeps what the pages show as the last throw:
always the dice the game applied (a typed throw's typed dice, a corrected throw's
corrected faces, on the camera's picture too), or a roll the camera read that the game
waited for but could not take (with the prompt that says why).
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, Mapping, Sequence

from pi import inputs
from pi.inputs import InputError
from pi.ledger import source_words
from pi.words import Result, error, no_game, ok

log = logging.getLogger(__name__)

# Settled-roll statuses (vision.settle): the die was not on the table before, was moved, or
# lay still since the last settled roll.
NEW, RETHROWN, STILL = "new", "rethrown", "still"


@dataclass
class RollDie:
    """One die of a settled roll as the table keeps it (JSON-able through ``as_dict``)."""

    id: Any
    colour: str | None
    face: int
    box: tuple[float, float, float, float]
    confidence: float
    status: str
    cocked: bool
    sides: int = 6

    def as_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "colour": self.colour,
            "face": self.face,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
            "status": self.status,
            "cocked": self.cocked,
        }
        if self.sides != 6:
            out["sides"] = self.sides
        return out


@dataclass(frozen=True)
class Shown:
    """What the pages show as the last throw."""

    dice: list[RollDie]
    frame: Any = None  # the camera's frame the dice lie on (None: typed, or read before a restart)
    source: str | None = None  # how the throw came in (pi.ledger.SOURCES); None: not taken by the game
    index: int | None = None  # the throw's place in the game's ledger
    ids: list[Any] | None = None  # the ids of the dice of ``dice`` the throw took, in its order

    def as_dict(self) -> dict[str, Any]:
        """For the pages: how the throw came in, and whether /roll.jpg shows it."""
        return {"source": self.source, "words": source_words(self.source), "picture": self.frame is not None}


class Throws:
    """The dice side of ``table`` (a ``pi.table.Table``); every method that changes
    something is called with the table's lock held, or takes it."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.last_roll: list[RollDie] | None = None  # the camera's last settled roll
        self.last_roll_frame: Any = None
        self.prompt: dict[str, str] | None = None  # why the last roll was not applied
        self.prompt_dice: list[dict[str, Any]] = []  # the readable dice of that roll
        self.accepted_ids: set[Any] = set()  # dice of this round already taken in
        # A throw whose d6 the camera read while the dice it cannot read (d10, d20) are
        # still to be typed by their owners: {"input", "dice", "missing": {seat: [(colour, sides)]}}.
        self.pending: dict[str, Any] | None = None
        # Several seats may throw at once with dice alike: the seat that claimed the next
        # roll, and a roll waiting for its thrower.
        self.claimed: str | None = None
        self.unclaimed: tuple[list[RollDie], Mapping[Any, RollDie]] | None = None
        self.shown: Shown | None = None  # the last throw, as the pages show it

    def forget(self) -> None:
        """A new game, an undo or a restart: nothing of this round is waiting any more, and
        the last throw shown is the game's last throw still in force."""
        self.prompt = None
        self.pending = None
        self.claimed, self.unclaimed = None, None
        self.accepted_ids = set()
        ledger = self.table.ledger
        entries = ledger.entries if ledger is not None else []
        if self.shown is None or self.shown.index is None or self.shown.index >= len(entries):
            last = next((k for k in range(len(entries) - 1, -1, -1) if entries[k].throw), None)
            self.shown = None if last is None else self._applied(last, entries[last].source)

    def applied_by_hand(self, index: int, source: str) -> None:
        """The throw at ``index`` of the ledger was typed: it is the last throw now, and the
        dice lying on the table were taken in by hand, so later new dice are the ones the
        camera has not seen yet, and no roll waits for its thrower."""
        self.prompt, self.unclaimed = None, None
        self.shown = self._applied(index, source)
        if self.last_roll:
            self.accepted_ids |= {d.id for d in self.last_roll}
        self.round_over_check()

    def _applied(self, index: int, source: str | None, on: Shown | None = None, ids: list[Any] | None = None) -> Shown:
        """The throw at ``index`` of the ledger as the pages show it: on the dice of ``on``
        (a camera read), the dice of ids ``ids`` relabelled with the faces the game applied;
        without a picture when there is no such read or the dice do not pair up."""
        applied = [_die(d) for d in _dice_of(self.table.ledger.entries[index])]
        if on is not None and on.frame is not None and ids is not None and None not in ids and len(ids) == len(applied):
            by_id = dict(zip(ids, applied))
            dice = [replace(d, colour=a["colour"], face=a["face"], sides=a.get("sides", 6), cocked=False)
                    if (a := by_id.get(d.id)) is not None else d for d in on.dice]
            return Shown(dice, on.frame, source, index, ids)
        dice = [RollDie(None, a["colour"], a["face"], (0, 0, 0, 0), 1.0, NEW, False, a.get("sides", 6)) for a in applied]
        return Shown(dice, None, source, index)

    # ------------------------------------------------------------------ the camera

    def settled_roll(self, roll: Any, frame: Any = None) -> Result:
        """A settled roll from vision: kept for statistics, shown, and (when the game
        waits for a throw and the dice fit) turned into that throw's event."""
        table = self.table
        dice = [roll_die(d) for d in getattr(roll, "dice", roll)]
        with table._lock:
            before = {d.id: d for d in self.last_roll or []}
            self.last_roll, self.last_roll_frame = dice, frame
            game_id = table.record.id if table.record else None
            try:
                table.store.record_roll(game_id, [d.as_dict() for d in dice], source="camera")
            except Exception as exc:  # statistics must never stop the game
                log.warning("could not record a roll: %s", exc)
            result = self._roll_to_throw(dice, before)
        table.after_change()
        return result

    def _roll_to_throw(self, dice: list[RollDie], before: Mapping[Any, RollDie]) -> Result:
        table = self.table
        throws = inputs.throw_inputs(table.expects_now())
        if not throws or not dice:
            return ok(applied=False)
        self.shown = Shown(dice, self.last_roll_frame)  # the game waits for these: shown as read until taken
        rethrown = [d for d in dice if d.status == RETHROWN and d.id in self.accepted_ids]
        rethrowers = _throwers(throws, rethrow=True) if rethrown else []
        throwers = rethrowers or _throwers(throws)
        if not throwers:
            return ok(applied=False)
        inp = self._whose(throwers, rethrown if rethrowers else [])
        if inp is None:  # several seats may throw now: whose dice are these?
            self.unclaimed = (dice, before)
            who = [seat for _, seat in throwers if seat is not None]
            self.prompt = {
                "en": f"Several seats may throw now ({', '.join(who)}) and the dice do not tell whose throw "
                      "this is: the thrower taps \"This was my throw\" on their seat page.",
                "ja": f"いま振れる席が複数あり（{'、'.join(who)}）、ダイスからは誰の振りか分かりません。"
                      "振った人は自分の席のページで「これは自分の振りです」を押してください。",
            }
            return ok(applied=False, waiting=who)
        self.unclaimed, self.claimed = None, None
        mode = inp.get("camera", "new")
        if mode == "all":
            chosen = dice
        elif mode == "rethrown":
            chosen = rethrown
        else:
            chosen = [d for d in dice if d.id not in self.accepted_ids and d.status != STILL] or [
                d for d in dice if d.id not in self.accepted_ids]
        self.prompt_dice = [inputs.die_dict(d) for d in chosen if inputs.readable(d)]
        if getattr(table.camera.detector, "reads_sides", False):
            chosen, unread = inputs.unsure_part(inp, chosen)  # d10/d20 it is unsure of are typed
        else:
            unread = inputs.unread_part(inp)
        if unread:
            return self._camera_part(inp, chosen, unread, before)
        problem = inputs.dice_problem(inp, chosen)
        if problem is None:
            try:
                event = inputs.camera_event(inp, chosen, before, table.seat_colours())
            except InputError as exc:
                problem = exc.message
        if problem is not None:
            self.prompt = problem
            return {"ok": False, "error": problem}
        index = len(table.ledger.entries)
        result = table.apply(event, "camera")
        if not result["ok"]:
            self.prompt = result["error"]
            return result
        self.prompt = None
        self.shown = self._applied(index, "camera", Shown(dice, self.last_roll_frame), [d.id for d in chosen])
        if mode == "all":
            self.accepted_ids = {d.id for d in dice}
        else:
            self.accepted_ids |= {d.id for d in chosen}
        self.round_over_check()
        return result

    def _whose(self, throwers: Sequence[tuple[dict[str, Any], str | None]], moved: Sequence[RollDie]) -> dict[str, Any] | None:
        """The input of the throw these dice are (``throwers``: who may throw now; ``moved``:
        the dice thrown again, for a rethrow): the only one due, else the seat whose colour
        every moved die has (each seat rethrows its own dice), else the seat that claimed
        the throw; None when it cannot be told."""
        if len(throwers) == 1:
            return throwers[0][0]
        colours = self.table.seat_colours()
        owners = [i for i, seat in throwers if moved and all(d.colour == colours.get(seat) for d in moved)]
        if len(owners) == 1:
            return owners[0]
        return next((i for i, seat in throwers if seat is not None and seat == self.claimed), None)

    def claim(self, seat: str) -> Result:
        """``seat`` says the dice on the tray (or the next ones) are its throw, when several
        seats may throw at once and their dice look alike."""
        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            if seat not in self._claimants(inputs.throw_inputs(table.expects_now())):
                return error("You have no throw to make now.", "いまあなたが振る番ではありません。")
            self.claimed = seat
            pending, self.unclaimed = self.unclaimed, None
            result = self._roll_to_throw(*pending) if pending else ok(applied=False)
        table.after_change()
        return result

    def claimable(self, expects: Mapping[str, Any] | None, seat: str | None) -> bool:
        """Whether ``seat`` may say "this was my throw" (several seats may throw now)."""
        return seat is not None and seat in self._claimants(inputs.throw_inputs(expects))

    def _claimants(self, throws: Sequence[Mapping[str, Any]]) -> set[str]:
        """The seats that may say "this was my throw": those of the throws several seats may
        make now, and of the rethrows while a roll waits for its thrower (each seat rethrows
        its own dice, so their colour tells whose they are all but always)."""
        rounds = (False, True) if self.unclaimed is not None else (False,)
        return {seat for rethrow in rounds if len(pairs := _throwers(throws, rethrow)) > 1
                for _, seat in pairs if seat is not None}

    def read_layout(self, seat: str) -> Result:
        """``seat``'s dice laid flat under the camera (the last settled roll), placed on the
        grid of its input's ``layout`` field (e.g. a pyramid's rows), sent as that input."""
        from vision.grid import LayoutError, place_rows

        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            found = [(i, f) for i in inputs.for_seat(table.expects_now(), seat)
                     for f in i.get("fields", []) if f.get("kind") == "layout"]
            if not found:
                return error("The game is not waiting for a layout from you.", "いまはあなたの配置を待っていません。")
            inp, field = found[0]
            dice = [d for d in self.last_roll or [] if inputs.readable(d)]
            unread = len(self.last_roll or []) - len(dice)
            if unread:
                return error(f"The camera cannot read {unread} of the dice (cocked?); straighten them and try again.",
                             f"カメラが{unread}個のダイスを読めません（傾いている？）。直してからもう一度押してください。")
            try:
                placed = place_rows(dice, tuple(field.get("rows", ())))
            except LayoutError as exc:
                return error(f"The camera cannot place the dice: {exc}.", f"ダイスの配置を読み取れません: {exc}")
            rows = [[inputs.die_dict(dice[i]) if i is not None else None for i in row] for row in placed.rows]
        return table.act(seat, inp["type"], {field["name"]: rows}, source="camera")

    # ------------------------------------------------------------------ dice typed by their owners

    def _camera_part(self, inp: dict[str, Any], chosen: list[RollDie], unread: list[tuple[str, int, int]],
                     before: Mapping[Any, RollDie]) -> Result:
        """A throw with dice the camera cannot read (d10, d20 ``unread``): take the others
        from the camera and wait for each owner to type these on their seat page
        (``type_faces``). ``before``: the roll's dice as they lay before (a rethrow's
        ``picked``)."""
        rest = inputs.without(inp, unread)
        # A throw of any size may be of those dice only: nothing read is then no problem.
        problem = inputs.dice_problem(rest, chosen) if chosen or rest.get("dice") is not None else None
        if problem is not None:
            self.prompt = problem
            return {"ok": False, "error": problem}
        owners = {c: n for n, c in self.table.seat_colours().items()}
        missing: dict[str | None, list[tuple[str, int]]] = {}
        for colour, sides, n in unread:
            missing.setdefault(owners.get(colour), []).extend([(colour, sides)] * n)
        self.pending = {"input": inp, "dice": [inputs.die_dict(d) for d in chosen], "missing": missing,
                        "ids": [d.id for d in chosen], "before": before}
        who = [s for s in missing if s is not None]
        kinds = "/".join(sorted({f"d{sd}" for v in missing.values() for _, sd in v}))
        self.prompt = {
            "en": f"The camera read the other dice. {', '.join(who) or 'The host'}: type your "
                  f"{kinds} on your seat page.",
            "ja": f"ほかのダイスはカメラが読みました。{'、'.join(who) or 'ホスト'}: "
                  f"{kinds}の目を自分の席のページで入力してください。",
        }
        return ok(applied=False, waiting=who)

    def type_faces(self, seat: str | None, faces: Sequence[Any]) -> Result:
        """``seat``'s typed faces of its dice the camera cannot read, in the order
        ``pending_for(seat)`` lists them; the throw is applied once every owner has typed."""
        table = self.table
        with table._lock:
            pending = self.pending
            wanted = pending["missing"].get(seat) if pending else None
            if not wanted:
                return error("No dice of yours are waiting to be typed.", "入力を待っているダイスはありません。")
            if len(faces) != len(wanted):
                return error(f"Type {len(wanted)} face(s), one per die.", f"ダイス1個につき1つ、{len(wanted)}個の目を入力してください。")
            typed = []
            for (colour, sides), face in zip(wanted, faces):
                try:
                    face = int(face)
                except (TypeError, ValueError):
                    face = None
                if face not in inputs.FACES[sides]:
                    faces_range = inputs.FACES[sides]
                    return error(f"A d{sides} shows {faces_range[0]} to {faces_range[-1]}.",
                                 f"d{sides}の目は{faces_range[0]}〜{faces_range[-1]}です。")
                typed.append({"colour": colour, "face": face, "sides": sides})
            pending["dice"] = pending["dice"] + typed
            pending["missing"] = {k: v for k, v in pending["missing"].items() if k != seat}
            if pending["missing"]:
                result = ok(applied=False)
            else:
                inp, dice, read_ids = pending["input"], pending["dice"], pending["ids"]
                read = Shown(self.last_roll or [], self.last_roll_frame)
                ids = read_ids + _typed_ids(read.dice, read_ids, dice[len(read_ids):])
                thrown = [SimpleNamespace(id=i, **_die(d)) for i, d in zip(ids, dice)]
                index = len(table.ledger.entries)
                try:
                    event = inputs.camera_event(inp, thrown, pending["before"], table.seat_colours())
                except InputError as exc:
                    result = {"ok": False, "error": exc.message}
                else:
                    result = table.apply(event, "camera_typed")
                if result["ok"]:
                    self.prompt = None
                    self.accepted_ids |= set(read_ids)
                    self.shown = self._applied(index, "camera_typed", read, ids)
                    self.round_over_check()
                else:
                    self.pending = None
                    self.prompt = result["error"]
        table.after_change()
        return result

    def pending_for(self, seat: str | None) -> list[dict[str, Any]]:
        """The dice ``seat`` must type because the camera cannot read them."""
        with self.table._lock:
            if not self.pending:
                return []
            return [{"colour": c, "sides": s} for c, s in self.pending["missing"].get(seat, [])]

    # ------------------------------------------------------------------ rounds

    def round_over_check(self) -> None:
        """When the throws of a round are over, the next dice that land are all new."""
        if not inputs.throw_inputs(self.table.expects_now()):
            self.accepted_ids = set()
            self.table.camera.new_round()

    def round_is_fresh(self) -> bool:
        """No die of this round has been taken in yet (the tray can be cleared)."""
        with self.table._lock:
            return not self.accepted_ids

    # ------------------------------------------------------------------ by hand

    def typed(self, dice: Sequence[Mapping[str, Any]], seat: str | None = None) -> Result:
        """Dice typed by the host (camera down, or a misread throw) for the throw due now."""
        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            due = [i for i in inputs.throw_inputs(table.expects_now()) if i.get("camera") != "rethrown"]
            if not due:
                return error("The game is not waiting for a throw.", "いまはダイスを振る場面ではありません。")
            inp = next((i for i in due if seat in i.get("seats", [])), due[0])
            values: dict[str, Any] = {inputs.dice_field(inp): [dict(d) for d in dice]}
            if seat is not None:
                values["seat"] = seat
        return table.act(None, inp["type"], values, source="typed")

    def correct(self, dice: Sequence[Mapping[str, Any]]) -> Result:
        """Replace the dice of the last throw with the dice the host typed (what followed it
        is made again: the forced moves, and the secret choices nobody has seen)."""
        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            index = self._last_throw()
            if index is None:
                return error("The last event is not a throw; undo the later events first.",
                             "最後の操作はダイスの振りではありません。先に後の操作を取り消してください。")
            entry = table.ledger.entries[index]
            result = table.lifecycle.replace(index, _with_dice(entry.event, entry.throw, dice), "corrected")
            if result["ok"]:
                self.prompt = None
                on = self.shown if self.shown is not None and self.shown.index == index else None
                self.shown = self._applied(index, "corrected", on, on.ids if on else None)
        table.after_change()
        return result

    def _last_throw(self) -> int | None:
        """The index of the last action everyone has seen when it is a throw (a seat
        locking a secret choice since does not hide it: nobody may tell that it did)."""
        index = self.table.ledger.last_action()
        return index if index is not None and self.table.ledger.entries[index].throw else None

    def last_throw_dice(self) -> list[dict[str, Any]]:
        """The dice of the last event when it is a throw: what ``correct`` replaces."""
        table = self.table
        with table._lock:
            if table.record is None:
                return []
            index = self._last_throw()
            return [] if index is None else _dice_of(table.ledger.entries[index])

    # ------------------------------------------------------------------ pictures

    def roll_jpeg(self) -> bytes | None:
        """The camera's picture of the last throw, each die labelled as the game took it."""
        with self.table._lock:
            shown = self.shown
        return None if shown is None else self.table.camera.roll_jpeg(shown.frame, shown.dice)


def _dice_of(entry: Any) -> list[Any]:
    """The thrown dice of a throw's ledger entry (its field may be dotted)."""
    value = entry.event
    for key in entry.throw.split("."):
        value = value.get(key) if isinstance(value, Mapping) else None
    return list(value) if isinstance(value, list) else []


def _die(d: Any) -> dict[str, Any]:
    """A die of an event (``{"colour", "face"[, "sides"]}`` or ``[colour, face(, sides)]``) as a dict."""
    if isinstance(d, Mapping):
        return {"colour": d.get("colour"), "face": d.get("face"), "sides": int(d.get("sides", 6) or 6)}
    return {"colour": d[0], "face": d[1], "sides": int(d[2]) if len(d) > 2 and d[2] else 6}


def _typed_ids(roll: Sequence[RollDie], taken: Sequence[Any], typed: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The ids of the dice of ``roll`` the camera could not read that ``typed`` dice (in
    order) stand for: the first unread die of the same colour and sides not ``taken``."""
    used = set(taken)
    out = []
    for t in typed:
        found = next((d.id for d in roll if d.id not in used and d.colour == t["colour"]
                      and d.sides == t.get("sides", 6) and not inputs.readable(d)), None)
        used.add(found)
        out.append(found)
    return out


def _with_dice(event: Mapping[str, Any], name: str, dice: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``event`` with its thrown-dice field ``name`` (maybe dotted) set to ``dice``."""
    out = json.loads(json.dumps(event))
    *outer, last = name.split(".")
    place = out
    for key in outer:
        place = place.setdefault(key, {})
    place[last] = [dict(d) for d in dice]
    return out


def _throwers(throws: Sequence[Mapping[str, Any]], rethrow: bool = False) -> list[tuple[dict[str, Any], str | None]]:
    """Who may make each throw due now (``rethrow``: each rethrow due now, else each other
    throw): (input, seat) pairs, one per seat; a group's throw is one pair with seat None."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for inp in throws:
        if (inp.get("camera") == "rethrown") != rethrow:
            continue
        if inp.get("together") or len(inp.get("seats", [])) <= 1:
            out.append((dict(inp), (inp.get("seats") or [None])[0] if not inp.get("together") else None))
        else:
            out.extend((dict(inp, seats=[seat]), seat) for seat in inp["seats"])
    return out


def roll_die(d: Any) -> RollDie:
    """A die of a settled roll (a ``vision.settle.TrackedDie`` or a dict) as the table keeps it."""
    get = (lambda k, default=None: d.get(k, default)) if isinstance(d, Mapping) else (
        lambda k, default=None: getattr(d, k, default))
    face = get("face", 0)
    face = 0 if face is None else int(face)
    sides = int(get("sides", 6) or 6)
    return RollDie(
        id=get("id"),
        colour=get("colour"),
        face=face,
        box=tuple(get("box", (0, 0, 0, 0))),
        confidence=float(get("confidence", 1.0)),
        status=get("status", NEW),
        cocked=bool(get("cocked", False)) or (face == 0 and sides != 10),
        sides=sides,
    )
