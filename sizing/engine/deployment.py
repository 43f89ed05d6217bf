"""How a node runs a language model, decided once: every way the engine can lay the model out on the node's cards
(copies of k cards each, at the setting that makes k cards hold it), and the one a practitioner would run.

A ``Layout`` is one such way: its fit verdict on k cards, one copy's decode setup (``sizing.engine.decode``), the
most streams its engine runs at once, the streams whose KV cache fits at the context, and their speeds. The
``Deployment`` of a node keeps every layout, the verdict a reader is told (the fewest cards that hold the model:
``fit.fit_llm_on``) and the layout the node runs (``chosen``, by ``best_layout``): memory, speed, time to first
token, the plan, the estimator and every page read these, and nothing downstream resolves or decides again.

The rule (``best_layout``): a layout at the engine's defaults before one that needs a tight setting, one that needs
a setting at the context asked before one at a shorter context (the longest context first), layers in host memory
last; within that, the most tokens per second at full load over the whole node, layouts within
``layout_tie_share`` of the most counting as tied, and of those the faster stream, then the fewer cards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from sizing.catalog.schema import Gpu, InlineGpu, LlamaCppEngine
from sizing.engine.decode import (
    DecodeConstants,
    DecodeSetup,
    price_per_million_tokens,
    steps_seconds,
    streams_that_fit,
)
from sizing.engine.fit import (
    Fit,
    FitQuery,
    Verdict,
    batch_budget_on,
    fit_llm_on,
    fit_split,
    kv_element_bytes,
    step_batch_tokens,
)
from sizing.engine.memory import kv_cache_bytes_per_card
from sizing.engine.specs import HostLayers, LinkSpec, gpu_spec


@dataclass(frozen=True)
class NodeCards:
    """What a node offers a model: ``count`` cards of ``gpu``, the link a split over k of them crosses
    (``links[k]``, None for one card) and the bandwidth of its host's memory (layers left there)."""

    gpu: Gpu | InlineGpu
    count: int
    links: tuple[LinkSpec | None, ...]
    host_memory_bandwidth_gbps: float

    def link(self, cards: int) -> LinkSpec | None:
        return self.links[cards]


@dataclass(frozen=True)
class Layout:
    """``copies`` copies of the model side by side, each on ``fit.cards`` cards at the setting ``fit`` names: one
    copy's decode ``setup`` (at a shorter context where the fit holds only there), the most streams its engine
    runs at once, the streams whose KV cache fits beside the weights (one with layers in host memory: the cards
    are full of layers; the copies share the host's memory bandwidth), and the typical and floor tokens/s of one
    stream and the typical total of a full copy."""

    fit: Fit
    copies: int
    setup: DecodeSetup
    most_streams: int
    streams_per_copy: int
    typical: float
    floor: float
    total_per_copy: float

    @property
    def cards(self) -> int:
        """Cards one copy uses."""
        return self.fit.cards

    @property
    def context_tokens(self) -> int:
        return self.setup.context_tokens

    @property
    def streams(self) -> int:
        """Streams the whole node serves at once: every copy at full load."""
        return self.copies * self.streams_per_copy

    @property
    def total(self) -> float:
        """Typical tokens/s of the whole node at full load."""
        return self.copies * self.total_per_copy

    def price_per_million_tokens(self, monthly_usd: float, hours_per_month: float) -> float | None:
        """What a million generated tokens cost on a node rented at ``monthly_usd`` and kept at full load."""
        return price_per_million_tokens(monthly_usd, hours_per_month, self.total) if self.total > 0 else None


@dataclass(frozen=True)
class Deployment:
    """A model on a node: the verdict a reader is told (the fewest cards that hold it), every layout that holds it
    (fewest cards first) and the one the node runs (None when none holds it)."""

    verdict: Fit
    layouts: tuple[Layout, ...]
    chosen: Layout | None


# --- the engine's figures ------------------------------------------------------------------------------------
def stream_cap(query: FitQuery, max_num_seqs: int | None = None) -> int:
    """The most streams the engine runs at once: a server's ``--max-num-seqs`` (its default for the card's class,
    or the fewer a tight setting names), llama.cpp's server slots (``--parallel``)."""
    engine = query.engine
    if isinstance(engine, LlamaCppEngine):
        return engine.parallel_slots.value
    budget = batch_budget_on(engine, query.gpu, query.catalog)
    assert budget is not None
    return budget.sequences if max_num_seqs is None else min(budget.sequences, max_num_seqs)


