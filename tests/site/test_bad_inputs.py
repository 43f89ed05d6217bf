"""What only a real build shows of a bad input: MkDocs stops, prints the refusal as it reaches it, exits
non-zero, and the published site stays exactly as it was. One case per event of the build that can refuse
(MkDocs reading mkdocs.yml, the hook's on_config, on_files and on_page_markdown);
tests/unit/test_bad_input_corpus.py holds the corpus of refusals, each tested in-process on the function that
refuses."""

import os
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_PAGES, edit
from sitebuild import build, copy_project


def empty_folder(path: Path) -> None:
    shutil.rmtree(path)
    path.mkdir()


def line_of(path: Path, needle: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


# (file to break, how, the text on the broken line or None, what the build prints: {line} is that line's number)
CORPUS = {
    "mkdocs.yml that MkDocs cannot read": (
        "mkdocs.yml",
        lambda path: edit(path, "strict: true", "strict: [true"),
        "strict: [true",
        ["Error: MkDocs encountered an error parsing the configuration file", "line {line}"],
    ),
    "data the catalog refuses (on_config)": (
        "data/gpus.yml",
        lambda path: edit(path, "memory_gb: 141", "memory_gb: lots"),
        "memory_gb: lots",
        [
            "ERROR   -  the catalog in data/ is invalid:\n",
            "/data/gpus.yml:{line}: record 'h200-sxm-141gb': field 'gpus.memory_gb'",
            "found: 'lots'",
        ],
    ),
    "a language folder without a page (on_files)": (
        "docs/zh",
        empty_folder,
        None,
        ["ERROR   -  docs/zh/ holds no page: ", "remove 'zh' from plugins.i18n.languages in mkdocs.yml"],
    ),
    "a page refused in the last language built (on_page_markdown)": (
        "docs/zh/guides/mixture-of-experts.md",
        lambda path: edit(path, 'params("deepseek-v3")', 'params("deepseek-v4")'),
        'params("deepseek-v4")',
        ["ERROR   -  docs/zh/guides/mixture-of-experts.md:{line}: unknown model id 'deepseek-v4'; did you mean"],
    ),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("corpus") / "project")


@pytest.mark.parametrize("case", CORPUS, ids=list(CORPUS))
def test_broken_input_stops_the_build_and_publishes_nothing(template: Path, tmp_path: Path, case: str):
    target, breaks, broken_line, fragments = CORPUS[case]
    project = tmp_path / "project"
    shutil.copytree(template, project, symlinks=True)
    breaks(project / target)
    published = tmp_path / "site"
    published.mkdir()
    (published / "index.html").write_text("the live site")
    result = build(project, published, environ={**os.environ, **SAMPLE_PAGES})
    message = result.stdout + result.stderr
    assert result.returncode == 1, f"{case}: the build returned {result.returncode}"
    if "ERROR" in message:  # the hook's refusals, as MkDocs prints a plugin's error
        assert "Aborted with a BuildError!" in message
    line = line_of(project / target, broken_line) if broken_line else None
    for fragment in (fragment.format(line=line) for fragment in fragments):
        assert fragment in message, f"{case}: {fragment!r} not in:\n{message[-2000:]}"
    assert [p.name for p in published.iterdir()] == ["index.html"]
    assert (published / "index.html").read_text() == "the live site"
    assert not list(tmp_path.glob(".site.*")), "the build left its staging folder behind"
