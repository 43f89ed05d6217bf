"""What the build adds to the pages written by hand: one configurator page per model, choice and language, one
page per plan for a common requirement and language, the JSON API (``api/catalog.json``, ``api/fit.json``,
``api/fit/<model>.json``, the plan's documents) and one search index per language."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from markupsafe import escape

from macros.base.languages import SOURCE_LANGUAGE
from macros.base.links import PageLinks
from macros.library.configurator import (
    CHOICES_FILE,
    DEFAULT_KV,
    FP8_KV_FOLDER,
    choice_path,
    choices,
    choices_document,
    default_choice,
    fp8_kv_choices,
    kv_matrix,
    search_rows,
    title_text,
)
from macros.library.context import MacroContext
from macros.library.plan_pages import CommonPlan, common_plans
from macros.library.plan_pages import title_text as plan_title_text
from macros.library.plan_tables import plan_figures_of
from macros.output.strings import text
from macros.site.search import (
    CONFIGURATOR_PAGE_BOOST,
    CONFIGURATOR_ROW_BOOST,
    IndexedText,
    in_words,
    marked_reference,
    with_readable_tables,
)
from macros.site.site_data import SiteData
from sizing.catalog.schema import KvCacheDtype
from sizing.views.api import NO_CONTEXT, api_schemas, catalog_document, fit_document
from sizing.views.plan_api import documents_of, plan_schemas


def configurator_page_uris(data: SiteData, lang: str, models: Collection[str] | None = None) -> list[str]:
    """Where the configurator pages of each model (of ``models`` only, when given) stand in docs/ (they have no
    file there), in the catalog's order: ``<model>.md`` at its default precision and context,
    ``<model>/<precision>/<context>.md`` (or ``<model>/<precision>.md`` for an image or video model) for every
    other choice, then ``<model>/<precision>/<context>/kv-fp8.md`` for each choice with the KV cache in FP8."""
    uris = []
    for model_id in (m for m in data.catalog.models if models is None or m in models):
        uris.append(f"{lang}/configurator/{model_id}.md")
        listed = [(DEFAULT_KV, choices(data.catalog, model_id)), ("fp8", fp8_kv_choices(data.catalog, model_id))]
        for kv_cache, pairs in listed:
            for precision, context in pairs:
                path = choice_path(data.catalog, model_id, precision, context, kv_cache)
                if path:
                    uris.append(f"{lang}/configurator/{model_id}/{path.rstrip('/')}.md")
    return uris


def plan_page_uris(data: SiteData, lang: str, models: Collection[str] | None = None) -> list[str]:
    """Where the page of each plan for a common requirement (of ``models`` only, when given) stands in docs/ (it
    has no file there): ``<lang>/plan/<model>/<shape>-<users>.md``."""
    plans = (plan for plan in common_plans(data.catalog) if models is None or plan.model in models)
    return [f"{lang}/{plan.path.rstrip('/')}.md" for plan in plans]


def generated_page_uris(data: SiteData, lang: str, models: Collection[str] | None = None) -> list[str]:
    """Every page the build adds to ``lang`` (of ``models`` only, when given): the configurator's, then the plans
    for common requirements."""
    return configurator_page_uris(data, lang, models) + plan_page_uris(data, lang, models)


def generated_page_source(data: SiteData, src_uri: str) -> str:
    """The Markdown source of the generated page at ``<lang>/configurator/<model>[/<precision>[/<context>
    [/kv-fp8]]].md`` or ``<lang>/plan/<model>/<shape>-<users>.md`` (only macros and strings), made once per state
    of the data."""
    lang, folder, model_id, *choice = src_uri.removesuffix(".md").split("/")
    if folder == "plan":
        shape, _, users = choice[0].rpartition("-")
        plan = CommonPlan(model_id, shape, int(users))
        return data.remembered(("plan page", lang, plan), lambda: _plan_page(data, lang, plan))
    precision, context = [*choice, None, None][:2]
    kv_cache: KvCacheDtype = "fp8" if choice[2:] == [FP8_KV_FOLDER] else DEFAULT_KV
    return data.remembered(
        ("configurator page", lang, model_id, *choice),
        lambda: _configurator_page(data, lang, model_id, precision, context, kv_cache),
    )


def _configurator_page(
    data: SiteData,
    lang: str,
    model_id: str,
    precision: str | None = None,
    context: str | None = None,
    kv_cache: KvCacheDtype = DEFAULT_KV,
) -> str:
    """Data never enters the page's template text: the heading comes in through a macro call, which writes the
    model's name as text (a name holding "{{ 7*7 }}" or "[a](b)" is shown as it is). Each choice's page has a
    title and heading of its own: "Configurator: Llama 3.3 70B in FP8, 32K tokens". The heading and the intro
    carry classes the page's script finds them by, to name the choice the reader picks."""
    model_call = f"{{{{ model_name({json.dumps(model_id)}) }}}}"
    arguments = ", ".join(
        [
            json.dumps(model_id),
            *([json.dumps(precision)] if precision else []),
            *([f"context={int(context)}"] if context else []),
            *([f"kv_cache={json.dumps(kv_cache)}"] if kv_cache != DEFAULT_KV else []),
        ]
    )
    intro = text("configurator", "page_intro", lang, model=model_call)
    ctx = MacroContext(data, lang, PageLinks.at(f"configurator/{model_id}/", lang), Path("docs"))
    shown_precision, shown_context = (
        (precision, context or NO_CONTEXT) if precision else default_choice(data.catalog, model_id)
    )
    # MkDocs and Material print the front matter's title into HTML as it is: escape the name there
    front_matter = compact_json(
        {
            "title": str(escape(title_text(ctx, model_id, shown_precision, shown_context, kv_cache))),
            "hide": ["toc"],
            "search": {"exclude": True},
        }
    )
    return (
        f"---\n{front_matter}\n---\n\n# {{{{ configurator_title({arguments}) }}}} {{#configurator .cfg-title}}\n\n"
        f'<p class="cfg-intro">{intro}</p>\n\n{{{{ configurator({arguments}) }}}}\n'
    )


