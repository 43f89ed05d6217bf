"""A split on a node and training: tensor-parallel all-reduces at one stream and in prefill, a model split
against copies side by side, the memory of full-parameter training with Adam, sharded."""

import pytest

from sizing.catalog.units import GIB
from sizing.engine.training import (
    ADAM,
    forced_split_speed,
    sharded_training_fit,
    tensor_allreduce_latency_share,
    tensor_allreduce_seconds,
    tensor_sync_seconds,
    training_state_bytes,
)
from sizing.views.matrix import VerdictMatrix


def test_adam_in_mixed_precision_keeps_16_bytes_per_parameter():
    # BF16 weights 2 + BF16 gradients 2 + FP32 master weights 4 + two FP32 moments 4 + 4 = 16
    assert ADAM.total == 16


def test_a_70b_model_needs_over_a_terabyte_to_train_with_adam(catalog):
    # 70,553,706,496 × 16 B = 1,128,859,303,936 B = 1,051.3 GiB (1.13 TB) before activations
    state = training_state_bytes(catalog.models["llama-3.3-70b"])
    assert state == 1_128_859_303_936
    assert state / GIB == pytest.approx(1051.3, abs=0.05)


def test_sharded_over_8_cards_70b_fits_no_80_or_96_gb_card_but_mistral_24b_fits_both(catalog):
    llama, mistral = catalog.models["llama-3.3-70b"], catalog.models["mistral-small-3-24b"]
    h100, rtx = catalog.nodes["8x-h100-sxm5-80gb"], catalog.nodes["8x-rtx-pro-6000-blackwell"]
    # 70B: 1,051.3 GiB / 8 = 131.4 GiB per card > 79.2 GiB (H100: 81,121 MiB) and > 95.1 GiB (97,397 MiB)
    assert sharded_training_fit(catalog, llama, h100).state_bytes_per_card / GIB == pytest.approx(131.4, abs=0.05)
    assert not sharded_training_fit(catalog, llama, h100).fits
    assert not sharded_training_fit(catalog, llama, rtx).fits
    # 24B: 23,572,403,200 × 16 / 8 = 47,144,806,400 B = 43.9 GiB per card; 79.2 − 43.9 = 35.3 GiB left on an H100
    on_h100 = sharded_training_fit(catalog, mistral, h100)
    assert on_h100.state_bytes_per_card == 47_144_806_400
    assert on_h100.activation_room_bytes / GIB == pytest.approx(35.3, abs=0.05)
    assert sharded_training_fit(catalog, mistral, rtx).activation_room_bytes / GIB == pytest.approx(51.2, abs=0.05)


def test_at_one_stream_an_all_reduce_costs_latency_in_prefill_bandwidth(catalog):
    llama, pcie, sxm4 = (
        catalog.models["llama-3.3-70b"],
        catalog.nodes["4x-a100-pcie-80gb"],
        catalog.nodes["4x-a100-sxm4-80gb"],
    )
    # PCIe Gen4 (22 µs, 24 GB/s busbw), 4 cards: 22 µs + 2 × 3/4 × 16,384 B / 24e9 B/s = 22 + 1.024 = 23.024 µs
    assert tensor_allreduce_seconds(catalog, pcie, llama) == pytest.approx(23.024e-6)
    # NVLink 3 (8 µs, 230 GB/s): 8 µs + 1.5 × 16,384 / 230e9 = 8.107 µs; 23.024 / 8.107 = 2.8 times
    assert tensor_allreduce_seconds(catalog, sxm4, llama) == pytest.approx(8.107e-6, abs=1e-9)
    # 2,048 tokens: 22 µs + 1.5 × 33,554,432 / 24e9 = 22 + 2,097.2 µs = 2.119 ms; NVLink: 8 + 218.8 = 226.8 µs
    assert tensor_allreduce_seconds(catalog, pcie, llama, 2048) == pytest.approx(2.119e-3, abs=1e-6)
    assert tensor_allreduce_seconds(catalog, sxm4, llama, 2048) == pytest.approx(226.8e-6, abs=1e-7)
    # latency 22 / 23.024 = 96 % of it at one stream, 22 µs / 2,119 µs = 1 % in prefill
    assert tensor_allreduce_latency_share(catalog, pcie, llama) == pytest.approx(0.956, abs=0.001)
    assert tensor_allreduce_latency_share(catalog, pcie, llama, 2048) == pytest.approx(0.0104, abs=0.0001)


def test_a_token_waits_for_160_all_reduces(catalog):
    # 160 × 23.024 µs = 3.684 ms per token over PCIe; 160 × 2.119 ms = 339 ms for a 2,048-token prompt
    llama, pcie = catalog.models["llama-3.3-70b"], catalog.nodes["4x-a100-pcie-80gb"]
    assert tensor_sync_seconds(catalog, pcie, llama) == pytest.approx(3.684e-3, abs=1e-6)
    assert tensor_sync_seconds(catalog, pcie, llama, 2048) == pytest.approx(0.339, abs=0.001)


def test_a_model_on_one_card_is_the_matrix_cell(catalog):
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    cell = VerdictMatrix(catalog).cell("llama-3.1-8b", "bf16", "4x-a100-pcie-80gb", 4096).speed
    assert forced_split_speed(catalog, model, bf16, node, 1, 4096) == cell


def test_splitting_a_model_that_fits_shortens_each_token_and_the_total_depends_on_the_context(catalog):
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    one, four = (forced_split_speed(catalog, model, bf16, node, k, 4096) for k in (1, 4))
    assert four.cards == 4 and four.copies_on(node) == 1 and one.copies_on(node) == 4
    assert four.typical > 1.5 * one.typical  # ~156 against ~82 tok/s: four cards read the weights
    # at 4K the split reaches the engine's cap of 256 running streams while four copies hold more (each copy has
    # its own cap), and serve more in total
    assert four.streams_on(node) == catalog.assumptions.max_running_streams.value == 256
    assert one.streams_on(node) > four.streams_on(node)
    assert one.total_on(node) > four.total_on(node)
    # at 32K the KV cache fills the memory: the split, holding the weights once, keeps more streams and wins
    one_long, four_long = (forced_split_speed(catalog, model, bf16, node, k, 32768) for k in (1, 4))
    assert four_long.streams_on(node) > one_long.streams_on(node)
    assert four_long.total_on(node) > one_long.total_on(node)


def test_a_split_the_heads_forbid_is_none(catalog):
    # Llama 3.1 8B has 32 heads and 8 KV heads: 3 cards divide neither
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    assert forced_split_speed(catalog, model, bf16, node, 3) is None
