"""``api/plan.json`` and ``api/plan/<model>.json``: the figures a plan is made of, for a reader (or the Plan page's
script) to interpolate, from the same code as ``python -m sizing.plan`` (``sizing.views.plan``).

``api/plan.json`` holds what every plan shares; each model's file, every candidate of the plan (configuration ×
format × cards per copy × KV-cache precision) pointing to one *copy*: the model on that many cards of that
hardware, shared by every configuration with the same GPU and link. A copy gives, at a ladder of contexts, the
bytes its cards leave the KV cache, one stream's KV cache and the most streams the engine runs there (the streams
that fit are the first over the second, rounded down, up to the third), and where the estimator keeps the cache in
FP8 instead; the decode step's milliseconds at a ladder of streams × contexts (the speed per user is one over it);
and the milliseconds of reading a prompt alone at a ladder of prompt lengths, without its fixed cost per chunk,
which the copy gives beside it. The time to first token is made of these terms as
``sizing.engine.prefill.estimate_ttft`` adds them."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm, SlidingAttention
from sizing.engine.decode import seconds_overhead, step_seconds
from sizing.engine.fit import Fit, Verdict
from sizing.engine.links import node_bus_link
from sizing.engine.prefill import chunks, prompt_seconds
from sizing.engine.specs import llm_shape
from sizing.views.api import SCHEMA_VERSION, _document
from sizing.views.plan import Candidate, Copy, Requirement, candidates
from sizing.views.plan import copy_at as plan_copy_at

STREAMS_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# a mixture of experts reads more experts with more streams, a curve the doubling ladder cuts too short
MOE_STREAMS_LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
FIRST_CONTEXT_TOKENS = 256
FIRST_PROMPT_TOKENS = 1
CONTEXT_FACTOR = 4
SIGNIFICANT_DIGITS = 4
COPY = ("kv_room", "fp8_contexts", "step_ms", "prompt_row", "chunk_ms", "request_ms")


def doubling_ladder(first: int, last: int, factor: int = 2) -> list[int]:
    """``first``, ``factor`` times that, ... up to the first step at or beyond ``last``."""
    ladder = [first]
    while ladder[-1] < last:
        ladder.append(ladder[-1] * factor)
    return ladder


def rounded(value: float) -> float:
    """``value`` to ``SIGNIFICANT_DIGITS`` significant digits (interpolation needs no more)."""
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


Setting = tuple[bool, str | None, float | None]


def setting_of(fit: Fit | None) -> Setting:
    """What sets the engine's budget, reserve and most streams at a context: whether the verdict is a no-fit, the
    tight setting it needs (None at the defaults) and the utilization it runs at. As the context grows a verdict
    only moves on to a later setting (the default, a higher utilization, an FP8 cache, ``--max-num-seqs``, the same
    without CUDA graphs, both at the higher utilization, a shorter context, no fit), never back."""
    if fit is None:
        return (False, None, None)
    return (fit.verdict is Verdict.NO_FIT, fit.tight_by, fit.memory_utilization)


@dataclass(frozen=True)
class At:
    """One copy of a candidate at one context: ``plan.copy_of`` with the candidate's own KV cache, the bytes its
    cards leave the KV cache (``room_bytes``, per card; negative when the weights and the engine's reserve leave
    none), one stream's KV cache per card, the most streams the engine runs (its cap, or the verdict's
    ``--max-num-seqs``), the verdict's setting there (``setting``, ``setting_of``: the room jumps where it changes),
    and whether the estimator would keep the cache in FP8 there instead (``fp8_contexts``)."""

    context_tokens: int
    copy: Copy
    room_bytes: float
    stream_bytes: float
    most_streams: int
    setting: Setting
    switched: bool

    @property
    def point(self) -> list[int]:
        """``[context, room bytes, one stream's bytes, most streams]`` as ``kv_room`` gives it."""
        return [self.context_tokens, round(self.room_bytes), round(self.stream_bytes), self.most_streams]


def copy_at(catalog: Catalog, candidate: Candidate, model: str, context_tokens: int) -> At:
    copy, fit, plan = plan_copy_at(catalog, candidate, model, context_tokens)
    return At(
        context_tokens,
        copy,
        plan.room_for_kv,
        plan.kv_per_stream,
        copy.most_streams,
        setting_of(fit),
        fit.kv_cache_dtype != candidate.kv_cache_dtype,
    )


def window_edges(model: Llm, contexts: list[int]) -> list[int]:
    """The context at which the sliding-window layers' cache stops growing (a model without them has none), when
    it falls between two contexts of the ladder: one stream's cache bends there."""
    attention = llm_shape(model).attention
    if not isinstance(attention, SlidingAttention) or attention.window_tokens in contexts:
        return []
    return [attention.window_tokens] if contexts[0] < attention.window_tokens < contexts[-1] else []


def setting_edges(catalog: Catalog, candidate: Candidate, model: str, before: At, after: At) -> list[At]:
    """The copy on either side of each context of ``(before, after)`` where the verdict's setting changes, by
    bisection: the room for the KV cache and the most streams may jump there (``setting_of``)."""
    if after.setting == before.setting:
        return []
    low, high = before.context_tokens, after.context_tokens
    while high - low > 1:
        middle = (low + high) // 2
        if copy_at(catalog, candidate, model, middle).setting == before.setting:
            low = middle
        else:
            high = middle
    last = copy_at(catalog, candidate, model, high)
    return [copy_at(catalog, candidate, model, low), last, *setting_edges(catalog, candidate, model, last, after)]


def kv_points(catalog: Catalog, candidate: Candidate, model: str, ladder: list[At]) -> list[At]:
    """The copy at each context of the ladder, and on either side of each context where the engine's setting
    changes: a reader interpolating between the ladder's steps would otherwise smooth the jump away. Within one
    setting the room and one stream's cache are straight between points (llama.cpp's compute buffer grows with
    the context; a sliding window's bend is a context of the ladder)."""
    found = {a.context_tokens: a for a in ladder}
    for before, after in itertools.pairwise(ladder):
        found |= {a.context_tokens: a for a in setting_edges(catalog, candidate, model, before, after)}
    return [found[x] for x in sorted(found)]


def first_context(catalog: Catalog, candidate: Candidate, model: str, span: tuple[int, int], switched: bool) -> int:
    """The first context of ``(low, high]`` where the estimator's switch to FP8 is ``switched`` (as at ``high``,
    not at ``low``), by bisection."""
    low, high = span
    while high - low > 1:
        middle = (low + high) // 2
        if copy_at(catalog, candidate, model, middle).switched == switched:
            high = middle
        else:
            low = middle
    return high


def one_stream_until(points: list[At]) -> float | None:
    """Where one stream's cache stops fitting, between the two points around it (the room and one stream's cache
    taken as straight between them); None when one fits up to the last point."""
    for a, b in itertools.pairwise(points):
        spare, then = a.room_bytes - a.stream_bytes, b.room_bytes - b.stream_bytes
        if spare >= 0 > then:
            return a.context_tokens + (b.context_tokens - a.context_tokens) * spare / (spare - then)
    return None


def fp8_contexts(catalog: Catalog, candidate: Candidate, model: Llm, ladder: list[At], points: list[At]) -> list[int]:
    """``[first, last]`` contexts at which the estimator keeps the cache in FP8 for this candidate (it then runs
    as the candidate with an FP8 cache), ``[]`` when at none: it does so from where the 16-bit cache of one
    stream stops fitting, which the ladder's steps may straddle, so a context just beyond is tried too."""
    if candidate.kv_cache_dtype == "fp8":
        return []
    tried = {a.context_tokens: a.switched for a in ladder}
    until = one_stream_until(points)
    if until is not None:
        beyond = {min(int(until * factor) + 1, model.max_context_tokens) for factor in (1.01, 1.1)} - tried.keys()
        tried |= {x: copy_at(catalog, candidate, model.id, x).switched for x in beyond}
    switched = sorted(x for x, flag in tried.items() if flag)
    if not switched:
        return []
    first, last = switched[0], switched[-1]
    below = max((x for x in tried if x < first), default=0)
    low = first_context(catalog, candidate, model.id, (below, first), True)
    above = min((x for x in tried if x > last and x not in switched), default=None)
    if above is None:
        return [low, model.max_context_tokens]
    return [low, first_context(catalog, candidate, model.id, (last, above), False) - 1]


def step_row(copy: Copy, streams_ladder: list[int]) -> list[float]:
    """The decode step's milliseconds with each count of streams of the ladder."""
    return [rounded(1e3 * step_seconds(copy.setup, c).total) for c in streams_ladder]


def prompt_row(copy: Copy, prompts: list[int]) -> list[float]:
    """Seconds reading each prompt alone, without the fixed cost of its chunks (``chunk_seconds`` each)."""
    setup = copy.setup
    overhead = seconds_overhead(setup.model, setup.constants, setup.engine_class)
    return [
        rounded(1e3 * (prompt_seconds(setup, p, copy.prefill) - chunks(p, copy.prefill.batch_tokens) * overhead))
        for p in prompts
    ]


def copy_key(catalog: Catalog, candidate: Candidate) -> tuple[str, ...]:
    """What a copy's figures depend on: the format, the GPU, the link its cards cross, their count, the cache."""
    cards = candidate.cards_per_copy
    link = "none" if cards == 1 else node_bus_link(catalog, candidate.node, cards).id
    return (candidate.precision.id, candidate.node.gpu, link, str(cards), candidate.kv_cache_dtype)


def streams_ladder(model: Llm) -> tuple[int, ...]:
    return MOE_STREAMS_LADDER if llm_shape(model).is_moe else STREAMS_LADDER


def streams_up_to(ladder: tuple[int, ...], most: int) -> list[int]:
    """The streams ladder up to its first step at or beyond ``most``."""
    return [c for c in ladder if c < most] + [next((c for c in ladder if c >= most), ladder[-1])]


def most_fitting(points: list[At], low: int, high: int) -> int:
    """The most streams that fit at any point from context ``low`` to ``high``."""
    return max(a.copy.streams_that_fit for a in points if low <= a.context_tokens <= high)


@dataclass
class Tables:
    """The document's shared lists while it is written: copies, and the prompt rows copies point to."""

    copies: list[list[Any]] = field(default_factory=list)
    prompt_rows: list[list[float]] = field(default_factory=list)
    prompt_index: dict[tuple[str, ...], int] = field(default_factory=dict)

    def prompt_row_of(self, key: tuple[str, ...], copy: Copy, prompts: list[int]) -> int:
        """The index of the copy's prompt row (the same for either KV-cache precision)."""
        if key not in self.prompt_index:
            self.prompt_index[key] = len(self.prompt_rows)
            self.prompt_rows.append(prompt_row(copy, prompts))
        return self.prompt_index[key]


def copy_figures(
    catalog: Catalog, candidate: Candidate, model: Llm, ladders: tuple[list[int], list[int]], tables: Tables
) -> list[Any] | None:
    """One copy's figures (``COPY``), None when not one stream fits at the smallest context. The room for the KV
    cache is also given where a sliding window stops growing the cache of its layers and on either side of a
    change of the engine's setting; the steps at a context go as far as the most streams that fit from the
    context before it (a context between the two reads them)."""
    contexts, prompts = ladders
    shortest = copy_at(catalog, candidate, model.id, contexts[0])
    if shortest.copy.streams_that_fit < 1:
        return None
    ladder = [shortest, *(copy_at(catalog, candidate, model.id, x) for x in contexts[1:])]
    kinks = [copy_at(catalog, candidate, model.id, x) for x in window_edges(model, contexts)]
    points = kv_points(catalog, candidate, model.id, sorted(ladder + kinks, key=lambda a: a.context_tokens))
    first = ladder[0].copy
    r = first.setup
    key = (model.id, *copy_key(catalog, candidate)[:-1])
    return [
        [a.point for a in points],
        fp8_contexts(catalog, candidate, model, ladder, points),
        [
            step_row(a.copy, streams_up_to(streams_ladder(model), most_fitting(points, low, a.context_tokens)))
            for a, low in zip(ladder, [contexts[0], *contexts], strict=False)
        ],
        tables.prompt_row_of(key, first, prompts),
        rounded(1e3 * seconds_overhead(r.model, r.constants, r.engine_class)),
        1e3 * first.prefill.request_seconds_server if r.engine_class == "server" else 0.0,
    ]


def candidate_rows(
    catalog: Catalog, model: Llm, ladders: tuple[list[int], list[int]], tables: Tables
) -> list[list[Any]]:
    """A model's candidates, each ``[configuration, precision, cards_per_copy, kv_cache_dtype, copy]`` (an index
    into ``tables.copies``), in the order the plan tries them; those not even one stream fits on are left out."""
    known: dict[tuple[str, ...], int | None] = {}
    rows = []
    for candidate in candidates(catalog, Requirement(model.id, 1, 1, 1, 1.0)):
        key = copy_key(catalog, candidate)
        if key not in known:
            figures = copy_figures(catalog, candidate, model, ladders, tables)
            known[key] = None if figures is None else len(tables.copies)
            if figures is not None:
                tables.copies.append(figures)
        index = known[key]
        if index is not None:
            c = candidate
            rows.append([c.configuration.id, c.precision.id, c.cards_per_copy, c.kv_cache_dtype, index])
    return rows


def _llms(catalog: Catalog) -> Iterator[Llm]:
    return (m for m in catalog.models.values() if isinstance(m, Llm))


def prompt_ladder(catalog: Catalog) -> list[int]:
    return doubling_ladder(FIRST_PROMPT_TOKENS, max(m.max_context_tokens for m in _llms(catalog)))


def plan_document(catalog: Catalog) -> dict[str, Any]:
    """``api/plan.json``: what every plan shares (the engine's figures, the configurations' prices and cards) and
    where each language model's figures stand (``api/plan/<model>.json``, ``plan_model_document``)."""
    a = catalog.assumptions
    return {
        "schema_version": SCHEMA_VERSION,
        "prices_as_of": catalog.prices_as_of.isoformat(),
        "hours_per_month": a.hours_per_month.value,
        "floor_factor": a.decode_floor_factor.value,
        "prefill_batch_tokens": a.prefill_batch_tokens.value,
        "prompt_tokens": prompt_ladder(catalog),
        "configurations": {
            c.id: {"price_per_month_usd": c.cheapest.price_per_month.amount, "cards": c.cheapest.cards}
            for c in catalog.configurations.values()
        },
        "models": {
            m.id: {
                "max_context_tokens": m.max_context_tokens,
                "precisions": [p.id for p in catalog.precisions_for(m)],
                "figures": f"plan/{m.id}.json",
            }
            for m in _llms(catalog)
        },
        "copy": list(COPY),
    }


def plan_model_document(catalog: Catalog, model: Llm) -> dict[str, Any]:
    """``api/plan/<model>.json``: the model's ladders, the candidates a plan tries and the copies they run."""
    contexts = doubling_ladder(FIRST_CONTEXT_TOKENS, model.max_context_tokens, CONTEXT_FACTOR)
    tables = Tables()
    rows = candidate_rows(catalog, model, (contexts, prompt_ladder(catalog)), tables)
    return {
        "schema_version": SCHEMA_VERSION,
        "model": model.id,
        "contexts": contexts,
        "streams": list(streams_ladder(model)),
        "candidates": rows,
        "copies": tables.copies,
        "prompt_ms": tables.prompt_rows,
    }


def plan_documents(catalog: Catalog) -> dict[str, dict[str, Any]]:
    """Every document of the plan, by path inside the site."""
    models = {f"api/plan/{m.id}.json": plan_model_document(catalog, m) for m in _llms(catalog)}
    return {"api/plan.json": plan_document(catalog)} | models


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
        "prefill_batch_tokens": count,
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
    }
    return _document("api/plan/<model>.json", properties, {"candidate": candidate, "copy": copy})


def plan_schemas() -> dict[str, dict[str, Any]]:
    """The schemas of the plan's documents, by path inside the site."""
    return {"api/plan.schema.json": plan_schema(), "api/plan-model.schema.json": plan_model_schema()}
