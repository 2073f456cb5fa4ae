"""The seat panel's press grammar on gpiozero's MockFactory, with a driven clock."""
from __future__ import annotations

import threading

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from hardware.panel import GRAMMAR, SeatPanel, grammar_text

SEATS = [("Aki", 5, 12), ("Ben", 6, 16)]
LED_PIN = {"Aki": 12, "Ben": 16}


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.close()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def locks():
    return []


@pytest.fixture
def panel(factory, clock, locks):
    p = SeatPanel(SEATS, pin_factory=factory, on_lock=lambda s, v: locks.append((s, v)),
                  clock=clock, animate=False)
    yield p
    p.close()


def press(panel, clock, seat, duration=0.15, gap=0.2):
    pin = panel.button_pin(seat)
    pin.drive_low()
    clock.t += duration
    pin.drive_high()
    clock.t += gap


def taps(panel, clock, seat, n):
    for _ in range(n):
        press(panel, clock, seat)


def lit(factory, seat) -> bool:
    return bool(factory.pin(LED_PIN[seat]).state)


def test_short_presses_count_and_a_hold_locks(panel, clock, locks, factory):
    panel.open()
    assert panel.led("Aki") == "entering" and panel.value("Aki") == 0
    taps(panel, clock, "Aki", 3)
    assert panel.value("Aki") == 3 and panel.led("Aki") == "entering"
    assert locks == []
    press(panel, clock, "Aki", duration=1.2)
    assert locks == [("Aki", 3)]
    assert panel.led("Aki") == "locked" and panel.value("Aki") == 3
    assert lit(factory, "Aki")
    assert panel.led("Ben") == "entering" and panel.value("Ben") == 0
    assert not panel.all_locked()


def test_sixth_press_wraps_to_zero_so_an_overshoot_goes_around(panel, clock, locks):
    panel.open()
    taps(panel, clock, "Aki", 5)
    assert panel.value("Aki") == 5
    press(panel, clock, "Aki")
    assert panel.value("Aki") == 0
    taps(panel, clock, "Aki", 2)
    assert panel.value("Aki") == 2


def test_maximum_follows_the_declaration(panel, clock):
    panel.open(maximum=2)
    taps(panel, clock, "Aki", 3)
    assert panel.value("Aki") == 0


def test_holding_locks_zero_too(panel, clock, locks):
    panel.open()
    press(panel, clock, "Ben", duration=1.0)  # exactly hold_time
    assert locks == [("Ben", 0)] and panel.led("Ben") == "locked"


def test_a_long_hold_starts_over(panel, clock, locks, factory):
    panel.open()
    taps(panel, clock, "Aki", 4)
    press(panel, clock, "Aki", duration=3.5)
    assert panel.value("Aki") == 0 and panel.led("Aki") == "entering"
    assert locks == []
    taps(panel, clock, "Aki", 2)
    press(panel, clock, "Aki", duration=1.5)
    assert locks == [("Aki", 2)]


def test_presses_after_lock_do_nothing(panel, clock, locks):
    panel.open()
    taps(panel, clock, "Aki", 2)
    press(panel, clock, "Aki", duration=1.2)
    taps(panel, clock, "Aki", 3)
    press(panel, clock, "Aki", duration=1.2)
    press(panel, clock, "Aki", duration=4.0)
    assert panel.value("Aki") == 2 and locks == [("Aki", 2)]


def test_buttons_do_nothing_before_open_and_for_seats_not_asked(panel, clock, locks):
    taps(panel, clock, "Aki", 2)
    press(panel, clock, "Aki", duration=1.2)
    assert panel.led("Aki") == "off" and panel.value("Aki") is None and locks == []
    panel.open(["Ben"])
    assert panel.led("Aki") == "off"
    press(panel, clock, "Aki", duration=1.2)
    assert locks == []
    press(panel, clock, "Ben", duration=1.2)
    assert locks == [("Ben", 0)]
    assert panel.all_locked()


