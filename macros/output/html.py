"""HTML tables for the macros: captioned, header cells scoped, wide ones in a focusable scroll region.
Every cell is escaped, so text from data/ can never inject markup."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from macros.output.typography import one_line

# Templates are code: loaded once per process like the modules, no check of their files on every use.
TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    auto_reload=False,
)
TEMPLATES.filters["one_line"] = one_line  # a name a template writes alone: "{{ m.name | one_line }}"


# Characters that make Markdown (links, images, emphasis, code, headings, tables, attribute lists, escapes)
_MARKDOWN_SIGNIFICANT = {ord(c): f"&#{ord(c)};" for c in "\\`*_[]{}#|!"}


def as_text(value: str) -> Markup:
    """``value`` to be shown as it is inside a page's Markdown: HTML escaped, and every character that could
    make Markdown written as a character reference (a name holding "[a](javascript:…)" stays that text)."""
    return Markup(str(escape(value)).translate(_MARKDOWN_SIGNIFICANT))


def code(text: str) -> Markup:
    """Inline code inside a table cell or header (Markdown is not parsed inside HTML blocks)."""
    return Markup("<code>{}</code>").format(text)


_ID_BREAK = re.compile(r"(?<=[-/_(])(?=.)|(?<=\.)(?=[A-Za-z_\[])")


def id_code(identifier: str) -> Markup:
    """An id, a field path or a call as inline code that may break after a hyphen, a slash, an underscore, an
    opening bracket or a dot before a name ("llama33-70b-fp8-…", "nodes[].link.topology"), never inside a word:
    a browser breaks no line between a hyphen and a digit, nor at an underscore, so a long id would otherwise set
    the width of its column."""
    parts = _ID_BREAK.split(identifier)
    return Markup("<code>{}</code>").format(Markup("<wbr>").join(escape(part) for part in parts))


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


PROSE_COLUMNS = 40  # a cell wider than this many Latin letters is a sentence, not a figure or a name
WORDS_HAN = 4  # a cell with more Chinese characters than this is a phrase, free to break between them
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LONG_TOKEN = re.compile(r"\S{17,}")
_TOKEN_BREAK = re.compile(r"(?<=\w[.+/_-])(?=\w)")  # between words: "--flag" keeps its dashes


def display_columns(value: str) -> int:
    """How wide a text sets, in Latin letters: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in value)


def with_long_tokens_breakable(value: str) -> Markup:
    """``value`` escaped, its long tokens (a build id such as "0.13.0rc2.dev178+g676c2e9") free to break after a
    dot, plus, slash, underscore or hyphen, so one token does not set the width of its column."""
    escaped = str(escape(value))
    return Markup(_LONG_TOKEN.sub(lambda token: "<wbr>".join(_TOKEN_BREAK.split(token.group(0))), escaped))


def is_long(cell: str | Markup) -> bool:
    return display_columns(Markup(cell).striptags()) > PROSE_COLUMNS


def cell_class(cell: str | Markup, column_is_prose: bool, stacked: bool) -> str:
    """How a cell may wrap: ``prose`` (a column of sentences: on a phone it takes a short line's width), ``words``
    (a Chinese phrase, which breaks between characters as Chinese does), or "" (a figure, a name or a short
    heading: a Chinese one breaks only at its spaces and punctuation, never "约⏎137 token/⏎秒"); in a stacked
    table, ``long`` marks a cell that takes a line of its own on a phone."""
    kinds = [
        "prose" if column_is_prose else "words" if len(_HAN.findall(Markup(cell).striptags())) > WORDS_HAN else "",
        "long" if stacked and is_long(cell) else "",
    ]
    return " ".join(kind for kind in kinds if kind)


def table(
    caption: str,
    headers: list[str | Markup],
    rows: list[list[str | Markup]],
    row_headers: bool = True,
    stacked: bool = False,
    label: str | None = None,
    cards: bool = False,
) -> Markup:
    """A Markdown-embeddable HTML table; every cell escaped unless it is Markup. A column holding a sentence is
    marked ``prose``: on a phone it takes the width of a short line, not of a word or two, so its rows stay
    a few lines tall. A ``stacked`` table (a list of entries, each a name and what it is) is laid out on phones
    as one block per row: the name on its own line, the short cells beside each other, the sentences below.
    A table of ``cards`` (options to compare, as the configurator's nodes) is laid out on phones as one card per
    row: its name, then each figure after its column's name (the cell's ``data-label``), nothing out of view.
    ``label`` names the table's scrolling region where its caption is not unique on the page."""
    prose = {index for row in rows for index, cell in enumerate(row) if is_long(cell)}
    head = [(header, cell_class(header, index in prose, stacked=False)) for index, header in enumerate(headers)]
    body = [
        [
            (
                cell if isinstance(cell, Markup) else with_long_tokens_breakable(cell),
                cell_class(cell, index in prose, stacked),
            )
            for index, cell in enumerate(row)
        ]
        for row in rows
    ]
    return block(
        TEMPLATES.get_template("table.html").render(
            caption=caption,
            headers=head,
            rows=body,
            row_headers=row_headers,
            stacked=stacked,
            label=label,
            cards=cards,
            labels=[header.striptags() if isinstance(header, Markup) else header for header in headers],
        )
    )
