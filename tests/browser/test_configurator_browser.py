"""The configurator in real headless Chromium, in every language, with and without JavaScript."""
import pytest

from sitebuild import LANGUAGES, ROOT

pytestmark = pytest.mark.browser

MONTH_PRICE = {"en": "$4,157/month", "fr": "4\u202f157\xa0$US/mois", "zh": "US$4,157/月"}
SPLIT_FOUR = {"en": "split across 4 cards", "fr": "réparti sur 4 cartes", "zh": "需切分到 4 张卡"}
ONE_CARD = {"en": "fits on one card", "fr": "tient sur une seule carte", "zh": "单卡即可装下"}
NO_FIT = {"en": "does not fit on this node", "fr": "ne tient pas sur ce nœud", "zh": "此节点装不下"}


def rows(page) -> dict[str, list[str]]:
    """Each table row's cells, by node id."""
    return page.eval_on_selector_all(
        ".cfg-table tbody tr",
        "trs => Object.fromEntries(trs.map(tr => [tr.dataset.configuration, [...tr.children].map(c => c.textContent)]))")


def ordered_nodes(page) -> list[str]:
    return page.eval_on_selector_all(".cfg-table tbody tr", "trs => trs.map(tr => tr.dataset.configuration)")


@pytest.fixture
def page(browser):
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
    for node in ("1x-a100-pcie-80gb", "1x-h100-pcie-80gb"):       # no single 80 GB card holds 141 GB
        assert table[node][1] == NO_FIT[lang]
    for node in ("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"):
        assert table[node][1] == SPLIT_FOUR[lang]
    assert table["4x-a100-pcie-80gb"][5] == MONTH_PRICE[lang]   # after the speed and the load at full load

    page.select_option("select[name=precision]", "int4-awq-gptq")  # 39.8 GB: one 80 GB card holds it
    page.wait_for_function("location.search.includes('precision=int4-awq-gptq')")
    assert rows(page)["1x-a100-pcie-80gb"][1] == ONE_CARD[lang]

    other = next(code for code in LANGUAGES if code != lang)
    page.hover(".md-header .md-select")          # the language menu opens on hover
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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_each_model_page_shows_the_same_table(browser, server, lang):
    from sizing.catalog import load_catalog
    static = browser.new_context(java_script_enabled=False).new_page()
    dynamic = browser.new_context().new_page()
    for model in load_catalog().models:
        url = f"{server}{LANGUAGES[lang]}configurator/{model}/"
        static.goto(url)
        assert static.is_hidden("form.cfg-controls")
        dynamic.goto(url + "?model=" + model)
        dynamic.wait_for_function(f"location.search.includes('model={model}&')")
        assert ordered_nodes(static) == ordered_nodes(dynamic), model
        assert rows(static) == rows(dynamic), model
        summary = ".cfg-summary"
        assert static.locator(summary).all_text_contents() == dynamic.locator(summary).all_text_contents()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_screenshot_of_the_guide_for_review(page, server, lang):
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}{LANGUAGES[lang]}guides/nvlink-or-pcie/")
    page.screenshot(path=str(out / f"guide-{lang}.png"), full_page=True)
    assert page.errors == []


@pytest.mark.parametrize("asked", ["__proto__", "constructor", "toString", "fp4"])
def test_a_precision_the_model_does_not_offer_falls_back_to_the_default_with_one_notice(page, server, asked):
    page.goto(f"{server}configurator/?model=llama-3.3-70b&precision={asked}")
    page.wait_for_selector(".cfg-notice")
    assert page.input_value("select[name=precision]") == "bf16"   # Llama 3.3 70B's default precision
    assert page.locator(".cfg-notice").count() == 1 and page.locator(".cfg-error").count() == 0
    assert page.locator(".cfg-table tbody tr").count() == 41
    assert page.errors == []
