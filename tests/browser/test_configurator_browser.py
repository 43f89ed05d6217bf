"""The configurator in real headless Chromium, in every language, with and without JavaScript."""

import pytest
from site_pages import CONFIGURATOR_DRAWN
from sitebuild import LANGUAGES

from macros.library.configurator import choice_path, choices, fp8_kv_choices

pytestmark = pytest.mark.browser

MONTH_PRICE = {"en": "$4,157/month", "fr": "4\u202f157\xa0$US/mois", "zh": "US$4,157/\u2060月"}
SPLIT_TWO = {"en": "split across 2 cards", "fr": "réparti sur 2 cartes", "zh": "需切分到\xa02\xa0张\u2060卡"}
ONE_CARD = {"en": "fits on one card", "fr": "tient sur une seule carte", "zh": "单卡即可装下"}
NO_FIT = {"en": "does not fit on this node", "fr": "ne tient pas sur ce nœud", "zh": "此节点装不下"}


ROWS_JS = (
    "Object.fromEntries([...document.querySelectorAll('.cfg-table tbody tr')]"
    ".map(tr => [tr.dataset.configuration, [...tr.children].map(c => c.textContent)]))"
)


def rows(page) -> dict[str, list[str]]:
    """Each table row's cells, by node id."""
    return page.evaluate(ROWS_JS)


def ordered_nodes(page) -> list[str]:
    return page.eval_on_selector_all(".cfg-table tbody tr", "trs => trs.map(tr => tr.dataset.configuration)")


@pytest.fixture
def page(tab):
    """A page of the session's (conftest.Tabs), its errors in ``page.errors``."""
    return tab()


@pytest.fixture
def own_page(browser):
    """A page of its own: a history that starts with this test (Back and Forward), routes of its own."""
    context = browser.new_context()
    page = context.new_page()
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_llama_70b_bf16_on_every_node_then_another_precision_then_another_language(page, server, lang):
    prefix = LANGUAGES[lang]
    page.goto(f"{server}{prefix}configurator/")
    page.select_option("select[name=model]", "llama-3.3-70b")
    page.select_option("select[name=precision]", "bf16")
    page.wait_for_function("location.search.includes('precision=bf16')")
    table = rows(page)
    assert len(table) == 41
    for node in ("1x-a100-pcie-80gb", "1x-h100-pcie-80gb"):  # no single 80 GB card holds 141 GB
        assert table[node][1] == NO_FIT[lang]
    for node in (
        "4x-a100-pcie-80gb",
        "4x-a100-sxm4-80gb",
    ):  # two of their cards hold it (an A100 profiles 256 sequences)
        assert table[node][1] == SPLIT_TWO[lang]
    assert table["4x-a100-pcie-80gb"][5] == MONTH_PRICE[lang]  # after the speed and the load at full load

    page.select_option("select[name=precision]", "int4-awq-gptq")  # 39.8 GB: one 80 GB card holds it
    page.wait_for_function("location.search.includes('precision=int4-awq-gptq')")
    assert rows(page)["1x-a100-pcie-80gb"][1] == ONE_CARD[lang]

    other = next(code for code in LANGUAGES if code != lang)
    page.hover(".md-header .md-select")  # the language menu opens on hover
    with page.expect_navigation():
        page.click(f".md-header a[hreflang={other}]")
    assert page.url.startswith(f"{server}{LANGUAGES[other]}configurator/?model=llama-3.3-70b&precision=int4-awq-gptq")
    page.wait_for_function("document.querySelector('select[name=precision]').value === 'int4-awq-gptq'")
    assert page.input_value("select[name=model]") == "llama-3.3-70b"
    assert rows(page)["1x-a100-pcie-80gb"][1] == ONE_CARD[other]
    assert page.errors == []


def test_switching_model_and_context_uses_the_url(page, server):
    page.goto(f"{server}configurator/?model=mistral-small-3-24b&precision=bf16&context=32768")
    page.wait_for_function("document.querySelector('select[name=model]').value === 'mistral-small-3-24b'")
    assert page.input_value("select[name=context]") == "32768"
    page.select_option("select[name=model]", "flux.1-dev")
    page.wait_for_function("location.search.includes('model=flux.1-dev')")
    assert page.is_disabled("select[name=context]")
    assert "context" not in page.evaluate("location.search")
    assert page.errors == []


