"""What readers type in the search box, per language, and the page each query must bring first or among the
first three pages: accents and ligatures folded (« noeud » finds what « nœud » finds), Chinese words cut as
the index cuts them (每小时, 张量并行), guides before configurator rows, and results that read as sentences."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from searching import search
from sitebuild import LANGUAGES

pytestmark = pytest.mark.browser

FIRST, TOP_THREE = 1, 3

QUERIES = [
    ("en", "tensor", "/guides/nvlink-or-pcie/", FIRST),
    ("en", "NVLink", "/guides/nvlink-or-pcie/", FIRST),
    ("en", "quantization", "/guides/quantization/", FIRST),
    ("en", "mixture of experts", "/guides/mixture-of-experts/", FIRST),
    ("en", "H100", "/guides/image-and-video/", TOP_THREE),
    ("fr", "nœud", "/fr/", FIRST),
    ("fr", "noeud", "/fr/", FIRST),
    ("fr", "parallelisme", "/fr/guides/nvlink-or-pcie/", FIRST),
    ("fr", "quantification", "/fr/guides/quantization/", FIRST),
    ("fr", "memoire", "/fr/guides/quantization/", TOP_THREE),
    ("fr", "mélange d’experts", "/fr/guides/mixture-of-experts/", FIRST),
    ("fr", "melange d'experts", "/fr/guides/mixture-of-experts/", FIRST),
    ("zh", "张量并行", "/zh/guides/nvlink-or-pcie/", FIRST),
    ("zh", "张量", "/zh/guides/nvlink-or-pcie/", FIRST),
    ("zh", "每小时", "/zh/guides/image-and-video/", TOP_THREE),
    ("zh", "量化", "/zh/guides/quantization/", FIRST),
    ("zh", "混合专家", "/zh/guides/mixture-of-experts/", FIRST),
    ("zh", "显存", "/zh/guides/quantization/", TOP_THREE),
]


def pages(paths: list[str]) -> list[str]:
    """Result paths as pages, in order, each once ("/guides/x/#a" → "/guides/x/")."""
    return list(dict.fromkeys(path.split("#")[0] for path in paths))


@pytest.mark.parametrize("case", QUERIES, ids=[f"{lang}-{query}" for lang, query, _, _ in QUERIES])
def test_a_query_brings_its_page_first_or_in_the_top_three(context_factory, server, case):
    lang, query, expected, within = case
    page = context_factory().new_page()
    found = pages(search(page, server, LANGUAGES[lang], query))
    assert expected in found[:within], found[:5]


@pytest.mark.parametrize("lang, query", [("en", "H100"), ("fr", "H100"), ("zh", "H100"), ("en", "memory")])
def test_guides_come_before_configurator_rows_for_a_general_term(context_factory, server, lang, query):
    page = context_factory().new_page()
    found = pages(search(page, server, LANGUAGES[lang], query))
    first_configurator = next(i for i, path in enumerate([*found, "/configurator/"]) if "/configurator/" in path)
    assert first_configurator >= 3, found[:5]


@pytest.mark.parametrize("query", ["张量并行", "每小时"])
def test_the_top_chinese_result_misses_no_word_of_the_query(context_factory, server, query):
    page = context_factory().new_page()
    search(page, server, "zh/", query)
    missing = page.eval_on_selector_all(".md-search-result__terms", "ts => ts.slice(0, 1).map(t => t.textContent)")
    assert not missing, missing


def test_tables_read_as_sentences_in_every_index(site: Path):
    """No run-together cells: a figure never touches the next cell's ("48 GBon one card$0.71")."""
    run_together = re.compile(r"\d (?:GB|GiB|Go|Gio|\$US/mois)(?=[A-Za-zÀ-ÿ$\d])|\$\d+\.\d\d\d|BF16\d")
    for lang in LANGUAGES:
        docs = json.loads((site / "search" / f"search_index.{lang}.json").read_text())["docs"]
        bad = [(d["location"], m.group(0)) for d in docs for m in run_together.finditer(d["text"])]
        assert not bad, bad[:5]
    en = json.loads((site / "search" / "search_index.en.json").read_text())["docs"]
    assert any("A40 — Memory: 48 GB; Holds it: on one card; From, per GPU-hour: $0.71" in d["text"] for d in en)
