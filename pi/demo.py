"""The demo's hands at the synthetic table: what players do with real dice, done for them on
`vision.camera.SyntheticTable`, so that the real detector reads it back through the camera
loop as it would read a real tray.

- `throw(seat=None)`: random faces for a throw that is due, thrown onto the tray: for
  `seat` (its seat page: its own throw, or its group's), else for whoever must throw (the
  status page: the seat that tapped "This was my throw", else the first one due). The demo
  claims the throw for the seat it threw for, so the table knows whose dice landed when
  several seats may throw at once. A rethrow due is made as by `rethrow()`.
- `rethrow(seat, values)`: the seat picks up dice of its own colour on the tray (those its
  rethrow form picked, else some of its six-sided dice at random) and throws them again, so
  the camera sees them move and reads them as rethrown.
- `lay_out(seat, values)`: the dice the seat tapped into its layout pad are laid flat in
  their rows, alone on the tray, for "Read my layout".
- `stall_camera()` / `resume_camera()`: the synthetic camera hangs (gives no frames) and
  comes back, to see the camera loop, the watchdog and /healthz deal with it.

Dice the synthetic table cannot draw (a colour it does not have), or that the detector
cannot read (d10 and d20 with an older model), and every throw without a detector, are
applied as typed dice. The demo
knows no game: what is due, who throws and what a field holds come from ``expects``.
"""
from __future__ import annotations

import random
import threading
from types import SimpleNamespace
from typing import Any, Mapping

from pi import inputs
from pi.inputs import InputError
from pi.words import Result, error, ok


