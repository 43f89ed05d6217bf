"""The configurator's words and pages: headline lines that read sensibly for every model in every language,
one page per precision, per context and per KV-cache precision, the one live sentence, the search entries of
its rows."""

import re

import pytest
from rendering import ROOT, render

from macros.base.errors import PageError
from macros.base.links import PageLinks
from macros.library.configurator import (
    choice_path,
    choice_text,
    choices,
    column_digits,
    default_choice,
    fp8_kv_choices,
    kv_matrix,
    row_cells,
    search_rows,
    status_line,
    summary_lines,
    title_text,
)
from macros.library.context import MacroContext
from macros.output.formatting import decisive_digits
from macros.output.strings import strings
from macros.output.typography import typeset
from sizing.catalog.schema import KvCacheDtype, Llm
from sizing.engine.fit import Verdict, tight_setting
from sizing.views.api import NO_CONTEXT, context_keys
from sizing.views.matrix import VerdictMatrix
from sizing.views.offers import offers

LANGS = ("en", "fr", "zh")


def ctx_for(data, lang: str) -> MacroContext:
    return MacroContext(data, lang, PageLinks.at("configurator/", lang), ROOT / "docs")


def every_choice(data):
    for model in data.catalog.models.values():
        for precision in data.catalog.precisions_for(model):
            for context in context_keys(data.catalog, model.id):
                yield model, precision, context


def every_fp8_kv_choice(data):
    """Every choice that also has a page with the KV cache in FP8."""
    for model in data.catalog.models.values():
        for precision, context in fp8_kv_choices(data.catalog, model.id):
            yield model, data.catalog.precisions[precision], context


def rows_of(data, model_id: str, precision_id: str, context: str, kv_cache: KvCacheDtype = "bf16"):
    tokens = None if context == NO_CONTEXT else int(context)
    return offers(data.catalog, kv_matrix(data, kv_cache), model_id, precision_id, tokens)