def shown(page, model: str, precision: str, context: str, kv: str = "bf16") -> None:
    """The script has placed the choice: the configurator says which one it shows."""
    page.wait_for_function(
        "([m, p, c, k]) => { const d = document.querySelector('.configurator').dataset;"
        " return d.model === m && d.precision === p && d.context === c && d.kv === k; }",
        arg=[model, precision, context, kv],
    )


def words(page) -> dict[str, object]:
    """What a reader reads of the configurator: heading, status, summary, note, table and floor note, and what
    its menus hold (one call into the page: the tests compare about two hundred pages)."""
    return page.evaluate(
        f"""() => ({{
            heading: document.querySelector("h1").firstChild.nodeValue,
            status: document.querySelector(".cfg-status").textContent,
            result: document.querySelector(".cfg-result").innerText,
            rows: {ROWS_JS},
            menus: ["model", "precision", "context", "kv"].map(n => document.querySelector(`select[name=${{n}}]`).value),
        }})"""
    )


# every choice of two models in each language, and in Chinese (where the script once wrote "6710 亿 参数" and 22 of
# 31 states differed from the page) the first choice of every other model too: the script places the server's words
# (test_configurator.py holds that it has none of its own), so it says what the page of the same choice says
WALKED = {
    "en": ["llama-3.3-70b", "flux.1-dev"],
    "fr": ["deepseek-v3", "sd-3.5-large"],
    "zh": ["deepseek-v3", "wan2.1-t2v-14b"],
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_for_every_choice_the_script_shows_what_the_page_without_javascript_shows(tab, server, catalog, lang):
    static = tab(java_script_enabled=False)
    dynamic = tab()
    base = f"{server}{LANGUAGES[lang]}configurator/"
    dynamic.goto(base + "llama-3.3-70b/")
    ready(dynamic)
    walked = 0
    for model in catalog.models if lang == "zh" else WALKED[lang]:
        dynamic.select_option("select[name=model]", model)
        for precision, context in choices(catalog, model)[: None if model in WALKED[lang] else 1]:
            dynamic.select_option("select[name=precision]", precision)
            if context != "0":
                dynamic.select_option("select[name=context]", context)
            shown(dynamic, model, precision, context)
            static.goto(base + model + "/" + choice_path(catalog, model, precision, context))
            seen, written = words(dynamic), words(static)
            written["menus"] = [model, precision, context, "bf16"]  # the page without script shows no menus
            assert seen == written, (model, precision, context)
            walked += 1
    assert walked >= 20 and dynamic.errors == []
    assert static.is_hidden("form.cfg-controls")


# a few FP8 KV-cache choices per language (every FP8 cell's verdict and figures are checked in-process in
# test_configurator.py): the script places the FP8 page's words, its menus say FP8
WALKED_FP8 = {"en": "llama-3.1-8b", "fr": "llama-3.3-70b", "zh": "qwen3-32b"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_for_fp8_kv_cache_choices_the_script_shows_what_the_page_without_javascript_shows(tab, server, catalog, lang):
    model = WALKED_FP8[lang]
    static = tab(java_script_enabled=False)
    dynamic = tab()
    base = f"{server}{LANGUAGES[lang]}configurator/"
    dynamic.goto(base + model + "/")
    ready(dynamic)
    dynamic.select_option("select[name=kv]", "fp8")
    for precision, context in fp8_kv_choices(catalog, model)[3:5]:  # across a change of precision
        dynamic.select_option("select[name=precision]", precision)
        dynamic.select_option("select[name=context]", context)
        shown(dynamic, model, precision, context, "fp8")
        static.goto(base + model + "/" + choice_path(catalog, model, precision, context, "fp8"))
        seen, written = words(dynamic), words(static)
        written["menus"] = [model, precision, context, "fp8"]
        assert seen == written, (model, precision, context)
        assert static.locator(".cfg-kv-note").count() == 1
    assert dynamic.errors == []


def test_a_shared_fp8_link_restores_the_choice_and_back_returns_to_it(own_page, server):
    """The KV cache is in the address: a shared link shows it, the language menu keeps it, and after leaving the
    page, back shows it again."""
    own_page.goto(f"{server}configurator/?model=llama-3.1-8b&precision=bf16&context=32768&kv=fp8")
    shown(own_page, "llama-3.1-8b", "bf16", "32768", "fp8")
    assert own_page.input_value("select[name=kv]") == "fp8" and own_page.is_hidden(".cfg-notice")
    # one L4 holds it on one card with the cache in FP8 (only just with a BF16 cache)
    assert rows(own_page)["1x-l4"][1] == ONE_CARD["en"]
    assert "kv=fp8" in own_page.get_attribute(".md-header a[hreflang=fr]", "href")
    own_page.select_option("select[name=kv]", "bf16")
    own_page.wait_for_function("!location.search.includes('kv=')")
    assert rows(own_page)["1x-l4"][1].startswith("fits with --kv-cache-dtype fp8")
    own_page.select_option("select[name=kv]", "fp8")
    own_page.wait_for_function("location.search.includes('kv=fp8')")
    own_page.goto(f"{server}configurator/flux.1-dev/")  # away, then back
    assert own_page.is_disabled("select[name=kv]") or not own_page.is_visible("select[name=kv]")
    own_page.go_back()
    shown(own_page, "llama-3.1-8b", "bf16", "32768", "fp8")
    assert own_page.input_value("select[name=kv]") == "fp8" and rows(own_page)["1x-l4"][1] == ONE_CARD["en"]
    assert own_page.errors == []


def state(page) -> tuple[str, str, str, str, str]:
    """The choice the configurator shows, and what its menus say."""
    shows = page.eval_on_selector(".configurator", "c => [c.dataset.model, c.dataset.precision, c.dataset.context]")
    return (*shows, page.input_value("select[name=model]"), page.input_value("select[name=precision]"))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["configurator/", "configurator/llama-3.3-70b/"])
def test_back_and_forward_step_through_the_choices_made_as_on_the_plan_page(own_page, server, lang, path):
    """Each choice is pushed to the address: Back undoes it (the page is not left), Forward makes it again; on a
    model's own page the address is the chosen model's page, and the heading follows."""
    start = f"{server}{LANGUAGES[lang]}{path}"
    own_page.goto(start)
    ready(own_page)
    written = own_page.eval_on_selector("article", "a => [a.querySelector('h1').firstChild.nodeValue, a.innerText]")
    first = state(own_page)
    own_page.select_option("select[name=precision]", "fp8")
    shown(own_page, "llama-3.3-70b", "fp8", "8192")
    in_fp8, after_fp8 = state(own_page), own_page.url
    own_page.select_option("select[name=model]", "wan2.1-t2v-14b")
    own_page.wait_for_function("document.querySelector('.configurator').dataset.model === 'wan2.1-t2v-14b'")
    in_wan = state(own_page)
    assert own_page.url != after_fp8
    own_page.go_back()
    shown(own_page, "llama-3.3-70b", "fp8", "8192")
    assert own_page.url == after_fp8 and state(own_page) == in_fp8
    own_page.go_back()
    shown(own_page, "llama-3.3-70b", "bf16", "8192")
    assert own_page.url == start and state(own_page) == first
    # heading, status, summary and table: what the page said before any choice
    assert (
        own_page.eval_on_selector("article", "a => [a.querySelector('h1').firstChild.nodeValue, a.innerText]")
        == written
    )
    own_page.go_forward()
    shown(own_page, "llama-3.3-70b", "fp8", "8192")
    own_page.go_forward()
    own_page.wait_for_function("document.querySelector('.configurator').dataset.model === 'wan2.1-t2v-14b'")
    assert state(own_page) == in_wan
    assert own_page.errors == []


def test_a_kv_cache_the_choice_does_not_offer_falls_back_to_bf16_with_one_notice(page, server):
    # an unknown value, a name every object has, and FP8 asked for a format llama.cpp runs (it has no FP8 cache)
    for precision, kv in (("bf16", "fp4"), ("bf16", "__proto__"), ("gguf-q4_k_m", "fp8")):
        page.goto(f"{server}configurator/?model=llama-3.3-70b&precision={precision}&context=8192&kv={kv}")
        page.wait_for_selector(".cfg-notice")
        shown(page, "llama-3.3-70b", precision, "8192", "bf16")
        assert page.input_value("select[name=kv]") == "bf16" and page.locator(".cfg-notice").count() == 1
        assert page.is_disabled("select[name=kv]") == precision.startswith("gguf")  # one option, which says why
    assert page.errors == []


@pytest.mark.parametrize("asked", ["__proto__", "constructor", "toString", "fp4"])
def test_a_precision_the_model_does_not_offer_falls_back_to_the_default_with_one_notice(page, server, asked):
    page.goto(f"{server}configurator/?model=llama-3.3-70b&precision={asked}")
    page.wait_for_selector(".cfg-notice")
    assert page.input_value("select[name=precision]") == "bf16"  # Llama 3.3 70B's default precision
    assert page.locator(".cfg-notice").count() == 1 and page.locator(".cfg-error").count() == 0
    assert page.locator(".cfg-table tbody tr").count() == 41
    assert page.errors == []


# --- phones, the model followed, stable menus, one notice, one live sentence, no shift, pages without script ---
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 900}
LLAMA_PAGE = "configurator/llama-3.3-70b/"
SDXL_HEADING = {
    "en": "Configurator: SDXL 1.0 in BF16",
    "fr": "Configurateur\u202f: SDXL 1.0 en BF16",
    "zh": "配置工具：SDXL\xa01.0（BF16）",  # a Latin name on one line in Chinese
}
SDXL_INTRO_START = {
    "en": "Every node of our catalog for SDXL 1.0:",
    "fr": "Tous les nœuds de notre catalogue pour SDXL 1.0",
    "zh": "SDXL\xa01.0 在我们产品目录中每个节点上的情况",
}
FP8 = {"en": "FP8", "fr": "FP8", "zh": "FP8"}
CONTEXT_32K = {"en": "32K\xa0tokens", "fr": "32K\xa0tokens", "zh": "32K\xa0token"}  # a number held to its unit
SHIFTS = """window.__shift = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
}).observe({ type: "layout-shift", buffered: true });"""