class Demo:
    def __init__(self, table: Any, synthetic: Any, detector: Any, rng: random.Random | None = None) -> None:
        self.table = table
        self.synthetic = synthetic
        self.detector = detector
        self.rng = rng or random.Random()
        self._lock = threading.Lock()
        # The throw the camera has not applied yet: (thrower, input type, its values typed).
        self._thrown: tuple[str | None, str, dict[str, Any]] | None = None

    @property
    def pending(self) -> bool:
        with self._lock:
            return self._thrown is not None

    def forget(self) -> None:
        with self._lock:
            self._thrown = None

    # ------------------------------------------------------------------ throws

    def throw(self, seat: str | None = None) -> Result:
        """Throw random faces for `seat`'s throw (None: whoever must throw now)."""
        inp = due_throw(self.table.expects_now(), seat, self.table.throws.claimed)
        if inp is None:
            if seat is not None:
                return error("You have no throw to make now.", "いまあなたが振る番ではありません。")
            return error("Nobody has to throw right now.", "いまはダイスを振る人がいません。")
        if inp.get("camera") == "rethrown":
            return self.rethrow(inp["seats"][0])
        seat_colours = self.table.seat_colours()
        colours = [seat_colours[s] for s in inp.get("seats", []) if s in seat_colours] or ["white"]
        dice: list[dict[str, Any]] = []
        for colour, sides, n in [(d.get("colour", "*"), int(d.get("sides", 6)), int(d.get("count", 0)))
                                 for d in inp.get("dice") or []]:
            for k in range(n):
                die = {"colour": colours[k % len(colours)] if colour == "*" else colour,
                       "face": self.rng.choice(inputs.FACES[sides])}
                if sides != 6:
                    die["sides"] = sides
                dice.append(die)
        thrower = inputs.seat_value(inp).get("seat")
        values = {inputs.dice_field(inp): dice}
        if self.synthetic is not None and self._drawable(dice):
            from vision.synth import TrayFull

            reroll = inp.get("camera") == "all"
            if not reroll and self.table.round_is_fresh():
                self.synthetic.clear()  # the players collected the last round's dice
            try:
                self.synthetic.throw([(d["colour"], d["face"], d.get("sides", 6)) for d in dice], rethrow_all=reroll)
            except TrayFull as exc:
                return _tray_full(exc)
            if self.detector is not None:
                if thrower is not None:
                    self.table.claim_throw(thrower)  # the demo knows whose throw it rolled
                return self._wait_for_camera(thrower, inp["type"], values, thrown=dice)
        return self.table.act(thrower, inp["type"], values, source="typed")

    def rethrow(self, seat: str, values: Any = None) -> Result:
        """`seat` picks up dice of its colour on the tray and throws them again: those its
        rethrow form picked (`values`, the form or a JSON body), else some of its d6 at
        random (a special die is the player's own choice)."""
        inp = next((i for i in inputs.for_seat(self.table.expects_now(), seat) if i.get("camera") == "rethrown"), None)
        if inp is None:
            return error("You have no dice to throw again now.", "いまは振り直せるダイスがありません。")
        if self.synthetic is None:
            return _no_tray()
        field = next((f for f in inp.get("fields", []) if f.get("kind") == "picked"), None)
        try:
            wanted = given(inp, field, seat, values) if field is not None else None
        except InputError as exc:
            return {"ok": False, "error": exc.message}
        colour = self.table.seat_colours().get(seat)
        tray = self.synthetic.dice
        mine = [i for i, d in enumerate(tray) if d[0] == colour]
        names = {str(name): int(sides) for sides, name in ((field or {}).get("names") or {}).items()}
        if wanted:
            chosen: list[int] = []
            for item in wanted:
                sides = names.get(str(item), 6)
                face = None if str(item) in names else item
                i = next((i for i in mine if i not in chosen and tray[i][5] == sides
                          and (face is None or str(tray[i][1]) == str(face))), None)
                if i is None:
                    return error(f"None of your dice on the tray is a {item} to pick up.",
                                 f"トレイに拾える「{item}」のダイスがありません。")
                chosen.append(i)
        else:
            d6 = [i for i in mine if tray[i][5] == 6]
            if not d6:
                return error("Choose the dice to pick up first: the demo picks only six-sided dice by itself.",
                             "先に拾うダイスを選んでください。デモが自分で選ぶのは6面体だけです。")
            chosen = self.rng.sample(d6, self.rng.randint(1, len(d6)))
        faces = [self.rng.choice(inputs.FACES[tray[i][5]]) for i in chosen]
        before = {k: SimpleNamespace(face=tray[i][1], sides=tray[i][5]) for k, i in enumerate(chosen)}
        landed = [SimpleNamespace(id=k, colour=tray[i][0], face=f, sides=tray[i][5])
                  for k, (i, f) in enumerate(zip(chosen, faces))]
        try:  # the event the camera makes of it, for a typed throw (or `apply_thrown`)
            event = inputs.camera_event(inp, landed, before, self.table.seat_colours())
        except InputError as exc:
            return {"ok": False, "error": exc.message}
        from vision.synth import TrayFull

        typed = {k: v for k, v in event.items() if k not in ("type", "seat")}
        if not self._drawable([{"colour": d.colour, "sides": d.sides} for d in landed]) or self.detector is None:
            return self.table.act(seat, inp["type"], typed, source="typed")
        try:
            self.synthetic.rethrow(chosen, faces)
        except TrayFull as exc:
            return _tray_full(exc)
        return self._wait_for_camera(seat, inp["type"], typed, thrown=typed[inputs.dice_field(inp)])

    def lay_out(self, seat: str, values: Any) -> Result:
        """Lay the dice `seat` placed in its layout field (`values`: its form or a JSON
        body) flat on the tray, row by row as placed and alone there, for the camera to read
        when the seat taps "Read my layout"."""
        expects = self.table.expects_now()
        found = [(i, f) for i in inputs.for_seat(expects, seat) for f in i.get("fields", []) if f.get("kind") == "layout"]
        if not found:
            return error("The game is not waiting for a layout from you.", "いまはあなたの配置を待っていません。")
        throwing = [s for i in inputs.throw_inputs(expects) if i.get("camera") != "rethrown" for s in i.get("seats", [])]
        if throwing:
            return error(f"Lay out your dice once every throw is made ({', '.join(throwing)} still to throw): "
                         "the camera would take your layout for a throw.",
                         f"全員が振り終えてから並べてください（まだ振っていない席: {'、'.join(throwing)}）。"
                         "カメラが配置を振りと取り違えます。")
        if self.synthetic is None:
            return _no_tray()
        inp, field = found[0]
        try:
            rows = _rows(given(inp, field, seat, values), field.get("rows") or [])
        except InputError as exc:
            return {"ok": False, "error": exc.message}
        if not any(d is not None for row in rows for d in row):
            return error("Tap your dice into their places first; the demo lays them out as placed.",
                         "先にダイスを配置の場所にタップしてください。デモはそのとおりに並べます。")
        try:
            laid = self.synthetic.lay_out(rows)
        except ValueError as exc:
            return error(f"The demo cannot lay out these dice: {exc}.", f"このダイスは並べられません: {exc}")
        self.table.publish()
        return ok(laid=len(laid))

    def apply_thrown(self) -> Result:
        """Apply the demo's last throw as typed dice (when the camera misread it)."""
        with self._lock:
            thrown = self._thrown
        if thrown is None:
            return error("There is no demo throw waiting.", "待っているデモの振りはありません。")
        seat, type_, values = thrown
        return self.table.act(seat, type_, dict(values), source="typed")

    # ------------------------------------------------------------------ faults

    def stall_camera(self) -> Result:
        """The synthetic camera stops giving frames, as a hung camera does (the camera loop
        restarts it, the watchdog stops, /healthz answers 503) until `resume_camera`."""
        if self.synthetic is None or not hasattr(self.synthetic, "stall"):
            return _no_tray()
        self.synthetic.stall()
        self.table.publish()
        return ok()

    def resume_camera(self) -> Result:
        if self.synthetic is None or not hasattr(self.synthetic, "resume"):
            return _no_tray()
        self.synthetic.resume()
        self.table.publish()
        return ok()

    # ------------------------------------------------------------------ helpers

    def _drawable(self, dice: list[Mapping[str, Any]]) -> bool:
        """Whether the tray can draw `dice` for the camera: colours it has, and d10 and d20
        only when the detector reads them."""
        sides = getattr(self.detector, "reads_sides", False) or all(d.get("sides", 6) == 6 for d in dice)
        return sides and all(d["colour"] in self.synthetic.colours for d in dice)

    def _wait_for_camera(self, seat: str | None, type_: str, values: dict[str, Any], thrown: list[Any]) -> Result:
        with self._lock:
            self._thrown = (seat, type_, values)
        self.table.publish()
        return ok(thrown=thrown)


