"""Generated content the build's own process makes without the pipeline: the source of the per-model
configurator pages and the search index of each language (the API files are ``api_files``)."""
from __future__ import annotations

import json
from typing import Any

from markupsafe import escape

from .site_facts import SiteFacts
from .strings import text

_configurator_pages: dict[tuple[str, str, str], str] = {}


def configurator_page(facts: SiteFacts, lang: str, model_id: str) -> str:
    """The Markdown source of one model's configurator page (only macros and strings)."""
    key = (facts.fingerprint, lang, model_id)
    if key not in _configurator_pages:
        _configurator_pages[key] = _configurator_page(facts, lang, model_id)
    return _configurator_pages[key]


def generated_page_source(facts: SiteFacts, src_uri: str) -> str:
    """The source of the generated page standing at ``<lang>/configurator/<model>.md`` in docs/."""
    lang, _, name = src_uri.split("/")
    return configurator_page(facts, lang, name.removesuffix(".md"))


def _configurator_page(facts: SiteFacts, lang: str, model_id: str) -> str:
    name = facts.models[model_id]
    title = text("configurator", "page_title", lang, model=name)
    intro = text("configurator", "page_intro", lang, model=escape(name))
    # MkDocs and Material print the title into HTML as it is: escape text that comes from data/
    # JSON is YAML; PyYAML's emitter took most of the time of making these pages
    front_matter = compact_json({"title": str(escape(title)), "hide": ["toc"], "search": {"exclude": True}})
    return (f"---\n{front_matter}\n---\n\n# {escape(title)} {{#configurator}}\n\n{intro}\n\n"
            f"{{{{ configurator({json.dumps(model_id)}) }}}}\n")


def compact_json(document: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def search_indexes(index_json: str, languages: list[str], default: str = "en") -> dict[str, str]:
    """One search index per language, from the site's shared one: readers of /fr/ find French pages."""
    index = json.loads(index_json)
    prefixes = {lang: f"{lang}/" for lang in languages if lang != default}

    def language_of(location: str) -> str:
        return next((lang for lang, prefix in prefixes.items() if location.startswith(prefix)), default)

    return {lang: json.dumps({**index, "docs": [d for d in index["docs"] if language_of(d["location"]) == lang]},
                             ensure_ascii=False, separators=(",", ":"))
            for lang in languages}
