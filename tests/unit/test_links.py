"""All-reduce counts, messages and times, sharded training traffic, link ratios, memory
totals, and the bus bandwidth a healthy node of each family reaches."""

import pytest

from sizing.engine.links import (
    bus_family,
    healthy_allreduce,
    link_ratio,
    node_bus_link,
    node_link,
    node_sharded_step_seconds,
    ring_allreduce_seconds,
    sharded_step_bytes_per_card,
    sublayers,
    tensor_allreduce_latency_share,
    tensor_allreduce_seconds,
    tensor_parallel_message_bytes,
    tensor_sync_seconds,
)
from sizing.engine.specs import llm_shape


def test_tensor_parallel_llama_70b_all_reduces_160_times_per_token(catalog):
    # 2 per layer (after attention, after the MLP) × 80 layers = 160, not 80
    assert sublayers(llm_shape(catalog.models["llama-3.3-70b"]), catalog.assumptions.allreduces_per_layer.value) == 160


def test_ring_all_reduce_time(catalog):
    # 2 × (4 − 1) / 4 × 100 GB / 50 GB/s = 3 s
    assert ring_allreduce_seconds(100e9, 4, 50) == pytest.approx(3.0)
    assert ring_allreduce_seconds(100e9, 1, 50) == 0.0


def test_link_ratio_is_like_for_like_about_7x(catalog):
    # 450 GB/s each way / 63 GB/s each way = 7.14 (the seed's 14x divided 900 both-ways by 63 one-way)
    ratio = link_ratio(catalog.interconnects["nvlink4"], catalog.interconnects["pcie-gen5-x16"])
    assert ratio == pytest.approx(7.14, abs=0.01)
    assert round(ratio) == 7


def test_bridged_pairs_fall_back_to_pcie_beyond_a_pair(catalog):
    assert node_bus_link(catalog, catalog.nodes["2x-rtx-a6000"]).id == "nvlink3-ga102-bridge"
    assert node_bus_link(catalog, catalog.nodes["4x-a40"]).id == "pcie-gen4-x16"


def test_four_80_gb_cards_total_320_gb(catalog):
    node = catalog.nodes["4x-a100-pcie-80gb"]
    assert node.cards * catalog.gpu_of(node).memory_gb == 320


def test_a_tensor_parallel_all_reduce_carries_hidden_size_times_two_bytes_per_token(catalog):
    llama_70b = catalog.models["llama-3.3-70b"]
    # one stream decoding: 1 token × 8,192 dimensions × 2 B = 16,384 B = 16 KiB
    assert tensor_parallel_message_bytes(llm_shape(llama_70b)) == 16 * 1024
    # a 2,048-token prompt in prefill: 2,048 × 16 KiB = 32 MiB
    assert tensor_parallel_message_bytes(llm_shape(llama_70b), 2048) == 32 * 1024 * 1024


def test_a_sharded_step_moves_half_as_much_again_as_an_all_reduce():
    # all-gather (forward) + all-gather (backward) + reduce-scatter, each (n − 1)/n × S:
    # 3 × 7/8 × 48 GB = 126 GB on 8 cards, against 2 × 7/8 × 48 = 84 GB for a ring all-reduce
    assert sharded_step_bytes_per_card(48e9, 8) == pytest.approx(126e9)
    assert sharded_step_bytes_per_card(48e9, 1) == 0.0


def test_a_sharded_mistral_24b_step_over_pcie_gen5_and_nvlink_4(catalog):
    weights = catalog.models["mistral-small-3-24b"].params * 2  # 23,572,403,200 × 2 B = 47.145 GB
    # 3 × 7/8 × 47.145e9 = 123.755 GB per card; / 63 GB/s = 1.964 s; / 450 GB/s = 0.275 s (7.14 times)
    pcie = node_sharded_step_seconds(catalog, catalog.nodes["8x-rtx-pro-6000-blackwell"], weights)
    nvlink = node_sharded_step_seconds(catalog, catalog.nodes["8x-h100-sxm5-80gb"], weights)
    assert pcie == pytest.approx(1.964, abs=0.001)
    assert nvlink == pytest.approx(0.275, abs=0.001)


