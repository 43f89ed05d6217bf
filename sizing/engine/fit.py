"""Fit verdicts: does a model fit on one card of a node, must it be split across k cards, does it fit only
tight (with more of the card given to the engine, or at a shorter context), or not at all?

A card's memory is what CUDA reports (gpus.yml ``runtime_visible_memory_mib``). The engine that runs the
precision (engines.yml) decides how much of it may be used and what it keeps besides weights and KV cache:
a server engine (vLLM, SGLang) caps itself at ``usable_memory_fraction`` of the card and holds an activation
peak, CUDA graphs and, when split, NCCL buffers on every card; llama.cpp has no cap, shares out the layers and
holds a compute buffer that grows with the context. A GGUF model whose weights exceed its cards runs with some
of its layers on the CPU, from host memory (``--n-gpu-layers``, ``sizing.engine.host_layers``), when the host's
memory holds them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import (
    DiffusionModel,
    Gpu,
    InlineGpu,
    KvCacheDtype,
    LlamaCppEngine,
    Llm,
    Node,
    Precision,
    ServerEngine,
)
from sizing.catalog.units import GB, GIB, MIB
from sizing.engine.host_layers import layers_on_cards
from sizing.engine.memory import (
    EIGHT_BIT_BYTES,
    component_bytes,
    kv_cache_bytes_per_card,
    longest_context_within,
    model_weight_bytes,
    require_precision,
    weight_bytes_per_card,
)
from sizing.engine.reserve import BatchBudget, llama_cpp_reserve, server_batch_budget, server_reserve
from sizing.engine.specs import Checkpoint, LlmShape, checkpoint

Engine = ServerEngine | LlamaCppEngine


class Verdict(StrEnum):
    ONE_CARD = "one-card"
    SPLIT = "split"
    TIGHT = "tight"  # fits only with the engine's tight setting, or at a shorter context
    NO_FIT = "no-fit"


# What a practitioner prefers, best first: fitting at the engine's default settings beats a tight fit, fewer
# cards beat more. Consumers that sort verdicts use this order.
VERDICT_PREFERENCE = (Verdict.ONE_CARD, Verdict.SPLIT, Verdict.TIGHT, Verdict.NO_FIT)
VERDICT_RANK = {v: i for i, v in enumerate(VERDICT_PREFERENCE)}


@dataclass(frozen=True)
class MemoryNeed:
    """Bytes one card needs, term by term. ``activations``: a server engine's activation peak or llama.cpp's
    compute buffer; ``overhead``: CUDA context, NCCL buffers when split, CUDA graphs."""

    weights: float
    kv_cache: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.activations + self.overhead

    @property
    def dominant(self) -> str:
        """The largest term: what to shrink first."""
        terms = {
            "weights": self.weights,
            "kv_cache": self.kv_cache,
            "activations": self.activations,
            "overhead": self.overhead,
        }
        return max(terms, key=terms.__getitem__)


NO_NEED = MemoryNeed(0.0, 0.0, 0.0, 0.0)


TightBy = Literal[
    "utilization",
    "kv_cache_dtype",
    "max_num_seqs",
    "enforce_eager",
    "context",
    "gpu_layers",
    "offload",
    "partial_load",
]


@dataclass(frozen=True)
class Fit:
    """A verdict with what explains it. For NO_FIT, ``need`` is the best attempt (``cards`` = its k).

    ``need`` is always at the context asked for; ``budget`` is what the engine may use per card at the setting
    the verdict assumes (``memory_utilization``: vLLM's ``--gpu-memory-utilization``, the default or the tight
    setting; None for llama.cpp, which has no cap, and for image and video pipelines).
    A TIGHT fit says how (``tight_by``): ``"utilization"`` fits at the context asked for once the engine is given
    ``memory_utilization``; ``"kv_cache_dtype"`` fits at the default setting with the KV cache in FP8
    (``kv_cache_dtype``, what it runs with; ``need`` stays that of the cache asked for, above ``budget``);
    ``"context"`` fits at the default setting only with a context of at most
    ``longest_context_tokens`` (then ``need`` exceeds ``budget``); ``"offload"``, an image or video pipeline, fits
    with its parts taking turns on the card (``need`` is that of every part at once, above ``budget``;
    ``tight_need`` what the card holds at a time); ``"partial_load"``, a pipeline whose largest part does not fit
    either, fits with the layers of its denoiser that do not fit waiting in host memory (``tight_need``: what the
    card holds, its whole budget); ``"max_num_seqs"`` fits with the engine running at most ``max_num_seqs``
    streams (``tight_need``: its smaller activation peak, within ``budget``), at the default utilization or, where
    that is not enough, at the tight one (``memory_utilization``); ``"enforce_eager"`` the same without CUDA graphs
    (``tight_need`` without their memory either); ``"gpu_layers"``, a GGUF model on llama.cpp, fits with
    ``gpu_layers`` of its layers on the cards and the others, with the embeddings and the output head, in host
    memory (``host_weight_bytes``; ``tight_need``: what the busiest card holds).
    ``longest_context_tokens`` is also given for a
    ``"utilization"`` fit when a context at least ``tight_min_context_tokens`` long fits at the default setting."""

    verdict: Verdict
    cards: int
    need: MemoryNeed
    budget: float
    engine: str | None = None
    memory_utilization: float | None = None
    tight_by: TightBy | None = None
    longest_context_tokens: int | None = None
    kv_cache_dtype: KvCacheDtype = "bf16"  # what the KV cache is kept in when the model runs as the verdict says
    tight_need: MemoryNeed | None = None  # "offload", "max_num_seqs"...: what a card holds at the tight setting
    max_num_seqs: int | None = None  # "max_num_seqs", "enforce_eager": the most streams the engine runs at once
    host_weight_bytes: float = 0.0  # "partial_load", "gpu_layers": the bytes of weights left in host memory
    gpu_layers: int | None = None  # "gpu_layers": the layers on the cards (llama.cpp's --n-gpu-layers)

    @property
    def cuda_graphs(self) -> bool:
        """Whether a server engine keeps its CUDA graphs at the verdict's setting (not with --enforce-eager)."""
        return self.tight_by != "enforce_eager"

    @property
    def headroom(self) -> float:
        return self.budget - self.need.total

    @property
    def fits(self) -> bool:
        return self.verdict is not Verdict.NO_FIT


