"""What the build's own process needs of the data besides the rendered pages: the models (the configurator's
generated pages) and the reading rates (reading times). Kept in the build cache (``build_cache``), so a build
whose data the cache has seen neither imports the catalog's code nor loads it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .reading import reading_rates

if TYPE_CHECKING:
    from .context import BuildData


@dataclass(frozen=True)
class SiteFacts:
    fingerprint: str               # of the data they come from (sizing.fingerprint)
    models: dict[str, str]         # id -> name, in the catalog's order
    reading_rates: dict[str, int]  # see reading.reading_rates


def facts_of(data: BuildData) -> SiteFacts:
    return SiteFacts(data.fingerprint, {model_id: model.name for model_id, model in data.catalog.models.items()},
                     reading_rates(data.catalog))
