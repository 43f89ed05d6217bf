"""Issue 17's memory rules: the memory each card shows the runtime, the engine profiles (vLLM/SGLang and llama.cpp)
and the tight verdict, with the arithmetic checked by hand in each test. GiB = 2^30 B, MiB = 2^20 B."""

import pytest
from sitebuild import edit

from sizing.catalog.errors import CatalogError
from sizing.catalog.loader import load_catalog
from sizing.catalog.schema import InlineGpu
from sizing.catalog.units import GIB
from sizing.engine.fit import (
    VERDICT_RANK,
    Verdict,
    card_budget,
    engine_reserve_bytes,
    engine_splits,
    fit,
    llm_need,
    tight_setting,
    tight_utilization,
    visible_memory,
)
from sizing.engine.memory import context_holding, kv_cache_bytes, longest_context_within, model_weight_bytes
from sizing.engine.reserve import llama_cpp_reserve
from sizing.engine.specs import llm_shape

MIB = 2**20


def verdict(catalog, model, precision, node, **kw):
    return fit(catalog, catalog.models[model], catalog.precisions[precision], catalog.nodes[node], **kw)


# --- memory the runtime sees ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "gpu, mib, share_of_nominal",
    [
        ("l4", 22_565, 0.918),  # GDDR6 with ECC: 23,034 MiB in nvidia-smi (0.937), 469 MiB less in CUDA
        ("l40s", 45_599, 0.928),  # 44.53 GiB measured in CUDA
        ("a100-pcie-80gb", 81_152, 0.991),  # HBM: 79.25 GiB
        ("h100-sxm5-80gb", 81_121, 0.990),  # 79.22 GiB, vLLM's own log
        ("rtx-4090", 24_115, 0.981),  # GeForce, no ECC: 23.55 GiB
    ],
)
def test_each_card_has_the_memory_cuda_reports(catalog, gpu, mib, share_of_nominal):
    card = catalog.gpus[gpu]
    assert visible_memory(catalog, card) == mib * MIB
    assert visible_memory(catalog, card) / (card.memory_gb * GIB) == pytest.approx(share_of_nominal, abs=5e-4)


def test_the_l4_budget_follows_its_visible_memory(catalog):
    # 0.90 × 22,565 MiB = 20,308.5 MiB = 19.833 GiB (the old rule gave 0.90 × 0.99 × 24 = 21.38 GiB)
    assert card_budget(catalog, catalog.gpus["l4"]) / GIB == pytest.approx(19.833, abs=1e-3)


def test_an_inline_card_falls_back_on_the_assumed_share(catalog):
    # no runtime_visible_memory_mib: 0.99 × 48 GiB = 47.52 GiB
    card = InlineGpu(memory_gb=48, memory_bandwidth_gbps=1000, bf16_dense_tflops=100)
    assert visible_memory(catalog, card) == pytest.approx(0.99 * 48 * GIB)


def test_visible_memory_above_nvidia_smi_is_refused(data_copy):
    edit(data_copy / "gpus.yml", "    runtime_visible_memory_mib: 22565\n", "    runtime_visible_memory_mib: 23100\n")
    with pytest.raises(CatalogError, match="runtime_visible_memory_mib"):
        load_catalog(data_copy)


def test_the_rtx_pro_6000_server_edition_bandwidth(catalog):
    # Server Edition 1,597 GB/s (NVIDIA, AWS G7e); 1,792 GB/s is the Workstation Edition
    assert catalog.gpus["rtx-pro-6000-blackwell"].memory_bandwidth_gbps == 1597


def test_h200_nvl_topo_labels_are_marked_inferred(catalog):
    for node, label in (("2x-h200-nvl-141gb", "NV18"), ("4x-h200-nvl-141gb", "NV6")):
        link = catalog.nodes[node].link
        assert link.topo_label == label and link.topo_label_inferred and link.topo_label_note
    assert not catalog.nodes["8x-h100-sxm5-80gb"].link.topo_label_inferred


# --- engine profiles --------------------------------------------------------------------------------------
def test_gguf_runs_on_llama_cpp_and_the_rest_on_a_server_engine(catalog):
    engine = {p: catalog.engine_of(catalog.precisions[p]).id for p in catalog.precisions}
    assert engine == {
        "bf16": "server",
        "fp8": "server",
        "int4-awq-gptq": "server",
        "mxfp4": "server",
        "gguf-q8_0": "llama.cpp",
        "gguf-q4_k_m": "llama.cpp",
        "gguf-mxfp4": "llama.cpp",
        "gguf-q4_0-qat": "llama.cpp",
    }