def test_a_press_begun_before_open_does_not_count(panel, clock, locks):
    pin = panel.button_pin("Aki")
    pin.drive_low()
    clock.t += 0.5
    panel.open()
    clock.t += 0.7
    pin.drive_high()  # 1.2 s held, but the declaration opened in the middle
    assert locks == [] and panel.value("Aki") == 0


def chatter(pin, clock, low: bool, n=3, step=0.003):
    """A mechanical contact: the edge, then n bounces within a few milliseconds."""
    for i in range(2 * n + 1):
        (pin.drive_low if (i % 2 == 0) == low else pin.drive_high)()
        clock.t += step


def test_bounces_count_once(panel, clock):
    panel.open()
    pin = panel.button_pin("Aki")
    for _ in range(3):
        chatter(pin, clock, low=True)
        clock.t += 0.1
        chatter(pin, clock, low=False)
        clock.t += 0.2
    assert panel.value("Aki") == 3


def test_slow_bounces_inside_the_window_are_ignored(panel, clock):
    """A worn contact that opens for 25 ms just after the press (longer than noise) and
    closes again for 20 ms just after the release: still one press each time."""
    panel.open()
    pin = panel.button_pin("Aki")
    for _ in range(2):
        for edge, wait in ((pin.drive_low, 0.025),   # press
                           (pin.drive_high, 0.010),  # the contact opens...
                           (pin.drive_low, 0.150),   # ...and closes again
                           (pin.drive_high, 0.020),  # release
                           (pin.drive_low, 0.020),   # a bounce after the release
                           (pin.drive_high, 0.300)):
            edge()
            clock.t += wait
    assert panel.value("Aki") == 2


def test_a_glitch_is_not_a_press(panel, clock, locks):
    panel.open()
    pin = panel.button_pin("Aki")
    pin.drive_low()
    clock.t += 0.001  # a 1 ms spike on the line
    pin.drive_high()
    clock.t += 2.0
    press(panel, clock, "Aki")
    assert panel.value("Aki") == 1 and locks == []


def test_a_quick_tap_inside_the_bounce_window_is_not_lost(panel, clock, locks):
    panel.open()
    pin = panel.button_pin("Aki")
    pin.drive_low()
    clock.t += 0.03  # shorter than bounce_time: the release edge is filtered...
    pin.drive_high()
    clock.t += 0.3
    press(panel, clock, "Aki", duration=1.2)  # ...and applied at the next edge
    assert locks == [("Aki", 1)]


@pytest.mark.parametrize("tap, count", [(0.01, 0), (0.035, 1)])
def test_a_change_the_debouncer_held_back_is_applied_once_its_window_passes(panel, factory, clock, tap, count):
    """A glitch (10 ms) or a quick tap (35 ms) whose release falls inside the bounce window,
    and no edge after it: the LED keeps the plain slow blink (no "let go now to lock", no
    start-over flicker for a hold nobody makes) and the tap counts."""
    panel.open()
    start = clock.t
    pin = panel.button_pin("Aki")
    pin.drive_low()
    clock.t += tap
    pin.drive_high()
    times = [t - (clock.t - start) for t in (0.1, 0.6, 1.1, 1.6, 3.05, 3.1, 3.15, 60.1)]
    assert led_trace(panel, factory, clock, "Aki", times) == [True, False, True, False, True, True, True, True]
    assert panel.value("Aki") == count


def test_a_hold_with_bounces_still_locks(panel, clock, locks):
    panel.open()
    pin = panel.button_pin("Aki")
    chatter(pin, clock, low=True)
    clock.t += 1.3
    chatter(pin, clock, low=False)
    assert locks == [("Aki", 0)]


def led_trace(panel, factory, clock, seat, times):
    start = clock.t
    out = []
    for t in times:
        clock.t = start + t
        panel.refresh()
        out.append(lit(factory, seat))
    clock.t = start
    return out


