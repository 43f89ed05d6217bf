"""Issue 17's memory rules: the memory each card shows the runtime, the engine profiles (vLLM/SGLang and llama.cpp)
and the tight verdict, with the arithmetic checked by hand in each test. GiB = 2^30 B, MiB = 2^20 B."""

import pytest
from conftest import edit

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
from sizing.engine.memory import kv_cache_bytes, model_weight_bytes
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
        "gguf-q8_0": "llama.cpp",
        "gguf-q4_k_m": "llama.cpp",
    }


def test_a_precision_no_engine_runs_is_refused(data_copy):
    edit(data_copy / "engines.yml", "    precisions: [gguf-q8_0, gguf-q4_k_m]\n", "    precisions: [gguf-q8_0]\n")
    with pytest.raises(CatalogError, match="no engine runs language-model precision 'gguf-q4_k_m'"):
        load_catalog(data_copy)


def test_the_server_activation_peak_follows_the_card_class_not_the_split(catalog):
    llama, bf16 = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    h100, l40s = catalog.gpus["h100-sxm5-80gb"], catalog.gpus["l40s"]
    # H100 (79.22 GiB, not an A100): vllm serve profiles 1,024 sequences; the sampler holds
    # 1,024 × 128,256 × 36 B = 4,728,029,184 B = 4.403 GiB, + 0.4 GiB of forward pass = 4.803 GiB
    needs = [llm_need(catalog, llama, bf16, 8192, 1, k, gpu=h100) for k in (1, 2, 4, 8)]
    assert needs[0].activations / GIB == pytest.approx(4.803, abs=1e-3)
    assert len({n.activations for n in needs}) == 1  # every card of a split holds all of it
    # overhead: CUDA context 0.15 + CUDA graphs 0.5 on one card; + NCCL buffers 0.4 on each card of a split
    assert [n.overhead / GIB for n in needs] == pytest.approx([0.65, 1.05, 1.05, 1.05])
    # L40S (44.53 GiB): 256 sequences, 256 × 128,256 × 36 B = 1.101 GiB + 0.4 = 1.501 GiB
    assert llm_need(catalog, llama, bf16, 8192, 1, 2, gpu=l40s).activations / GIB == pytest.approx(1.501, abs=1e-3)
    # mixture of experts: + 0.1 GiB; DeepSeek V3 vocab 129,280 on an H200: 1,024 × 129,280 × 36 B = 4.439 GiB + 0.5
    server, v3 = catalog.server_engine, catalog.models["deepseek-v3"]
    activations, _ = engine_reserve_bytes(server, llm_shape(v3), 8192, 1, 8)  # no card named: the larger batch
    assert activations / GIB == pytest.approx(4.939, abs=1e-3)


def test_llama_3_1_8b_in_bf16_fits_one_24_gb_card_at_8k(catalog):
    # L4: 19.83 GiB budget; 14.96 weights + 1.0 KV + 1.50 activations + 0.65 overhead = 18.11 GiB
    for node in ("1x-l4", "1x-a10"):
        found = verdict(catalog, "llama-3.1-8b", "bf16", node, context_tokens=8192)
        assert found.verdict is Verdict.ONE_CARD and found.need.total / GIB == pytest.approx(18.11, abs=0.01)


def test_llama_cpp_has_no_utilization_cap(catalog):
    engine = catalog.engine_of(catalog.precisions["gguf-q4_k_m"])
    # the whole 24,115 MiB of an RTX 4090 = 23.55 GiB; vLLM would plan with 0.90 of it (21.20 GiB)
    assert card_budget(catalog, catalog.gpus["rtx-4090"], engine) == 24_115 * MIB
    assert card_budget(catalog, catalog.gpus["rtx-4090"]) == pytest.approx(0.90 * 24_115 * MIB)
    assert tight_utilization(catalog, engine, catalog.gpus["h100-sxm5-80gb"]) is None


