"""The data every page renders from: the catalog and its verdict matrix, loaded once per state of data/,
with what macros computed from them (``remembered``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sizing.catalog.fingerprint import DATA_DIR
from sizing.catalog.loader import Catalog, current_catalog
from sizing.views.matrix import VerdictMatrix

T = TypeVar("T")


@dataclass(frozen=True)
class SiteData:
    catalog: Catalog
    matrix: VerdictMatrix
    _results: dict[Hashable, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def remembered(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, computed once for this state of the data: a macro's output, a generated page."""
        if key not in self._results:
            self._results[key] = make()
        return self._results[key]  # type: ignore[return-value]

    def computed_nothing(self) -> bool:
        """True while nothing was computed from this state of the data: no build has rendered it yet."""
        return not self._results


_loaded: dict[Path, SiteData] = {}


def site_data(data_dir: Path = DATA_DIR) -> SiteData:
    """The catalog of ``data_dir`` (``current_catalog``: loaded again only when a data file changed, so once per
    build, and again in ``mkdocs serve`` after an edit), with a new matrix and new results when it is new.
    CatalogError when the data is invalid."""
    key = data_dir.resolve()
    catalog = current_catalog(key)
    loaded = _loaded.get(key)
    if loaded is None or loaded.catalog is not catalog:
        loaded = _loaded[key] = SiteData(catalog, VerdictMatrix(catalog))
    return loaded