def test_led_off_until_asked_then_a_blink_that_never_shows_the_number(panel, factory, clock):
    assert led_trace(panel, factory, clock, "Aki", [0, 0.3, 0.7, 1.2, 2.0]) == [False] * 5
    panel.open()
    start = clock.t
    blink = led_trace(panel, factory, clock, "Aki", [0.1, 0.6, 1.1, 1.6])
    assert blink == [True, False, True, False]
    taps(panel, clock, "Aki", 3)  # Aki has 3, Ben has 0
    assert panel.value("Aki") == 3 and panel.value("Ben") == 0
    offsets = [clock.t - start + d for d in (0.05, 0.3, 0.55, 0.8, 1.05, 1.3)]
    clock.t = start
    aki = led_trace(panel, factory, clock, "Aki", offsets)
    ben = led_trace(panel, factory, clock, "Ben", offsets)
    assert aki == ben and True in aki and False in aki


def test_led_while_holding_previews_lock_then_start_over(panel, factory, clock):
    panel.open()
    clock.t += 0.6  # mid-blink: off
    pin = panel.button_pin("Aki")
    pin.drive_low()
    steady = led_trace(panel, factory, clock, "Aki", [1.05, 1.3, 1.55, 1.8, 2.05, 2.9])
    assert steady == [True] * 6
    flicker = led_trace(panel, factory, clock, "Aki", [3.01 + 0.05 * i for i in range(6)])
    assert flicker == [True, False, True, False, True, False]
    clock.t += 3.5
    pin.drive_high()
    assert panel.value("Aki") == 0
    confirm = led_trace(panel, factory, clock, "Aki", [0.01, 0.06, 0.11, 0.16])
    assert confirm == [True, False, True, False]


def test_led_locked_is_steady_and_reveal_flashes_three_times(panel, factory, clock):
    panel.open()
    press(panel, clock, "Aki", duration=1.2)
    assert led_trace(panel, factory, clock, "Aki", [0, 0.4, 0.9, 5.0]) == [True] * 4
    press(panel, clock, "Ben", duration=1.2)
    assert panel.all_locked()
    panel.reveal()
    assert panel.leds() == {"Aki": "revealed", "Ben": "revealed"}
    trace = led_trace(panel, factory, clock, "Ben",
                      [0.01 + 0.15 * i for i in range(6)] + [1.0, 3.0])
    assert trace == [True, False] * 3 + [False, False]
    assert panel.value("Aki") == 0
    panel.reset()
    assert panel.leds() == {"Aki": "off", "Ben": "off"}
    assert panel.value("Aki") is None and not lit(factory, "Aki")


def test_phone_lock(panel, clock, locks, factory):
    assert panel.lock("Aki", 3) is False  # nothing open
    panel.open()
    taps(panel, clock, "Ben", 1)
    with pytest.raises(ValueError):
        panel.lock("Ben", 6)
    assert panel.lock("Ben", 4) is True
    assert panel.led("Ben") == "locked" and panel.value("Ben") == 4 and lit(factory, "Ben")
    assert panel.lock("Ben", 2) is False and panel.value("Ben") == 4
    press(panel, clock, "Ben", duration=1.2)
    taps(panel, clock, "Ben", 2)
    assert panel.value("Ben") == 4
    assert locks == []  # a phone lock is not reported back through on_lock


def test_reopening_starts_a_new_declaration(panel, clock, locks):
    panel.open()
    taps(panel, clock, "Aki", 2)
    press(panel, clock, "Aki", duration=1.2)
    panel.reveal()
    taps(panel, clock, "Aki", 1)
    assert panel.value("Aki") == 2
    panel.open()
    assert panel.value("Aki") == 0 and panel.led("Aki") == "entering"
    taps(panel, clock, "Aki", 1)
    press(panel, clock, "Aki", duration=1.2)
    assert locks == [("Aki", 2), ("Aki", 1)]


