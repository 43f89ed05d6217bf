"""``api/plan.json`` and ``api/plan/<model>.json``: the figures a plan is made of (``sizing.views.plan_figures``,
computed by ``sizing.views.plan_tabulate``), for a reader (or the Plan page's script) to plan from as
``python -m sizing.plan`` does.

``api/plan.json`` holds what every plan shares; each model's file, every candidate of the plan (configuration ×
format × cards per copy × KV-cache precision) pointing to one *copy*, whose figures are listed in the order of
``copy`` (``api/plan.json``): the room for the KV cache at a ladder of contexts, the contexts where the cache goes
to FP8, the decode step's milliseconds, the index of its prompt row, one step's fixed cost, the server's cost per
request, the tokens one step batches and the dense peak of its cards."""

from __future__ import annotations

from typing import Any

from sizing.catalog.loader import Catalog
from sizing.engine.load import TAIL_PERCENTILE
from sizing.views.api import SCHEMA_VERSION, _document
from sizing.views.plan_figures import CopyFigures, ModelFigures, PlanFigures
from sizing.views.plan_tabulate import every_model_figures, plan_figures

COPY = ("kv_room", "fp8_contexts", "step_ms", "prompt_row", "chunk_ms", "request_ms", "batch_tokens", "peak_tflops")


def copy_row(copy: CopyFigures) -> list[Any]:
    """One copy as the document lists it (``COPY``)."""
    return [
        [[p.context_tokens, p.room_bytes, p.stream_bytes, p.most_streams] for p in copy.kv_room],
        list(copy.fp8_contexts),
        [list(row) for row in copy.step_ms],
        copy.prompt_row,
        copy.chunk_ms,
        copy.request_ms,
        copy.batch_tokens,
        copy.peak_tflops,
    ]


def plan_document(plan: PlanFigures) -> dict[str, Any]:
    """``api/plan.json``: what every plan shares (the engine's figures, the configurations' prices and cards) and
    where each language model's figures stand (``api/plan/<model>.json``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "prices_as_of": plan.prices_as_of,
        "hours_per_month": plan.hours_per_month,
        "floor_factor": plan.floor_factor,
        "prompt_tail_factor": plan.prompt_tail_factor,
        "ttft_percentile": TAIL_PERCENTILE,
        "max_prompt_peak_share": plan.max_prompt_peak_share,
        "prompt_tokens": list(plan.prompt_tokens),
        "configurations": {
            k: {"price_per_month_usd": c.price_per_month_usd, "cards": c.cards} for k, c in plan.configurations.items()
        },
        "models": {
            m.model: {
                "max_context_tokens": m.max_context_tokens,
                "precisions": list(m.precisions),
                "figures": f"plan/{m.model}.json",
            }
            for m in plan.models.values()
        },
        "copy": list(COPY),
    }


def plan_model_document(model: ModelFigures) -> dict[str, Any]:
    """``api/plan/<model>.json``: the model's ladders, the candidates a plan tries and the copies they run."""
    return {
        "schema_version": SCHEMA_VERSION,
        "model": model.model,
        "contexts": list(model.contexts),
        "streams": list(model.streams),
        "candidates": [
            [c.configuration, c.precision, c.cards_per_copy, c.kv_cache_dtype, c.copy] for c in model.candidates
        ],
        "copies": [copy_row(c) for c in model.copies],
        "prompt_ms": [list(row) for row in model.prompt_ms],
        "prompt_gflop": list(model.prompt_gflop),
    }


def documents_of(plan: PlanFigures) -> dict[str, dict[str, Any]]:
    """Every document of the plan, by path inside the site."""
    models = {f"api/plan/{m.model}.json": plan_model_document(m) for m in plan.models.values()}
    return {"api/plan.json": plan_document(plan)} | models


def plan_documents(catalog: Catalog) -> dict[str, dict[str, Any]]:
    """Every document of the plan for every language model of the catalog."""
    return documents_of(plan_figures(catalog, every_model_figures(catalog)))


