"""All-reduce counts and times, gradient volume, link ratios, memory totals."""
import pytest

from sizing.collectives import (
    allreduces_per_token, gradient_bytes, link_ratio, node_allreduce_seconds, node_bus_link,
    ring_allreduce_seconds,
)


def test_tensor_parallel_llama_70b_all_reduces_160_times_per_token(catalog):
    # 2 per layer (after attention, after the MLP) × 80 layers = 160, not 80
    assert allreduces_per_token(catalog, catalog.models["llama-3.3-70b"]) == 160


def test_ring_all_reduce_time(catalog):
    # 2 × (4 − 1) / 4 × 100 GB / 50 GB/s = 3 s
    assert ring_allreduce_seconds(100e9, 4, 50) == pytest.approx(3.0)
    assert ring_allreduce_seconds(100e9, 1, 50) == 0.0


def test_gradient_volume_of_a_70b_step_in_bf16(catalog):
    # 70,553,706,496 × 2 B = 141.1 GB
    assert gradient_bytes(catalog, catalog.models["llama-3.3-70b"]) == 141_107_412_992


def test_gradient_all_reduce_over_pcie_gen5_and_nvlink_4(catalog):
    grads = gradient_bytes(catalog, catalog.models["llama-3.3-70b"])
    # 8 cards, PCIe Gen5: 2 × 7/8 × 141.107e9 / 63e9 = 3.92 s; NVLink 4: / 450e9 = 0.549 s
    pcie = node_allreduce_seconds(catalog, catalog.nodes["8x-rtx-pro-6000-blackwell"], grads)
    nvlink = node_allreduce_seconds(catalog, catalog.nodes["8x-h100-sxm5-80gb"], grads)
    assert pcie == pytest.approx(3.92, abs=0.01)
    assert nvlink == pytest.approx(0.549, abs=0.001)


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