def test_a_declaration_opened_during_the_reveal_lets_the_flash_play_out(panel, factory, clock):
    """One secret choice straight after another (everyone chose 0): the reveal's three
    flashes still show, then the slow blink; a press during the flash counts."""
    panel.open()
    press(panel, clock, "Aki", duration=1.2)
    press(panel, clock, "Ben", duration=1.2)
    revealed_at = clock.t
    panel.reveal()
    panel.open(["Aki"], maximum=3)
    assert panel.leds() == {"Aki": "entering", "Ben": "revealed"}
    flash = [True, False] * 3 + [False]
    times = [0.01 + 0.15 * i for i in range(7)]
    assert led_trace(panel, factory, clock, "Aki", times) == flash
    assert led_trace(panel, factory, clock, "Ben", times) == flash
    clock.t = revealed_at + 0.2
    press(panel, clock, "Aki")
    clock.t = revealed_at + 0.9
    blink = led_trace(panel, factory, clock, "Aki", [0.1, 0.6, 1.1])
    assert blink == [True, False, True] and panel.value("Aki") == 1
    panel.open(["Aki"], maximum=3)  # long after the reveal: no flash
    assert led_trace(panel, factory, clock, "Aki", [0.01, 0.2, 0.35]) == [True] * 3


def test_on_lock_may_call_back_into_the_panel(factory, clock):
    seen = []
    holder = {}

    def on_lock(seat, value):
        seen.append((seat, value, holder["panel"].led(seat), holder["panel"].all_locked()))

    panel = SeatPanel(SEATS, pin_factory=factory, on_lock=on_lock, clock=clock, animate=False)
    holder["panel"] = panel
    try:
        panel.open(["Aki"])
        press(panel, clock, "Aki", duration=1.2)
        assert seen == [("Aki", 0, "locked", True)]
    finally:
        panel.close()


def test_seats_from_config_objects_and_bad_seats(factory, clock):
    from pi.config import DEFAULT_SEATS

    with SeatPanel(DEFAULT_SEATS, pin_factory=factory, clock=clock, animate=False) as panel:
        assert panel.seats == ("Aki", "Ben", "Chie", "Dai")
        with pytest.raises(KeyError, match="no seat called 'Eve'"):
            panel.led("Eve")
        with pytest.raises(KeyError):
            panel.open(["Eve"])
    with pytest.raises(ValueError, match="given twice"):
        SeatPanel([("Aki", 5, 12), ("Aki", 6, 16)], pin_factory=MockFactory(),
                  clock=clock, animate=False)


class SignallingPin(MockPin):
    """A mock pin that tells a waiting test each time its output changes."""

    changes: threading.Semaphore

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and self._function == "output":
            SignallingPin.changes.release()
        return changed


def test_the_animation_thread_blinks_the_led():
    SignallingPin.changes = threading.Semaphore(0)
    factory = MockFactory(pin_class=SignallingPin)
    panel = SeatPanel([("Aki", 5, 12)], pin_factory=factory, blink_time=0.05)
    try:
        panel.open()
        for _ in range(4):  # on, off, on, off... driven by the background thread alone
            assert SignallingPin.changes.acquire(timeout=5)
    finally:
        panel.close()
        factory.close()


def test_grammar_text_in_both_languages():
    assert set(GRAMMAR) == {"en", "ja"}
    assert "lock" in GRAMMAR["en"] and "0" in GRAMMAR["en"]
    # the pages' word for it: "ロック" (lock), as on the seat page's button, never "確定"
    assert "ロック" in GRAMMAR["ja"] and "確定" not in GRAMMAR["ja"]
    assert "2 s" in grammar_text("en", hold_time=2.0, clear_time=4.0)
    for text in GRAMMAR.values():  # one rule per line, for the pages
        assert len(text.splitlines()) == 6


def test_a_refused_lock_enters_again_from_zero(panel, clock, locks, factory):
    panel.open()
    taps(panel, clock, "Aki", 4)
    press(panel, clock, "Aki", duration=1.2)
    assert locks == [("Aki", 4)] and panel.led("Aki") == "locked"
    panel.refuse("Aki")  # e.g. a card Aki does not hold
    assert panel.led("Aki") == "entering" and panel.value("Aki") == 0
    assert panel.led("Ben") == "entering"  # the other seats are untouched
    taps(panel, clock, "Aki", 2)
    press(panel, clock, "Aki", duration=1.2)
    assert locks == [("Aki", 4), ("Aki", 2)]
