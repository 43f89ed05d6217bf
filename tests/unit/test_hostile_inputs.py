"""The attack run of issue 26, in-process: no file from outside the project is read or published, no input
crashes the build, and every refusal names the file and the line without quoting more than an excerpt.

Each case states the input and the message it now gets. Builds are not needed: the page pipeline runs on a
text, the YAML loaders on a string, the project-file check on a temporary tree, check_site on a tiny site."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import yaml
from rendering import render
from sitebuild import ROOT

from macros.base.errors import MacroError, PageError
from macros.base.front_matter import check_front_matter
from macros.base.project_files import project_file_problems, read_page
from macros.library import registry
from macros.library.families import MACROS
from macros.page.pipeline import check_hand_typed
from macros.page.source import PageSource
from macros.site.guides import RenderedPages, guide_front_matter
from macros.site.translations import State, page_status
from sizing.catalog.yaml_lines import DataFileError, check_yaml_bounds, load_yaml, load_yaml_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import check_site

DEEP = 40_000  # the attack's depth: an 80 KB line, far under the 4 MB cap; libyaml's composer crashed on it


def refusal(data, source: str) -> str:
    """The message a page holding ``source`` on its first line gets."""
    with pytest.raises(PageError) as caught:
        render(data, source)
    return str(caught.value)


# --- item 1: only the project's own files ---------------------------------------------------------------


def project(tmp_path: Path) -> Path:
    for folder in ("docs/en", "overrides", "data"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "docs/en/index.md").write_text("# Home\n")
    return tmp_path


@pytest.mark.parametrize(
    "link, target",
    [
        ("docs/en/assets/passwd.txt", "/etc/passwd"),
        ("docs/en/assets/etcssl", "/etc/ssl"),
        ("docs/en/guides/page.md", "/etc/hostname"),
        ("overrides/partials/x.html", "/etc/passwd"),
        ("data/gpus.yml", "/nonexistent"),
    ],
)
def test_a_symlink_under_docs_overrides_or_data_stops_the_build_in_one_line(tmp_path: Path, link: str, target: str):
    root = project(tmp_path)
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(target)
    assert project_file_problems(root) == [
        f"{root / link}: a symlink (to {target}); the site publishes only the project's own files: "
        "copy the file in, or remove the link"
    ]


def test_the_project_itself_holds_no_symlink_and_no_undecodable_text():
    assert project_file_problems(ROOT) == []


def test_a_page_that_is_not_utf8_is_named_with_its_line(tmp_path: Path):
    root = project(tmp_path)
    (root / "docs/fr").mkdir()
    (root / "docs/fr/index.md").write_bytes("# Accueil\n\nDéjà\n".encode("latin-1"))
    assert project_file_problems(root) == [f"{root}/docs/fr/index.md:3: byte 0xe9 is not UTF-8; save the file as UTF-8"]
    with pytest.raises(PageError, match=r"^docs/fr/index.md:3: byte 0xe9 is not UTF-8"):
        read_page(root / "docs/fr/index.md", "docs/fr/index.md")


def test_a_byte_order_mark_changes_nothing_in_a_guide_card(tmp_path: Path):
    docs = tmp_path / "docs"
    (docs / "en/guides").mkdir(parents=True)
    text = (ROOT / "docs/en/guides/quantization.md").read_text(encoding="utf-8")
    (docs / "en/guides/quantization.md").write_text("\ufeff" + text, encoding="utf-8")
    with_bom = guide_front_matter(docs, "guides/quantization.md", "en")
    assert with_bom == guide_front_matter(ROOT / "docs", "guides/quantization.md", "en")
    assert with_bom["title"] and with_bom["description"]


def test_a_byte_order_mark_does_not_make_a_translation_outdated(tmp_path: Path):
    docs = tmp_path / "docs"
    for lang in ("en", "fr"):
        (docs / lang / "guides").mkdir(parents=True)
        source = ROOT / "docs" / lang / "guides/quantization.md"
        (docs / lang / "guides/quantization.md").write_text("\ufeff" + source.read_text(encoding="utf-8"))
    assert page_status(docs, "fr", "guides/quantization.md") == page_status(
        ROOT / "docs", "fr", "guides/quantization.md"
    )
    assert page_status(docs, "fr", "guides/quantization.md").state is State.CURRENT


def test_the_hand_typed_figure_check_quotes_a_few_short_lines_only(data):
    secret = "root:x:0:0:root:/root:/bin/bash" * 5
    page = PageSource("docs/en/page.md", "en", "\n".join([secret] * 25), "")
    with pytest.raises(PageError) as caught:
        check_hand_typed(page, data)
    lines = str(caught.value).splitlines()
    assert lines[0] == (
        "docs/en/page.md:1: figures typed by hand (every figure must come from a macro; see the writer's reference):"
    )
    assert lines[1:6] == [f"  docs/en/page.md:{n}: {secret[:80]}…" for n in range(1, 6)]
    assert lines[6:] == ["  and 20 more lines"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../../etc/passwd", "guides/../../../etc/passwd", "~/x.md"])
def test_reading_time_takes_only_a_page_inside_docs(data, path: str):
    assert refusal(data, f'{{{{ reading_time("{path}") }}}}') == (
        f"docs/en/page.md:1: no page '{path}' in docs/en/; give a path inside it, like 'guides/quantization.md'"
    )


def test_an_unknown_guide_in_exclude_is_an_error_with_did_you_mean(data):
    assert refusal(data, '{{ guide_cards(exclude="guides/quantisation.md") }}') == (
        "docs/en/page.md:1: no guide 'guides/quantisation.md' in guides.yml; did you mean 'guides/quantization.md' "
        "or 'guides/image-and-video.md' or 'guides/nvlink-or-pcie.md'?"
    )
    assert refusal(data, '{{ guide_cards(exclude="../../etc/passwd") }}').startswith(
        "docs/en/page.md:1: no guide '../../etc/passwd' in guides.yml; "
    )


# --- item 3: bounds before the YAML parser runs -------------------------------------------------------


@pytest.mark.parametrize(
    "text, line",
    [
        ("a: " + "[" * DEEP + "]" * DEEP + "\n", 1),
        ("a: 1\nb: " + "{x: " * DEEP + "}" * DEEP + "\n", 2),
        ("- " * DEEP + "x\n", 1),
        ("a:\n" + "".join(" " * n + f"k{n}:\n" for n in range(1, 60)), 51),
    ],
    ids=["brackets", "braces", "dashes", "indentation"],
)
def test_deep_nesting_is_refused_on_the_text_before_any_parser_runs(text: str, line: int):
    started = time.perf_counter()
    with pytest.raises(DataFileError) as caught:
        load_yaml_text(text)
    assert str(caught.value) == (
        f"line {line}: values nested more than 50 levels deep; fix the brackets or the indentation"
    )
    assert time.perf_counter() - started < 2  # libyaml took a minute on 40,000 brackets, then crashed


def test_brackets_in_quotes_and_comments_are_not_nesting():
    assert load_yaml_text("a: '" + "[" * 80 + "'  # " + "{" * 80 + '\nb: "' + "[" * 80 + '"\n') == {
        "a": "[" * 80,
        "b": "[" * 80,
    }


def test_aliases_are_bounded_on_the_text():
    bomb = "a: &a [x]\nb: [" + ", ".join(["*a"] * 1_001) + "]\n"
    with pytest.raises(DataFileError, match=r"^line 2: more than 1,000 aliases \(\*name\); write the values out$"):
        load_yaml_text(bomb)


def test_the_pre_parse_check_is_a_function_for_scenario_files(tmp_path: Path):
    check_yaml_bounds("- id: x\n  gpu: h100-sxm5-80gb\n")  # a scenario file passes
    scenarios = tmp_path / "run.yml"
    scenarios.write_text("- id: x\n  gpu: " + "[" * DEEP + "]" * DEEP + "\n")
    with pytest.raises(DataFileError, match=r"^line 2: values nested more than 50 levels deep"):
        load_yaml(scenarios)  # what sizing.estimate reads a scenario file with


@pytest.mark.parametrize(
    "front_matter, expected",
    [
        (
            "title: " + "[" * 60 + "]" * 60,
            "docs/en/page.md:2: front matter: values nested more than 50 levels deep; fix the brackets or the "
            "indentation",
        ),
        (
            "title: x\na: &a [1]\nb: [" + ", ".join(["*a"] * 1_001) + "]",
            "docs/en/page.md:4: front matter: more than 1,000 aliases (*name); write the values out",
        ),
        (
            "title: x\ndescription: " + "y" * 30_000,
            "docs/en/page.md:2: front matter of 30,022 characters, more than 20,000; shorten it",
        ),
    ],
    ids=["nesting", "aliases", "size"],
)
def test_front_matter_is_bounded_before_it_is_parsed(front_matter: str, expected: str):
    started = time.perf_counter()
    with pytest.raises(PageError) as caught:
        check_front_matter(f"---\n{front_matter}\n---\n\n# Page\n", "docs/en/page.md")
    assert str(caught.value).startswith(expected)
    assert time.perf_counter() - started < 2


def test_a_billion_laughs_in_front_matter_is_refused_at_once():
    laughs = "title: x\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [" + ", ".join([f"*{chr(97 + n)}"] * 10) + "]\n" for n in range(8)
    )
    with pytest.raises(
        PageError, match=r"^docs/en/page.md:2: front matter: its aliases \(\*name\) expand to more than"
    ):
        check_front_matter(f"---\n{laughs}---\n", "docs/en/page.md")


def test_a_whole_number_of_5001_digits_in_yaml_is_refused_at_its_line():
    with pytest.raises(yaml.MarkedYAMLError) as caught:
        load_yaml_text("a: 1\nb: " + "9" * 5_001 + "\n")
    assert caught.value.problem == "a whole number of 5,001 digits; no figure needs more than 30"
    assert caught.value.problem_mark.line + 1 == 2


# --- item 3: macro calls ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (
            "token_count(" + "9" * 401 + ")",
            "token_count(): the whole number 999999999999… is larger than 1,000,000,000",
        ),
        ("token_count(" + "9" * 1_900 + ")", "token_count(): the whole number 999999999999… is larger than"),
        ("token_count(" + "9" * 5_001 + ")", "a call of 5,014 characters, more than 2,000; shorten it"),
        ("node_comparison(" + "[" * 200 + "]" * 200 + ', "a", "b")', "a call nested too deeply or holding a number"),
        ('node_comparison([["a"]], "a", "b")', '\'{{ node_comparison([["a"]], "a", "b") }}\' is not a macro call'),
        ("token_count(1e400)", "'{{ token_count(1e400) }}' is not a macro call"),
        ('verdict("llama-3.3-70b", "fp8", "8x-h100-sxm5-80gb", context=1, context=2)', "verdict(): the argument"),
        (
            "node_comparison([" + ", ".join(['"1x-l4"'] * 17) + '], "llama-3.3-70b", "fp8")',
            "node_comparison(): a list of 17 items, more than the 16",
        ),
    ],
    ids=["401 digits", "1900 digits", "5001 digits", "nested 200", "nested list", "float", "repeated", "17 items"],
)
def test_call_literals_are_bounded(data, call: str, message: str):
    assert refusal(data, "{{ " + call + " }}").startswith(f"docs/en/page.md:1: {message}")


def test_a_repeated_keyword_names_it(data):
    call = '{{ verdict("llama-3.3-70b", "fp8", "8x-h100-sxm5-80gb", context=1, context=2) }}'
    assert refusal(data, call) == "docs/en/page.md:1: verdict(): the argument 'context' is given twice; give it once"


@pytest.mark.parametrize(
    "call, message",
    [
        (
            '{{ verdict("llama-3.3-70b", "fp8", "8x-h100-sxm5-80gb", context=0) }}',
            "argument 'context' of verdict() must be from 1 to 10,000,000, found 0",
        ),
        (
            '{{ kv_cache("llama-3.3-70b", 0) }}',
            "argument 'context' of kv_cache() must be from 1 to 10,000,000, found 0",
        ),
        (
            '{{ tp_allreduce_time("llama-3.3-70b", "8x-h100-sxm5-80gb", 0) }}',
            "argument 'tokens' of tp_allreduce_time() must be from 1 to 10,000,000, found 0",
        ),
        (
            '{{ node_comparison([], "llama-3.3-70b", "fp8") }}',
            "argument 'nodes' of node_comparison() must list 1 to 4 ids, found 0",
        ),
        (
            '{{ node_comparison(["1x-l4", "2x-l4", "1x-l4"], "llama-3.1-8b", "bf16") }}',
            "argument 'nodes' of node_comparison() names '1x-l4' twice; list each once",
        ),
        (
            '{{ effective_bits("llama-3.3-70b", "fp8", 40) }}',
            "argument 'digits' of effective_bits() must be from 0 to 3, found 40",
        ),
    ],
    ids=["context 0", "kv_cache 0", "tokens 0", "empty comparison", "duplicated comparison", "digits"],
)
def test_arguments_that_make_no_sense_are_refused(data, call: str, message: str):
    assert refusal(data, call) == f"docs/en/page.md:1: {message}"


@pytest.mark.parametrize("n", [0, 7])
def test_a_page_may_not_type_a_block_placeholder(data, n: int):
    source = f"Intro\n\n<!--macro-block-{n}-->\n\n{{{{ link_table() }}}}\n"
    assert refusal(data, source) == (
        "docs/en/page.md:3: '<!--macro-block-' is markup the build writes itself; remove it "
        '(a reading time is {{ reading_time("guides/<page>.md") }})'
    )


def test_a_page_may_not_type_a_reading_time(data):
    source = 'Intro\n<span data-reading-time="guides/quantization.md" data-lang="xx"></span>\n'
    assert refusal(data, source).startswith("docs/en/page.md:2: 'data-reading-time=' is markup the build writes")


def test_a_reading_time_for_an_unknown_language_or_a_path_outside_docs_is_an_error():
    pages = RenderedPages(ROOT / "docs")
    rates = {"en": 238, "fr": 195, "zh": 255}
    with pytest.raises(MacroError, match=r"^a reading time for language 'xx', which the site does not have$"):
        pages.fill_reading_times('<span data-reading-time="guides/quantization.md" data-lang="xx"></span>', rates)
    with pytest.raises(MacroError, match=r"^no page '/etc/passwd' in docs/en/"):
        pages.fill_reading_times('<span data-reading-time="/etc/passwd" data-lang="en"></span>', rates)


def test_any_other_failure_of_a_call_is_named_at_its_line(data, monkeypatch: pytest.MonkeyPatch):
    def broken_macro(ctx) -> str:
        return str(1 / 0)

    monkeypatch.setitem(MACROS, "broken_macro", broken_macro)
    monkeypatch.setattr(registry, "READS_OTHER_PAGES", registry.READS_OTHER_PAGES | {"broken_macro"})
    assert refusal(data, "Intro\n\n{{ broken_macro() }}") == (
        "docs/en/page.md:3: broken_macro() could not be computed (ZeroDivisionError: division by zero); "
        "check its arguments against the writer's reference"
    )


# --- item 3: make check -------------------------------------------------------------------------------


def test_check_site_names_a_page_it_cannot_read_and_a_symlink(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("SITE_URL", raising=False)  # a site built for no address, wherever the tests run
    site, docs = tmp_path / "site", tmp_path / "docs_en"
    site.mkdir()
    docs.mkdir()
    (site / "index.html").write_text("<html><body><p>home</p></body></html>")
    (site / "legacy.html").write_bytes("<html><body><p>Déjà</p></body></html>".encode("latin-1"))
    os.symlink("/etc/passwd", site / "passwd.txt")
    assert check_site(site, docs) == [
        "passwd.txt: a symlink (to /etc/passwd); remove it",
        "legacy.html: cannot be read (line 1: byte 0xe9 is not UTF-8); write it as UTF-8",
    ]
