"""A real headless Chromium plays a round of the demo through the pages.

The demo appliance is served by waitress in a thread; Chromium (Debian's package, driven
by Playwright) opens the status page and two seat pages, declares through a virtual seat
button and through a phone page, and sees the reveal and the scores change. Throws are
applied as typed dice (no camera), so the test does not depend on the model's accuracy;
the seat panel measures presses on a fake clock the test moves, so nothing sleeps.
"""
from __future__ import annotations

import dataclasses
import random
import re

import pytest

from tests.pi.conftest import BROWSER_MARKS, SEATS3, FakeClock, declare


pytestmark = BROWSER_MARKS


@pytest.fixture
def served(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    clock = FakeClock()
    config = dataclasses.replace(config, language="en")
    appliance = build(config, demo=True, pin_factory=MockFactory(), camera=None, detector=None,
                      panel_clock=clock, animate=False)
    appliance.table.demo.rng = random.Random(4)
    assert appliance.table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=21)["ok"]
    port = appliance.serve_in_thread("127.0.0.1", 0)
    try:
        yield appliance, f"http://127.0.0.1:{port}", clock
    finally:
        appliance.close()




def _hold_down(page, seat: str):
    """Put a finger on a virtual seat button until the page's press is answered; the button."""
    button = page.locator(f"#button-{seat}")
    button.hover()
    with page.expect_response(lambda r: r.url.endswith(f"/demo/press/{seat}")):
        page.mouse.down()
    return button


def _watch(page) -> list[str]:
    """What the page does, in order ("sent <part of the path>", "failed <url> (why)",
    "loaded <url>", and "script error: ..." or "crashed" where those happen): the message
    when a request goes astray."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(f"sent {r.url.rsplit('/', 2)[-2]}"))
    page.on("requestfailed", lambda r: seen.append(f"failed {r.url} ({r.failure})"))
    page.on("framenavigated", lambda f: seen.append(f"loaded {f.url}"))
    page.on("pageerror", lambda exc: seen.append(f"script error: {exc}"))
    page.on("crash", lambda _: seen.append("crashed"))
    return seen


def _press(page, seat: str, clock: FakeClock, hold: float) -> None:
    """Press a virtual seat button for ``hold`` seconds of the panel's clock."""
    _hold_down(page, seat)
    clock.advance(hold)
    with page.expect_response(lambda r: r.url.endswith(f"/demo/release/{seat}")):
        page.mouse.up()
    clock.advance(0.1)


def test_a_round_in_chromium(served, browser):
    from playwright.sync_api import expect

    appliance, root, clock = served
    tokens = appliance.table.record.tokens
    context = browser.new_context(locale="en-US", viewport={"width": 400, "height": 800})
    problems: list[str] = []  # script errors and failed loads (a 404 included) on any page
    context.on("page", lambda page: (
        page.on("pageerror", lambda exc: problems.append(str(exc))),
        page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)))
    status = context.new_page()
    status.goto(root + "/")
    expect(status.locator("#due-text")).to_contain_text("Secret choice: every seat chooses")
    aki = context.new_page()
    aki.goto(f"{root}/seat/{tokens['Aki']}")
    ben = context.new_page()
    ben.goto(f"{root}/seat/{tokens['Ben']}")

    # Aki declares 1 on the virtual seat button: one press, then hold to lock.
    _press(aki, "Aki", clock, 0.1)
    _press(aki, "Aki", clock, 1.5)
    expect(aki.locator("#my-led")).to_have_text("locked")
    expect(aki.locator("#mine")).to_have_text("Locked: 1")
    # Ben declares 2 on his phone page.
    ben.locator("#form-declare label.value", has_text="2").click()
    ben.locator("#send-declare").click()
    expect(ben.locator("#mine")).to_have_text("Locked: 2")
    expect(ben.locator("#form-declare")).to_have_count(0)
    # Nothing shows on the status page before everyone has locked.
    expect(status.locator("#secret")).to_be_visible()
    expect(status.locator("td.declared")).to_have_count(0)
    # Chie declares 0 with the status page's virtual button (just a hold).
    _press(status, "Chie", clock, 1.5)

    # The reveal reaches every page at once.
    expect(status.locator("td.declared")).to_have_text(["1", "2", "0"])
    expect(aki.locator("td.declared")).to_have_text(["1", "2", "0"])
    expect(status.locator("#due-text")).to_have_text("Aki to throw 1 red die.")

    # The throw control rolls for whoever is due until someone scores.
    scores = status.locator("td.score")
    expect(scores).to_have_text(["0", "0", "0"])
    status.locator("#demo-throw").click()
    status.wait_for_function(
        "() => [...document.querySelectorAll('td.score')].some(td => td.textContent.trim() !== '0')")
    assert any(text.strip() != "0" for text in scores.all_text_contents())
    # ... and on the phones.
    ben.wait_for_function(
        "() => [...document.querySelectorAll('td.score')].some(td => td.textContent.trim() !== '0')")
    expect(ben.locator(".log li").first).not_to_be_empty()
    context.close()
    assert problems == []


