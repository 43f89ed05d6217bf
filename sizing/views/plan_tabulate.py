"""The plan's figures computed from the catalog (``sizing.views.plan_figures`` holds and reads them).

Each candidate of a model (configuration × format × cards per copy × KV-cache precision) points to one *copy*: the
model on that many cards of that hardware, shared by every configuration with the same GPU and link. A copy gives,
at a ladder of contexts, the bytes its cards leave the KV cache, one stream's KV cache and the most streams the
engine runs there (the streams that fit are the first over the second, rounded down, up to the third), with a
point on either side of each context where the engine's setting changes (the room jumps there), and where the
estimator keeps the cache in FP8 instead; the decode step's milliseconds at a ladder of streams × contexts (no
prompt inside it); and the milliseconds of reading a prompt alone at a ladder of prompt lengths, without the
fixed cost of its steps, which the copy gives beside it with the tokens one step batches. Each copy is computed
once, at the setting its cards need (``fit.fit_split``)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import InlineLlm, KvCacheDtype, Llm, Node, Precision, SlidingAttention
from sizing.engine.decode import DecodeSetup, steps_seconds, tensor_tflops
from sizing.engine.deployment import NodeCards, decode_setup, setting_class, stream_cap, streams_beside_weights
from sizing.engine.fit import Fit, FitQuery, Verdict, engine_splits, fit_split, nvswitch_splits
from sizing.engine.links import node_bus_link
from sizing.engine.memory import kv_cache_bytes_per_card
from sizing.engine.prefill import PrefillConstants, prompt_flops, prompt_work_seconds, step_fixed_seconds
from sizing.engine.scenarios import scenario_shape
from sizing.engine.specs import Checkpoint, LlmShape, checkpoint, llm_shape, precision_spec
from sizing.views.matrix import node_cards
from sizing.views.plan_figures import (
    Candidate,
    Configuration,
    CopyFigures,
    KvPoint,
    ModelFigures,
    PlanFigures,
)

CARDS_PER_COPY = (1, 2, 4, 8)
STREAMS_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
# a mixture of experts reads more experts with more streams, a curve the doubling ladder cuts too short
MOE_STREAMS_LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
FIRST_CONTEXT_TOKENS = 256
FIRST_PROMPT_TOKENS = 1
CONTEXT_FACTOR = 4
SIGNIFICANT_DIGITS = 4


def doubling_ladder(first: int, last: int, factor: int = 2) -> list[int]:
    """``first``, ``factor`` times that, ... up to the first step at or beyond ``last``."""
    ladder = [first]
    while ladder[-1] < last:
        ladder.append(ladder[-1] * factor)
    return ladder


def rounded(value: float) -> float:
    """``value`` to ``SIGNIFICANT_DIGITS`` significant digits (interpolation needs no more)."""
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


# --- the model planned ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlannedModel:
    """A language model a plan is made for: a models.yml model, or one given by its shape (``sizing.plan`` takes an
    inline model as ``sizing.estimate`` does), with the formats it is planned in and the longest context its
    makers advertise."""

    id: str
    shape: LlmShape
    max_context_tokens: int
    precisions: tuple[Precision, ...]
    catalog_model: Llm | None = None

    def checkpoint(self, precision: Precision) -> Checkpoint:
        """The model in a format, with what its checkpoint leaves in 16 bits."""
        if self.catalog_model is not None:
            return checkpoint(self.catalog_model, precision)
        return Checkpoint(self.shape, precision_spec(precision), self.max_context_tokens)


def planned_model(catalog: Catalog, model: Llm) -> PlannedModel:
    """A models.yml model in every format offered for it."""
    offered = tuple(catalog.precisions_for(model))
    return PlannedModel(model.id, llm_shape(model), model.max_context_tokens, offered, model)


def inline_model(catalog: Catalog, model: InlineLlm, precision: Precision, context_tokens: int) -> PlannedModel:
    """A model given by its shape, in the format asked; its window is the one its makers advertise where given,
    else the requirement's own context."""
    window = model.max_context_tokens or context_tokens
    return PlannedModel(model.id or "inline-model", scenario_shape(catalog, model), window, (precision,))


