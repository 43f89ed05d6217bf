"""What readers type in the search box, per language, and the page each query must bring first or among the
first three pages: accents and ligatures folded (« noeud » finds what « nœud » finds), Chinese words cut as
the index cuts them (每小时, 张量并行), guides before configurator rows, a price query to the configurator and
the Plan page, the pages for customers before the reference pages, a phrase before its words, and results that
read as sentences."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
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
    # a price: the configurator (every node's price per month and per GPU-hour) and the Plan page
    ("en", "price per month", "/configurator/", TOP_THREE),
    ("en", "price per month", "/plan/", TOP_THREE),
    ("fr", "prix par mois", "/fr/configurator/", TOP_THREE),
    ("fr", "prix par mois", "/fr/plan/", TOP_THREE),
    ("zh", "每小时", "/zh/configurator/", TOP_THREE),
    ("zh", "价格", "/zh/configurator/", TOP_THREE),
    ("zh", "价格", "/zh/plan/", TOP_THREE),
]


def pages(paths: list[str]) -> list[str]:
    """Result paths as pages, in order, each once ("/guides/x/#a" → "/guides/x/")."""
    return list(dict.fromkeys(path.split("#")[0] for path in paths))


@pytest.mark.parametrize("case", QUERIES, ids=[f"{lang}-{query}" for lang, query, _, _ in QUERIES])
def test_a_query_brings_its_page_first_or_in_the_top_three(search_box, case):
    lang, query, expected, within = case
    found = pages(search_box.results(lang, query))
    assert expected in found[:within], found[:5]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_index_is_fetched_when_a_reader_comes_near_the_search_box_not_with_every_page(
    context_factory, server, lang
):
    """Half a megabyte a page view, and the page's time handing it to the worker, only for readers who search:
    a page loads without it, and the pointer over the search box (or the box focused) asks for the language's."""
    page = context_factory(viewport={"width": 1280, "height": 800}).new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "search_index" in request.url else None)
    page.goto(f"{server}{LANGUAGES[lang]}guides/")
    page.wait_for_load_state("networkidle")
    assert not asked, asked
    with page.expect_request(lambda request: "search_index" in request.url) as request:
        page.hover("input.md-search__input")
    assert request.value.url.endswith(f"/search/search_index.{lang}.json")


@pytest.mark.parametrize("lang, query", [("en", "H100"), ("fr", "H100"), ("zh", "H100"), ("en", "memory")])
def test_guides_come_before_configurator_rows_for_a_general_term(search_box, lang, query):
    """A row names its card in its title: it once came before the guides that explain the card. The configurator's
    own page (its words, not its rows) is a page for customers like the guides."""
    found = pages(search_box.results(lang, query))
    rows = re.compile(r"/configurator/[^/]+/")  # a model's page, whose rows are the entries
    first_row = next(i for i, path in enumerate([*found, "/configurator/x/"]) if rows.search(path))
    assert first_row >= 3, found[:5]


@pytest.mark.parametrize("query", ["张量并行", "每小时"])
def test_the_top_chinese_result_misses_no_word_of_the_query(search_box, query):
    search_box.results("zh", query)
    missing = search_box.page("zh").eval_on_selector_all(
        ".md-search-result__terms", "ts => ts.slice(0, 1).map(t => t.textContent)"
    )
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


# The order of what a query finds: the pages for customers, then the reference pages (for writers, translators and
# the API); within each, for a query of several words, the pages holding it as a phrase, then those holding each of
# its words, then the others. Each case: the query, the phrase as a page holds it and each word it must hold, as
# patterns on the index's text folded and lowercased (a word of the query starts a word of the page); None for a
# query of one word.
ORDERED = [
    ("en", "price per month", r"(?<!\w)price\w*\W+per\w*\W+month", ["price", "per", "month"]),
    ("en", "70b", None, []),
    ("fr", "prix par mois", r"(?<!\w)prix\w*\W+par\w*\W+mois", ["prix", "mois"]),  # « par » is a stop word
    ("fr", "70b", None, []),
    ("zh", "每小时", r"(?<!\w)每\W*(?:[a-z0-9]\w*\W*)?小时", ["每", "小时"]),  # 每小时, or 每 GPU 小时
    ("zh", "70b", None, []),
]


def rank_of_pages(site: Path, lang: str, phrase: str | None, words: list[str]) -> dict[str, tuple[int, int]]:
    """Each page's place in the order, from the index: (1 for a page for customers, 0 for a reference page;
    2 when one of its entries holds the phrase, 1 each word, 0 otherwise)."""
    docs = json.loads((site / "search" / f"search_index.{lang}.json").read_text(encoding="utf-8"))["docs"]
    holds_words = [re.compile(rf"(?<!\w){word}") for word in words]

    def step(doc: dict) -> int:
        """As the worker reads an entry: the phrase in its title or its text, each word in either."""
        title, text = folded(doc["title"]), folded(doc["text"])
        if phrase is None:
            return 0
        if re.search(phrase, title) or re.search(phrase, text):
            return 2
        return 1 if all(word.search(title) or word.search(text) for word in holds_words) else 0

    ranks: dict[str, tuple[int, int]] = {}
    for doc in docs:
        page = "/" + doc["location"].split("#")[0]
        rank = (0 if doc.get("reference") else 1, step(doc))
        ranks[page] = max(ranks.get(page, rank), rank)
    return ranks


def folded(html: str) -> str:
    """An index text as the search worker reads it: tags dropped, accents and ligatures folded, lowercased."""
    text = unicodedata.normalize("NFD", re.sub(r"<[^>]*>", " ", html))
    return re.sub(r"[\u0300-\u036f]", "", text).replace("œ", "oe").replace("æ", "ae").lower()


@pytest.mark.parametrize("case", ORDERED, ids=[f"{lang}-{query}" for lang, query, _, _ in ORDERED])
def test_customers_pages_come_first_then_a_phrase_before_its_words(site, search_box, case):
    """ "price per month" brought the writer's reference, then the JSON API, "70b" the writer's reference second;
    « prix par mois » pages holding only « par » or « mois »; 每小时 the writer's reference first (on 每张 and 每层)."""
    lang, query, phrase, words = case
    found = pages(search_box.results(lang, query))
    ranks = rank_of_pages(site, lang, phrase, words)
    order = [ranks[path] for path in found]
    assert order == sorted(order, reverse=True), list(zip(found, order, strict=True))
    assert order[0] == (1, 0 if phrase is None else 2), list(zip(found, order, strict=True))
