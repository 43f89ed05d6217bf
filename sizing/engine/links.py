"""Communication: all-reduces per token and their message, ring all-reduce time, gradient volume, sharded
training traffic, link ratios, and the all-reduce bus bandwidth a healthy node reaches."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import HealthyAllreduce, Interconnect, Llm, Node
from sizing.catalog.units import GB
from sizing.engine.memory import SIXTEEN_BIT_BYTES


def allreduces_per_token(catalog: Catalog, model: Llm) -> int:
    """Tensor parallelism reduces after attention and after the MLP: twice per layer."""
    return catalog.assumptions.allreduces_per_layer.value * model.layers


def tensor_parallel_message_bytes(model: Llm, tokens: int = 1) -> int:
    """What one tensor-parallel all-reduce carries: the hidden state of every token in flight, in 16 bits.
    One stream decoding: one token (``hidden_size × 2`` bytes); a prompt being prefilled: all its tokens."""
    return tokens * model.hidden_size * SIXTEEN_BIT_BYTES


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


def link_ratio(faster: Interconnect, slower: Interconnect) -> float:
    """Like for like: one direction against one direction."""
    return faster.per_direction_gbps / slower.per_direction_gbps


def sharded_step_bytes_per_card(state_bytes: float, cards: int) -> float:
    """What each card sends in one fully sharded (FSDP, ZeRO stage 3) training step of a model whose 16-bit
    weights (and gradients) take ``state_bytes``: the weights all-gathered for the forward pass and again for
    the backward pass, the gradients reduce-scattered: ``3 × (n−1)/n × S``, 1.5 times a ring all-reduce."""
    if cards < 2:
        return 0.0
    return 3 * (cards - 1) / cards * state_bytes


def node_sharded_step_seconds(catalog: Catalog, node: Node, state_bytes: float) -> float:
    """Pure transfer time of one sharded step's collectives over every card of ``node``, at the slowest link's
    rated bandwidth one way."""
    link = node_bus_link(catalog, node)
    return sharded_step_bytes_per_card(state_bytes, node.cards) / (link.per_direction_gbps * GB)


@dataclass(frozen=True)
class BusFamily:
    """What an all-reduce over every card of a node crosses: the link, how the cards are joined, and whether
    they copy peer to peer (GeForce cards stage through host memory)."""

    link: Interconnect
    topology: str
    peer_to_peer: bool


def bus_family(catalog: Catalog, node: Node) -> BusFamily:
    """The family a node's all-reduce belongs to; bridged pairs beyond two cards meet over the host's PCIe."""
    link = node_bus_link(catalog, node)
    topology = "host" if link.family == "pcie" else node.link.topology
    return BusFamily(link, topology, catalog.gpu_of(node).peer_to_peer or link.family == "nvlink")


def healthy_allreduce(family: BusFamily) -> HealthyAllreduce | None:
    """The published all_reduce_perf runs of the family (interconnects.yml), None when there are none."""
    return next(
        (
            h
            for h in family.link.healthy_allreduce
            if h.topology == family.topology and h.peer_to_peer == family.peer_to_peer
        ),
        None,
    )
