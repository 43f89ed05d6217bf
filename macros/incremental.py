"""What a build takes from an earlier one: processed pages and the API files, kept in the build cache
(``sizing.disk_cache``) under a hash of everything they are made from.

A page's rendered Markdown is a pure function of its text, its English original (heading ids, parity), the
list of files in docs/ (links), the data, the code of the pipeline and the packages it runs on, the language
and the page's place in the site; a page showing guide cards also depends on the guides' front matter (their
reading times are filled into its HTML later, from the guides as the build rendered them), and a page showing
the translation status on the text of every page. A page whose inputs are all unchanged is neither checked nor rendered
again, since the same inputs passed the same checks; any change renders it anew.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from sizing import disk_cache

from .code_version import code_version
from .context import BuildData, build_data
from .guide_macros import guide_cards_inputs
from .library import READS_OTHER_PAGES, PageLinks
from .pages import api_files, generated_page_source
from .pipeline import PageSource, english_source, markdown_of, process_page

# macros whose output depends on other pages' text; guide_cards depends on less (guide_cards_inputs), and
# reading_time only on which pages exist (docs.files): the minutes are filled into the HTML later
# (guide_macros.fill_reading_times)
PAGE_READING_MACROS = tuple(sorted(READS_OTHER_PAGES - {"guide_cards", "reading_time"}))


@dataclass(frozen=True)
class DocsState:
    """What a page may read of docs/ besides itself and its English original."""

    files: bytes   # a hash of the path of every file (what a link may point to)
    pages: bytes   # a hash of the path and text of every page (what reading times and statuses read)


_docs_states: dict[Path, tuple[tuple[tuple[str, int, int], ...], DocsState]] = {}


def docs_state(docs_dir: Path) -> DocsState:
    """The state of ``docs_dir``, hashed again only when a file was added, removed, or changed size or time."""
    # what MkDocs leaves out of a site (dotfiles, an editor's swap files) cannot change a page
    files = sorted(path for path in docs_dir.rglob("*")
                   if path.is_file() and not any(part.startswith(".") for part in path.relative_to(docs_dir).parts))
    signature = tuple((path.as_posix(), path.stat().st_mtime_ns, path.stat().st_size) for path in files)
    known = _docs_states.get(docs_dir)
    if known is not None and known[0] == signature:
        return known[1]
    listing, pages = hashlib.sha256(), hashlib.sha256()
    for path in files:
        relative = path.relative_to(docs_dir).as_posix().encode() + b"\0"
        listing.update(relative)
        if path.suffix == ".md":
            pages.update(relative + path.read_bytes() + b"\0")
    state = DocsState(listing.digest(), pages.digest())
    _docs_states[docs_dir] = (signature, state)
    return state


_guide_cards_inputs: dict[tuple[bytes, str], bytes] = {}  # for the docs/ of the latest build only


def page_key(page: PageSource, english: str | None, data: BuildData, links: PageLinks, docs: DocsState) -> str:
    """A hash of everything the page's output is made from (see the module's docstring)."""
    # A page can reach a macro only by writing its name, so a page without these names reads no other page.
    reads_pages = any(name in page.markdown for name in PAGE_READING_MACROS)
    cards = b""
    if "guide_cards" in page.markdown:
        memo = (docs.pages, page.lang)
        if memo not in _guide_cards_inputs:
            if any(known[0] != docs.pages for known in _guide_cards_inputs):
                _guide_cards_inputs.clear()
            _guide_cards_inputs[memo] = guide_cards_inputs(page.lang)
        cards = _guide_cards_inputs[memo]
    return disk_cache.content_key(
        code_version(), data.fingerprint.encode(), docs.files, docs.pages if reads_pages else b"", cards,
        json.dumps([page.path, page.lang, page.generated, links.root, links.lang_root]).encode(),
        page.source.encode(), page.markdown.encode(), (english or "").encode())


def processed_page(page: PageSource, docs_dir: Path, data: BuildData, links: PageLinks, docs: DocsState) -> str:
    """``process_page``'s result, taken from the build cache when every input is unchanged."""
    english = None if page.generated else english_source(page.path, page.lang, docs_dir)
    key = page_key(page, english[0] if english else None, data, links, docs)
    stored = disk_cache.read("pages", key)
    if stored is not None:
        return stored.decode("utf-8")
    rendered = process_page(page, docs_dir, data, links)
    disk_cache.write("pages", key, rendered.encode("utf-8"))
    return rendered


def page_job(src_uri: str, lang: str, generated: bool, links: PageLinks, docs_dir: Path) -> dict[str, object]:
    """A page of the build, for the helper process to render ahead of it (``prerender``, ``macros.helper``):
    the same page, language, place in the site and docs/ that the build's own rendering will use."""
    return {"kind": "page", "src_uri": src_uri, "lang": lang, "generated": generated, "root": links.root,
            "lang_root": links.lang_root, "docs_dir": str(docs_dir)}


def prerender(job: dict[str, object]) -> None:
    """Render a ``page_job`` into the build cache, where the build finds it (in the helper process). A page
    that fails is not kept: the build renders it itself and reports the error with its file and line."""
    docs_dir, src_uri = Path(str(job["docs_dir"])), str(job["src_uri"])
    try:
        data = build_data()
        if job["generated"]:
            source = generated_page_source(data, src_uri)
        else:
            source = (docs_dir / src_uri).read_text(encoding="utf-8")
        page = PageSource(f"docs/{src_uri}", str(job["lang"]), source, markdown_of(source), bool(job["generated"]))
        processed_page(page, docs_dir, data, PageLinks(str(job["root"]), str(job["lang_root"])), docs_state(docs_dir))
    except Exception:  # noqa: BLE001 - see the docstring: the build's own rendering reports it
        return


def stored_api_files(data: BuildData) -> dict[str, str]:
    """``api_files``, taken from the build cache when the data and the code are unchanged."""
    key = disk_cache.content_key(code_version(), data.fingerprint.encode())
    stored = disk_cache.read("api", key)
    if stored is not None:
        return json.loads(stored)
    files = api_files(data)
    disk_cache.write("api", key, json.dumps(files, ensure_ascii=False).encode("utf-8"))
    return files
