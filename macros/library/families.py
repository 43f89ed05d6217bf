"""Every family of macros, registered: what a page may call (``registry.bound_macro``)."""

from __future__ import annotations

from macros.library import (  # noqa: F401 - importing a family registers its macros
    api_reference,
    cards_and_nodes,
    catalog_figures,
    charts,
    claims,
    comparison_tables,
    configurator,
    cost_figures,
    guide_pages,
    link_figures,
    model_figures,
    plan_pages,
    plan_tables,
    reference,
    speed_accuracy,
    speed_records,
    translators,
    ttft_accuracy,
)
from macros.library.registry import MACROS, bound_macro

__all__ = ["MACROS", "bound_macro"]
