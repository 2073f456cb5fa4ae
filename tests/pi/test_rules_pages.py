"""The rules pages: docs/rules/<game>.md served at /rules/<game> in the page's language,
the small Markdown renderer behind them, and (in Chromium) their fit on a phone."""
from __future__ import annotations

import dataclasses
import re

import pytest
from markupsafe import escape

import engines
from pi.web import create_app, i18n
from pi.web.rules import RULES_DIR, halves, to_html
from tests.pi.conftest import BROWSER_MARKS

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture
def client(table, config):
    return create_app(table, config, {"TESTING": True}).test_client()


def _halves(game: str) -> dict[str, str]:
    return halves((RULES_DIR / f"{game}.md").read_text(encoding="utf-8"))


def _headings(text: str) -> list[str]:
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("game", engines.GAMES)
def test_every_game_has_an_english_and_a_japanese_half_with_the_same_sections(game):
    text = _halves(game)
    assert list(text) == ["en", "ja"]
    en, ja = _headings(text["en"]), _headings(text["ja"])
    assert not any(JAPANESE.search(h) for h in en[1:])
    assert all(JAPANESE.search(h) for h in ja)
    assert len(en) == len(ja) >= 6
    assert en[-2:] == ["The table's decisions", "How the table plays it"]
    assert ja[-2:] == ["このテーブルでの裁定", "このテーブルでの遊び方"]


#: The words each game's rules must share with its glossary (engines/data/<game>.toml), so the
#: rules page, the engine's messages and the board say the same.
CORE_TERMS = {
    "alea": ["trap_card", "declaration", "safe", "escape", "dice_on_table", "last_round", "tiebreak"],
    "dieangler": ["fish", "target", "rod", "special", "cooling", "chum", "reapproach", "lure", "carried",
                  "extension", "group"],
    "chiritsumo": ["pyramid", "apex", "complete", "bonus", "mountain", "river", "wing", "fuji", "garden",
                   "solo", "dust_pile", "exchange", "reserve"],
    "ariexpress": ["nest", "tape", "square", "worker", "route", "complete", "build", "place", "doubles",
                   "loose_end"],
    "flyingdwarves": ["propulsion_card", "disc", "start_cube", "supply", "mine", "treasure", "wasteland",
                      "lot", "developed_lot", "item_card", "exchange", "handicap", "goal", "distance_penalty"],
}


@pytest.mark.parametrize("game", engines.GAMES)
def test_the_rules_use_the_games_glossary(game):
    glossary = engines.load(game).GLOSSARY
    text = _halves(game)
    for key in CORE_TERMS[game]:
        assert key in glossary, f"the {game} glossary has no {key!r}: update CORE_TERMS and docs/rules/{game}.md"
        assert glossary[key]["en"].lower() in text["en"].lower(), (key, glossary[key]["en"])
        assert glossary[key]["ja"] in text["ja"], (key, glossary[key]["ja"])


@pytest.mark.parametrize("game", engines.GAMES)
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_page_shows_the_half_in_the_pages_language(client, game, lang):
    other = "ja" if lang == "en" else "en"
    text = _halves(game)
    page = client.get(f"/rules/{game}", headers={"Accept-Language": lang})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'<html lang="{lang}">' in html
    for heading in _headings(text[lang]):
        assert f">{escape(heading)}</h" in html
    for heading in _headings(text[other])[1:]:
        assert f">{escape(heading)}</h" not in html
    assert f"<title>{escape(_headings(text[lang])[0])} · dicetable</title>" in html
    assert i18n.t("back", lang) in html