# --- what a card offers ------------------------------------------------------------------------------------
def visible_memory(catalog: Catalog, gpu: Gpu | InlineGpu) -> float:
    """Bytes CUDA reports on one card (gpus.yml ``runtime_visible_memory_mib``). A card given inline without it
    (a decode scenario) is taken to show ``runtime_visible_memory_fraction`` of its vendor figure."""
    mib = getattr(gpu, "runtime_visible_memory_mib", None)
    if mib is not None:
        return mib * MIB
    return gpu.memory_gb * GIB * catalog.assumptions.runtime_visible_memory_fraction.value


def default_utilization(catalog: Catalog, engine: Engine) -> float:
    """Share of the visible memory an engine uses unless told otherwise: vLLM's ``--gpu-memory-utilization``
    default for a server engine, all of it for llama.cpp."""
    return catalog.assumptions.usable_memory_fraction.value if isinstance(engine, ServerEngine) else 1.0


def tight_utilization(catalog: Catalog, engine: Engine, gpu: Gpu | InlineGpu) -> float | None:
    """The higher setting a server engine may be given on this card, None where it is not offered (llama.cpp;
    cards too small for the 5 % it leaves outside the budget)."""
    if not isinstance(engine, ServerEngine):
        return None
    if visible_memory(catalog, gpu) < engine.tight_min_card_gib.value * GIB:
        return None
    return engine.tight_memory_utilization.value


def host_memory_bytes(catalog: Catalog, gpu: Gpu | InlineGpu, cards: int) -> float:
    """Bytes of host memory a node of ``cards`` cards of ``gpu`` leaves llama.cpp: ``host_memory_per_card_memory``
    times its cards' memory, less what the system keeps (``host_memory_reserved_gib``)."""
    a = catalog.assumptions
    host = a.host_memory_per_card_memory.value * cards * gpu.memory_gb * GB
    return host - a.host_memory_reserved_gib.value * GIB


def card_budget(
    catalog: Catalog, gpu: Gpu | InlineGpu, engine: Engine | None = None, utilization: float | None = None
) -> float:
    """Bytes an engine may use on one card: visible memory × utilization (the engine's default unless given).
    Without an engine, the server engine's (vLLM's) default budget."""
    engine = catalog.server_engine if engine is None else engine
    share = default_utilization(catalog, engine) if utilization is None else utilization
    return share * visible_memory(catalog, gpu)


# --- what a card needs -------------------------------------------------------------------------------------
def valid_splits(model: LlmShape, max_cards: int) -> list[int]:
    """Tensor-parallel degrees k ≤ max_cards: heads divisible by k; KV heads divide k or k divides them."""

    def ok(k: int) -> bool:
        if model.attention_heads % k:
            return False
        return model.kv_heads % k == 0 if k <= model.kv_heads else k % model.kv_heads == 0

    return [k for k in range(1, max_cards + 1) if ok(k)]


