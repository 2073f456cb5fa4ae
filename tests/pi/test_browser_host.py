"""The host page's safety in a real headless Chromium (390x844, a phone in one hand): Undo
and End ask first and say what will be lost; dismissing changes nothing; Undo then says
what it undid."""
from __future__ import annotations

import dataclasses

import pytest

from tests.pi.conftest import BROWSER_MARKS, SEATS3, declare, first_card

pytestmark = BROWSER_MARKS


@pytest.fixture
def served(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(dataclasses.replace(config, language="en"), demo=True, pin_factory=MockFactory(),
                      camera=None, detector=None, animate=False)
    assert appliance.table.start_game("alea", SEATS3, {"deck": "physical"}, seed=11)["ok"]
    port = appliance.serve_in_thread("127.0.0.1", 0)
    try:
        yield appliance, f"http://127.0.0.1:{port}"
    finally:
        appliance.close()


@pytest.mark.parametrize("lang, asks", [("en", "Undo this? Aki threw 5"), ("ja", "取り消しますか？ Akiが5を振った")])
def test_undo_and_end_ask_first_and_undo_says_what_it_undid(served, browser, lang, asks):
    from playwright.sync_api import expect

    appliance, root = served
    table = appliance.table
    assert table.act(None, "card", {"card": first_card(table)}, source="host")["ok"]
    for seat, value in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        declare(table, seat, value)
    assert table.typed_throw([{"colour": "red", "face": 5}])["ok"]  # round 1 ends: the host names a card
    page = browser.new_page(locale="en-US" if lang == "en" else "ja-JP", viewport={"width": 390, "height": 844},
                            extra_http_headers={"Accept-Language": lang})
    page.goto(root + "/host")
    page.fill("input[name=pin]", appliance.config.host_pin)
    page.click("#login-form button[type=submit]")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("#undo").click()
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("#end").click()
    assert asked[0].startswith(asks) and len(asked) == 2
    events = len(table.store.events(table.record.id))
    assert table.record is not None and events == 5  # dismissed: nothing changed
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#undo").click()
    expect(page.locator("#undone")).to_contain_text(asks.split("? ")[-1].split("？ ")[-1])
    assert len(table.store.events(table.record.id)) == events - 1
    page.close()


def test_the_start_form_offers_seat_colours_only_for_games_with_them(served, browser):
    from playwright.sync_api import expect

    appliance, root = served
    page = browser.new_page(locale="en-US", viewport={"width": 390, "height": 844})
    page.goto(root + "/host")
    page.fill("input[name=pin]", appliance.config.host_pin)
    page.click("#login-form button[type=submit]")
    page.locator("#new-game > summary").click()
    colour = page.locator("#start-form select.seat-colour").first
    expect(colour).to_be_visible()  # ALEA: seat colours say whose dice
    page.locator('#game-select label.tile:has(input[value="chiritsumo"])').click()
    expect(colour).to_be_hidden()  # Chiritsumo's dice colours are the game's, not the seats'
    page.locator('#game-select label.tile:has(input[value="alea"])').click()
    expect(colour).to_be_visible()
    page.close()
