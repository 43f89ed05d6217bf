"""Speeds on the catalog's nodes: the node's own link, every copy of the model a node holds, the streams
beside the weights, and the cost of a million tokens."""

import pytest

from sizing.catalog.units import GIB
from sizing.engine.fit import Fit, MemoryNeed, Verdict, fit
from sizing.engine.speeds import Speed, engine_of, node_link, speed_for_fit, streams_beside_weights


def test_streams_fit_in_what_the_card_keeps_after_weights_activations_and_runtime():
    # budget 71.3 GiB; weights 60 + activations 5 + runtime 0.6 = 65.6 GiB; 5.7 GiB left / 1.25 GiB = 4.56 -> 4
    need = MemoryNeed(weights=60 * GIB, kv_cache=1.25 * GIB, activations=5 * GIB, overhead=0.6 * GIB)
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, need, 71.3 * GIB), 1.25 * GIB, 256) == 4
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, need, 71.3 * GIB), 0.001 * GIB, 256) == 256  # the cap


def test_a_node_runs_one_copy_of_the_model_per_group_of_cards_it_uses():
    speed = Speed(cards=2, typical=30.0, floor=16.5, streams_per_copy=10, total_per_copy=200.0)

    class EightCards:
        cards = 8

        class price_per_month:
            amount = 7300.0

    node = EightCards()
    assert speed.copies_on(node) == 4 and speed.streams_on(node) == 40 and speed.total_on(node) == 800.0


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