def engine_splits(engine: Engine, model: LlmShape, max_cards: int) -> list[int]:
    """Card counts an engine can spread ``model`` over: tensor parallelism needs the heads to divide; a layer
    split (llama.cpp) takes any count up to the number of layers."""
    if engine.parallelism == "tensor":
        return valid_splits(model, max_cards)
    return list(range(1, min(max_cards, model.layers) + 1))


def kv_element_bytes(catalog: Catalog, kv_cache_dtype: KvCacheDtype) -> float:
    """Bytes of one KV-cache element: 16 bits by default (assumptions.yml), one byte in FP8."""
    return catalog.assumptions.kv_cache_bytes_per_element.value if kv_cache_dtype == "bf16" else EIGHT_BIT_BYTES


def batch_budget_on(engine: Engine, gpu: Gpu | InlineGpu | None, catalog: Catalog) -> BatchBudget | None:
    """The batch a server engine profiles on this card by default (``vllm serve``); on a card not named, the
    larger one, so that a verdict holds on every card. None for llama.cpp."""
    if not isinstance(engine, ServerEngine):
        return None
    if gpu is None:
        large = engine.batch_budget.large_card
        return BatchBudget(large.tokens, large.sequences)
    name = " ".join(part for part in (gpu.id, getattr(gpu, "name", None)) if part)
    return server_batch_budget(engine, visible_memory(catalog, gpu), name)


def step_batch_tokens(engine: Engine, gpu: Gpu | InlineGpu | None, catalog: Catalog) -> int:
    """The tokens one step of the engine batches on this card: a server's ``--max-num-batched-tokens`` for the
    card's class, llama.cpp's physical batch (``-ub``)."""
    budget = batch_budget_on(engine, gpu, catalog)
    if budget is None:
        assert isinstance(engine, LlamaCppEngine)
        return engine.ubatch_tokens.value
    return budget.tokens


def with_max_num_seqs(budget: BatchBudget | None, max_num_seqs: int | None) -> BatchBudget | None:
    """A server's batch with at most ``max_num_seqs`` sequences (``--max-num-seqs``); unchanged when None."""
    if budget is None or max_num_seqs is None:
        return budget
    return BatchBudget(budget.tokens, min(budget.sequences, max_num_seqs))


def engine_reserve_bytes(
    engine: Engine,
    model: LlmShape,
    context_tokens: int,
    batch: int,
    cards: int,
    budget: BatchBudget | None = None,
    cuda_graphs: bool = True,
    over_nvswitch: bool = False,
) -> tuple[float, float]:
    """What the engine keeps on each card of a ``cards``-way split besides weights and KV cache:
    (activations, overhead) (``sizing.engine.reserve``). llama.cpp: its compute buffer and CUDA context; a server
    engine: the activation peak of its profiling batch ``budget`` (the larger default when not given), memory
    outside PyTorch (more for a split over NVLink) and, unless run without them (``--enforce-eager``), CUDA
    graphs."""
    if isinstance(engine, LlamaCppEngine):
        reserve = llama_cpp_reserve(engine, model, context_tokens, batch)
    else:
        if budget is None:
            large = engine.batch_budget.large_card
            budget = BatchBudget(large.tokens, large.sequences)
        reserve = server_reserve(engine, model, cards, budget, cuda_graphs, over_nvswitch)
    return reserve.activations, reserve.overhead


