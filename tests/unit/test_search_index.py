"""The search index's text (macros/site/search.py): tables read as sentences in each language's punctuation,
found by the very text Material wrote for them; Chinese cut into words; configurator rows weigh less."""

from __future__ import annotations

from pathlib import Path

import pytest

from hooks.page_macros import material_text
from macros.site.search import (
    CONFIGURATOR_ROW_BOOST,
    SearchTextError,
    chinese_words,
    in_words,
    marked_reference,
    table_sentences,
    with_readable_tables,
)

TABLE = (
    '<table class="data-table">\n<caption>Cards that hold FLUX.1 [dev]</caption>\n'
    '<thead><tr><th scope="col">Card</th><th scope="col">Memory</th>'
    '<th scope="col">From, per GPU-hour</th></tr></thead>\n'
    '<tbody>\n<tr><th scope="row">A40</th><td>48 GB</td><td>$0.71</td></tr>\n'
    '<tr><th scope="row">L4</th><td><code>l4</code> 24 GB</td><td>$0.52</td></tr>\n</tbody>\n</table>'
)


def test_material_runs_a_tables_cells_together():
    """What the rewrite replaces: Material's own text for the table, figures touching the next cell."""
    assert "A4048 GB$0.71" in material_text(TABLE)


@pytest.mark.parametrize(
    "lang, row",
    [
        ("en", "<p>A40 — Memory: 48 GB; From, per GPU-hour: $0.71</p>"),
        ("fr", "<p>A40 — Memory\u202f: 48 GB\u202f; From, per GPU-hour\u202f: $0.71</p>"),
        ("zh", "<p>A40：Memory 48 GB；From, per GPU-hour $0.71</p>"),
    ],
)
def test_a_table_reads_as_its_caption_then_one_sentence_per_row(lang, row):
    sentences = table_sentences(TABLE, lang)
    assert sentences.startswith("<p>Cards that hold FLUX.1 [dev]</p>")
    assert row in sentences
    assert "<code>l4</code> 24 GB" in sentences  # code stays code


def write_page(site: Path, location: str, html: str) -> None:
    page = site / location / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"<html><body><article>{html}</article></body></html>", encoding="utf-8")


def test_each_entry_holding_a_table_gets_its_sentences(tmp_path: Path):
    write_page(tmp_path, "guides/x", f"<h2 id='a'>A</h2><p>Intro.</p>{TABLE}")
    docs = [{"location": "guides/x/#a", "title": "A", "text": f"<p>Intro.</p> {material_text(TABLE)}"}]
    [doc] = with_readable_tables(docs, tmp_path, "en", material_text)
    assert doc["text"].startswith("<p>Intro.</p> <p>Cards that hold")
    assert "A4048" not in doc["text"]


def test_a_table_kept_out_of_the_index_gives_its_page_its_caption_and_headings_not_its_rows(tmp_path: Path):
    """The configurator's table is kept out (its rows are entries of their own), but a reader looking for a price
    per GPU-hour ("每 GPU 小时") finds the page whose column says it."""
    write_page(tmp_path, "configurator", f"<div data-search-exclude>{TABLE}</div><p>Pick a model.</p>")
    docs = [
        {"location": "configurator/", "title": "C", "text": "<p>Pick a model.</p>"},
        {"location": "configurator/#more", "title": "More", "text": "<p>More.</p>"},
    ]
    page, section = with_readable_tables(docs, tmp_path, "en", material_text)
    assert page["text"] == (
        "<p>Pick a model.</p><p>Cards that hold FLUX.1 [dev] — Card; Memory; From, per GPU-hour</p>"
    )
    assert section == docs[1] and "48 GB" not in page["text"]


def test_the_entries_of_reference_pages_are_marked_in_every_language():
    """The search worker lists them after the pages for customers (readers-search.js)."""
    for prefix in ("", "fr/", "zh/"):
        api = {"location": f"{prefix}reference/api/#fit-json", "title": "fit.json", "text": ""}
        guide = {"location": f"{prefix}guides/quantization/", "title": "Q", "text": ""}
        assert marked_reference(api, prefix) == {**api, "reference": True}
        assert marked_reference(guide, prefix) is guide


def test_a_table_the_index_holds_otherwise_fails_naming_the_page(tmp_path: Path):
    write_page(tmp_path, "guides/x", f"<p>Intro.</p>{TABLE}")
    docs = [{"location": "guides/x/", "title": "X", "text": "<p>Intro.</p> something else"}]
    with pytest.raises(SearchTextError, match=r"guides/x/index\.html"):
        with_readable_tables(docs, tmp_path, "en", material_text)


def test_chinese_is_cut_into_words_between_zero_width_spaces_and_other_languages_are_left_alone():
    assert chinese_words("张量并行每张卡") == "张量\u200b并行\u200b每\u200b张\u200b卡"  # 每 stands apart
    doc = {"location": "zh/x/", "title": "张量并行", "text": "8 × H100：张量\u200b并行"}
    assert in_words(doc, "zh")["text"] == "8 × H100：\u200b张量\u200b并行"  # as Material cuts it
    assert in_words(doc, "fr") is doc


def test_a_configurator_row_found_by_its_title_weighs_no_more_than_a_guide_found_by_its_text():
    """A row names its card in its title (boost 1000 in Material's index): its weight undoes that."""
    assert CONFIGURATOR_ROW_BOOST * 1000 <= 1
