"""Weight and KV-cache bytes, checked against published sizes (arithmetic in each test)."""

import pytest

from sizing.catalog.loader import Catalog
from sizing.catalog.units import GB, GIB
from sizing.engine.memory import (
    embedding_params,
    kv_bytes_per_token,
    kv_cache_bytes,
    kv_cache_bytes_layer_split,
    model_weight_bytes,
    weight_bytes,
    weight_bytes_per_card,
)
from sizing.engine.scenarios import scenario_precision, scenario_shape
from sizing.engine.specs import llm_shape


def w(catalog: Catalog, model: str, precision: str) -> float:
    return model_weight_bytes(catalog.models[model], catalog.precisions[precision])


def test_bf16_is_two_bytes_per_parameter(catalog):
    # 70,553,706,496 params × 2 B = 141.107 GB
    assert w(catalog, "llama-3.3-70b", "bf16") == 70_553_706_496 * 2


def test_fp8_keeps_embeddings_and_head_in_16_bit(catalog):
    # embeddings + head: 128,256 × 8,192 × 2 = 2,101,346,304 params at 2 B;
    # the other 68,452,360,192 params at 1 B: 68.452 + 4.203 = 72.655 GB (published checkpoint: 72.67 GB)
    assert embedding_params(llm_shape(catalog.models["llama-3.3-70b"])) == 2_101_346_304
    assert w(catalog, "llama-3.3-70b", "fp8") == pytest.approx(72.655e9, rel=1e-4)


def test_int4_awq_gptq_counts_group_scales_and_zeros(catalog):
    # 68,452,360,192 × 4.15625 / 8 = 35.563 GB, + 4.203 GB of 16-bit embeddings = 39.766 GB (~39.8 GB)
    assert w(catalog, "llama-3.3-70b", "int4-awq-gptq") == pytest.approx(39.766e9, rel=1e-4)


def test_gguf_sizes_match_llama_cpp_measurements(catalog):
    # Q4_K_M: 70,553,706,496 × 4.8944 / 8 = 43.164 GB (llama.cpp: 43.1 GB)
    assert w(catalog, "llama-3.3-70b", "gguf-q4_k_m") / GB == pytest.approx(43.16, abs=0.01)
    # Q8_0 on 8B: 8,030,261,248 × 8.5008 / 8 = 8.533 GB = 7.95 GiB (llama.cpp: 7.95 GiB)
    assert w(catalog, "llama-3.1-8b", "gguf-q8_0") / GIB == pytest.approx(7.95, abs=0.01)


def test_mixture_of_experts_memory_counts_every_expert(catalog):
    # Qwen3 235B-A22B in BF16: 235,093,634,560 × 2 = 470.19 GB, not the 22B active
    assert w(catalog, "qwen3-235b-a22b", "bf16") == 235_093_634_560 * 2


@pytest.mark.parametrize(
    "model, per_token",
    [
        ("llama-3.1-8b", 2 * 32 * 8 * 128 * 2),  # 131,072 B = 128 KiB
        ("llama-3.3-70b", 2 * 80 * 8 * 128 * 2),  # 327,680 B = 320 KiB
        ("qwen3-235b-a22b", 2 * 94 * 4 * 128 * 2),  # 192,512 B = 188 KiB
        ("deepseek-v3", 61 * (512 + 64) * 2),  # MLA latent: 70,272 B
    ],
)
def test_kv_cache_per_token(catalog, model, per_token):
    assert kv_bytes_per_token(llm_shape(catalog.models[model]), 2) == per_token


def test_kv_heads_split_across_cards_and_replicate_beyond_their_count(catalog):
    qwen = catalog.models["qwen3-235b-a22b"]  # 4 KV heads
    # 2-way: 2 heads per card = 2 × 94 × 2 × 128 × 2 = 96,256 B
    assert kv_bytes_per_token(llm_shape(qwen), 2, cards=2) == 96_256
    # 8-way: 4 heads cannot go below one per card: 2 × 94 × 1 × 128 × 2 = 48,128 B (1/4, not 1/8)
    assert kv_bytes_per_token(llm_shape(qwen), 2, cards=8) == 48_128
    # MLA latent is kept whole on every card
    assert kv_bytes_per_token(llm_shape(catalog.models["deepseek-v3"]), 2, cards=8) == 70_272


def test_kv_cache_of_a_70b_at_8k_is_2_5_gib(catalog):
    # 327,680 B × 8,192 tokens = 2,684,354,560 B = 2.5 GiB
    assert kv_cache_bytes(llm_shape(catalog.models["llama-3.3-70b"]), 8192, 1, 2) == 2.5 * GIB


