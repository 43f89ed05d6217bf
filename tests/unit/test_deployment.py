"""How a node runs a model (``sizing.engine.deployment``): every layout of its cards, the one the rule picks, the
streams beside the weights, every copy of a layout, and the cost of a million tokens."""

from dataclasses import replace

import pytest

from sizing.catalog.units import GIB
from sizing.engine.decode import DecodeConstants, DecodeSetup
from sizing.engine.deployment import Layout, best_layout, streams_beside_weights
from sizing.engine.fit import Fit, MemoryNeed, Verdict
from sizing.engine.links import node_link
from sizing.engine.specs import GpuSpec, LlmShape, PrecisionSpec
from sizing.views.matrix import deployment_on

NEED = MemoryNeed(weights=60 * GIB, kv_cache=1.25 * GIB, activations=5 * GIB, overhead=0.6 * GIB)


@pytest.fixture(scope="module")
def setup(catalog) -> DecodeSetup:
    model = LlmShape(params=8e9, layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128)
    constants = DecodeConstants.from_assumptions(catalog.assumptions)
    return DecodeSetup(
        GpuSpec(80, 2039, 312), None, model, PrecisionSpec(16, True), 1, "tensor", 8192, constants, batch_tokens=2048
    )


def layout(setup: DecodeSetup, cards: int, copies: int, typical: float, total_per_copy: float, **fit) -> Layout:
    """A layout with made-up speeds, to hold the rule against."""
    verdict = Fit(fit.pop("verdict", Verdict.SPLIT), cards, NEED, 71.3 * GIB, **fit)
    return Layout(verdict, copies, setup, 256, 10, typical, typical * 0.6, total_per_copy)


def test_streams_fit_in_what_the_card_keeps_after_weights_activations_and_runtime():
    # budget 71.3 GiB; weights 60 + activations 5 + runtime 0.6 = 65.6 GiB; 5.7 GiB left / 1.25 GiB = 4.56 -> 4
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, NEED, 71.3 * GIB), 1.25 * GIB, 256) == 4
    assert streams_beside_weights(Fit(Verdict.SPLIT, 2, NEED, 71.3 * GIB), 0.001 * GIB, 256) == 256  # the cap


def test_a_node_runs_every_copy_of_a_layout_side_by_side(setup):
    two_by_four = layout(setup, 2, 4, typical=30.0, total_per_copy=200.0)
    assert two_by_four.streams == 40 and two_by_four.total == 800.0


def test_a_million_tokens_cost_the_monthly_price_over_a_month_of_full_load(setup):
    # 4 copies x 200 tok/s = 800 tok/s; 730 h x 3,600 s x 800 = 2,102.4 M tokens a month; $7,300 / 2,102.4 = $3.47
    assert layout(setup, 2, 4, 30.0, 200.0).price_per_million_tokens(7300, 730) == pytest.approx(3.4722, abs=1e-4)


# --- the rule --------------------------------------------------------------------------------------------------
def test_the_layout_that_serves_the_node_most_wins(setup):
    copies = layout(setup, 1, 4, typical=80.0, total_per_copy=2000.0)  # 8,000 tok/s in all
    split = layout(setup, 4, 1, typical=150.0, total_per_copy=6000.0)
    assert best_layout((copies, split), 0.05) is copies


def test_layouts_within_the_tie_share_go_to_the_faster_stream(setup):
    copies = layout(setup, 1, 4, typical=80.0, total_per_copy=2000.0)  # 8,000 tok/s
    pairs = layout(setup, 2, 2, typical=110.0, total_per_copy=3850.0)  # 7,700: 3.75 % fewer
    assert best_layout((copies, pairs), 0.05) is pairs
    assert best_layout((copies, pairs), 0.03) is copies


def test_the_engines_defaults_come_before_a_tight_setting_and_a_shorter_context_last(setup):
    tight = layout(setup, 2, 2, 40.0, 900.0, verdict=Verdict.TIGHT, tight_by="kv_cache_dtype")
    default = layout(setup, 4, 1, 35.0, 600.0)
    shorter = layout(setup, 1, 4, 50.0, 500.0, verdict=Verdict.TIGHT, tight_by="context", longest_context_tokens=4096)
    assert best_layout((tight, default, shorter), 0.05) is default
    assert best_layout((tight, shorter), 0.05) is tight
    longer = replace(shorter, fit=replace(shorter.fit, longest_context_tokens=6000), total_per_copy=100.0)
    assert best_layout((shorter, longer), 0.05) is longer  # the longest context first, whatever its speed


