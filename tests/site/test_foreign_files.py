"""What only a build shows of issue 26: the hook stops a build at once when a file under docs/, overrides/
or data/ is a symlink or is not UTF-8, in one line naming it, and the live site stays as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_PAGES
from sitebuild import build, copy_project


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("foreign") / "project")


def build_broken(template: Path, tmp_path: Path, breaks) -> str:
    project = tmp_path / "project"
    shutil.copytree(template, project, symlinks=True)
    breaks(project)
    live = tmp_path / "site"
    live.mkdir()
    (live / "index.html").write_text("the live site")
    result = build(project, live, environ={**os.environ, **SAMPLE_PAGES})
    assert result.returncode != 0
    assert [p.name for p in live.iterdir()] == ["index.html"] and (live / "index.html").read_text() == "the live site"
    return result.stdout + result.stderr


def test_a_symlink_to_etc_passwd_under_docs_stops_the_build(template: Path, tmp_path: Path):
    def link(project: Path) -> None:
        (project / "docs/en/assets").mkdir(exist_ok=True)
        (project / "docs/en/assets/passwd.txt").symlink_to("/etc/passwd")

    message = build_broken(template, tmp_path, link)
    assert (
        "docs/en/assets/passwd.txt: a symlink (to /etc/passwd); the site publishes only the project's own files: "
        "copy the file in, or remove the link"
    ) in message
    assert "root:" not in message


def test_an_invalid_byte_in_a_french_page_is_named_with_its_line(template: Path, tmp_path: Path):
    def latin1(project: Path) -> None:
        page = project / "docs/fr/index.md"
        lines = page.read_bytes().split(b"\n")
        lines[5] += b" \xe9"
        page.write_bytes(b"\n".join(lines))

    assert "docs/fr/index.md:6: byte 0xe9 is not UTF-8; save the file as UTF-8" in build_broken(
        template, tmp_path, latin1
    )
