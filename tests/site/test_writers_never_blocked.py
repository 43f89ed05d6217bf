"""A writer's English edit never waits for its translations: a translation whose English page changed since its
stamp is published as it is, marked outdated, with today's figures; the checks that compare it with its English
page (macro parity, heading ids) apply once it is stamped current again; `make translations` shows the translator
the English paragraphs that changed since the stamp."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data
from sitebuild import ROOT, edit

from macros.base.errors import PageError
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.translations import State, changes_since, paragraphs, stamp, translation_status

GUIDE = "guides/nvlink-or-pcie.md"
BEFORE = 'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones.'
AFTER = 'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones, among {{ node_count() }}.'


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A copy of docs/ and of the English texts the stamps name, the English guide given one more macro call."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copytree(ROOT / "translations", tmp_path / "translations")
    edit(tmp_path / "docs" / "en" / GUIDE, BEFORE, AFTER)
    return tmp_path / "docs"


def render(docs: Path, lang: str, data) -> str:
    source = (docs / lang / GUIDE).read_text(encoding="utf-8")
    markdown, _ = get_data(source)  # what MkDocs hands the hook
    return render_page(PageSource(f"docs/{lang}/{GUIDE}", lang, source, markdown), docs, data).whole


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_an_english_macro_call_leaves_the_translations_outdated_and_building(docs: Path, data, lang: str):
    states = {(s.lang, s.page): s.state for s in translation_status(docs)}
    assert states[(lang, GUIDE)] is State.OUTDATED
    assert render(docs, lang, data)  # published as it is, its figures computed from today's data


def test_once_stamped_current_a_translation_must_carry_the_english_calls(docs: Path, data):
    stamp(docs / "fr" / GUIDE, docs)
    with pytest.raises(PageError, match=r"is missing node_count\(\), which docs/en/guides/nvlink-or-pcie.md:\d+"):
        render(docs, "fr", data)


def test_an_outdated_translation_is_not_held_to_the_english_heading_ids(docs: Path, data):
    edit(docs / "en" / GUIDE, "## The short answer {#short-answer}", "## The answer {#answer}")
    assert render(docs, "fr", data)


def test_make_translations_shows_the_english_paragraphs_changed_since_the_stamp(docs: Path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "translations.py"), "--docs", str(docs)],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(n for n, text in enumerate((docs / "en" / GUIDE).read_text().splitlines(), 1) if "node_count" in text)
    paragraph_start = line - 2  # the paragraph's first line
    for lang in ("fr", "zh"):
        assert f"{lang}  {GUIDE}: what docs/en/{GUIDE} changed since the stamp" in result.stdout
    assert f"docs/en/{GUIDE}:{paragraph_start}: changed" in result.stdout
    assert f"      - {BEFORE}" in result.stdout and f"      + {AFTER}" in result.stdout
    assert "## The short answer" not in result.stdout  # only what changed


def test_a_stamp_keeps_the_english_text_it_names(tmp_path: Path):
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "fr").mkdir()
    (tmp_path / "docs" / "en" / "a.md").write_text("# A {#a}\n\nOne.\n")
    (tmp_path / "docs" / "fr" / "a.md").write_text("# A {#a}\n\nUn.\n")
    value = stamp(tmp_path / "docs" / "fr" / "a.md", tmp_path / "docs")
    assert (tmp_path / "translations" / f"{value}.md").read_text() == "# A {#a}\n\nOne.\n"
    # the English page changes and the translation is stamped again: the text no stamp names is gone
    (tmp_path / "docs" / "en" / "a.md").write_text("# A {#a}\n\nOne, changed.\n")
    again = stamp(tmp_path / "docs" / "fr" / "a.md", tmp_path / "docs")
    assert [p.stem for p in (tmp_path / "translations").glob("*.md")] == [again] != [value]


def test_paragraphs_are_compared_one_by_one():
    before = "---\ntitle: x\n---\n\n# T {#t}\n\nOne\ntwo.\n\nThree.\n\nFour.\n"
    after = "---\ntitle: x\n---\n\n# T {#t}\n\nOne\ntwo, changed.\n\nThree.\n\nNew.\n\nFour.\n"
    assert paragraphs(before) == [(5, "# T {#t}"), (7, "One\ntwo."), (10, "Three."), (12, "Four.")]
    changes = changes_since(before, after)
    assert [(c.line, c.before, c.after) for c in changes] == [
        (7, "One\ntwo.", "One\ntwo, changed."),
        (12, None, "New."),
    ]
    assert [(c.line, c.before, c.after) for c in changes_since(after, before)][1] == (12, "New.", None)
