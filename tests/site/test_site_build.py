"""The real site, built into a temporary folder, in every language."""

import re
from pathlib import Path

import pytest
from sitebuild import LANGUAGES, outside_code, page, visible_text

GUIDE = "guides/nvlink-or-pcie"
NBSP, NNBSP = "\xa0", "\u202f"

# Figures the guide must show, as each language writes them (computed from data/, hand-checked in
# tests/unit/test_decode.py, tests/unit/test_collectives.py, tests/unit/test_training.py and
# tests/unit/test_macros.py): the speeds of Llama 3.3 70B BF16 on 4 × A100 PCIe and SXM4 (split across all 4
# of their cards, as the deployment runs it; tests/unit/test_deployment.py), typical then floor;
# the 16 KiB an all-reduce carries at one stream; Adam's 1,051.3 GiB for the 70B; a sharded step's 2.0 s over
# PCIe Gen5; the "7 times" of NVLink 4 over PCIe Gen5, worded per language.
EXPECTED = {
    "en": [
        "$4,157/month",
        "$4,395/month",
        "320 GB",
        "7×",
        "160",
        "~31 tok/s (at least 19)",
        "~35 tok/s (at least 21)",
        "41",
        "1,935 GB/s",
        "2,039 GB/s",
        "16 KiB",
        "1,051.3 GiB",
        "2.0 s",
        "$238",
    ],
    "fr": [
        f"4{NNBSP}157{NBSP}$US/mois",
        f"4{NNBSP}395{NBSP}$US/mois",
        "320 Go",
        "7 fois",
        "160",
        "~31 tok/s (au moins 19)",
        "~35 tok/s (au moins 21)",
        "41",
        f"1{NNBSP}935 Go/s",
        f"2{NNBSP}039 Go/s",
        "16 Kio",
        f"1{NNBSP}051,3 Gio",
        "2,0 s",
        f"238{NBSP}$US",
    ],
    "zh": [
        "US$4,157/月",
        "US$4,395/月",
        "320 GB",
        "7 倍",
        "160",
        "约 31 token/秒（下限 19）",
        "约 35 token/秒（下限 21）",
        "41",
        "1,935 GB/s",
        "2,039 GB/s",
        "16 KiB",
        "1,051.3 GiB",
        "2.0 秒",
        "US$238",
    ],
}


def spaced(text: str) -> str:
    """Text with its no-break spaces read as spaces, and its word joiners (between « token/ » and « 秒 ») as nothing."""
    return text.replace("\xa0", " ").replace("\u202f", " ").replace("\u2060", "")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_exists_with_the_right_html_lang(site: Path, lang: str):
    assert f'<html lang="{lang}"' in page(site, lang, GUIDE)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_shows_every_computed_figure_formatted_for_its_locale(site: Path, lang: str):
    text = spaced(visible_text(page(site, lang, GUIDE)))  # a figure is held to its unit by a no-break space
    missing = [figure for figure in EXPECTED[lang] if spaced(figure) not in text]
    assert not missing, f"{lang}: {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_guide_keeps_the_corrections_of_the_seed(site: Path, lang: str):
    text = visible_text(page(site, lang, GUIDE))
    assert "PCIe Gen4 ×16" in text  # the A100 PCIe is Gen4, not 5.0
    assert "14×" not in text  # the ratio is like for like
    for label in ("NV12", "NV4", "NV18"):  # topo labels per node family, from data
        assert label in text
    code = re.sub(r"<[^>]+>", "", page(site, lang, GUIDE))
    assert "all_reduce_perf -b 8 -e 4G -f 2 -g 8" in code  # -g takes the node's card count


