"""What a site generator calls: the one public surface of ``macros/`` for ``hooks/page_macros.py``.

One ``SiteBuild`` per site build (every language of it) holds the catalog, the pages it generates
and each page's rendered blocks; its methods are the steps a build takes, each in words of files and text, not
of MkDocs. ``BUILD_ERRORS`` are the errors that stop a build with a message naming the file, line and fix."""

from __future__ import annotations

import gc
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from macros.base.errors import MacroError, PageError
from macros.base.front_matter import check_front_matter, theme_text
from macros.base.languages import LANGUAGES, SOURCE_LANGUAGE
from macros.base.links import PageLinks
from macros.base.project_files import ProjectFileError, check_project_files
from macros.base.site_address import SiteAddressError, published_address
from macros.generated import generated_page_source, generated_page_uris, not_found_words, write_site_files
from macros.output.strings import StringsError
from macros.output.typography import typeset, typeset_metadata
from macros.page.markup import check_page_html
from macros.page.nav import empty_language_folders, missing_nav_pages
from macros.page.pipeline import render_page
from macros.page.render import Rendered
from macros.page.source import PageSource
from macros.site.guides import RenderedPages
from macros.site.reading import reading_rates
from macros.site.search import IndexedText
from macros.site.site_data import SiteData, site_data
from macros.site.translations import translation_banner
from sizing.catalog.errors import CatalogError, did_you_mean

BUILD_ERRORS = (MacroError, PageError, StringsError, CatalogError, ProjectFileError, SiteAddressError)

__all__ = [
    "BUILD_ERRORS",
    "LANGUAGES",
    "SOURCE_LANGUAGE",
    "SiteBuild",
    "empty_language_folders",
    "missing_nav_pages",
    "not_found_words",
    "published_address",
    "typeset_label",
]


@dataclass(frozen=True)
class RenderedMarkdown:
    """A page's Markdown with its macros run, what the reader is told about its translation, and its front
    matter's title and description as the theme must be given them: typeset as its text is (they show as its
    <title>, header, navigation label and meta description), then escaped (``theme_text``; a generated page's front
    matter is written escaped)."""

    markdown: str
    banner: dict[str, str] | None
    theme_meta: dict[str, str]


def typeset_label(label: str, lang: str) -> str:
    """A label of the site's chrome (its name and description, a navigation or table-of-contents label) with the
    typography of ``lang``, the language being built."""
    return typeset(label, lang)


class BuildsFrozen:
    """What builds froze out of the garbage collector's sight (``SiteBuild.kept_to_the_end``) and have not given
    back yet. ``gc.freeze`` and ``gc.unfreeze`` are the whole process's: builds that froze nothing give nothing
    back (a test session freezes its own fixtures; a build in its process gives them back with its own)."""

    def __init__(self) -> None:
        self.any = False

    def freeze(self) -> None:
        gc.freeze()
        self.any = True

    def give_back(self) -> None:
        if self.any:
            gc.unfreeze()
            self.any = False


FROZEN = BuildsFrozen()


