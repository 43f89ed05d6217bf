"""Where the data lives and a hash of it: light enough to take before anything else is imported."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sizing.catalog.regular_files import MAX_FILE_BYTES

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

_known: dict[Path, tuple[tuple[tuple[str, int, int], ...], str]] = {}


def data_fingerprint(data_dir: Path = DATA_DIR) -> str:
    """Changes whenever a data file's content changes. The files are hashed again only when one was added or
    removed or changed size or time (so once per build, and again in ``mkdocs serve`` after an edit)."""
    folder = data_dir.resolve()
    files = sorted(path for path in folder.glob("*.yml") if path.is_file())  # a folder: load_catalog says so
    signature = tuple((path.name, path.stat().st_mtime_ns, path.stat().st_size) for path in files)
    known = _known.get(folder)
    if known is not None and known[0] == signature:
        return known[1]
    digest = hashlib.sha256()
    for (name, _, size), path in zip(signature, files, strict=True):
        digest.update(name.encode())
        # a file too large is hashed by its size (load_catalog refuses it): never read whole
        digest.update(path.read_bytes() if size <= MAX_FILE_BYTES else str(size).encode())
    _known[folder] = (signature, digest.hexdigest())
    return digest.hexdigest()
