"""Only regular files with one name are read: a named pipe blocks its reader, a device (/dev/zero) never ends, a
hard link is a file of somewhere else too (a symlink to one: under the site's folders, the project-file check
refuses the link itself). A file's kind is checked before it is opened, and again on the open file (opened
without waiting, so that a pipe swapped in meanwhile cannot block either)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_FILE_BYTES = 4_000_000  # ten times the largest data file a catalog of 4,100 nodes needs


class ForeignFile(ValueError):
    """A file that is not a regular file with one name; the message says what it is and what to do."""


def foreign_kind(info: os.stat_result) -> str | None:
    """What a file is, in words, when it is not a regular file with one name; None when it is one."""
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return None if info.st_nlink == 1 else f"a hard link (one of {info.st_nlink} names of one file)"
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((word for test, word in kinds if test(mode)), "a special file")


def refusal(kind: str) -> str:
    """The message for a file of ``kind`` (``foreign_kind``), after its path: what it is and what to do."""
    if kind.startswith("a hard link"):
        remedy = "give it a copy of its own (cp FILE FILE.copy && mv FILE.copy FILE)"
    else:
        remedy = "replace it with a regular file"
    return f"{kind}, not a regular file with one name: only those are read; {remedy}"


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` (a symlink is followed): a regular file with one name of at most ``max_bytes``;
    ForeignFile otherwise, or ValueError for its size (OSError when it cannot be opened)."""
    kind = foreign_kind(os.stat(path))
    if kind:
        raise ForeignFile(refusal(kind))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        kind = foreign_kind(info)
        if kind:
            raise ForeignFile(refusal(kind))
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        size = max(info.st_size, len(data))
        raise ValueError(f"is {size:,} bytes, more than the {max_bytes:,} a file read here may hold")
    return data