def test_no_template_syntax_is_left_in_any_html(site: Path):
    leftovers = [
        str(path.relative_to(site))
        for path in site.rglob("*.html")
        if re.search(r"\{\{|\{%", outside_code(path.read_text(encoding="utf-8")))
    ]
    assert not leftovers


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_language_switcher_points_to_the_same_guide(site: Path, lang: str):
    html = page(site, lang, GUIDE)
    links = {hreflang: href for href, hreflang in re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', html)}
    here = site / LANGUAGES[lang] / GUIDE
    for other, prefix in LANGUAGES.items():
        target = (here / links[other]).resolve()
        assert target == (site / prefix / GUIDE).resolve(), (lang, other, links[other])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home_configurator_and_reference_exist(site: Path, lang: str):
    for path in ("", "configurator", "reference/macros"):
        html = page(site, lang, path) if path else (site / LANGUAGES[lang] / "index.html").read_text()
        assert f'<html lang="{lang}"' in html


def test_each_language_has_a_search_index_of_its_own_and_none_is_shared(site: Path):
    """A page asks for its language's index (overrides/main.html); the search plugin's shared one, the three in one
    file, is not published."""
    assert sorted(p.name for p in (site / "search").glob("search_index*.json")) == [
        f"search_index.{lang}.json" for lang in sorted(LANGUAGES)
    ]


def test_chinese_search_finds_chinese_words(site: Path):
    import json

    index = json.loads((site / "search" / "search_index.zh.json").read_text(encoding="utf-8"))
    assert "\\u200b" in index["config"]["separator"]
    hits = {doc["location"] for doc in index["docs"] if "张量" in doc["text"] and "链路" in doc["text"]}
    assert any(h.startswith("zh/guides/nvlink-or-pcie/") for h in hits)


def test_no_google_fonts(site: Path):
    for path in site.rglob("*.html"):
        assert "fonts.googleapis.com" not in path.read_text(encoding="utf-8"), path


def test_no_script_holds_the_parser_or_the_first_paint(site: Path):
    for path in site.rglob("*.html"):
        for tag in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", path.read_text(encoding="utf-8")):
            assert re.search(r"\s(defer|async)\b", tag), f"{path}: {tag} blocks the parser (add defer)"


def test_no_chinese_article_shows_a_space_between_two_chinese_characters_or_beside_full_width_punctuation(site: Path):
    """Within a paragraph or a list item, inline markup removed: a space there is one a reader sees."""
    chinese = "[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]"
    punctuation = "[\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]"
    stray: dict[str, list[str]] = {}
    for path in sorted((site / "zh").rglob("index.html")):
        article = re.search(r"<article[^>]*>(.*?)</article>", path.read_text(encoding="utf-8"), re.S).group(1)
        html = re.sub(r"<(pre|code)[^>]*>.*?</\1>", "x", article, flags=re.S)  # code reads as a word
        for block in re.findall(r"<(p|li)\b[^>]*>(.*?)</\1>", html, re.S):
            text = re.sub(r"<[^>]+>", "", block[1])
            found = re.findall(f"{chinese}[ \n]+{chinese}|{punctuation}[ \n]+\\S|\\S[ \n]+{punctuation}", text)
            if found:
                stray.setdefault(str(path.relative_to(site)), []).extend(found)
    assert not stray


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_home_pages_tools_are_the_configurator_and_the_plan(site: Path, lang: str):
    html = (site / LANGUAGES[lang] / "index.html").read_text(encoding="utf-8")
    tools = re.search(r'id="tools".*?</dl>', html, re.S).group(0)
    assert re.findall(r'<dt><a href="([^"]+)"', tools) == ["configurator/", "plan/"]


def chrome_texts(html: str) -> dict[str, list[str]]:
    """What a page says outside its article: its <title>, meta description, header and navigation labels."""

    def texts(pattern: str) -> list[str]:  # tags dropped, ordinary white space collapsed, no-break spaces kept
        return [
            re.sub(r"[ \t\r\n]+", " ", re.sub(r"<[^>]+>", " ", found)).strip()
            for found in re.findall(pattern, html, re.S)
        ]

    return {
        "title": texts(r"<title>(.*?)</title>"),
        "description": re.findall(r'<meta name="description" content="([^"]*)"', html),
        "header": texts(r'<div class="md-header__topic[^"]*"[^>]*>(.*?)</div>'),
        "navigation": texts(r'<a [^>]*class="md-nav__link[^"]*"[^>]*>(.*?)</a>'),
    }


def test_french_titles_navigation_and_metadata_hold_their_colons_as_the_text_does(site: Path):
    """« NVLink ou PCIe : lequel… » in the <title>, the header and the sidebar had a plain space before the colon,
    which may then wrap alone: the French rule (a narrow no-break space before : ; ? ! and inside « ») applies
    there as in the page's text, on every French page."""
    guide = chrome_texts(page(site, "fr", GUIDE))
    for where in ("title", "header", "navigation"):
        assert any(f"NVLink ou PCIe{NNBSP}: lequel" in text for text in guide[where]), (where, guide[where])
    plain = re.compile(r"\S(?: |\xa0|&nbsp;)[:;?!»]|«(?: |\xa0|&nbsp;)")
    unspaced = {
        str(path.relative_to(site)): bad[:3]
        for path in sorted((site / "fr").glob("**/index.html"))
        if (bad := [t for ts in chrome_texts(path.read_text(encoding="utf-8")).values() for t in ts if plain.search(t)])
    }
    assert not unspaced


def test_a_value_inside_code_keeps_the_notation_the_program_reads_in_every_language(site: Path):
    """The speed page once wrote « --gpu-memory-utilization 0,65 » in French: refused by vLLM if copied."""

    def text_of(html: str) -> str:  # a long flag may break at its hyphens (<wbr>): read it whole
        return visible_text(html.replace("<wbr>", "")).replace("\xa0", " ")

    flag_with_a_comma = re.compile(r"--[a-z][a-z-]+[ =]\d+,\d")
    found = {
        str(path.relative_to(site)): flags
        for path in sorted((site / "fr").glob("**/index.html"))
        if (flags := flag_with_a_comma.findall(text_of(path.read_text(encoding="utf-8"))))
    }
    assert not found
    speed = text_of(page(site, "fr", "reference/speed-model"))
    assert "--gpu-memory-utilization 0.65," in speed and "--gpu-memory-utilization 0.95," in speed
