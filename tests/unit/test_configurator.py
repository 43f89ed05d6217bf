"""The configurator's words and pages: headline lines that read sensibly for every model in every language,
one page per precision and per context, the one live sentence, the search entries of its rows."""

import re

import pytest
from rendering import ROOT, render

from macros.base.errors import PageError
from macros.base.links import PageLinks
from macros.library.configurator import (
    choice_path,
    choice_text,
    choices,
    default_choice,
    search_rows,
    status_line,
    summary_lines,
)
from macros.library.context import MacroContext
from macros.site.site_data import site_data
from sizing.engine.fit import Verdict
from sizing.views.api import NO_CONTEXT, context_keys
from sizing.views.offers import offers

LANGS = ("en", "fr", "zh")


@pytest.fixture(scope="module")
def data():
    return site_data()


def ctx_for(data, lang: str) -> MacroContext:
    return MacroContext(data, lang, PageLinks.at("configurator/", lang), ROOT / "docs")


def every_choice(data):
    for model in data.catalog.models.values():
        for precision in data.catalog.precisions_for(model):
            for context in context_keys(data.catalog, model.id):
                yield model, precision, context


def rows_of(data, model_id: str, precision_id: str, context: str):
    return offers(data.catalog, data.matrix, model_id, precision_id, None if context == NO_CONTEXT else int(context))


# --- headline lines (issue 17: "holds it on one card: 8 × B200" was nonsense) ----------------------------------
RUNS_LINE = re.compile(r"Cheapest node that runs it: (?P<cards>\d+) × (?P<gpu>.+?), \$[\d,]+/month, (?P<how>.+)\.")


def test_the_first_line_names_the_cheapest_node_that_runs_it_with_its_cards_counted(data):
    ctx = ctx_for(data, "en")
    for model, precision, context in every_choice(data):
        rows = rows_of(data, model.id, precision.id, context)
        runs = [r for r in rows if r.fit.verdict in (Verdict.ONE_CARD, Verdict.SPLIT)]
        first = summary_lines(ctx, rows)[0]
        if not runs:
            assert first.startswith(("No node of our catalog holds it", "No node runs it at the engine")), first
            continue
        cheapest = min(runs, key=lambda r: r.price_per_month.amount)
        match = RUNS_LINE.fullmatch(first)
        assert match and int(match["cards"]) == cheapest.node.cards, (model.id, precision.id, context, first)
        used, cards = cheapest.fit.cards, cheapest.node.cards
        expected = (
            "on its single card"
            if cards == 1
            else f"one copy on each of its {cards} cards"
            if used == 1
            else f"split across its {cards} cards"
            if used == cards
            else f"split across {used} of its {cards} cards"
        )
        assert match["how"] == expected, (model.id, precision.id, context, first)


def test_no_line_says_a_node_of_several_cards_holds_it_on_one_card(data):
    for lang in LANGS:
        ctx = ctx_for(data, lang)
        for model, precision, context in every_choice(data):
            for line in summary_lines(ctx, rows_of(data, model.id, precision.id, context)):
                assert "{" not in line and "holds it on one card" not in line, line
                assert not re.search(r"[2-8] × .*(on its single card|sur son unique carte|用它唯一的一张显卡)", line), (
                    line
                )


