"""Fit verdicts: one card, split across k cards, or no fit, with the need and the budget."""

import pytest

from sizing.catalog.schema import Llm
from sizing.catalog.units import GIB
from sizing.engine.fit import (
    Verdict,
    card_budget,
    fit,
    nvswitch_splits,
    seconds_per_pass_in_host_memory,
    tight_setting,
    tight_settings_offered,
    valid_splits,
)
from sizing.views.matrix import VerdictMatrix, deployment_on


def verdict(catalog, model, precision, node, **kw):
    return fit(catalog, catalog.models[model], catalog.precisions[precision], catalog.nodes[node], **kw)


def test_an_a100_80gb_offers_vllm_71_3_gib(catalog):
    # CUDA shows 79.25 GiB = 81,152 MiB of an A100 80GB (gpus.yml); vLLM's default 0.90 of it = 71.325 GiB
    # (was 0.90 × 0.99 × 80 = 71.28 GiB from one fraction for every card)
    assert card_budget(catalog, catalog.gpus["a100-pcie-80gb"]) == pytest.approx(0.90 * 81_152 * 2**20)
    assert card_budget(catalog, catalog.gpus["a100-pcie-80gb"]) / GIB == pytest.approx(71.325)


def test_llama_70b_bf16_does_not_fit_on_one_80_gb_card(catalog):
    result = verdict(catalog, "llama-3.3-70b", "bf16", "1x-a100-pcie-80gb")
    assert result.verdict is Verdict.NO_FIT
    # 141.1 GB of weights = 131.4 GiB alone, above the 71.3 GiB budget (and the 75.3 GiB of the tight setting)
    assert result.need.dominant == "weights" and result.headroom < 0


@pytest.mark.parametrize("node", ["4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"])
def test_llama_70b_bf16_is_split_two_ways_on_the_a100_nodes(catalog, node):
    result = verdict(catalog, "llama-3.3-70b", "bf16", node)
    assert result.verdict is Verdict.SPLIT and result.cards == 2
    # 2 cards: 65.708 (weights) + 1.25 (KV at 8k) + 0.520 (activation peak) + 1.05 (CUDA context 0.15, CUDA graphs
    # 0.5, NCCL 0.4) = 68.53 GiB ≤ 71.325. Activation peak: an A100 profiles 256 sequences whatever its memory, and the
    # sampler's 256 × 128,256 vocab × 17 B = 558,170,112 B = 0.520 GiB is above the forward pass of 2,048 tokens
    # (2,048 × (6 × 28,673 / 2 + 4 × 8,192) B = 0.227 GiB). The SXM4 board's NVLink adds no buffers: A100s have no
    # NVLink SHARP.
    assert result.need.total / GIB == pytest.approx(68.53, abs=0.01)


def test_only_nvswitch_boards_of_hopper_or_later_keep_the_switch_buffers(catalog):
    every_split = frozenset(range(2, 9))
    assert nvswitch_splits(catalog, catalog.nodes["8x-h100-sxm5-80gb"]) == every_split
    assert nvswitch_splits(catalog, catalog.nodes["8x-a100-sxm4-80gb"]) == frozenset()  # Ampere: no NVLink SHARP
    assert nvswitch_splits(catalog, catalog.nodes["2x-h100-pcie-80gb"]) == frozenset()  # a bridged pair
    assert nvswitch_splits(catalog, catalog.nodes["4x-a100-pcie-80gb"]) == frozenset()


def test_a_24b_model_in_bf16_fits_on_one_80_gb_card(catalog):
    result = verdict(catalog, "mistral-small-3-24b", "bf16", "1x-a100-pcie-80gb")
    assert result.verdict is Verdict.ONE_CARD and result.cards == 1
    # 47.14 GB = 43.907 GiB + 1.25 GiB KV (160 KiB × 8,192) + 0.531 activation peak (the sampler's 256 × 131,072
    # vocab × 17 B) + 0.65 (CUDA context 0.15, CUDA graphs 0.5) = 46.34 GiB, within 71.325
    assert result.need.total / GIB == pytest.approx(46.34, abs=0.01)


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
    # On an RTX 5090 (32,117 MiB: budget 28.23 GiB; 256 sequences profiled: 0.520 GiB of activations):
    # 4K on one card: 14.958 + 0.5 (KV) + 0.520 + 0.65 = 16.63 GiB;
    # 128K: one card 14.958 + 16 + 0.520 + 0.65 = 32.13 GiB (0.95 not offered below 40 GiB; FP8 KV, 24.13, would
    # fit, but two cards at the default setting come first): 7.479 + 8 + 0.520 + 1.05 = 17.05 GiB.
    short = verdict(catalog, "llama-3.1-8b", "bf16", "4x-rtx-5090", context_tokens=4096)
    long = verdict(catalog, "llama-3.1-8b", "bf16", "4x-rtx-5090", context_tokens=131072)
    assert short.verdict is Verdict.ONE_CARD
    assert long.verdict is Verdict.SPLIT and long.cards == 2 and long.need.dominant == "kv_cache"
    assert long.need.total / GIB == pytest.approx(17.05, abs=0.01)


