"""Where the data lives and a hash of it: light enough to take before anything else is imported."""
from __future__ import annotations

import hashlib
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def data_fingerprint(data_dir: Path = DATA_DIR) -> str:
    """Changes whenever a data file's content changes."""
    digest = hashlib.sha256()
    for path in sorted(data_dir.glob("*.yml")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
