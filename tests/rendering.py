"""Helpers for tests that render macro calls on a text, without building the site."""

from __future__ import annotations

from pathlib import Path

from macros.base.links import PageLinks
from macros.library.context import MacroContext
from macros.page.render import render_macros
from macros.site.site_data import SiteData

ROOT = Path(__file__).resolve().parent.parent


def render(
    data: SiteData,
    source: str,
    lang: str = "en",
    page: str = "docs/en/page.md",
    links: PageLinks = PageLinks(),
    docs_dir: Path = ROOT / "docs",
) -> str:
    """``source`` with its macro calls rendered for a reader of ``lang``, as a page at ``page`` would be."""
    return render_macros(source, page, MacroContext(data, lang, links, docs_dir)).whole
