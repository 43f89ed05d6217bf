"""What a build keeps for the next (``sizing.disk_cache``), each under a hash of everything it is made from:
rendered pages, the API files, and the facts of the data the build's own process needs (``site_facts``).
Light: the build's own process reads it without importing the pipeline (``fetch``).

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
from dataclasses import asdict, dataclass
from pathlib import Path

from sizing import disk_cache

from .code_version import code_version
from .guides import guide_cards_inputs
from .links import PageLinks
from .page_source import PageSource
from .site_facts import SiteFacts

# macros whose output depends on other pages' text
READS_OTHER_PAGES = frozenset({"guide_cards", "reading_time", "translation_status_table"})
# guide_cards depends on less (guide_cards_inputs), and reading_time only on which pages exist (docs.files):
# the minutes are filled into the HTML later (guides.fill_reading_times)
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


def page_key(page: PageSource, english: str | None, fingerprint: str, links: PageLinks, docs: DocsState) -> str:
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
        code_version(), fingerprint.encode(), docs.files, docs.pages if reads_pages else b"", cards,
        json.dumps([page.path, page.lang, page.generated, links.root, links.lang_root]).encode(),
        page.source.encode(), page.markdown.encode(), (english or "").encode())


def cached_page(key: str) -> str | None:
    """The rendered Markdown kept under ``key`` (``page_key``), if any."""
    stored = disk_cache.read("pages", key)
    return stored.decode("utf-8") if stored is not None else None


def has_page(key: str) -> bool:
    return disk_cache.exists("pages", key)


def keep_page(key: str, rendered: str) -> None:
    disk_cache.write("pages", key, rendered.encode("utf-8"))


def _data_key(fingerprint: str) -> str:
    return disk_cache.content_key(code_version(), fingerprint.encode())


def has_api_files(fingerprint: str) -> bool:
    return disk_cache.exists("api", _data_key(fingerprint))


def cached_api_files(fingerprint: str) -> dict[str, str] | None:
    """The API files (``api_files``) of the data ``fingerprint`` if a build with this code kept them."""
    stored = disk_cache.read("api", _data_key(fingerprint))
    return json.loads(stored) if stored is not None else None


def keep_api_files(fingerprint: str, files: dict[str, str]) -> None:
    disk_cache.write("api", _data_key(fingerprint), json.dumps(files, ensure_ascii=False).encode("utf-8"))


def cached_facts(fingerprint: str) -> SiteFacts | None:
    """The facts of the data ``fingerprint`` if a build with this code kept them."""
    stored = disk_cache.read("facts", _data_key(fingerprint))
    return SiteFacts(**json.loads(stored)) if stored is not None else None


def keep_facts(facts: SiteFacts) -> None:
    disk_cache.write("facts", _data_key(facts.fingerprint), json.dumps(asdict(facts), ensure_ascii=False).encode())