def test_a_precision_no_engine_runs_is_refused(data_copy):
    edit(
        data_copy / "engines.yml",
        "    precisions: [gguf-q8_0, gguf-q4_k_m, gguf-mxfp4, gguf-q4_0-qat]\n",
        "    precisions: [gguf-q8_0, gguf-mxfp4, gguf-q4_0-qat]\n",
    )
    with pytest.raises(CatalogError, match="no engine runs language-model precision 'gguf-q4_k_m'"):
        load_catalog(data_copy)


def test_the_server_activation_peak_follows_the_card_class_not_the_split(catalog):
    llama, bf16 = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    h100, l40s = catalog.gpus["h100-sxm5-80gb"], catalog.gpus["l40s"]
    # H100 (79.22 GiB, not an A100): vllm serve profiles 1,024 sequences; the sampler holds
    # 1,024 × 128,256 × 17 B = 2,232,680,448 B = 2.079 GiB, above the forward pass of 8,192 tokens even on one card
    # (8,192 × (6 × 28,673 + 4 × 8,192) B = 1.563 GiB)
    needs = [llm_need(catalog, llama, bf16, 8192, 1, k, gpu=h100) for k in (1, 2, 4, 8)]
    assert needs[0].activations / GIB == pytest.approx(2.079, abs=1e-3)
    assert len({n.activations for n in needs}) == 1  # every card of a split holds all of it
    # overhead: CUDA context 0.15 + CUDA graphs 0.5 on one card; + NCCL buffers 0.4 on each card of a split
    assert [n.overhead / GIB for n in needs] == pytest.approx([0.65, 1.05, 1.05, 1.05])
    # L40S (44.53 GiB): 256 sequences, 256 × 128,256 × 17 B = 0.520 GiB
    assert llm_need(catalog, llama, bf16, 8192, 1, 2, gpu=l40s).activations / GIB == pytest.approx(0.520, abs=1e-3)
    # mixture of experts: + 0.7 GiB; DeepSeek V3 vocab 129,280 on an H200: 1,024 × 129,280 × 17 B = 2.096 GiB + 0.7
    server, v3 = catalog.server_engine, catalog.models["deepseek-v3"]
    activations, _ = engine_reserve_bytes(server, llm_shape(v3), 8192, 1, 8)  # no card named: the larger batch
    assert activations / GIB == pytest.approx(2.796, abs=1e-3)


def test_llama_3_1_8b_in_bf16_fits_one_24_gb_card_at_8k(catalog):
    # L4: 19.83 GiB budget; 14.96 weights + 1.0 KV + 0.52 activations + 0.65 overhead = 17.13 GiB
    for node in ("1x-l4", "1x-a10"):
        found = verdict(catalog, "llama-3.1-8b", "bf16", node, context_tokens=8192)
        assert found.verdict is Verdict.ONE_CARD and found.need.total / GIB == pytest.approx(17.13, abs=0.01)


def test_llama_cpp_has_no_utilization_cap(catalog):
    engine = catalog.engine_of(catalog.precisions["gguf-q4_k_m"])
    # the whole 24,115 MiB of an RTX 4090 = 23.55 GiB; vLLM would plan with 0.90 of it (21.20 GiB)
    assert card_budget(catalog, catalog.gpus["rtx-4090"], engine) == 24_115 * MIB
    assert card_budget(catalog, catalog.gpus["rtx-4090"]) == pytest.approx(0.90 * 24_115 * MIB)
    assert tight_utilization(catalog, engine, catalog.gpus["h100-sxm5-80gb"]) is None