def test_a_single_card_line_names_the_card_and_the_cheapest_node_that_has_one(data):
    # Llama 3.3 70B in BF16 (141.1 GB of weights) at 8K: only a 192 GB B200 holds it alone, and the one node
    # with B200s has 8 of them; the cheapest node that runs it splits it
    lines = summary_lines(ctx_for(data, "en"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert lines[0].startswith("Cheapest node that runs it: ") and "split across" in lines[0]
    assert "It fits on a single B200 card; the cheapest node with one: 8 × B200, $30,600/month." in lines
    fr = summary_lines(ctx_for(data, "fr"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert (
        "Il tient sur une seule carte B200\u202f; le nœud le moins cher qui en a une\u202f: 8 × B200, "
        "30\u202f600\xa0$US/mois." in fr
    )
    zh = summary_lines(ctx_for(data, "zh"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert "单张 B200 显卡即可装下它；配有这种显卡的最便宜节点：8 × B200，US$30,600/月。" in zh


def test_when_no_card_holds_it_alone_the_page_says_so(data):
    # Llama 3.1 405B in BF16: 810 GB of weights, more than any card's 192 GB
    lines = summary_lines(ctx_for(data, "en"), rows_of(data, "llama-3.1-405b", "bf16", "8192"))
    assert "No single card of our catalog holds it at this precision and context." in lines
    assert not any("single card holds" in line or "fits on a single" in line for line in lines)


def test_every_language_has_as_many_lines_as_english(data):
    en, fr, zh = (ctx_for(data, lang) for lang in LANGS)
    for model, precision, context in every_choice(data):
        rows = rows_of(data, model.id, precision.id, context)
        assert len(summary_lines(en, rows)) == len(summary_lines(fr, rows)) == len(summary_lines(zh, rows))


# --- the live sentence -----------------------------------------------------------------------------------------
def test_the_status_is_one_sentence_naming_the_choice_and_the_count(data):
    rows = rows_of(data, "llama-3.3-70b", "fp8", "32768")
    runs = sum(r.fit.verdict in (Verdict.ONE_CARD, Verdict.SPLIT) for r in rows)
    tight = sum(r.fit.verdict is Verdict.TIGHT for r in rows)
    ctx = ctx_for(data, "en")
    line = status_line(ctx, choice_text(ctx, data.catalog.models["llama-3.3-70b"], "FP8", "32768"), rows)
    expected = f"Llama 3.3 70B in FP8, 32K tokens: {runs} of our 41 nodes run it"
    assert line == expected + (f", {tight} more only just." if tight else ".")
    sdxl = status_line(
        ctx,
        choice_text(ctx, data.catalog.models["sdxl-base-1.0"], "BF16", NO_CONTEXT),
        rows_of(data, "sdxl-base-1.0", "bf16", NO_CONTEXT),
    )
    assert sdxl == "SDXL 1.0 in BF16: 41 of our 41 nodes run it."  # 6.9 GB: every card holds it


# --- pages ------------------------------------------------------------------------------------------------------
def test_each_precision_and_each_context_has_a_page_the_defaults_the_models_own(data):
    c = data.catalog
    assert default_choice(c, "llama-3.3-70b") == ("bf16", "8192")
    assert choice_path(c, "llama-3.3-70b", "bf16", "8192") == ""
    assert choice_path(c, "llama-3.3-70b", "fp8", "8192") == "fp8/8192/"
    assert choice_path(c, "llama-3.3-70b", "bf16", "131072") == "bf16/131072/"
    assert choice_path(c, "flux.1-dev", "fp8", NO_CONTEXT) == "fp8/"
    # 5 precisions at 8K, then 4K, 32K and 128K in BF16
    assert choices(c, "llama-3.3-70b") == [
        ("bf16", "8192"),
        ("fp8", "8192"),
        ("int4-awq-gptq", "8192"),
        ("gguf-q8_0", "8192"),
        ("gguf-q4_k_m", "8192"),
        ("bf16", "4096"),
        ("bf16", "32768"),
        ("bf16", "131072"),
    ]
    assert choices(c, "flux.1-dev") == [("bf16", NO_CONTEXT), ("fp8", NO_CONTEXT)]


def test_the_macro_shows_a_precision_and_context_and_links_to_the_others(data):
    html = render(
        data,
        '{{ configurator("llama-3.3-70b", "fp8", context=32768) }}',
        "en",
        "docs/en/configurator/llama-3.3-70b/fp8/32768.md",
        PageLinks.at("configurator/llama-3.3-70b/fp8/32768/", "en"),
    )
    assert 'data-precision="fp8" data-context="32768"' in html
    assert '<p class="cfg-status" aria-live="polite">Llama 3.3 70B in FP8, 32K tokens: ' in html
    assert html.count("aria-live") == 1
    assert '<a href="../../../../configurator/llama-3.3-70b/fp8/8192/">FP8</a>' in html
    assert '<a href="../../../../configurator/llama-3.3-70b/bf16/32768/">32K tokens</a>' in html
    # the model list comes before the table
    assert html.index('class="cfg-models"') < html.index("<table")


@pytest.mark.parametrize(
    "call, message",
    [
        ('configurator("llama-3.3-70b", "bf16", context=1234)', "no context preset of 1234 tokens; use one of 4096"),
        ('configurator("flux.1-dev", "bf16", context=8192)', "leave context out"),
        ('configurator("flux.1-dev", "int4-awq-gptq")', "does not apply"),
    ],
)
def test_a_wrong_precision_or_context_is_an_error_that_says_what_to_write(data, call, message):
    with pytest.raises(PageError, match=re.escape(message)):
        render(data, "{{ " + call + " }}", "en", "docs/en/configurator/x.md")


# --- search ----------------------------------------------------------------------------------------------------
def test_each_row_is_a_search_entry_readable_on_its_own(data):
    summary, rows = search_rows(ctx_for(data, "en"), "llama-3.3-70b")
    assert len(rows) == 41 and summary.startswith("Llama 3.3 70B in BF16, 8K tokens: ")
    b200 = next(r for r in rows if r.configuration == "8x-b200")
    assert b200.title == "Llama 3.3 70B in BF16 on 8 × B200"
    assert re.fullmatch(r"fits on one card — ~\d+ tok/s \(at least \d+\) — \$30,600/month", b200.text), b200.text
    l4 = next(r for r in rows if r.configuration == "1x-l4")
    assert l4.text == "does not fit on this node — $390/month"  # no speed: no dash left for it
    zh = {r.configuration: r for r in search_rows(ctx_for(data, "zh"), "llama-3.3-70b")[1]}
    assert zh["1x-l4"].text == "此节点装不下，US$390/月" and zh["1x-l4"].title == "1 × L4 上的 Llama 3.3 70B（BF16）"
