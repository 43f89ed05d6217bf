"""``api/plan.json``: the figures a plan is made of, for a reader (or a page's script) to interpolate: per language
model, format, context preset and hardware configuration, one copy of the model on the cards its verdict uses,
its streams that fit, and at a ladder of concurrencies the typical and floor speed per stream and, for a ladder
of prompt lengths, the typical time to first token (``sizing.views.plan``, the same figures as
``python -m sizing.plan``)."""

from __future__ import annotations

from typing import Any

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm
from sizing.views.api import SCHEMA_VERSION, _document
from sizing.views.matrix import VerdictMatrix, context_presets
from sizing.views.plan import Candidate, Copy, Requirement, copy_of, speed_of, ttft_on

CONCURRENCY_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TTFT_CONCURRENCY_LADDER = (1, 8, 64)  # the time to first token changes slowly with the streams
PROMPT_LADDER_TOKENS = (512, 2048, 8192)
OUTPUT_TOKENS = 500
CELL = ("cards_per_copy", "copies_per_node", "streams_that_fit", "tokens_per_s_typical", "tokens_per_s_floor", "ttft_s")


def _ladder_requirement(model: str, prompt_tokens: int, context_tokens: int) -> Requirement:
    """A requirement whose context is the preset's (the answer's tokens fill what the prompt leaves)."""
    return Requirement(model, prompt_tokens, max(1, context_tokens - prompt_tokens), 1, 1.0)


def _cell(copy: Copy, candidate: Candidate, context: int) -> list[Any]:
    """One copy at the context: speeds at each concurrency of the ladder that fits, times to first token at each
    prompt of the ladder (None where prompt and answer exceed the context) and concurrency of its own ladder."""
    fitting = copy.streams_that_fit
    ladder = [c for c in CONCURRENCY_LADDER if c <= fitting]
    ttft_ladder = [c for c in TTFT_CONCURRENCY_LADDER if c <= fitting]
    typical = [speed_of(copy, c) for c in ladder]
    ttft: list[list[float] | None] = []
    for prompt in PROMPT_LADDER_TOKENS:
        if prompt + OUTPUT_TOKENS > context:
            ttft.append(None)
            continue
        tokens = (prompt, OUTPUT_TOKENS)
        ttft.append([round(ttft_on(copy.resolved, copy.prefill, tokens, c).typical_seconds, 3) for c in ttft_ladder])
    return [
        candidate.cards_per_copy,
        candidate.copies_per_node,
        fitting,
        [round(t, 2) for t in typical],
        [round(t * copy.resolved.constants.floor_factor, 2) for t in typical],
        ttft,
    ]


def plan_document(catalog: Catalog, matrix: VerdictMatrix) -> dict[str, Any]:
    """Every language model × format × context preset × configuration whose verdict holds the model."""
    models: dict[str, Any] = {}
    for model in catalog.models.values():
        if not isinstance(model, Llm):
            continue
        per_precision: dict[str, Any] = {}
        for precision in catalog.precisions_for(model):
            per_context: dict[str, Any] = {}
            for context in context_presets(catalog, model):
                cells: dict[str, list[Any]] = {}
                for configuration in catalog.configurations.values():
                    fit = matrix.cell(model.id, precision.id, configuration.cheapest.id, context).fit
                    if not fit.fits:
                        continue
                    candidate = Candidate(configuration, precision, fit.cards)
                    copy = copy_of(catalog, candidate, _ladder_requirement(model.id, context // 2, context))
                    if copy.streams_that_fit >= 1:
                        cells[configuration.id] = _cell(copy, candidate, context)
                per_context[str(context)] = cells
            per_precision[precision.id] = per_context
        models[model.id] = per_precision
    return {
        "schema_version": SCHEMA_VERSION,
        "prices_as_of": catalog.prices_as_of.isoformat(),
        "concurrency": list(CONCURRENCY_LADDER),
        "ttft_concurrency": list(TTFT_CONCURRENCY_LADDER),
        "prompt_tokens": list(PROMPT_LADDER_TOKENS),
        "output_tokens": OUTPUT_TOKENS,
        "cell": list(CELL),
        "models": models,
    }


def plan_schema() -> dict[str, Any]:
    """The JSON Schema of ``api/plan.json``."""
    speeds = {"type": "array", "items": {"type": "number", "minimum": 0}, "maxItems": len(CONCURRENCY_LADDER)}
    times = {"type": "array", "items": {"type": "number", "minimum": 0}, "maxItems": len(TTFT_CONCURRENCY_LADDER)}
    ttft = {
        "type": "array",
        "minItems": len(PROMPT_LADDER_TOKENS),
        "maxItems": len(PROMPT_LADDER_TOKENS),
        "items": {"anyOf": [{"type": "null"}, times]},
    }
    counts = {"type": "integer", "minimum": 1}
    cell = {
        "type": "array",
        "prefixItems": [
            {"title": "cards_per_copy", **counts},
            {"title": "copies_per_node", **counts},
            {"title": "streams_that_fit", **counts},
            {"title": "tokens_per_s_typical", **speeds},
            {"title": "tokens_per_s_floor", **speeds},
            {"title": "ttft_s", **ttft},
        ],
        "items": False,
        "minItems": len(CELL),
    }
    by_configuration = {"type": "object", "x-key": "configuration", "additionalProperties": {"$ref": "#/$defs/cell"}}
    by_context = {
        "type": "object",
        "x-key": "context",
        "propertyNames": {"pattern": "^[0-9]+$"},
        "additionalProperties": by_configuration,
    }
    by_precision = {"type": "object", "x-key": "precision", "additionalProperties": by_context}
    properties = {
        "schema_version": {"const": SCHEMA_VERSION},
        "prices_as_of": {"type": "string", "format": "date"},
        "concurrency": {"const": list(CONCURRENCY_LADDER)},
        "ttft_concurrency": {"const": list(TTFT_CONCURRENCY_LADDER)},
        "prompt_tokens": {"const": list(PROMPT_LADDER_TOKENS)},
        "output_tokens": {"const": OUTPUT_TOKENS},
        "cell": {"const": list(CELL)},
        "models": {"type": "object", "x-key": "model", "additionalProperties": by_precision},
    }
    return _document("api/plan.json", properties, {"cell": cell})
