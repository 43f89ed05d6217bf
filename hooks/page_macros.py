"""MkDocs glue: render every page through the macros of its language; fail the build on any error.

Thin on purpose: the catalog, the calculations and the macros know nothing of MkDocs."""
from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from macros.context import build_data  # noqa: E402
from macros.errors import PageError  # noqa: E402
from macros.figures import hand_typed_figures, product_names  # noqa: E402
from macros.render import compile_page, has_macros, render_page  # noqa: E402
from sizing.errors import CatalogError  # noqa: E402


def page_language(page: Page) -> str:
    """The language of the page's text: a page served from English as a fallback keeps English figures."""
    return getattr(page.file, "locale", None) or "en"


def front_matter_lines(source: str, markdown: str) -> int:
    """Lines MkDocs removed above ``markdown`` (front matter), so errors cite the file's own lines."""
    start = source.find(markdown[:200]) if markdown else -1
    return source.count("\n", 0, start) if start > 0 else 0


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    path = f"docs/{page.file.src_uri}"
    source = page.file.content_string
    offset = front_matter_lines(source, markdown)
    try:
        data = build_data()
        if has_macros(markdown):
            compile_page(markdown, path, offset)
        typed = hand_typed_figures(source, product_names(data.catalog))
        if typed:
            raise PluginError(f"{path}: figures typed by hand (every figure must come from a macro):\n"
                              + "\n".join(f"  {path}:{t.line}: {t.text.strip()}" for t in typed))
        return render_page(markdown, path, page_language(page), data, offset)
    except (CatalogError, PageError) as exc:
        raise PluginError(str(exc)) from None
