"""Only the project's own files are read and published: no symlink under the folders the site is made of,
every page read as UTF-8 (with or without a byte-order mark), a bad byte named by its file and line."""

from __future__ import annotations

import os
from pathlib import Path

from macros.base.errors import PageError
from sizing.catalog.yaml_lines import DataFileError, read_text_file

SOURCE_FOLDERS = ("docs", "overrides", "data")  # what the site is built from
TEXT_SUFFIXES = frozenset({".md", ".yml", ".yaml", ".html", ".css", ".js", ".json", ".svg", ".txt"})


def symlinks_under(folder: Path) -> list[Path]:
    """Every symlink below ``folder`` (to a file or a folder, broken or not), never followed."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in [*dirs, *files]:
            if os.path.islink(os.path.join(root, name)):
                found.append(Path(root, name))
    return sorted(found)


def undecodable_text_files(folder: Path) -> list[str]:
    """``path:line: problem`` for each text file below ``folder`` that is not UTF-8 (a BOM is allowed)."""
    problems = []
    for path in sorted(p for p in folder.rglob("*") if p.suffix in TEXT_SUFFIXES and p.is_file()):
        try:
            read_text_file(path)
        except DataFileError as exc:
            problems.append(f"{path}:{exc.line}: {exc.reason}")
    return problems


def project_file_problems(root: Path) -> list[str]:
    """One line per symlink or undecodable text file under the folders the site is built from."""
    problems = []
    for name in SOURCE_FOLDERS:
        folder = root / name
        if folder.is_symlink():
            problems.append(f"{folder}: a symlink; the site is built from the project's own files only")
            continue
        for link in symlinks_under(folder):
            problems.append(
                f"{link}: a symlink (to {os.readlink(link)}); the site publishes only the project's own files: "
                "copy the file in, or remove the link"
            )
        problems += undecodable_text_files(folder)
    return problems


class ProjectFileError(Exception):
    """Files under the site's sources that the build refuses; one line each."""


def check_project_files(root: Path) -> None:
    """ProjectFileError listing every symlink or undecodable text file under ``root``'s source folders."""
    problems = project_file_problems(root)
    if problems:
        raise ProjectFileError("\n".join(problems))


def read_page(path: Path, shown: str) -> str:
    """A page's text (``shown``: its name in messages, docs/<lang>/<page>.md), read as UTF-8 with or without
    a BOM; a PageError naming the line of a byte that is not UTF-8."""
    try:
        return read_text_file(path)
    except DataFileError as exc:
        raise PageError(shown, exc.line, exc.reason) from None