def _plan_page(data: SiteData, lang: str, plan: CommonPlan) -> str:
    """A plan for a common requirement: its title and heading of its own ("Plan: Llama 3.3 70B for a chat assistant,
    10 users at once"), then its plan; data enters through macro calls only, as on a configurator page."""
    arguments = ", ".join([json.dumps(plan.model), json.dumps(plan.shape), str(plan.users)])
    ctx = MacroContext(data, lang, PageLinks.at(plan.path, lang), Path("docs"))
    front_matter = compact_json(
        {"title": str(escape(plan_title_text(ctx, plan))), "hide": ["toc"], "search": {"exclude": True}}
    )
    return (
        f"---\n{front_matter}\n---\n\n# {{{{ common_plan_title({arguments}) }}}} {{#plan}}\n\n"
        f"{{{{ common_plan({arguments}) }}}}\n"
    )


def compact_json(document: Any) -> str:
    """Deterministic JSON (JSON is YAML too): sorted keys, no spaces."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def api_files(data: SiteData) -> dict[str, str]:
    """``api/catalog.json``, ``api/fit.json`` (every model), ``api/fit-kv-fp8.json`` (the same with the KV cache
    in FP8) and ``api/fit/<model>.json`` (one model each), and the JSON Schema of each beside them, by path inside
    the site."""
    fit = fit_document(data.catalog, data.matrix)
    files = {"api/catalog.json": compact_json(catalog_document(data.catalog)), "api/fit.json": compact_json(fit)}
    fp8_kv_cache = fit_document(data.catalog, kv_matrix(data, "fp8"))  # the FP8 configurator pages' verdicts
    files["api/fit-kv-fp8.json"] = compact_json(fp8_kv_cache)
    for model_id, model in fit["models"].items():
        files[f"api/fit/{model_id}.json"] = compact_json(
            {**{k: v for k, v in fit.items() if k != "models"}, "model": model_id, **model}
        )
    files |= {path: compact_json(document) for path, document in documents_of(plan_figures_of(data)).items()}
    schemas = api_schemas() | plan_schemas()
    files |= {path: json.dumps(schema, ensure_ascii=False, indent=1) for path, schema in schemas.items()}
    return files


def configurator_search_entries(data: SiteData, lang: str) -> list[dict[str, object]]:
    """The configurator in a language's search index: each model's page (its summary), then each of its node
    rows as an entry of its own, readable in a result ("fits on one card — ~36 tok/s (at least 20) —
    $30,600/month") and linked to its row."""
    entries = []
    prefix = "" if lang == SOURCE_LANGUAGE else f"{lang}/"
    for model_id, model in data.catalog.models.items():
        page = f"{prefix}configurator/{model_id}/"
        ctx = MacroContext(data, lang, PageLinks.at(f"configurator/{model_id}/", lang), Path("docs"))
        summary, rows = search_rows(ctx, model_id)
        # the search shows titles and texts as HTML: a name holding "<" is escaped
        entries.append(
            {
                "location": page,
                "text": f"<p>{escape(summary)}</p>",
                "title": str(escape(text("configurator", "page_title", lang, model=model.name))),
                "boost": CONFIGURATOR_PAGE_BOOST,
            }
        )
        entries += [
            {
                "location": f"{page}#cfg-{row.configuration}",
                "title": str(escape(row.title)),
                "text": str(escape(row.text)),
                "boost": CONFIGURATOR_ROW_BOOST,
            }
            for row in rows
        ]
    return entries


def search_indexes(
    index_json: str, languages: list[str], data: SiteData, site: Path, indexed_text: IndexedText
) -> dict[str, str]:
    """One search index per language, from the site's shared one (``site`` holds the built pages): readers of
    /fr/ find French pages, tables read as sentences, Chinese cut into words, the configurator's rows as entries
    of their own, ranked after the guides, and the reference pages marked, found after the pages for customers."""
    index = json.loads(index_json)
    prefixes = {lang: f"{lang}/" for lang in languages if lang != SOURCE_LANGUAGE}

    def language_of(location: str) -> str:
        return next((lang for lang, prefix in prefixes.items() if location.startswith(prefix)), SOURCE_LANGUAGE)

    return {
        lang: json.dumps(
            {
                **index,
                "docs": [
                    in_words(marked_reference(doc, prefixes.get(lang, "")), lang)
                    for doc in with_readable_tables(
                        [d for d in index["docs"] if language_of(d["location"]) == lang], site, lang, indexed_text
                    )
                    + configurator_search_entries(data, lang)
                ],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for lang in languages
    }


def not_found_words(site_url: str, languages: list[str]) -> dict[str, dict[str, str]]:
    """What each language's 404 page says, and its home page's path from the host (``/repo/fr/`` for a site at
    ``https://owner.github.io/repo/``; ``/fr/`` without a site URL): a 404 page is served at any depth, so its
    links start from the host, under the site's own path. The root 404.html, which a host such as GitHub Pages
    serves for any miss, holds every language's words."""
    root = urlsplit(site_url or "/").path.rstrip("/") + "/"
    return {
        lang: {
            **{key: text("not_found", key, lang) for key in ("title", "text", "home", "configurator")},
            "home_url": root + ("" if lang == SOURCE_LANGUAGE else f"{lang}/"),
        }
        for lang in languages
    }


def write_site_files(site: Path, data: SiteData, languages: list[str], indexed_text: IndexedText) -> None:
    """Into a built ``site``: the API files, where every configurator choice's page stands (the configurator's
    script reads it), and one search index per language in place of the site's shared one (``indexed_text``: how
    the search plugin writes HTML as text): a page asks for its own language's (overrides/main.html), so the shared
    one, as large as the three together, would be published for nobody."""
    site_files = {**data.remembered("api files", lambda: api_files(data)), CHOICES_FILE: choices_document(data.catalog)}
    for relative, content in site_files.items():
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    index = site / "search" / "search_index.json"
    if index.exists():
        for lang, content in search_indexes(
            index.read_text(encoding="utf-8"), languages, data, site, indexed_text
        ).items():
            (index.parent / f"search_index.{lang}.json").write_text(content, encoding="utf-8")
        index.unlink()
