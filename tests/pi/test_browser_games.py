"""Whole games through the pages in a real headless Chromium, one per game that has a
browser walk here (Sky City ALEA, Lord of the Die-angler): secret choices on virtual seat
buttons and on phone pages, throws rolled onto the synthetic camera and read back by the
real detector (a misread throw is applied as thrown from the status page, as a host
would), special dice typed on the seat pages, turns ended on the seat pages.

The test reads which input the table waits for from the table itself and then does what
a player would do on the pages; every page must stay free of script errors.
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from tests.pi.conftest import BROWSER_MARKS, FakeClock, open_action

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}, {"name": "Chie", "colour": "green"}]

pytestmark = [*BROWSER_MARKS, pytest.mark.slow]


@pytest.fixture
def appliance(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    clock = FakeClock()
    config = dataclasses.replace(config, language="en")
    app = build(config, demo=True, pin_factory=MockFactory(), panel_clock=clock, animate=False)
    if app.table.camera.detector is None:
        app.close()
        pytest.skip("no dice model in models/")
    app.table.demo.rng = random.Random(5)
    app.table.camera.frame_interval = 0.03
    port = app.serve_in_thread("127.0.0.1", 0)
    app.table.start()
    try:
        yield app, f"http://127.0.0.1:{port}", clock
    finally:
        app.close()




class Table:
    """The pages of one game: the status page and a phone per seat."""

    def __init__(self, appliance, root, clock, browser) -> None:
        self.appliance, self.root, self.clock = appliance, root, clock
        self.table = appliance.table
        self.context = browser.new_context(locale="en-US", viewport={"width": 420, "height": 900})
        self.problems: list[str] = []
        self.context.on("page", lambda page: (
            page.on("pageerror", lambda exc: self.problems.append(str(exc))),
            page.on("console", lambda msg: self.problems.append(msg.text) if msg.type == "error" else None)))
        self.status = self.context.new_page()
        self.status.goto(root + "/")
        self.phones = {}
        for seat, token in self.table.record.tokens.items():
            page = self.context.new_page()
            page.goto(f"{root}/seat/{token}")
            self.phones[seat] = page

    def events(self) -> int:
        return len(self.table.store.events(self.table.record.id))

    def wait_for_event(self, before: int, timeout: float = 20.0) -> None:
        """Until the table has stored another event (awaited on the table, no sleeping)."""
        import time

        deadline = time.monotonic() + timeout
        version = self.table.version
        while self.events() == before:
            if time.monotonic() > deadline:
                raise AssertionError(f"no event within {timeout} s; due: {self.table.snapshot()['due']['en']}")
            version = self.table.wait_for_change(version, timeout=0.5)

    def press(self, seat: str, hold: float) -> None:
        page = self.phone(seat)  # not a page about to reload itself: the press would be lost
        button = page.locator(f"#button-{seat}")
        button.hover()
        with page.expect_response(lambda r: r.url.endswith(f"/demo/press/{seat}")):
            page.mouse.down()
        self.clock.advance(hold)
        with page.expect_response(lambda r: r.url.endswith(f"/demo/release/{seat}")):
            page.mouse.up()
        self.clock.advance(0.1)

    def button_choice(self, seat: str, value: int) -> None:
        for _ in range(value):
            self.press(seat, 0.1)
        self.press(seat, 1.5)

    def phone(self, seat: str):
        """The seat's page, loaded afresh (its forms follow what the game waits for)."""
        from playwright.sync_api import Error

        page = self.phones[seat]
        forms = self.table.snapshot(seat)["forms"]
        try:  # the page reloads itself when its forms change: wait for that first
            # (no body yet while the new page is loading: not a page error, just not there yet)
            page.wait_for_function("forms => !!document.body && document.body.getAttribute('data-forms') === forms",
                                   arg=forms, timeout=10_000)
        except Error:  # a fresh page, not a goto that the old page's own reload could cut off
            page.close()
            page = self.phones[seat] = self.context.new_page()
            page.goto(f"{self.root}/seat/{self.table.record.tokens[seat]}")
        page.wait_for_load_state()
        return page

    def throw(self) -> None:
        """The demo's throw control rolls the dice due onto the synthetic camera; a throw
        the camera misread is applied as thrown; dice it cannot read are typed by their
        owners on their phones."""
        before = self.events()
        with self.status.expect_response(lambda r: r.url.endswith("/demo/throw")):
            self.status.locator("#demo-throw").click()
        import time

        deadline = time.monotonic() + 60
        version = self.table.version
        while self.events() == before and time.monotonic() < deadline:
            waiting = [s for s in self.phones if self.table.snapshot(s)["to_type"]]
            if waiting:
                for seat in waiting:
                    page = self.phone(seat)
                    for i, field in enumerate(page.locator("#form-faces fieldset").all()):
                        field.locator("label.value", has_text=str(1 + (i + len(seat)) % 9)).first.click()
                    page.locator("#send-faces").click()
                break
            if self.table.snapshot()["prompt"] and self.table.demo.pending:
                self.status.goto(self.root + "/")
                self.status.locator("#demo-apply").click()
                break
            version = self.table.wait_for_change(version, timeout=0.5)
        self.wait_for_event(before, timeout=60)

    def submit(self, inp: dict, seat: str | None, choose=None) -> None:
        """Send ``inp`` from ``seat``'s page (the host page when None) with the form's own
        defaults: the first option of every list, the first number, no box ticked;
        ``choose(page)`` may set fields first."""
        before = self.events()
        page = self.phone(seat) if seat is not None else self.host()
        open_action(page, inp["type"])
        form = page.locator(f"#form-{inp['type']}")
        for field in inp.get("fields", []):
            tiles = form.locator(f'fieldset[data-field="{field["name"]}"]').locator("label.value, label.tile")
            if field["kind"] in ("number", "choice", "bool") and tiles.count():
                if not form.locator(f'input[name="{field["name"]}"]:checked').count():
                    (tiles.nth(1) if field["kind"] == "bool" else tiles.first).click()  # bool: "no"
        if choose is not None:
            choose(page)
        form.locator(f"#send-{inp['type']}").click()
        self.wait_for_event(before)

    def host(self):
        if not hasattr(self, "host_page"):
            self.host_page = self.context.new_page()
            self.host_page.goto(self.root + "/host")
            self.host_page.fill("input[name=pin]", self.appliance.config.host_pin)
            self.host_page.click("#login-form button[type=submit]")
        else:
            self.host_page.goto(self.root + "/host")
        return self.host_page

    def close(self) -> None:
        self.context.close()
        assert self.problems == []