def test_a_click_on_a_virtual_seat_button_is_a_press(config, browser):
    """A click sends its press and its release together. On the panel's real clock the
    page keeps a tap's length between them, so each click adds one instead of being
    dropped as electrical noise."""
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(dataclasses.replace(config, language="en"), demo=True, pin_factory=MockFactory(),
                      camera=None, detector=None, animate=False)
    try:
        assert appliance.table.start_game("alea", SEATS3, {"deck": "dealt"}, seed=21)["ok"]
        root = f"http://127.0.0.1:{appliance.serve_in_thread('127.0.0.1', 0)}"
        page = browser.new_page()
        page.goto(f"{root}/seat/{appliance.table.record.tokens['Aki']}")
        for _ in range(2):
            with page.expect_response(lambda r: r.url.endswith("/demo/release/Aki")):
                page.click("#button-Aki")
        assert appliance.table.buttons.panel.value("Aki") == 2
    finally:
        appliance.close()


def test_a_page_update_under_a_holding_finger_does_not_release_the_seat_button(served, browser):
    """The page moves while Aki holds her virtual button (an update pushes the button away
    from under the pointer): the hold goes on until the finger lifts, as on the real button,
    instead of being cut short by the pointer leaving the button."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    appliance, root, clock = served
    page = browser.new_page(locale="en-US")
    seen = _watch(page)
    page.goto(f"{root}/seat/{appliance.table.record.tokens['Aki']}")
    button = _hold_down(page, "Aki")
    box = button.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 1  # where the finger stays
    button.evaluate("b => b.parentNode.insertBefore(Object.assign(document.createElement('div'), "
                    "{style: 'height: 300px'}), b)")
    page.mouse.move(x, y)
    assert page.evaluate("([x, y]) => document.elementFromPoint(x, y) !== document.getElementById('button-Aki')",
                         [x, y])
    assert button.evaluate("b => b.classList.contains('pressed')")  # still held
    clock.advance(1.5)
    assert "sent release" not in seen, f"released before the finger lifted: {seen}"

    def answer_after_the_lock_is_shown(route):
        # The lock changes the page's forms, so the page must load again; the release's own
        # answer is held back until the page has heard of the lock, as on a busy table, and
        # the reload must wait for it instead of cutting it off.
        answer = route.fetch()
        page.wait_for_function("() => document.getElementById('my-led').dataset.led === 'locked'")
        route.fulfill(response=answer)

    page.route("**/demo/release/Aki", answer_after_the_lock_is_shown)
    try:
        with page.expect_response(lambda r: r.url.endswith("/demo/release/Aki")):
            page.mouse.up()
    except PlaywrightTimeout:
        raise AssertionError(f"no answer to the release within 30 s; the page: {seen}") from None
    expect(button).not_to_have_class(re.compile(r"\bpressed\b"))  # on the page as it reloads
    expect(page.locator("#my-led")).to_have_text("locked")  # the whole hold counted
    page.close()


def test_a_page_that_must_reload_waits_for_the_holding_finger(served, browser):
    """Aki's declaration locks from her phone while her finger still holds the virtual button
    (her forms change, so the page must load again): the page waits for the finger to lift
    and sends the release first, instead of reloading under it and leaving the pin pressed."""
    from playwright.sync_api import expect

    appliance, root, clock = served
    page = browser.new_page(locale="en-US")
    seen = _watch(page)
    page.goto(f"{root}/seat/{appliance.table.record.tokens['Aki']}")
    pin = appliance.panel.button_pin("Aki")
    up = pin.state
    _hold_down(page, "Aki")
    assert pin.state != up
    assert declare(appliance.table, "Aki", 2)["ok"]
    page.wait_for_function("() => document.getElementById('my-led').dataset.led === 'locked'")  # heard of it
    loads = [k for k, what in enumerate(seen) if what.startswith("loaded")]
    assert loads[-1] != len(seen) - 1, seen
    with page.expect_response(lambda r: r.url.endswith("/demo/release/Aki"), timeout=10_000):
        page.mouse.up()
    expect(page.locator("#form-declare")).to_have_count(0)  # and then the page loaded again
    loads = [k for k, what in enumerate(seen) if what.startswith("loaded")]
    assert seen.index("sent release") < loads[-1], seen
    assert pin.state == up  # let go
    page.close()


def test_a_finger_put_down_as_a_reload_is_due_is_waited_for(served, browser):
    """Aki's declaration from her phone is answered after the page has heard of the lock, so
    the page must load again; her finger lands on the virtual button between the answer and
    the reload: the page waits for the finger to lift instead of reloading under it."""
    appliance, root, clock = served
    page = browser.new_page(locale="en-US")
    seen = _watch(page)
    page.goto(f"{root}/seat/{appliance.table.record.tokens['Aki']}")
    page.evaluate("window.oldPage = true")

    def answer_after_the_lock_is_shown(route):
        answer = route.fetch()
        page.wait_for_function("() => document.getElementById('my-led').dataset.led === 'locked'")
        # The finger lands just before the page's next task (where its reload would run).
        page.evaluate("""() => {
            const later = window.setTimeout;
            window.setTimeout = function (f, ms) {
                if (!ms && !window.fingerDown) {
                    window.fingerDown = true;
                    document.getElementById('button-Aki').dispatchEvent(
                        new PointerEvent('pointerdown', {pointerId: 1, bubbles: true, cancelable: true}));
                }
                if (ms) { return later.apply(this, arguments); }
                return later(function () {
                    f();
                    sessionStorage.setItem("afterTask", document.body.inert ? "reloading" : "stayed");
                }, 0);
            };
        }""")
        route.fulfill(response=answer)

    page.route("**/act", answer_after_the_lock_is_shown)
    page.locator("#form-declare label.value", has_text="2").click()
    with page.expect_response(lambda r: r.url.endswith("/demo/press/Aki")):
        page.locator("#send-declare").click()
    after = page.wait_for_function("() => sessionStorage.getItem('afterTask')").json_value()  # kept by a reload
    assert after == "stayed", f"reloaded under the finger: {seen}"
    with page.expect_response(lambda r: r.url.endswith("/demo/release/Aki")):
        page.locator("#button-Aki").dispatch_event("pointerup", {"pointerId": 1})
    page.wait_for_function("() => !window.oldPage && document.readyState !== 'loading'")
    assert seen.index("sent release") < max(k for k, what in enumerate(seen) if what.startswith("loaded")), seen
    page.close()


def test_an_answer_survives_the_reload_it_causes(served, browser):
    """Ben's declaration from his phone changes his forms, so the page loads again: the
    answer ("Sent.") is still shown on the page that comes back."""
    appliance, root, clock = served
    page = browser.new_page(locale="en-US")
    page.goto(f"{root}/seat/{appliance.table.record.tokens['Ben']}")
    page.evaluate("window.oldPage = true")
    page.locator("#form-declare label.value", has_text="2").click()
    page.locator("#send-declare").click()
    page.wait_for_function("""() => !window.oldPage && document.readyState !== 'loading'
        && !document.getElementById('form-declare')
        && !document.getElementById('toast').hidden && document.getElementById('toast').textContent === 'Sent.'""")
    page.close()


def test_the_host_page_waits_for_a_field_being_typed_in(served, browser):
    """The game moves on (a throw is due, so the host's forms change) while the host types a
    seat's name: the page does not load again under the typing, and does once the field is
    left."""
    from playwright.sync_api import expect

    appliance, root, clock = served
    page = browser.new_page(locale="en-US")
    page.goto(root + "/host")
    page.fill("input[name=pin]", appliance.config.host_pin)
    page.click("#login-form button[type=submit]")
    page.locator("#new-game > summary").click()  # a game runs: starting another is folded away
    expect(page.locator("#start-form")).to_be_visible()
    page.evaluate("window.oldPage = true")
    name = page.locator("#start-form input[name=name_0]")
    name.click()
    page.keyboard.type("ko")
    for seat, value in (("Aki", 1), ("Ben", 2), ("Chie", 2)):
        assert declare(appliance.table, seat, value)["ok"]
    expect(page.locator("#due-text")).to_have_text("Aki to throw 1 red die.")  # the update arrived
    assert page.evaluate("window.oldPage === true"), "reloaded under the typing"
    expect(page.locator("#form-throw")).to_have_count(0)
    expect(name).to_have_value("Akiko")
    page.evaluate("document.activeElement.blur()")
    page.wait_for_function("() => !window.oldPage && document.readyState !== 'loading'")
    expect(page.locator("#form-throw")).to_be_visible()
    page.close()


def test_a_refused_button_says_why(served, browser):
    from playwright.sync_api import expect

    appliance, root, clock = served
    for seat, value in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        assert declare(appliance.table, seat, value)["ok"]
    page = browser.new_page(locale="en-US")
    # A phone whose page has not heard of the last change (its live updates are held up)
    # still shows the throw control when another phone has made the throw.
    page.route(re.compile(r"/(events|api/live)$"), lambda route: route.abort())
    page.goto(root + "/")
    expect(page.locator("#due-text")).to_have_text("Aki to throw 1 red die.")
    assert appliance.table.demo.throw()["ok"]  # made elsewhere: the next round's declarations are open
    page.locator("#demo-throw").click()
    # where the eye is: in the toast at the thumb, and beside the button that was tapped
    expect(page.locator("#toast")).to_have_text("Nobody has to throw right now.")
    expect(page.locator("#live .demo-hand .form-error")).to_have_text("Nobody has to throw right now.")
    page.close()


def test_the_host_page_in_chromium(served, browser):
    from playwright.sync_api import expect

    appliance, root, clock = served
    table = appliance.table
    page = browser.new_page(locale="en-US")
    page.goto(root + "/host")
    page.fill("input[name=pin]", "1234")
    page.click("#login-form button[type=submit]")
    expect(page.locator("#login-form .notice.error")).to_have_text("Wrong PIN. Try again.")
    page.fill("input[name=pin]", appliance.config.host_pin)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#seat-links svg")).to_have_count(3)  # a QR code per seat
    for seat, value in (("Aki", 1), ("Ben", 2), ("Chie", 2)):
        declare(table, seat, value)
    # The page reloads its forms by itself once a throw is due.
    # dice are tapped on the throw's pad (a red die showing 4), never typed
    page.locator("#form-throw .pad-keys button", has_text="4").click()
    expect(page.locator("#throw-dice")).to_have_value("red 4")
    page.locator("#send-throw").click()
    expect(page.locator("#correct-dice")).to_have_value("red 4")
    # a correction is tapped too: the die, then the face it really shows
    page.locator("#correct-form .pad-die").first.click()
    page.locator("#correct-form .pad-keys button", has_text="6").click()
    expect(page.locator("#correct-dice")).to_have_value("red 6")
    page.locator("#correct-form button[type=submit]").click()
    expect(page.locator("#toast")).to_have_text("Sent.")
    assert table.store.events(table.record.id)[-1]["dice"] == [{"colour": "red", "face": 6}]
    page.reload()  # Undo names what it takes back: the corrected throw
    expect(page.locator("#due-text")).to_have_text("Ben and Chie to throw 2 blue and 2 green dice.")
    page.once("dialog", lambda dialog: dialog.accept())  # Undo asks first
    page.locator("#undo").click()
    expect(page.locator("#due-text")).to_have_text("Aki to throw 1 red die.")
    page.close()


def test_the_host_page_sees_a_game_end_at_a_reveal(served, browser):
    """ALEA's last round, everyone declares 0: the game ends at the reveal. The host page had
    no form before and has none after, yet it turns to the finished game by itself."""
    from playwright.sync_api import expect

    appliance, root, clock = served
    table = appliance.table
    assert table.start_game("alea", SEATS3, {"deck": "dealt", "target": 1}, seed=5)["ok"]
    for seat, value in (("Aki", 1), ("Ben", 0), ("Chie", 0)):
        assert declare(table, seat, value)["ok"]
    assert table.typed_throw([{"colour": "red", "face": 6}])["ok"]  # Ben has 3: the next round is the last
    page = browser.new_page(locale="en-US")
    page.goto(root + "/host")
    page.fill("input[name=pin]", appliance.config.host_pin)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#end")).to_have_text("End the game")
    for seat in ("Aki", "Ben", "Chie"):
        assert declare(table, seat, 0)["ok"]
    assert not table.running()
    expect(page.locator("#end")).to_have_text("Put the finished game away")
    expect(page.locator("#finished")).to_be_visible()
    page.close()


def test_the_rethrow_pad_names_a_d10_in_the_pages_words_and_sends_its_name(served, browser):
    """The Die-angler's rethrow, on a Japanese seat page: the key for the d10 reads 10面体
    (the glossary's word), and the event still names it "d10"."""
    from playwright.sync_api import expect

    appliance, root, clock = served
    table = appliance.table
    assert table.start_game("dieangler", SEATS3, {}, seed=1)["ok"]
    for seat in ("Aki", "Ben", "Chie"):
        assert table.act(seat, "choose", {"d6": 3, "special": ["d10"]})["ok"]
    for seat in ("Aki", "Ben", "Chie"):
        assert table.act(seat, "uses", {"d10": "reapproach"})["ok"]
    (throw,) = table.expects_now()["inputs"]
    assert table.typed_throw([{"colour": d["colour"], "face": 3 if d["sides"] == 6 else 5, "sides": d["sides"]}
                              for d in throw["dice"] for _ in range(d["count"])])["ok"]
    seat = table.expects_now()["inputs"][0]["seats"][0]  # the first seat whose turn it is
    page = browser.new_page(locale="ja-JP")
    page.goto(f"{root}/seat/{table.record.tokens[seat]}")
    page.locator("details.action summary", has_text="振り直し").first.click()
    picked = page.locator('#form-rethrow .pad[data-pad="picked"]')
    expect(picked.locator("button.pad-key", has_text="d10")).to_have_count(0)
    picked.locator("button.pad-key", has_text="10面体").click()
    expect(page.locator('#form-rethrow input.typed[name="picked"]')).to_have_value("d10")
    page.close()


def test_the_camera_card_says_there_is_no_picture(served, browser):
    from playwright.sync_api import expect

    appliance, root, _ = served  # this appliance has no camera
    page = browser.new_page(locale="en-US")
    page.goto(root + "/")
    expect(page.locator("#camera-none")).to_have_text("No picture from the camera now.")
    expect(page.locator("#camera")).to_be_hidden()
    page.close()
