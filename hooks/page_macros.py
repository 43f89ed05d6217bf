"""MkDocs glue: every event hands off to one function of ``macros/``, which knows nothing of MkDocs: the site's
address, the nav, the 404 words and the site's name in its language's typography (on_config), the navigation's
labels (on_nav), the generated pages (on_files, on_page_read_source), a page's checks, macros, banner and
typeset title and description as text (on_page_markdown), its HTML checked, its blocks back and its table of
contents typeset (on_page_content), reading times (on_page_context), each language's 404, the API and the search
indexes (on_post_build).

$MODEL_PAGES (model ids, comma-separated) limits the generated pages (the configurator's, the plans for common
requirements) to those models': for a build that reads no other (tests); a site to publish has every model's, and
`make check` finds the links to the others broken."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from material.plugins.search.plugin import Parser
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure import StructureItem
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from macros.build import (  # noqa: E402
    BUILD_ERRORS,
    LANGUAGES,
    SOURCE_LANGUAGE,
    SiteBuild,
    empty_language_folders,
    missing_nav_pages,
    not_found_words,
    published_address,
    typeset_label,
)


def material_text(html: str) -> str:
    """The text Material's search plugin writes for a piece of HTML (what the per-language indexes rewrite)."""
    parser = Parser()
    parser.feed(html)
    parser.close()
    return "".join(part for section in parser.data for part in section.text).strip()


@dataclass(frozen=True)
class I18nState:
    language: str  # the language being built
    building_another: bool  # a language after the first, within the same site build
    languages: list[str]  # every configured language


