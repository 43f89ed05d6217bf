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

from collections.abc import Callable
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
    model_weight_bytes,
    require_precision,
)
from sizing.engine.reserve import BatchBudget, llama_cpp_reserve, server_batch_budget, server_reserve
from sizing.engine.specs import LlmShape, llm_shape, precision_spec

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
) -> tuple[float, float]:
    """What the engine keeps on each card of a ``cards``-way split besides weights and KV cache:
    (activations, overhead) (``sizing.engine.reserve``). llama.cpp: its compute buffer and CUDA context; a server
    engine: the activation peak of its profiling batch ``budget`` (the larger default when not given), memory
    outside PyTorch and, unless run without them (``--enforce-eager``), CUDA graphs."""
    if isinstance(engine, LlamaCppEngine):
        reserve = llama_cpp_reserve(engine, model, context_tokens, batch)
    else:
        if budget is None:
            large = engine.batch_budget.large_card
            budget = BatchBudget(large.tokens, large.sequences)
        reserve = server_reserve(engine, model, cards, budget, cuda_graphs)
    return reserve.activations, reserve.overhead


def llm_need(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    context_tokens: int,
    batch: int,
    cards: int,
    *,
    gpu: Gpu | InlineGpu | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
    max_num_seqs: int | None = None,
    cuda_graphs: bool = True,
) -> MemoryNeed:
    """What each card of a ``cards``-way split of ``gpu`` needs, with the engine that runs ``precision`` and the
    KV cache in ``kv_cache_dtype``; a server engine profiles its default batch, or at most ``max_num_seqs``
    sequences of it, and keeps CUDA graphs unless ``cuda_graphs`` is False."""
    engine = catalog.engine_of(precision)
    shape = llm_shape(model)
    bytes_per_element = kv_element_bytes(catalog, kv_cache_dtype)
    kv_cache = kv_cache_bytes_per_card(shape, context_tokens, batch, bytes_per_element, cards, engine.parallelism)
    budget = with_max_num_seqs(batch_budget_on(engine, gpu, catalog), max_num_seqs)
    activations, overhead = engine_reserve_bytes(engine, shape, context_tokens, batch, cards, budget, cuda_graphs)
    return MemoryNeed(model_weight_bytes(model, precision) / cards, kv_cache, activations, overhead)


