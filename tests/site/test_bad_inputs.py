"""What only a real build shows of a bad input: MkDocs stops, prints the refusal as it reaches it, exits
non-zero, and the published site stays exactly as it was. One case per event of the build that can refuse
(MkDocs reading mkdocs.yml, the hook's on_config, on_files and on_page_markdown);
tests/unit/test_bad_input_corpus.py holds the corpus of refusals, each tested in-process on the function that
refuses."""

from pathlib import Path

import pytest
from brokenbuilds import BAD_INPUTS, LIVE_PAGE, BrokenBuilds


def line_of(path: Path, needle: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


# case of brokenbuilds.BAD_INPUTS: (the text on the broken line or None, what the build prints: {line} is its number)
CORPUS = {
    "mkdocs.yml that MkDocs cannot read": (
        "strict: [true",
        ["Error: MkDocs encountered an error parsing the configuration file", "line {line}"],
    ),
    "data the catalog refuses (on_config)": (
        "memory_gb: lots",
        [
            "ERROR   -  the catalog in data/ is invalid:\n",
            "/data/gpus.yml:{line}: record 'h200-sxm-141gb': field 'gpus.memory_gb'",
            "found: 'lots'",
        ],
    ),
    "a language folder without a page (on_files)": (
        None,
        ["ERROR   -  docs/zh/ holds no page: ", "remove 'zh' from plugins.i18n.languages in mkdocs.yml"],
    ),
    "a page refused in the last language built (on_page_markdown)": (
        'params("deepseek-v4")',
        ["ERROR   -  docs/zh/guides/mixture-of-experts.md:{line}: unknown model id 'deepseek-v4'; did you mean"],
    ),
}


def test_each_bad_input_built_is_checked():
    assert CORPUS.keys() == BAD_INPUTS.keys()


@pytest.mark.parametrize("case", CORPUS, ids=list(CORPUS))
def test_broken_input_stops_the_build_and_publishes_nothing(broken_builds: BrokenBuilds, case: str):
    broken_line, fragments = CORPUS[case]
    built = broken_builds[case]
    message = built.printed
    assert built.result.returncode == 1, f"{case}: the build returned {built.result.returncode}"
    if "ERROR" in message:  # the hook's refusals, as MkDocs prints a plugin's error
        assert "Aborted with a BuildError!" in message
    line = line_of(built.project / BAD_INPUTS[case][0], broken_line) if broken_line else None
    for fragment in (fragment.format(line=line) for fragment in fragments):
        assert fragment in message, f"{case}: {fragment!r} not in:\n{message[-2000:]}"
    assert [p.name for p in built.live.iterdir()] == ["index.html"]
    assert (built.live / "index.html").read_text() == LIVE_PAGE
    assert not list(built.live.parent.glob(".site.*")), "the build left its staging folder behind"