def i18n_state(config: MkDocsConfig) -> I18nState:
    """What mkdocs-static-i18n (1.3) says of the build under way: its plugin's ``current_language``,
    ``building`` and ``config.languages``."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return I18nState(SOURCE_LANGUAGE, False, list(LANGUAGES))
    return I18nState(
        i18n.current_language or SOURCE_LANGUAGE,
        bool(i18n.building),
        [language.locale for language in i18n.config.languages],
    )


def page_languages(file: File) -> tuple[str, str]:
    """(the language of the page's text, the language being built), from the ``locale`` and
    ``locale_alternate_of`` mkdocs-static-i18n sets on each File: a page served from English in the French
    build keeps English text and figures."""
    text_lang = getattr(file, "locale", None) or SOURCE_LANGUAGE
    return text_lang, getattr(file, "locale_alternate_of", None) or text_lang


_builds: dict[str, SiteBuild] = {}  # by docs_dir
log = logging.getLogger("mkdocs.hooks.page_macros")


def model_pages() -> list[str] | None:
    """The models $MODEL_PAGES names; None when unset or empty (every model)."""
    named = os.environ.get("MODEL_PAGES", "")
    return [model.strip() for model in named.split(",")] if named.strip() else None


_english_404: dict[str, bytes] = {}  # by site_dir


@event_priority(100)  # before any plugin uses the address (mkdocs-static-i18n's alternates, canonical links)
def check_site_address(config: MkDocsConfig) -> MkDocsConfig:
    """The site's address ($SITE_URL) checked, its host in punycode: the build stops naming the variable."""
    try:
        if config.site_url:
            config.site_url = published_address(config.site_url)
    except BUILD_ERRORS as exc:
        raise PluginError(str(exc)) from None
    return config


@event_priority(-110)  # after mkdocs-static-i18n's on_config: sees the language being built
def start_build(config: MkDocsConfig) -> MkDocsConfig:
    missing = missing_nav_pages(config.nav, Path(config.docs_dir))
    if missing:
        raise PluginError("\n".join(missing))
    state = i18n_state(config)
    try:
        # each language's 404 words; the root 404.html holds every language's (a host such as GitHub Pages
        # serves it for any miss)
        config.extra["not_found_by_language"] = not_found_words(config.site_url or "", state.languages)
        config.extra["not_found"] = config.extra["not_found_by_language"][state.language]
        config.site_name = typeset_label(config.site_name, state.language)
        if config.site_description:
            config.site_description = typeset_label(config.site_description, state.language)
        if config.extra.get("short_site_name"):  # the header's on a phone (overrides/partials/header.html)
            config.extra["short_site_name"] = typeset_label(config.extra["short_site_name"], state.language)
        if not state.building_another:
            data_dir = Path(config.config_file_path).resolve().parent / "data"
            models = model_pages()
            _builds[config.docs_dir] = SiteBuild.start(Path(config.docs_dir), data_dir, models)
            if models:
                log.info("generated pages of %s only ($MODEL_PAGES)", ", ".join(models))
    except BUILD_ERRORS as exc:
        raise PluginError(str(exc)) from None
    return config


def nav_items(items: list[StructureItem]) -> Iterator[StructureItem]:
    """Every item of a navigation, sections' children after their section."""
    for item in items:
        yield item
        if isinstance(item, Section):
            yield from nav_items(item.children)


@event_priority(-110)  # after mkdocs-static-i18n's on_nav, which writes the labels of nav_translations
def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    """Every label mkdocs.yml gives the navigation, in the typography of the language being built (a page's own
    title comes from its front matter, typeset with its text: on_page_markdown)."""
    lang = i18n_state(config).language
    for item in nav_items(nav.items):
        label = vars(item).get("title")  # a page's title property reads its front matter: only a label given
        if isinstance(label, str):
            item.title = typeset_label(label, lang)
    return nav


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """The generated pages (the configurator's, the plans for common requirements) stand in docs/<lang>/ without a
    file on disk; on_page_read_source supplies their text."""
    build, languages = _builds[config.docs_dir], i18n_state(config).languages
    empty = empty_language_folders(Path(config.docs_dir), languages)
    if empty:
        raise PluginError("\n".join(empty))
    for lang in languages:
        for uri in build.generated_pages(lang):
            if files.get_file_from_path(uri) is None:
                files.append(
                    File(
                        uri,
                        config.docs_dir,
                        config.site_dir,
                        config.use_directory_urls,
                        inclusion=InclusionLevel.NOT_IN_NAV,
                    )
                )
                build.generated.add(uri)
    return files


def on_page_read_source(page: Page, config: MkDocsConfig) -> str | None:
    return _builds[config.docs_dir].generated_source(page.file.src_uri)


@event_priority(60)  # before mkdocs-static-i18n's: the page's own text
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    build, (text_lang, lang) = _builds[config.docs_dir], page_languages(page.file)
    written = page.file.src_uri not in build.generated  # a generated page has no file to read
    content = page.file.content_string if written else None
    try:
        rendered = build.page_markdown(page.file.src_uri, text_lang, lang, content, markdown, page.url, page.meta)
    except BUILD_ERRORS as exc:
        raise PluginError(str(exc)) from None
    if written:
        page.meta["banner"] = rendered.banner
    page.meta.update(rendered.theme_meta)  # every page's before any template shows it: typeset text, escaped
    return rendered.markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """The blocks of HTML the page's macros wrote, back in their places once Markdown has run; the table of
    contents' labels typeset as the headings are (Python-Markdown's toc writes them with every no-break space
    made an ordinary one: « Mémoire : chaque… » in the sidebar)."""
    text_lang = page_languages(page.file)[0]
    for anchor in toc_anchors(page.toc):
        anchor.title = typeset_label(anchor.title, text_lang)
    try:
        return _builds[config.docs_dir].page_html(page.file.src_uri, html)
    except BUILD_ERRORS as exc:
        raise PluginError(str(exc)) from None


def toc_anchors(anchors: Iterable[AnchorLink]) -> Iterator[AnchorLink]:
    for anchor in anchors:
        yield anchor
        yield from toc_anchors(anchor.children)


@event_priority(100)  # before the search plugin indexes the page: every page's Markdown is rendered by now
def on_page_context(context: dict[str, object], page: Page, config: MkDocsConfig, nav: object) -> dict[str, object]:
    try:
        page.content = _builds[config.docs_dir].with_reading_times(page.file.src_uri, page.content or "")
    except BUILD_ERRORS as exc:
        raise PluginError(str(exc)) from None
    return context


@event_priority(100)  # before mkdocs-static-i18n builds the next language over the same site_dir
def keep_language_404(config: MkDocsConfig) -> None:
    """MkDocs writes 404.html at the root on every language's build: keep each language's."""
    lang, built = i18n_state(config).language, Path(config.site_dir) / "404.html"
    if built.exists() and lang != SOURCE_LANGUAGE:
        (Path(config.site_dir) / lang).mkdir(exist_ok=True)
        shutil.copyfile(built, Path(config.site_dir) / lang / "404.html")
    elif built.exists():
        _english_404[config.site_dir] = built.read_bytes()


@event_priority(-200)  # after mkdocs-static-i18n's on_post_build, which builds the other languages
def finish_site(config: MkDocsConfig) -> None:
    """Once every language is built: the English 404 back at the root, api/*.json, per-language search."""
    state = i18n_state(config)
    if state.building_another:
        return
    site = Path(config.site_dir)  # the i18n plugin writes every language below the same site_dir
    if config.site_dir in _english_404:
        (site / "404.html").write_bytes(_english_404.pop(config.site_dir))
    build = _builds[config.docs_dir]
    build.write_site_files(site, state.languages, material_text)
    build.release()


on_config = CombinedEvent(check_site_address, start_build)
on_post_build = CombinedEvent(keep_language_404, finish_site)
