"""The seat buttons and LEDs at the table: the panel is opened whenever the game waits for a
secret choice that a button can enter (an input field marked ``"button": true``), a lock
on a button becomes that seat's input, and a choice made on a phone lights the seat's LED
as locked.

A button enters the one number of the choice with the press grammar (hardware/README.md);
every other field of the choice takes its default. A player who wants to choose more than
the number (e.g. special dice) makes the whole choice on the seat page instead.
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from pi import inputs
from pi.words import Result, error, ok

log = logging.getLogger(__name__)


class Buttons:
    """Between the table and ``panel`` (``hardware.panel.SeatPanel`` or None: phones only)."""

    def __init__(self, table: Any, panel: Any) -> None:
        self.table = table
        self.panel = panel
        self._open: bool | None = False  # None: set the panel afresh from the state
        self._reveals = 0  # the table's count of reveals when the panel was last set
        self._sync_lock = threading.Lock()  # two seats locking at once sync one after the other

    def reopen(self) -> None:
        """After a new game, an undo or a restart: set the panel afresh from the state."""
        self._open = None

    def sync(self) -> None:
        """Open, reveal or reset the panel from what the game waits for now. Called outside
        the table's lock: the panel calls back into the table from its own thread."""
        if self.panel is None:
            return
        with self._sync_lock:
            expects, reveals = self.table.choice_now()
            found = inputs.button_inputs(expects)
            was_open, self._open = self._open, bool(found)
            revealed, self._reveals = reveals != self._reveals and was_open is True, reveals
            if found and (not was_open or revealed):
                if revealed:  # a secret choice straight after the one just revealed
                    self.panel.reveal()
                else:
                    self.panel.reset()
                due = {seat for inp, _ in found for seat in inp["seats"]}
                seats = [s for s in self.table.seat_names() if self.table.button_of(s) is not None]
                self.panel.open([self.table.button_of(s) for s in seats], maximum=max(int(f.get("max", 5)) for _, f in found))
                for seat in seats:  # after an undo or a restart some seats have chosen already
                    if seat not in due:
                        self._show_locked(seat, 0)
            elif not found and (was_open is None or expects is None):
                self.panel.reset()
            elif not found and was_open:
                self.panel.reveal()

    def chosen_elsewhere(self, seat: str, event: dict[str, Any]) -> None:
        """A seat made its secret choice on its phone: its LED shows locked, its button stops."""
        fields = {f["name"] for _, f in inputs.button_inputs(self.table.expects_now())}
        value = next((event[name] for name in fields if isinstance(event.get(name), int)), 0)
        self._show_locked(seat, value)

    def _show_locked(self, seat: str, value: int) -> None:
        button = self.table.button_of(seat)
        if self.panel is None or button is None:
            return
        try:
            self.panel.lock(button, value)
        except Exception as exc:  # the LED is cosmetic; the choice is stored
            log.warning("could not lock the seat panel of %s: %s", button, exc)

    def on_lock(self, button: str, value: int) -> None:
        """The panel's ``on_lock`` callback (``button``: the config seat's name)."""
        seat = self.table.seat_of_button(button)
        if seat is None:
            log.warning("the button of %s is not used in this game; ignored", button)
            return
        found = inputs.button_input_for(self.table.expects_now(), seat)
        if found is None:
            result = error("No secret choice is being collected right now.", "いまは秘密の選択を受け付けていません。")
        else:
            inp, field = found
            result = self.table.act(seat, inp["type"], {field["name"]: value}, source="button")
        if not result["ok"]:
            # The reason may tell what the seat chose: only its own page says it, and the
            # seat enters again on its button.
            log.info("a button choice of %s was refused", seat)
            self.table.note(seat, result["error"])
            try:
                self.panel.refuse(button)
            except Exception as exc:
                log.warning("could not reopen the seat panel of %s: %s", button, exc)

    def leds(self, seat: str | None) -> dict[str, str]:
        """LED states for the virtual buttons. The public form never tells who has locked:
        while a secret choice is open every seat but ``seat`` reads "open"."""
        names = self.table.page_seats()
        if self.panel is None:
            return {n: "off" for n in names}
        secret_open = any(i.get("secret") for i in inputs.inputs(self.table.expects_now()))
        out = {}
        for name in names:
            button = self.table.button_of(name)
            if button is None:
                out[name] = "off"
            elif secret_open and name != seat:
                out[name] = "open"
            else:
                try:
                    out[name] = self.panel.led(button)
                except Exception:
                    out[name] = "off"
        return out

    # ------------------------------------------------------------------ virtual buttons (demo)

    def _pin(self, seat: str) -> Any:
        button = self.table.button_of(seat)
        if self.panel is None or button is None:
            return None
        return self.panel.button_pin(button)

    def press(self, seat: str) -> Result:
        pin = self._pin(seat)
        if pin is None:
            return error(f"There is no button for seat {seat!r}.", f"{seat} のボタンはありません。")
        pin.drive_low()
        return ok()

    def release(self, seat: str) -> Result:
        pin = self._pin(seat)
        if pin is None:
            return error(f"There is no button for seat {seat!r}.", f"{seat} のボタンはありません。")
        pin.drive_high()
        return ok()