# --- the candidates -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Way:
    """A way to serve a model: a node configuration, a format, the cards one copy uses, the KV-cache precision."""

    configuration: str
    node: Node
    precision: Precision
    cards_per_copy: int
    kv_cache_dtype: KvCacheDtype


def ways(catalog: Catalog, model: PlannedModel, configuration: str | None = None) -> Iterator[Way]:
    """Every configuration (or the one named) × format the model is planned in × cards per copy (a power of two
    that divides the node's cards and that the format's engine can split the model over, ``fit.engine_splits``)
    × KV-cache precision (FP8 as a choice of server engines, ``--kv-cache-dtype fp8``)."""
    shape = model.shape
    for c in catalog.configurations.values():
        if configuration is not None and c.id != configuration:
            continue
        node = c.cheapest
        for precision in model.precisions:
            engine = catalog.engine_of(precision)
            splits = engine_splits(engine, shape, node.cards)
            dtypes: tuple[KvCacheDtype, ...] = ("bf16", "fp8") if engine.kind == "server" else ("bf16",)
            for cards in CARDS_PER_COPY:
                if cards in splits and node.cards % cards == 0:
                    yield from (Way(c.id, node, precision, cards, dtype) for dtype in dtypes)


def copy_key(catalog: Catalog, way: Way) -> tuple[str, ...]:
    """What a copy's figures depend on: the format, the GPU, the link its cards cross, their count, the cache."""
    cards = way.cards_per_copy
    link = "none" if cards == 1 else node_bus_link(catalog, way.node, cards).id
    return (way.precision.id, way.node.gpu, link, str(cards), way.kv_cache_dtype)


# --- one copy at one context --------------------------------------------------------------------------------------
Setting = tuple[bool, str | None, float | None]


def setting_of(fit: Fit) -> Setting:
    """What sets the engine's budget, reserve and most streams at a context: whether the verdict is a no-fit, the
    tight setting it needs (None at the defaults) and the utilization it runs at. As the context grows a verdict
    only moves on to a later setting, never back."""
    return (fit.verdict is Verdict.NO_FIT, fit.tight_by, fit.memory_utilization)


@dataclass(frozen=True)
class At:
    """One copy at one context, at the setting its cards need there: the decode setup, the bytes its cards leave
    the KV cache (negative when the weights and the reserve leave none), one stream's cache per card, the most
    streams the engine runs, the streams that fit (none at a shorter context or with layers in host memory), the
    setting, and whether the estimator keeps the cache in FP8 there instead of the candidate's 16 bits."""

    context_tokens: int
    setup: DecodeSetup
    room_bytes: float
    stream_bytes: float
    most_streams: int
    streams_that_fit: int
    setting: Setting
    switched: bool

    @property
    def point(self) -> KvPoint:
        return KvPoint(self.context_tokens, round(self.room_bytes), round(self.stream_bytes), self.most_streams)