def split_needs(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    max_cards: int,
    context_tokens: int | None = None,
    batch: int | None = None,
    *,
    gpu: Gpu | InlineGpu | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> dict[int, MemoryNeed]:
    """What one card of ``gpu`` needs for each split k ≤ ``max_cards`` the engine allows, smallest k first. It
    depends on the model and on the card's class (the engine's default batch), not on the node: one computation
    serves every node of a class."""
    a = catalog.assumptions
    context_tokens = a.default_context_tokens.value if context_tokens is None else context_tokens
    batch = a.default_batch.value if batch is None else batch
    engine = catalog.engine_of(precision)
    return {
        k: llm_need(catalog, model, precision, context_tokens, batch, k, gpu=gpu, kv_cache_dtype=kv_cache_dtype)
        for k in engine_splits(engine, llm_shape(model), max_cards)
    }


def longest_context(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    cards: int,
    budget: float,
    below: int,
    batch: int | None = None,
    *,
    gpu: Gpu | InlineGpu | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> int | None:
    """The longest context, in whole tokens, shorter than ``below`` (and at most the model's), whose need on each
    of ``cards`` cards stays within ``budget``; None when not even ``tight_min_context_tokens`` fits."""
    a = catalog.assumptions
    batch = a.default_batch.value if batch is None else batch
    low, high = a.tight_min_context_tokens.value, min(below - 1, model.max_context_tokens)

    def fits(tokens: int) -> bool:
        need = llm_need(catalog, model, precision, tokens, batch, cards, gpu=gpu, kv_cache_dtype=kv_cache_dtype)
        return need.total <= budget

    if low > high or not fits(low):
        return None
    while low < high:  # need grows with the context: the last that fits, by bisection
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


# --- verdicts ----------------------------------------------------------------------------------------------
def fit_llm_on(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    gpu: Gpu,
    cards: int,
    context_tokens: int | None = None,
    batch: int | None = None,
    needs: dict[int, MemoryNeed] | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> Fit:
    """The verdict for ``model`` on ``cards`` cards of ``gpu``, in order of preference: the fewest cards that
    fit at the engine's default setting (ONE_CARD, SPLIT); else TIGHT: the fewest cards that fit at the context
    asked for with the tight utilization, or else with the KV cache in FP8, or else with a server running at most
    ``tight_max_num_seqs`` streams, or else with those streams and no CUDA graphs (at the default utilization, then
    at the tight one where offered), or else the split that holds the longest context at the default setting, or
    else (llama.cpp) every card with the layers that do not fit in host memory; else NO_FIT with the largest split
    as the best attempt. ``needs`` (from ``split_needs`` for this card and
    KV-cache precision, any ``max_cards`` ≥ ``cards``) saves recomputing them."""
    a = catalog.assumptions
    context_tokens = a.default_context_tokens.value if context_tokens is None else context_tokens
    batch = a.default_batch.value if batch is None else batch
    engine = catalog.engine_of(precision)
    if needs is None:
        needs = split_needs(
            catalog, model, precision, cards, context_tokens, batch, gpu=gpu, kv_cache_dtype=kv_cache_dtype
        )
    splits = [k for k in needs if k <= cards]
    share = default_utilization(catalog, engine)
    shown = share if isinstance(engine, ServerEngine) else None
    budget = card_budget(catalog, gpu, engine)
    for k in splits:
        if needs[k].total <= budget:
            verdict = Verdict.ONE_CARD if k == 1 else Verdict.SPLIT
            return Fit(verdict, k, needs[k], budget, engine.id, shown, kv_cache_dtype=kv_cache_dtype)

    def longest(k: int) -> int | None:
        return longest_context(
            catalog, model, precision, k, budget, context_tokens, batch, gpu=gpu, kv_cache_dtype=kv_cache_dtype
        )

    higher = tight_utilization(catalog, engine, gpu)
    if higher is not None:
        tight_budget = card_budget(catalog, gpu, engine, higher)
        for k in splits:
            if needs[k].total <= tight_budget:
                return Fit(
                    Verdict.TIGHT,
                    k,
                    needs[k],
                    tight_budget,
                    engine.id,
                    higher,
                    "utilization",
                    longest(k),
                    kv_cache_dtype,
                )
    if isinstance(engine, ServerEngine):
        lean = fit_with_server_settings(
            catalog, model, precision, gpu, splits, needs, context_tokens, batch, kv_cache_dtype, longest
        )
        if lean is not None:
            return lean
    shorter = [(tokens, k) for k in splits if (tokens := longest(k)) is not None]
    if shorter:
        tokens, k = max(shorter, key=lambda found: (found[0], -found[1]))  # longest context, then fewest cards
        return Fit(Verdict.TIGHT, k, needs[k], budget, engine.id, shown, "context", tokens, kv_cache_dtype)
    k = splits[-1]
    if isinstance(engine, LlamaCppEngine):
        in_host = fit_with_host_layers(
            catalog, model, precision, gpu, k, context_tokens, batch, needs[k], kv_cache_dtype
        )
        if in_host is not None:
            return in_host
    return Fit(Verdict.NO_FIT, k, needs[k], budget, engine.id, shown, kv_cache_dtype=kv_cache_dtype)


def fit_with_server_settings(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    gpu: Gpu,
    splits: list[int],
    needs: dict[int, MemoryNeed],
    context_tokens: int,
    batch: int,
    kv_cache_dtype: KvCacheDtype,
    longest: Callable[[int], int | None],
) -> Fit | None:
    """TIGHT for a server engine at the context asked for with the KV cache in FP8, else with at most
    ``tight_max_num_seqs`` streams, else with those streams and no CUDA graphs (at the default utilization, then
    at the tight one where offered), the fewest cards first; None when none of them fits."""
    engine = catalog.engine_of(precision)
    assert isinstance(engine, ServerEngine)
    shown = default_utilization(catalog, engine)
    budget = card_budget(catalog, gpu, engine)
    higher = tight_utilization(catalog, engine, gpu)
    if kv_cache_dtype == "bf16":
        for k in splits:
            fp8 = llm_need(catalog, model, precision, context_tokens, batch, k, gpu=gpu, kv_cache_dtype="fp8")
            if fp8.total <= budget:
                return Fit(Verdict.TIGHT, k, needs[k], budget, engine.id, shown, "kv_cache_dtype", longest(k), "fp8")
    few = engine.tight_max_num_seqs.value
    lean_settings: list[tuple[TightBy, bool, float, float | None]] = [
        ("max_num_seqs", True, budget, shown),
        ("enforce_eager", False, budget, shown),
    ]
    if higher is not None:  # then the same with the higher utilization, where the card is large enough
        raised = card_budget(catalog, gpu, engine, higher)
        lean_settings += [("max_num_seqs", True, raised, higher), ("enforce_eager", False, raised, higher)]
    for how, graphs, lean_budget, utilization in lean_settings:
        for k in splits:
            lean = llm_need(
                catalog,
                model,
                precision,
                context_tokens,
                batch,
                k,
                gpu=gpu,
                kv_cache_dtype=kv_cache_dtype,
                max_num_seqs=few,
                cuda_graphs=graphs,
            )
            if lean.total <= lean_budget:
                return Fit(
                    Verdict.TIGHT,
                    k,
                    needs[k],
                    lean_budget,
                    engine.id,
                    utilization,
                    how,
                    longest(k),
                    kv_cache_dtype,
                    tight_need=lean,
                    max_num_seqs=few,
                )
    return None


def fit_with_host_layers(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    gpu: Gpu,
    cards: int,
    context_tokens: int,
    batch: int,
    need: MemoryNeed,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> Fit | None:
    """TIGHT with as many layers on the ``cards`` cards as fit beside llama.cpp's reserve and the others in host
    memory (``sizing.engine.host_layers``), when the host's memory holds them; else None. ``need`` is that of
    every layer on the cards."""
    engine = catalog.engine_of(precision)
    assert isinstance(engine, LlamaCppEngine)
    shape = llm_shape(model)
    activations, overhead = engine_reserve_bytes(engine, shape, context_tokens, batch, cards)
    budget = card_budget(catalog, gpu, engine)
    room = budget - activations - overhead
    bytes_per_element = kv_element_bytes(catalog, kv_cache_dtype)
    plan = layers_on_cards(shape, precision_spec(precision), cards, room, context_tokens, batch, bytes_per_element)
    if plan is None or plan.host_bytes > host_memory_bytes(catalog, gpu, cards):
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
        kv_cache_dtype=kv_cache_dtype,
    )


def fit_on_cards(
    catalog: Catalog, model: Llm, precision: Precision, gpu: Gpu, cards: int, context_tokens: int | None = None
) -> Fit | None:
    """The verdict on exactly ``cards`` cards (one copy of the model spread over all of them, as
    ``--tensor-parallel-size`` forces it), None when the format's engine cannot split the model that way."""
    needs = split_needs(catalog, model, precision, cards, context_tokens, gpu=gpu)
    if cards not in needs:
        return None
    return fit_llm_on(catalog, model, precision, gpu, cards, context_tokens, needs={cards: needs[cards]})


def fit_llm(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    node: Node,
    context_tokens: int | None = None,
    batch: int | None = None,
) -> Fit:
    """The verdict for ``model`` on ``node`` (see ``fit_llm_on``)."""
    return fit_llm_on(catalog, model, precision, catalog.gpu_of(node), node.cards, context_tokens, batch)


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
    batch: int | None = None,
) -> Fit:
    if isinstance(model, DiffusionModel):
        return fit_diffusion(catalog, model, precision, node)
    return fit_llm(catalog, model, precision, node, context_tokens, batch)


def tight_setting(catalog: Catalog, fit: Fit) -> str | None:
    """The engine option a tight fit needs, as typed: ``--gpu-memory-utilization 0.95``, ``--kv-cache-dtype fp8``,
    ``--max-num-seqs 16``, ``--max-num-seqs 16 --enforce-eager`` (after ``--gpu-memory-utilization 0.95`` where
    that too is needed); llama.cpp's ``--n-gpu-layers N`` for layers in host memory; for a pipeline, the call that
    makes its parts take
    turns on the card (``pipe.enable_model_cpu_offload()``) or leaves part of its denoiser in host memory."""
    if fit.verdict is not Verdict.TIGHT:
        return None
    pipeline_settings = {
        "offload": catalog.assumptions.pipeline_offload_setting.value,
        "partial_load": catalog.assumptions.pipeline_partial_load_setting.value,
    }
    if fit.tight_by in pipeline_settings:
        return pipeline_settings[fit.tight_by]
    engine = None if fit.engine is None else catalog.engines[fit.engine]
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
    """The server option of a tight fit (``tight_setting``); None for a shorter context."""
    settings = {
        "utilization": f"{engine.utilization_flag} {fit.memory_utilization or 0:g}",
        "kv_cache_dtype": f"{engine.kv_cache_dtype_flag} fp8",
        "max_num_seqs": f"{engine.max_num_seqs_flag} {fit.max_num_seqs}",
        "enforce_eager": f"{engine.max_num_seqs_flag} {fit.max_num_seqs} {engine.tight_without_cuda_graphs.flag}",
    }
    return settings.get(fit.tight_by or "")


def tight_settings_offered(catalog: Catalog) -> dict[str, str]:
    """Every option a tight verdict may name, as ``tight_setting`` writes it, by ``Fit.tight_by`` (``N`` for the
    layers on the cards, which vary)."""
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
    return written | {"gpu_layers": f"{llama_cpp.gpu_layers_flag.flag} N"}  # N: the layers on the cards
