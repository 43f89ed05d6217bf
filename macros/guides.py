"""The guides: their list, the file a reader of each language gets, their front matter; and reading times,
placeholders in a page's rendered Markdown filled in its HTML (``fill_reading_times``) from the page they
time as this build rendered it.

Every page's Markdown is rendered before any page's HTML is finished, so no page is rendered a second time
only to be counted, and a page showing a reading time is not rendered again when the timed page reads
longer. Light: the build's own process fills reading times without importing the pipeline."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from markupsafe import Markup, escape

from sizing import disk_cache
from sizing.yaml_lines import safe_load

from .code_version import code_version
from .errors import MacroError
from .formatting import formatter
from .front_matter import check_front_matter
from .reading import plain_text, reading_minutes
from .strings import text
from .translations import DOCS_DIR, SOURCE_LANGUAGE

GUIDES_FILE = Path(__file__).resolve().parent / "guides.yml"


@cache
def guide_pages() -> tuple[str, ...]:
    return tuple(safe_load(GUIDES_FILE.read_text(encoding="utf-8")))


def page_file(page: str, lang: str) -> tuple[Path, str]:
    """The file a reader of ``lang`` gets for ``page``, and the language of its text."""
    own = DOCS_DIR / lang / page
    return (own, lang) if own.exists() else (DOCS_DIR / SOURCE_LANGUAGE / page, SOURCE_LANGUAGE)


def guide_front_matter(page: str, lang: str) -> dict[str, object]:
    """The front matter of the guide a reader of ``lang`` gets; a PageError naming its file and line when
    it is broken."""
    path = page_file(page, lang)[0]
    return check_front_matter(path.read_text(encoding="utf-8"), f"docs/{path.relative_to(DOCS_DIR).as_posix()}")


def guide_cards_inputs(lang: str) -> bytes:
    """Everything of docs/ that the guide cards render for a reader of ``lang``: each guide's front matter
    (what a page showing the cards is kept in the build cache by; reading times are filled in later)."""
    return json.dumps([(page, guide_front_matter(page, lang)) for page in guide_pages()],
                      ensure_ascii=False, sort_keys=True, default=str).encode()


_PLACEHOLDER = re.compile(r'<span data-reading-time="([^"]+)" data-lang="([^"]+)"></span>')
_CARDS = re.compile(r'<ul class="guide-cards">.*?</ul>', re.S)   # other guides' cards: not part of a page's reading
_rendered: dict[str, str] = {}                                    # docs/-relative path -> rendered Markdown
_counted: dict[tuple[str, str], tuple[str, int]] = {}             # (path, language of the text) -> (text, minutes)


def reading_time_placeholder(page: str, lang: str) -> Markup:
    """Where the minutes to read ``page`` go, for a reader of ``lang`` (see ``fill_reading_times``)."""
    return Markup('<span data-reading-time="{}" data-lang="{}"></span>').format(page, lang)


def remember_rendered(src_uri: str, markdown: str) -> None:
    """Keep a page's rendered Markdown (``src_uri`` inside docs/) for the reading times that show it."""
    _rendered[src_uri] = markdown


def fill_reading_times(html: str, rates: Mapping[str, int]) -> str:
    """``html`` with every reading time filled in: minutes to read the page a reader of the showing page's
    language gets, figures rendered, a chart read as its title and text alternative (the labels of its axes
    are not words to read), at ``rates`` (``reading.reading_rates``)."""
    def minutes(found: re.Match[str]) -> str:
        page, lang = found.groups()
        path, text_lang = page_file(page, lang)
        src_uri = path.relative_to(DOCS_DIR).as_posix()
        rendered = _rendered.get(src_uri)
        if rendered is None:
            raise MacroError(f"the reading time of '{page}' needs docs/{src_uri} rendered in this build, and it "
                             "was not: is it left out of the site (exclude_docs, draft)?")
        counted = _counted.get((src_uri, text_lang))
        if counted is None or counted[0] is not rendered:
            counted = _counted[(src_uri, text_lang)] = (rendered, _minutes(rendered, text_lang, rates))
        return str(escape(text("guides", "min", lang, value=formatter(lang).number(counted[1]))))
    return _PLACEHOLDER.sub(minutes, html) if 'data-reading-time="' in html else html


def _minutes(rendered: str, lang: str, rates: Mapping[str, int]) -> int:
    """Minutes to read ``rendered``, kept in the build cache under its text: counting is the costly part."""
    key = disk_cache.content_key(code_version(), rendered.encode(), lang.encode(), str(rates[lang]).encode())
    stored = disk_cache.read("minutes", key)
    if stored is not None:
        return int(stored)
    minutes = reading_minutes(plain_text(_CARDS.sub(" ", rendered)), lang, rates)
    disk_cache.write("minutes", key, str(minutes).encode())
    return minutes
