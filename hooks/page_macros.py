"""MkDocs glue: render every page through the macros of its language, add the configurator's
per-model pages, write the JSON API; fail the build on any error.

Thin on purpose: the catalog, the calculations and the macros know nothing of MkDocs."""
from __future__ import annotations

import gc
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel, file_sort_key
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from macros.helper import current, helper, remember_build, worth_starting  # noqa: E402 - light

# MkDocs runs this module once per process (`mkdocs serve` reuses it for every build): when the first build has
# pages to render again, the helper starts now, imports the pipeline and loads the catalog while MkDocs starts
# up, then renders them; this process imports neither (macros.helper, macros.fetch). Later builds: on_config.
if worth_starting(ROOT / "docs"):
    helper()

from macros import fetch  # noqa: E402
from macros.build_cache import DocsState, docs_state  # noqa: E402
from macros.errors import MacroError, PageError  # noqa: E402
from macros.guides import fill_reading_times, remember_rendered  # noqa: E402
from macros.links import PageLinks  # noqa: E402
from macros.page_source import LANGUAGES, PageSource  # noqa: E402
from macros.page_source import SOURCE_LANGUAGE as DEFAULT_LANGUAGE  # noqa: E402
from macros.pages import generated_page_source, search_indexes  # noqa: E402
from macros.site_facts import SiteFacts  # noqa: E402
from macros.strings import StringsError, text  # noqa: E402
from macros.translations import State, page_status  # noqa: E402
from sizing import disk_cache  # noqa: E402
from sizing.errors import CatalogError  # noqa: E402
from sizing.fingerprint import data_fingerprint  # noqa: E402

TRANSLATORS_GUIDE = "reference/translating/"


def _facts() -> SiteFacts:
    try:
        return fetch.site_facts()
    except CatalogError as exc:
        raise PluginError(str(exc)) from None


def page_language(file: File) -> str:
    """The language of the page's text: a page served from English as a fallback keeps English figures."""
    return getattr(file, "locale", None) or DEFAULT_LANGUAGE


def build_language(file: File) -> str:
    """The language being built (the reader's), whatever the language of the source file."""
    return getattr(file, "locale_alternate_of", None) or page_language(file)


def page_url(file: File) -> str:
    """The page's URL in the site, as its Page has it (the home page's is "", not "./")."""
    return "" if file.url in (".", "./") else file.url


def stage(lang: str) -> int:
    """When the helper is to render pages of the site in ``lang`` (see macros.helper): in building order."""
    return 1 + LANGUAGES.index(lang)


def links_at(url: str, lang: str) -> PageLinks:
    """Links from the page at ``url`` of the site in ``lang`` (the language being built)."""
    root = "../" * url.count("/")
    return PageLinks(root=root, lang_root=root + ("" if lang == DEFAULT_LANGUAGE else f"{lang}/"))


def page_links(file: File) -> PageLinks:
    return links_at(page_url(file), build_language(file))


def nav_pages(nav: object, trail: str = "nav") -> list[tuple[str, str]]:
    """(key in mkdocs.yml, page path) of every page the nav names."""
    if isinstance(nav, str):
        return [(trail, nav)] if nav.endswith(".md") else []
    if isinstance(nav, dict):
        return [found for title, value in nav.items() for found in nav_pages(value, f"{trail} > {title}")]
    if isinstance(nav, list):
        return [found for item in nav for found in nav_pages(item, trail)]
    return []