@pytest.mark.parametrize(
    "node, link, topology, peer_to_peer, busbw",
    [
        ("8x-h100-sxm5-80gb", "nvlink4", "nvswitch", True, (370, 480)),  # ring 370, NVLS 480 (H200 NVLS 475)
        ("8x-a100-sxm4-80gb", "nvlink3", "nvswitch", True, (208, 235)),
        ("2x-h100-nvl-94gb", "nvlink4-bridge-h100-pcie", "bridged-pairs", True, (116, 116)),  # measured on H100 PCIe
        ("8x-rtx-5090", "pcie-gen5-x16", "host", False, (28, 35)),  # 28 on 8 cards, 35 on 4
        ("4x-h100-nvl-94gb", "pcie-gen5-x16", "host", True, None),  # pairs meet over PCIe: no published run
        ("2x-h200-nvl-141gb", "nvlink4", "bridged-pairs", True, None),  # NVLink 4, but not through NVSwitch
    ],
)
def test_each_node_family_has_the_published_busbw_of_its_own_family(catalog, node, link, topology, peer_to_peer, busbw):
    family = bus_family(catalog, catalog.nodes[node])
    assert (family.link.id, family.topology, family.peer_to_peer) == (link, topology, peer_to_peer)
    healthy = healthy_allreduce(family)
    assert (healthy.low_gbps, healthy.high_gbps) == busbw if busbw else healthy is None


def allreduce_on_node(catalog, node, model, tokens=1):
    return tensor_allreduce_seconds(node_link(catalog, node, node.cards), node.cards, llm_shape(model), tokens)


def latency_share_on_node(catalog, node, model, tokens=1):
    return tensor_allreduce_latency_share(node_link(catalog, node, node.cards), node.cards, llm_shape(model), tokens)


def sync_on_node(catalog, node, model, tokens=1):
    link, per_layer = node_link(catalog, node, node.cards), catalog.assumptions.allreduces_per_layer.value
    return tensor_sync_seconds(link, node.cards, llm_shape(model), per_layer, tokens)


def test_at_one_stream_an_all_reduce_costs_latency_in_prefill_bandwidth(catalog):
    llama, pcie, sxm4 = (
        catalog.models["llama-3.3-70b"],
        catalog.nodes["4x-a100-pcie-80gb"],
        catalog.nodes["4x-a100-sxm4-80gb"],
    )
    # PCIe Gen4 (22 µs, 24 GB/s busbw), 4 cards: 22 µs + 2 × 3/4 × 16,384 B / 24e9 B/s = 22 + 1.024 = 23.024 µs
    assert allreduce_on_node(catalog, pcie, llama) == pytest.approx(23.024e-6)
    # NVLink 3 (8 µs, 230 GB/s): 8 µs + 1.5 × 16,384 / 230e9 = 8.107 µs; 23.024 / 8.107 = 2.8 times
    assert allreduce_on_node(catalog, sxm4, llama) == pytest.approx(8.107e-6, abs=1e-9)
    # 2,048 tokens: 22 µs + 1.5 × 33,554,432 / 24e9 = 22 + 2,097.2 µs = 2.119 ms; NVLink: 8 + 218.8 = 226.8 µs
    assert allreduce_on_node(catalog, pcie, llama, 2048) == pytest.approx(2.119e-3, abs=1e-6)
    assert allreduce_on_node(catalog, sxm4, llama, 2048) == pytest.approx(226.8e-6, abs=1e-7)
    # latency 22 / 23.024 = 96 % of it at one stream, 22 µs / 2,119 µs = 1 % in prefill
    assert latency_share_on_node(catalog, pcie, llama) == pytest.approx(0.956, abs=0.001)
    assert latency_share_on_node(catalog, pcie, llama, 2048) == pytest.approx(0.0104, abs=0.0001)


def test_a_token_waits_for_160_all_reduces(catalog):
    # 160 × 23.024 µs = 3.684 ms per token over PCIe; 160 × 2.119 ms = 339 ms for a 2,048-token prompt
    llama, pcie = catalog.models["llama-3.3-70b"], catalog.nodes["4x-a100-pcie-80gb"]
    assert sync_on_node(catalog, pcie, llama) == pytest.approx(3.684e-3, abs=1e-6)
    assert sync_on_node(catalog, pcie, llama, 2048) == pytest.approx(0.339, abs=0.001)
