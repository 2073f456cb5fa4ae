"""The demo's throw: random faces for the dice the game waits for, rolled onto the synthetic
table so that the real detector reads them back through the camera loop (or applied as
typed dice where there is no detector, or for dice the synthetic table cannot draw)."""
from __future__ import annotations

import random
import threading
from typing import Any

from pi import inputs
from pi.words import Result, error, ok


class Demo:
    def __init__(self, table: Any, synthetic: Any, detector: Any, rng: random.Random | None = None) -> None:
        self.table = table
        self.synthetic = synthetic
        self.detector = detector
        self.rng = rng or random.Random()
        self._lock = threading.Lock()
        self._thrown: list[dict[str, Any]] = []  # the throw the camera has not applied yet

    @property
    def pending(self) -> bool:
        with self._lock:
            return bool(self._thrown)

    def forget(self) -> None:
        with self._lock:
            self._thrown = []

    def throw(self) -> Result:
        """Roll random faces for whoever must throw now (not a rethrow of picked dice: that
        is typed on the seat page)."""
        expects = self.table.expects_now()
        inp = next((i for i in inputs.throw_inputs(expects) if i.get("camera") != "rethrown"), None)
        if inp is None:
            return error("Nobody has to throw right now.", "いまはダイスを振る人がいません。")
        seat_colours = self.table.seat_colours()
        throwers = inp.get("seats", []) if inp.get("together") else inp.get("seats", [])[:1]
        colours = [seat_colours[s] for s in throwers if s in seat_colours] or ["white"]
        dice: list[dict[str, Any]] = []
        for colour, sides, n in [(d.get("colour", "*"), int(d.get("sides", 6)), int(d.get("count", 0)))
                                 for d in inp.get("dice") or []]:
            for k in range(n):
                c = colours[k % len(colours)] if colour == "*" else colour
                die = {"colour": c, "face": self.rng.choice(inputs.FACES[sides])}
                if sides != 6:
                    die["sides"] = sides
                dice.append(die)
        reroll = inp.get("camera") == "all"
        # d10 and d20 go under the camera only when the detector reads them.
        drawable = getattr(self.detector, "reads_sides", False) or all(d.get("sides", 6) == 6 for d in dice)
        if self.synthetic is not None and drawable:
            if not reroll and self.table.round_is_fresh():
                self.synthetic.clear()  # the players collected the last round's dice
            self.synthetic.throw([(d["colour"], d["face"], d.get("sides", 6)) for d in dice], rethrow_all=reroll)
        if self.detector is None or self.synthetic is None or not drawable:
            return self.table.act(None, inp["type"], {"dice": dice, **inputs.seat_value(inp)}, source="typed")
        with self._lock:
            self._thrown = dice
        seat = inputs.seat_value(inp).get("seat")
        if seat is not None:
            self.table.claim_throw(seat)  # the demo knows whose throw it rolled
        self.table.publish()
        return ok(thrown=dice)

    def apply_thrown(self) -> Result:
        """Apply the demo's last throw as typed dice (when the camera misread it)."""
        with self._lock:
            thrown = list(self._thrown)
        if not thrown:
            return error("There is no demo throw waiting.", "待っているデモの振りはありません。")
        return self.table.typed_throw(thrown)

