"""A content-addressed cache on disk for results that are pure functions of their inputs (a parsed data file,
a drawn chart, a processed page). An entry is named by a hash of everything it is made from, so it is never
stale: a changed input gets a new name, and an older entry is simply never read again; ``prune`` deletes
entries no build has used for a month.

The cache is ``.cache/`` at the project root, or ``$BUILD_CACHE_DIR``; set it empty to turn the cache off.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
UNUSED_DAYS = 30           # an entry no build read or wrote for this long is deleted
PRUNE_EVERY_HOURS = 24     # how often a build looks for such entries
_PRUNED_STAMP = "last-pruned"


def content_key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))  # unambiguous: ("ab", "c") and ("a", "bc") differ
        digest.update(part)
    return digest.hexdigest()


def folder() -> Path | None:
    """Where the cache lives; None when it is turned off."""
    setting = os.environ.get("BUILD_CACHE_DIR")
    if setting == "":
        return None
    return Path(setting) if setting else PROJECT_ROOT / ".cache"


def _entry(kind: str, key: str) -> Path | None:
    root = folder()
    return root / kind / key if root is not None else None


def read(kind: str, key: str) -> bytes | None:
    """The entry ``key`` of ``kind``, or None when there is none (or the cache is off). Reading an entry
    marks it as used, so that ``prune`` keeps it."""
    entry = _entry(kind, key)
    try:
        data = entry.read_bytes() if entry is not None else None
    except FileNotFoundError:
        return None
    if entry is not None:
        try:
            os.utime(entry)
        except OSError:  # a cache shared read-only: still readable, just never pruned by this build
            pass
    return data


def exists(kind: str, key: str) -> bool:
    """Whether the entry ``key`` of ``kind`` is there (without reading it, or marking it as used)."""
    entry = _entry(kind, key)
    return entry is not None and entry.is_file()


def write(kind: str, key: str, data: bytes) -> None:
    """Store an entry atomically: a concurrent build reads the whole entry or none."""
    entry = _entry(kind, key)
    if entry is None:
        return
    entry.parent.mkdir(parents=True, exist_ok=True)
    partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    partial.write_bytes(data)
    partial.replace(entry)


def prune(now: float | None = None) -> int:
    """Delete the entries no build has read or written for ``UNUSED_DAYS`` (and partial writes left by a
    killed build, after an hour); looks at most once every ``PRUNE_EVERY_HOURS``. Returns how many were deleted."""
    root = folder()
    if root is None or not root.is_dir():
        return 0
    now = time.time() if now is None else now
    stamp = root / _PRUNED_STAMP
    if stamp.exists() and now - stamp.stat().st_mtime < PRUNE_EVERY_HOURS * 3600:
        return 0
    deleted = 0
    for entry in root.glob("*/*"):
        unused_for = now - entry.stat().st_mtime
        if unused_for > (3600 if entry.name.endswith(".tmp") else UNUSED_DAYS * 86400):
            entry.unlink(missing_ok=True)
            deleted += 1
    stamp.touch()
    os.utime(stamp, (now, now))
    return deleted
