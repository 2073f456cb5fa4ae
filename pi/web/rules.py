"""Each game's rules as a page, in the page's language.

GET /rules/<game>   docs/rules/<game>.md, the half in the page's language (404 for a game
                    without a rules file)

A rules file holds one half per language, in the order of ``i18n.LANGUAGES`` (English,
then Japanese), each starting at its level-1 heading. It is written in the small part of
Markdown that ``to_html`` knows: ``#`` to ``###`` headings, paragraphs, ``-`` and ``1.``
lists (one level; an indented line continues the item), ``**bold**`` and ```code```.
Every text is escaped, so a rules file can never put markup of its own on the page.

The files reach an installed appliance as package data of ``docs.rules`` (pyproject.toml),
which puts them beside ``pi/`` as in a checkout; ``RULES_DIR`` finds them in both.

The template global ``rules_url(game)`` gives the page's address, or None for a game
without rules, for the links of the other pages.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, abort, g, render_template, request, url_for
from markupsafe import Markup, escape

from pi.web import i18n

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"

bp = Blueprint("rules", __name__)

_HEADING = re.compile(r"(#{1,3}) (.+)")
_ITEM = re.compile(r"(-|\d+\.) (.+)")
_INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*")


def rules_file(game: str) -> Path | None:
    """The game's rules file, or None (an unknown game, or one without rules yet)."""
    import engines

    path = RULES_DIR / f"{game}.md"
    return path if game in engines.GAMES and path.is_file() else None


def halves(text: str) -> dict[str, str]:
    """The file's text per language: each level-1 heading starts the next language's half."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("# ")]
    ends = starts[1:] + [len(lines)]
    return {lang: "\n".join(lines[a:b]) for lang, a, b in zip(i18n.LANGUAGES, starts, ends)}


def _inline(text: str) -> str:
    out, at = [], 0
    for m in _INLINE.finditer(text):
        out.append(escape(text[at:m.start()]))
        code, bold = m.groups()
        out.append(Markup("<code>{}</code>").format(code) if code is not None
                   else Markup("<strong>{}</strong>").format(bold))
        at = m.end()
    out.append(escape(text[at:]))
    return "".join(out)


def to_html(text: str) -> Markup:
    """The HTML of a rules text (the subset of Markdown above), every text escaped."""
    html: list[str] = []
    para: list[str] = []
    items: list[str] = []
    kind, start = "", ""  # the open list's tag and its first number

    def close() -> None:
        if para:
            html.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            opening = f'<ol start="{start}">' if kind == "ol" and start != "1" else f"<{kind}>"
            html.append(opening + "".join(f"<li>{_inline(i)}</li>" for i in items) + f"</{kind}>")
            items.clear()

    for raw in text.splitlines():
        line = raw.strip()
        heading, item = _HEADING.fullmatch(line), _ITEM.fullmatch(line)
        if not line:
            close()
        elif heading:
            close()
            level = len(heading.group(1))
            html.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif item:
            tag = "ul" if item.group(1) == "-" else "ol"
            if para or tag != kind:
                close()
            if not items:
                kind, start = tag, item.group(1).rstrip(".")
            items.append(item.group(2))
        elif items and raw[:1].isspace():
            items[-1] += " " + line
        else:
            if items:
                close()
            para.append(line)
    close()
    return Markup("\n".join(html))


@bp.get("/rules/<game>")
def page(game: str):
    path = rules_file(game)
    if path is None:
        abort(404)
    text = halves(path.read_text(encoding="utf-8"))
    half = text.get(g.lang) or text["en"]
    title = half.splitlines()[0].removeprefix("# ")
    return render_template("rules.html", title=title, body=to_html(half), back=back_url())


def back_url() -> str:
    """The page of this table that linked here (a seat's own page), else the table's page."""
    came_from = urlsplit(request.referrer or "")
    if came_from.netloc == request.host and came_from.path not in ("", request.path):
        return came_from.path
    return url_for("status.index")


@bp.app_template_global()
def rules_url(game: str | None) -> str | None:
    """The rules page of ``game``, or None when it has none."""
    return url_for("rules.page", game=game) if game and rules_file(game) else None
