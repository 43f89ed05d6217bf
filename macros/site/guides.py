"""The guides: their list (``guides.yml``), the file a reader of each language gets, their front matter; and
reading times, placeholders in a page's rendered Markdown filled in its HTML (``RenderedPages``) from the
page they time as this build rendered it.

MkDocs renders every page's Markdown before it finishes any page's HTML, so no page is rendered a second
time only to be counted, and a page showing a reading time is not rendered again when the timed page
reads longer."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path

from markupsafe import Markup, escape

from macros.base.errors import MacroError
from macros.base.front_matter import check_front_matter
from macros.base.languages import LANGUAGES, SOURCE_LANGUAGE
from macros.base.project_files import read_page
from macros.output.formatting import formatter
from macros.output.strings import text
from macros.output.typography import typeset_metadata
from macros.site.reading import plain_text, reading_minutes
from sizing.catalog.errors import did_you_mean
from sizing.catalog.yaml_lines import load_yaml

GUIDES_FILE = Path(__file__).resolve().parent / "guides.yml"
_PLACEHOLDER = re.compile(r'<span data-reading-time="([^"]+)" data-lang="([^"]+)"></span>')
_CARDS = re.compile(r'<ul class="guide-cards">.*?</ul>', re.S)  # other guides' cards: not part of a page's reading


@cache
def guide_pages() -> tuple[str, ...]:
    return tuple(load_yaml(GUIDES_FILE))


_PAGE_PATH = re.compile(r"[a-z0-9][a-z0-9_-]*(?:/[a-z0-9][a-z0-9_-]*)*\.md")  # no '..', no '/' first, no '~'


def checked_page(docs_dir: Path, page: str) -> str:
    """``page`` when it names a page of docs/en/ by its path inside the language folder; a MacroError
    otherwise (a path leaving docs/, an absolute path, a page that does not exist)."""
    shown = page if len(page) <= 60 else page[:60] + "…"
    if not _PAGE_PATH.fullmatch(page) or not (docs_dir / SOURCE_LANGUAGE / page).is_file():
        raise MacroError(f"no page '{shown}' in docs/en/; give a path inside it, like 'guides/quantization.md'")
    return page


def checked_guide(page: str) -> str:
    """``page`` when it is one of the guides (guides.yml); a MacroError with the nearest ones otherwise."""
    if page not in guide_pages():
        shown = page if len(page) <= 60 else page[:60] + "…"
        raise MacroError(f"no guide '{shown}' in guides.yml; {did_you_mean(page, guide_pages())}")
    return page


def page_file(docs_dir: Path, page: str, lang: str) -> tuple[Path, str]:
    """The file a reader of ``lang`` gets for ``page``, and the language of its text."""
    own = docs_dir / lang / page
    return (own, lang) if own.exists() else (docs_dir / SOURCE_LANGUAGE / page, SOURCE_LANGUAGE)


def guide_front_matter(docs_dir: Path, page: str, lang: str) -> dict[str, object]:
    """The front matter of the guide a reader of ``lang`` gets, its title and description typeset in the language
    of its text as the page's own are; a PageError naming its file and line when it is broken."""
    path, text_lang = page_file(docs_dir, page, lang)
    shown = f"docs/{path.relative_to(docs_dir).as_posix()}"
    front_matter = check_front_matter(read_page(path, shown), shown)
    return {**front_matter, **typeset_metadata(front_matter, text_lang)}


def reading_time_placeholder(page: str, lang: str) -> Markup:
    """Where the minutes to read ``page`` go, for a reader of ``lang`` (see ``RenderedPages``)."""
    return Markup('<span data-reading-time="{}" data-lang="{}"></span>').format(page, lang)


class RenderedPages:
    """The rendered Markdown of one site build's pages, by their path inside docs/: what reading times
    count."""

    def __init__(self, docs_dir: Path) -> None:
        self.docs_dir = docs_dir
        self._markdown: dict[str, str] = {}

    def remember(self, src_uri: str, markdown: str) -> None:
        self._markdown[src_uri] = markdown

    def fill_reading_times(self, html: str, rates: Mapping[str, int]) -> str:
        """``html`` with every reading time filled in: minutes to read the page a reader of the showing
        page's language gets, figures rendered, a chart read as its title and text alternative (the labels
        of its axes are not words to read), at ``rates`` (``reading.reading_rates``)."""

        def minutes(found: re.Match[str]) -> str:
            page, lang = checked_page(self.docs_dir, found.group(1)), found.group(2)
            if lang not in LANGUAGES:
                raise MacroError(f"a reading time for language '{lang[:10]}', which the site does not have")
            path, text_lang = page_file(self.docs_dir, page, lang)
            src_uri = path.relative_to(self.docs_dir).as_posix()
            rendered = self._markdown.get(src_uri)
            if rendered is None:
                raise MacroError(
                    f"the reading time of '{page}' needs docs/{src_uri} rendered in this build, and "
                    "it was not: is it left out of the site (exclude_docs, draft)?"
                )
            count = minutes_to_read(rendered, text_lang, rates[text_lang])
            return str(escape(text("guides", "min", lang, value=formatter(lang).number(count))))

        return _PLACEHOLDER.sub(minutes, html) if 'data-reading-time="' in html else html


@lru_cache(maxsize=256)
def minutes_to_read(rendered: str, lang: str, units_per_minute: int) -> int:
    """Minutes to read a page's rendered Markdown, other guides' cards left out; counted once per text."""
    return reading_minutes(plain_text(_CARDS.sub(" ", rendered)), lang, {lang: units_per_minute})
