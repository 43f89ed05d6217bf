"""The guides' own macros: reading times and the cards that list the guides (``macros.site.guides``)."""

from __future__ import annotations

from markupsafe import Markup, escape

from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.html import block
from macros.site.guides import checked_guide, checked_page, guide_front_matter, guide_pages, reading_time_placeholder

_t = section_text("guides")


@macro
def reading_time(ctx: MacroContext, page: str) -> Markup:
    """Minutes to read a page (path inside a language folder), computed from its own text."""
    return reading_time_placeholder(checked_page(ctx.docs_dir, page), ctx.lang)


@macro
def guide_cards(ctx: MacroContext, exclude: str | None = None) -> str:
    """Cards for every guide (but ``exclude``): category, reading time, title, summary, link."""
    if exclude is not None:
        checked_guide(exclude)
    items = []
    for page in guide_pages():
        if page == exclude:
            continue
        meta = guide_front_matter(ctx.docs_dir, page, ctx.lang)
        url = ctx.links.lang_root + page.removesuffix(".md") + "/"
        meta_line = escape(_t(ctx, "meta", category=meta.get("category", ""), minutes="\0"))
        items.append(
            Markup(
                '<li><p class="guide-meta">{meta}</p><p class="guide-title"><a href="{url}">{title}</a></p>'
                '<p>{summary}</p><p><a href="{url}" aria-hidden="true" tabindex="-1">{read}</a></p></li>'
            ).format(
                meta=meta_line.replace("\0", reading_time_placeholder(page, ctx.lang)),
                url=url,
                title=meta.get("title", page),
                summary=meta.get("description", ""),
                read=_t(ctx, "read"),
            )
        )
    return block(Markup('<ul class="guide-cards">{}</ul>').format(Markup("").join(items)))
