"""What a split costs on a node and what training needs: a tensor-parallel all-reduce at one stream and while a
prompt is prefilled (measured latency and bus bandwidth, as the decode model counts it), a model served split
against copies of it side by side, and the memory of full-parameter training with Adam, sharded over a node."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm, Node, Precision
from sizing.engine.decode import seconds_per_allreduce
from sizing.engine.fit import fit_llm_on, split_needs, visible_memory
from sizing.engine.links import allreduces_per_token, tensor_parallel_message_bytes
from sizing.engine.speeds import Speed, node_link, speed_for_fit


# --- tensor-parallel all-reduces ---------------------------------------------------------------------------
def tensor_allreduce_seconds(catalog: Catalog, node: Node, model: Llm, tokens: int = 1) -> float:
    """One all-reduce of ``tokens`` hidden states over every card of ``node``: the link's small-message latency
    plus the ring volume over its measured bus bandwidth (``decode.seconds_per_allreduce``)."""
    link = node_link(catalog, node, node.cards)
    if link is None:
        return 0.0
    return seconds_per_allreduce(tensor_parallel_message_bytes(model, tokens), node.cards, link)


def tensor_allreduce_latency_share(catalog: Catalog, node: Node, model: Llm, tokens: int = 1) -> float:
    """The part of one all-reduce that is the link's latency: above half, the message is too small for the
    bandwidth to matter."""
    link = node_link(catalog, node, node.cards)
    if link is None:
        return 0.0
    return link.allreduce_latency_us * 1e-6 / tensor_allreduce_seconds(catalog, node, model, tokens)


def tensor_sync_seconds(catalog: Catalog, node: Node, model: Llm, tokens: int = 1) -> float:
    """Every all-reduce of one forward pass over ``tokens`` tokens: two per layer, one after the other."""
    return allreduces_per_token(catalog, model) * tensor_allreduce_seconds(catalog, node, model, tokens)


# --- one model split, or copies side by side ------------------------------------------------------------------
def forced_split_speed(
    catalog: Catalog, model: Llm, precision: Precision, node: Node, cards: int, context_tokens: int | None = None
) -> Speed | None:
    """The speed of ``model`` split over exactly ``cards`` cards of ``node``, even where fewer would hold it (as
    ``--tensor-parallel-size`` forces it); None when the engine cannot split it so or it does not fit that way."""
    needs = split_needs(catalog, model, precision, cards, context_tokens, gpu=catalog.gpu_of(node))
    if cards not in needs:
        return None
    fit = fit_llm_on(
        catalog, model, precision, catalog.gpu_of(node), cards, context_tokens, needs={cards: needs[cards]}
    )
    context_tokens = catalog.assumptions.default_context_tokens.value if context_tokens is None else context_tokens
    return speed_for_fit(catalog, model, precision, node, fit, context_tokens)


# --- full-parameter training with Adam -----------------------------------------------------------------------
@dataclass(frozen=True)
class AdamMixedPrecision:
    """Bytes per parameter of full-parameter training with Adam in mixed precision (ZeRO, Rajbhandari et al.
    2020, section 3.1: "16Ψ"): 16-bit weights and gradients, and the optimizer's FP32 master weights and two
    moments."""

    weights: int = 2
    gradients: int = 2
    master_weights: int = 4
    first_moment: int = 4
    second_moment: int = 4

    @property
    def total(self) -> int:
        return self.weights + self.gradients + self.master_weights + self.first_moment + self.second_moment


ADAM = AdamMixedPrecision()


def training_state_bytes(model: Llm) -> float:
    """Weights, gradients and Adam states of every parameter, before any activation."""
    return model.params * ADAM.total


def sixteen_bit_weight_bytes(model: Llm) -> float:
    """The 16-bit weights a sharded step gathers (and the gradients it scatters, the same size)."""
    return model.params * ADAM.weights


@dataclass(frozen=True)
class TrainingFit:
    """Training state sharded evenly over every card of a node (FSDP, ZeRO stage 3) against what CUDA shows on
    one card; what is left holds the activations."""

    state_bytes_per_card: float
    visible_bytes_per_card: float

    @property
    def activation_room_bytes(self) -> float:
        return self.visible_bytes_per_card - self.state_bytes_per_card

    @property
    def fits(self) -> bool:
        return self.activation_room_bytes > 0


def sharded_training_fit(catalog: Catalog, model: Llm, node: Node) -> TrainingFit:
    """The state each card of ``node`` holds when training ``model`` fully sharded, and the card's memory."""
    return TrainingFit(training_state_bytes(model) / node.cards, visible_memory(catalog, catalog.gpu_of(node)))
