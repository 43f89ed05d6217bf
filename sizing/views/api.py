"""The static JSON API: the catalog and every verdict, as plain documents (ids stable across builds)."""

from __future__ import annotations

from typing import Any

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm, Node
from sizing.catalog.units import GIB
from sizing.engine.fit import Verdict, card_budget, tight_setting
from sizing.engine.speeds import Speed
from sizing.views.matrix import VerdictMatrix, context_presets
from sizing.views.offers import price_per_gpu_hour, warnings_for

SCHEMA_VERSION = 3  # 2: fit cells per hardware configuration, not per node; 3: typical and floor speeds, load, cost
NO_CONTEXT = "0"  # context key of image and video models, which have no context length


def speed_for_display(tokens_per_s: float) -> float:
    """Whole tokens from 10 up (an int: "37", not "37.0"), one decimal below: the value every page and the
    API show."""
    return round(tokens_per_s) if tokens_per_s >= 9.95 else round(tokens_per_s, 1)


def speed_fields(catalog: Catalog, speed: Speed | None, node: Node) -> list[Any]:
    """[typical, floor, streams, total, price per million tokens] of a cell, the last three for the whole
    node (every copy of the model it holds at full load); nulls when nothing runs."""
    if speed is None:
        return [None, None, None, None, None]
    price = speed.price_per_million_tokens(catalog, node)
    return [
        speed_for_display(speed.typical),
        speed_for_display(speed.floor),
        speed.streams_on(node),
        speed_for_display(speed.total_on(node)),
        None if price is None else round(price, 2),
    ]


def catalog_document(catalog: Catalog) -> dict[str, Any]:
    """GPUs, links and nodes with prices: ``api/catalog.json``."""
    return {
        "schema_version": SCHEMA_VERSION,
        "prices_as_of": catalog.prices_as_of.isoformat(),
        "gpus": [g.model_dump(exclude={"sources", "verified"}) for g in catalog.gpus.values()],
        "interconnects": [i.model_dump(exclude={"sources"}) for i in catalog.interconnects.values()],
        "nodes": [
            {
                **n.model_dump(),
                "configuration": catalog.configuration_of(n).id,
                "price_per_gpu_hour": round(price_per_gpu_hour(catalog, n), 4),
                "budget_gib_per_card": round(card_budget(catalog, catalog.gpu_of(n)) / GIB, 2),
            }
            for n in catalog.nodes.values()
        ],
        "configurations": [{"id": c.id, "nodes": [n.id for n in c.nodes]} for c in catalog.configurations.values()],
    }


def context_keys(catalog: Catalog, model_id: str) -> list[str]:
    model = catalog.models[model_id]
    return [str(c) for c in context_presets(catalog, model)] if isinstance(model, Llm) else [NO_CONTEXT]


def fit_document(catalog: Catalog, matrix: VerdictMatrix) -> dict[str, Any]:
    """Every model × precision × context preset × hardware configuration: ``api/fit.json``.

    A cell is ``[verdict, cards, need_gib_per_card, jobs, typical, floor, streams, total, usd_per_million_tokens,
    tight_setting, longest_context_tokens, warnings]``: for a ``tight`` verdict, the engine option it needs
    (``--gpu-memory-utilization 0.95``) or the longest context that fits at the default setting; jobs an image
    or video model runs at once; for a language model, the typical and floor
    tokens per second of one stream; the streams the node serves at once at the context (every copy of the
    model it holds), their typical total tokens per second and what a million output tokens cost at that load
    on the configuration's cheapest node; null where it does not apply or the model does not fit.
    Cells are keyed by configuration id (``catalog.json`` maps every node to its configuration): the
    nodes of one configuration share every figure but the price."""
    models: dict[str, Any] = {}
    for model in catalog.models.values():
        per_precision: dict[str, Any] = {}
        for precision in catalog.precisions_for(model):
            per_context: dict[str, Any] = {}
            for key in context_keys(catalog, model.id):
                context = None if key == NO_CONTEXT else int(key)
                cells: dict[str, list[Any]] = {}
                for configuration in catalog.configurations.values():
                    node = configuration.cheapest
                    cell = matrix.cell(model.id, precision.id, node.id, context)
                    fit = cell.fit
                    jobs = node.cards // fit.cards if fit.fits and not isinstance(model, Llm) else None
                    cells[configuration.id] = [
                        fit.verdict.value,
                        fit.cards,
                        round(fit.need.total / GIB, 1),
                        jobs,
                        *speed_fields(catalog, cell.speed, node),
                        tight_setting(catalog, fit),
                        fit.longest_context_tokens if fit.verdict is Verdict.TIGHT else None,
                        list(warnings_for(catalog, model, precision.id, node, fit)),
                    ]
                per_context[key] = cells
            per_precision[precision.id] = per_context
        models[model.id] = {
            "name": model.name,
            "kind": model.kind,
            "params": model.params,
            "active_params": getattr(model, "active_params", None),
            "default_precision": model.default_precision,
            "workload": None if isinstance(model, Llm) else model.workload.model_dump(),
            "fits": per_precision,
        }
    return {
        "schema_version": SCHEMA_VERSION,
        "prices_as_of": catalog.prices_as_of.isoformat(),
        "default_context": str(catalog.assumptions.default_context_tokens.value),
        "kv_cache_dtype": matrix.kv_cache_dtype,
        "cell": [
            "verdict",
            "cards",
            "need_gib_per_card",
            "jobs",
            "tokens_per_s_typical",
            "tokens_per_s_floor",
            "streams_that_fit",
            "tokens_per_s_total",
            "usd_per_million_tokens",
            "tight_setting",
            "longest_context_tokens",
            "warnings",
        ],
        "models": models,
    }