def test_a_whole_game_of_sky_city_in_chromium(appliance, browser):
    from playwright.sync_api import expect

    app, root, clock = appliance
    assert app.table.start_game("alea", SEATS, {"target": 4}, seed=3)["ok"]
    pages = Table(app, root, clock, browser)
    rng = random.Random(1)
    for _ in range(200):
        exp = app.table.expects_now()
        if not exp["inputs"]:
            break
        (inp,) = exp["inputs"]
        before = pages.events()
        if inp["type"] == "declare":
            for seat in list(inp["seats"]):
                if seat == "Aki":
                    pages.button_choice(seat, rng.randint(0, 2))
                else:
                    page = pages.phone(seat)
                    page.locator("#form-declare label.value", has_text=str(rng.randint(0, 2))).click()
                    page.locator("#send-declare").click()
                    expect(page.locator("#mine")).to_contain_text("Locked")
            pages.wait_for_event(before)
        else:
            pages.throw()
    view = app.table.snapshot()["view"]
    assert view["phase"] == "over" and view["winners"]
    expect(pages.status.locator("#winner")).to_contain_text(view["winners"][0])
    expect(pages.phones["Ben"].locator("#due-text")).to_contain_text("Game over")
    pages.close()


def test_a_whole_game_of_the_die_angler_in_chromium(appliance, browser):
    from playwright.sync_api import expect

    app, root, clock = appliance
    fish = [{"id": "F1", "target": 8}, {"id": "F2", "target": 12, "condition": "= ="},
            {"id": "F3", "target": 10, "condition": "≠"}]  # two fish played, one set aside
    assert app.table.start_game("dieangler", SEATS, {"fish": fish, "play": 2}, seed=4)["ok"]
    pages = Table(app, root, clock, browser)
    rng = random.Random(2)
    rethrown = 0
    for _ in range(300):
        exp = app.table.expects_now()
        if not exp["inputs"]:
            break
        before = pages.events()
        inp = exp["inputs"][0]
        if inp["type"] == "choose":
            seats = sorted({s for i in exp["inputs"] if i["type"] == "choose" for s in i["seats"]})
            for seat in seats:
                if seat == "Aki":
                    pages.button_choice(seat, rng.randint(1, 3))  # d6 only: specials need the phone
                    continue
                page = pages.phone(seat)
                page.locator("#form-choose label.value", has_text=str(rng.randint(1, 3))).click()
                specials = page.locator('#form-choose fieldset[data-field="special"] label.tile')
                if specials.count():
                    specials.first.click()
                page.locator("#send-choose").click()
                expect(page.locator("#mine")).to_contain_text("Locked")
            pages.wait_for_event(before)
        elif inp["type"] == "uses":
            page = pages.phone(inp["seats"][0])
            for field in page.locator("#form-uses fieldset").all():
                field.locator("label.tile").nth(rng.randint(0, 1)).click()
            page.locator("#send-uses").click()
            pages.wait_for_event(before)
        elif inp["type"] == "throw":
            pages.throw()
        elif inp["type"] in ("rethrow", "lure", "done"):
            rethrow = next((i for i in exp["inputs"] if i["type"] == "rethrow"), None)
            if rethrow is not None and rethrown < 2:
                seat = rethrow["seats"][0]
                hand = next(h for h in app.table.snapshot()["view"]["hands"] if h["seat"] == seat)
                d6 = next((d for d in hand["dice"] if d.get("sides", 6) == 6), None)
                if d6 is not None:
                    page = pages.phone(seat)
                    open_action(page, "rethrow")
                    form = page.locator("#form-rethrow")
                    form.locator('fieldset[data-field="picked"] .pad-keys button', has_text=str(d6["face"])).first.click()
                    tap_die(form.locator('fieldset[data-field="dice"]'), d6["colour"], rng.randint(1, 6))
                    expect(page.locator("#rethrow-picked")).to_have_value(str(d6["face"]))
                    page.locator("#send-rethrow").click()
                    pages.wait_for_event(before)
                    rethrown += 1
                    continue
            done = next(i for i in exp["inputs"] if i["type"] == "done")
            page = pages.phone(done["seats"][0])
            open_action(page, "done")
            page.locator("#send-done").click()
            pages.wait_for_event(before)
        else:
            raise AssertionError(f"unexpected input {inp}")
    view = app.table.snapshot()["view"]
    assert view["phase"] == "over", view["phase"]
    assert rethrown >= 1
    expect(pages.status.locator("#catches")).to_be_visible()
    expect(pages.status.locator("#due-text")).to_contain_text("Game over")
    pages.close()


