"""Pages and API files taken from the build cache: reused while every input is unchanged, rendered anew as
soon as one changes (the page's text, its English original, the files of docs/, other pages' text for the
pages that read them, the data, the page's place)."""
from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import edit
from macros import guide_macros, guides, incremental
from macros.context import build_data
from macros.build_cache import docs_state
from macros.incremental import processed_page, stored_api_files
from macros.links import PageLinks
from macros.page_source import PageSource
from macros.reading import reading_rates
from sizing.catalog import DATA_DIR

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of docs/ (where the macros that read pages read too) and an empty build cache."""
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", target)
    monkeypatch.setattr(guide_macros, "DOCS_DIR", target)
    monkeypatch.setattr(guides, "DOCS_DIR", target)
    return target


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages really processed (not taken from the cache), in order."""
    done: list[str] = []
    real = incremental.process_page

    def counted(page: PageSource, *args: object) -> str:
        done.append(page.path)
        return real(page, *args)
    monkeypatch.setattr(incremental, "process_page", counted)
    return done


def source(docs: Path, lang: str, page: str) -> PageSource:
    text = (docs / lang / page).read_text(encoding="utf-8")
    body = text.split("---\n", 2)[2] if text.startswith("---\n") else text
    return PageSource(f"docs/{lang}/{page}", lang, text, body)


LINKS = PageLinks(root="../../", lang_root="../../fr/")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def process(docs: Path, lang: str, page: str, links: PageLinks = LINKS, data=None) -> str:  # noqa: ANN001
    return processed_page(source(docs, lang, page), docs, data or build_data(), links, docs_state(docs))


def test_an_unchanged_page_is_taken_from_the_cache_with_the_same_text(docs, renders):
    first = process(docs, "fr", "guides/quantization.md")
    again = process(docs, "fr", "guides/quantization.md")
    assert again == first
    assert renders == ["docs/fr/guides/quantization.md"]


RENDERED_AGAIN = {  # a change, and a page it must render again: (page's language, page, change)
    "the page edited": ("fr", "reference/api.md",
                        lambda docs: append(docs / "fr" / "reference" / "api.md", "\nUne phrase de plus.\n")),
    "its English original edited (the translation is checked against it)": (
        "fr", "reference/api.md", lambda docs: append(docs / "en" / "reference" / "api.md", "\nOne more.\n")),
    "a guide's title changed, on a page showing guide cards": (
        "fr", "index.md", lambda docs: edit(docs / "fr" / "guides" / "quantization.md", "title: ", "title: Titre — ")),
    "any page edited, on the translation status page": (
        "en", "reference/translating.md", lambda docs: append(docs / "zh" / "reference" / "api.md", "\n多一句。\n")),
    "a file added to docs/ (a link may now lead to it)": (
        "en", "reference/api.md", lambda docs: (docs / "en" / "reference" / "new.md").write_text("# New\n")),
}


@pytest.mark.parametrize("change", RENDERED_AGAIN, ids=list(RENDERED_AGAIN))
def test_a_page_is_rendered_again_when_one_of_its_inputs_changes(docs, renders, change):
    lang, page, alter = RENDERED_AGAIN[change]
    process(docs, lang, page)
    alter(docs)
    process(docs, lang, page)
    assert renders == [f"docs/{lang}/{page}"] * 2


def test_a_guide_that_reads_longer_leaves_the_cards_in_the_cache_and_shows_its_new_reading_time(
        docs, renders, monkeypatch):
    """Reading times are filled into the HTML from the guides as the build rendered them
    (guides.fill_reading_times): the page showing the cards is not rendered again for them."""
    monkeypatch.setattr(guides, "_rendered", {})
    rates = reading_rates(build_data().catalog)
    shown = re.compile(r'<p class="guide-meta">[^<]*?(\d+) min</p><p class="guide-title">'
                       r'<a href="[^"]*guides/what-we-dont-offer/"')

    def minutes_on_the_home_page() -> int:
        for guide in guides.guide_pages():
            guides.remember_rendered(f"en/{guide}", process(docs, "en", guide))
        return int(shown.search(guides.fill_reading_times(process(docs, "en", "index.md"), rates)).group(1))
    before = minutes_on_the_home_page()
    append(docs / "en" / "guides" / "what-we-dont-offer.md", "\n" + "More words to read. " * 400 + "\n")
    assert minutes_on_the_home_page() > before
    assert renders.count("docs/en/index.md") == 1
    assert renders.count("docs/en/guides/what-we-dont-offer.md") == 2


def test_an_edit_that_changes_no_card_leaves_the_pages_showing_cards_in_the_cache(docs, renders):
    process(docs, "en", "index.md", PageLinks())
    edit(docs / "en" / "guides" / "quantization.md", "real models.", "models people run.")
    process(docs, "en", "index.md", PageLinks())
    process(docs, "en", "guides/quantization.md")
    assert renders == ["docs/en/index.md", "docs/en/guides/quantization.md"]


def test_an_editors_swap_file_in_docs_changes_nothing(docs, renders):
    process(docs, "en", "reference/api.md")
    (docs / "en" / "reference" / ".api.md.swp").write_bytes(b"\0")
    process(docs, "en", "reference/api.md")
    assert len(renders) == 1


def test_a_page_at_another_place_or_with_other_data_is_rendered_again(docs, renders):
    process(docs, "en", "guides/quantization.md")
    process(docs, "en", "guides/quantization.md", PageLinks(root="../", lang_root="../"))
    data = build_data()
    process(docs, "en", "guides/quantization.md", data=replace(data, fingerprint="edited data"))
    assert len(renders) == 3


def test_a_page_that_fails_is_not_kept_and_fails_again(docs, renders):
    append(docs / "fr" / "reference" / "api.md", '\n{{ price("no-such-node") }}\n')
    for _ in range(2):
        with pytest.raises(Exception, match="no-such-node"):
            process(docs, "fr", "reference/api.md")
    assert len(renders) == 2


def test_api_files_are_kept_per_data_state(docs, monkeypatch):
    data = build_data(DATA_DIR)
    first = stored_api_files(data)
    computed: list[str] = []
    real = incremental.api_files
    monkeypatch.setattr(incremental, "api_files", lambda d: computed.append(d.fingerprint) or real(d))
    assert stored_api_files(data) == first
    stored_api_files(replace(data, fingerprint="edited data"))
    assert computed == ["edited data"]


def test_a_reading_time_of_a_page_the_build_did_not_render_stops_it_naming_the_page(monkeypatch):
    from macros.errors import MacroError
    monkeypatch.setattr(guides, "_rendered", {})
    placeholder = '<p><span data-reading-time="guides/quantization.md" data-lang="fr"></span></p>'
    with pytest.raises(MacroError, match=r"docs/fr/guides/quantization.md rendered in this build"):
        guides.fill_reading_times(placeholder, {"en": 200, "fr": 200, "zh": 300})
