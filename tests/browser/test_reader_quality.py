"""Reader-facing language correctness: search per language, hreflang alternates with x-default in every
page and in the sitemap, a 404 page per language."""

import re
from pathlib import Path

import pytest
from sitebuild import BASE_PATH, LANGUAGES, SITE_URL


@pytest.mark.browser
@pytest.mark.parametrize(
    "lang, query, expected",
    [
        ("zh", "张量并行", "/zh/guides/nvlink-or-pcie/"),
        ("zh", "显存", "/zh/guides/"),
        ("fr", "réparti", "/fr/guides/nvlink-or-pcie/"),
        ("fr", "parallélisme", "/fr/guides/nvlink-or-pcie/"),
        ("en", "tensor", "/guides/nvlink-or-pcie/"),
    ],
)
def test_search_finds_pages_of_the_readers_language_only(search_box, lang, query, expected):
    found = search_box.results(lang, query)
    assert any(path.startswith(expected) for path in found), found
    others = [p for p in found if (p.startswith(("/fr/", "/zh/")) if lang == "en" else not p.startswith(f"/{lang}/"))]
    assert not others, others


def test_each_language_has_its_own_search_index(site: Path):
    import json

    for lang, prefix in LANGUAGES.items():
        docs = json.loads((site / "search" / f"search_index.{lang}.json").read_text())["docs"]
        assert docs and all(d["location"].startswith(prefix) for d in docs)
        if lang == "en":
            assert not any(d["location"].startswith(("fr/", "zh/")) for d in docs)
        # the configurator: its page, one entry per model and one per node row of a model's page; never the pages
        # of another precision or context, which would repeat the rows
        assert not any(re.search(r"configurator/[^/#]+/[^#]", d["location"]) for d in docs)
        rows = [d for d in docs if "configurator/" in d["location"] and "#cfg-" in d["location"]]
        assert rows and all("\xa0×\xa0" in d["title"] and d["text"] for d in rows)  # "… on 8 × B200": its verdict, …


def test_every_page_has_absolute_hreflang_alternates_and_x_default(site: Path):
    for path in site.rglob("index.html"):
        html = path.read_text(encoding="utf-8")
        alternates = {
            lang: href for href, lang in re.findall(r'<link rel="alternate" href="([^"]+)" hreflang="([^"]+)"', html)
        }
        assert set(alternates) == {"en", "fr", "zh", "x-default"}, path
        assert all(href.startswith(SITE_URL) and "//" not in href[8:] for href in alternates.values()), alternates
        assert alternates["x-default"] == alternates["en"]


def test_the_sitemap_lists_every_page_with_its_alternates_and_x_default(site: Path):
    sitemap = (site / "sitemap.xml").read_text()
    entries = re.findall(r"<url>(.*?)</url>", sitemap, re.S)
    pages = list(site.rglob("index.html"))
    assert len(entries) == len(pages)
    for entry in entries:
        assert entry.count("hreflang=") == 4 and 'hreflang="x-default"' in entry, entry


@pytest.mark.parametrize("lang, title", [("en", "Page not found"), ("fr", "Page introuvable"), ("zh", "页面不存在")])
def test_a_404_page_per_language(site: Path, lang: str, title: str):
    html = (site / LANGUAGES[lang] / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html and f"<h1>{title}</h1>" in html
    home = BASE_PATH + LANGUAGES[lang]  # a 404 page is served at any depth: its links start from the host
    assert f'href="{home}"' in html and f'href="{home}configurator/"' in html


@pytest.mark.parametrize(
    "lang, page_path, words",
    [
        ("en", "guides/nvlink-or-pcie", ["Bandwidth per card, one direction", "NVLink 4", "450\xa0GB/s"]),
        ("zh", "guides/quantization", ["单卡所需显存（GiB）", "GGUF Q4_K_M"]),
        ("fr", "guides/mixture-of-experts", ["Prix par mois ($US)", "Vitesse typique, un flux (tokens/s)"]),
    ],
)
def test_charts_are_inline_svg_with_text_as_text_and_a_text_alternative(site: Path, lang, page_path, words):
    html = (site / LANGUAGES[lang] / page_path / "index.html").read_text(encoding="utf-8")
    svg = re.search(r"<svg role=\"img\" class=\"chart\".*?</svg>", html, re.S)
    assert svg, "no chart"
    chart = svg.group(0)
    title, desc = re.search(r"<title>(.*?)</title><desc>(.*?)</desc>", chart, re.S).groups()
    assert title and len(desc) > len(title)
    for word in words:
        assert word in chart, word  # labels are <text>, in the page's language
    assert "<text" in chart and "font-family" in chart


@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGUAGES)
def test_pages_make_no_third_party_request_and_log_no_error(context_factory, server, lang):
    from urllib.parse import urlsplit

    page = context_factory().new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    for path in ("", "guides/nvlink-or-pcie/", "guides/image-and-video/", "configurator/"):
        page.goto(f"{server}{LANGUAGES[lang]}{path}")
        page.wait_for_load_state("networkidle")
    origin = urlsplit(server).netloc
    foreign = [url for url in requests if urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != origin]
    assert not foreign, foreign
    assert not errors, errors
