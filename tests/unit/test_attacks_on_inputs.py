"""The attack run of issue 36 on what the build and the command lines read, in-process: nothing hangs, only the
project's own regular files are read, a command line's input has a budget, and every refusal is one line a
terminal can show. Each table below is the corpus of one kind of attack, the input and what its message must say:
a new attack of a known kind is one more line. (Publishing's corpus: tests/scripts/test_publish_ownership.py;
pages and the site's address: test_attacks_on_pages.py.)"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from macros.base.errors import PageError
from macros.base.front_matter import check_front_matter
from macros.base.project_files import project_file_problems
from macros.site.site_data import site_data
from sizing import estimate, plan
from sizing.catalog.errors import CatalogError, terminal_text
from sizing.catalog.yaml_lines import load_yaml_text
from sizing.command_line import CLOSED_PIPE_EXIT

LIMIT_S = 2  # every refusal below comes at once; the attacks hung, or took minutes


@contextlib.contextmanager
def ends_within(seconds: int) -> Iterator[None]:
    """Fails the test (instead of hanging the suite) when its block does not end in ``seconds``."""

    def stop(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    started = time.perf_counter()
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert time.perf_counter() - started < seconds


# --- YAML that refers to itself: refused at its anchor by every reader ----------------------------------------

# (YAML text, line of the anchor); each looped forever with growing memory
RECURSIVE_YAML = {
    "a list in itself": ("- &a [*a]\n", 1),
    "a mapping in itself": ("k: 1\nx: &a {y: *a}\n", 2),
    "a merge of itself": ("k: 1\nx: &a\n  y: 1\n  <<: *a\n", 2),
    "through a nested list": ("a: &a [1, [2, [3, *a]]]\n", 1),
    "through two anchors": ("p: &p\n  - q: &q [*p]\n", 1),
}
RECURSION = "an alias (*name) inside the value its anchor (&name) names: it would repeat forever; write the values out"


@pytest.mark.parametrize("case", RECURSIVE_YAML)
def test_yaml_that_refers_to_itself_is_refused_at_its_anchor_by_the_shared_reader(case: str):
    text, line = RECURSIVE_YAML[case]
    with ends_within(LIMIT_S), pytest.raises(yaml.MarkedYAMLError) as caught:
        load_yaml_text(text)
    assert caught.value.problem == RECURSION and caught.value.problem_mark.line + 1 == line


@pytest.mark.parametrize("case", RECURSIVE_YAML)
def test_a_front_matter_that_refers_to_itself_stops_the_page_at_its_line(case: str):
    text, line = RECURSIVE_YAML[case]
    listed = text.startswith("-")  # under a key of its own: "items:"
    front_matter = "title: x\n" + ("items:\n  " + text.replace("\n", "\n  ") if listed else text)
    with ends_within(LIMIT_S), pytest.raises(PageError) as caught:
        check_front_matter(f"---\n{front_matter}---\n\n# Page\n", "docs/en/page.md")
    assert str(caught.value) == f"docs/en/page.md:{line + 2 + listed}: front matter: {RECURSION}"


def test_a_data_file_that_refers_to_itself_stops_the_catalog_at_its_line(data_copy: Path):
    with (data_copy / "gpus.yml").open("a", encoding="utf-8") as file:
        file.write("loop: &loop {again: *loop}\n")
    lines = (data_copy / "gpus.yml").read_text(encoding="utf-8").count("\n")
    with ends_within(LIMIT_S), pytest.raises(CatalogError) as caught:
        site_data(data_copy)
    assert f"gpus.yml:{lines}: invalid YAML: {RECURSION}" in str(caught.value)


@pytest.mark.parametrize("command", [estimate, plan], ids=["estimate", "plan"])
@pytest.mark.parametrize("case", RECURSIVE_YAML)
def test_both_command_lines_refuse_a_file_that_refers_to_itself(tmp_path: Path, capsys, command, case: str):
    text, line = RECURSIVE_YAML[case]
    path = tmp_path / "input.yml"
    path.write_text(text, encoding="utf-8")
    with ends_within(LIMIT_S * 5):  # the catalog loads first
        assert command.main([str(path)]) == 2
    assert capsys.readouterr().err == f"error: {path}:{line}: invalid YAML: {RECURSION}\n"


# --- only regular files with one name are read ----------------------------------------------------------------

# what a command line is given instead of a file (None: a named pipe made in the test), and what it says
NOT_FILES = {
    "a named pipe": (None, "a named pipe, not a regular file with one name: only those are read"),
    "an endless device": ("/dev/zero", "a character device, not a regular file with one name"),
    "a folder": (".", "is a folder, not a file"),
}


@pytest.mark.parametrize("command", [estimate, plan], ids=["estimate", "plan"])
@pytest.mark.parametrize("case", NOT_FILES)
def test_a_command_line_given_a_pipe_or_a_device_refuses_it_at_once(tmp_path: Path, capsys, command, case: str):
    given, message = NOT_FILES[case]
    if given is None:
        given = str(tmp_path / "pipe.yml")
        os.mkfifo(given)  # nobody writes to it: reading it would wait forever
    with ends_within(LIMIT_S * 5):
        assert command.main([given]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {given}: cannot be read: ") and message in err and len(err.splitlines()) == 1


def test_a_hard_linked_input_is_refused_with_the_fix(tmp_path: Path, capsys):
    elsewhere = tmp_path / "elsewhere.yml"
    elsewhere.write_text("- {gpu: l4, model: llama-3.1-8b}\n", encoding="utf-8")
    os.link(elsewhere, tmp_path / "run.yml")
    assert estimate.main([str(tmp_path / "run.yml")]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / 'run.yml'}: cannot be read: a hard link (one of 2 names of one file), not a regular file "
        "with one name: only those are read; give it a copy of its own (cp FILE FILE.copy && mv FILE.copy FILE)\n"
    )


def test_a_named_pipe_among_the_data_files_stops_the_catalog_without_waiting(data_copy: Path):
    (data_copy / "precisions.yml").unlink()
    os.mkfifo(data_copy / "precisions.yml")
    with ends_within(LIMIT_S), pytest.raises(CatalogError) as caught:
        site_data(data_copy)
    assert "precisions.yml: cannot be read: a named pipe, not a regular file with one name" in str(caught.value)


def project(tmp_path: Path) -> Path:
    for folder in ("docs/en", "overrides", "data", "translations"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "docs/en/index.md").write_text("# Home\n")
    return tmp_path


def hard_link(root: Path, path: str) -> None:
    secret = root.parent / "outside.txt"
    secret.write_text("a file from outside the project\n")
    os.link(secret, root / path)


# (how the file is made under the project, the words of its line)
FOREIGN_FILES = {
    "a hard link in docs/": (lambda root: hard_link(root, "docs/en/secret.md"), "docs/en/secret.md: a hard link"),
    "a hard link in translations/": (
        lambda root: hard_link(root, "translations/x.md"),
        "translations/x.md: a hard link",
    ),
    "a named pipe in data/": (lambda root: os.mkfifo(root / "data/gpus.yml"), "data/gpus.yml: a named pipe"),
    "a named pipe in overrides/": (lambda root: os.mkfifo(root / "overrides/main.html"), "main.html: a named pipe"),
}


@pytest.mark.parametrize("case", FOREIGN_FILES)
def test_a_file_that_is_not_the_projects_own_regular_file_stops_the_build_in_one_line(tmp_path: Path, case: str):
    make, words = FOREIGN_FILES[case]
    root = project(tmp_path / "project")
    make(root)
    with ends_within(LIMIT_S):
        (problem,) = project_file_problems(root)
    assert words in problem and problem.endswith(
        "(cp FILE FILE.copy && mv FILE.copy FILE)" if "hard link" in words else "replace it with a regular file"
    )


# --- a command line's budget, and messages a terminal can show -----------------------------------------------

SCENARIO = "- {gpu: l4, model: llama-3.1-8b}\n"
REQUIREMENT = (
    "- {model: llama-3.1-8b, prompt_tokens: 100, output_tokens: 100, users: 1, min_tokens_per_s_per_user: 1}\n"
)


@pytest.mark.parametrize(
    "command, record, most",
    [(estimate, SCENARIO, estimate.MAX_SCENARIOS), (plan, REQUIREMENT, plan.MAX_REQUIREMENTS)],
    ids=["estimate", "plan"],
)
def test_a_list_longer_than_a_run_answers_is_refused_before_any_record_is_read(
    tmp_path: Path, capsys, command, record, most
):
    path = tmp_path / "input.yml"
    path.write_text(record * (most + 1), encoding="utf-8")
    with ends_within(LIMIT_S * 5):
        assert command.main([str(path)]) == 2
    noun = command.NOUN
    assert capsys.readouterr().err == (
        f"error: {path}:{most + 1}: more than the {most:,} {noun}s one run answers (a bound that keeps a run within "
        f"about a minute); split the file, {most:,} {noun}s at most in each\n"
    )


# an id as a hostile file gives it, and how an error line quotes it
HOSTILE_IDS = {
    "escape sequences": ('"\\e[2J\\e[31mred"', "('\\x1b[2J\\x1b[31mred')"),
    "a bidirectional override": ('"\\u202Eevil"', "('\\u202eevil')"),
    "3,000 characters": ("x" * 3000, "('" + "x" * 79 + "…)"),
}


@pytest.mark.parametrize("case", HOSTILE_IDS)
def test_an_id_is_quoted_escaped_and_cut_in_an_error_line(tmp_path: Path, capsys, case: str):
    written, quoted = HOSTILE_IDS[case]
    path = tmp_path / "run.yml"
    path.write_text(f"- id: {written}\n  gpu: l4\n  model: no-such-model\n", encoding="utf-8")
    assert estimate.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert f"scenario 1 {quoted}" in err and "\x1b" not in err and "\u202e" not in err
    assert "x" * 81 not in err  # no value is quoted whole


def test_terminal_text_escapes_what_a_terminal_would_obey_and_cuts_the_rest():
    assert terminal_text("ok \x1b[2J\x07 \u202e\n") == "ok \\x1b[2J\\x07 \\u202e\\n"
    assert terminal_text("é" * 100) == "é" * 80 + "…"


@pytest.mark.parametrize("command", [estimate, plan], ids=["estimate", "plan"])
def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command):
    path = tmp_path / "input.yml"
    path.write_text(SCENARIO if command is estimate else REQUIREMENT, encoding="utf-8")
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| head` has read what it wanted and gone
    closed = open(write_end, "w", encoding="utf-8")  # noqa: SIM115  (closed below, after the command)
    monkeypatch.setattr("sys.stdout", closed)
    try:
        assert command.main([str(path), "--json"]) == CLOSED_PIPE_EXIT
    finally:
        closed.close()


@pytest.mark.parametrize("command", [estimate, plan], ids=["estimate", "plan"])
def test_help_says_json_errors_stay_plain_text_on_stderr(capsys, command):
    with pytest.raises(SystemExit):
        command.main(["--help"])
    assert "errors stay plain text on stderr" in " ".join(capsys.readouterr().out.split())
