"""Every game's pages as a phone at the table sees them: 390x844, in Japanese and English.

Each game is played some random steps through the table; then its status page, the page of
the seat due and the host page must fit the phone's width (no horizontal scroll), the
Japanese pages must show no English words apart from names, dice colours and a few fixed
names (LED, QR, the game titles), no script error may happen, and axe-core (from npm, run
by .ci/browser) must find nothing serious or critical. Screenshots of every page are kept
in build/screenshots/ as the test's artefacts.
"""
from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

import engines
from engines.core import COLOURS as COLOUR_NAMES
from tests.pi.conftest import BROWSER_MARKS
from tests.pi.test_games import random_step

pytestmark = [*BROWSER_MARKS, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "build" / "screenshots"
NAMES = ["Aki", "Ben", "Chie", "Dai"]
COLOURS = ["red", "blue", "green", "yellow"]
ENGLISH = re.compile(r"[A-Za-z]{3,}")
# Words the Japanese page may show in Latin letters: seat names, dice colours, the product
# and the English game titles, units of the hardware.
ALLOWED = set(NAMES) | {"dicetable", "English", "LED", "QR", "FLYING", "DWARVES", "ALEA", "PIN"} | set(COLOUR_NAMES) | {
    # Two game logs quote English words in their Japanese lines, and log lines belong to the
    # scripts' final views, which must replay byte-identical: ALEA's trap card notation
    # ("6 6 and total >= 30") and the Die-angler's fishing order ("Aki and Ben / Chika").
    "and", "or", "total"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from gpiozero.pins.mock import MockFactory

    from pi import config as config_module
    from pi.appliance import build

    base = config_module.load(None)
    config = dataclasses.replace(base, data_dir=tmp_path_factory.mktemp("data"), seats=base.seats[:4],
                                 host_pin="4821", language="en")
    app = build(config, demo=True, pin_factory=MockFactory(), animate=False)
    port = app.serve_in_thread("127.0.0.1", 0)
    try:
        yield app, f"http://127.0.0.1:{port}"
    finally:
        app.close()


def _phone(browser, root: str, lang: str, problems: list[str]):
    """(context, page): a phone of 390x844 in ``lang``, its script errors added to ``problems``."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True,
                                  locale="ja-JP" if lang == "ja" else "en-US")
    context.add_cookies([{"name": "lang", "value": lang, "url": root}])
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    return context, page


def _check(page, name: str, lang: str, problems: list[str]) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{lang}.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > 390:
        problems.append(f"{name} ({lang}) is {width} px wide on a 390 px phone")
    if lang == "ja":
        text = page.evaluate("document.querySelector('main').innerText")
        english = sorted(set(ENGLISH.findall(text)) - ALLOWED)
        if english:
            problems.append(f"{name} (ja) shows English: {english[:12]}")
    if AXE.exists():
        page.add_script_tag(path=str(AXE))
        found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => v.id + ': ' + v.nodes.slice(0, 2).map(n => n.target.join(' ')).join(', '))""")
        problems.extend(f"{name} ({lang}) axe {v}" for v in found)


@pytest.mark.parametrize("game", engines.GAMES)
def test_every_page_fits_a_phone_in_both_languages(game, served, browser):
    app, root = served
    engine = engines.load(game)
    n = max(engine.MIN_SEATS, min(4 if game == "chiritsumo" else 3, engine.MAX_SEATS))
    seats = [{"name": s, "colour": c} for s, c in zip(NAMES, COLOURS)][:n]
    assert app.table.start_game(game, seats, {}, seed=7)["ok"]
    rng = random.Random(3)
    for _ in range(10):
        if not random_step(app.table, rng):
            break
    expects = app.table.expects_now() or {"inputs": []}
    due = [s for i in expects["inputs"] for s in i["seats"]] or [seats[0]["name"]]
    token = app.table.record.tokens[due[0]]
    problems: list[str] = []
    for lang in ("ja", "en"):
        # bypass_csp: the pages forbid inline script, and axe-core is injected as one
        context, page = _phone(browser, root, lang, problems)
        page.goto(root + "/")
        _check(page, f"{game}-status", lang, problems)
        page.goto(f"{root}/seat/{token}")
        _check(page, f"{game}-seat", lang, problems)
        if page.locator("details.action").count():  # a seat choosing what it does: one action open
            page.locator("details.action summary").last.click()
            _check(page, f"{game}-seat-action", lang, problems)
        page.goto(root + "/host")
        page.fill("input[name=pin]", app.config.host_pin)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#seat-links")
        _check(page, f"{game}-host", lang, problems)
        context.close()
    assert not problems, "\n".join(problems)


def test_the_pis_own_warnings_and_the_wifi_join_code_fit_a_phone(served, browser):
    """The banner of a full SD card and of a clock that jumped (status and host pages), and
    the host page's Wi-Fi join code (pi/web/health.py, _wifi.html)."""
    from pi.config import WifiConfig
    from pi.web import health
    from tests.pi.conftest import FakeClock

    app, root = served
    assert app.table.start_game("alea", [{"name": s, "colour": c} for s, c in zip(NAMES, COLOURS)][:3], {}, seed=7)["ok"]
    config = app.app.extensions["dicetable_config"]
    wall, steady = FakeClock(1_763_600_000.0), FakeClock(10.0)
    app.app.extensions["dicetable_config"] = dataclasses.replace(config, wifi=WifiConfig("dicetable", "Xy7-Qz9-Kw3"))
    app.app.extensions["health"] = health.Health(app.table, config, clock=health.ClockWatch(wall, steady))
    wall.advance(3 * 86400)  # network time arrived late
    app.store.write_error = "disk_full"
    problems: list[str] = []
    try:
        for lang in ("ja", "en"):
            context, page = _phone(browser, root, lang, problems)
            page.goto(root + "/")
            assert page.locator("p.health").count() == 2
            _check(page, "health-status", lang, problems)
            page.goto(root + "/host")
            page.fill("input[name=pin]", app.config.host_pin)
            page.click("#login-form button[type=submit]")
            page.wait_for_selector("#wifi svg")
            assert page.locator("p.health").count() == 2
            _check(page, "health-host", lang, problems)
            page.locator("#wifi").screenshot(path=str(SHOTS / f"wifi-{lang}.png"))
            import cv2  # the code on the page is the Wi-Fi's, as a phone's camera reads it

            shot = cv2.imread(str(SHOTS / f"wifi-{lang}.png"))
            shot = cv2.resize(shot, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST)
            assert cv2.QRCodeDetector().detectAndDecode(shot)[0] == "WIFI:T:WPA;S:dicetable;P:Xy7-Qz9-Kw3;;"
            context.close()
    finally:
        app.store.write_error = None
        app.app.extensions["dicetable_config"] = config
        app.app.extensions.pop("health", None)
    assert not problems, "\n".join(problems)


def photos(page, die: str, n: int) -> None:
    """Start teaching the die of button `die` and take `n` photos of the faces asked for."""
    page.click(die)
    for _ in range(n):
        page.click("#teach-photo")
        page.wait_for_selector("#teach-photo")


def finish(page) -> None:
    page.click("#teach-finish")
    page.wait_for_selector("#teach-summary")


def test_the_teaching_session_fits_a_phone(served, browser):
    """The host teaches a d20 with a phone in one hand: the die tiles, a step ("lay the die
    down showing N") after two photos, and the finish saying which faces are still missing;
    then a d6 asked for its faces again once every face is shown."""
    app, root = served
    if app.table.running():
        assert app.table.end_game()["ok"]
    problems: list[str] = []
    for lang in ("ja", "en"):
        context, page = _phone(browser, root, lang, problems)
        page.goto(root + "/host")
        page.fill("input[name=pin]", app.config.host_pin)
        page.click("#login-form button[type=submit]")
        page.click("#teach-open")
        page.wait_for_selector("#teach-d20")
        _check(page, "teach-choose", lang, problems)
        photos(page, "#teach-d20", 2)
        assert "2" in page.inner_text("#teach-progress") and "20" in page.inner_text("#teach-progress")
        _check(page, "teach-step", lang, problems)
        finish(page)
        _check(page, "teach-finished", lang, problems)
        photos(page, "#teach-d6", 6)  # a d6: once every face is shown, each again, turned
        assert "6" in page.inner_text("#teach-progress") and "1" in page.inner_text("#teach-next")
        _check(page, "teach-again", lang, problems)
        finish(page)
        context.close()
    assert not problems, "\n".join(problems)


def test_the_voice_controls_fit_a_phone(served, browser, tmp_path):
    """The host page's voice card (pi/web/voice.py, _voice.html): on with its volume, muted
    after a tap on Mute, and silent with the reason (no audio device)."""
    import numpy as np

    from pi.voice.worker import Voice, WavFolder, audio_output

    app, root = served
    assert app.table.start_game("alea", [{"name": s, "colour": c} for s, c in zip(NAMES, COLOURS)][:3], {}, seed=7)["ok"]
    problems: list[str] = []
    speaking = Voice("ja", WavFolder(tmp_path), synth=lambda lang: (lambda text: np.zeros(10, np.float32)))
    silent = Voice("ja", None, reason={"en": "no speaker found (no sound card and no PulseAudio/PipeWire server)",
                                       "ja": "音声の出力先（スピーカー）が見つかりません"})
    try:
        for lang in ("ja", "en"):
            app.table.voice = speaking
            speaking.set_muted(False)
            context, page = _phone(browser, root, lang, problems)
            page.goto(root + "/host")
            page.fill("input[name=pin]", app.config.host_pin)
            page.click("#login-form button[type=submit]")
            page.wait_for_selector("#voice-mute")
            page.click("#voice-louder")
            page.wait_for_selector("#voice-mute")
            assert speaking.volume == 90
            page.click("#voice-mute")
            page.wait_for_selector("#voice-mute")
            assert speaking.muted and page.locator("#voice-state").inner_text().startswith(
                "ミュート中" if lang == "ja" else "Muted")
            _check(page, "voice-host", lang, problems)
            page.locator("#voice").screenshot(path=str(SHOTS / f"voice-on-{lang}.png"))
            speaking.set_volume(80)
            app.table.voice = silent
            page.goto(root + "/host")
            assert page.locator("#voice-mute").count() == 0
            assert ("見つかりません" if lang == "ja" else "no speaker found") in page.locator("#voice-state").inner_text()
            _check(page, "voice-silent-host", lang, problems)
            page.locator("#voice").screenshot(path=str(SHOTS / f"voice-silent-{lang}.png"))
            context.close()
    finally:
        app.table.voice = None
        speaking.close()
        silent.close()
    assert audio_output()[1] is None or set(audio_output()[1]) == {"en", "ja"}
    assert not problems, "\n".join(problems)