def test_llama_cpp_compute_buffer_grows_with_context_and_ubatch(catalog):
    engine = catalog.engine_of(catalog.precisions["gguf-q4_k_m"])
    llama = catalog.models["llama-3.3-70b"]
    # 512 ubatch × (8,192 ctx × 64 heads × 4 B + 128,256 vocab × 4 B) = 512 × 2,610,176 = 1,336,410,112 B = 1.245 GiB
    assert llama_cpp_reserve(engine, llm_shape(llama), 8192, 1).activations == 1_336_410_112
    # at 32K: 512 × (32,768 × 64 × 4 + 513,024) = 4,557,635,584 B = 4.245 GiB
    assert llama_cpp_reserve(engine, llm_shape(llama), 32768, 1).activations == 4_557_635_584


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
    # per card: 141.107e9 / 2 B = 65.708 GiB + 1.25 KV (8,192 × 160 KiB) + 1.501 (an A100 profiles 256 sequences:
    # 256 × 128,256 × 36 B = 1.101 GiB, + 0.4) + 1.05 = 69.51 GiB, within 0.90 × 79.25 = 71.325
    assert result.need.total / GIB == pytest.approx(69.51, abs=0.01)


def test_llama_70b_bf16_on_two_h100_pcie_is_tight_by_utilization(catalog):
    result = verdict(catalog, "llama-3.3-70b", "bf16", "2x-h100-pcie-80gb")
    assert result.verdict is Verdict.TIGHT and result.fits and result.cards == 2
    assert result.tight_by == "utilization" and result.memory_utilization == 0.95
    # an H100 profiles 1,024 sequences: 4.403 + 0.4 = 4.803 GiB of activations; 65.708 + 1.25 + 4.803 + 1.05
    # = 72.81 GiB: above 0.90 × 79.22 = 71.30, within 0.95 × 79.22 = 75.26
    assert result.need.total / GIB == pytest.approx(72.81, abs=0.01)
    assert result.budget / GIB == pytest.approx(75.26, abs=0.01)
    # no shorter context helps at 0.90: weights + activations + overhead alone are 71.56 GiB
    assert result.longest_context_tokens is None