@dataclass(frozen=True)
class FitQuery:
    """What a language model's verdict is asked about: a checkpoint that ``engine`` runs on cards of ``gpu``, at
    ``context_tokens`` for ``batch`` sequences, the KV cache kept in ``kv_cache_dtype``; ``nvswitch_splits``: the card
    counts whose split crosses NVLink on the node asked about."""

    catalog: Catalog
    checkpoint: Checkpoint
    engine: Engine
    gpu: Gpu | InlineGpu
    context_tokens: int
    batch: int = 1
    kv_cache_dtype: KvCacheDtype = "bf16"
    nvswitch_splits: frozenset[int] = frozenset()

    def need(
        self,
        cards: int,
        *,
        context_tokens: int | None = None,
        kv_cache_dtype: KvCacheDtype | None = None,
        max_num_seqs: int | None = None,
        cuda_graphs: bool = True,
    ) -> MemoryNeed:
        """What each card of a ``cards``-way split needs (at another context or KV-cache precision where given); a
        server engine profiles its default batch, or at most ``max_num_seqs`` sequences of it, and keeps CUDA
        graphs unless ``cuda_graphs`` is False."""
        c, model = self.catalog, self.checkpoint.model
        context = self.context_tokens if context_tokens is None else context_tokens
        element = kv_element_bytes(c, self.kv_cache_dtype if kv_cache_dtype is None else kv_cache_dtype)
        kv_cache = kv_cache_bytes_per_card(model, context, self.batch, element, cards, self.engine.parallelism)
        budget = with_max_num_seqs(batch_budget_on(self.engine, self.gpu, c), max_num_seqs)
        nvlink = cards in self.nvswitch_splits
        reserve = engine_reserve_bytes(self.engine, model, context, self.batch, cards, budget, cuda_graphs, nvlink)
        activations, overhead = reserve
        weights = weight_bytes_per_card(model, self.checkpoint.precision, cards, self.gpu.architecture)
        return MemoryNeed(weights, kv_cache, activations, overhead)

    def splits(self, max_cards: int) -> list[int]:
        """The card counts up to ``max_cards`` the engine can spread the model over, fewest first."""
        return engine_splits(self.engine, self.checkpoint.model, max_cards)

    def budget(self, utilization: float | None = None) -> float:
        """Bytes the engine may use on one card: its default share, or ``utilization``."""
        return card_budget(self.catalog, self.gpu, self.engine, utilization)

    def longest_context(self, cards: int, budget: float) -> int | None:
        """The longest context, in whole tokens, shorter than the one asked for (and at most the model's), whose
        need on each of ``cards`` cards stays within ``budget``; None when not even ``tight_min_context_tokens``
        fits."""
        low = self.catalog.assumptions.tight_min_context_tokens.value
        high = self.context_tokens - 1
        if self.checkpoint.max_context_tokens is not None:
            high = min(high, self.checkpoint.max_context_tokens)

        def fits(tokens: int) -> bool:
            return self.need(cards, context_tokens=tokens).total <= budget

        if low > high:
            return None
        at_low = self.need(cards, context_tokens=low)
        if at_low.total > budget:
            return None
        element = kv_element_bytes(self.catalog, self.kv_cache_dtype)
        room = budget - (at_low.total - at_low.kv_cache)  # the rest of the need does not grow with the context
        model, parallelism = self.checkpoint.model, self.engine.parallelism
        found = min(high, longest_context_within(model, room, self.batch, element, cards, parallelism))
        if found >= low and fits(found) and (found == high or not fits(found + 1)):
            return found
        while low < high:  # a reserve that grows with the context (llama.cpp without flash attention): bisection
            middle = (low + high + 1) // 2
            low, high = (middle, high) if fits(middle) else (low, middle - 1)
        return low


