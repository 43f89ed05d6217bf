"""What the build adds to the pages written by hand: one configurator page per model and language, the JSON
API (``api/catalog.json``, ``api/fit.json``, ``api/fit/<model>.json``) and one search index per language."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markupsafe import escape

from sizing.api import catalog_document, fit_document

from .languages import SOURCE_LANGUAGE
from .output.strings import text
from .site_data import SiteData


def configurator_page_uris(data: SiteData, lang: str) -> list[str]:
    """Where the configurator page of each model stands in docs/ (it has no file there), in the catalog's
    order."""
    return [f"{lang}/configurator/{model_id}.md" for model_id in data.catalog.models]


def generated_page_source(data: SiteData, src_uri: str) -> str:
    """The Markdown source of the generated page at ``<lang>/configurator/<model>.md`` (only macros and
    strings), made once per state of the data."""
    lang, _, name = src_uri.split("/")
    model_id = name.removesuffix(".md")
    return data.remembered(("configurator page", lang, model_id), lambda: _configurator_page(data, lang, model_id))


def _configurator_page(data: SiteData, lang: str, model_id: str) -> str:
    """Data never enters the page's template text: the model's name comes in through a macro call, which
    writes it as text (a name holding "{{ 7*7 }}" or "[a](b)" is shown as it is)."""
    name_call = f"{{{{ model_name({json.dumps(model_id)}) }}}}"
    title = text("configurator", "page_title", lang, model=name_call)
    intro = text("configurator", "page_intro", lang, model=name_call)
    # MkDocs and Material print the front matter's title into HTML as it is: escape the name there
    front_matter = compact_json({"title": str(escape(text("configurator", "page_title", lang,
                                                         model=data.catalog.models[model_id].name))),
                                 "hide": ["toc"], "search": {"exclude": True}})
    return (f"---\n{front_matter}\n---\n\n# {title} {{#configurator}}\n\n{intro}\n\n"
            f"{{{{ configurator({json.dumps(model_id)}) }}}}\n")


def compact_json(document: Any) -> str:
    """Deterministic JSON (JSON is YAML too): sorted keys, no spaces."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def api_files(data: SiteData) -> dict[str, str]:
    """``api/catalog.json``, ``api/fit.json`` (every model) and ``api/fit/<model>.json`` (one model each,
    what the configurator page loads), by path inside the site."""
    fit = fit_document(data.catalog, data.matrix)
    files = {"api/catalog.json": compact_json(catalog_document(data.catalog)), "api/fit.json": compact_json(fit)}
    for model_id, model in fit["models"].items():
        files[f"api/fit/{model_id}.json"] = compact_json({**{k: v for k, v in fit.items() if k != "models"},
                                                         "model": model_id, **model})
    return files


def search_indexes(index_json: str, languages: list[str]) -> dict[str, str]:
    """One search index per language, from the site's shared one: readers of /fr/ find French pages."""
    index = json.loads(index_json)
    prefixes = {lang: f"{lang}/" for lang in languages if lang != SOURCE_LANGUAGE}

    def language_of(location: str) -> str:
        return next((lang for lang, prefix in prefixes.items() if location.startswith(prefix)), SOURCE_LANGUAGE)

    return {lang: json.dumps({**index, "docs": [d for d in index["docs"] if language_of(d["location"]) == lang]},
                             ensure_ascii=False, separators=(",", ":"))
            for lang in languages}


def not_found_words(site_url: str, languages: list[str]) -> dict[str, dict[str, str]]:
    """What each language's 404 page says, and its home page's address: the root 404.html, which a host such as
    GitHub Pages serves for any miss, holds them all."""
    root = site_url.rstrip("/")
    return {lang: {**{key: text("not_found", key, lang) for key in ("title", "text", "home", "configurator")},
                   "home_url": root + ("/" if lang == SOURCE_LANGUAGE else f"/{lang}/")}
            for lang in languages}


def write_site_files(site: Path, data: SiteData, languages: list[str]) -> None:
    """Into a built ``site``: the API files, and one search index per language from the site's shared one."""
    for relative, content in api_files(data).items():
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    index = site / "search" / "search_index.json"
    if index.exists():
        for lang, content in search_indexes(index.read_text(encoding="utf-8"), languages).items():
            (index.parent / f"search_index.{lang}.json").write_text(content, encoding="utf-8")