@dataclass(frozen=True)
class SiteBuild:
    """What every page of one site build (all its languages) shares."""

    docs_dir: Path
    data: SiteData
    rendered: RenderedPages
    generated: set[str] = field(default_factory=set)  # src_uri of every generated page
    blocks: dict[str, Rendered] = field(default_factory=dict)  # a page's blocks, from its Markdown to its HTML
    models: frozenset[str] | None = None  # the models whose generated pages are built; None: every model
    computes_the_data: bool = False  # the first build of this state of data/: it computes every result of it

    @classmethod
    def start(cls, docs_dir: Path, data_dir: Path, model_pages: Collection[str] | None = None) -> SiteBuild:
        """The build of the site in ``docs_dir`` from the catalog in ``data_dir``; a ProjectFileError first when a
        file under docs/, overrides/ or data/ is a symlink or is not UTF-8. With ``model_pages``, only
        those models' generated pages are built (a build for tests that read no other: the pages that link
        to the others then link to pages the site lacks); a MacroError names an id the catalog lacks."""
        check_project_files(data_dir.parent)
        FROZEN.give_back()  # a build that failed never reached its release
        data = site_data(data_dir)
        for model in (m for m in model_pages or () if m not in data.catalog.models):
            hint = did_you_mean(model, data.catalog.models)
            raise MacroError(f"generated pages asked for an unknown model id '{model}'; {hint}")
        models = None if model_pages is None else frozenset(model_pages)
        return cls(docs_dir, data, RenderedPages(docs_dir), models=models, computes_the_data=data.computed_nothing())

    def kept_to_the_end(self) -> None:
        """Everything alive now (the data's results, the pages read so far) is kept until the build ends: in the
        build that computes the data, it is frozen out of the garbage collector's sight (``gc.freeze``) page by
        page, and given back to it at the end (``release``): a full build's collections took 4.5 s walking it
        again and again, 1.3 s now. A rebuild of the same data computes little and freezes nothing: what it
        leaves is collected as it goes."""
        if self.computes_the_data:
            FROZEN.freeze()

    def release(self) -> None:
        """The end of the build: what it kept (``kept_to_the_end``) is the collector's again, to free once MkDocs
        drops the pages."""
        FROZEN.give_back()

    def generated_pages(self, lang: str) -> list[str]:
        """The src_uri of every page the build adds to ``lang`` (the configurator's, the plans for common
        requirements), of every model or of ``models``; ``generated_source`` gives their text."""
        return generated_page_uris(self.data, lang, self.models)

    def generated_source(self, src_uri: str) -> str | None:
        """The text of a generated page; None for a page with a file of its own."""
        return generated_page_source(self.data, src_uri) if src_uri in self.generated else None

    def page_markdown(
        self,
        src_uri: str,
        text_lang: str,
        lang: str,
        content: str | None,
        markdown: str,
        url: str,
        meta: Mapping[str, object],
    ) -> RenderedMarkdown:
        """A page's checks and macros. ``content`` is the file as written (front matter included; None for a
        generated page), ``markdown`` what the generator kept of it, ``meta`` its front matter;
        ``text_lang`` the language of its text, ``lang`` the one being built (a page served from English keeps
        English text), ``url`` its address in the built site."""
        generated = self.generated_source(src_uri)
        text = generated if generated is not None else content or ""
        source = PageSource(f"docs/{src_uri}", text_lang, text, markdown, generated is not None)
        links = PageLinks.at(url, lang)
        rendered = render_page(source, self.docs_dir, self.data, links)
        banner, theme_meta = None, typeset_metadata(meta, text_lang)  # a generated page's, written escaped
        if generated is None:
            theme_meta = theme_text(typeset_metadata(check_front_matter(text, source.path), text_lang))
            banner = translation_banner(
                self.docs_dir,
                Path(src_uri).relative_to(text_lang).as_posix(),
                lang,
                text_lang,
                english_url=links.root + url.removeprefix(f"{lang}/"),
                lang_root=links.lang_root,
            )
        self.rendered.remember(src_uri, rendered.whole)
        self.blocks[src_uri] = rendered
        self.kept_to_the_end()
        return RenderedMarkdown(rendered.markdown, banner, theme_meta)

    def page_html(self, src_uri: str, html: str) -> str:
        """The blocks of HTML the page's macros wrote, back in their places once Markdown has run, once the HTML
        Markdown made of a written page's text is checked to hold no script (``check_page_html``)."""
        if src_uri not in self.generated:
            check_page_html(html, f"docs/{src_uri}")
        return self.blocks.pop(src_uri).fill(html)

    def with_reading_times(self, src_uri: str, html: str) -> str:
        """Reading times on guide cards, once every page's Markdown is rendered."""
        try:
            return self.rendered.fill_reading_times(html, reading_rates())
        except MacroError as exc:
            raise MacroError(f"docs/{src_uri}: {exc}") from None

    def write_site_files(self, site_dir: Path, languages: list[str], indexed_text: IndexedText) -> None:
        """The JSON API and each language's search index, once every language is built (``indexed_text``: how
        the generator's search writes HTML as text)."""
        write_site_files(site_dir, self.data, languages, indexed_text)
