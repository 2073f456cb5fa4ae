"""The demo's hands on the seat pages, tapped in a real headless Chromium: each seat throws
its own dice from its phone, lays out the dice it placed on its layout pad and reads them
with "Read my layout", and picks up the dice it chose on its rethrow pad and throws them
again; the real detector reads every throw from the synthetic tray."""
from __future__ import annotations

import dataclasses
import random

import pytest

from tests.pi.conftest import BROWSER_MARKS, FakeClock, open_action, wait_until

pytestmark = [*BROWSER_MARKS, pytest.mark.slow]

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}]


@pytest.fixture
def appliance(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    config = dataclasses.replace(config, language="en")
    app = build(config, demo=True, pin_factory=MockFactory(), panel_clock=FakeClock(), animate=False)
    if app.table.camera.detector is None:
        app.close()
        pytest.skip("no dice model in models/")
    app.table.demo.rng = random.Random(5)
    app.table.camera.frame_interval = 0.03
    port = app.serve_in_thread("127.0.0.1", 0)
    app.table.start()
    try:
        yield app, f"http://127.0.0.1:{port}"
    finally:
        app.close()


class Phones:
    def __init__(self, appliance, root, browser) -> None:
        self.table, self.root = appliance.table, root
        self.context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})
        self.problems: list[str] = []
        self.context.on("page", lambda page: page.on("pageerror", lambda exc: self.problems.append(str(exc))))
        self.page = self.context.new_page()

    def events(self) -> list[dict]:
        return self.table.store.events(self.table.record.id)

    def wait_until(self, predicate, limit: int = 400) -> None:
        wait_until(self.table, predicate, limit, timeout=20,
                   what=lambda: f"the table never got there; due: {self.table.snapshot()['due']['en']}")

    def seat(self, name: str):
        """The seat's phone page, opened afresh (the old one may be reloading itself)."""
        # Not awaited: Chromium can drop a close that races the page's own reload, and
        # the awaited close then never returns (crbug.com/536385539).
        self.page.close(run_before_unload=True)
        self.page = self.context.new_page()
        self.page.goto(f"{self.root}/seat/{self.table.record.tokens[name]}")
        return self.page

    def tap(self, page, selector: str) -> dict:
        """Tap a control that changes the table; the event it led to, through the camera
        (a d10 the camera is unsure of is typed by its owner, as at the table)."""
        table = self.table
        before = len(self.events())
        page.locator(selector).click()
        self.wait_until(lambda: len(self.events()) > before or table.prompt is not None or table.pending is not None)
        if table.pending is not None:
            thrown = next(v for v in table.demo._thrown[2].values()
                          if isinstance(v, list) and v and isinstance(v[0], dict))  # the dice, not `picked`
            for seat, missing in list(table.pending["missing"].items()):
                table.type_faces(seat, [next(d["face"] for d in thrown if d["colour"] == c and d.get("sides", 6) == s)
                                        for c, s in missing])
        assert table.prompt is None and len(self.events()) > before, table.prompt
        return self.events()[-1]

    def close(self) -> None:
        self.context.close()
        assert self.problems == []


def test_each_seat_throws_from_its_phone_and_lays_out_its_pyramid(appliance, browser):
    app, root = appliance
    assert app.table.start_game("chiritsumo", SEATS, {}, seed=3)["ok"]
    phones = Phones(app, root, browser)
    assert phones.tap(phones.seat("Ben"), "#demo-throw-mine")["seat"] == "Ben"
    thrown = phones.tap(phones.seat("Aki"), "#demo-throw-mine")
    assert thrown["seat"] == "Aki" and len(app.synthetic.dice) == 20
    face = next(d["face"] for i, d in enumerate(thrown["dice"]) if any(e["face"] == d["face"] for e in thrown["dice"][i + 1:]))
    page = phones.seat("Aki")
    board = page.locator("#form-build .layout-board .layout-row").last  # the bottom row is drawn last
    for place in (0, 1):  # two dice of one face side by side
        page.locator("#form-build .layout-tray button", has_text=str(face)).first.click()
        board.locator(".layout-place").nth(place).click()
    seen = app.table.last_roll
    with page.expect_response(lambda r: "/demo/lay-out/" in r.url):
        page.locator("#demo-lay-out").click()
    assert sorted(d[1] for d in app.synthetic.dice) == [face, face]
    phones.wait_until(lambda: app.table.last_roll is not seen and len(app.table.last_roll) == 2)
    built = phones.tap(page, "#read-layout")
    assert built["type"] == "build" and built["seat"] == "Aki"
    assert [d and d["face"] for d in built["rows"][0]] == [face, face, None, None]
    phones.close()


def test_a_seat_picks_dice_on_its_phone_and_throws_them_again(appliance, browser):
    app, root = appliance
    table = app.table
    assert table.start_game("dieangler", SEATS, {}, seed=1)["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "choose", {"d6": 3, "special": ["d10"]})["ok"]
    for seat in ("Aki", "Ben"):
        assert table.act(seat, "uses", {"d10": "reapproach"})["ok"]
    phones = Phones(app, root, browser)
    phones.page.goto(root + "/")
    assert phones.tap(phones.page, "#demo-throw")["type"] == "throw"
    face = next(d[1] for d in app.synthetic.dice if d[0] == "red" and d[5] == 6)
    page = phones.seat("Aki")
    open_action(page, "rethrow")
    page.locator('#form-rethrow .pad[data-pad="picked"] button.pad-key', has_text=str(face)).first.click()
    event = phones.tap(page, "#demo-rethrow")
    assert event["type"] == "rethrow" and event["seat"] == "Aki" and event["picked"] == [face]
    phones.close()


def test_the_status_page_shows_the_cameras_picture(appliance, browser):
    from playwright.sync_api import expect

    app, root = appliance
    phones = Phones(app, root, browser)
    phones.page.goto(root + "/")
    expect(phones.page.locator("#camera")).to_be_visible()  # the synthetic camera's frame
    expect(phones.page.locator("#camera-none")).to_be_hidden()
    phones.close()