def tap_die(fieldset, colour: str, face: int) -> None:
    """Add a die on a dice pad: its colour (where the pad offers several), then its face."""
    kinds = fieldset.locator(".pad-kind")
    if kinds.count():
        kinds.filter(has_text=colour).first.click()
    fieldset.get_by_role("button", name=f"{colour} {face}", exact=True).click()


def tap_pyramid(form, rows) -> None:
    """Build ``rows`` (bottom row first) on a layout pad: tap each die in the tray, then its
    place. The pad draws the top row first, so a place's index counts the rows above it."""
    sizes = [len(row) for row in rows]
    for r, row in enumerate(rows):
        above = sum(sizes[r + 1:])
        for k, die in enumerate(row):
            if die is None:
                continue
            form.locator(f'.layout-tray button[aria-label="{die.colour} {die.face}"]').first.click()
            form.locator(".layout-place").nth(above + k).click()


def test_a_whole_solo_game_of_chiritsumo_in_chromium(appliance, browser):
    """Throws read by the camera; each pyramid entered on the seat page as its rows (the
    player's best pyramid, as the page's hint shows it); the swaps chosen on the seat page."""
    import json

    from playwright.sync_api import expect

    from engines.chiritsumo_pyramid import best_pyramid

    app, root, clock = appliance
    assert app.table.start_game("chiritsumo", [{"name": "Aki", "colour": "green"}], {}, seed=1)["ok"]
    pages = Table(app, root, clock, browser)
    for _ in range(100):
        exp = app.table.expects_now()
        if not exp["inputs"]:
            break
        inp = exp["inputs"][0]
        before = pages.events()
        if inp["type"] == "throw":
            pages.throw()
        elif inp["type"] == "build":
            thrown = app.table.snapshot()["view"]["pyramids"]["Aki"]["throw"]
            rows, _, _ = best_pyramid(thrown)
            typed = [[[d.colour, d.face] if d is not None else None for d in row] for row in rows]
            page = pages.phone("Aki")
            tap_pyramid(page.locator("#form-build"), rows)
            expect(page.locator("#build-rows")).to_have_value(json.dumps(typed, separators=(",", ":")))
            page.locator("#send-build").click()
            pages.wait_for_event(before)
        elif inp["type"] == "swap":
            page = pages.phone("Aki")
            page.locator('#form-swap fieldset[data-field="give"] label.tile').first.click()
            page.locator("#send-swap").click()
            pages.wait_for_event(before)
        else:
            raise AssertionError(f"unexpected input {inp}")
    view = app.table.snapshot()["view"]
    assert view["phase"] == "over" and view["rank"]
    expect(pages.status.locator("#rank")).to_be_visible()
    expect(pages.status.locator(".pyramid").first).to_be_visible()
    pages.close()


