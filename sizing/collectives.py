"""Communication: all-reduces per token, ring all-reduce time, gradient volume, link ratios."""
from __future__ import annotations

from .catalog import Catalog
from .schema import DiffusionModel, Interconnect, Llm, Node
from .units import GB


def allreduces_per_token(catalog: Catalog, model: Llm) -> int:
    """Tensor parallelism reduces after attention and after the MLP: twice per layer."""
    return catalog.assumptions.allreduces_per_layer.value * model.layers


def gradient_bytes(catalog: Catalog, model: Llm | DiffusionModel) -> float:
    """Bytes of gradients one data-parallel optimizer step all-reduces."""
    return model.params * catalog.assumptions.gradient_bytes_per_parameter.value


def ring_allreduce_seconds(message_bytes: float, cards: int, per_direction_gbps: float) -> float:
    """``2(n−1)/n × S / B``, B the one-direction bandwidth per card of the slowest link (nccl-tests)."""
    if cards < 2:
        return 0.0
    return 2 * (cards - 1) / cards * message_bytes / (per_direction_gbps * GB)


def node_bus_link(catalog: Catalog, node: Node, cards: int | None = None) -> Interconnect:
    """The slowest link a collective over ``cards`` cards of ``node`` crosses. Bridged pairs talk to
    each other over the host's PCIe; mesh and NVSwitch nodes use every NVLink of each card."""
    cards = node.cards if cards is None else cards
    if node.link.topology == "bridged-pairs" and cards > 2:
        return catalog.host_pcie_of(catalog.gpu_of(node))
    return catalog.interconnect_of(node)


def node_allreduce_seconds(catalog: Catalog, node: Node, message_bytes: float) -> float:
    """Ring all-reduce of ``message_bytes`` over every card of ``node``."""
    link = node_bus_link(catalog, node)
    return ring_allreduce_seconds(message_bytes, node.cards, link.per_direction_gbps)


def link_ratio(faster: Interconnect, slower: Interconnect) -> float:
    """Like for like: one direction against one direction."""
    return faster.per_direction_gbps / slower.per_direction_gbps