def test_diffusion_pipeline_places_text_encoders_on_a_second_card(catalog):
    # FLUX BF16: transformer 23.80 GB = 22.17 GiB + 2 GiB activations: above an RTX 4090's 0.90 × 23.55 = 21.20 GiB,
    # whatever the layout: it runs only with part of the transformer in host memory
    assert verdict(catalog, "flux.1-dev", "bf16", "2x-rtx-4090").tight_by == "partial_load"
    # a 32 GB card (0.90 × 31.36 = 28.23 GiB) holds the transformer (22.17 + 2 + 0.6 = 24.77 GiB) but not the whole
    # pipeline (31.67 GiB of weights): the T5 encoder goes to a second card
    split = verdict(catalog, "flux.1-dev", "bf16", "4x-rtx-5090")
    assert split.verdict is Verdict.SPLIT and split.cards == 2
    # in FP8 the pipeline is 17.09 GB = 15.91 GiB + 2 + 0.15 = 18.06 GiB: one 24 GB card
    assert verdict(catalog, "flux.1-dev", "fp8", "1x-rtx-4090").verdict is Verdict.ONE_CARD
    assert verdict(catalog, "flux.1-dev", "bf16", "1x-l40s").verdict is Verdict.ONE_CARD


def test_a_server_a_little_short_on_small_cards_fits_tightly_running_fewer_streams(catalog):
    """Gemma 3 27B in FP8 on one RTX 5090: the default batch's sampler, over Gemma's 262,208-entry vocabulary, does
    not fit beside the weights; sixteen sequences' does (vLLM's guide: "limiting ... the maximum batch size")."""
    # 25,599,716,096 weights in 8 bits + 1,409,630,208 embeddings in 16 = 28,419,346,304 B = 26.467 GiB; KV cache at
    # 4K, 10 global layers × 16 heads × 128 × 2 × 2 B × 4,096 + 52 sliding ones over 1,024 tokens = 0.719 GiB; CUDA
    # context and graphs 0.15 + 0.5 GiB; sampler 256 × 262,208 × 17 B = 1.063 GiB: 28.899 GiB above
    # 0.90 × 32,117 MiB = 28.228 GiB. With 16 sequences the sampler takes 0.066 GiB and the forward pass of the 2,048
    # batched tokens peaks above it, 2,048 × (6 × 21,505 + 4 × 5,376) B = 0.287 GiB: 28.123 GiB
    found = verdict(catalog, "gemma-3-27b", "fp8", "1x-rtx-5090", context_tokens=4096)
    assert found.verdict is Verdict.TIGHT and found.tight_by == "max_num_seqs" and found.cards == 1
    assert found.need.total / GIB == pytest.approx(28.899, abs=0.001)
    assert found.budget / GIB == pytest.approx(28.228, abs=0.001)
    assert found.tight_need is not None and found.tight_need.total / GIB == pytest.approx(28.123, abs=0.001)
    assert tight_setting(catalog, found) == "--max-num-seqs 16" and found.max_num_seqs == 16
    assert tight_settings_offered(catalog)["max_num_seqs"] == "--max-num-seqs 16"  # as the API reference lists it
    # the room beside the weights, 28.228 − 26.467 − 0.287 − 0.65 = 0.824 GiB, holds one 0.719 GiB stream
    speed = deployment_on(
        catalog,
        catalog.models["gemma-3-27b"],
        catalog.precisions["fp8"],
        catalog.nodes["1x-rtx-5090"],
        4096,
    ).chosen
    assert speed is not None and speed.fit == found and speed.streams_per_copy == 1