def due_throw(expects: Mapping[str, Any] | None, seat: str | None, claimed: str | None = None) -> dict[str, Any] | None:
    """The throw to make now, narrowed to its thrower when each seat throws its own: `seat`'s
    (its own, or its group's), else the claimed seat's, else the first one due; a rethrow
    (narrowed likewise) only when no throw is due."""
    throws = [i for i in inputs.throw_inputs(expects) if seat is None or seat in i.get("seats", [])]
    due = []
    for inp in throws:
        if inp.get("camera") == "rethrown":
            continue
        if inp.get("together") or len(inp.get("seats", [])) <= 1:
            due.append(inp)
        else:
            due.extend(dict(inp, seats=[s]) for s in inp["seats"] if seat in (None, s))
    rethrows = [dict(i, seats=[seat or i["seats"][0]]) for i in throws if i.get("camera") == "rethrown" and i.get("seats")]
    mine = seat or claimed
    return next((i for i in due if mine in i.get("seats", [])), None) or next(iter(due + rethrows), None)


def given(inp: Mapping[str, Any], field: Mapping[str, Any], seat: str, values: Any) -> Any:
    """The value of `field` of `inp` in a form or JSON body (None when it was left out or
    blank), read as the table reads it; InputError when it cannot be read."""
    name = field["name"]
    raw = values.get(name) if hasattr(values, "get") else None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    bare = {k: v for k, v in field.items() if k != "default"}
    return inputs.event_from_values(dict(inp, fields=[bare]), seat, {name: raw})[name]


def _rows(raw: Any, sizes: list[int]) -> list[list[tuple[Any, Any, Any] | None]]:
    """A layout value (rows of dice or None, bottom first) as (colour, face, sides) places;
    InputError when it is not shaped like the field's rows."""
    if raw is None:
        return [[None] * int(n) for n in sizes]
    shape = ", ".join(str(n) for n in sizes)
    if not isinstance(raw, list) or len(raw) != len(sizes) or any(
            not isinstance(row, list) or len(row) != int(n) for row, n in zip(raw, sizes)):
        raise InputError(f"A layout has rows of {shape} places, bottom first.",
                         f"配置は下から {shape} 個の場所の段です。")
    out: list[list[tuple[Any, Any, Any] | None]] = []
    for row in raw:
        places: list[tuple[Any, Any, Any] | None] = []
        for die in row:
            if die is None:
                places.append(None)
            elif isinstance(die, Mapping):
                places.append((die.get("colour"), die.get("face"), die.get("sides", 6)))
            elif isinstance(die, list) and len(die) in (2, 3):
                places.append((die[0], die[1], die[2] if len(die) == 3 else 6))
            else:
                raise InputError(f"A place holds {die!r}, not a die.", f"場所に {die!r} があります。ダイスではありません。")
        out.append(places)
    return out


def _tray_full(exc: Exception) -> Result:
    return error(f"The demo tray cannot take these dice ({exc}). Collect some: start a new round or game.",
                 f"デモのトレイにこのダイスは入りません（{exc}）。新しいラウンドかゲームで片付けてください。")


def _no_tray() -> Result:
    return error("The demo has no tray here: send your dice with the form.",
                 "ここにはデモのトレイがありません。フォームでダイスを送ってください。")
