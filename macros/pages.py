"""Generated content: the per-model configurator pages and the JSON API files."""
from __future__ import annotations

import json
from typing import Any

from markupsafe import escape

from sizing.api import catalog_document, fit_document

from .context import BuildData
from .strings import text


_configurator_pages: dict[tuple[str, str, str], str] = {}


def configurator_page(data: BuildData, lang: str, model_id: str) -> str:
    """The Markdown source of one model's configurator page (only macros and strings)."""
    key = (data.fingerprint, lang, model_id)
    if key not in _configurator_pages:
        _configurator_pages[key] = _configurator_page(data, lang, model_id)
    return _configurator_pages[key]


def generated_page_source(data: BuildData, src_uri: str) -> str:
    """The source of the generated page standing at ``<lang>/configurator/<model>.md`` in docs/."""
    lang, _, name = src_uri.split("/")
    return configurator_page(data, lang, name.removesuffix(".md"))


def _configurator_page(data: BuildData, lang: str, model_id: str) -> str:
    name = data.catalog.models[model_id].name
    title = text("configurator", "page_title", lang, model=name)
    intro = text("configurator", "page_intro", lang, model=escape(name))
    # MkDocs and Material print the title into HTML as it is: escape text that comes from data/
    # JSON is YAML; PyYAML's emitter took most of the time of making these pages
    front_matter = _json({"title": str(escape(title)), "hide": ["toc"], "search": {"exclude": True}})
    return (f"---\n{front_matter}\n---\n\n# {escape(title)} {{#configurator}}\n\n{intro}\n\n"
            f"{{{{ configurator({json.dumps(model_id)}) }}}}\n")


def _json(document: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def api_files(data: BuildData) -> dict[str, str]:
    """``api/catalog.json``, ``api/fit.json`` (every model) and ``api/fit/<model>.json`` (one model each,
    what the configurator page loads)."""
    fit = fit_document(data.catalog, data.matrix)
    files = {"api/catalog.json": _json(catalog_document(data.catalog)), "api/fit.json": _json(fit)}
    for model_id, model in fit["models"].items():
        files[f"api/fit/{model_id}.json"] = _json({**{k: v for k, v in fit.items() if k != "models"},
                                                   "model": model_id, **model})
    return files


def search_indexes(index_json: str, languages: list[str], default: str = "en") -> dict[str, str]:
    """One search index per language, from the site's shared one: readers of /fr/ find French pages."""
    index = json.loads(index_json)
    prefixes = {lang: f"{lang}/" for lang in languages if lang != default}

    def language_of(location: str) -> str:
        return next((lang for lang, prefix in prefixes.items() if location.startswith(prefix)), default)

    return {lang: json.dumps({**index, "docs": [d for d in index["docs"] if language_of(d["location"]) == lang]},
                             ensure_ascii=False, separators=(",", ":"))
            for lang in languages}
