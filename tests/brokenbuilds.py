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


# case: (the file or folder it breaks, relative to the project; how)
BREAKS: dict[str, tuple[str, Callable[[Path], None]]] = {
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
    "a symlink to /etc/passwd under docs/": (".", link_to_passwd),
    "a byte that is not UTF-8 in a French page": ("docs/fr/index.md", latin1_byte_on_line_6),
}


@dataclass(frozen=True)
class BrokenBuild:
    project: Path  # the broken copy
    live: Path  # the site the build was asked to replace
    result: subprocess.CompletedProcess[str]

    @property
    def printed(self) -> str:
        return self.result.stdout + self.result.stderr


def broken_builds(folder: Path, environ: Mapping[str, str]) -> dict[str, BrokenBuild]:
    """Each case of BREAKS: a copy of the project broken so, built in ``environ`` into a folder holding a live
    site."""
    template = copy_project(folder / "template")
    builds = {}
    for number, (case, (target, breaks)) in enumerate(BREAKS.items()):
        project, live = folder / f"case-{number}" / "project", folder / f"case-{number}" / "site"
        shutil.copytree(template, project, symlinks=True)
        breaks(project / target)
        live.mkdir()
        (live / "index.html").write_text(LIVE_PAGE)
        builds[case] = BrokenBuild(project, live, build(project, live, environ=environ))
    return builds