def test_a_whole_game_of_flying_dwarves_in_chromium(appliance, browser):
    """Handicaps, secret propulsion cards on a virtual button and on the phones (a card not
    in hand refused on the button, said on that seat's page only), moves, lots and mines on
    the seat pages, on a short board so that the game ends in a few rounds."""
    from playwright.sync_api import expect

    app, root, clock = appliance
    board = ["start", "mine ?", "lot", "treasure 1", "wasteland", "mine 1"]
    assert app.table.start_game("flyingdwarves", SEATS, {"board": board}, seed=2)["ok"]
    pages = Table(app, root, clock, browser)
    refused_once = False
    for _ in range(400):
        exp = app.table.expects_now()
        if not exp["inputs"]:
            break
        inp = exp["inputs"][0]
        if inp.get("secret"):
            before = pages.events()
            choosers = [s for i in exp["inputs"] if i.get("secret") for s in i["seats"]]
            for seat in choosers:
                hand = app.table.snapshot(seat)["view"]["mine"]["hand"]
                top = inp["fields"][0]["max"]
                if seat == "Aki":
                    if not refused_once and any(c not in hand for c in range(top + 1)):
                        missing = next(c for c in range(top + 1) if c not in hand)
                        pages.button_choice(seat, missing)  # a card Aki does not hold
                        expect(pages.phone("Aki").locator("#note")).to_be_visible()
                        assert app.table.snapshot()["warning"] is None  # nobody else is told
                        refused_once = True
                    pages.button_choice(seat, hand[-1])
                else:
                    page = pages.phone(seat)
                    page.locator("#form-propel label.value", has_text=str(hand[-1])).click()
                    page.locator("#send-propel").click()
                    if seat != choosers[-1]:
                        expect(page.locator("#chosen")).to_have_text(str(hand[-1]))
                    else:  # the last lock reveals every card: the played cards replace it
                        expect(page.locator("#played")).to_contain_text(f"{seat} {hand[-1]}")
            pages.wait_for_event(before)
            continue
        # This walk plays no item: the mover moves, a seat with priority passes.
        types = {i["type"]: i for i in exp["inputs"]}
        inp = types.get("move") or types.get("pass") or inp
        pages.submit(inp, inp["seats"][0] if inp["seats"] else None)
    view = app.table.snapshot()["view"]
    assert view["phase"] == "over" and view["winners"] and len(view["finished"]) >= 2
    assert refused_once
    expect(pages.status.locator("#finished")).to_be_visible()
    expect(pages.status.locator("#due-text")).to_contain_text("Game over")
    pages.close()


