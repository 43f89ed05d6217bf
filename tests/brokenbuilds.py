"""Builds of a broken copy of the project, over a live site they must leave as it was: each case breaks one file.
The site tests read them (tests/site/test_bad_inputs.py: one case per event of the build that can refuse;
tests/site/test_foreign_files.py: files the build must not publish). They are made once, one after the other, in
the background with the session's other builds (conftest.SessionBuilds): each is a `make build` that must fail."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sitebuild import build, copy_project, edit

LIVE_PAGE = "the live site"  # the home page of the site a broken build must leave alone


def empty_folder(path: Path) -> None:
    shutil.rmtree(path)
    path.mkdir()


def link_to_passwd(project: Path) -> None:
    (project / "docs/en/assets").mkdir(exist_ok=True)
    (project / "docs/en/assets/passwd.txt").symlink_to("/etc/passwd")


def latin1_byte_on_line_6(page: Path) -> None:
    lines = page.read_bytes().split(b"\n")
    lines[5] += b" \xe9"
    page.write_bytes(b"\n".join(lines))


Break = tuple[str, Callable[[Path], None]]  # the file or folder it breaks, relative to the project; how

# one case per event of the build that can refuse (tests/site/test_bad_inputs.py)
BAD_INPUTS: dict[str, Break] = {
    "mkdocs.yml that MkDocs cannot read": ("mkdocs.yml", lambda path: edit(path, "strict: true", "strict: [true")),
    "data the catalog refuses (on_config)": (
        "data/gpus.yml",
        lambda path: edit(path, "memory_gb: 141", "memory_gb: lots"),
    ),
    "a language folder without a page (on_files)": ("docs/zh", empty_folder),
    "a page refused in the last language built (on_page_markdown)": (
        "docs/zh/guides/mixture-of-experts.md",
        lambda path: edit(path, 'params("deepseek-v3")', 'params("deepseek-v4")'),
    ),
}
# files the build must not publish (tests/site/test_foreign_files.py)
FOREIGN_FILES: dict[str, Break] = {
    "a symlink to /etc/passwd under docs/": (".", link_to_passwd),
    "a byte that is not UTF-8 in a French page": ("docs/fr/index.md", latin1_byte_on_line_6),
}
BREAKS = {**BAD_INPUTS, **FOREIGN_FILES}


@dataclass(frozen=True)
class BrokenBuild:
    project: Path  # the broken copy
    live: Path  # the site the build was asked to replace
    result: subprocess.CompletedProcess[str]

    @property
    def printed(self) -> str:
        return self.result.stdout + self.result.stderr


class BrokenBuilds(dict[str, "BrokenBuild | Exception"]):
    """The broken build of each case; reading a case whose copy could not be broken or built raises its error, in
    the test that reads it alone."""

    def __getitem__(self, case: str) -> BrokenBuild:
        made = super().__getitem__(case)
        if isinstance(made, Exception):
            raise made
        return made


def broken_build(
    template: Path, folder: Path, target: str, breaks: Callable[[Path], None], environ: Mapping[str, str]
) -> BrokenBuild:
    """A copy of ``template`` broken at ``target``, built in ``environ`` into a folder holding a live site."""
    project, live = folder / "project", folder / "site"
    shutil.copytree(template, project, symlinks=True)
    breaks(project / target)
    live.mkdir()
    (live / "index.html").write_text(LIVE_PAGE)
    return BrokenBuild(project, live, build(project, live, environ=environ))


def broken_builds(folder: Path, environ: Mapping[str, str]) -> BrokenBuilds:
    """Each case of BREAKS, in a folder of its own."""
    template = copy_project(folder / "template")
    builds = BrokenBuilds()
    for number, (case, (target, breaks)) in enumerate(BREAKS.items()):
        try:
            builds[case] = broken_build(template, folder / f"case-{number}", target, breaks, environ)
        except Exception as error:
            builds[case] = error
    return builds
