"""Every word a game partial shows comes from its game's glossary (engines/data/<game>.toml).

A partial names a term as ``term("key")``; the key must be in the glossary, and the partial
holds no Japanese of its own (Japanese text outside the glossary is how two names for one
thing crept in: 宝箱 and 宝, 荒野 and 荒れ地).
"""
from __future__ import annotations

import re
from importlib import resources

import pytest

import engines

PARTIALS = resources.files("pi.web") / "templates" / "games"
TERM = re.compile(r"""term\(\s*["']([^"']+)["']\s*\)""")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]+")


@pytest.mark.parametrize("game", engines.GAMES)
def test_partial_uses_only_glossary_terms(game):
    source = (PARTIALS / f"{game}.html").read_text(encoding="utf-8")
    glossary = engines.load(game).GLOSSARY
    used = TERM.findall(source)
    assert used, f"games/{game}.html names no glossary term"
    missing = sorted(set(used) - set(glossary))
    assert not missing, f"games/{game}.html uses terms not in its glossary: {missing}"
    comments = re.sub(r"\{#.*?#\}", "", source, flags=re.S)
    assert not JAPANESE.findall(comments), f"games/{game}.html has Japanese outside the glossary: {JAPANESE.findall(comments)[:5]}"


@pytest.mark.parametrize("game", engines.GAMES)
def test_glossary_has_one_name_per_language_and_no_two_terms_share_one(game):
    glossary = engines.load(game).GLOSSARY
    for lang in ("en", "ja"):
        names = [v[lang] for v in glossary.values()]
        doubles = sorted({n for n in names if names.count(n) > 1})
        assert not doubles, f"{game}: two terms share the {lang} name(s) {doubles}"


@pytest.mark.parametrize("game", engines.GAMES)
def test_the_scores_heading_is_a_glossary_term(game):
    engine = engines.load(game)
    key = getattr(engine, "SCORE_TERM", None)
    assert key is None or key in engine.GLOSSARY, f"{game}: SCORE_TERM {key!r} is not a glossary term"
