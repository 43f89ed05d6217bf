"""The configurator in the built site: a page for every model, precision, context and KV cache in every
language, the form written into the page (so nothing moves when the script shows it), and the rows in the site
search."""

import json
import re
from pathlib import Path

import pytest
from sitebuild import LANGUAGES, page

from macros.library.configurator import choice_path, choices, fp8_kv_choices


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_precision_at_every_context_of_every_model_has_a_page_with_its_own_title(site: Path, catalog, lang: str):
    """Issue 27: 100 of 185 choices had no page, and the 8 pages of a model shared one title and heading."""
    titles, headings = set(), set()
    for model in catalog.models:
        for precision, context in choices(catalog, model):
            html = page(site, lang, f"configurator/{model}/{choice_path(catalog, model, precision, context)}")
            assert f'data-model="{model}" data-precision="{precision}" data-context="{context}"' in html
            heading = re.search(r'<h1 class="cfg-title" id="configurator">([^<]*)<', html)
            assert heading and '<p class="cfg-intro">' in html
            titles.add(re.search(r"<title>([^<]*)</title>", html).group(1))
            headings.add(heading.group(1))
    assert len(titles) == len(headings) == sum(len(choices(catalog, m)) for m in catalog.models) == 255


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_form_is_in_the_page_hidden_until_an_inline_script_shows_it_before_the_first_paint(site: Path, lang: str):
    html = page(site, lang, "configurator")
    form = re.search(r'<form class="cfg-controls" hidden>(.*?)</form>\s*<script>([^<]*)</script>', html, re.S)
    assert form, "the form, then the script that shows it"
    assert form.group(1).count(" disabled>") == 4  # enabled by configurator.js once it can answer
    assert form.group(2) == "document.currentScript.previousElementSibling.hidden = false;"
    assert html.count("aria-live") == 1


def noscript_links(html: str) -> list[str]:
    """The addresses the links for readers without JavaScript lead to."""
    nav = re.search(r'<noscript><nav class="cfg-choices".*?</nav></noscript>', html, re.S).group(0)
    return re.findall(r'<a href="([^"]+)"', nav)


def reached(html: str, lang: str, at: str, target: str) -> bool:
    """Whether a link of the page at ``at`` leads to ``target`` (both paths below the language's root)."""
    up = "../" * (LANGUAGES[lang] + at).count("/")
    return up + LANGUAGES[lang] + target in noscript_links(html)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_fp8_kv_cache_choice_has_its_own_page_linked_from_and_to_its_bf16_version(site: Path, catalog, lang: str):
    """Issue 24, item 2: the KV cache in FP8 is a choice of its own, reachable without JavaScript."""
    titles = set()
    for model in catalog.models:
        for precision, context in fp8_kv_choices(catalog, model):
            fp8 = f"configurator/{model}/{choice_path(catalog, model, precision, context, 'fp8')}"
            bf16 = f"configurator/{model}/{choice_path(catalog, model, precision, context)}"
            html, other = page(site, lang, fp8), page(site, lang, bf16)
            assert f'data-precision="{precision}" data-context="{context}" data-kv="fp8"' in html
            assert '<p class="cfg-note cfg-kv-note">' in html
            assert reached(html, lang, fp8, bf16) and reached(other, lang, bf16, fp8), (lang, fp8)
            titles.add(re.search(r"<title>([^<]*)</title>", html).group(1))
    assert len(titles) == 143


def search_docs(site: Path, lang: str) -> dict[str, dict[str, str]]:
    return {d["location"]: d for d in json.loads((site / "search" / f"search_index.{lang}.json").read_text())["docs"]}


def test_the_configurator_rows_are_search_entries_of_their_own(site: Path):
    docs = search_docs(site, "en")
    row = docs["configurator/llama-3.3-70b/#cfg-8x-b200"]
    assert row["title"] == "Llama 3.3 70B in BF16 on 8\xa0×\xa0B200"
    assert row["text"].startswith("fits on one card — ~") and row["text"].endswith(" — $30,600/month")
    assert docs["configurator/llama-3.3-70b/"]["title"] == "Configurator: Llama 3.3 70B"
    # the configurator page itself is its words, not a wall of cells; the other choices' pages are not indexed
    assert (
        "NodeVerdictWhy" not in docs["configurator/"]["text"]
        and "split across 4 cards" not in docs["configurator/"]["text"]
    )
    assert not any("/fp8/" in location or "/bf16/" in location or "/kv-fp8/" in location for location in docs)
    french = search_docs(site, "fr")["fr/configurator/llama-3.3-70b/#cfg-1x-l4"]
    assert french == {
        "location": "fr/configurator/llama-3.3-70b/#cfg-1x-l4",
        "title": "Llama 3.3 70B en BF16 sur 1\xa0×\xa0L4",
        "text": "ne tient pas sur ce nœud — 390\xa0$US/mois",
        "boost": 0.001,  # ranked after the guides (macros/site/search.py)
    }
