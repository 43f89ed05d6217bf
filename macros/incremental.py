"""Making what the build cache lacks (``build_cache``): a page rendered, the API files, the facts of the data.
The helper process does it ahead of the build (``prerender`` and the others, from ``helper.serve``); the
build's own process only when the helper could not (``fetch``)."""
from __future__ import annotations

from pathlib import Path

from .api_files import api_files
from .build_cache import (
    DocsState, cached_api_files, cached_facts, cached_page, docs_state, keep_api_files, keep_facts, keep_page,
)
from .context import BuildData, build_data
from .links import PageLinks
from .fetch import cache_key, source_of
from .page_source import PageSource
from .pages import generated_page_source
from .pipeline import process_page
from .site_facts import SiteFacts, facts_of


def processed_page(page: PageSource, docs_dir: Path, data: BuildData, links: PageLinks, docs: DocsState) -> str:
    """``process_page``'s result, taken from the build cache when every input is unchanged."""
    key = cache_key(page, docs_dir, data.fingerprint, links, docs)
    stored = cached_page(key)
    if stored is not None:
        return stored
    rendered = process_page(page, docs_dir, data, links)
    keep_page(key, rendered)
    return rendered


def prerender(job: dict[str, object]) -> bool:
    """Render a page job (``fetch.page_job``) into the build cache, where the build finds it; whether it did.
    A page that fails is not kept: the build renders it itself and reports the error with its file and line."""
    docs_dir, src_uri = Path(str(job["docs_dir"])), str(job["src_uri"])
    try:
        data = build_data()
        generated = generated_page_source(stored_facts(data), src_uri) if job["generated"] else None
        page = source_of(docs_dir, src_uri, str(job["lang"]), generated)
        processed_page(page, docs_dir, data, PageLinks(str(job["root"]), str(job["lang_root"])), docs_state(docs_dir))
    except Exception:  # noqa: BLE001 - see the docstring: the build's own rendering reports it
        return False
    return True


def stored_api_files(data: BuildData) -> dict[str, str]:
    """``api_files``, taken from the build cache when the data and the code are unchanged."""
    files = cached_api_files(data.fingerprint)
    if files is None:
        files = api_files(data)
        keep_api_files(data.fingerprint, files)
    return files


def stored_facts(data: BuildData) -> SiteFacts:
    """``facts_of(data)``, kept in the build cache for builds that do not load the catalog."""
    facts = cached_facts(data.fingerprint)
    if facts is None:
        facts = facts_of(data)
        keep_facts(facts)
    return facts
