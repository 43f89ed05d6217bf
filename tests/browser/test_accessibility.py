"""Accessibility in real Chromium with axe-core, in every language: no violation on the home page, every guide,
the configurator, the Plan page once it has written its plan, a plan for a common requirement, and every reference
page (the API's field lists are stacked tables); in the dark scheme too, on the pages it colours beyond Material's
own: the guides and the speed model's charts, the configurator's verdicts.

The rules that read colours (``COLOUR_RULES``, three fifths of axe's time on these pages) run on the English pages,
in both schemes: colours come from Material's style sheet and the site's, which no language changes (site.css
styles a language's punctuation and line breaks, never a colour). Every other rule reads words and structure (a
label, a language, a heading's order), and runs in every language, in light: the dark scheme changes colours and
nothing else. The one coloured thing only French and Chinese pages show, a translation's banner, has a test of its
own."""

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from conftest import serving
from site_pages import CONFIGURATOR_DRAWN, chart_pages
from sitebuild import LANGUAGES, ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PAGES = [
    "",
    "guides/",
    "guides/nvlink-or-pcie/",
    "guides/image-and-video/",
    "guides/quantization/",
    "guides/mixture-of-experts/",
    "guides/what-we-dont-offer/",
    "configurator/",
    "reference/api/",
    "reference/speed-model/",
    "reference/macros/",
    "reference/translating/",
    "plan/",
    "plan/llama-3.3-70b/chat-10/",  # a plan for a common requirement: its cards and its rows of links
    "configurator/llama-3.1-8b/bf16/32768/kv-fp8/",  # a KV-cache choice: its menu, links and note
    "configurator/flux.1-dev/",  # an image model: the KV-cache menu disabled, saying why
]

DARK_PAGES = list(
    dict.fromkeys(["", *(path for path in PAGES if path.startswith("guides/")), "configurator/", *chart_pages()])
)
# axe-core's rules tagged cat.color that run by default: text against its background, links against the text
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
EVERY_RULE: dict[str, object] = {}
WITHOUT_COLOURS = {"rules": {rule: {"enabled": False} for rule in COLOUR_RULES}}
COLOURS_ONLY = {"runOnly": {"type": "rule", "values": COLOUR_RULES}}
# (language, scheme): the pages and the options axe runs with
RUNS: dict[tuple[str, str], tuple[list[str], Mapping[str, object]]] = {
    ("en", "light"): (PAGES, EVERY_RULE),
    ("fr", "light"): (PAGES, WITHOUT_COLOURS),
    ("zh", "light"): (PAGES, WITHOUT_COLOURS),
    ("en", "dark"): (DARK_PAGES, COLOURS_ONLY),
}

# Pages that write part of themselves after loading: what shows they are done (the Plan page's script has
# written its plan)
PLAN_READY = "document.querySelector('.plan-result:not([aria-busy]) tbody tr') !== null"


def ready(path: str) -> str | None:
    if path == "plan/":
        return PLAN_READY
    return CONFIGURATOR_DRAWN if path.startswith("configurator/") else None


@pytest.fixture(scope="module")
def axe_source() -> str:
    assert AXE.exists(), "axe-core is missing: run `make test`, which installs it with npm ci"
    return AXE.read_text(encoding="utf-8")


def violations(page, options: Mapping[str, object]) -> list[str]:
    """What axe finds wrong in the page, one line per rule broken."""
    return page.evaluate(
        """async (options) => {
        const r = await axe.run(document, {resultTypes: ["violations"], ...options});
        return r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.length}× ${v.nodes[0].target.join(" ")}`);
    }""",
        options,
    )


@pytest.mark.parametrize(("lang", "scheme"), RUNS, ids=[f"{lang}-{scheme}" for lang, scheme in RUNS])
def test_no_accessibility_violation(tab, server, axe_source, lang, scheme):
    pages, options = RUNS[lang, scheme]
    page = tab(color_scheme=scheme, init_script=axe_source)  # axe in every page as it loads: 0.15 s less a page
    found = {}
    for path in pages:
        page.goto(f"{server}{LANGUAGES[lang]}{path}")
        if condition := ready(path):
            page.wait_for_function(condition)
        if result := violations(page, options):
            found[path or "/"] = result
    assert not found, "\n".join(f"{p}: {v}" for p, vs in found.items() for v in vs)


# The one colour only French and Chinese pages show: the banner of a page behind its English page (a warning) or
# not translated (a note), overrides/main.html. The real site has none while its translations are current; the
# altered site has both (conftest.altered_project).
BANNER_PAGES = {"fr/reference/api/": "warning", "zh/guides/mixture-of-experts/": "info"}


@pytest.fixture(scope="module")
def altered_server(altered_site: tuple[Path, Path]) -> Iterator[str]:
    with serving(altered_site[1]) as address:
        yield address


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_translation_banners_colours_pass_in_both_schemes(tab, altered_server, axe_source, scheme):
    page = tab(color_scheme=scheme, init_script=axe_source)
    found = {}
    for path, kind in BANNER_PAGES.items():
        page.goto(f"{altered_server}{path}")
        assert page.locator(f".translation-banner.{kind}").count() == 1, path
        if result := violations(page, COLOURS_ONLY):
            found[path] = result
    assert not found, found