def ready(page) -> None:
    """The script has run: its menus are enabled and its first table is drawn."""
    page.wait_for_function(CONFIGURATOR_DRAWN)


def overflow(page, selector: str) -> int:
    """How many pixels ``selector`` is wider than its box (0 when nothing scrolls sideways)."""
    return page.eval_on_selector(selector, "e => e.scrollWidth - e.clientWidth")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["configurator/", LLAMA_PAGE, "configurator/sdxl-base-1.0/"])
def test_on_a_phone_nothing_scrolls_sideways_and_each_node_is_a_card(page, server, lang, path):
    page.set_viewport_size(PHONE)
    page.goto(f"{server}{LANGUAGES[lang]}{path}")
    ready(page)
    assert overflow(page, "html") <= 0 and overflow(page, ".configurator") <= 0
    assert overflow(page, ".configurator .table-scroll") <= 0
    # a card: the row is a block as wide as the configurator, its column names written before each figure
    width = page.eval_on_selector(".configurator", "e => e.clientWidth")
    row = page.eval_on_selector(
        ".cfg-table tbody tr", "r => [getComputedStyle(r).display, r.getBoundingClientRect().width]"
    )
    assert row[0] == "block" and row[1] <= width
    label = page.eval_on_selector(".cfg-table tbody td", "td => getComputedStyle(td, '::before').content")
    assert page.eval_on_selector(".cfg-table tbody td", "td => td.dataset.label") in label
    page.set_viewport_size(DESKTOP)  # a desktop keeps the table
    page.reload()
    ready(page)
    assert page.eval_on_selector(".cfg-table tbody tr", "r => getComputedStyle(r).display") == "table-row"
    assert overflow(page, "html") <= 0
    assert page.errors == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_heading_intro_title_and_current_model_follow_the_model_picked(page, server, lang):
    page.goto(f"{server}{LANGUAGES[lang]}{LLAMA_PAGE}")
    ready(page)
    page.select_option("select[name=model]", "sdxl-base-1.0")
    shown(page, "sdxl-base-1.0", "bf16", "0")
    page.wait_for_function("location.pathname.endsWith('/configurator/sdxl-base-1.0/')")
    heading = page.eval_on_selector("h1", "h => h.firstChild.nodeValue")
    assert heading == SDXL_HEADING[lang]
    assert page.title().startswith(SDXL_HEADING[lang]) and "Llama" not in page.title()
    intro = page.text_content(".cfg-intro")
    assert intro.startswith(SDXL_INTRO_START[lang]) and "Llama" not in intro
    current = page.eval_on_selector_all(".cfg-models a[aria-current]", "as => as.map(a => a.dataset.model)")
    assert current == ["sdxl-base-1.0"]
    assert "SDXL 1.0" in page.text_content(".cfg-status").replace("\xa0", " ")
    # the address is SDXL's own page: a reload shows the same heading, with or without the script
    assert page.evaluate("location.pathname").endswith("/configurator/sdxl-base-1.0/")
    page.reload()
    ready(page)
    assert page.eval_on_selector("h1", "h => h.firstChild.nodeValue") == SDXL_HEADING[lang]
    assert page.errors == []