@dataclass
class CopyMaker:
    """One copy's question, asked at any context: the query at a context and the cards of the way."""

    catalog: Catalog
    model: PlannedModel
    way: Way
    found: dict[int, At] = field(default_factory=dict)
    fits: dict[int, Fit] = field(default_factory=dict)

    @cached_property
    def base_query(self) -> FitQuery:
        """The way's query at the model's longest context (``query`` changes only the context)."""
        c, node, precision = self.catalog, self.way.node, self.way.precision
        return FitQuery(
            c,
            self.model.checkpoint(precision),
            c.engine_of(precision),
            c.gpu_of(node),
            self.model.max_context_tokens,
            c.assumptions.default_batch.value,
            self.way.kv_cache_dtype,
            nvswitch_splits(c, node),
        )

    def query(self, context_tokens: int) -> FitQuery:
        return replace(self.base_query, context_tokens=context_tokens)

    @cached_property
    def node(self) -> NodeCards:
        return node_cards(self.catalog, self.way.node)

    def fit(self, context_tokens: int) -> Fit:
        """The verdict of the way's cards at ``context_tokens`` (each context decided once)."""
        if context_tokens not in self.fits:
            self.fits[context_tokens] = fit_split(self.query(context_tokens), self.way.cards_per_copy)
        return self.fits[context_tokens]

    def setting(self, context_tokens: int) -> Setting:
        return setting_of(self.fit(context_tokens))

    def switched(self, context_tokens: int) -> bool:
        """Whether the estimator keeps the cache in FP8 there instead of the candidate's 16 bits."""
        return self.fit(context_tokens).kv_cache_dtype != self.way.kv_cache_dtype

    def at(self, context_tokens: int) -> At:
        """The copy at ``context_tokens`` (each context computed once)."""
        if context_tokens not in self.found:
            self.found[context_tokens] = self._at(context_tokens)
        return self.found[context_tokens]

    def _at(self, context_tokens: int) -> At:
        query = self.query(context_tokens)
        fit = self.fit(context_tokens)
        setup = replace(decode_setup(query, self.node, fit), context_tokens=context_tokens)
        held = fit.tight_need or fit.need
        element = setup.constants.kv_cache_bytes_per_element
        stream = kv_cache_bytes_per_card(setup.model, context_tokens, 1, element, fit.cards, query.engine.parallelism)
        most = stream_cap(query, fit.max_num_seqs)
        fitting = 0
        if fit.fits and setting_class(fit)[0] <= 1:  # a shorter context, or layers in host memory: no user fits
            fitting = streams_beside_weights(fit, stream, most)
        room = fit.budget - held.weights - held.activations - held.overhead
        return At(context_tokens, setup, room, stream, most, fitting, setting_of(fit), self.switched(context_tokens))


# --- where the setting changes --------------------------------------------------------------------------------------
def window_edges(model: PlannedModel, contexts: list[int]) -> list[int]:
    """The context at which the sliding-window layers' cache stops growing (a model without them has none), when
    it falls between two contexts of the ladder: one stream's cache bends there."""
    attention = model.shape.attention
    if not isinstance(attention, SlidingAttention) or attention.window_tokens in contexts:
        return []
    return [attention.window_tokens] if contexts[0] < attention.window_tokens < contexts[-1] else []


def first_context_where(copy: CopyMaker, span: tuple[int, int], changed: object, read: str) -> int:
    """The first context of ``(low, high]`` where ``copy.<read>(context)`` (its setting, or whether the cache went
    to FP8) differs from ``changed``, by bisection on the verdict alone."""
    low, high = span
    reading = getattr(copy, read)
    while high - low > 1:
        middle = (low + high) // 2
        if reading(middle) == changed:
            low = middle
        else:
            high = middle
    return high


def setting_edges(copy: CopyMaker, before: At, after: At) -> list[At]:
    """The copy on either side of each context of ``(before, after)`` where the verdict's setting changes: the room
    for the KV cache and the most streams may jump there."""
    if after.setting == before.setting:
        return []
    high = first_context_where(copy, (before.context_tokens, after.context_tokens), before.setting, "setting")
    last = copy.at(high)
    return [copy.at(high - 1), last, *setting_edges(copy, last, after)]


def kv_points(copy: CopyMaker, ladder: list[At]) -> list[At]:
    """The copy at each context of the ladder, and on either side of each context where the engine's setting
    changes: a reader interpolating between the ladder's steps would otherwise smooth the jump away. Within one
    setting the room and one stream's cache are straight between points (a sliding window's bend is a context of
    the ladder)."""
    found = {a.context_tokens: a for a in ladder}
    for before, after in itertools.pairwise(ladder):
        found |= {a.context_tokens: a for a in setting_edges(copy, before, after)}
    return [found[x] for x in sorted(found)]


