"""Fixtures of the appliance tests: config, store, a table with mock pins and a fake clock,
the Flask app and its client, and helpers that build settled rolls."""
from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Any, Iterable

import pytest

from pi import config as config_module

SEATS3 = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Chie", "colour": "green"}]


class FakeClock:
    """A clock the tests move by hand (the panel measures presses with it)."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
#: The marks of a test module that drives Debian's Chromium through Playwright.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not __import__("os").path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} is missing: install Debian's chromium (run .ci/browser as root)"),
]


def open_action(page: Any, type_: str) -> None:
    """Where the page offers a seat several actions, tap the one of input ``type_`` open
    (its form is hidden until then); a page with one input shows its form already."""
    closed = page.locator(f"details.action:not([open]):has(#form-{type_}) > summary")
    if closed.count():
        closed.click()


@pytest.fixture
def browser():
    """A headless Chromium (Debian's, no download) driven by Playwright."""
    sync_api = pytest.importorskip("playwright.sync_api")
    # A page reload on a machine whose cores are busy elsewhere can take longer than the
    # assertions' default 5 s; actions already wait up to 30 s.
    sync_api.expect.set_options(timeout=30_000)
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def config(tmp_path):
    base = config_module.load(None)
    return dataclasses.replace(base, data_dir=tmp_path / "data", seats=base.seats[:3], host_pin="4821")


@pytest.fixture
def store(config):
    from pi.store import Store

    config.data_dir.mkdir(parents=True, exist_ok=True)
    s = Store(config.db_path)
    yield s
    close = getattr(s, "close", None)
    if close:
        close()


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def panel_and_table(config, store, clock):
    """A table with a real SeatPanel on gpiozero's MockFactory (fake clock, no LED thread)."""
    from gpiozero.pins.mock import MockFactory

    from hardware.panel import SeatPanel
    from pi.table import Table

    holder: dict[str, Any] = {}
    panel = SeatPanel(config.seats, MockFactory(), lambda seat, value: holder["t"].buttons.on_lock(seat, value),
                      clock=clock, animate=False)
    table = Table(config, store, panel=panel)
    holder["t"] = table
    yield panel, table
    table.stop()
    panel.close()


@pytest.fixture
def table(config, store):
    """A table without panel or camera (phones and typed dice only)."""
    from pi.table import Table

    t = Table(config, store)
    yield t
    t.stop()


_ids = itertools.count(1000)


def roll_of(dice: Iterable[tuple[str | None, int]], status: str = "new", cocked: Iterable[int] = (),
            keep: Iterable[Any] = ()) -> Any:
    """A settled roll as vision.settle reports it: ``keep`` (earlier TrackedDie values) lie
    still, ``dice`` (colour, face) are new; indices in ``cocked`` are unreadable."""
    from vision.settle import Roll, TrackedDie

    cocked = set(cocked)
    out = [dataclasses.replace(d, status="still") for d in keep]
    for i, (colour, face) in enumerate(dice):
        x = 50.0 * (len(out) + 1)
        out.append(TrackedDie(next(_ids), colour, 0 if i in cocked else face, (x, 40.0, x + 40, 80.0),
                              0.4 if i in cocked else 0.97, status, i in cocked))
    return Roll(tuple(out), 0.0)


def press(panel: Any, clock: FakeClock, seat: str, hold: float = 0.1) -> None:
    """One press of a seat's (mock) button, held for ``hold`` seconds of the fake clock."""
    pin = panel.button_pin(seat)
    pin.drive_low()
    clock.advance(hold)
    pin.drive_high()
    clock.advance(0.1)


def declare_on_button(panel: Any, clock: FakeClock, seat: str, value: int) -> None:
    for _ in range(value):
        press(panel, clock, seat)
    press(panel, clock, seat, hold=1.5)  # hold to lock


def dice_for(expects: dict[str, Any], faces: Iterable[int]) -> list[tuple[str, int]]:
    faces = iter(faces)
    return [(c, next(faces)) for c, n in expects["dice"].items() for _ in range(n)]


def kind(table: Any) -> str:
    """The type of the first input the table's game waits for; "over" or "none"."""
    exp = table.expects_now()
    if exp is None:
        return "none"
    return exp["inputs"][0]["type"] if exp["inputs"] else "over"


def declare(table: Any, seat: str, value: Any, source: str = "phone") -> dict:
    """An ALEA declaration from the seat's phone."""
    return table.act(seat, "declare", {"value": value}, source)


def first_card(table: Any) -> str:
    """The first card the host may name (ALEA's physical deck)."""
    (inp,) = table.expects_now()["inputs"]
    return inp["fields"][0]["options"][0]["value"]


def due_throw(table: Any) -> dict:
    """The throw due, in short: seats, dice per colour ("*": any), reroll (rethrows the table)."""
    (inp,) = table.expects_now()["inputs"]
    dice = {d["colour"]: d["count"] for d in inp["dice"]}
    return {"kind": "throw", "seats": inp["seats"], "dice": dice, "reroll": inp["camera"] == "all" and "*" not in dice}


def wait_until(table: Any, predicate, limit: int = 200, timeout: float = 10, what=None,
               total: float = 300) -> None:
    """Until ``predicate()`` holds, awaiting each change of the table (no sleeping); at
    most ``limit`` changes, each within ``timeout`` s, and ``total`` s in all (a table that
    keeps changing without getting there fails instead of hanging). ``what()`` says why it
    failed."""
    version = -1
    end = time.monotonic() + total
    for _ in range(limit):
        if predicate():
            return
        left = end - time.monotonic()
        if left <= 0:
            break
        version = table.wait_for_change(version, timeout=min(timeout, left))
    if predicate():
        return
    raise AssertionError(what() if what else "the table never reached the expected state")
