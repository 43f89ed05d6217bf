"""All-reduce counts, messages and times, sharded training traffic, link ratios, memory
totals, and the bus bandwidth a healthy node of each family reaches."""

import pytest

from sizing.engine.links import (
    allreduces_per_token,
    bus_family,
    healthy_allreduce,
    link_ratio,
    node_bus_link,
    node_sharded_step_seconds,
    ring_allreduce_seconds,
    sharded_step_bytes_per_card,
    tensor_parallel_message_bytes,
)


def test_tensor_parallel_llama_70b_all_reduces_160_times_per_token(catalog):
    # 2 per layer (after attention, after the MLP) × 80 layers = 160, not 80
    assert allreduces_per_token(catalog, catalog.models["llama-3.3-70b"]) == 160


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
    assert tensor_parallel_message_bytes(llama_70b) == 16 * 1024
    # a 2,048-token prompt in prefill: 2,048 × 16 KiB = 32 MiB
    assert tensor_parallel_message_bytes(llama_70b, 2048) == 32 * 1024 * 1024


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
