"""The static JSON API: the catalog and every verdict, as plain documents (ids stable across builds)."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Gpu, Interconnect, KvCacheDtype, Llm, ModelKind, Node, Workload
from sizing.catalog.units import GIB
from sizing.engine.deployment import Layout
from sizing.engine.fit import Verdict, card_budget, tight_setting
from sizing.views.matrix import VerdictMatrix, context_presets
from sizing.views.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, price_per_gpu_hour, warnings_for

SCHEMA_VERSION = 9  # 2: fit cells per hardware configuration, not per node; 3: typical and floor speeds, load, cost;
# 4: api/plan.json, the figures a plan is made of (speeds at a ladder of streams, times to first token)
# 5: api/plan.json per candidate of the plan (KV tokens per context, decode steps per streams × context, prompt times)
# 6: a plan's copy gives the room for the KV cache, one stream's cache and the most streams per context (kv_room)
# 7: a fit cell ends at its last field that holds something (the fields after it are null, the warnings none)
# 8: a context's cells are a list in the order of ``configurations`` (no configuration id beside every cell)
# 9: a cell says how the node runs the model (cards per copy, the setting a copy needs): its speeds are that layout's
NO_CONTEXT = "0"  # context key of image and video models, which have no context length


def speed_for_display(tokens_per_s: float) -> float:
    """Whole tokens from 10 up (an int: "37", not "37.0"), one decimal below: the value every page and the
    API show."""
    return round(tokens_per_s) if tokens_per_s >= 9.95 else round(tokens_per_s, 1)


def speed_fields(catalog: Catalog, layout: Layout | None, node: Node) -> list[Any]:
    """[cards per copy, typical, floor, streams, total, price per million tokens] of a cell as the node runs the
    model, the last three for the whole node (every copy at full load); nulls when nothing runs."""
    if layout is None:
        return [None, None, None, None, None, None]
    price = layout.price_per_million_tokens(node.price_per_month.amount, catalog.assumptions.hours_per_month.value)
    return [
        layout.cards,
        speed_for_display(layout.typical),
        speed_for_display(layout.floor),
        layout.streams,
        speed_for_display(layout.total),
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


ALWAYS_IN_A_CELL = 3  # verdict, cards and need_gib_per_card: the fields every cell holds


def cell_without_empty_tail(cell: list[Any]) -> list[Any]:
    """A cell ends at its last field that holds something: nulls and an empty warnings list after it are left
    out (a cell that does not fit is ``["no-fit", 8, 45.1]``)."""
    end = len(cell)
    while end > ALWAYS_IN_A_CELL and cell[end - 1] in (None, []):
        end -= 1
    return cell[:end]


def context_keys(catalog: Catalog, model_id: str) -> list[str]:
    model = catalog.models[model_id]
    return [str(c) for c in context_presets(catalog, model)] if isinstance(model, Llm) else [NO_CONTEXT]


def fit_document(catalog: Catalog, matrix: VerdictMatrix) -> dict[str, Any]:
    """Every model × precision × context preset × hardware configuration: ``api/fit.json``.

    A cell is ``[verdict, cards, need_gib_per_card, jobs, cards_per_copy, typical, floor, streams, total,
    usd_per_million_tokens, tight_setting, longest_context_tokens, copy_setting, warnings]``: the verdict on the
    fewest cards that hold the model, and for a ``tight`` one the engine option it needs (``--gpu-memory-utilization
    0.95``, ``--kv-cache-dtype fp8``) or the longest context that fits at the default setting; jobs an image or video
    model runs at once; for a language model, how the node runs it (``sizing.engine.deployment``): the cards each
    copy uses, the typical and floor tokens per second of one stream, the streams the node serves at once at the
    context (every copy), their typical total tokens per second, what a million output tokens cost at that load on
    the configuration's cheapest node, and the option a copy needs; null where it does not apply or the model does
    not fit. A cell
    ends at its last field that holds something (``cell_without_empty_tail``).
    A context's cells are a list, one per configuration in the order of the document's ``configurations``
    (``catalog.json`` maps every node to its configuration): the nodes of one configuration share every figure
    but the price."""
    models: dict[str, Any] = {}
    for model in catalog.models.values():
        per_precision: dict[str, Any] = {}
        for precision in catalog.precisions_for(model):
            per_context: dict[str, Any] = {}
            for key in context_keys(catalog, model.id):
                context = None if key == NO_CONTEXT else int(key)
                cells: list[list[Any]] = []
                for configuration in catalog.configurations.values():
                    node = configuration.cheapest
                    cell = matrix.cell(model.id, precision.id, node.id, context)
                    fit = cell.fit
                    jobs = node.cards // fit.cards if fit.fits and not isinstance(model, Llm) else None
                    cells.append(
                        cell_without_empty_tail(
                            [
                                fit.verdict.value,
                                fit.cards,
                                round(fit.need.total / GIB, 1),
                                jobs,
                                *speed_fields(catalog, cell.layout, node),
                                tight_setting(catalog, fit),
                                fit.longest_context_tokens if fit.verdict is Verdict.TIGHT else None,
                                None if cell.layout is None else tight_setting(catalog, cell.layout.fit),
                                list(warnings_for(catalog, precision.id, node, cell)),
                            ]
                        )
                    )
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
        "configurations": list(catalog.configurations),
        "cell": [
            "verdict",
            "cards",
            "need_gib_per_card",
            "jobs",
            "cards_per_copy",
            "tokens_per_s_typical",
            "tokens_per_s_floor",
            "streams_that_fit",
            "tokens_per_s_total",
            "usd_per_million_tokens",
            "tight_setting",
            "longest_context_tokens",
            "copy_setting",
            "warnings",
        ],
        "models": models,
    }


# --- JSON Schemas of the API documents --------------------------------------------------------------------
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# A fit cell's fields, in the order fit_document writes them, with the JSON Schema of each.
CELL_SCHEMA: dict[str, dict[str, Any]] = {
    "verdict": {"enum": [verdict.value for verdict in Verdict]},
    "cards": {"type": "integer", "minimum": 1},
    "need_gib_per_card": {"type": "number", "minimum": 0},
    "jobs": {"type": ["integer", "null"], "minimum": 1},
    "cards_per_copy": {"type": ["integer", "null"], "minimum": 1},
    "tokens_per_s_typical": {"type": ["number", "null"], "minimum": 0},
    "tokens_per_s_floor": {"type": ["number", "null"], "minimum": 0},
    "streams_that_fit": {"type": ["integer", "null"], "minimum": 0},
    "tokens_per_s_total": {"type": ["number", "null"], "minimum": 0},
    "usd_per_million_tokens": {"type": ["number", "null"], "minimum": 0},
    "tight_setting": {"type": ["string", "null"]},
    "longest_context_tokens": {"type": ["integer", "null"], "minimum": 1},
    "copy_setting": {"type": ["string", "null"]},
    "warnings": {"type": "array", "items": {"enum": [FP8_NOT_NATIVE, SPLIT_OVER_PCIE]}, "uniqueItems": True},
}


def _every_field_required(schema: dict[str, Any]) -> dict[str, Any]:
    """A record as ``model_dump`` writes it: every field present (null when unset), none other."""
    if "properties" in schema:
        schema["required"] = list(schema["properties"])
        schema["additionalProperties"] = False
    return schema


def record_schema(
    model: type[BaseModel], exclude: tuple[str, ...] = (), added: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(schema, definitions) of a catalog record as ``model_dump`` writes it into a document, without the
    ``exclude`` fields and with the ``added`` ones."""
    schema = model.model_json_schema(mode="serialization")
    definitions = {name: _every_field_required(d) for name, d in schema.pop("$defs", {}).items()}
    for name in exclude:
        del schema["properties"][name]
    schema["properties"].update(added or {})
    return _every_field_required(schema), definitions


