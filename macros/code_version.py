"""A hash of the code that makes the site: what every entry of the build cache that holds rendered text is
keyed by, besides its own inputs (see ``sizing.disk_cache``)."""
from __future__ import annotations

import hashlib
import sys
from functools import cache
from importlib.metadata import version
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CODE_FOLDERS = ("macros", "sizing")
PACKAGES = ("jinja2", "markupsafe", "babel", "pydantic", "pyyaml")


@cache
def code_version() -> bytes:
    """A hash of the pipeline's code, templates and tables, and of the packages it uses. Taken once per process,
    like the modules and templates it describes (which `mkdocs serve` does not reload either): an entry is
    never keyed by code other than the code that made it."""
    digest = hashlib.sha256(sys.version.encode())
    for name in CODE_FOLDERS:
        for path in sorted((PROJECT_ROOT / name).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(PROJECT_ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    for package in PACKAGES:
        digest.update(f"{package} {version(package)}\0".encode())
    return digest.digest()
