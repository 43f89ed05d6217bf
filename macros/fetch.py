"""How the build's own process gets what the pipeline makes: from the build cache (``build_cache``), else from
the helper process, which it then waits for (``helper``), else by making it itself. Only then does it import
the pipeline (``incremental``): in a build without a helper, or for something the helper could not make,
whose error the build's own attempt then reports (a page's file and line, the data's record and field)."""
from __future__ import annotations

import json
from pathlib import Path

from sizing.fingerprint import data_fingerprint

from .build_cache import (
    DocsState, cached_api_files, cached_facts, cached_page, docs_state, has_api_files, has_page, page_key,
)
from .helper import API_STAGE, Helper, Request, current
from .links import PageLinks
from .page_source import PageSource, english_source, markdown_of
from .site_facts import SiteFacts


def page_job(src_uri: str, lang: str, generated: bool, links: PageLinks, docs_dir: Path, stage: int,
             version: str) -> Request:
    """A page for the helper to render into the build cache (``incremental.prerender``): the page (inside
    docs/), the language of its text, its place in the site, the stage of the language being built, and
    ``version``, the state of data/ and docs/ it is rendered from (``build_version``): in `mkdocs serve`, a
    page after an edit is a new request."""
    return {"kind": "page", "key": json.dumps(["page", src_uri, lang, links.root, links.lang_root, version]),
            "stage": stage, "src_uri": src_uri, "lang": lang, "generated": generated, "root": links.root,
            "lang_root": links.lang_root, "docs_dir": str(docs_dir)}


def build_version(fingerprint: str, docs: DocsState) -> str:
    """The state of data/ (``fingerprint``) and docs/ that pages are rendered from."""
    return f"{fingerprint} {docs.pages.hex()}"


def facts_request(fingerprint: str) -> Request:
    return {"kind": "facts", "key": f"facts {fingerprint}", "stage": 0}


def api_request(fingerprint: str) -> Request | None:
    """A request for the API files of the data ``fingerprint``; None when the build cache has them."""
    return None if has_api_files(fingerprint) else {"kind": "api", "key": f"api {fingerprint}", "stage": API_STAGE}


def _helped(request: Request) -> bool:
    """Whether the helper made what ``request`` asks for (into the build cache), waiting for it if need be."""
    reply = worker.ask(request) if (worker := current()) is not None else None
    return bool(reply and reply["done"])


def site_facts() -> SiteFacts:
    """The facts of data/ (``site_facts``); CatalogError when the data is invalid."""
    fingerprint = data_fingerprint()
    facts = cached_facts(fingerprint)
    if facts is None and _helped(facts_request(fingerprint)):
        facts = cached_facts(fingerprint)
    if facts is None:
        from .context import build_data
        from .incremental import stored_facts
        facts = stored_facts(build_data())
    return facts


def source_of(docs_dir: Path, src_uri: str, lang: str, generated: str | None = None) -> PageSource:
    """The page ``src_uri`` of docs/ as MkDocs hands it over, its text in ``lang``; ``generated``: the text
    of a generated page, which has no file."""
    text = generated if generated is not None else (docs_dir / src_uri).read_text(encoding="utf-8")
    return PageSource(f"docs/{src_uri}", lang, text, markdown_of(text), generated is not None)


def cache_key(page: PageSource, docs_dir: Path, fingerprint: str, links: PageLinks, docs: DocsState) -> str:
    """What the page rendered from these inputs is kept under in the build cache (``build_cache.page_key``)."""
    english = None if page.generated else english_source(page.path, page.lang, docs_dir)
    return page_key(page, english[0] if english else None, fingerprint, links, docs)


def in_cache(page: PageSource, docs_dir: Path, fingerprint: str, links: PageLinks, docs: DocsState) -> bool:
    """Whether the build cache holds the page rendered from these inputs."""
    return has_page(cache_key(page, docs_dir, fingerprint, links, docs))


def hand_over(worker: Helper, pages: list[tuple[str, str, str | None, PageLinks]], docs_dir: Path,
              fingerprint: str, stage: int) -> None:
    """Send the helper each of ``pages`` (src_uri, language of the text, the text of a generated page, links)
    that the build cache lacks, to render at ``stage``."""
    docs = docs_state(docs_dir)
    version = build_version(fingerprint, docs)
    for src_uri, lang, generated, links in pages:
        if not in_cache(source_of(docs_dir, src_uri, lang, generated), docs_dir, fingerprint, links, docs):
            worker.send(page_job(src_uri, lang, generated is not None, links, docs_dir, stage, version))


def page_markdown(page: PageSource, job: Request, docs_dir: Path, facts: SiteFacts, links: PageLinks,
                  docs: DocsState) -> str:
    """The page's rendered Markdown (``pipeline.process_page``); PageError naming its file and line."""
    key = cache_key(page, docs_dir, facts.fingerprint, links, docs)
    rendered = cached_page(key)
    if rendered is None and _helped(job):
        rendered = cached_page(key)
    if rendered is None:
        from .context import build_data
        from .incremental import processed_page
        rendered = processed_page(page, docs_dir, build_data(), links, docs)
    return rendered


def api_files(facts: SiteFacts) -> dict[str, str]:
    """The API files of the data (``api_files.api_files``), by path inside the site."""
    files = cached_api_files(facts.fingerprint)
    if files is None and (request := api_request(facts.fingerprint)) is not None and _helped(request):
        files = cached_api_files(facts.fingerprint)
    if files is None:
        from .context import build_data
        from .incremental import stored_api_files
        files = stored_api_files(build_data())
    return files