def test_a_server_still_short_with_few_streams_fits_tightly_without_cuda_graphs(catalog):
    """Qwen2.5 72B in AWQ on 2 × RTX 4090, which practitioners serve with vLLM in eager mode (Qwen's own benchmark
    ran it with enforce_eager=True at 4K): sixteen sequences are not enough, sixteen without CUDA graphs are."""
    # per card: 20.7308e9 B of weights = 19.307 GiB; KV cache at 4K, 80 layers × 8 heads × 128 × 2 × 2 B × 4,096 / 2
    # = 0.625 GiB; CUDA context and NCCL 0.15 + 0.4 GiB, CUDA graphs 0.5 GiB; sampler 256 × 152,064 × 17 B
    # = 0.616 GiB: 21.598 GiB above 0.90 × 24,115 MiB = 21.195 GiB. With 16 sequences the forward pass of 2,048
    # tokens peaks, 2,048 × (6 × 29,569 / 2 + 4 × 8,192) B = 0.232 GiB: 21.214 GiB, still 0.019 above; without the
    # graphs 20.714 GiB
    found = verdict(catalog, "qwen2.5-72b", "int4-awq-gptq", "2x-rtx-4090", context_tokens=4096)
    assert found.verdict is Verdict.TIGHT and found.tight_by == "enforce_eager" and found.cards == 2
    assert found.need.total / GIB == pytest.approx(21.598, abs=0.001)
    assert found.tight_need is not None and found.tight_need.total / GIB == pytest.approx(20.714, abs=0.001)
    assert found.tight_need.total <= found.budget < found.tight_need.total + 0.5 * GIB
    assert not found.cuda_graphs and found.max_num_seqs == 16
    assert tight_setting(catalog, found) == "--max-num-seqs 16 --enforce-eager"
    assert tight_settings_offered(catalog)["enforce_eager"] == "--max-num-seqs 16 --enforce-eager"


def test_on_a_large_card_fewer_streams_may_need_the_higher_utilization_too(catalog):
    """Qwen2.5 72B in FP8 on one H100 at 8K: neither --gpu-memory-utilization 0.95 nor a small batch alone is
    enough, both are."""
    # 75.198e9 B of weights = 70.033 GiB; KV cache at 8K 80 × 8 × 128 × 2 × 2 B × 8,192 = 2.5 GiB; CUDA context and
    # graphs 0.15 + 0.5 GiB; an H100 takes vLLM's large batch, whose sampler holds 1,024 × 152,064 × 17 B = 2.465 GiB:
    # 75.649 GiB, above 0.95 × 79.22 = 75.259 GiB. With 16 sequences the forward pass of 8,192 tokens peaks,
    # 8,192 × (6 × 29,569 + 4 × 8,192) B = 1.604 GiB: 74.787 GiB, above the default 0.90 × 79.22 = 71.30 GiB and
    # within 75.259
    found = verdict(catalog, "qwen2.5-72b", "fp8", "1x-h100-pcie-80gb", context_tokens=8192)
    assert found.verdict is Verdict.TIGHT and found.tight_by == "max_num_seqs" and found.memory_utilization == 0.95
    assert found.need.total / GIB == pytest.approx(75.649, abs=0.001)
    assert found.tight_need is not None and found.tight_need.total / GIB == pytest.approx(74.787, abs=0.001)
    assert found.budget / GIB == pytest.approx(75.259, abs=0.001)
    assert tight_setting(catalog, found) == "--gpu-memory-utilization 0.95 --max-num-seqs 16"


def test_a_pipeline_too_large_for_a_card_fits_tightly_when_its_largest_part_and_working_memory_do(catalog):
    """Practitioners run SD 3.5 Large in BF16 on one 24 GB card with its parts taking turns (diffusers'
    enable_model_cpu_offload, ComfyUI's default on such cards): the verdict says so, and names the call."""
    # every part: (8.15 + 4.895 + 0.818 + 0.0838) × 1e9 × 2 B = 25.98 GiB + 2 GiB of working memory + 0.15 = 28.13 GiB
    # against 0.90 × 24,115 MiB = 21.195 GiB; the MMDiT alone: 16.3e9 B = 15.18 GiB + 2 + 0.15 = 17.33 GiB
    found = verdict(catalog, "sd-3.5-large", "bf16", "1x-rtx-4090")
    assert found.verdict is Verdict.TIGHT and found.tight_by == "offload" and found.cards == 1
    assert found.need.total / GIB == pytest.approx(28.13, abs=0.01)
    assert found.budget / GIB == pytest.approx(21.195, abs=0.001)
    assert found.tight_need is not None and found.tight_need.total / GIB == pytest.approx(17.33, abs=0.01)
    assert tight_setting(catalog, found) == "pipe.enable_model_cpu_offload()"
    # a node with a second card splits the parts instead (a split beats a tight fit)
    assert verdict(catalog, "sd-3.5-large", "bf16", "2x-rtx-4090").verdict is Verdict.SPLIT