def test_llama_cpp_compute_buffer_grows_with_context_and_ubatch(catalog):
    engine = catalog.engine_of(catalog.precisions["gguf-q4_k_m"])
    llama = catalog.models["llama-3.3-70b"]
    shape = llm_shape(llama)
    # with flash attention (llama.cpp's default): the logits and hidden states of one 512-token ubatch,
    # 512 × (128,256 vocab + 8,192 hidden) × 4 B = 279,445,504 B = 0.260 GiB, whatever the context
    assert llama_cpp_reserve(engine, shape, 8192, 1).activations == 279_445_504
    assert llama_cpp_reserve(engine, shape, 32768, 1).activations == 279_445_504
    # without it, one layer's scores too: 512 × (8,192 ctx × 64 heads × 4 B + 545,792) = 1,353,187,328 B = 1.260 GiB
    assert llama_cpp_reserve(engine, shape, 8192, 1, flash_attention=False).activations == 1_353_187_328
    # at 32K: 512 × (32,768 × 64 × 4 + 545,792) = 4,574,412,800 B = 4.260 GiB
    assert llama_cpp_reserve(engine, shape, 32768, 1, flash_attention=False).activations == 4_574_412_800


def test_llama_cpp_shares_out_layers_so_kv_heads_are_never_replicated(catalog):
    qwen = catalog.models["qwen3-235b-a22b"]  # 4 KV heads, 94 layers
    whole = kv_cache_bytes(llm_shape(qwen), 8192, 1, 2)
    h100 = catalog.gpus["h100-sxm5-80gb"]
    gguf = llm_need(catalog, qwen, catalog.precisions["gguf-q4_k_m"], 8192, 1, 8, gpu=h100)
    bf16 = llm_need(catalog, qwen, catalog.precisions["bf16"], 8192, 1, 8, gpu=h100)
    assert gguf.kv_cache == whole / 8  # a layer split: 1/8 of the layers, every head
    assert bf16.kv_cache == whole / 4  # tensor split beyond 4 KV heads: one head per card, replicated
    # any card count for a layer split, only head-dividing ones for tensor parallelism
    assert engine_splits(catalog.engine_of(catalog.precisions["gguf-q4_k_m"]), catalog.models["llama-3.3-70b"], 4) == [
        1,
        2,
        3,
        4,
    ]
    assert engine_splits(catalog.server_engine, catalog.models["llama-3.3-70b"], 4) == [1, 2, 4]


# --- the tight verdict -------------------------------------------------------------------------------------
def test_llama_70b_bf16_fits_two_a100_pcie_at_the_default_setting(catalog):
    """vLLM issue #7567 runs Llama 3.1 70B BF16 on 2 x A100 PCIe at 17 tok/s."""
    result = verdict(catalog, "llama-3.3-70b", "bf16", "2x-a100-pcie-80gb")
    assert result.verdict is Verdict.SPLIT and result.cards == 2 and result.memory_utilization == 0.90
    # per card: 141.107e9 / 2 B = 65.708 GiB + 1.25 KV (8,192 × 160 KiB) + 0.520 (an A100 profiles 256 sequences:
    # 256 × 128,256 × 17 B) + 1.05 = 68.53 GiB, within 0.90 × 79.25 = 71.325
    assert result.need.total / GIB == pytest.approx(68.53, abs=0.01)


