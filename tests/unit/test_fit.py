"""Fit verdicts: one card, split across k cards, or no fit, with the need and the budget."""
import pytest

from sizing.fit import Verdict, card_budget, fit, valid_splits
from sizing.matrix import VerdictMatrix
from sizing.units import GIB


def verdict(catalog, model, precision, node, **kw):
    return fit(catalog, catalog.models[model], catalog.precisions[precision], catalog.nodes[node], **kw)


def test_an_80_gb_card_offers_71_3_gib(catalog):
    # 0.90 usable × 0.99 visible × 80 GiB = 71.28 GiB
    assert card_budget(catalog, catalog.gpus["a100-pcie-80gb"]) == pytest.approx(71.28 * GIB)


def test_llama_70b_bf16_does_not_fit_on_one_80_gb_card(catalog):
    result = verdict(catalog, "llama-3.3-70b", "bf16", "1x-a100-pcie-80gb")
    assert result.verdict is Verdict.NO_FIT
    # 141.1 GB of weights = 131.4 GiB alone, above the 71.28 GiB budget
    assert result.need.dominant == "weights" and result.headroom < 0


@pytest.mark.parametrize("node", ["4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"])
def test_llama_70b_bf16_is_split_four_ways_on_the_a100_nodes(catalog, node):
    result = verdict(catalog, "llama-3.3-70b", "bf16", node)
    assert result.verdict is Verdict.SPLIT and result.cards == 4
    # 2 cards would need 65.70 (weights) + 1.25 (KV at 8k) + 5 + 0.6 = 72.55 GiB > 71.28: so 4.
    # 4 cards: 141.107e9 / 4 / 2^30 = 32.85 GiB + 0.625 + 5 + 0.6 = 39.08 GiB
    assert result.need.total / GIB == pytest.approx(39.08, abs=0.01)


def test_a_24b_model_in_bf16_fits_on_one_80_gb_card(catalog):
    result = verdict(catalog, "mistral-small-3-24b", "bf16", "1x-a100-pcie-80gb")
    assert result.verdict is Verdict.ONE_CARD and result.cards == 1
    # 47.14 GB = 43.90 GiB + 1.25 GiB KV (160 KiB × 8,192) + 5 + 0.15 = 50.30 GiB
    assert result.need.total / GIB == pytest.approx(50.30, abs=0.01)


def test_splits_respect_head_counts(catalog):
    # 64 heads, 8 KV heads: 3, 5, 6, 7 do not divide them
    assert valid_splits(catalog.models["llama-3.3-70b"], 8) == [1, 2, 4, 8]
    # 4 KV heads: k = 8 replicates each KV head twice, allowed
    assert valid_splits(catalog.models["qwen3-235b-a22b"], 8) == [1, 2, 4, 8]


def test_a_model_too_big_for_the_node_reports_its_best_attempt(catalog):
    result = verdict(catalog, "llama-3.1-405b", "bf16", "8x-a100-pcie-80gb")
    assert result.verdict is Verdict.NO_FIT and result.cards == 8
    assert result.need.total > result.budget


def test_long_context_can_turn_a_fit_into_a_split(catalog):
    short = verdict(catalog, "llama-3.1-8b", "bf16", "2x-l4", context_tokens=4096)
    long = verdict(catalog, "llama-3.1-8b", "bf16", "2x-l4", context_tokens=131072)
    assert short.verdict is Verdict.ONE_CARD
    assert long.verdict is not Verdict.ONE_CARD and long.need.dominant == "kv_cache"


def test_diffusion_pipeline_places_text_encoders_on_a_second_card(catalog):
    # FLUX BF16: transformer 23.80 GB = 22.17 GiB + 2 GiB activations: above a 24 GB card's 21.38 GiB
    assert verdict(catalog, "flux.1-dev", "bf16", "2x-rtx-4090").verdict is Verdict.NO_FIT
    # a 32 GB card (28.51 GiB) holds the transformer (22.17 + 2 + 0.6 = 24.77 GiB) but not the whole
    # pipeline (31.67 GiB of weights): the T5 encoder goes to a second card
    split = verdict(catalog, "flux.1-dev", "bf16", "4x-rtx-5090")
    assert split.verdict is Verdict.SPLIT and split.cards == 2
    # in FP8 the pipeline is 17.09 GB = 15.91 GiB + 2 + 0.15 = 18.06 GiB: one 24 GB card
    assert verdict(catalog, "flux.1-dev", "fp8", "1x-rtx-4090").verdict is Verdict.ONE_CARD
    assert verdict(catalog, "flux.1-dev", "bf16", "1x-l40s").verdict is Verdict.ONE_CARD


def test_the_shared_verdict_matrix_agrees_with_fit_node_by_node(catalog):
    """The matrix computes each split's need once for every GPU; it must give what fit() gives alone."""
    matrix = VerdictMatrix(catalog)
    for model, precision, context, node in matrix.keys():
        alone = fit(catalog, catalog.models[model], catalog.precisions[precision], catalog.nodes[node], context)
        assert matrix.cell(model, precision, node, context).fit == alone, (model, precision, context, node)