@pytest.mark.parametrize(
    "path", ["configurator/", LLAMA_PAGE, "configurator/flux.1-dev/", "configurator/llama-3.3-70b/fp8/8192/"]
)
def test_the_menus_keep_the_order_the_page_was_written_in(tab, server, path):
    static = tab(java_script_enabled=False)
    static.goto(f"{server}{path}")
    values = "s => [...s.options].map(o => o.value + '=' + o.textContent)"
    written = {
        name: static.eval_on_selector(f"select[name={name}]", values)
        for name in ("model", "precision", "context", "kv")
    }
    dynamic = tab()
    dynamic.goto(f"{server}{path}")
    ready(dynamic)
    for name, options in written.items():
        assert dynamic.eval_on_selector(f"select[name={name}]", values) == options, name
    # away to another model and back: the same order again
    model = dynamic.input_value("select[name=model]")
    other = "wan2.1-t2v-14b" if model != "wan2.1-t2v-14b" else "qwen3-32b"
    dynamic.select_option("select[name=model]", other)
    dynamic.wait_for_function("m => document.querySelector('.configurator').dataset.model === m", arg=other)
    dynamic.select_option("select[name=model]", model)
    dynamic.wait_for_function("m => document.querySelector('.configurator').dataset.model === m", arg=model)
    assert dynamic.eval_on_selector("select[name=precision]", values) == written["precision"]