def test_a_whole_game_of_ari_express_in_chromium(appliance, browser):
    """Throws read by the camera, dice kept and tapes built on the turn player's phone (faces
    and both ends typed into the form), the die handed on placed or passed on the other
    phone, until three colours are complete; the status page draws the network."""
    from playwright.sync_api import expect

    app, root, clock = appliance
    seats = SEATS[:2]
    assert app.table.start_game("ariexpress", seats, {}, seed=4)["ok"]
    pages = Table(app, root, clock, browser)
    colours = iter(["red", "blue", "yellow", "green"])

    def fill_counts(form, field: dict, faces: list[int]) -> None:
        for k, option in enumerate(field["options"]):
            form.locator(f'input[name="{field["name"]}.{k}"]').fill(str(faces.count(option["value"])))

    for _ in range(60):
        exp = app.table.expects_now()
        if not exp["inputs"]:
            break
        types = {i["type"]: i for i in exp["inputs"]}
        view = app.table.snapshot()["view"]
        if "throw" in types:
            pages.throw()
        elif "keep" in types:
            inp = types["keep"]
            keep = sorted(view["thrown"])[: inp["fields"][0]["min"]]
            pages.submit(inp, inp["seats"][0], lambda page: fill_counts(page.locator("#form-keep"), inp["fields"][0], keep))
        elif view["phase"] == "turn" and "build" in types and len(view["kept"]) >= 2:
            inp, colour = types["build"], next(colours)

            def build(page, inp=inp, colour=colour):
                form = page.locator("#form-build")
                fill_counts(form, inp["fields"][0], view["kept"][:2])
                numbers = form.locator('fieldset[data-field="tape.faces"] .pad-keys')
                numbers.get_by_role("button", name="3", exact=True).click()
                numbers.get_by_role("button", name="5", exact=True).click()
                expect(form.locator('input[name="tape.faces"]')).to_have_value("3 5")
                # the tape's two ends are tapped on the board: the first tap is its start
                page.locator(f'#network [data-pick="{colour}-1"]').click()
                page.locator(f'#network [data-pick="{colour}-2"]').click()
                for end, nest in (("from", f"{colour}-1"), ("to", f"{colour}-2")):
                    assert form.evaluate("(f, name) => new FormData(f).get(name)", f"tape.{end}") == nest

            pages.submit(inp, inp["seats"][0], build)
        elif "place" in types:
            pages.submit(types["place"], types["place"]["seats"][0])
        else:
            pages.submit(types["pass"], types["pass"]["seats"][0])
    view = app.table.snapshot()["view"]
    assert view["phase"] == "over" and len(view["complete"]) == 3 and view["winners"] == ["Aki"]
    expect(pages.status.locator("#network")).to_be_visible()
    expect(pages.status.locator("#network [data-worker]")).to_have_count(6)
    expect(pages.status.locator("#runs")).to_be_visible()
    expect(pages.status.locator("#due-text")).to_contain_text("Game over")
    pages.close()