def streams_beside_weights(fit: Fit, kv_bytes_per_stream: float, most_streams: int) -> int:
    """Streams whose KV cache fits in what a card keeps after weights, activations and runtime, at the fit's own
    budget and need (at its tight setting where it has one), so the count and the verdict never disagree; at most
    ``most_streams``."""
    if kv_bytes_per_stream <= 0:
        return most_streams
    need = fit.tight_need or fit.need
    return streams_that_fit(
        fit.budget, need.weights, need.activations + need.overhead, kv_bytes_per_stream, most_streams
    )


def decode_setup(query: FitQuery, node: NodeCards, fit: Fit) -> DecodeSetup:
    """One copy as its decode steps run at the fit's setting: at the longest context that fits where the fit holds
    only at a shorter one, the KV cache in the fit's precision, the layers it leaves in host memory."""
    context = query.context_tokens
    if fit.tight_by == "context" and fit.longest_context_tokens is not None:
        context = fit.longest_context_tokens
    c = query.catalog
    constants = DecodeConstants.from_assumptions(c.assumptions)
    constants = replace(constants, kv_cache_bytes_per_element=kv_element_bytes(c, fit.kv_cache_dtype))
    host = None
    if fit.tight_by == "gpu_layers" and fit.gpu_layers is not None:  # the copies share the host's memory
        host = HostLayers(fit.gpu_layers, node.host_memory_bandwidth_gbps * fit.cards / node.count)
    return DecodeSetup(
        gpu=gpu_spec(query.gpu),
        link=node.link(fit.cards),
        model=query.checkpoint.model,
        precision=query.checkpoint.precision,
        cards=fit.cards,
        parallelism=query.engine.parallelism,
        context_tokens=context,
        constants=constants,
        engine_class=query.engine.kind,
        host_layers=host,
        batch_tokens=step_batch_tokens(query.engine, query.gpu, c),
    )


def layout_of(query: FitQuery, node: NodeCards, fit: Fit) -> Layout:
    """The layout a fit on ``fit.cards`` cards makes of the node (``fit`` must hold)."""
    setup = decode_setup(query, node, fit)
    most = stream_cap(query, fit.max_num_seqs)
    streams = 1
    if setup.host_layers is None:
        element = setup.constants.kv_cache_bytes_per_element
        per_stream = kv_cache_bytes_per_card(
            setup.model, setup.context_tokens, 1, element, fit.cards, setup.parallelism
        )
        streams = max(1, streams_beside_weights(fit, per_stream, most))
    alone, full = steps_seconds(setup, (1, streams))  # one pass: what does not depend on the streams, once
    typical = 1 / alone.total
    total = streams / full.total
    floor = typical * setup.constants.floor_factor
    return Layout(fit, node.count // fit.cards, setup, most, streams, typical, floor, total)


# --- the rule ------------------------------------------------------------------------------------------------
def setting_class(fit: Fit) -> tuple[int, int]:
    """Which layouts compete on speed: the engine's defaults (0), a tight setting at the context asked (1), a
    shorter context (2, the longest first), layers in host memory (3)."""
    if fit.verdict is not Verdict.TIGHT:
        return (0, 0)
    if fit.tight_by == "context":
        return (2, -(fit.longest_context_tokens or 0))
    if fit.tight_by == "gpu_layers":
        return (3, 0)
    return (1, 0)


def best_layout(layouts: tuple[Layout, ...], tie_share: float) -> Layout | None:
    """The layout the node runs: of the best setting class (``setting_class``), the most tokens/s at full load
    over the node, layouts within ``tie_share`` of the most tied; of those the faster stream, then fewer cards."""
    if not layouts:
        return None
    best_class = min(setting_class(layout.fit) for layout in layouts)
    contenders = [layout for layout in layouts if setting_class(layout.fit) == best_class]
    most = max(layout.total for layout in contenders)
    tied = [layout for layout in contenders if layout.total >= (1 - tie_share) * most]
    return min(tied, key=lambda layout: (-layout.typical, layout.cards))


# --- a deployment --------------------------------------------------------------------------------------------
def deploy(query: FitQuery, node: NodeCards, split_fits: Mapping[int, Fit] | None = None) -> Deployment:
    """Every layout the engine can make of the model on the node's cards, the verdict and the layout it runs.
    ``split_fits``: the verdict of each split the node can make, when known (``fit_split`` of the query: shared by
    the nodes of one card, whatever their count)."""
    splits = query.splits(node.count)
    fits = {k: fit_split(query, k) if split_fits is None else split_fits[k] for k in splits}
    verdict = fit_llm_on(query, node.count, fits)
    layouts = tuple(layout_of(query, node, f) for f in fits.values() if f.fits)
    tie = query.catalog.assumptions.layout_tie_share.value
    return Deployment(verdict, layouts, best_layout(layouts, tie))