def one_stream_until(points: list[At]) -> float | None:
    """Where one stream's cache stops fitting, between the two points around it (the room and one stream's cache
    taken as straight between them); None when one fits up to the last point."""
    for a, b in itertools.pairwise(points):
        spare, then = a.room_bytes - a.stream_bytes, b.room_bytes - b.stream_bytes
        if spare >= 0 > then:
            return a.context_tokens + (b.context_tokens - a.context_tokens) * spare / (spare - then)
    return None


def fp8_contexts(copy: CopyMaker, ladder: list[At], points: list[At]) -> tuple[int, ...]:
    """``(first, last)`` contexts at which the estimator keeps the cache in FP8 for this candidate (it then runs
    as the candidate with an FP8 cache), ``()`` when at none: it does so from where the 16-bit cache of one
    stream stops fitting, which the ladder's steps may straddle, so a context just beyond is tried too."""
    model = copy.model
    if copy.way.kv_cache_dtype == "fp8":
        return ()
    tried = {a.context_tokens: a.switched for a in ladder}
    until = one_stream_until(points)
    if until is not None:
        beyond = {min(int(until * factor) + 1, model.max_context_tokens) for factor in (1.01, 1.1)} - tried.keys()
        tried |= {x: copy.switched(x) for x in beyond}
    switched = sorted(x for x, flag in tried.items() if flag)
    if not switched:
        return ()
    first, last = switched[0], switched[-1]
    below = max((x for x in tried if x < first), default=0)
    low = first_context_where(copy, (below, first), False, "switched")
    above = min((x for x in tried if x > last and x not in switched), default=None)
    if above is None:
        return (low, model.max_context_tokens)
    return (low, first_context_where(copy, (last, above), True, "switched") - 1)


# --- the copy's rows ------------------------------------------------------------------------------------------------
def streams_ladder(model: PlannedModel) -> tuple[int, ...]:
    return MOE_STREAMS_LADDER if model.shape.is_moe else STREAMS_LADDER


def streams_up_to(ladder: tuple[int, ...], most: int) -> list[int]:
    """The streams ladder up to its first step at or beyond ``most``."""
    return [c for c in ladder if c < most] + [next((c for c in ladder if c >= most), ladder[-1])]


def most_fitting(points: list[At], low: int, high: int) -> int:
    """The most streams that fit at any point from context ``low`` to ``high``."""
    return max(a.streams_that_fit for a in points if low <= a.context_tokens <= high)


def step_row(setup: DecodeSetup, streams: list[int]) -> tuple[float, ...]:
    """The decode step's milliseconds with each count of streams (no prompt inside it)."""
    return tuple(rounded(1e3 * step.total) for step in steps_seconds(setup, streams))


def prompt_row(setup: DecodeSetup, prefill: PrefillConstants, prompts: list[int]) -> tuple[float, ...]:
    """Milliseconds reading each prompt alone, without its steps' fixed costs."""
    return tuple(rounded(1e3 * prompt_work_seconds(setup, p, prefill)) for p in prompts)


def copy_figures(
    catalog: Catalog, copy: CopyMaker, ladders: tuple[list[int], list[int]], prompt_index: int
) -> CopyFigures | None:
    """One copy's figures, None when not one stream fits at the smallest context. The steps at a context go as far
    as the most streams that fit from the context before it (a context between the two reads them)."""
    contexts, _ = ladders
    model = copy.model
    shortest = copy.at(contexts[0])
    if shortest.streams_that_fit < 1:
        return None
    ladder = [copy.at(x) for x in contexts]
    kinks = [copy.at(x) for x in window_edges(model, contexts)]
    points = kv_points(copy, sorted(ladder + kinks, key=lambda a: a.context_tokens))
    setup = shortest.setup
    request = PrefillConstants.from_assumptions(catalog.assumptions).request_seconds_server
    steps = [
        step_row(a.setup, streams_up_to(streams_ladder(model), most_fitting(points, low, a.context_tokens)))
        for a, low in zip(ladder, [contexts[0], *contexts], strict=False)
    ]
    return CopyFigures(
        kv_room=tuple(a.point for a in points),
        fp8_contexts=fp8_contexts(copy, ladder, points),
        step_ms=tuple(steps),
        prompt_row=prompt_index,
        chunk_ms=rounded(1e3 * step_fixed_seconds(setup)),
        request_ms=1e3 * request if setup.engine_class == "server" else 0.0,
        batch_tokens=setup.batch_tokens,
        peak_tflops=tensor_tflops(setup.gpu, setup.precision) * setup.cards,
    )