def test_sliding_window_layers_hold_only_their_window(catalog):
    # Gemma 3 27B: per layer per token 2 × 16 × 128 × 2 = 8,192 B;
    # 8k context: 8,192 × (10 × 8,192 + 52 × 1,024) = 1,107,296,256 B = 1.03 GiB (not 3.9 GiB naive)
    assert kv_cache_bytes(llm_shape(catalog.models["gemma-3-27b"]), 8192, 1, 2) == 8192 * (10 * 8192 + 52 * 1024)


def test_diffusion_vae_stays_16_bit_while_the_rest_goes_fp8(catalog):
    flux = catalog.models["flux.1-dev"]
    # BF16: (11,901,410,000 + 4,895,000,000 + 123,000,000 + 83,800,000) × 2 = 34.006 GB
    assert w(catalog, "flux.1-dev", "bf16") == pytest.approx(34.00642e9)
    # FP8: (11,901,410,000 + 4,895,000,000 + 123,000,000) × 1 + 83,800,000 × 2 = 17.087 GB
    assert w(catalog, "flux.1-dev", "fp8") == pytest.approx(17.08701e9)
    assert flux.params == 17_003_210_000


def test_a_layer_split_shares_the_kv_cache_by_layers(catalog):
    # Llama 3.3 70B at 8K: 2.5 GiB in all; 2 cards hold 40 layers each = 1.25 GiB; 5 cards (not a head divisor) 0.5 GiB
    llama = catalog.models["llama-3.3-70b"]
    assert kv_cache_bytes_layer_split(llm_shape(llama), 8192, 1, 2, 2) == 1.25 * GIB
    assert kv_cache_bytes_layer_split(llm_shape(llama), 8192, 1, 2, 5) == 0.5 * GIB
    # Qwen3 235B's 4 KV heads over 8 cards: 1/8 of the whole (a tensor split replicates to 1/4)
    qwen = catalog.models["qwen3-235b-a22b"]
    assert kv_cache_bytes_layer_split(llm_shape(qwen), 8192, 1, 2, 8) == kv_cache_bytes(llm_shape(qwen), 8192, 1, 2) / 8


def test_gpt_oss_weights_are_what_vllm_loads(catalog):
    # 114,701,598,720 expert parameters at vLLM's padded MXFP4 (4.533 bits) = 64.993e9 B, the other
    # 116,829,156,672 - 114,701,598,720 = 2,127,557,952 parameters at 2 B = 4.255e9 B: 69.248e9 B = 64.49 GiB (vLLM on an
    # H100: 64.38 GiB)
    record = next(r for r in catalog.memory_measurements if r.id == "llmd-gpt-oss-120b-h100-1x")
    shape = scenario_shape(catalog, record.model)
    precision = scenario_precision(catalog, record.precision, record.model)
    assert weight_bytes(shape, precision) / GIB == pytest.approx(64.49, abs=0.01)


@pytest.mark.parametrize(
    ("architecture", "cards", "padding_per_card"),
    [
        # Marlin pads each card's share of the 2,880-wide experts to a multiple of 128: 2,944 on one card
        # (64.993e9 B x 64 / 2,880 = 1.4443e9 B more), 1,536 of 1,440 on each of two (32.4965e9 x 96 / 1,440 = 2.1664e9)
        ("ampere", 1, 1.4443e9),
        ("ampere", 2, 2.1664e9),
        # Triton on Hopper pads to 64: 2,880 stays, 1,440 becomes 1,472 (32.4965e9 x 32 / 1,440 = 0.7221e9)
        ("hopper", 1, 0.0),
        ("hopper", 2, 0.7221e9),
    ],
)
def test_vllm_pads_each_cards_share_of_the_experts_to_its_kernels_multiple(
    catalog, architecture, cards, padding_per_card
):
    shape = llm_shape(catalog.models["gpt-oss-120b"])
    precision = scenario_precision(catalog, "mxfp4", "gpt-oss-120b")
    share = weight_bytes(shape, precision) / cards
    padding = weight_bytes_per_card(shape, precision, cards, architecture) - share
    assert padding == pytest.approx(padding_per_card, rel=1e-3, abs=1e6)


def test_a_format_without_padding_splits_the_weights_evenly(catalog):
    shape = llm_shape(catalog.models["gpt-oss-120b"])
    precision = scenario_precision(catalog, "gguf-mxfp4", "gpt-oss-120b")
    assert weight_bytes_per_card(shape, precision, 2, "ampere") == weight_bytes(shape, precision) / 2
