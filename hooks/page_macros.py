"""MkDocs glue: render every page through the macros of its language, add the configurator's
per-model pages, write the JSON API; fail the build on any error.

Thin on purpose: the catalog, the calculations and the macros know nothing of MkDocs."""
from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from macros.context import build_data  # noqa: E402
from macros.errors import PageError  # noqa: E402
from macros.figures import hand_typed_figures, product_names  # noqa: E402
from macros.library import PageLinks  # noqa: E402
from macros.pages import api_files, configurator_page  # noqa: E402
from macros.render import compile_page, has_macros, render_page  # noqa: E402
from sizing.errors import CatalogError  # noqa: E402

LANGUAGES = ("en", "fr", "zh")
DEFAULT_LANGUAGE = "en"


def _data():  # noqa: ANN202
    try:
        return build_data()
    except CatalogError as exc:
        raise PluginError(str(exc)) from None


def page_language(page: Page) -> str:
    """The language of the page's text: a page served from English as a fallback keeps English figures."""
    return getattr(page.file, "locale", None) or DEFAULT_LANGUAGE


def build_language(page: Page) -> str:
    """The language being built (the reader's), whatever the language of the source file."""
    return getattr(page.file, "locale_alternate_of", None) or page_language(page)


def page_links(page: Page) -> PageLinks:
    root = "../" * page.url.count("/")
    lang = build_language(page)
    return PageLinks(root=root, lang_root=root + ("" if lang == DEFAULT_LANGUAGE else f"{lang}/"))


def front_matter_lines(source: str, markdown: str) -> int:
    """Lines MkDocs removed above ``markdown`` (front matter), so errors cite the file's own lines."""
    start = source.find(markdown[:200]) if markdown else -1
    return source.count("\n", 0, start) if start > 0 else 0


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """One configurator page per model and language (generated: nothing to translate). They stand at
    docs/<lang>/configurator/<model>.md without a file on disk; on_page_read_source supplies the text."""
    data = _data()
    for lang in LANGUAGES:
        for model_id in data.catalog.models:
            uri = f"{lang}/configurator/{model_id}.md"
            if files.get_file_from_path(uri) is None:
                files.append(File(uri, config.docs_dir, config.site_dir, config.use_directory_urls,
                                  inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def generated_source(page: Page) -> str | None:
    """The text of a generated configurator page; None for a page with a file of its own."""
    parts = Path(page.file.src_uri).parts
    if page.file.abs_src_path and not Path(page.file.abs_src_path).exists() and len(parts) == 3 \
            and parts[0] in LANGUAGES and parts[1] == "configurator":
        return configurator_page(_data(), parts[0], Path(parts[2]).stem)
    return None


def on_page_read_source(page: Page, config: MkDocsConfig) -> str | None:
    return generated_source(page)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    path = f"docs/{page.file.src_uri}"
    source = generated_source(page) or page.file.content_string
    offset = front_matter_lines(source, markdown)
    data = _data()
    try:
        if has_macros(markdown):
            compile_page(markdown, path, offset)
        typed = hand_typed_figures(source, product_names(data.catalog))
        if typed:
            raise PluginError(f"{path}: figures typed by hand (every figure must come from a macro):\n"
                              + "\n".join(f"  {path}:{t.line}: {t.text.strip()}" for t in typed))
        return render_page(markdown, path, page_language(page), data, offset, page_links(page))
    except PageError as exc:
        raise PluginError(str(exc)) from None


@event_priority(-200)
def on_post_build(config: MkDocsConfig) -> None:
    """Write api/*.json once, into the root of the site, after every language is built."""
    i18n = config.plugins.get("i18n")
    if i18n is not None and getattr(i18n, "building", False):
        return
    site = Path(config.site_dir)  # the i18n plugin writes every language below the same site_dir
    for relative, content in api_files(_data()).items():
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
