"""HTML tables for the macros: captioned, header cells scoped, wide ones in a focusable scroll region.
Every cell is escaped, so text from data/ can never inject markup."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

# Templates are code: loaded once per process like the modules, no check of their files on every use.
TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    auto_reload=False,
)


# Characters that make Markdown (links, images, emphasis, code, headings, tables, attribute lists, escapes)
_MARKDOWN_SIGNIFICANT = {ord(c): f"&#{ord(c)};" for c in "\\`*_[]{}#|!"}


def as_text(value: str) -> Markup:
    """``value`` to be shown as it is inside a page's Markdown: HTML escaped, and every character that could
    make Markdown written as a character reference (a name holding "[a](javascript:…)" stays that text)."""
    return Markup(str(escape(value)).translate(_MARKDOWN_SIGNIFICANT))


def code(text: str) -> Markup:
    """Inline code inside a table cell or header (Markdown is not parsed inside HTML blocks)."""
    return Markup("<code>{}</code>").format(text)


class Block(Markup):
    """Ready-made HTML that stands as a block of its own. A page sets it aside while Markdown runs and puts it
    back in the HTML (``page.render.Rendered``): parsing it would only cost time, as it holds no Markdown."""


class TypesetBlock(Block):
    """A block whose every text is typeset already (strings are typeset when loaded, figures written by Babel):
    the page neither parses nor typesets it again. Typesetting the configurator's table cost more than making
    it."""


def block(html: str) -> Markup:
    """Ready-made HTML, surrounded by blank lines so Markdown leaves it whole; a Block unless an element asks
    for Markdown inside it (``markdown`` attribute)."""
    framed = "\n\n" + html.strip() + "\n\n"
    return Markup(framed) if _MARKDOWN_INSIDE.search(html) else Block(framed)


_MARKDOWN_INSIDE = re.compile(r"<[^>]*\smarkdown(?:=|\s|>)")


PROSE_CHARS = 40  # a cell longer than this is a sentence, not a figure or a name


def table(
    caption: str, headers: list[str | Markup], rows: list[list[str | Markup]], row_headers: bool = True
) -> Markup:
    """A Markdown-embeddable HTML table; every cell escaped unless it is Markup. A column holding a sentence is
    marked ``prose``: on a phone it takes the width of a short line, not of a word or two, so its rows stay
    a few lines tall."""
    prose = {index for row in rows for index, cell in enumerate(row) if len(Markup(cell).striptags()) > PROSE_CHARS}
    return block(
        TEMPLATES.get_template("table.html").render(
            caption=caption, headers=headers, rows=rows, row_headers=row_headers, prose=prose
        )
    )
