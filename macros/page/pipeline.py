"""One page from source to rendered Markdown: every check a page must pass, then its macros.

The MkDocs hook calls ``render_page``; tests call it directly on a page's text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from macros.base.errors import PageError
from macros.base.front_matter import check_front_matter
from macros.base.languages import LANGUAGES, SOURCE_LANGUAGE
from macros.base.links import PageLinks
from macros.library.context import MacroContext
from macros.output.typography import typeset
from macros.page.checks import check_glossary, check_heading_ids, check_links, check_parity, heading_ids
from macros.page.hand_typed import hand_typed_figures, product_names
from macros.page.markup import check_markup
from macros.page.render import Rendered, render_macros
from macros.page.source import PageSource, english_source
from macros.page.template import compile_page, has_macros
from macros.site.site_data import SiteData


def front_matter_lines(source: str, markdown: str) -> int:
    """Lines MkDocs removed above ``markdown`` (front matter), so errors cite the file's own lines."""
    start = source.find(markdown[:200]) if markdown else -1
    return source.count("\n", 0, start) if start > 0 else 0


def site_has_page(target: str, docs_dir: Path, data: SiteData) -> bool:
    """Whether ``docs/<lang>/<page>.md`` is a page of the site: its own, its English fallback, or a
    generated configurator page."""
    parts = Path(target).parts
    if len(parts) < 3 or parts[0] != "docs" or parts[1] not in LANGUAGES:
        return False
    rest = Path(*parts[2:])
    if (docs_dir / parts[1] / rest).exists() or (docs_dir / SOURCE_LANGUAGE / rest).exists():
        return True
    return rest.parent.as_posix() == "configurator" and rest.stem in data.catalog.models


# A page's bounds, checked before anything else reads it: the checks below scan a line once per brace or bracket
# in it, and a hostile line of 100,000 braces took them minutes. The longest page of the site holds 17,000
# characters, its longest line 278.
MAX_PAGE_CHARACTERS = 200_000
MAX_LINE_CHARACTERS = 1_000


def check_size(source: str, page: str) -> None:
    """A page within MAX_PAGE_CHARACTERS, each line within MAX_LINE_CHARACTERS; PageError otherwise."""
    if len(source) > MAX_PAGE_CHARACTERS:
        raise PageError(
            page, None, f"a page of {len(source):,} characters, more than {MAX_PAGE_CHARACTERS:,}; split it in pages"
        )
    longest = max(source.splitlines() or [""], key=len)
    if len(longest) > MAX_LINE_CHARACTERS:
        number = source.splitlines().index(longest) + 1
        raise PageError(
            page,
            number,
            f"a line of {len(longest):,} characters, more than {MAX_LINE_CHARACTERS:,}; break it into shorter lines "
            "(Markdown joins the lines of a paragraph)",
        )


def check_before_rendering(page: PageSource, docs_dir: Path, exists: Callable[[str], bool]) -> None:
    """Size, front matter, markup (no raw HTML, safe links and attribute lists), heading ids, glossary, links."""
    check_size(page.source, page.path)
    check_front_matter(page.source, page.path)
    check_markup(page.source, page.path)
    english = english_source(page.path, page.lang, docs_dir)
    if page.lang != SOURCE_LANGUAGE and english is None:
        english_path = f"docs/{SOURCE_LANGUAGE}/" + page.path.split("/", 2)[2]
        raise PageError(
            page.path,
            None,
            f"translates no page: {english_path} does not exist. A translation "
            "comes from an English page: add the English page, or move or remove this one",
        )
    if page.lang == SOURCE_LANGUAGE:
        heading_ids(page.source, page.path, require=True)
    elif english:
        check_heading_ids(page.source, page.path, *english)
    check_glossary(page.source, page.path, page.lang)
    check_links(page.source, page.path, exists)


SHOWN_LINES = 5  # a message quotes a few lines of a page, never the whole of it
SHOWN_CHARACTERS = 80


def excerpt(text: str, column: int = 0, limit: int = SHOWN_CHARACTERS) -> str:
    """At most ``limit`` characters of ``text`` around ``column``: what a message may quote of any input."""
    start = max(0, min(column - limit // 3, len(text) - limit))
    shown = text[start : start + limit].strip()
    return ("…" if start else "") + shown + ("…" if start + limit < len(text) else "")


def check_hand_typed(page: PageSource, data: SiteData) -> None:
    typed = hand_typed_figures(page.source, product_names(data.catalog))
    if typed:
        shown = [f"  {page.path}:{t.line}: {excerpt(t.text, t.column)}" for t in typed[:SHOWN_LINES]]
        more = len(typed) - SHOWN_LINES
        raise PageError(
            page.path,
            typed[0].line,
            "figures typed by hand (every figure must come from a macro; see the writer's "
            "reference):\n" + "\n".join(shown + ([f"  and {more} more lines"] if more > 0 else [])),
        )


def render_page(page: PageSource, docs_dir: Path, data: SiteData, links: PageLinks = PageLinks()) -> Rendered:
    """The page's Markdown with its macros rendered and typeset, after every check (its blocks of HTML set
    aside, typeset already); PageError on the first problem."""
    offset = front_matter_lines(page.source, page.markdown)
    if not page.generated:
        check_before_rendering(page, docs_dir, lambda target: site_has_page(target, docs_dir, data))
    if has_macros(page.markdown):
        compile_page(page.markdown, page.path, offset)
    if not page.generated:  # generated pages hold nothing but data and macros
        check_hand_typed(page, data)
    rendered = render_macros(page.markdown, page.path, MacroContext(data, page.lang, links, docs_dir), offset)
    rendered = Rendered(typeset(rendered.markdown, page.lang), rendered.blocks)
    english = None if page.generated else english_source(page.path, page.lang, docs_dir)
    if english:
        check_parity(page.source, page.path, *english)
    return rendered