def _document(title: str, properties: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": title,
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
        "$defs": definitions,
    }


def catalog_schema() -> dict[str, Any]:
    """The JSON Schema of ``api/catalog.json``."""
    gpu, gpu_defs = record_schema(Gpu, exclude=("sources", "verified"))
    link, link_defs = record_schema(Interconnect, exclude=("sources",))
    node, node_defs = record_schema(
        Node,
        added={
            "configuration": {"type": "string"},
            "price_per_gpu_hour": {"type": "number", "minimum": 0},
            "budget_gib_per_card": {"type": "number"},
        },
    )
    configuration = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "nodes": {"type": "array", "items": {"type": "string"}}},
        "required": ["id", "nodes"],
        "additionalProperties": False,
    }
    properties = {
        "schema_version": {"const": SCHEMA_VERSION},
        "prices_as_of": {"type": "string", "format": "date"},
        "gpus": {"type": "array", "items": {"$ref": "#/$defs/gpu"}},
        "interconnects": {"type": "array", "items": {"$ref": "#/$defs/interconnect"}},
        "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        "configurations": {"type": "array", "items": {"$ref": "#/$defs/configuration"}},
    }
    definitions = {**gpu_defs, **link_defs, **node_defs}
    definitions |= {"gpu": gpu, "interconnect": link, "node": node, "configuration": configuration}
    return _document("api/catalog.json", properties, definitions)


