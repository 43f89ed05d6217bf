"""The data every page renders from: the catalog and its verdict matrix, loaded once per data state."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sizing.catalog import Catalog, load_catalog
from sizing.fingerprint import DATA_DIR, data_fingerprint
from sizing.matrix import VerdictMatrix


@dataclass(frozen=True)
class BuildData:
    catalog: Catalog
    matrix: VerdictMatrix
    fingerprint: str


_loaded: dict[Path, BuildData] = {}


def build_data(data_dir: Path = DATA_DIR) -> BuildData:
    """The catalog of ``data_dir``, loaded again only when a data file changed (so once per build, and
    again in ``mkdocs serve`` after an edit)."""
    key = data_dir.resolve()
    cached = _loaded.get(key)
    current = data_fingerprint(key)
    if cached is None or cached.fingerprint != current:
        from .library import forget_results
        if cached is not None:
            forget_results(cached.fingerprint)
        catalog = load_catalog(key)
        cached = _loaded[key] = BuildData(catalog, VerdictMatrix(catalog), current)
    return cached
