"""Speeds on the catalog's nodes: the node's own link, every copy of the model a node holds, the streams
beside the weights, and the cost of a million tokens."""

from types import SimpleNamespace

import pytest

from sizing.catalog.units import GIB
from sizing.engine.fit import Fit, MemoryNeed, Verdict, fit
from sizing.engine.links import node_link
from sizing.engine.speeds import Speed, engine_of, speed_for_fit, speed_on_cards, streams_beside_weights
from sizing.views.matrix import VerdictMatrix


def test_streams_fit_in_what_the_card_keeps_after_weights_activations_and_runtime():
    # budget 71.3 GiB; weights 60 + activations 5 + runtime 0.6 = 65.6 GiB; 5.7 GiB left / 1.25 GiB = 4.56 -> 4
    need = MemoryNeed(weights=60 * GIB, kv_cache=1.25 * GIB, activations=5 * GIB, overhead=0.6 * GIB)
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, need, 71.3 * GIB), 1.25 * GIB, 256) == 4
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, need, 71.3 * GIB), 0.001 * GIB, 256) == 256  # the cap


def test_a_node_runs_one_copy_of_the_model_per_group_of_cards_it_uses():
    speed = Speed(cards=2, typical=30.0, floor=16.5, streams_per_copy=10, total_per_copy=200.0)

    node = SimpleNamespace(cards=8)  # all a Speed reads of a node
    assert speed.copies_on(node) == 4 and speed.streams_on(node) == 40 and speed.total_on(node) == 800.0  # type: ignore[arg-type]


def test_a_million_tokens_cost_the_monthly_price_over_a_month_of_full_load(catalog):
    # 4 copies x 200 tok/s = 800 tok/s; 730 h x 3,600 s x 800 = 2,102.4 M tokens a month; $7,300 / 2,102.4 = $3.47
    speed = Speed(cards=2, typical=30.0, floor=16.5, streams_per_copy=10, total_per_copy=200.0)
    node = catalog.nodes["8x-h100-sxm5-80gb"]
    node = node.model_copy(update={"price_per_month": node.price_per_month.model_copy(update={"amount": 7300.0})})
    assert speed.price_per_million_tokens(catalog, node) == pytest.approx(3.4722, abs=1e-4)


def test_gguf_runs_on_llama_cpp_with_cards_taking_turns_and_the_rest_on_a_server_engine(catalog):
    assert engine_of(catalog, catalog.precisions["gguf-q4_k_m"]) == ("llama.cpp", "layers")
    assert engine_of(catalog, catalog.precisions["fp8"]) == ("server", "tensor")


def test_bridged_pairs_talk_over_nvlink_two_by_two_and_over_pcie_beyond(catalog):
    node = catalog.nodes["4x-h100-nvl-94gb"]
    bridge = catalog.interconnect_of(node)
    pcie = catalog.host_pcie_of(catalog.gpu_of(node))
    assert node_link(catalog, node, 1) is None
    assert node_link(catalog, node, 2).allreduce_busbw_gbps == bridge.allreduce_busbw_gbps
    assert node_link(catalog, node, 4).allreduce_busbw_gbps == pcie.allreduce_busbw_gbps


def test_the_same_split_is_faster_over_nvlink_than_over_pcie(catalog):
    model, precision = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    speeds = {}
    for node_id in ("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"):
        node = catalog.nodes[node_id]
        verdict = fit(catalog, model, precision, node, 8192)
        speeds[node_id] = speed_for_fit(catalog, model, precision, node, verdict, 8192)
    assert speeds["4x-a100-sxm4-80gb"].typical > speeds["4x-a100-pcie-80gb"].typical
    assert all(s.floor < s.typical for s in speeds.values())


def test_a_model_on_one_card_is_the_matrix_cell(catalog):
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    cell = VerdictMatrix(catalog).cell("llama-3.1-8b", "bf16", "4x-a100-pcie-80gb", 4096).speed
    assert speed_on_cards(catalog, model, bf16, node, 1, 4096) == cell


def test_splitting_a_model_that_fits_shortens_each_token_and_the_total_depends_on_the_context(catalog):
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    one, four = (speed_on_cards(catalog, model, bf16, node, k, 4096) for k in (1, 4))
    assert four.cards == 4 and four.copies_on(node) == 1 and one.copies_on(node) == 4
    assert four.typical > 1.5 * one.typical  # ~156 against ~82 tok/s: four cards read the weights
    # at 4K the split reaches the engine's cap of 256 running streams while four copies hold more (each copy has
    # its own cap), and serve more in total
    assert four.streams_on(node) == catalog.assumptions.max_running_streams.value == 256
    assert one.streams_on(node) > four.streams_on(node)
    assert one.total_on(node) > four.total_on(node)
    # at 32K the KV cache fills the memory: the split, holding the weights once, keeps more streams and wins
    one_long, four_long = (speed_on_cards(catalog, model, bf16, node, k, 32768) for k in (1, 4))
    assert four_long.streams_on(node) > one_long.streams_on(node)
    assert four_long.total_on(node) > one_long.total_on(node)


def test_a_split_the_heads_forbid_is_none(catalog):
    # Llama 3.1 8B has 32 heads and 8 KV heads: 3 cards divide neither
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    assert speed_on_cards(catalog, model, bf16, node, 3) is None
