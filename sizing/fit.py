"""Fit verdicts: does a model fit on one card of a node, must it be split across k cards, or not fit?"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .catalog import Catalog
from .memory import component_bytes, kv_cache_bytes, require_precision, weight_bytes
from .schema import DiffusionModel, Gpu, Llm, Node, Precision
from .units import GIB


class Verdict(str, Enum):
    ONE_CARD = "one-card"
    SPLIT = "split"
    NO_FIT = "no-fit"


@dataclass(frozen=True)
class MemoryNeed:
    """Bytes one card needs, term by term."""

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
        terms = {"weights": self.weights, "kv_cache": self.kv_cache,
                 "activations": self.activations, "overhead": self.overhead}
        return max(terms, key=terms.__getitem__)


@dataclass(frozen=True)
class Fit:
    """A verdict with what explains it. For NO_FIT, ``need`` is the best attempt (``cards`` = its k)."""

    verdict: Verdict
    cards: int
    need: MemoryNeed
    budget: float

    @property
    def headroom(self) -> float:
        return self.budget - self.need.total

    @property
    def fits(self) -> bool:
        return self.verdict is not Verdict.NO_FIT


def card_budget(catalog: Catalog, gpu: Gpu) -> float:
    """Bytes a runtime may use on one card: usable fraction of what the runtime sees."""
    a = catalog.assumptions
    return a.usable_memory_fraction.value * a.runtime_visible_memory_fraction.value * gpu.memory_gb * GIB


def valid_splits(model: Llm, max_cards: int) -> list[int]:
    """Tensor-parallel degrees k ≤ max_cards: heads divisible by k; KV heads divide k or k divides them."""
    def ok(k: int) -> bool:
        if model.attention_heads % k:
            return False
        return model.kv_heads % k == 0 if k <= model.kv_heads else k % model.kv_heads == 0
    return [k for k in range(1, max_cards + 1) if ok(k)]


def llm_need(catalog: Catalog, model: Llm, precision: Precision, context_tokens: int, batch: int,
             cards: int) -> MemoryNeed:
    a = catalog.assumptions
    activation = (a.activation_reserve_moe_gib if model.is_moe else a.activation_reserve_dense_gib).value
    overhead = (a.runtime_overhead_single_card_gib if cards == 1 else a.runtime_overhead_split_gib).value
    return MemoryNeed(
        weights=weight_bytes(model, precision) / cards,
        kv_cache=kv_cache_bytes(model, context_tokens, batch, a.kv_cache_bytes_per_element.value, cards),
        activations=activation * GIB,
        overhead=overhead * GIB,
    )


def split_needs(catalog: Catalog, model: Llm, precision: Precision, max_cards: int,
                context_tokens: int | None = None, batch: int | None = None) -> dict[int, MemoryNeed]:
    """What one card needs for each valid split k ≤ ``max_cards``, smallest k first. It depends on the
    model, not on the GPU: one computation serves every node."""
    a = catalog.assumptions
    context_tokens = a.default_context_tokens.value if context_tokens is None else context_tokens
    batch = a.default_batch.value if batch is None else batch
    return {k: llm_need(catalog, model, precision, context_tokens, batch, k) for k in valid_splits(model, max_cards)}


def fit_split(needs: dict[int, MemoryNeed], cards: int, budget: float) -> Fit:
    """The smallest split of ``needs`` within ``cards`` cards that fits ``budget``, or the best attempt."""
    attempt: tuple[int, MemoryNeed] | None = None
    for k, need in needs.items():
        if k > cards:
            break
        if need.total <= budget:
            return Fit(Verdict.ONE_CARD if k == 1 else Verdict.SPLIT, k, need, budget)
        attempt = (k, need)
    assert attempt is not None  # k = 1 is always a valid split
    return Fit(Verdict.NO_FIT, attempt[0], attempt[1], budget)


def fit_llm(catalog: Catalog, model: Llm, precision: Precision, node: Node,
            context_tokens: int | None = None, batch: int | None = None) -> Fit:
    """The smallest valid split of ``model`` that fits on ``node``, or the best attempt if none does."""
    needs = split_needs(catalog, model, precision, node.cards, context_tokens, batch)
    return fit_split(needs, node.cards, card_budget(catalog, catalog.gpu_of(node)))


def fit_diffusion(catalog: Catalog, model: DiffusionModel, precision: Precision, node: Node) -> Fit:
    """One job per card; if the pipeline does not fit on one card, place its components on several
    (text encoders beside the denoiser, as diffusers' device_map does), largest first."""
    require_precision(model, precision)
    a = catalog.assumptions
    budget = card_budget(catalog, catalog.gpu_of(node))
    activation = model.activation_reserve_gib * GIB
    single = a.runtime_overhead_single_card_gib.value * GIB
    whole = MemoryNeed(weight_bytes(model, precision), 0.0, activation, single)
    if whole.total <= budget:
        return Fit(Verdict.ONE_CARD, 1, whole, budget)
    denoiser = next(c for c in model.components if c.role == "denoiser")
    others = sorted((component_bytes(c.role, c.params, precision) for c in model.components
                     if c is not denoiser), reverse=True)
    split_overhead = a.runtime_overhead_split_gib.value * GIB
    cards = [MemoryNeed(component_bytes("denoiser", denoiser.params, precision), 0.0, activation, split_overhead)]
    for size in others:
        slot = next((i for i, card in enumerate(cards) if card.total + size <= budget), None)
        if slot is None:
            cards.append(MemoryNeed(size, 0.0, 0.0, split_overhead))
        else:
            card = cards[slot]
            cards[slot] = MemoryNeed(card.weights + size, 0.0, card.activations, card.overhead)
    busiest = max(cards, key=lambda card: card.total)
    if busiest.total > budget or len(cards) > node.cards:
        return Fit(Verdict.NO_FIT, min(len(cards), node.cards), busiest, budget)
    return Fit(Verdict.SPLIT, len(cards), busiest, budget)


def fit(catalog: Catalog, model: Llm | DiffusionModel, precision: Precision, node: Node,
        context_tokens: int | None = None, batch: int | None = None) -> Fit:
    if isinstance(model, DiffusionModel):
        return fit_diffusion(catalog, model, precision, node)
    return fit_llm(catalog, model, precision, node, context_tokens, batch)