def test_failed_loads_leave_one_notice_and_menus_that_match_the_table(own_page, server):
    own_page.route("**/configurator/sdxl-base-1.0/", lambda route: route.abort())
    own_page.route("**/configurator/flux.1-dev/", lambda route: route.fulfill(status=500, body="down"))
    own_page.goto(f"{server}{LLAMA_PAGE}")
    ready(own_page)
    table = rows(own_page)
    for model in ("sdxl-base-1.0", "flux.1-dev", "sdxl-base-1.0"):
        own_page.select_option("select[name=model]", model)
        own_page.wait_for_function("!document.querySelector('.cfg-notice').hidden")
        own_page.wait_for_function("document.querySelector('select[name=model]').value === 'llama-3.3-70b'")
    assert own_page.locator(".cfg-notice:visible").count() == 1
    assert own_page.locator("[role=alert]:visible, [role=status]:visible, .cfg-error").count() == 1
    assert own_page.text_content(".cfg-notice") == (
        "The data for SDXL\xa01.0 could not be loaded: the menus and the table still show Llama 3.3 70B in BF16, "
        "8K\xa0tokens."
    )
    # menus, table, status and heading all still tell Llama 3.3 70B in BF16 at 8K tokens
    assert [own_page.input_value(f"select[name={n}]") for n in ("model", "precision", "context")] == [
        "llama-3.3-70b",
        "bf16",
        "8192",
    ]
    assert rows(own_page) == table
    assert own_page.text_content(".cfg-status").startswith("Llama 3.3 70B in BF16, 8K\xa0tokens:")
    assert (
        own_page.eval_on_selector("h1", "h => h.firstChild.nodeValue")
        == "Configurator: Llama 3.3 70B in BF16, 8K\xa0tokens"
    )
    own_page.select_option("select[name=precision]", "fp8")  # a load that works clears the notice
    own_page.wait_for_function("location.search.includes('precision=fp8')")
    assert own_page.locator(".cfg-notice:visible").count() == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_only_a_one_sentence_summary_is_live_not_the_table(page, server, lang):
    page.goto(f"{server}{LANGUAGES[lang]}configurator/")
    ready(page)
    live = "[aria-live], [role=status], [role=log], [role=alert]:not([hidden])"
    assert page.eval_on_selector_all(live, "es => es.map(e => e.className)") == ["cfg-status"]
    page.select_option("select[name=precision]", "fp8")
    page.wait_for_function("location.search.includes('precision=fp8')")
    status = page.eval_on_selector(".cfg-status", "e => [e.children.length, e.textContent]")
    assert status[0] == 0 and "FP8" in status[1] and "Llama 3.3 70B" in status[1].replace("\xa0", " ")
    assert status[1].count(".") + status[1].count("。") == 1 + status[1].count("3.3")  # one sentence
    assert page.locator(".cfg-status table, .cfg-status tr").count() == 0
    assert page.eval_on_selector_all(live, "es => es.map(e => e.className)") == ["cfg-status"]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_the_page_does_not_shift_when_the_script_runs(browser, server, lang, viewport):
    context = browser.new_context(viewport=viewport)
    context.add_init_script(SHIFTS)
    try:
        for path in ("configurator/", LLAMA_PAGE):
            page = context.new_page()
            page.goto(f"{server}{LANGUAGES[lang]}{path}")
            ready(page)
            page.wait_for_timeout(300)
            shift = page.evaluate("window.__shift")
            assert shift <= 0.01, (path, shift)
            page.close()
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_links_reach_every_precision_and_context(tab, server, lang):
    static = tab(java_script_enabled=False)
    static.goto(f"{server}{LANGUAGES[lang]}{LLAMA_PAGE}")
    assert static.is_visible(".cfg-choices")
    # the model list comes before the table
    assert static.eval_on_selector(".cfg-models", "m => m.getBoundingClientRect().bottom") < static.eval_on_selector(
        ".cfg-table", "t => t.getBoundingClientRect().top"
    )
    with static.expect_navigation():
        static.click(f".cfg-choices a:text-is('{FP8[lang]}')")
    assert static.url.endswith("/configurator/llama-3.3-70b/fp8/8192/")
    in_fp8 = rows(static)
    assert in_fp8["1x-rtx-pro-6000-blackwell"][1] == ONE_CARD[lang]  # 70.6 GB of FP8 weights on a 96 GB card
    dynamic = tab()
    dynamic.goto(
        f"{server}configurator/?model=llama-3.3-70b&precision=fp8&context=8192".replace(
            "configurator/", f"{LANGUAGES[lang]}configurator/"
        )
    )
    dynamic.wait_for_function("document.querySelector('select[name=precision]').value === 'fp8'")
    assert rows(dynamic) == in_fp8
    # from FP8, the context links stay in FP8: FP8 at 32K has a page of its own (issue 27: it had none)
    with static.expect_navigation():
        static.click(f".cfg-choices a:text-is('{CONTEXT_32K[lang]}')")
    assert static.url.endswith("/configurator/llama-3.3-70b/fp8/32768/")
    assert FP8[lang] in static.title() and CONTEXT_32K[lang] in static.title()
    dynamic.goto(f"{server}{LANGUAGES[lang]}configurator/?model=llama-3.3-70b&precision=fp8&context=32768")
    dynamic.wait_for_function("document.querySelector('select[name=context]').value === '32768'")
    assert rows(static) == rows(dynamic)
    assert static.locator(".cfg-status").text_content() == dynamic.locator(".cfg-status").text_content()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_model_list_comes_before_the_table(page, server, lang):
    page.set_viewport_size(PHONE)
    page.goto(f"{server}{LANGUAGES[lang]}configurator/")
    ready(page)
    models = page.eval_on_selector(".cfg-models", "m => m.getBoundingClientRect().bottom + scrollY")
    assert models < page.eval_on_selector(".cfg-table", "t => t.getBoundingClientRect().top + scrollY")
    assert models < 1200