# --- a model's figures ----------------------------------------------------------------------------------------------
def _llms(catalog: Catalog) -> Iterator[Llm]:
    return (m for m in catalog.models.values() if isinstance(m, Llm))


def prompt_ladder(catalog: Catalog) -> list[int]:
    return doubling_ladder(FIRST_PROMPT_TOKENS, max(m.max_context_tokens for m in _llms(catalog)))


def model_figures(catalog: Catalog, model: PlannedModel, configuration: str | None = None) -> ModelFigures:
    """The model's ladders, the candidates a plan tries (every way, or those of one configuration) and the copies
    they run; the ways not even one stream fits on are left out."""
    contexts = doubling_ladder(FIRST_CONTEXT_TOKENS, model.max_context_tokens, CONTEXT_FACTOR)
    prompts = prompt_ladder(catalog)
    prefill = PrefillConstants.from_assumptions(catalog.assumptions)
    copies: list[CopyFigures] = []
    prompt_rows: list[tuple[float, ...]] = []
    prompt_index: dict[tuple[str, ...], int] = {}
    known: dict[tuple[str, ...], int | None] = {}
    candidates = []
    for way in ways(catalog, model, configuration):
        key = copy_key(catalog, way)
        if key not in known:
            maker = CopyMaker(catalog, model, way)
            row_key = key[:-1]
            if row_key not in prompt_index:
                prompt_index[row_key] = len(prompt_rows)
                prompt_rows.append(prompt_row(maker.at(contexts[0]).setup, prefill, prompts))
            figures = copy_figures(catalog, maker, (contexts, prompts), prompt_index[row_key])
            known[key] = None if figures is None else len(copies)
            if figures is not None:
                copies.append(figures)
        index = known[key]
        if index is not None:
            candidates.append(
                Candidate(way.configuration, way.precision.id, way.cards_per_copy, way.kv_cache_dtype, index)
            )
    return ModelFigures(
        model=model.id,
        max_context_tokens=model.max_context_tokens,
        precisions=tuple(p.id for p in model.precisions),
        contexts=tuple(contexts),
        streams=streams_ladder(model),
        candidates=tuple(candidates),
        copies=tuple(copies),
        prompt_ms=tuple(prompt_rows),
        prompt_gflop=tuple(rounded(prompt_flops(model.shape, p) / 1e9) for p in prompts),
    )


def plan_figures(catalog: Catalog, models: dict[str, ModelFigures]) -> PlanFigures:
    """What every plan shares, with the figures of ``models``."""
    a = catalog.assumptions
    return PlanFigures(
        prices_as_of=catalog.prices_as_of.isoformat(),
        hours_per_month=a.hours_per_month.value,
        floor_factor=a.decode_floor_factor.value,
        prompt_tail_factor=a.ttft_ceiling_factor.value,
        max_prompt_peak_share=a.max_prompt_peak_share.value,
        prompt_tokens=tuple(prompt_ladder(catalog)),
        configurations={
            c.id: Configuration(c.cheapest.price_per_month.amount, c.cheapest.cards)
            for c in catalog.configurations.values()
        },
        models=models,
    )


def every_model_figures(catalog: Catalog) -> dict[str, ModelFigures]:
    return {m.id: model_figures(catalog, planned_model(catalog, m)) for m in _llms(catalog)}