# --- headline lines (issue 17: "holds it on one card: 8 × B200" was nonsense) ----------------------------------
RUNS_LINE = re.compile(
    r"Cheapest node that runs it: (?P<cards>\d+)\xa0×\xa0(?P<gpu>.+?), \$[\d,]+/month, (?P<how>.+)\."
)


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
        cards, layout = cheapest.node.cards, cheapest.layout
        # how the node runs a language model (its layout), or an image or video model (one job per card, or split)
        used, copies = (
            (cheapest.fit.cards, cards // cheapest.fit.cards) if layout is None else (layout.cards, layout.copies)
        )
        expected = (
            "on its single card"
            if cards == 1
            else f"one copy on each of its {cards} cards"
            if used == 1 and copies == cards
            else f"split across its {cards} cards"
            if used == cards
            else f"split across {used} of its {cards} cards"
            if copies == 1
            else f"{copies} copies, each split across {used} of its {cards} cards"
        )
        setting = None if layout is None else tight_setting(data.catalog, layout.fit)
        expected += "" if setting is None else f", with {setting}"
        assert match["how"] == expected, (model.id, precision.id, context, first)


def test_no_line_says_a_node_of_several_cards_holds_it_on_one_card(data):
    for lang in LANGS:
        ctx = ctx_for(data, lang)
        for model, precision, context in every_choice(data):
            for line in summary_lines(ctx, rows_of(data, model.id, precision.id, context)):
                assert "{" not in line and "holds it on one card" not in line, line
                assert not re.search(
                    r"[2-8]\xa0×\xa0.*(on its single card|sur son unique carte|用它唯一的一张显卡)", line
                ), line


def test_a_single_card_line_names_the_card_and_the_cheapest_node_that_has_one(data):
    # Llama 3.3 70B in BF16 (141.1 GB of weights) at 8K: only a 192 GB B200 holds it alone, and the one node
    # with B200s has 8 of them; the cheapest node that runs it splits it
    lines = summary_lines(ctx_for(data, "en"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert lines[0].startswith("Cheapest node that runs it: ") and "split across" in lines[0]
    assert "It fits on a single B200 card; the cheapest node with one: 8\xa0×\xa0B200, $30,600/month." in lines
    fr = summary_lines(ctx_for(data, "fr"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert (
        "Il tient sur une seule carte B200\u202f; le nœud le moins cher qui en a une\u202f: 8\xa0×\xa0B200, "
        "30\u202f600\xa0$US/mois." in fr
    )
    zh = summary_lines(ctx_for(data, "zh"), rows_of(data, "llama-3.3-70b", "bf16", "8192"))
    assert "单张 B200 显卡即可装下它；配有这种显卡的最便宜节点：8\xa0×\xa0B200，US$30,600/\u2060月。" in zh


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
    expected = f"Llama 3.3 70B in FP8, 32K tokens: {runs} of our 41 nodes run it"
    assert line == expected + (f", {tight} more only just." if tight else ".")
    sdxl = status_line(
        ctx,
        choice_text(ctx, data.catalog.models["sdxl-base-1.0"], "BF16", NO_CONTEXT),
        rows_of(data, "sdxl-base-1.0", "bf16", NO_CONTEXT),
    )
    assert sdxl == "SDXL 1.0 in BF16: 41 of our 41 nodes run it."  # 6.9 GB: every card holds it


# --- pages ------------------------------------------------------------------------------------------------------
def test_every_precision_at_every_context_has_a_page_the_defaults_the_models_own(data):
    c = data.catalog
    assert default_choice(c, "llama-3.3-70b") == ("bf16", "8192")
    assert choice_path(c, "llama-3.3-70b", "bf16", "8192") == ""
    assert choice_path(c, "llama-3.3-70b", "fp8", "8192") == "fp8/8192/"
    assert choice_path(c, "llama-3.3-70b", "bf16", "131072") == "bf16/131072/"
    assert choice_path(c, "flux.1-dev", "fp8", NO_CONTEXT) == "fp8/"
    # issue 27: FP8 at 32K had no page; now 5 precisions × 4 contexts, in the menus' order
    llama = choices(c, "llama-3.3-70b")
    assert len(llama) == 20 and llama[:5] == [("bf16", k) for k in ("4096", "8192", "32768", "131072")] + [
        ("fp8", "4096")
    ]
    assert ("fp8", "32768") in llama
    assert choices(c, "flux.1-dev") == [("bf16", NO_CONTEXT), ("fp8", NO_CONTEXT)]
    assert sum(len(choices(c, m)) for m in c.models) == sum(1 for _ in every_choice(data))


def test_each_choice_page_has_a_title_of_its_own(data):
    for lang in LANGS:
        ctx = ctx_for(data, lang)
        titles = [title_text(ctx, model.id, precision.id, context) for model, precision, context in every_choice(data)]
        assert len(set(titles)) == len(titles)
    en = ctx_for(data, "en")
    assert spaced(title_text(en, "llama-3.3-70b", "fp8", "32768")) == "Configurator: Llama 3.3 70B in FP8, 32K tokens"
    assert title_text(en, "flux.1-dev", "fp8", NO_CONTEXT) == "Configurator: FLUX.1 [dev] in FP8"


def test_the_macro_shows_a_precision_and_context_and_links_to_the_others(data):
    html = render(
        data,
        '{{ configurator("llama-3.3-70b", "fp8", context=32768) }}',
        "en",
        "docs/en/configurator/llama-3.3-70b/fp8/32768.md",
        PageLinks.at("configurator/llama-3.3-70b/fp8/32768/", "en"),
    )
    html = spaced(html)
    assert 'data-precision="fp8" data-context="32768"' in html
    assert '<p class="cfg-status" aria-live="polite">Llama 3.3 70B in FP8, 32K tokens: ' in html
    assert html.count("aria-live") == 1
    # the other precisions at 32K, the other contexts in FP8: every choice within two links
    assert '<a href="../../../../configurator/llama-3.3-70b/bf16/32768/">BF16</a>' in html
    assert '<a href="../../../../configurator/llama-3.3-70b/fp8/8192/">8K tokens</a>' in html
    assert '<a href="../../../../configurator/llama-3.3-70b/fp8/32768/" aria-current="page">FP8</a>' in html
    # the model list comes before the table: on a further choice, one link to it
    assert html.index('class="cfg-models"') < html.index("<table")
    assert (
        '<nav class="cfg-models" aria-label="Every model"><a href="../../../../configurator/">Every model</a>' in html
    )


def test_a_models_own_page_lists_every_model_and_a_further_choice_links_to_the_list(data):
    """Every model on each of the model's further choices was markup that grew with the catalog squared; those
    pages link to the list (the configurator's page lists them too) and their own precision and context links."""
    own = render(
        data,
        '{{ configurator("llama-3.3-70b") }}',
        "en",
        "docs/en/configurator/llama-3.3-70b.md",
        PageLinks.at("configurator/llama-3.3-70b/", "en"),
    )
    listed = re.findall(r'<a href="[^"]+" data-model="([^"]+)"', own)
    assert listed == list(data.catalog.models) and 'data-model="llama-3.3-70b" aria-current="true"' in own
    further = render(
        data,
        '{{ configurator("llama-3.3-70b", "bf16", context=32768, kv_cache="fp8") }}',
        "en",
        "docs/en/configurator/llama-3.3-70b/bf16/32768/kv-fp8.md",
        PageLinks.at("configurator/llama-3.3-70b/bf16/32768/kv-fp8/", "en"),
    )
    nav = re.search(r'<nav class="cfg-models".*?</nav>', further, re.S).group(0)
    assert (
        nav
        == '<nav class="cfg-models" aria-label="Every model"><a href="../../../../../configurator/">Every model</a>\n</nav>'
    )


# --- the KV cache in FP8, a fourth choice (issue 24, item 2) ---------------------------------------------------
def test_the_kv_cache_in_fp8_is_a_choice_of_every_language_model_in_a_format_vllm_runs(data):
    c = data.catalog
    assert choice_path(c, "llama-3.1-8b", "bf16", "8192", "fp8") == "bf16/8192/kv-fp8/"  # the defaults too
    assert choice_path(c, "llama-3.3-70b", "fp8", "32768", "fp8") == "fp8/32768/kv-fp8/"
    llama = fp8_kv_choices(c, "llama-3.3-70b")
    assert llama == [(p, k) for p in ("bf16", "fp8", "int4-awq-gptq") for k in ("4096", "8192", "32768", "131072")]
    assert fp8_kv_choices(c, "flux.1-dev") == []  # an image model keeps no KV cache
    assert not any(p.startswith("gguf") for m in c.models for p, _ in fp8_kv_choices(c, m))  # llama.cpp: no FP8
    # 105 before: + Qwen3 14B and 30B-A3B (3 formats × 3 contexts each), R1 Distill 70B (3 × 4), gpt-oss (1 × 4 each)
    assert sum(len(fp8_kv_choices(c, m)) for m in c.models) == 143


def test_the_fp8_pages_read_the_fp8_verdict_matrix(data):
    """One matrix for the pages and the API's fit-kv-fp8.json, the same verdicts as a matrix made afresh.
    Llama 3.1 8B in BF16 at 32K on one L4: only just with a BF16 cache (the verdict names the FP8 cache), on one
    card with the cache in FP8."""
    assert kv_matrix(data, "fp8") is kv_matrix(data, "fp8") and kv_matrix(data, "bf16") is data.matrix
    fresh = VerdictMatrix(data.catalog, "fp8")
    for row in rows_of(data, "llama-3.1-8b", "bf16", "32768", "fp8"):
        assert row.fit == fresh.cell("llama-3.1-8b", "bf16", row.node.id, 32768).fit
    bf16, fp8 = (
        {r.node.id: r for r in rows_of(data, "llama-3.1-8b", "bf16", "32768", kv)}["1x-l4"] for kv in ("bf16", "fp8")
    )
    assert bf16.fit.verdict is Verdict.TIGHT and bf16.fit.tight_by == "kv_cache_dtype"
    assert fp8.fit.verdict is Verdict.ONE_CARD and fp8.fit.kv_cache_dtype == "fp8"
    ctx = ctx_for(data, "en")
    assert ctx.verdict_text(bf16.fit).startswith("fits with --kv-cache-dtype fp8, or, at the default setting")
    # where a BF16 cache fits, FP8 halves each stream's cache beside the same free memory: twice the streams or more
    bf16, fp8 = (
        {r.node.id: r for r in rows_of(data, "llama-3.1-8b", "bf16", "32768", kv)}["1x-l40s"] for kv in ("bf16", "fp8")
    )
    assert fp8.layout.streams_per_copy >= 2 * bf16.layout.streams_per_copy > 2


def test_each_fp8_page_has_a_title_of_its_own(data):
    for lang in LANGS:
        ctx = ctx_for(data, lang)
        titles = [title_text(ctx, m.id, p.id, k) for m, p, k in every_choice(data)]
        titles += [title_text(ctx, m.id, p.id, k, "fp8") for m, p, k in every_fp8_kv_choice(data)]
        assert len(set(titles)) == len(titles) == 255 + 143
    assert spaced(title_text(ctx_for(data, "en"), "llama-3.1-8b", "bf16", "32768", "fp8")) == (
        "Configurator: Llama 3.1 8B in BF16, 32K tokens, KV cache in FP8"
    )
    fr, zh = (spaced(title_text(ctx_for(data, lang), "llama-3.1-8b", "bf16", "32768", "fp8")) for lang in ("fr", "zh"))
    assert fr == "Configurateur : Llama 3.1 8B en BF16, 32K tokens, cache KV en FP8"
    assert zh == "配置工具：Llama 3.1 8B（BF16，32K token，KV 缓存为 FP8）"


def render_choice(data, call: str, path: str, lang: str = "en") -> str:
    html = render(
        data, "{{ " + call + " }}", lang, f"docs/{lang}/configurator/{path}.md", PageLinks.at(path + "/", lang)
    )
    return spaced(html)


def test_an_fp8_page_links_to_its_bf16_version_and_keeps_fp8_where_the_format_offers_it(data):
    path = "configurator/llama-3.3-70b/fp8/32768/kv-fp8"
    html = render_choice(data, 'configurator("llama-3.3-70b", "fp8", context=32768, kv_cache="fp8")', path)
    up = "../../../../../configurator/llama-3.3-70b/"
    assert 'data-precision="fp8" data-context="32768" data-kv="fp8"' in html
    assert "Llama 3.3 70B in FP8, 32K tokens, KV cache in FP8: " in html
    # the two versions of the same choice link to each other
    assert f'<a href="{up}fp8/32768/">BF16 (default)</a>' in html
    assert f'<a href="{up}fp8/32768/kv-fp8/" aria-current="page">FP8 (less memory)</a>' in html
    # the other contexts and the formats vLLM runs stay in FP8; GGUF (llama.cpp) has a BF16 cache only
    assert f'<a href="{up}fp8/8192/kv-fp8/">8K tokens</a>' in html
    assert f'<a href="{up}bf16/32768/kv-fp8/">BF16</a>' in html
    assert f'<a href="{up}gguf-q8_0/32768/">GGUF Q8_0</a>' in html
    # the menu, and what the FP8 cache gains and costs, with the model's own figures
    assert (
        '<select name="kv" disabled><option value="bf16">BF16 (default)</option><option value="fp8" selected>' in html
    )
    assert "KV cache in FP8 (--kv-cache-dtype fp8): each token of context keeps 160.0 KiB" in html
    assert "instead of 320.0 KiB in BF16" in html and "some loss of quality, most on long contexts" in html
    assert "Llama 3.3 70B in FP8, KV cache in FP8: every node of the catalog" in html


def test_a_guide_links_an_fp8_choice_by_its_name_and_quotes_its_figures(data):
    def guide(call: str, lang: str = "en") -> str:
        links = PageLinks.at(("" if lang == "en" else f"{lang}/") + "guides/quantization/", lang)  # as MkDocs sets it
        return spaced(render(data, "{{ " + call + " }}", lang, f"docs/{lang}/guides/quantization.md", links))

    assert guide('configurator_link("llama-3.1-8b", "bf16", 32768, "fp8")') == (
        '<a href="../../configurator/llama-3.1-8b/bf16/32768/kv-fp8/">'
        "Llama 3.1 8B in BF16, 32K tokens, KV cache in FP8</a>"
    )
    assert guide('configurator_link("llama-3.1-8b", "bf16", 32768, "fp8")', "fr").startswith(
        '<a href="../../../fr/configurator/llama-3.1-8b/bf16/32768/kv-fp8/">'
    )
    # the FP8 page's verdict on one L4, where a BF16 cache fits only just
    assert guide('verdict_with_kv_cache("llama-3.1-8b", "bf16", "1x-l4", 32768, "fp8")') == "fits on one card"
    assert guide('verdict_with_kv_cache("llama-3.1-8b", "bf16", "1x-l4", 32768, "bf16")').startswith(
        "fits with --kv-cache-dtype fp8"
    )
    load = guide('full_load_with_kv_cache("llama-3.1-8b", "bf16", "1x-l40s", 32768, "fp8")')
    fp8 = next(r for r in rows_of(data, "llama-3.1-8b", "bf16", "32768", "fp8") if r.node.id == "1x-l40s")
    assert load.startswith(f"{fp8.layout.streams_per_copy} streams at once, ~")
    with pytest.raises(PageError, match="leave kv_cache out"):
        guide('verdict_with_kv_cache("llama-3.1-8b", "gguf-q8_0", "1x-l4", 32768, "fp8")')


@pytest.mark.parametrize(
    "call, path, says",
    [
        ('configurator("flux.1-dev")', "flux.1-dev", "none: an image or video model keeps no KV cache"),
        ('configurator("llama-3.3-70b", "gguf-q8_0")', "llama-3.3-70b/gguf-q8_0/8192", "default: llama.cpp offers"),
    ],
)
def test_without_an_fp8_kv_cache_the_menu_has_one_option_that_says_why_and_no_link_row(data, call, path, says):
    html = render_choice(data, call, f"configurator/{path}")
    menu = re.search(r'<select name="kv" disabled>(.*?)</select>', html).group(1)
    assert menu.count("<option") == 1 and says in menu
    assert "KV cache, in" not in html and "cfg-kv-note" not in html


@pytest.mark.parametrize(
    "call, message",
    [
        ('configurator("llama-3.3-70b", "bf16", context=1234)', "no context preset of 1234 tokens; use one of 4096"),
        ('configurator("flux.1-dev", "bf16", context=8192)', "leave context out"),
        ('configurator("flux.1-dev", "int4-awq-gptq")', "does not apply"),
        ('configurator("flux.1-dev", kv_cache="fp8")', "has no KV cache in FP8 (an image or video model"),
        ('configurator("llama-3.3-70b", "gguf-q4_k_m", kv_cache="fp8")', "leave kv_cache out"),
        ('configurator("llama-3.3-70b", kv_cache="fp4")', "unknown KV-cache precision 'fp4'; use 'bf16'"),
    ],
)
def test_a_wrong_precision_or_context_is_an_error_that_says_what_to_write(data, call, message):
    with pytest.raises(PageError, match=re.escape(message)):
        render(data, "{{ " + call + " }}", "en", "docs/en/configurator/x.md")


# --- search ----------------------------------------------------------------------------------------------------
def test_each_row_is_a_search_entry_readable_on_its_own(data):
    summary, rows = search_rows(ctx_for(data, "en"), "llama-3.3-70b")
    assert len(rows) == 41 and summary.startswith("Llama 3.3 70B in BF16, 8K tokens: ")
    b200 = next(r for r in rows if r.configuration == "8x-b200")
    assert b200.title == "Llama 3.3 70B in BF16 on 8\xa0×\xa0B200"
    assert re.fullmatch(r"fits on one card — ~\d+\u00a0tok/s \(at least \d+\) — \$30,600/month", b200.text), b200.text
    l4 = next(r for r in rows if r.configuration == "1x-l4")
    assert l4.text == "does not fit on this node — $390/month"  # no speed: no dash left for it
    zh = {r.configuration: r for r in search_rows(ctx_for(data, "zh"), "llama-3.3-70b")[1]}
    assert (
        zh["1x-l4"].text == "此节点装不下，US$390/\u2060月"
        and zh["1x-l4"].title == "1\xa0×\xa0L4 上的 Llama\xa03.3\xa070B（BF16）"
    )


# --- one figure, one verdict (issue 27) ------------------------------------------------------------------------
GIB_FIGURE = re.compile(r"(\d[\d\u202f\xa0,.]*)[\s\xa0\u202f]?(?:GiB|Gio)")
SPEED_FIGURE = re.compile(r"~(\d[\d\u202f\xa0,.]*)[\s\xa0\u202f]?tok/s|约[ \xa0](\d[\d,.]*)[ \xa0]token/\u2060?秒")


def as_float(raw: str, lang: str) -> float:
    """A figure as the language writes it: "1,234.5", « 1 234,5 »."""
    raw = raw.replace("\u202f", "").replace("\xa0", "")
    return float(raw.replace(",", ".") if lang == "fr" else raw.replace(",", ""))


def gib_figures(text: str, lang: str) -> list[float]:
    return [as_float(raw, lang) for raw in GIB_FIGURE.findall(text)]


def speed_figures(text: str, lang: str) -> list[float]:
    return [as_float(a or b, lang) for a, b in SPEED_FIGURE.findall(text)]


def spaced(text: str) -> str:
    """A text with its no-break spaces read as spaces."""
    return text.replace("\xa0", " ").replace("\u202f", " ")


def every_table(data, kv_cache: KvCacheDtype = "bf16"):
    """Every model × precision × context table of the configurator, with the KV cache in ``kv_cache``: its rows and
    the decimals of its memory figures."""
    ctx = ctx_for(data, "en")
    listed = every_choice(data) if kv_cache == "bf16" else every_fp8_kv_choice(data)
    for model, precision, context in listed:
        rows = rows_of(data, model.id, precision.id, context, kv_cache)
        yield model, precision, context, rows, column_digits(ctx, rows)


def every_cell(data, kv_cache: KvCacheDtype = "bf16"):
    """Every model × precision × context × node row of the configurator, with the KV cache in ``kv_cache``, and the
    decimals of its table."""
    for model, precision, context, rows, digits in every_table(data, kv_cache):
        for row in rows:
            yield model, precision, context, row, digits


# 255 choices of 41 rows each; with the KV cache in FP8, the 143 of language models in a format a server engine runs
# (BF16, FP8, INT4 AWQ/GPTQ, MXFP4; GGUF runs on llama.cpp) at their contexts (tallied in
# test_only_server_formats_of_language_models_get_an_fp8_kv_page)
CELLS = {"bf16": 255 * 41, "fp8": 143 * 41}


@pytest.mark.parametrize("kv_cache", ["bf16", "fp8"])
@pytest.mark.parametrize("lang", LANGS)
def test_every_cell_reads_its_verdict_from_its_own_figures(data, lang, kv_cache):
    """A verdict and its reason agree in every cell, with the KV cache in BF16 or FP8: what fits shows a need at
    most what a card offers, what does not (or only just, against the default setting) a need above it, with the
    decimals that decide; a pipeline whose parts take turns, or a server running fewer streams, the need at the
    default setting above what a card offers and the need at its tight setting within it; layers in host memory,
    what the busiest card holds within what it offers and some weights in host memory; no reason counts more cards
    than the node has."""
    ctx = ctx_for(data, lang)
    default = ctx.catalog.assumptions.usable_memory_fraction.value
    checked = 0
    for model, precision, context, row, digits in every_cell(data, kv_cache):
        where = (lang, kv_cache, model.id, precision.id, context, row.node.id)
        cells = row_cells(ctx, row, isinstance(model, Llm), digits)
        assert row.fit.cards <= row.node.cards, where
        if row.fit.tight_by == "partial_load":  # every part, the parts in turns, the card, what waits in host memory
            need, in_turns, offered, waiting = gib_figures(cells[1], lang)
            assert need > in_turns > offered and waiting == pytest.approx(in_turns - offered, abs=0.15), cells[1]
            checked += 1
            continue
        if row.fit.tight_by == "gpu_layers":  # every layer, the busiest card, the card, the weights in host memory
            need, offered, at_setting, in_host = gib_figures(cells[1], lang)
            assert need > offered >= at_setting and in_host > 0, (where, cells[1])
            assert in_host < need * row.fit.cards, (where, cells[1])  # the host holds part of what all would need
            checked += 1
            continue
        if row.fit.tight_need is not None and row.fit.memory_utilization not in (None, default):
            need, offered, at_setting, raised = gib_figures(cells[1], lang)  # the setting raises the utilization too
            assert need > offered and at_setting <= raised, (where, cells[1])
            checked += 1
            continue
        if row.fit.tight_need is not None:  # above the budget at the default setting, within it at the tight one
            need, offered, at_setting = gib_figures(cells[1], lang)
            assert need > offered >= at_setting, (where, cells[1])
            checked += 1
            continue
        need, offered = gib_figures(cells[1], lang)
        if row.fit.verdict in (Verdict.ONE_CARD, Verdict.SPLIT):
            assert row.fit.need.total <= row.fit.budget and need <= offered, (where, cells[1])
        else:
            assert need > offered, (where, cells[1])
        if row.fit.verdict is Verdict.NO_FIT:
            assert row.fit.need.total > row.fit.budget, where
        checked += 1
    assert checked == CELLS[kv_cache]


@pytest.mark.parametrize("kv_cache", ["bf16", "fp8"])
@pytest.mark.parametrize("lang", LANGS)
def test_every_full_load_shows_its_speed_as_the_speed_column_does_and_says_why_so_many_streams(data, lang, kv_cache):
    ctx = ctx_for(data, lang)
    for model, precision, context, row, digits in every_cell(data, kv_cache):
        if row.layout is None:
            continue
        where = (lang, kv_cache, model.id, precision.id, context, row.node.id)
        _, _, speed, load, *_ = row_cells(ctx, row, True, digits)
        typical = speed_figures(speed, lang)[0]  # "~5.7 tok/s (at least 3.1)"
        (total,) = speed_figures(load, lang)
        if row.layout.streams == 1:  # one stream at full load is the one stream timed alone
            assert total == typical, (where, speed, load)
        room = gib_figures(load, lang)
        if room:  # "2 streams (4.0 GiB free per card, 2.0 GiB each)"
            beside, per_stream = room
            assert int(beside // per_stream) == row.layout.streams_per_copy, (where, load)


def test_two_cards_of_one_size_say_why_they_serve_more_or_fewer_streams(data):
    """Issue 27, with vLLM's batch by card (issue 24): Qwen3 32B at 8K on an A100 80GB and on an H100 PCIe, two
    cards of about 79 GiB. vLLM profiles 256 sequences on the A100 and 1,024 on the H100, so the A100 keeps 1.8 GiB
    less for the sampler (256 × 151,936 × 17 B = 0.62 against 2.46 GiB): it needs 64.3 GiB and serves 4 streams, the
    H100 66.1 and 3."""
    ctx = ctx_for(data, "en")
    table = rows_of(data, "qwen3-32b", "bf16", "8192")
    digits = column_digits(ctx, table)  # the reasons at one decimal; the loads at two, which every row's need
    rows = {r.node.id: r for r in table}
    a100, h100 = (
        [spaced(c) for c in row_cells(ctx, rows[n], True, digits)] for n in ("1x-a100-pcie-80gb", "1x-h100-pcie-80gb")
    )
    assert a100[1] == "needs 64.3 GiB of the 71.3 GiB a card offers"
    assert h100[1] == "needs 66.1 GiB of the 71.3 GiB a card offers"
    # 71.325 − 61.024 (weights) − 0.616 − 0.65 = 9.03 GiB; 71.298 − 61.024 − 2.462 − 0.65 = 7.16 GiB
    assert a100[3].startswith("4 streams (9.03 GiB free per card, 2.00 GiB each), ")
    assert h100[3].startswith("3 streams (7.16 GiB free per card, 2.00 GiB each), ")


def test_a_card_alone_that_cannot_hold_the_model_says_so_without_a_split(data):
    """The reason once read "would need 135.1 GiB per card across 1 card": a card alone is not split. Llama 3.3 70B in
    BF16 at 8K on 1 × L4: 131.4 GiB of weights and its reserve, far above the 19.8 GiB the card offers (0.90 × 22,563
    MiB)."""
    reasons = {}
    for lang in ("en", "fr", "zh"):
        ctx = ctx_for(data, lang)
        table = rows_of(data, "llama-3.3-70b", "bf16", "8192")
        row = next(r for r in table if r.node.id == "1x-l4")
        reasons[lang] = spaced(row_cells(ctx, row, True, column_digits(ctx, table))[1])
    assert reasons["en"].startswith("would need ") and reasons["en"].endswith("; a card offers 19.8 GiB")
    assert "across" not in reasons["en"] and " sur 1 " not in reasons["fr"] and "切分" not in reasons["zh"]


def test_a_reason_shows_the_decimal_that_decides():
    assert decisive_digits([(19.74, 19.66)]) == 2 and decisive_digits([(19.5, 21.2)]) == 1
    assert decisive_digits([(3.987, 4.0)]) == 2 and decisive_digits([(4.0001, 4.0)]) == 3
    assert decisive_digits([(19.5, 21.2), (19.74, 19.66)]) == 2  # a table: the decimals its closest comparison needs
    assert decisive_digits([]) == 1


def decimals(raw: str, lang: str) -> int:
    """How many decimals a figure is written with: "9.03" two, « 9,03 » two, "71" none."""
    sign, figure = "," if lang == "fr" else ".", raw.replace("\xa0", "").replace("\u202f", "").strip()
    return len(figure.rpartition(sign)[2]) if sign in figure else 0


@pytest.mark.parametrize("kv_cache", ["bf16", "fp8"])
@pytest.mark.parametrize("lang", LANGS)
def test_each_column_writes_its_memory_figures_with_one_number_of_decimals(data, lang, kv_cache):
    """Issue 38: "1.3 GiB free per card, 0.5 GiB each", "41.60 … 0.54" and "76.193 … 0.536" in one column. The
    decimals are decided once per table: a reason's figures take those the table's closest comparison needs, a load's
    those at which the most rows' figures divide to their streams; a row whose figures do not, at those, says how many
    streams and not why."""
    ctx = ctx_for(data, lang)
    mixed = []
    for model, precision, context, rows, digits in every_table(data, kv_cache):
        llm = isinstance(model, Llm)
        cells = [row_cells(ctx, row, llm, digits) for row in rows]
        columns = {"why": [c[1] for c in cells], **({"load": [c[3] for c in cells]} if llm else {})}
        for name, column in columns.items():
            written = {decimals(raw, lang) for cell in column for raw in GIB_FIGURE.findall(cell)}
            expected = {digits.why if name == "why" else digits.room}
            if written and written != expected:
                mixed.append((model.id, precision.id, context, name, sorted(written)))
    assert not mixed, mixed[:5]


# --- the words are the server's (issue 23, item 3) --------------------------------------------------------------
SCRIPT = ROOT / "docs" / "en" / "assets" / "configurator.js"
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`((?:[^`\\]|\\.)*)`')


def test_the_script_writes_no_word_and_formats_no_figure():
    """The script places what the server wrote (the chosen choice's own page): its strings are selectors, names
    and keys, never a word or a sentence a reader sees, and it formats no number. So the script and a page
    without script say the same thing for every state, by construction."""
    code = re.sub(r"(^|\s)//[^\n]*", r"\1", SCRIPT.read_text(encoding="utf-8"))
    literals = [next(g for g in groups if g is not None) for groups in LITERAL.findall(code)]
    assert len(literals) > 20
    for literal in literals:
        assert literal.isascii() and re.fullmatch(r"[-\w.#\[\]=${}()/?:>*+\" ]*", literal), literal
        assert not re.search(r"[a-z]{2,} [a-z]{2,} [a-z]{2,}", literal), literal  # no sentence
    for formatting in ("Intl", "NumberFormat", "toFixed", "toLocaleString", "toPrecision", ".strings", "fill("):
        assert formatting not in code, formatting
    sections = ("configurator", "verdicts", "tight", "units")
    words = {v for section in sections for entry in strings()[section].values() for v in entry.values()}
    words = {w for w in words if len(re.sub(r"\{\w+\}", "", w).strip()) > 3}  # not a bare "{name}"
    assert not [(w, literal) for w in words for literal in literals if w in literal]


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_is_written_typeset_so_the_page_need_not_typeset_it_again(data, lang):
    """The macro's HTML skips the page's typography (it cost more than making the table): every model's pages
    must read the same typeset or not. Issue 27: the Chinese note once read "6710 亿 参数" from the script."""
    for model in data.catalog.models.values():
        for precision, context in choices(data.catalog, model.id)[:2]:
            at = "" if context == NO_CONTEXT else f", context={context}"
            html = render(
                data,
                f'{{{{ configurator("{model.id}", "{precision}"{at}) }}}}',
                lang,
                f"docs/{lang}/configurator/{model.id}.md",
                PageLinks.at(f"configurator/{model.id}/", lang),
            )
            assert typeset(html, lang) == html, (model.id, precision, context)
    call = '{{ configurator("llama-3.1-8b", "bf16", context=32768, kv_cache="fp8") }}'
    path = "configurator/llama-3.1-8b/bf16/32768/kv-fp8/"
    html = render(data, call, lang, f"docs/{lang}/{path.rstrip('/')}.md", PageLinks.at(path, lang))
    assert typeset(html, lang) == html and "cfg-kv-note" in html  # the FP8 note too
    if lang == "zh":
        note = spaced(render(data, '{{ configurator("deepseek-v3") }}', "zh"))
        assert "显存按全部 6710 亿参数计算" in note and "亿 参数" not in note
