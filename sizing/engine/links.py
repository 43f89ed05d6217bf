"""Links between cards and what crosses them: which link a collective over k cards of a node crosses (the one
rule: bridged pairs beyond two cards meet over the host's PCIe), that link as the decode model's ``LinkSpec``,
all-reduces (count per token, message, ring volume, time with latency), sharded training traffic, link ratios,
and the all-reduce bus bandwidth a healthy node reaches."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import HealthyAllreduce, HybridAttention, Interconnect, Node
from sizing.catalog.units import GB
from sizing.engine.specs import LinkSpec, LlmShape

ACTIVATION_BYTES = 2  # hidden states cross the link in 16 bits


# --- which link ------------------------------------------------------------------------------------------
def node_bus_link(catalog: Catalog, node: Node, cards: int | None = None) -> Interconnect:
    """The slowest link a collective over ``cards`` cards of ``node`` (all of them by default) crosses. Bridged
    pairs talk to each other over the host's PCIe; mesh and NVSwitch nodes use every NVLink of each card."""
    cards = node.cards if cards is None else cards
    if node.link.topology == "bridged-pairs" and cards > 2:
        return catalog.host_pcie_of(catalog.gpu_of(node))
    return catalog.interconnect_of(node)


def link_spec(link: Interconnect, peer_to_peer: bool) -> LinkSpec:
    """An interconnect as measured; cards without peer-to-peer (GeForce) stage PCIe collectives through host
    memory."""
    if link.family == "pcie" and not peer_to_peer:
        assert link.host_staged_allreduce_latency_us is not None and link.host_staged_allreduce_busbw_gbps is not None
        return LinkSpec(link.host_staged_allreduce_latency_us, link.host_staged_allreduce_busbw_gbps)
    return LinkSpec(link.allreduce_latency_us, link.allreduce_busbw_gbps)


def node_link(catalog: Catalog, node: Node, cards: int) -> LinkSpec | None:
    """What ``cards`` cards of ``node`` talk over: nothing on one card, else ``node_bus_link`` as measured."""
    if cards == 1:
        return None
    return link_spec(node_bus_link(catalog, node, cards), catalog.gpu_of(node).peer_to_peer)


def link_ratio(faster: Interconnect, slower: Interconnect) -> float:
    """Like for like: one direction against one direction."""
    return faster.per_direction_gbps / slower.per_direction_gbps


# --- all-reduces -----------------------------------------------------------------------------------------
def sublayers(model: LlmShape, allreduces_per_layer: int) -> int:
    """Sub-layers of one forward pass, each followed by one all-reduce under a tensor split: attention and
    MLP/MoE per transformer layer (Megatron), one mixer per layer of a Mamba hybrid."""
    return model.layers if isinstance(model.attention, HybridAttention) else allreduces_per_layer * model.layers


def tensor_parallel_message_bytes(model: LlmShape, tokens: int = 1) -> int:
    """What one tensor-parallel all-reduce carries: the hidden state of every token in flight, in 16 bits.
    One stream decoding: one token (``hidden_size × 2`` bytes); a prompt being prefilled: all its tokens."""
    return tokens * model.hidden_size * ACTIVATION_BYTES


def ring_allreduce_seconds(message_bytes: float, cards: int, per_direction_gbps: float) -> float:
    """``2(n−1)/n × S / B``, B the one-direction bandwidth per card of the slowest link (nccl-tests)."""
    if cards < 2:
        return 0.0
    return 2 * (cards - 1) / cards * message_bytes / (per_direction_gbps * GB)


def seconds_per_allreduce(message_bytes: float, cards: int, link: LinkSpec) -> float:
    """Latency + ring volume over the measured bus bandwidth (nccl-tests: busbw = algbw × 2(n−1)/n)."""
    return link.allreduce_latency_us * 1e-6 + ring_allreduce_seconds(message_bytes, cards, link.allreduce_busbw_gbps)


def tensor_allreduce_seconds(link: LinkSpec | None, cards: int, model: LlmShape, tokens: int = 1) -> float:
    """One all-reduce of ``tokens`` hidden states over ``cards`` cards: the link's small-message latency plus the
    ring volume over its measured bus bandwidth (as the decode model counts it)."""
    if link is None:
        return 0.0
    return seconds_per_allreduce(tensor_parallel_message_bytes(model, tokens), cards, link)


def tensor_allreduce_latency_share(link: LinkSpec | None, cards: int, model: LlmShape, tokens: int = 1) -> float:
    """The part of one all-reduce that is the link's latency: above half, the message is too small for the
    bandwidth to matter."""
    if link is None:
        return 0.0
    return link.allreduce_latency_us * 1e-6 / tensor_allreduce_seconds(link, cards, model, tokens)


def tensor_sync_seconds(
    link: LinkSpec | None, cards: int, model: LlmShape, allreduces_per_layer: int, tokens: int = 1
) -> float:
    """Every all-reduce of one forward pass over ``tokens`` tokens, one after the other."""
    return sublayers(model, allreduces_per_layer) * tensor_allreduce_seconds(link, cards, model, tokens)


# --- sharded training ------------------------------------------------------------------------------------
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


# --- what a healthy node measures ------------------------------------------------------------------------
@dataclass(frozen=True)
class BusFamily:
    """What an all-reduce over every card of a node crosses: the link, how the cards are joined, and whether
    they copy peer to peer (GeForce cards stage through host memory)."""

    link: Interconnect
    topology: str
    peer_to_peer: bool


def bus_family(catalog: Catalog, node: Node) -> BusFamily:
    """The family a node's all-reduce belongs to (``node_bus_link``: bridged pairs beyond two cards meet over
    the host's PCIe)."""
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
