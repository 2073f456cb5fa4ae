"""The seat panel: one button and one LED per seat, for secret declarations (宣言).

Press grammar (the same text is in hardware/README.md and, through `GRAMMAR` /
`SeatPanel.grammar()`, on the pages):

- While a declaration is open for a seat, each short press adds one: 0 → 1 → … → 5, and
  a sixth press wraps back to 0, so a player who overshoots corrects by going around.
- Holding the button for at least `hold_time` (1 s) and letting go before `clear_time`
  (3 s) locks the current number (0 is allowed). While held past `hold_time` the LED
  goes steady: "let go now to lock".
- Holding for `clear_time` or longer and letting go starts over at 0. While held past
  `clear_time` the LED flickers fast ("let go now to start over"), and it flickers
  briefly after the release to confirm.
- Once locked, the button does nothing until the next declaration is opened.
- The LED never shows the number. Off: not started / not asked. Slow blink: entering
  (the same blink whatever the count). Steady on: locked. At the reveal every LED flashes
  three times, then goes off.
- Nothing is revealed by the panel: `value(seat)` is for that seat's own private page,
  and the table reveals only after every seat has locked.

Decisions are taken on release, from the press duration measured with the injected
`clock`, so tests drive time without sleeping. Debounce: edges closer than `bounce_time`
to the last accepted edge are ignored; if the ignored edges left the button in the other
state, that missed change is applied at the next accepted edge or at the first `refresh()`
after the window (so a very short tap is not lost, and the LED never shows a hold nobody
makes), and presses shorter than `MIN_PRESS` are dropped as noise. Mock pins do not
implement gpiozero's own `bounce_time`, and real drivers differ, so the filter is done
here the same way everywhere.

Threads: gpiozero calls the button callbacks from its pin-driver thread (lgpio's callback
thread on a Pi; on `MockFactory`, the thread that calls `drive_low()`/`drive_high()`).
`on_lock(seat, value)` is called from that thread, once per lock, after the panel's lock
is released (so it may call back into the panel). Keep it quick: hand the declaration to
the table's queue. One background thread animates the LEDs (`animate=True`); with
`animate=False` call `refresh()` yourself. All public methods are thread-safe.

Wiring: each button between its BCM pin and GND (internal pull-up); each LED from its
pin through a ~330 Ω resistor to GND.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

#: LED states as the pages name them.
LED_STATES = ("off", "entering", "locked", "revealed")
#: A press shorter than this (seconds) is electrical noise, not a finger.
MIN_PRESS = 0.02
#: Fast flicker period (seconds) and how long it confirms a start-over.
FLICKER = 0.05
CLEAR_CONFIRM = 0.6
#: The reveal's triple flash: on/off period (seconds) and count.
FLASH = 0.15
FLASHES = 3
FLASH_TIME = 2 * FLASH * FLASHES

_GRAMMAR_TEXT = {
    "en": (
        "Choose in secret with your seat button; the LED blinks slowly while you enter.\n"
        "Short press: add one (0 → 1 → 2 → …; a press past the game's highest number goes "
        "back to 0: pressed too far? go around).\n"
        "Hold about {hold:g} s and let go: lock your number (0 too). The LED stays on.\n"
        "Hold {clear:g} s or more and let go: start over at 0 (the LED flickers).\n"
        "Once locked the button does nothing until the next secret choice.\n"
        "The LED never shows your number. Nothing is revealed until every seat has "
        "locked; then all LEDs flash three times."
    ),
    "ja": (
        "席のボタンで秘密に選びます。入力中はLEDがゆっくり点滅します。\n"
        "短く押す：1つ増える（0 → 1 → 2 → …。ゲームの最大の数の次に押すと0に戻ります。"
        "押しすぎたら一周して直せます）。\n"
        "約{hold:g}秒押し続けて離すと、その数でロック（0も可）。LEDが点灯したままになります。\n"
        "{clear:g}秒以上押し続けて離すと、0からやり直し（LEDが細かく点滅）。\n"
        "ロックしたら次の秘密の選択まで、ボタンは何もしません。\n"
        "LEDは数を表示しません。全員がロックするまで何も公開されず、"
        "公開のときに全員のLEDが3回点滅します。"
    ),
}


def grammar_text(language: str = "en", hold_time: float = 1.0, clear_time: float = 3.0) -> str:
    """The press grammar in `language` ("en" or "ja") for the given timings: one rule
    per line. The highest number is the game's (a secret choice's field), so it is not named."""
    return _GRAMMAR_TEXT[language].format(hold=hold_time, clear=clear_time)


#: The grammar with the default timings, for the pages.
GRAMMAR: dict[str, str] = {lang: grammar_text(lang) for lang in _GRAMMAR_TEXT}


@dataclass
class _Seat:
    name: str
    button: Any
    led: Any
    state: str = "off"
    count: int = 0
    maximum: int = 5
    since: float = float("-inf")  # when the current state began
    pressed_at: float | None = None  # start of the press being held (debounced)
    cleared_at: float | None = None
    flash_from: float | None = None  # entering opened during the reveal's flash, begun then
    # debouncer
    stable: bool = False  # debounced level: True = pressed
    last_accept: float = float("-inf")
    raw: bool = False
    raw_t: float = float("-inf")
    lit: bool | None = field(default=None)  # last value written to the LED


class SeatPanel:
    """Buttons and LEDs of the seats; see the module docstring for the press grammar.

    seats: (name, button_pin, led_pin) tuples, or objects with those attributes (e.g.
    `pi.config.SeatConfig`). pin_factory: a gpiozero pin factory (`MockFactory()` in tests
    and the demo; None = gpiozero's default, real pins on a Pi). on_lock(seat, value):
    called once per lock made with a button.
    """

    def __init__(
        self,
        seats: Iterable[Any],
        pin_factory: Any = None,
        on_lock: Callable[[str, int], None] | None = None,
        hold_time: float = 1.0,
        clear_time: float = 3.0,
        bounce_time: float = 0.05,
        *,
        clock: Callable[[], float] = time.monotonic,
        blink_time: float = 0.5,
        animate: bool = True,
    ) -> None:
        from gpiozero import LED, Button

        if not 0 < hold_time < clear_time:
            raise ValueError("hold_time must be positive and shorter than clear_time")
        if bounce_time < 0:
            raise ValueError("bounce_time must be 0 or more seconds")
        self.on_lock = on_lock
        self.hold_time = hold_time
        self.clear_time = clear_time
        self.bounce_time = bounce_time
        self.blink_time = blink_time
        self._clock = clock
        self._lock = threading.RLock()
        self._seats: dict[str, _Seat] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            for entry in seats:
                name, button_pin, led_pin = _seat_fields(entry)
                if name in self._seats:
                    raise ValueError(f"seat {name!r} is given twice; give each seat its own name")
                # bounce_time=None: the debouncing is done in _edge (see the docstring).
                button = Button(button_pin, pull_up=True, bounce_time=None,
                                pin_factory=pin_factory)
                led = LED(led_pin, pin_factory=pin_factory)
                seat = _Seat(name, button, led)
                self._seats[name] = seat
                button.when_pressed = lambda s=seat: self._edge(s, True)
                button.when_released = lambda s=seat: self._edge(s, False)
            if not self._seats:
                raise ValueError("a seat panel needs at least one seat")
        except BaseException:
            self.close()
            raise
        self.refresh()
        if animate:
            self._thread = threading.Thread(target=self._animate, name="seat-panel-leds",
                                            daemon=True)
            self._thread.start()

    # --- what the table and the pages call ------------------------------------------------

    @property
    def seats(self) -> tuple[str, ...]:
        """The seat names, in panel order."""
        return tuple(self._seats)

    def grammar(self, language: str = "en") -> str:
        """The press grammar with this panel's timings."""
        return grammar_text(language, self.hold_time, self.clear_time)

    def open(self, seats: Iterable[str] | None = None, maximum: int = 5) -> None:
        """Start a secret declaration (0..maximum) for these seats (all by default);
        the other seats' LEDs go off and their buttons do nothing. Right after `reveal()`
        (one secret choice straight after another) the reveal's flash plays out before
        the slow blink; the buttons count from the start."""
        if maximum < 0:
            raise ValueError("maximum must be 0 or more")
        with self._lock:
            names = set(self._names(seats))
            now = self._clock()
            for seat in self._seats.values():
                flashing = seat.state == "revealed" and now - seat.since < FLASH_TIME
                if seat.name in names:
                    flash_from = seat.since if flashing else None
                    self._set_state(seat, "entering", now)
                    seat.maximum, seat.flash_from = maximum, flash_from
                elif not flashing:
                    self._set_state(seat, "off", now)
            self._render(now)

    def lock(self, seat: str, value: int) -> bool:
        """A seat declared from its phone instead of the button: the LED shows locked and
        the button stops. Does not call on_lock. False (nothing changed) when that seat is
        not entering a declaration (already locked, or not asked)."""
        with self._lock:
            s = self._seat(seat)
            if s.state != "entering":
                return False
            if not 0 <= value <= s.maximum:
                raise ValueError(f"a declaration lies in 0..{s.maximum}, not {value}")
            now = self._clock()
            s.count = value
            self._set_state(s, "locked", now, keep_count=True)
            self._render(now)
            return True

    def refuse(self, seat: str) -> None:
        """The table refused the number this seat locked (e.g. a card not in its hand): the
        seat enters again from 0. The LED flickers briefly, as after starting over, then
        blinks slowly; the reason shows on the seat's own page only."""
        with self._lock:
            s = self._seat(seat)
            now = self._clock()
            self._set_state(s, "entering", now)
            s.cleared_at = now
            self._render(now)

    def reveal(self) -> None:
        """Every LED flashes three times, then goes off; buttons do nothing until the
        next `open()`."""
        with self._lock:
            now = self._clock()
            for seat in self._seats.values():
                self._set_state(seat, "revealed", now, keep_count=True)
            self._render(now)

    def reset(self) -> None:
        """All LEDs off, every count forgotten."""
        with self._lock:
            now = self._clock()
            for seat in self._seats.values():
                self._set_state(seat, "off", now)
            self._render(now)

    def led(self, seat: str) -> str:
        """"off" | "entering" | "locked" | "revealed" (never the number)."""
        with self._lock:
            return self._seat(seat).state

    def leds(self) -> dict[str, str]:
        """`led()` of every seat."""
        with self._lock:
            return {name: s.state for name, s in self._seats.items()}

    def value(self, seat: str) -> int | None:
        """The seat's current count (entering or locked) or None when not asked. Secret:
        show it only on that seat's own private page."""
        with self._lock:
            s = self._seat(seat)
            return None if s.state == "off" else s.count

    def all_locked(self) -> bool:
        """True when a declaration was opened and every seat asked has locked."""
        with self._lock:
            states = [s.state for s in self._seats.values()]
            return "locked" in states and "entering" not in states

    def button_pin(self, seat: str) -> Any:
        """The gpiozero pin of the seat's button. On `MockFactory` the demo's virtual
        buttons press it with `pin.drive_low()` and release it with `pin.drive_high()`
        (send the two at the page's pointerdown / pointerup, so holding works too)."""
        with self._lock:
            return self._seat(seat).button.pin

    def refresh(self) -> None:
        """Apply a button change the debouncer held back once its window has passed (a
        tap or a glitch shorter than `bounce_time`), then write every LED for the current
        clock time. The animation thread does this every 20 ms when `animate=True`."""
        locked: list[tuple[str, int]] = []
        with self._lock:
            now = self._clock()
            for seat in self._seats.values():
                if seat.raw != seat.stable and now - seat.last_accept >= self.bounce_time:
                    locked += self._apply(seat, self._debounce(seat, seat.raw, now))
            self._render(now)
        self._report(locked)

    def close(self) -> None:
        """Stop the LED thread, turn the LEDs off and release the pins."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        with self._lock:
            for seat in self._seats.values():
                for device in (seat.button, seat.led):
                    try:
                        device.close()
                    except Exception:  # pragma: no cover - closing is best effort
                        pass
            self._seats.clear()

    def __enter__(self) -> SeatPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ---------------------------------------------------------------------------

    def _names(self, seats: Iterable[str] | None) -> list[str]:
        if seats is None:
            return list(self._seats)
        if isinstance(seats, str):
            seats = [seats]
        names = list(seats)
        for name in names:
            self._seat(name)
        return names

    def _seat(self, name: str) -> _Seat:
        try:
            return self._seats[name]
        except KeyError:
            raise KeyError(f"no seat called {name!r}; the seats are "
                           + ", ".join(self._seats)) from None

    def _set_state(self, seat: _Seat, state: str, now: float, keep_count: bool = False) -> None:
        seat.state = state
        seat.since = now
        seat.cleared_at = seat.flash_from = None
        if not keep_count:
            seat.count = 0

    def _edge(self, seat: _Seat, pressed: bool) -> None:
        with self._lock:
            if seat.name not in self._seats:
                return
            now = self._clock()
            locked = self._apply(seat, self._debounce(seat, pressed, now))
            self._render(now)
        self._report(locked)

    def _report(self, locked: list[tuple[str, int]]) -> None:
        """Call `on_lock` for each lock, outside the panel's lock (it may call back in)."""
        for lock in locked:
            if self.on_lock is not None:
                self.on_lock(*lock)

    def _apply(self, seat: _Seat, changes: list[tuple[bool, float]]) -> list[tuple[str, int]]:
        """Apply debounced level changes; the locks they made."""
        locked = []
        for level, t in changes:
            if level:
                seat.pressed_at = t
            elif seat.pressed_at is not None:
                started, seat.pressed_at = seat.pressed_at, None
                lock = self._press(seat, started, t)
                if lock is not None:
                    locked.append(lock)
        return locked

    def _debounce(self, seat: _Seat, level: bool, now: float) -> list[tuple[bool, float]]:
        """Accepted level changes for one raw edge (see the module docstring)."""
        if now - seat.last_accept < self.bounce_time:
            seat.raw, seat.raw_t = level, now
            return []
        out: list[tuple[bool, float]] = []
        if seat.raw != seat.stable:  # the ignored edges left the button changed
            out.append((seat.raw, seat.raw_t))
            seat.stable = seat.raw
        if level != seat.stable:
            out.append((level, now))
            seat.stable = level
            seat.last_accept = now
        seat.raw, seat.raw_t = level, now
        return out

    def _press(self, seat: _Seat, started: float, released: float) -> tuple[str, int] | None:
        """Apply one debounced press; returns (seat, value) when it locked."""
        duration = released - started
        if seat.state != "entering" or started < seat.since or duration < MIN_PRESS:
            return None
        if duration >= self.clear_time:
            seat.count = 0
            seat.cleared_at = released
        elif duration >= self.hold_time:
            self._set_state(seat, "locked", released, keep_count=True)
            return seat.name, seat.count
        else:
            seat.count = (seat.count + 1) % (seat.maximum + 1)
        return None

    def _lit(self, seat: _Seat, now: float) -> bool:
        """What the seat's LED shows at `now` (never depends on the count)."""
        if seat.state == "locked":
            return True
        if seat.state == "revealed":
            return _flash_lit(now - seat.since)
        if seat.state != "entering":
            return False
        if seat.flash_from is not None and now - seat.flash_from < FLASH_TIME:
            return _flash_lit(now - seat.flash_from)  # opened during the reveal's flash
        if seat.pressed_at is not None and seat.pressed_at >= seat.since:
            held = now - seat.pressed_at
            if held >= self.clear_time:
                return int(held / FLICKER) % 2 == 0
            if held >= self.hold_time:
                return True
        if seat.cleared_at is not None and 0 <= now - seat.cleared_at < CLEAR_CONFIRM:
            return int((now - seat.cleared_at) / FLICKER) % 2 == 0
        return int((now - seat.since) / self.blink_time) % 2 == 0

    def _render(self, now: float) -> None:
        for seat in self._seats.values():
            lit = self._lit(seat, now)
            if lit != seat.lit:
                seat.led.value = lit
                seat.lit = lit

    def _animate(self) -> None:
        while not self._stop.wait(0.02):
            try:
                self.refresh()
            except Exception:  # pragma: no cover - a closed pin while shutting down
                if self._stop.is_set():
                    return
                raise


def _flash_lit(elapsed: float) -> bool:
    """The reveal's triple flash, ``elapsed`` seconds after it began."""
    return 0 <= elapsed < FLASH_TIME and int(elapsed / FLASH) % 2 == 0


def _seat_fields(entry: Any) -> tuple[str, int, int]:
    if isinstance(entry, (tuple, list)):
        if len(entry) != 3:
            raise ValueError(f"a seat is (name, button_pin, led_pin), not {entry!r}")
        name, button_pin, led_pin = entry
    else:
        name, button_pin, led_pin = entry.name, entry.button_pin, entry.led_pin
    return str(name), button_pin, led_pin
