"""What full-parameter training with Adam needs in memory, sharded evenly over the cards of a node."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm, Node
from sizing.engine.fit import visible_memory


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