@event_priority(-110)  # after mkdocs-static-i18n's on_config: sees the language being built
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """The nav names pages of docs/en/ (mkdocs-static-i18n drops a missing one without a warning); the
    404 page gets the words of the language being built; the helper process gets the English pages the
    build cache lacks."""
    english = Path(config.docs_dir) / DEFAULT_LANGUAGE
    for key, target in nav_pages(config.nav):
        if not (english / target).exists():
            raise PluginError(f"mkdocs.yml: {key}: '{target}' is not a page of docs/{DEFAULT_LANGUAGE}/; "
                              "fix the path or add the page")
    lang = current_language(config)
    home = config.site_url.rstrip("/") + ("/" if lang == DEFAULT_LANGUAGE else f"/{lang}/")
    try:
        config.extra["not_found"] = {key: text("not_found", key, lang)
                                     for key in ("title", "text", "home", "configurator")}
    except StringsError as exc:
        raise PluginError(str(exc)) from None
    config.extra["not_found"]["home_url"] = home
    if worth_starting(Path(config.docs_dir)):
        helper()  # started already when this module was run, unless an earlier build of `mkdocs serve` ran it
    prerender_english_pages(config)
    return config


def prerender_english_pages(config: MkDocsConfig) -> None:
    """Hand the helper the pages of docs/en/ the build cache lacks as soon as the configuration is read, a
    tenth of a second before MkDocs lists them (prerender_pages then does the same for every page): it
    renders them while MkDocs loads its theme and plugins. In MkDocs' order and at MkDocs' URLs
    (file_sort_key, File), as mkdocs-static-i18n serves the default language at the site's root."""
    if (building_another_language(config) or current_language(config) != DEFAULT_LANGUAGE
            or (worker := current()) is None):
        return
    english = Path(config.docs_dir) / DEFAULT_LANGUAGE
    files = sorted((File(path.relative_to(english).as_posix(), str(english), config.site_dir, config.use_directory_urls)
                    for path in english.rglob("*.md")
                    if not any(part.startswith(".") for part in path.relative_to(english).parts)), key=file_sort_key)
    fetch.hand_over(worker, [(f"{DEFAULT_LANGUAGE}/{file.src_uri}", DEFAULT_LANGUAGE, None,
                              links_at(page_url(file), DEFAULT_LANGUAGE)) for file in files],
                    Path(config.docs_dir), data_fingerprint(), stage(DEFAULT_LANGUAGE))


def building_another_language(config: MkDocsConfig) -> bool:
    """Whether this is mkdocs-static-i18n's build of a language after the first (within the same site build)."""
    i18n = config.plugins.get("i18n")
    return bool(i18n is not None and getattr(i18n, "building", False))


def current_language(config: MkDocsConfig) -> str:
    i18n = config.plugins.get("i18n")
    return (getattr(i18n, "current_language", None) or DEFAULT_LANGUAGE) if i18n else DEFAULT_LANGUAGE


@event_priority(100)  # before mkdocs-static-i18n builds the next language over the same site_dir
def keep_language_404(config: MkDocsConfig) -> None:
    """Keep each language's 404 page: MkDocs writes 404.html at the root on every language's build."""
    lang = current_language(config)
    built = Path(config.site_dir) / "404.html"
    if built.exists() and lang != DEFAULT_LANGUAGE:
        (Path(config.site_dir) / lang).mkdir(exist_ok=True)
        shutil.copyfile(built, Path(config.site_dir) / lang / "404.html")
    elif built.exists():
        _english_404[config.site_dir] = built.read_bytes()


_english_404: dict[str, bytes] = {}


def configured_languages(config: MkDocsConfig) -> list[str]:
    i18n = config.plugins.get("i18n")
    return [language.locale for language in i18n.config.languages] if i18n else list(LANGUAGES)


@dataclass(frozen=True)
class BuildInputs:
    """What every page of one language's build reads, noted once by on_files."""

    facts: SiteFacts
    docs: DocsState                 # see macros.build_cache
    generated: frozenset[str]       # src_uri of every generated configurator page

    @property
    def version(self) -> str:
        return fetch.build_version(self.facts.fingerprint, self.docs)


_inputs: dict[str, BuildInputs] = {}  # by docs_dir


