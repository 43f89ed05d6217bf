"""Decode speed of a model on the cards a fit verdict uses, over the node's own link (``sizing.engine.decode``):
typical and floor for one stream, how many streams fit beside the weights at the context, the typical
total at that load, and what a million generated tokens cost at it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import EngineClass, Llm, Node, Parallelism, Precision
from sizing.engine.decode import DecodeConstants, price_per_million_tokens, step_seconds, streams_that_fit
from sizing.engine.fit import Fit, fit_on_cards, kv_element_bytes
from sizing.engine.links import node_link
from sizing.engine.memory import kv_cache_bytes_per_card
from sizing.engine.specs import HostLayers, gpu_spec, llm_shape, precision_spec


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
        """What a million generated tokens cost on ``node`` kept at full load all month."""
        total = self.total_on(node)
        if total <= 0:
            return None
        return price_per_million_tokens(node.price_per_month.amount, catalog.assumptions.hours_per_month.value, total)


def engine_of(catalog: Catalog, precision: Precision) -> tuple[EngineClass, Parallelism]:
    """The engine that runs the format (engines.yml): llama.cpp for GGUF files, its cards taking turns (layer
    split); a server engine (vLLM, SGLang) for the others, splitting every layer (tensor parallelism)."""
    engine = catalog.engine_of(precision)
    return engine.kind, engine.parallelism


def streams_beside_weights(fit: Fit, kv_bytes_per_stream: float, max_streams: int) -> int:
    """Streams whose KV cache fits in what the card keeps after weights, activations and runtime: the fit's
    own budget and need (at its tight setting where it has one), so the count and the verdict never disagree;
    at most the streams that setting lets the engine run."""
    if fit.max_num_seqs is not None:
        max_streams = min(max_streams, fit.max_num_seqs)
    if kv_bytes_per_stream <= 0:
        return max_streams
    need = fit.tight_need or fit.need
    return streams_that_fit(
        fit.budget, need.weights, need.activations + need.overhead, kv_bytes_per_stream, max_streams
    )


def host_layers_of(fit: Fit, bandwidth_gbps: float) -> HostLayers | None:
    """The layers a fit leaves in host memory, read at ``bandwidth_gbps``; None for other fits."""
    if fit.tight_by != "gpu_layers" or fit.gpu_layers is None:
        return None
    return HostLayers(fit.gpu_layers, bandwidth_gbps)


def speed_for_fit(
    catalog: Catalog, model: Llm, precision: Precision, node: Node, fit: Fit, context_tokens: int
) -> Speed | None:
    """The speed on the cards ``fit`` uses; None when the model does not fit. A fit that holds only at a shorter
    context is timed at that context; one with layers in host memory reads them at the host's bandwidth, for
    the one stream its cards hold (they are filled with layers)."""
    if not fit.fits:
        return None
    if fit.tight_by == "context" and fit.longest_context_tokens is not None:
        context_tokens = fit.longest_context_tokens
    constants = DecodeConstants.from_assumptions(catalog.assumptions)
    constants = replace(constants, kv_cache_bytes_per_element=kv_element_bytes(catalog, fit.kv_cache_dtype))
    engine_class, parallelism = engine_of(catalog, precision)
    shape = llm_shape(model)
    setup = {
        "gpu": gpu_spec(catalog.gpu_of(node)),
        "link": node_link(catalog, node, fit.cards),
        "model": shape,
        "precision": precision_spec(precision),
        "cards": fit.cards,
        "parallelism": parallelism,
        "context_tokens": context_tokens,
        "constants": constants,
        "engine_class": engine_class,
        "host_layers": host_layers_of(fit, catalog.assumptions.host_memory_bandwidth_gbps.value),
    }
    typical = 1 / step_seconds(concurrency=1, **setup).total  # type: ignore[arg-type]
    kv_per_stream = kv_cache_bytes_per_card(
        shape, context_tokens, 1, constants.kv_cache_bytes_per_element, fit.cards, parallelism
    )
    in_host = setup["host_layers"] is not None
    streams = 1 if in_host else max(1, streams_beside_weights(fit, kv_per_stream, constants.max_running_streams))
    total = streams / step_seconds(concurrency=streams, **setup).total  # type: ignore[arg-type]
    return Speed(fit.cards, typical, typical * constants.floor_factor, streams, total)


def speed_on_cards(
    catalog: Catalog, model: Llm, precision: Precision, node: Node, cards: int, context_tokens: int | None = None
) -> Speed | None:
    """Decode speed of one copy of the model spread over exactly ``cards`` cards of ``node`` (even where fewer
    would hold it), so that formats and splits compare on the same hardware; None when it cannot run so."""
    context_tokens = catalog.assumptions.default_context_tokens.value if context_tokens is None else context_tokens
    fit = fit_on_cards(catalog, model, precision, catalog.gpu_of(node), cards, context_tokens)
    if fit is None:
        return None
    return speed_for_fit(catalog, model, precision, node, fit, context_tokens)
