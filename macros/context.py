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
_stats: dict[Path, tuple[tuple[str, int, int], ...]] = {}


def _stat(data_dir: Path) -> tuple[tuple[str, int, int], ...]:
    return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(data_dir.glob("*.yml")))


def build_data(data_dir: Path = DATA_DIR) -> BuildData:
    """The catalog of ``data_dir``, re-read only when a data file changed (so once per build, and
    again in ``mkdocs serve`` after an edit). Files are hashed only when their size or time changed."""
    key = data_dir.resolve()
    cached = _loaded.get(key)
    stat = _stat(key)
    if cached is not None and _stats.get(key) == stat:
        return cached
    _stats[key] = stat
    current = data_fingerprint(key)
    if cached is None or cached.fingerprint != current:
        from .library import forget_results
        if cached is not None:
            forget_results(cached.fingerprint)
        catalog = load_catalog(key)
        cached = _loaded[key] = BuildData(catalog, VerdictMatrix(catalog), current)
    return cached