def add_generated_pages(files: Files, config: MkDocsConfig) -> Files:
    """One configurator page per model and language (generated: nothing to translate). They stand at
    docs/<lang>/configurator/<model>.md without a file on disk; on_page_read_source supplies the text."""
    facts = _facts()
    generated = set()
    for lang in configured_languages(config):
        if not any((Path(config.docs_dir) / lang).rglob("*.md")):
            raise PluginError(f"docs/{lang}/ holds no page: a language folder must hold at least its home page "
                              f"(index.md); add pages, or remove '{lang}' from plugins.i18n.languages in mkdocs.yml")
        for model_id in facts.models:
            uri = f"{lang}/configurator/{model_id}.md"
            if files.get_file_from_path(uri) is None:
                files.append(File(uri, config.docs_dir, config.site_dir, config.use_directory_urls,
                                  inclusion=InclusionLevel.NOT_IN_NAV))
                generated.add(uri)
    _inputs[config.docs_dir] = BuildInputs(facts, docs_state(Path(config.docs_dir)), frozenset(generated))
    # Everything alive now (MkDocs' configuration and theme, the modules) lives until the build
    # ends: the cyclic garbage collector stops walking it again and again until then (finish_site,
    # on_build_error). With a 4,100-node catalog the walks grew with every node (bench/build.py).
    gc.freeze()
    return files


@event_priority(-110)  # after mkdocs-static-i18n has chosen the files of the language being built
def prerender_pages(files: Files, config: MkDocsConfig) -> Files:
    """Hand the helper process (when one runs, see macros.helper) every page the build cache lacks, to render
    while MkDocs works, in MkDocs' order: when the first language's build starts, this language's pages, then
    those of the languages built after it, ready by the time their turn comes; then the API files."""
    if building_another_language(config) or (worker := current()) is None:
        return files
    inputs, docs_dir = _inputs[config.docs_dir], Path(config.docs_dir)
    fingerprint, pages, lang = inputs.facts.fingerprint, files.documentation_pages(), current_language(config)

    def generated_text(src_uri: str) -> str | None:
        return generated_page_source(inputs.facts, src_uri) if src_uri in inputs.generated else None
    fetch.hand_over(worker, [(file.src_uri, page_language(file), generated_text(file.src_uri), page_links(file))
                             for file in pages], docs_dir, fingerprint, stage(lang))
    if lang == DEFAULT_LANGUAGE:
        for other in build_languages(config):
            translated = translated_site(pages, other, docs_dir, inputs.generated)
            fetch.hand_over(worker, [(src_uri, shown, generated_text(src_uri), links_at(url, other))
                                     for src_uri, shown, url in translated], docs_dir, fingerprint, stage(other))
    if (request := fetch.api_request(fingerprint)) is not None:
        worker.send(request)  # written by finish_site, once the site is built
    return files


def build_languages(config: MkDocsConfig) -> list[str]:
    """The languages mkdocs-static-i18n builds after the default one."""
    i18n = config.plugins.get("i18n")
    return [lang for lang in getattr(i18n, "build_languages", []) if lang != DEFAULT_LANGUAGE]


def translated_site(english: list[File], lang: str, docs_dir: Path,
                    generated: frozenset[str]) -> list[tuple[str, str, str]]:
    """(src_uri, language of the text, URL) of every page of ``lang``'s build, as mkdocs-static-i18n's folder
    layout with fallback_to_default makes it from the English pages: docs/<lang>/<page> where it exists, the
    English page in its place otherwise, at <lang>/<English URL>. A page listed wrongly costs only time (the
    build asks for it when it gets there); tests/test_helper.py checks that a build then asks for none."""
    pages = []
    for file in english:
        own = f"{lang}/{file.src_uri.removeprefix(f'{DEFAULT_LANGUAGE}/')}"
        translated = own in generated or (docs_dir / own).is_file()
        pages.append((own if translated else file.src_uri, lang if translated else DEFAULT_LANGUAGE,
                      f"{lang}/{page_url(file)}"))
    return pages


on_files = CombinedEvent(add_generated_pages, prerender_pages)