def test_no_layout_when_nothing_holds_the_model():
    assert best_layout((), 0.05) is None


# --- on the catalog --------------------------------------------------------------------------------------------
def test_a_70b_in_bf16_runs_across_the_four_a100s_though_two_hold_it(catalog):
    """The NVLink guide's case: two cards hold Llama 3.3 70B in BF16, but a practitioner runs it across all four
    (--tensor-parallel-size 4): two copies of two cards keep 2 × 3 streams of 8K, one copy of four keeps 59."""
    model, bf16 = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    for node_id in ("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"):
        deployment = deployment_on(catalog, model, bf16, catalog.nodes[node_id])
        assert deployment.verdict.verdict is Verdict.SPLIT and deployment.verdict.cards == 2
        assert [x.cards for x in deployment.layouts] == [2, 4]
        assert deployment.chosen is not None and deployment.chosen.cards == 4 and deployment.chosen.copies == 1
        pairs = deployment.layouts[0]
        assert pairs.streams == 6 and deployment.chosen.streams == 59
        assert deployment.chosen.total > 5 * pairs.total


def test_the_same_split_is_faster_over_nvlink_than_over_pcie(catalog):
    model, bf16 = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    chosen = [
        deployment_on(catalog, model, bf16, catalog.nodes[n]).chosen for n in ("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb")
    ]
    pcie, nvlink = chosen
    assert pcie is not None and nvlink is not None and pcie.cards == nvlink.cards == 4
    assert nvlink.typical > pcie.typical and pcie.floor < pcie.typical


def test_splitting_a_model_that_fits_shortens_each_token_and_the_total_depends_on_the_context(catalog):
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    layouts = {x.cards: x for x in deployment_on(catalog, model, bf16, node, 4096).layouts}
    one, four = layouts[1], layouts[4]
    assert four.copies == 1 and one.copies == 4
    assert four.typical > 1.5 * one.typical  # four cards read the weights
    # at 4K the split reaches the engine's cap on an A100 (256 sequences) while four copies each have their own
    assert four.streams == four.most_streams == 256 and one.streams > four.streams and one.total > four.total
    # at 32K the KV cache fills the memory: the split, holding the weights once, keeps more streams and wins
    long = {x.cards: x for x in deployment_on(catalog, model, bf16, node, 32768).layouts}
    assert long[4].streams > long[1].streams and long[4].total > long[1].total


def test_a_split_the_heads_forbid_is_no_layout(catalog):
    # Llama 3.1 8B has 32 heads and 8 KV heads: 3 cards divide neither
    node, model, bf16 = catalog.nodes["4x-a100-pcie-80gb"], catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    assert 3 not in {x.cards for x in deployment_on(catalog, model, bf16, node).layouts}


def test_a_large_card_runs_up_to_its_engines_default_of_sequences(catalog):
    """vLLM's default --max-num-seqs is 1,024 on cards of 70 GiB and more other than the A100, 256 elsewhere."""
    model, bf16 = catalog.models["llama-3.1-8b"], catalog.precisions["bf16"]
    h100 = deployment_on(catalog, model, bf16, catalog.nodes["1x-h100-pcie-80gb"], 4096).chosen
    a100 = deployment_on(catalog, model, bf16, catalog.nodes["1x-a100-pcie-80gb"], 4096).chosen
    assert h100 is not None and a100 is not None and (h100.most_streams, a100.most_streams) == (1024, 256)


def test_llama_cpp_serves_its_default_slots(catalog):
    model, q4 = catalog.models["llama-3.1-8b"], catalog.precisions["gguf-q4_k_m"]
    chosen = deployment_on(catalog, model, q4, catalog.nodes["1x-rtx-4090"], 4096).chosen
    assert chosen is not None and chosen.most_streams == chosen.streams == 4  # llama-server's --parallel auto


def test_bridged_pairs_talk_over_nvlink_two_by_two_and_over_pcie_beyond(catalog):
    node = catalog.nodes["4x-h100-nvl-94gb"]
    bridge = catalog.interconnect_of(node)
    pcie = catalog.host_pcie_of(catalog.gpu_of(node))
    assert node_link(catalog, node, 1) is None
    assert node_link(catalog, node, 2).allreduce_busbw_gbps == bridge.allreduce_busbw_gbps
    assert node_link(catalog, node, 4).allreduce_busbw_gbps == pcie.allreduce_busbw_gbps
