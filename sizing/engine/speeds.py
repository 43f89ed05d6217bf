"""Decode speed of a model on the cards a fit verdict uses, over the node's own link (``sizing.engine.decode``):
typical and floor for one stream, how many streams fit beside the weights at the context, the typical
total at that load, and what a million output tokens cost at it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm, Node, Precision
from sizing.engine.decode import (
    DecodeConstants,
    EngineClass,
    LinkSpec,
    Parallelism,
    kv_bytes_per_stream_per_card,
    price_per_million_output_tokens,
    step_seconds,
)
from sizing.engine.fit import Fit, kv_element_bytes
from sizing.engine.scenarios import gpu_spec, link_spec, model_spec, precision_spec


@dataclass(frozen=True)
class Speed:
    """Tokens per second of a model on the cards its verdict uses (one copy of the model); a node with more
    cards runs ``copies_on`` copies side by side."""

    cards: int  # cards one copy of the model uses
    typical: float  # one stream, what a current engine reaches
    floor: float  # one stream, a bound real runs beat
    streams_per_copy: int  # streams of the context whose KV cache fits beside one copy's weights
    total_per_copy: float  # typical tokens/s of all those streams together

    def copies_on(self, node: Node) -> int:
        return node.cards // self.cards

    def streams_on(self, node: Node) -> int:
        """Streams the whole node serves at once: every copy at full load."""
        return self.copies_on(node) * self.streams_per_copy

    def total_on(self, node: Node) -> float:
        """Typical tokens/s of the whole node at full load."""
        return self.copies_on(node) * self.total_per_copy

    def price_per_million_tokens(self, catalog: Catalog, node: Node) -> float | None:
        """What a million output tokens cost on ``node`` kept at full load all month."""
        total = self.total_on(node)
        if total <= 0:
            return None
        return price_per_million_output_tokens(
            node.price_per_month.amount, catalog.assumptions.hours_per_month.value, total
        )


def engine_of(catalog: Catalog, precision: Precision) -> tuple[EngineClass, Parallelism]:
    """The engine that runs the format (engines.yml): llama.cpp for GGUF files, its cards taking turns (layer
    split); a server engine (vLLM, SGLang) for the others, splitting every layer (tensor parallelism)."""
    engine = catalog.engine_of(precision)
    return engine.kind, engine.parallelism


def node_link(catalog: Catalog, node: Node, cards: int) -> LinkSpec | None:
    """The link ``cards`` cards of ``node`` talk over: none on one card; bridged pairs beyond two cards
    talk over the host's PCIe (``collectives.node_bus_link``)."""
    if cards == 1:
        return None
    gpu = catalog.gpu_of(node)
    if node.link.topology == "bridged-pairs" and cards > 2:
        return link_spec(catalog.host_pcie_of(gpu), gpu.peer_to_peer)
    return link_spec(catalog.interconnect_of(node), gpu.peer_to_peer)


def streams_beside_weights(fit: Fit, kv_bytes_per_stream: float, max_streams: int) -> int:
    """Streams whose KV cache fits in what the card keeps after weights, activations and runtime: the fit's
    own budget and need, so the count and the verdict never disagree."""
    need = fit.need
    free = fit.budget - need.weights - need.activations - need.overhead
    return max(0, min(int(free // kv_bytes_per_stream), max_streams)) if kv_bytes_per_stream > 0 else max_streams


def speed_for_fit(
    catalog: Catalog, model: Llm, precision: Precision, node: Node, fit: Fit, context_tokens: int
) -> Speed | None:
    """The speed on the cards ``fit`` uses; None when the model does not fit. A fit that holds only at a shorter
    context is timed at that context."""
    if not fit.fits:
        return None
    if fit.tight_by == "context" and fit.longest_context_tokens is not None:
        context_tokens = fit.longest_context_tokens
    constants = DecodeConstants.from_assumptions(catalog.assumptions)
    if fit.tight_by == "kv_cache_dtype":  # it fits with the KV cache in FP8: it runs so
        constants = replace(constants, kv_cache_bytes_per_element=kv_element_bytes(catalog, "fp8"))
    engine_class, parallelism = engine_of(catalog, precision)
    spec = model_spec(catalog, model.id)
    setup = dict(
        gpu=gpu_spec(catalog.gpu_of(node)),
        link=node_link(catalog, node, fit.cards),
        model=spec,
        precision=precision_spec(catalog, precision.id, model.id),
        cards=fit.cards,
        parallelism=parallelism,
        context_tokens=context_tokens,
        constants=constants,
        engine_class=engine_class,
    )
    typical = 1 / step_seconds(concurrency=1, **setup).total  # type: ignore[arg-type]
    kv_per_stream = kv_bytes_per_stream_per_card(
        spec, context_tokens, fit.cards, parallelism, constants.kv_cache_bytes_per_element
    )
    streams = max(1, streams_beside_weights(fit, kv_per_stream, constants.max_running_streams))
    total = streams / step_seconds(concurrency=streams, **setup).total  # type: ignore[arg-type]
    return Speed(fit.cards, typical, typical * constants.floor_factor, streams, total)