def test_an_fp8_kv_cache_is_the_setting_that_fits_8b_at_32k_on_an_l4(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-l4", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "kv_cache_dtype"
    assert tight_setting(catalog, result) == "--kv-cache-dtype fp8"
    # BF16 KV: 14.958 + 4.0 (128 KiB × 32,768) + 1.501 + 0.65 = 21.11 GiB > 19.83 (the need shown); FP8 KV halves
    # the cache: 19.11 GiB, within; the model runs so
    assert result.need.total / GIB == pytest.approx(21.11, abs=0.01) and result.kv_cache_dtype == "fp8"
    # or at the default setting, a context of (21,295,005,696 − 18,369,958,707.2) / 131,072 = 22,316.4 tokens
    assert result.longest_context_tokens == 22316


def test_llama_70b_q4_k_m_fits_on_two_rtx_4090_with_llama_cpp(catalog):
    result = verdict(catalog, "llama-3.3-70b", "gguf-q4_k_m", "2x-rtx-4090")
    assert result.verdict is Verdict.SPLIT and result.cards == 2 and result.engine == "llama.cpp"
    # 43.165e9 / 2 B = 20.100 GiB + 1.25 KV (its 40 layers, 320 KiB × 8,192 / 2) + 1.245 compute + 0.5 CUDA
    # = 23.095 GiB of the card's whole 23.55 GiB
    assert result.need.total / GIB == pytest.approx(23.095, abs=1e-3)
    assert result.headroom / GIB == pytest.approx(0.455, abs=1e-3)


def test_at_32k_it_is_tight_with_the_longest_context_computed(catalog):
    result = verdict(catalog, "llama-3.3-70b", "gguf-q4_k_m", "2x-rtx-4090", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "context" and result.cards == 2
    assert result.memory_utilization is None  # llama.cpp: no setting, a shorter -c
    # fixed per card: 21,582,378,817 B weights + 536,870,912 CUDA + 262,668,288 logits = 22,381,918,017 B;
    # each token: 163,840 B of KV + 512 × 64 × 4 = 131,072 B of scores = 294,912 B;
    # (25,286,410,240 − 22,381,918,017) / 294,912 = 9,848.7 → 9,848 tokens
    assert result.longest_context_tokens == 9848


def test_llama_8b_bf16_at_8k_on_one_l4_follows_its_visible_memory(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-l4")
    # 16.06e9 B = 14.958 GiB + 1.0 KV (128 KiB × 8,192) + 1.501 + 0.65 = 18.11 GiB against 0.90 × 22,565 MiB = 19.83
    assert result.need.total / GIB == pytest.approx(18.11, abs=0.01)
    assert result.budget / GIB == pytest.approx(19.83, abs=0.01)
    assert result.verdict is Verdict.ONE_CARD


def test_a_shorter_context_makes_a_tight_fit_on_a_small_card(catalog):
    result = verdict(catalog, "llama-3.1-8b", "bf16", "1x-rtx-4090", context_tokens=131072)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "context" and result.memory_utilization == 0.90
    # budget 0.90 × 24,115 MiB = 22,757,769,216 B; fixed 16,060,522,496 weights + 1,611,504,025.6 activations
    # + 697,932,185.6 overhead: (22,757,769,216 − 18,369,958,707.2) / 131,072 B per token = 33,476.4 → 33,476
    assert result.longest_context_tokens == 33476


def test_fitting_at_the_default_setting_beats_a_tight_fit_on_fewer_cards(catalog):
    # on 8 x H100 SXM5, 2 cards fit only at 0.95 (72.81 GiB), 4 cards at 0.90 (39.33 GiB): 4 cards win
    result = verdict(catalog, "llama-3.3-70b", "bf16", "8x-h100-sxm5-80gb")
    assert result.verdict is Verdict.SPLIT and result.cards == 4 and result.memory_utilization == 0.90
    assert result.need.total / GIB == pytest.approx(39.33, abs=0.01)
    assert (
        VERDICT_RANK[Verdict.ONE_CARD]
        < VERDICT_RANK[Verdict.SPLIT]
        < VERDICT_RANK[Verdict.TIGHT]
        < VERDICT_RANK[Verdict.NO_FIT]
    )


def test_a_tight_fit_through_the_setting_also_gives_the_context_that_fits_without_it(catalog):
    # Qwen3 32B BF16 on one A100 PCIe at 32K: 32,762,123,264 × 2 B = 61.024 GiB of weights + 8.0 KV
    # (256 KiB × 32,768) + 1.704 (256 × 151,936 vocab × 36 B = 1.304, + 0.4) + 0.65 = 71.38 GiB: above
    # 0.90 × 79.25 = 71.325, within 0.95 × 79.25 = 75.29 GiB
    result = verdict(catalog, "qwen3-32b", "bf16", "1x-a100-pcie-80gb", context_tokens=32768)
    assert result.verdict is Verdict.TIGHT and result.tight_by == "utilization" and result.cards == 1
    assert result.memory_utilization == 0.95 and result.budget / GIB == pytest.approx(75.29, abs=0.01)
    # at 0.90: (76,584,283,750.4 − 68,051,917,619.2 fixed) / 262,144 B per token = 32,549.2 → 32,549 tokens
    assert result.longest_context_tokens == 32549


def test_weights_of_a_gguf_split_are_shared_out_evenly(catalog):
    model, q8 = catalog.models["llama-3.1-8b"], catalog.precisions["gguf-q8_0"]
    need = llm_need(catalog, model, q8, 8192, 1, 3, gpu=catalog.gpus["rtx-4090"])
    assert need.weights == pytest.approx(model_weight_bytes(model, q8) / 3)