def generated_source(page: Page, inputs: BuildInputs) -> str | None:
    """The text of a generated configurator page; None for a page with a file of its own."""
    if page.file.src_uri not in inputs.generated:
        return None
    return generated_page_source(inputs.facts, page.file.src_uri)


def on_page_read_source(page: Page, config: MkDocsConfig) -> str | None:
    return generated_source(page, _inputs[config.docs_dir])


@event_priority(60)  # before mkdocs-static-i18n's: the page's own text, as the helper process reads it too
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    inputs = _inputs[config.docs_dir]
    generated = generated_source(page, inputs)
    source = PageSource(f"docs/{page.file.src_uri}", page_language(page.file),
                        generated or page.file.content_string, markdown, generated is not None)
    docs_dir, links = Path(config.docs_dir), page_links(page.file)
    job = fetch.page_job(page.file.src_uri, source.lang, source.generated, links, docs_dir,
                         stage(build_language(page.file)), inputs.version)
    try:
        rendered = fetch.page_markdown(source, job, docs_dir, inputs.facts, links, inputs.docs)
    except PageError as exc:
        raise PluginError(str(exc)) from None
    if generated is None:
        page.meta["banner"] = translation_banner(docs_dir, page, links)
    remember_rendered(page.file.src_uri, rendered)
    return rendered


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context: dict[str, object], page: Page, config: MkDocsConfig, nav: object) -> dict[str, object]:
    """Reading times counted in place of their placeholders (macros.guides.fill_reading_times): MkDocs has
    rendered every page's Markdown by now."""
    try:
        page.content = fill_reading_times(page.content, _inputs[config.docs_dir].facts.reading_rates)
    except MacroError as exc:
        raise PluginError(f"docs/{page.file.src_uri}: {exc}") from None
    return context


def translation_banner(docs_dir: Path, page: Page, links: PageLinks) -> dict[str, str] | None:
    """What to tell a reader of /fr/ or /zh/: this page is English for now, or its translation is behind."""
    lang, shown = build_language(page.file), page_language(page.file)
    if lang == DEFAULT_LANGUAGE:
        return None
    relative = Path(page.file.src_uri).relative_to(shown).as_posix()
    english_url = links.root + page.url.removeprefix(f"{lang}/")
    if shown != lang:
        kind, link, link_text = "missing", links.lang_root + TRANSLATORS_GUIDE, "help_link"
    elif page_status(docs_dir, lang, relative).state is State.OUTDATED:
        kind, link, link_text = "outdated", english_url, "english_link"
    else:
        return None
    return {"kind": kind, "title": text("banners", f"{kind}_title", lang),
            "text": text("banners", f"{kind}_text", lang), "link": link,
            "link_text": text("banners", link_text, lang)}


@event_priority(-200)
def finish_site(config: MkDocsConfig) -> None:
    """Once every language is built: the English 404 back at the root, api/*.json, per-language search;
    then the build cache forgets what no build has used for a month, and the garbage collector walks every
    object again."""
    if building_another_language(config):
        return
    site = Path(config.site_dir)  # the i18n plugin writes every language below the same site_dir
    if config.site_dir in _english_404:
        (site / "404.html").write_bytes(_english_404.pop(config.site_dir))
    for relative, content in fetch.api_files(_inputs[config.docs_dir].facts).items():
        target = site / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    index = site / "search" / "search_index.json"
    if index.exists():
        for lang, content in search_indexes(index.read_text(encoding="utf-8"), configured_languages(config)).items():
            (index.parent / f"search_index.{lang}.json").write_text(content, encoding="utf-8")
    remember_build(Path(config.docs_dir))
    disk_cache.prune()
    gc.unfreeze()


def on_build_error(error: Exception) -> None:
    """A failed build: the collector walks every object again (`mkdocs serve` goes on after one)."""
    gc.unfreeze()


on_post_build = CombinedEvent(keep_language_404, finish_site)
