"""What a language's search index holds beyond Material's: tables read as sentences, Chinese cut into the words
a reader types, the weight of each entry so that guides come before configurator rows, and which entries are
reference pages, found after the pages written for customers.

Material's index runs a table's cells together ("A4048 GBon one card$0.71"): each table is rewritten as one
sentence per row ("A40 — Memory: 48 GB; Holds it: on one card; …"), found by the very text Material wrote for
it. A table kept out of the index (the configurator's) still gives its page its caption and column headings:
the configurator is found by "per GPU-hour" ("每 GPU 小时"). Chinese text is cut by jieba, with U+200B between
words, as Material cuts it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jieba

from macros.output.strings import text
from macros.output.typography import WJ

TABLE = re.compile(r"<table\b.*?</table>", re.S)
CAPTION = re.compile(r"<caption>(.*?)</caption>", re.S)
ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S)
CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]>", re.S)
TAG = re.compile(r"<(?!/?code>)[^>]+>")  # every tag but code, which the index keeps
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
WORD_BREAK = "\u200b"

# An entry's weight in the ranking (lunr's document boost): a configurator row names a card in its title, which
# weighs a thousand times a guide's text; its weight brings it below a guide that explains the same card.
CONFIGURATOR_PAGE_BOOST = 0.01
CONFIGURATOR_ROW_BOOST = 0.001

# The pages for writers, translators and users of the API (docs/<lang>/reference/): the site's search worker
# (overrides/assets/javascripts/workers/readers-search.js) lists them after every page written for customers.
REFERENCE_FOLDER = "reference/"


class SearchTextError(ValueError):
    """A table of a built page that its search entries do not hold as Material writes it."""


def cell_html(html: str) -> str:
    """A cell as the index shows it: its tags dropped but code, its whitespace collapsed (entities stay)."""
    return " ".join(TAG.sub("", html).split())


def table_headings(table_html: str, lang: str) -> str:
    """What a table kept out of the index still says of its page: its caption, then its column headings
    ("Llama 3.3 70B … — Node; Verdict; …; Per month; Per GPU-hour; Notes")."""
    dash, between = (text("search", key, lang) for key in ("dash", "between"))
    caption = CAPTION.search(table_html)
    rows = ROW.findall(table_html)
    headings = [cell_html(cell) for cell in CELL.findall(rows[0])] if rows else []
    named = between.join(heading for heading in headings if heading)
    return f"<p>{cell_html(caption.group(1))}{dash}{named}</p>" if caption else f"<p>{named}</p>"


def table_sentences(table_html: str, lang: str) -> str:
    """A table as the index should show it: its caption, then one paragraph per body row, each cell after its
    column's heading ("A40 — Memory: 48 GB; Holds it: on one card")."""
    colon, between, dash = (text("search", key, lang) for key in ("colon", "between", "dash"))
    caption = CAPTION.search(table_html)
    rows = [[cell_html(cell) for cell in CELL.findall(row)] for row in ROW.findall(table_html)]
    header, body = rows[0], rows[1:]
    paragraphs = [cell_html(caption.group(1))] if caption else []
    for cells in body:
        pairs = [
            f"{name}{colon}{value}" if name else value
            for name, value in zip(header[1:], cells[1:], strict=False)  # a row may lack trailing cells
            if value
        ]
        paragraphs.append(f"{cells[0]}{dash}{between.join(pairs)}")
    return "".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)


# How the site generator's search writes a piece of HTML as text (Material's parser, handed over by the hook).
IndexedText = Callable[[str], str]


def without_word_breaks(value: str) -> str:
    return value.replace(WORD_BREAK, "")


# 每 ("each", "per") stands apart from what it counts: "每小时" is found where a page says "每 GPU 小时", and
# "每张卡" is not found by "每小时" (the search worker requires 每 and 小时 side by side for its phrase)
PER = "每"


def words_of(run: str) -> list[str]:
    """A run of Chinese as jieba cuts it, 每 apart from the word it starts ("每张" → 每 张)."""
    return [part for word in jieba.cut(run) for part in _per_apart(word)]


def _per_apart(word: str) -> list[str]:
    return [PER, word[len(PER) :]] if word.startswith(PER) and len(word) > len(PER) else [word]


def chinese_words(value: str) -> str:
    """Chinese runs cut into words (``words_of``), with U+200B around and between them (the index's separator)."""
    return HAN.sub(lambda run: WORD_BREAK + WORD_BREAK.join(words_of(run.group(0))) + WORD_BREAK, value).strip(
        WORD_BREAK
    )


def page_file(site: Path, location: str) -> Path:
    """The built HTML of the page an index location points into."""
    return site / location.split("#", 1)[0] / "index.html"


def with_readable_tables(docs: list[dict], site: Path, lang: str, material_text: IndexedText) -> list[dict]:
    """``docs`` (one page's entries, or many) with every table of their pages read as sentences, and the caption
    and headings of a table kept out of the index (data-search-exclude) added to its page's first entry. A table
    Material indexed that the entries do not hold as ``material_text`` writes it fails, naming the page: the
    rewrite would otherwise stop silently."""
    texts = {id(doc): without_word_breaks(doc["text"]) for doc in docs}
    by_page: dict[Path, list[dict]] = {}
    for doc in docs:
        by_page.setdefault(page_file(site, doc["location"]), []).append(doc)
    for path, entries in by_page.items():
        if not path.exists():
            continue
        html = path.read_text(encoding="utf-8")
        indexed = None
        for table in TABLE.findall(html):
            flat = material_text(table)
            holders = [doc for doc in entries if flat in texts[id(doc)]]
            if not holders:
                indexed = material_text(html) if indexed is None else indexed
                if flat in indexed:
                    raise SearchTextError(f"{path}: the search index does not hold the table {flat[:80]!r}")
                page = entries[0]  # the page's own entry comes before its sections'
                texts[id(page)] += table_headings(table, lang)
            for doc in holders:
                texts[id(doc)] = texts[id(doc)].replace(flat, table_sentences(table, lang))
    return [{**doc, "text": texts[id(doc)]} for doc in docs]


def marked_reference(doc: dict, lang_prefix: str) -> dict:
    """An entry of a reference page marked as one (``REFERENCE_FOLDER``); any other as it is."""
    in_reference = doc["location"].removeprefix(lang_prefix).startswith(REFERENCE_FOLDER)
    return {**doc, "reference": True} if in_reference else doc


def in_words(doc: dict, lang: str) -> dict:
    """An entry whose Chinese text and title are cut into words (a no-op in other languages); the word joiners
    that keep a measure-word phrase on one line (between 张 and 卡 in "4 张卡") go first, or jieba would cut there."""
    if lang != "zh":
        return doc
    return {
        **doc,
        "title": chinese_words(without_word_breaks(doc["title"]).replace(WJ, "")),
        "text": chinese_words(without_word_breaks(doc["text"]).replace(WJ, "")),
    }
