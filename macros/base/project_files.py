"""Only the project's own files are read and published: under the folders the site is made of, no symlink, no
hard link (a file with another name outside the project), no named pipe, socket or device (a reader would wait
or never end); every page read as UTF-8 (with or without a byte-order mark), a bad byte named by its file and
line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from macros.base.errors import PageError
from sizing.catalog.errors import terminal_text
from sizing.catalog.regular_files import foreign_kind, refusal
from sizing.catalog.yaml_lines import DataFileError, read_text_file

SOURCE_FOLDERS = ("docs", "overrides", "data", "translations")  # what the site is built from
TEXT_SUFFIXES = frozenset({".md", ".yml", ".yaml", ".html", ".css", ".js", ".json", ".svg", ".txt"})


def foreign_files_under(folder: Path) -> list[str]:
    """One line for each file below ``folder`` that is not a folder nor a regular file with one name: a symlink
    (to a file or a folder, broken or not; never followed), a hard link, a named pipe, a socket, a device."""
    problems = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted([*dirs, *files]):
            path = Path(root, name)
            info = os.lstat(path)
            kind = None if stat.S_ISDIR(info.st_mode) else foreign_kind(info)
            if kind == "a symlink":
                problems.append(
                    f"{path}: a symlink (to {terminal_text(os.readlink(path))}); the site publishes only the "
                    "project's own files: copy the file in, or remove the link"
                )
            elif kind:
                problems.append(f"{path}: {refusal(kind)}")
    return problems


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
    """One line per file under the folders the site is built from that is not the project's own regular file
    (``foreign_files_under``), then one per undecodable text file."""
    problems = []
    for name in SOURCE_FOLDERS:
        folder = root / name
        if folder.is_symlink():
            problems.append(f"{folder}: a symlink; the site is built from the project's own files only")
            continue
        foreign = foreign_files_under(folder)
        problems += foreign or undecodable_text_files(folder)  # a pipe or a device is never read
    return problems


class ProjectFileError(Exception):
    """Files under the site's sources that the build refuses; one line each."""


def check_project_files(root: Path) -> None:
    """ProjectFileError listing every file under ``root``'s source folders that is not a regular file of its own
    (a symlink, a hard link, a pipe, a device) or not UTF-8 text."""
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