def test_the_language_cookie_wins_over_the_browser(client):
    client.set_cookie("lang", "ja")
    html = client.get("/rules/alea", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<h1>空中都市アーリア：ルール</h1>" in html


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", ["chess", "README", "..", "alea.md", "ALEA"])
def test_a_game_without_rules_is_a_404_page_in_the_pages_language(client, game, lang):
    page = client.get(f"/rules/{game}", headers={"Accept-Language": lang})
    assert page.status_code == 404
    html = page.get_data(as_text=True)
    assert i18n.t("error_404", lang) in html
    assert "Traceback" not in html


@pytest.mark.parametrize("referrer, back", [
    ("http://localhost/seat/tok3n", "/seat/tok3n"),   # a seat's own page: back to it
    ("http://localhost/", "/"),
    ("http://localhost/rules/alea", "/"),             # itself (after the language switch)
    ("http://elsewhere.example/seat/x", "/"),          # another site: the table's page
    (None, "/"),
])
def test_back_leads_to_the_page_of_this_table_that_linked_here(client, referrer, back):
    headers = {"Referer": referrer} if referrer else {}
    html = client.get("/rules/alea", headers=headers).get_data(as_text=True)
    assert f'id="back" href="{back}"' in html


def test_rules_url_links_only_games_with_rules(table, config):
    app = create_app(table, config, {"TESTING": True})
    with app.test_request_context():
        rules_url = app.jinja_env.globals["rules_url"]
        assert [rules_url(game) for game in engines.GAMES] == [f"/rules/{game}" for game in engines.GAMES]
        assert rules_url("chess") is None
        assert rules_url(None) is None


def test_markdown_renders_headings_paragraphs_lists_bold_and_code():
    html = to_html("# Title\n\nA paragraph\nwith two lines, **bold** and `code`.\n\n"
                   "- one\n  continued\n- two\n\n3. three\n4. four\n\n## Next\n1. first\n")
    assert html == ("<h1>Title</h1>\n"
                    "<p>A paragraph with two lines, <strong>bold</strong> and <code>code</code>.</p>\n"
                    "<ul><li>one continued</li><li>two</li></ul>\n"
                    '<ol start="3"><li>three</li><li>four</li></ol>\n'
                    "<h2>Next</h2>\n"
                    "<ol><li>first</li></ol>")


def test_markdown_escapes_every_text():
    html = to_html('# <b>x</b>\n<script>alert("x")</script> & **<i>** `<img src=x>`\n- <a href="y">')
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html and "<strong>&lt;i&gt;</strong>" in html
    assert "<code>&lt;img src=x&gt;</code>" in html and "<li>&lt;a href=&#34;y&#34;&gt;</li>" in html


def test_a_list_after_a_paragraph_line_starts_a_list():
    assert to_html("Choose:\n- a\n- b") == "<p>Choose:</p>\n<ul><li>a</li><li>b</li></ul>"


def test_the_rules_pages_ship_with_the_package():
    """pyproject.toml's package data takes docs/rules/*.md (a wheel's files come only from
    packages), so an installed Pi finds them beside pi/ as a checkout does."""
    import tomllib

    pyproject = tomllib.loads((RULES_DIR.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = pyproject["tool"]["setuptools"]
    assert "docs.rules" in setuptools["packages"]
    assert setuptools["package-data"]["docs.rules"] == ["*.md"]


# --- in Chromium, on a phone ----------------------------------------------------------------


@pytest.fixture
def served(config):
    from gpiozero.pins.mock import MockFactory

    from pi.appliance import build

    appliance = build(dataclasses.replace(config, language="en"), demo=False, pin_factory=MockFactory(),
                      camera=None, detector=None, animate=False)
    port = appliance.serve_in_thread("127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        appliance.close()


def in_chromium(test):
    for mark in BROWSER_MARKS:
        test = mark(test)
    return test


@in_chromium
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", engines.GAMES)
def test_a_phone_reads_the_rules_without_scrolling_sideways(served, browser, game, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="ja-JP" if lang == "ja" else "en-US")
    page = context.new_page()
    assert page.goto(f"{served}/rules/{game}").status == 200
    assert page.locator("h1").first.inner_text() == _headings(_halves(game)[lang])[0]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    back = page.locator("#back").bounding_box()
    assert back["height"] >= 44  # a thumb's target
    context.close()