def test_llama_70b_bf16_on_two_h100_pcie_at_32k_is_tight_by_utilization(catalog):
    result = verdict(catalog, "llama-3.3-70b", "bf16", "2x-h100-pcie-80gb", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.fits and result.cards == 2
    assert result.tight_by == "utilization" and result.memory_utilization == 0.95
    # an H100 profiles 1,024 sequences: 2.079 GiB of activations; a bridged pair keeps the NCCL buffers only,
    # 0.15 + 0.4 + 0.5 = 1.05 GiB; 65.708 + 5.0 (KV, 32,768 × 160 KiB) + 2.079 + 1.05 = 73.84 GiB: above
    # 0.90 × 79.22 = 71.30, within 0.95 × 79.22 = 75.26
    assert result.need.total / GIB == pytest.approx(73.84, abs=0.01)
    assert result.budget / GIB == pytest.approx(75.26, abs=0.01)
    # at 0.90 a shorter context fits too: weights + activations + overhead are 73,913,815,859.2 B, which leaves
    # (76,555,380,326.4 − 73,913,815,859.2) / 163,840 B per token = 16,122.8 → 16,122 tokens
    assert result.longest_context_tokens == 16122


def test_an_fp8_kv_cache_is_the_setting_that_fits_8b_at_32k_on_an_l4(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-l4", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "kv_cache_dtype"
    assert tight_setting(catalog, result) == "--kv-cache-dtype fp8"
    # BF16 KV: 14.958 + 4.0 (128 KiB × 32,768) + 0.520 + 0.65 = 20.13 GiB > 19.83 (the need shown); FP8 KV halves
    # the cache: 18.13 GiB, within; the model runs so
    assert result.need.total / GIB == pytest.approx(20.13, abs=0.01) and result.kv_cache_dtype == "fp8"
    # or at the default setting, a context of (21,295,005,696 − 17,316,624,793.6) / 131,072 = 30,352.9 tokens
    assert result.longest_context_tokens == 30352


def test_llama_70b_q4_k_m_fits_on_two_rtx_4090_with_llama_cpp(catalog):
    result = verdict(catalog, "llama-3.3-70b", "gguf-q4_k_m", "2x-rtx-4090")
    assert result.verdict is Verdict.SPLIT and result.cards == 2 and result.engine == "llama.cpp"
    # 43.165e9 / 2 B = 20.100 GiB + 1.25 KV (its 40 layers, 320 KiB × 8,192 / 2) + 0.260 compute (flash attention)
    # + 0.5 CUDA = 22.110 GiB of the card's whole 23.550 GiB
    assert result.need.total / GIB == pytest.approx(22.110, abs=1e-3)
    assert result.headroom / GIB == pytest.approx(1.439, abs=1e-3)


def test_at_32k_it_is_tight_with_the_longest_context_computed(catalog):
    result = verdict(catalog, "llama-3.3-70b", "gguf-q4_k_m", "2x-rtx-4090", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "context" and result.cards == 2
    assert result.memory_utilization is None  # llama.cpp: no setting, a shorter -c
    # fixed per card: 21,582,378,817 B weights + 536,870,912 CUDA + 279,445,504 logits and hidden states
    # = 22,398,695,233 B; each token: 163,840 B of KV (flash attention stores no scores);
    # (25,286,410,240 − 22,398,695,233) / 163,840 = 17,625.0 → 17,625 tokens
    assert result.longest_context_tokens == 17625


def test_llama_8b_bf16_at_8k_on_one_l4_follows_its_visible_memory(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-l4")
    # 16.06e9 B = 14.958 GiB + 1.0 KV (128 KiB × 8,192) + 0.520 + 0.65 = 17.13 GiB against 0.90 × 22,565 MiB = 19.83
    assert result.need.total / GIB == pytest.approx(17.13, abs=0.01)
    assert result.budget / GIB == pytest.approx(19.83, abs=0.01)
    assert result.verdict is Verdict.ONE_CARD


def test_a_shorter_context_makes_a_tight_fit_on_a_small_card(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-rtx-4090", context_tokens=131072)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "context" and result.memory_utilization == 0.90
    # budget 0.90 × 24,115 MiB = 22,757,769,216 B; fixed 16,060,522,496 weights + 558,170,112 activations
    # + 697,932,185.6 overhead: (22,757,769,216 − 17,316,624,793.6) / 131,072 B per token = 41,512.6 → 41,512
    assert result.longest_context_tokens == 41512


def test_fitting_at_the_default_setting_beats_a_tight_fit_on_fewer_cards(catalog):
    # on 8 x H100 SXM5 (an NVSwitch board: 1.6 GiB more outside PyTorch on each card of a split), 2 cards fit only at
    # 0.95 (65.708 + 1.25 + 2.079 + 2.65 = 71.69 GiB), 4 cards at 0.90 (32.854 + 0.625 + 2.079 + 2.65 = 38.21 GiB):
    # 4 cards win
    result = verdict(catalog, "llama-3.3-70b", "bf16", "8x-h100-sxm5-80gb")
    assert result.verdict is Verdict.SPLIT and result.cards == 4 and result.memory_utilization == 0.90
    assert result.need.total / GIB == pytest.approx(38.21, abs=0.01)
    assert (
        VERDICT_RANK[Verdict.ONE_CARD]
        < VERDICT_RANK[Verdict.SPLIT]
        < VERDICT_RANK[Verdict.TIGHT]
        < VERDICT_RANK[Verdict.NO_FIT]
    )


def test_a_tight_fit_through_the_setting_also_gives_the_context_that_fits_without_it(catalog):
    # Qwen3 32B BF16 on one H100 PCIe at 32K: 32,762,123,264 × 2 B = 61.024 GiB of weights + 8.0 KV
    # (256 KiB × 32,768) + 2.463 (1,024 × 151,936 vocab × 17 B) + 0.65 = 72.14 GiB: above
    # 0.90 × 79.22 = 71.30, within 0.95 × 79.22 = 75.26 GiB
    result = verdict(catalog, "qwen3-32b", "bf16", "1x-h100-pcie-80gb", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "utilization" and result.cards == 1
    assert result.memory_utilization == 0.95 and result.budget / GIB == pytest.approx(75.26, abs=0.01)
    # at 0.90: (76,555,380,326.4 − 68,867,080,601.6 fixed) / 262,144 B per token = 29,328.9 → 29,328 tokens
    assert result.longest_context_tokens == 29328


def test_weights_of_a_gguf_split_are_shared_out_evenly(catalog):
    model, q8 = catalog.models["llama-3.1-8b"], catalog.precisions["gguf-q8_0"]
    need = llm_need(catalog, model, q8, 8192, 1, 3, gpu=catalog.gpus["rtx-4090"])
    assert need.weights == pytest.approx(model_weight_bytes(model, q8) / 3)


# --- checkpoints not in one format throughout ----------------------------------------------------------------
def test_a_checkpoint_that_leaves_layers_in_16_bits_weighs_what_its_engine_loads(catalog):
    """Meta's Llama 3.1 405B FP8 keeps attention and its first and last layers in BF16: vLLM loaded 57.752 GiB a
    card at TP 8 (vLLM issue 6746)."""
    model, fp8 = catalog.models["llama-3.1-405b"], catalog.precisions["fp8"]
    need = llm_need(catalog, model, fp8, 8192, 1, 8, gpu=catalog.gpus["h100-sxm5-80gb"])
    # all in FP8: (405,853,388,800 − 4,202,692,608 embeddings and head) × 1 B + 4,202,692,608 × 2 B
    # = 410,056,081,408 B = 381.90 GiB; 77,108,084,736 parameters more at 2 B: 453.71 GiB, 56.71 a card
    assert need.weights / GIB == pytest.approx(56.71, abs=0.01)
    assert need.weights / GIB == pytest.approx(57.752, rel=0.02)
    # the same format on a model that keeps nothing in 16 bits is unchanged: 1 B a weight, 16-bit embeddings
    llama70 = catalog.models["llama-3.3-70b"]
    expected = (70_553_706_496 - 2 * 128_256 * 8_192) + 2 * 2 * 128_256 * 8_192
    assert model_weight_bytes(llama70, fp8) == expected


def test_a_format_kept_in_16_bits_must_be_one_the_model_is_offered_in(data_copy):
    edit(data_copy / "models.yml", "    kept_16bit:\n      fp8:\n", "    kept_16bit:\n      gguf-q4_0-qat:\n")
    with pytest.raises(CatalogError, match=r"kept_16bit.*'gguf-q4_0-qat' is not a format this model is offered in"):
        load_catalog(data_copy)


# --- the longest context a room holds ------------------------------------------------------------------------
def test_the_longest_context_a_room_holds_is_the_inverse_of_the_kv_cache(catalog):
    llama = llm_shape(catalog.models["llama-3.1-8b"])
    # 32 layers × 2 × 8 heads × 128 × 2 B = 131,072 B a token: 1 GiB holds 8,192 tokens, and not one more
    assert longest_context_within(llama, GIB, 1, 2, 1, "tensor") == 8192
    assert longest_context_within(llama, GIB - 1, 1, 2, 1, "tensor") == 8191
    assert longest_context_within(llama, GIB, 4, 2, 2, "tensor") == 4096  # 4 streams, half the heads a card
    assert longest_context_within(llama, GIB, 1, 2, 2, "layers") == 16384  # half the layers a card
    gemma = llm_shape(catalog.models["gemma-3-27b"])
    # 62 layers hold every token up to the 1,024 window (63,488 layer × tokens), then the 10 global ones grow alone
    assert context_holding(gemma, 62 * 1000 + 61) == 1000
    assert context_holding(gemma, 62 * 1024 + 10 * 500) == 1524
    for tokens in (1, 700, 1024, 1025, 5000, 131072):  # the inverse, token for token
        held = kv_cache_bytes(gemma, tokens, 1, 2)
        assert longest_context_within(gemma, held, 1, 2, 1, "tensor") == tokens