def llm_need(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    context_tokens: int,
    batch: int,
    cards: int,
    *,
    gpu: Gpu | InlineGpu,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> MemoryNeed:
    """What each card of a ``cards``-way split of ``gpu`` needs for a models.yml model in a precisions.yml format,
    with the engine that runs the format."""
    engine = catalog.engine_of(precision)
    query = FitQuery(catalog, checkpoint(model, precision), engine, gpu, context_tokens, batch)
    return query.need(cards, kv_cache_dtype=kv_cache_dtype)


# --- verdicts ----------------------------------------------------------------------------------------------
def fit_split(query: FitQuery, cards: int, need: MemoryNeed | None = None) -> Fit:
    """The verdict for one copy of the model spread over exactly ``cards`` cards (as ``--tensor-parallel-size``
    forces it), at the first setting that makes it fit, in order: the engine's defaults (ONE_CARD, SPLIT); else
    TIGHT with the tight utilization, or with the KV cache in FP8, or with a server running at most
    ``tight_max_num_seqs`` streams, or with those streams and no CUDA graphs (at the default utilization, then at
    the tight one where offered), or at the longest context that fits at the default setting, or (llama.cpp) with
    the layers that do not fit in host memory; else NO_FIT. ``need``: that of these cards at the defaults, when
    known."""
    c, engine = query.catalog, query.engine
    need = query.need(cards) if need is None else need
    server = isinstance(engine, ServerEngine)
    shown = default_utilization(c, engine) if server else None
    budget = query.budget()
    dtype = query.kv_cache_dtype
    if need.total <= budget:
        verdict = Verdict.ONE_CARD if cards == 1 else Verdict.SPLIT
        return Fit(verdict, cards, need, budget, engine.id, shown, kv_cache_dtype=dtype)
    higher = tight_utilization(c, engine, query.gpu)
    if higher is not None and need.total <= (raised := query.budget(higher)):
        longest = query.longest_context(cards, budget)
        return Fit(Verdict.TIGHT, cards, need, raised, engine.id, higher, "utilization", longest, dtype)
    if server:
        lean = fit_with_server_settings(query, cards, need)
        if lean is not None:
            return lean
    longest = query.longest_context(cards, budget)
    if longest is not None:
        return Fit(Verdict.TIGHT, cards, need, budget, engine.id, shown, "context", longest, dtype)
    if isinstance(engine, LlamaCppEngine):
        in_host = fit_with_host_layers(query, cards, need)
        if in_host is not None:
            return in_host
    return Fit(Verdict.NO_FIT, cards, need, budget, engine.id, shown, kv_cache_dtype=dtype)


def fit_with_server_settings(query: FitQuery, cards: int, need: MemoryNeed) -> Fit | None:
    """TIGHT for a server engine at the context asked for with the KV cache in FP8, else with at most
    ``tight_max_num_seqs`` streams, else with those streams and no CUDA graphs (at the default utilization, then
    at the tight one where offered); None when none of them fits."""
    c, engine = query.catalog, query.engine
    assert isinstance(engine, ServerEngine)
    shown = default_utilization(c, engine)
    budget = query.budget()
    higher = tight_utilization(c, engine, query.gpu)
    if query.kv_cache_dtype == "bf16" and query.need(cards, kv_cache_dtype="fp8").total <= budget:
        longest = query.longest_context(cards, budget)
        return Fit(Verdict.TIGHT, cards, need, budget, engine.id, shown, "kv_cache_dtype", longest, "fp8")
    few = engine.tight_max_num_seqs.value
    for how, graphs, utilization in lean_settings(shown, higher):
        lean_budget = query.budget(utilization)
        lean = query.need(cards, max_num_seqs=few, cuda_graphs=graphs)
        if lean.total <= lean_budget:
            longest = query.longest_context(cards, budget)
            return Fit(
                Verdict.TIGHT,
                cards,
                need,
                lean_budget,
                engine.id,
                utilization,
                how,
                longest,
                query.kv_cache_dtype,
                tight_need=lean,
                max_num_seqs=few,
            )
    return None


def lean_settings(default: float, higher: float | None) -> list[tuple[TightBy, bool, float]]:
    """A server's settings for fewer streams, lightest first: ``--max-num-seqs``, then without CUDA graphs too,
    at the default utilization, then at the higher one where offered (how, CUDA graphs kept, utilization)."""
    settings: list[tuple[TightBy, bool, float]] = [("max_num_seqs", True, default), ("enforce_eager", False, default)]
    if higher is not None:
        settings += [("max_num_seqs", True, higher), ("enforce_eager", False, higher)]
    return settings


def fit_with_host_layers(query: FitQuery, cards: int, need: MemoryNeed) -> Fit | None:
    """TIGHT with as many layers on the ``cards`` cards as fit beside llama.cpp's reserve and the others in host
    memory (``sizing.engine.host_layers``), when the host's memory holds them; else None. ``need`` is that of
    every layer on the cards."""
    c, engine, model = query.catalog, query.engine, query.checkpoint.model
    assert isinstance(engine, LlamaCppEngine)
    activations, overhead = engine_reserve_bytes(engine, model, query.context_tokens, query.batch, cards)
    budget = query.budget()
    room = budget - activations - overhead
    element = kv_element_bytes(c, query.kv_cache_dtype)
    precision = query.checkpoint.precision
    plan = layers_on_cards(model, precision, cards, room, query.context_tokens, query.batch, element)
    if plan is None or plan.host_bytes > host_memory_bytes(c, query.gpu, cards):
        return None
    on_card = MemoryNeed(plan.busiest_card_weight_bytes, plan.busiest_card_kv_bytes, activations, overhead)
    return Fit(
        Verdict.TIGHT,
        cards,
        need,
        budget,
        engine.id,
        tight_by="gpu_layers",
        tight_need=on_card,
        host_weight_bytes=plan.host_weight_bytes,
        gpu_layers=plan.gpu_layers,
        kv_cache_dtype=query.kv_cache_dtype,
    )


def preference(fit: Fit, default: float | None) -> tuple[float, ...]:
    """How a practitioner ranks verdicts of the same model on different splits, smallest first: the engine's
    defaults, then each tight setting in the order ``fit_split`` tries them (a setting at the default utilization
    before the same at the higher one), each on the fewest cards; then the split that holds the longest context,
    then layers in host memory on the most cards (the most layers on cards), then no fit on the most cards (the
    best attempt)."""
    order: dict[TightBy | None, int] = {None: 0, "utilization": 1, "kv_cache_dtype": 2}
    if fit.verdict is Verdict.NO_FIT:
        return (9, -fit.cards)
    if fit.tight_by in ("max_num_seqs", "enforce_eager"):
        raised = fit.memory_utilization not in (None, default)
        return (3 + (fit.tight_by == "enforce_eager") + 2 * raised, fit.cards)
    if fit.tight_by == "context":
        return (7, -(fit.longest_context_tokens or 0), fit.cards)
    if fit.tight_by == "gpu_layers":
        return (8, -fit.cards)
    return (order[fit.tight_by], fit.cards)


def fit_llm_on(query: FitQuery, cards: int, fits: Mapping[int, Fit] | None = None) -> Fit:
    """The verdict for the model on ``cards`` cards: of every split of at most ``cards`` cards the engine can
    make (``fit_split``, or ``fits`` where given), the one a practitioner prefers (``preference``): the fewest
    cards that hold it at the engine's defaults (ONE_CARD, SPLIT), else the lightest tight setting on the fewest
    cards, else NO_FIT with the largest split as the best attempt."""
    found = fits if fits is not None else {k: fit_split(query, k) for k in query.splits(cards)}
    default = default_utilization(query.catalog, query.engine) if isinstance(query.engine, ServerEngine) else None
    return min((f for k, f in found.items() if k <= cards), key=lambda f: preference(f, default))


def nvswitch_splits(catalog: Catalog, node: Node) -> frozenset[int]:
    """The card counts of ``node`` whose split keeps the server engine's NVSwitch buffers: every count on an
    NVSwitch board of the architectures that have them, none elsewhere."""
    if node.link.topology != "nvswitch" or not switch_buffers_on(catalog, catalog.gpu_of(node).architecture):
        return frozenset()
    return frozenset(range(2, node.cards + 1))


def switch_buffers_on(catalog: Catalog, architecture: str | None) -> bool:
    """Whether a split across an NVSwitch board of ``architecture`` cards keeps the NVSwitch buffers."""
    return architecture in catalog.server_engine.nvswitch_buffers_gib.architectures


def card_nvswitch_splits(catalog: Catalog, gpu: Gpu | InlineGpu, cards: int) -> frozenset[int]:
    """The splits up to ``cards`` cards of ``gpu`` over NVLink that keep the NVSwitch buffers: those an NVSwitch node
    of the catalog makes of that card; none for a card given inline, taken to meet its peers over PCIe."""
    if isinstance(gpu, InlineGpu):
        return frozenset()
    boards = [nvswitch_splits(catalog, node) for node in catalog.nodes_of_gpu.get(gpu.id, ())]
    return frozenset(k for k in range(2, cards + 1) if any(k in splits for splits in boards))


def llm_query(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    gpu: Gpu | InlineGpu,
    context_tokens: int | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
    nvswitch_splits: frozenset[int] = frozenset(),
) -> FitQuery:
    """The verdict's question for a models.yml model in a precisions.yml format on cards of ``gpu``, at the site's
    default context unless given, with the engine that runs the format."""
    a = catalog.assumptions
    context = a.default_context_tokens.value if context_tokens is None else context_tokens
    engine = catalog.engine_of(precision)
    shape = checkpoint(model, precision)
    return FitQuery(catalog, shape, engine, gpu, context, a.default_batch.value, kv_cache_dtype, nvswitch_splits)


def fit_llm(catalog: Catalog, model: Llm, precision: Precision, node: Node, context_tokens: int | None = None) -> Fit:
    """The verdict for ``model`` on ``node`` (``fit_llm_on``)."""
    query = llm_query(
        catalog, model, precision, catalog.gpu_of(node), context_tokens, "bf16", nvswitch_splits(catalog, node)
    )
    return fit_llm_on(query, node.cards)


def pipeline_need(catalog: Catalog, model: DiffusionModel, precision: Precision) -> MemoryNeed:
    """What a whole image or video pipeline needs on one card: every component's weights, the working memory of
    its workload and the CUDA context."""
    require_precision(model, precision)
    overhead = catalog.assumptions.runtime_overhead_single_card_gib.value * GIB
    return MemoryNeed(model_weight_bytes(model, precision), 0.0, model.activation_reserve_gib * GIB, overhead)


def offloaded_need(catalog: Catalog, model: DiffusionModel, precision: Precision) -> MemoryNeed:
    """What a pipeline needs on one card when its parts take turns on it (``pipeline_offload_setting``): its
    largest part's weights, the working memory of its workload and the CUDA context."""
    whole = pipeline_need(catalog, model, precision)
    largest = max(component_bytes(c.role, c.params, precision) for c in model.components)
    return MemoryNeed(largest, 0.0, whole.activations, whole.overhead)


def partial_load_need(
    catalog: Catalog, model: DiffusionModel, precision: Precision, budget: float
) -> MemoryNeed | None:
    """What a card holds when its pipeline's parts take turns and the denoiser's layers fill what the working memory
    and the CUDA context leave of ``budget``, the others waiting in host memory (``pipeline_partial_load_setting``);
    None when the working memory and context alone exceed the budget."""
    at_a_time = offloaded_need(catalog, model, precision)
    room = budget - at_a_time.activations - at_a_time.overhead
    if room <= 0:
        return None
    return MemoryNeed(min(room, at_a_time.weights), 0.0, at_a_time.activations, at_a_time.overhead)


def seconds_per_pass_in_host_memory(catalog: Catalog, gpu: Gpu, fit: Fit) -> float:
    """The least time a ``"partial_load"`` fit spends at every pass of its denoiser copying the layers that wait in
    host memory over the card's PCIe link (``host_weight_bytes`` at the link's rate each way); 0 for other fits."""
    return fit.host_weight_bytes / (catalog.host_pcie_of(gpu).per_direction_gbps * GB)


def fit_diffusion(catalog: Catalog, model: DiffusionModel, precision: Precision, node: Node) -> Fit:
    """One job per card; if the pipeline does not fit on one card, place its components on at most the node's
    cards (text encoders beside the denoiser, as diffusers' device_map does), largest first, each where it fits,
    else on the least loaded card; if that fails too, TIGHT where one card holds the pipeline's largest part with
    the others waiting in host memory (``tight_by`` "offload"), else TIGHT with that part only partly on the card
    (``tight_by`` "partial_load"), else NO_FIT. A pipeline plans with the server
    engine's default share of the card (``card_budget`` without an engine). The need a verdict gives is that of
    the layout it judged: the whole pipeline on one card (for an offloaded fit, the need its parts take turns
    to meet), else the busiest card of the node's layout."""
    budget = card_budget(catalog, catalog.gpu_of(node))
    whole = pipeline_need(catalog, model, precision)
    if whole.total <= budget:
        return Fit(Verdict.ONE_CARD, 1, whole, budget)
    at_a_time = offloaded_need(catalog, model, precision)
    partial = partial_load_need(catalog, model, precision, budget)
    if at_a_time.total <= budget:
        offloaded: Fit | None = Fit(Verdict.TIGHT, 1, whole, budget, tight_by="offload", tight_need=at_a_time)
    elif partial is not None:
        waiting = at_a_time.weights - partial.weights
        offloaded = Fit(
            Verdict.TIGHT, 1, whole, budget, tight_by="partial_load", tight_need=partial, host_weight_bytes=waiting
        )
    else:
        offloaded = None
    if node.cards == 1:
        return offloaded or Fit(Verdict.NO_FIT, 1, whole, budget)
    denoiser = next(c for c in model.components if c.role == "denoiser")
    others = sorted(
        (component_bytes(c.role, c.params, precision) for c in model.components if c is not denoiser), reverse=True
    )
    split_overhead = catalog.assumptions.runtime_overhead_split_gib.value * GIB
    cards = [
        MemoryNeed(component_bytes("denoiser", denoiser.params, precision), 0.0, whole.activations, split_overhead)
    ]
    for size in others:
        slot = next((i for i, card in enumerate(cards) if card.total + size <= budget), None)
        if slot is None and len(cards) < node.cards:
            cards.append(MemoryNeed(size, 0.0, 0.0, split_overhead))
            continue
        if slot is None:
            slot = min(range(len(cards)), key=lambda i: cards[i].total)
        card = cards[slot]
        cards[slot] = MemoryNeed(card.weights + size, 0.0, card.activations, card.overhead)
    busiest = max(cards, key=lambda card: card.total)
    if busiest.total > budget:
        return offloaded or Fit(Verdict.NO_FIT, len(cards), busiest, budget)
    return Fit(Verdict.SPLIT, len(cards), busiest, budget)


def fit(
    catalog: Catalog,
    model: Llm | DiffusionModel,
    precision: Precision,
    node: Node,
    context_tokens: int | None = None,
) -> Fit:
    """The verdict for a model of the catalog on a node: an image or video pipeline's, or a language model's."""
    if isinstance(model, DiffusionModel):
        return fit_diffusion(catalog, model, precision, node)
    return fit_llm(catalog, model, precision, node, context_tokens)


def tight_setting(catalog: Catalog, fit: Fit) -> str | None:
    """The engine option a tight fit needs, as typed: ``--gpu-memory-utilization 0.95``, ``--kv-cache-dtype fp8``,
    ``--max-num-seqs 16``, ``--max-num-seqs 16 --enforce-eager`` (after ``--gpu-memory-utilization 0.95`` where
    that too is needed), ``--max-model-len N`` (llama.cpp: ``--ctx-size N``) for a shorter context; llama.cpp's
    ``--n-gpu-layers N`` for layers in host memory; for a pipeline, the call that makes its parts take turns on
    the card (``pipe.enable_model_cpu_offload()``) or leaves part of its denoiser in host memory."""
    if fit.verdict is not Verdict.TIGHT:
        return None
    pipeline_settings = {
        "offload": catalog.assumptions.pipeline_offload_setting.value,
        "partial_load": catalog.assumptions.pipeline_partial_load_setting.value,
    }
    if fit.tight_by in pipeline_settings:
        return pipeline_settings[fit.tight_by]
    engine = None if fit.engine is None else catalog.engines[fit.engine]
    if engine is not None and fit.tight_by == "context":
        return f"{engine.context_flag} {fit.longest_context_tokens}"
    if isinstance(engine, LlamaCppEngine) and fit.tight_by == "gpu_layers":
        return f"{engine.gpu_layers_flag.flag} {fit.gpu_layers}"
    if not isinstance(engine, ServerEngine):
        return None
    setting = server_setting(engine, fit)
    raised = fit.tight_by != "utilization" and fit.memory_utilization not in (
        None,
        default_utilization(catalog, engine),
    )
    return f"{engine.utilization_flag} {fit.memory_utilization:g} {setting}" if raised and setting else setting


def server_setting(engine: ServerEngine, fit: Fit) -> str | None:
    """The server option of a tight fit at the context asked (``tight_setting``)."""
    settings = {
        "utilization": f"{engine.utilization_flag} {fit.memory_utilization or 0:g}",
        "kv_cache_dtype": f"{engine.kv_cache_dtype_flag} fp8",
        "max_num_seqs": f"{engine.max_num_seqs_flag} {fit.max_num_seqs}",
        "enforce_eager": f"{engine.max_num_seqs_flag} {fit.max_num_seqs} {engine.tight_without_cuda_graphs.flag}",
    }
    return settings.get(fit.tight_by or "")


def tight_settings_offered(catalog: Catalog) -> dict[str, str]:
    """Every option a tight verdict may name, as ``tight_setting`` writes it, by ``Fit.tight_by`` (``N`` for the
    layers on the cards and the longest context, which vary)."""
    engine = next(e for e in catalog.engines.values() if isinstance(e, ServerEngine))
    tight = Verdict.TIGHT
    offered = {
        "utilization": Fit(tight, 1, NO_NEED, 0, engine.id, engine.tight_memory_utilization.value, "utilization"),
        "kv_cache_dtype": Fit(tight, 1, NO_NEED, 0, engine.id, tight_by="kv_cache_dtype"),
        "max_num_seqs": Fit(
            tight, 1, NO_NEED, 0, engine.id, tight_by="max_num_seqs", max_num_seqs=engine.tight_max_num_seqs.value
        ),
        "enforce_eager": Fit(
            tight, 1, NO_NEED, 0, engine.id, tight_by="enforce_eager", max_num_seqs=engine.tight_max_num_seqs.value
        ),
        "offload": Fit(tight, 1, NO_NEED, 0, tight_by="offload"),
        "partial_load": Fit(tight, 1, NO_NEED, 0, tight_by="partial_load"),
    }
    written = {how: tight_setting(catalog, fit) or "" for how, fit in offered.items()}
    llama_cpp = next(e for e in catalog.engines.values() if isinstance(e, LlamaCppEngine))
    varying = {  # N: the layers on the cards, or the longest context that fits
        "gpu_layers": f"{llama_cpp.gpu_layers_flag.flag} N",
        "context": f"{engine.context_flag} N",
    }
    return written | varying