def _fit_properties() -> tuple[dict[str, Any], dict[str, Any]]:
    """What api/fit.json and every api/fit/<model>.json share, and the schemas of a model and of a cell."""
    workload, workload_defs = record_schema(Workload)
    cell = {
        "type": "array",
        "prefixItems": [{"title": name, **schema} for name, schema in CELL_SCHEMA.items()],
        "items": False,
        "minItems": ALWAYS_IN_A_CELL,
    }
    # "x-key" names what a mapping's keys are (an annotation: validators ignore it; the reference page shows it)
    # a context's cells: one per configuration, in the order of the document's "configurations"
    by_configuration = {"type": "array", "x-items": "configuration", "items": {"$ref": "#/$defs/cell"}}
    by_context = {
        "type": "object",
        "x-key": "context",
        "propertyNames": {"pattern": "^[0-9]+$"},
        "additionalProperties": by_configuration,
    }
    model = {
        "name": {"type": "string"},
        "kind": {"enum": list(typing.get_args(ModelKind))},
        "params": {"type": "integer", "minimum": 1},
        "active_params": {"type": ["integer", "null"], "minimum": 1},
        "default_precision": {"type": "string"},
        "workload": {"anyOf": [{"$ref": "#/$defs/workload"}, {"type": "null"}]},
        "fits": {"type": "object", "x-key": "precision", "additionalProperties": by_context},
    }
    shared = {
        "schema_version": {"const": SCHEMA_VERSION},
        "prices_as_of": {"type": "string", "format": "date"},
        "default_context": {"type": "string", "pattern": "^[0-9]+$"},
        "kv_cache_dtype": {"enum": list(typing.get_args(KvCacheDtype))},
        "configurations": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "cell": {"const": list(CELL_SCHEMA)},
    }
    definitions = {**workload_defs, "workload": workload, "cell": cell}
    return shared, {"model": model, **definitions}


def fit_schema() -> dict[str, Any]:
    """The JSON Schema of ``api/fit.json``: every model."""
    shared, definitions = _fit_properties()
    model = definitions.pop("model")
    definitions["model"] = {
        "type": "object",
        "properties": model,
        "required": list(model),
        "additionalProperties": False,
    }
    return _document(
        "api/fit.json",
        {**shared, "models": {"type": "object", "x-key": "model", "additionalProperties": {"$ref": "#/$defs/model"}}},
        definitions,
    )


def fit_model_schema() -> dict[str, Any]:
    """The JSON Schema of each ``api/fit/<model>.json``: one model, its fields beside the shared ones."""
    shared, definitions = _fit_properties()
    model = definitions.pop("model")
    return _document("api/fit/<model>.json", {**shared, "model": {"type": "string"}, **model}, definitions)


def api_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of each API document, by the path the build writes it to, beside the documents."""
    return {
        "api/catalog.schema.json": catalog_schema(),
        "api/fit.schema.json": fit_schema(),
        "api/fit-model.schema.json": fit_model_schema(),
    }