def _shapes() -> dict[str, dict[str, Any]]:
    """The JSON Schema pieces the two documents share."""
    positive = {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1}
    count = {"type": "integer", "minimum": 1}
    return {
        "positive": positive,
        "count": count,
        "ladder": {"type": "array", "items": count, "minItems": 1},
        "point": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
    }


def plan_schema() -> dict[str, Any]:
    """The JSON Schema of ``api/plan.json``."""
    shapes = _shapes()
    count, ladder = shapes["count"], shapes["ladder"]
    model = {
        "type": "object",
        "properties": {
            "max_context_tokens": count,
            "precisions": {"type": "array", "items": {"type": "string"}},
            "figures": {"type": "string", "pattern": "^plan/[a-z0-9.-]+[.]json$"},
        },
        "required": ["max_context_tokens", "precisions", "figures"],
        "additionalProperties": False,
    }
    configuration = {
        "type": "object",
        "properties": {"price_per_month_usd": {"type": "number", "minimum": 0}, "cards": count},
        "required": ["price_per_month_usd", "cards"],
        "additionalProperties": False,
    }
    properties = {
        "schema_version": {"const": SCHEMA_VERSION},
        "prices_as_of": {"type": "string", "format": "date"},
        "hours_per_month": {"type": "number", "minimum": 1},
        "floor_factor": {"type": "number", "minimum": 0, "maximum": 1},
        "prompt_tail_factor": {"type": "number", "minimum": 1},
        "ttft_percentile": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "max_prompt_peak_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "prompt_tokens": ladder,
        "configurations": {"type": "object", "x-key": "configuration", "additionalProperties": configuration},
        "models": {"type": "object", "x-key": "model", "additionalProperties": model},
        "copy": {"const": list(COPY)},
    }
    return _document("api/plan.json", properties, {})


def plan_model_schema() -> dict[str, Any]:
    """The JSON Schema of each ``api/plan/<model>.json``."""
    shapes = _shapes()
    positive, count, ladder = shapes["positive"], shapes["count"], shapes["ladder"]
    copy = {
        "type": "array",
        "x-tuple": "copy",
        "prefixItems": [
            {"title": "kv_room", "type": "array", "minItems": 1, "items": shapes["point"]},
            {"title": "fp8_contexts", "type": "array", "items": count, "maxItems": 2},
            {"title": "step_ms", "type": "array", "items": positive, "minItems": 1},
            {"title": "prompt_row", "type": "integer", "minimum": 0},
            {"title": "chunk_ms", "type": "number", "minimum": 0},
            {"title": "request_ms", "type": "number", "minimum": 0},
            {"title": "batch_tokens", **count},
            {"title": "peak_tflops", "type": "number", "exclusiveMinimum": 0},
        ],
        "items": False,
        "minItems": len(COPY),
    }
    candidate = {
        "type": "array",
        "x-tuple": "candidate",
        "prefixItems": [
            {"title": "configuration", "type": "string"},
            {"title": "precision", "type": "string"},
            {"title": "cards_per_copy", **count},
            {"title": "kv_cache_dtype", "enum": ["bf16", "fp8"]},
            {"title": "copy", "type": "integer", "minimum": 0},
        ],
        "items": False,
        "minItems": 5,
    }
    properties = {
        "schema_version": {"const": SCHEMA_VERSION},
        "model": {"type": "string"},
        "contexts": ladder,
        "streams": ladder,
        "candidates": {"type": "array", "items": {"$ref": "#/$defs/candidate"}},
        "copies": {"type": "array", "items": {"$ref": "#/$defs/copy"}},
        "prompt_ms": {"type": "array", "items": positive},
        "prompt_gflop": positive,
    }
    return _document("api/plan/<model>.json", properties, {"candidate": candidate, "copy": copy})


def plan_schemas() -> dict[str, dict[str, Any]]:
    """The schemas of the plan's documents, by path inside the site."""
    return {"api/plan.schema.json": plan_schema(), "api/plan-model.schema.json": plan_model_schema()}