def test_a_pipeline_that_fits_no_card_of_the_node_gives_the_need_of_a_layout_the_node_has(catalog):
    """Issue 27: 1 × A40 read "does not fit", "would need 34.9 GiB per card across 1 card; a card offers 39.9 GiB":
    the per-card need of a two-card layout the node does not have."""
    # Wan 2.1 14B BF16: 14.0e9 + 5.68e9 + 0.127e9 parameters × 2 B = 36.89 GiB of weights + 8 GiB of working memory
    # + 0.15 GiB of CUDA context = 45.04 GiB, on one A40 (0.90 × 44.35 = 39.92 GiB)
    # its parts taking turns: the 14B denoiser, 28.0e9 B = 26.08 GiB + 8 + 0.15 = 34.23 GiB, fits
    alone = verdict(catalog, "wan2.1-t2v-14b", "bf16", "1x-a40")
    assert alone.verdict is Verdict.TIGHT and alone.tight_by == "offload" and alone.cards == 1
    assert alone.need.total / GIB == pytest.approx(45.04, abs=0.01) and alone.need.total > alone.budget
    assert alone.tight_need is not None and alone.tight_need.total / GIB == pytest.approx(34.23, abs=0.01)
    for model in ("flux.1-dev", "sd-3.5-large", "wan2.1-t2v-14b", "wan2.1-t2v-1.3b", "sdxl-base-1.0"):
        for node in catalog.nodes:
            found = verdict(catalog, model, "bf16", node)
            held = found.tight_need if found.tight_by in ("offload", "partial_load") else found.need
            assert held is not None and (found.verdict is Verdict.NO_FIT) == (held.total > found.budget), (model, node)
            assert found.cards <= catalog.nodes[node].cards


def test_a_pipeline_whose_largest_part_does_not_fit_leaves_part_of_it_in_host_memory(catalog):
    """Practitioners run FLUX.1 [dev] in BF16 on one 24 GB card: ComfyUI loads its transformer partially, diffusers
    with device_map="auto". The card holds what the working memory leaves; the rest crosses PCIe at every pass."""
    # 4 × L4 (0.90 × 22,563 MiB = 19.83 GiB each): the transformer's card alone needs 22.17 + 2 + 0.6 = 24.77 GiB
    # beside the encoders, 22.17 + 2 + 0.15 = 24.32 GiB with the parts taking turns: neither fits, so one card holds
    # 19.83 − 2 − 0.15 = 17.68 GiB of the transformer and 24.32 − 19.83 = 4.49 GiB wait in host memory
    four = verdict(catalog, "flux.1-dev", "bf16", "4x-l4")
    assert four.verdict is Verdict.TIGHT and four.tight_by == "partial_load" and four.cards == 1
    assert four.need.total / GIB == pytest.approx(34.006e9 / GIB + 2.15, abs=0.01)  # every part on one card
    assert four.tight_need is not None and four.tight_need.total == pytest.approx(four.budget)
    assert four.tight_need.weights / GIB == pytest.approx(17.68, abs=0.01)
    assert four.host_weight_bytes / GIB == pytest.approx(4.49, abs=0.01)
    assert tight_setting(catalog, four) == 'device_map="auto"'
    # the L4 sits on PCIe Gen4 (31.5 GB/s each way): 4.816e9 B / 31.5e9 B/s = 0.153 s at every pass, at least
    l4 = catalog.gpus["l4"]
    assert seconds_per_pass_in_host_memory(catalog, l4, four) == pytest.approx(0.153, abs=0.001)
    # a card that holds the largest part whole lets the parts take turns instead, with no layer left behind
    assert verdict(catalog, "flux.1-dev", "bf16", "1x-rtx-5090").tight_by == "offload"


def test_the_shared_verdict_matrix_agrees_with_fit_and_deploy_node_by_node(catalog):
    """The matrix computes each split's need once per card class and each split's verdict once per GPU, whatever
    the node's count; it must give what fit() gives alone, and for a language model the deployment deploy() makes
    alone (every layout, the one chosen)."""
    matrix = VerdictMatrix(catalog)
    for model_id, precision_id, context, node_id in matrix.combinations():
        model, precision, node = catalog.models[model_id], catalog.precisions[precision_id], catalog.nodes[node_id]
        cell = matrix.cell(model_id, precision_id, node_id, context)
        where = (model_id, precision_id, context, node_id)
        assert cell.fit == fit(catalog, model, precision, node, context), where
        if isinstance(model, Llm):
            assert cell.deployment == deployment_on(catalog, model, precision, node, context), where
