"""A content-addressed cache on disk for results that are pure functions of their inputs (a parsed data file,
a drawn chart). An entry is named by a hash of everything it is made from, so it is never stale: a changed
input gets a new name, and an older entry is simply never read again.

The cache is ``.cache/`` at the project root, or ``$BUILD_CACHE_DIR``; set it empty to turn the cache off.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def content_key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))  # unambiguous: ("ab", "c") and ("a", "bc") differ
        digest.update(part)
    return digest.hexdigest()


def _entry(kind: str, key: str) -> Path | None:
    folder = os.environ.get("BUILD_CACHE_DIR")
    if folder == "":
        return None
    return (Path(folder) if folder else PROJECT_ROOT / ".cache") / kind / key


def read(kind: str, key: str) -> bytes | None:
    """The entry ``key`` of ``kind``, or None when there is none (or the cache is off)."""
    entry = _entry(kind, key)
    try:
        return entry.read_bytes() if entry is not None else None
    except FileNotFoundError:
        return None


def write(kind: str, key: str, data: bytes) -> None:
    """Store an entry atomically: a concurrent build reads the whole entry or none."""
    entry = _entry(kind, key)
    if entry is None:
        return
    entry.parent.mkdir(parents=True, exist_ok=True)
    partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(entry)
