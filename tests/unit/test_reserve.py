"""What engines keep beside weights and KV cache (sizing/engine/reserve.py), arithmetic in each test."""

import pytest

from sizing.catalog.units import GIB
from sizing.engine.reserve import (
    BatchBudget,
    Reserve,
    activation_peak_bytes,
    as_released,
    compute_buffer_bytes,
    forward_activation_bytes,
    is_large_card,
    kv_cache_room_bytes,
    non_torch_bytes,
    release_of,
    sampler_peak_bytes,
    server_batch_budget,
    server_reserve,
    sglang_leaves_room_for_activations,
)
from sizing.engine.specs import LlmShape
from sizing.views.memory_accuracy import check_memory_record, compute_buffer_error


def test_vllm_takes_its_larger_batch_on_cards_of_70_gib_that_are_not_a100():
    # get_batch_defaults: device_memory >= 70 GiB and "a100" not in the device name
    assert is_large_card(79.22 * GIB, "h100-sxm5-80gb NVIDIA H100 SXM5 80GB", 70 * GIB, ["a100"])
    assert not is_large_card(79.25 * GIB, "a100-sxm4-80gb NVIDIA A100 SXM4 80GB", 70 * GIB, ["a100"])
    assert not is_large_card(44.53 * GIB, "l40s NVIDIA L40S", 70 * GIB, ["a100"])
    assert not is_large_card(22.04 * GIB, "l4 NVIDIA L4", 70 * GIB, ["a100"])


def test_the_catalog_rule_gives_serve_defaults_by_card(catalog):
    server = catalog.server_engine
    assert server_batch_budget(server, 79.22 * GIB, "h100") == BatchBudget(8192, 1024)
    assert server_batch_budget(server, 79.25 * GIB, "A100 80GB") == BatchBudget(2048, 256)
    assert server_batch_budget(server, 22.04 * GIB, "l4") == BatchBudget(2048, 256)


def test_one_position_is_sampled_per_sequence_never_more_than_the_tokens():
    assert BatchBudget(8192, 1024).sampled_positions == 1024
    assert BatchBudget(512, 1024).sampled_positions == 512


def test_sampler_peak_is_positions_times_vocabulary_times_bytes():
    # 1,024 × 128,256 × 17 B = 2,232,680,448 B = 2.08 GiB (Llama 3 vocabulary on an H100)
    assert sampler_peak_bytes(1024, 128_256, 17) == 2_232_680_448
    # 256 × 128,256 × 17 B = 0.52 GiB on a card under 70 GiB: a quarter
    assert sampler_peak_bytes(256, 128_256, 17) / GIB == pytest.approx(0.5198, abs=1e-4)


def test_a_forward_pass_holds_the_mlps_tensors_of_a_layer_per_token():
    # Llama 3.1 8B (MLP width 14,336, hidden 4,096): 6 × 14,336 + 4 × 4,096 = 102,400 B a token; 20,000 tokens
    # = 1.907 GiB, as vLLM V0 kept for its profiling batch of 20,000 on an RTX 3090 (vLLM issue 10517)
    assert forward_activation_bytes(20_000, 14_336, 4_096) == 20_000 * 102_400
    # a split shares the MLP's width: 4 cards hold a quarter of it each
    assert forward_activation_bytes(8192, 14_336 / 4, 4_096) == 8192 * (6 * 3584 + 4 * 4096)


def test_the_mlp_width_follows_from_the_parameters_a_token_reads(catalog):
    from sizing.engine.memory import mlp_width
    from sizing.engine.specs import llm_shape

    # Llama 3.1 8B: (8,030,261,248 − 2 × 525,336,576) / 32 − 4,096 × (2 × 4,096 + 2 × 1,024) = 176,164,864 + 1
    # rounding; / (3 × 4,096) = 14,336.1: its config's intermediate_size is 14,336
    assert mlp_width(llm_shape(catalog.models["llama-3.1-8b"])) == pytest.approx(14_336, abs=1)
    # Qwen3 30B-A3B reads 8 experts of 768 a token: 6,144 (+ its router and norms)
    assert mlp_width(llm_shape(catalog.models["qwen3-30b-a3b"])) == pytest.approx(6_144, rel=0.01)


def test_the_activation_peak_is_the_larger_of_sampler_and_forward_pass():
    # sampler 2.08 GiB, forward 0.78 GiB, MoE 0.7: 2.78 GiB; the forward pass of 65,536 tokens (6.25 GiB) wins
    sampler, forward = 2_232_680_448, 8192 * 102_400
    assert activation_peak_bytes(sampler, forward, base_bytes=0, moe_extra_bytes=0.7 * GIB, is_moe=True) == (
        sampler + 0.7 * GIB
    )
    assert activation_peak_bytes(sampler, 65_536 * 102_400, base_bytes=0, moe_extra_bytes=0, is_moe=False) == (
        65_536 * 102_400
    )


def test_memory_outside_pytorch_grows_when_split():
    # llm-d: 0.13-0.14 GiB on one card, 0.55 GiB at TP 2
    assert non_torch_bytes(1, 0.15 * GIB, 0.4 * GIB) == 0.15 * GIB
    assert non_torch_bytes(2, 0.15 * GIB, 0.4 * GIB) == pytest.approx(0.55 * GIB)


SHAPE = LlmShape(
    params=8e9, layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128, vocab_size=128_256
)


def test_server_reserve_charges_cuda_graphs_only_inside_the_budget(catalog):
    server = catalog.server_engine
    graphs = server.cuda_graphs_gib.value * GIB
    inside = server_reserve(server, SHAPE, 1, BatchBudget(2048, 256))
    outside = server_reserve(server, SHAPE, 1, BatchBudget(2048, 256), cuda_graphs_in_budget=False)
    assert inside.activations == outside.activations
    assert inside.overhead - outside.overhead == pytest.approx(graphs)


def test_llama_cpp_compute_buffer_matches_its_logs():
    # without flash attention: 40 heads, n_ctx 4,096, n_ubatch 512, vocab 32,000, hidden 5,120:
    # 512 × (4,096 × 40 × 4 + (32,000 + 5,120) × 4) B
    without = compute_buffer_bytes(
        4096,
        1,
        ubatch_tokens=512,
        attention_heads=40,
        vocab_size=32_000,
        hidden_size=5_120,
        scores_bytes=4,
        logits_bytes=4,
        flash_attention=False,
    )
    assert without == 512 * (4096 * 40 * 4 + (32_000 + 5_120) * 4)
    # with flash attention (llama.cpp's default): Qwen3 30B-A3B at n_ctx 65,536, 512 × (151,936 + 2,048) × 4 B =
    # 300.75 MiB, as llama.cpp b7342 printed on an A100 ("CUDA0 compute buffer size = 300.75 MiB")
    flash = compute_buffer_bytes(
        65_536,
        1,
        ubatch_tokens=512,
        attention_heads=32,
        vocab_size=151_936,
        hidden_size=2_048,
        scores_bytes=4,
        logits_bytes=4,
        flash_attention=True,
    )
    assert flash / 2**20 == pytest.approx(300.75, abs=0.01)


def test_kv_cache_room_is_the_budget_less_weights_and_reserve():
    # llm-d, Llama 3.1 8B on H100: 71.26 - 14.99 - (4.76 + 0.13) = 51.38 GiB, as vLLM printed
    room = kv_cache_room_bytes(71.26 * GIB, 14.99 * GIB, Reserve(4.76 * GIB, 0.13 * GIB))
    assert room / GIB == pytest.approx(51.38)


def test_the_current_rules_reproduce_vllm_019_on_an_h100(catalog):
    # llm-d's planner, Qwen3 8B on one H100 at 0.95 with vLLM 0.19.0: 0.95 × 81,121 MiB = 75.26 GiB; weights 15.26
    # (printed 15.27); 1,024 sequences × 151,936 × 17 B = 2.46 GiB of sampler over a 0.69 GiB forward pass, CUDA
    # context 0.15: 75.26 − 15.26 − 2.46 − 0.15 = 57.39 GiB against the 57.5 printed
    record = next(r for r in catalog.memory_measurements if r.id == "llmdp-v019-qwen3-8b-h100-1x")
    check = check_memory_record(catalog, record)
    assert check.batch == BatchBudget(8192, 1024)
    assert check.predicted_kv_gib == pytest.approx(57.39, abs=0.02) and abs(check.kv_error or 1) < 0.005


def test_a_split_over_nvswitch_keeps_its_buffers_outside_pytorch(catalog):
    # Llama 3.1 8B at TP 4 on H100 SXM (vLLM 0.19.0): 0.15 + 0.4 of NCCL + 1.6 across the NVSwitch = 2.15 GiB outside PyTorch
    record = next(r for r in catalog.memory_measurements if r.id == "llmdp-v019-llama31-8b-h100-4x")
    check = check_memory_record(catalog, record)
    assert abs(check.kv_error or 1) < 0.01
    server = catalog.server_engine
    over_pcie = server_reserve(server, SHAPE, 4, BatchBudget(8192, 1024), over_nvswitch=False)
    over_nvswitch = server_reserve(server, SHAPE, 4, BatchBudget(8192, 1024), over_nvswitch=True)
    assert (over_nvswitch.overhead - over_pcie.overhead) / GIB == pytest.approx(1.6)


def test_an_earlier_release_is_judged_by_its_own_figures(catalog):
    server = catalog.server_engine
    assert release_of(server, "vLLM 0.19.0") is None
    before = release_of(server, "vLLM 0.10.1")
    assert before is not None and before.sampler_bytes_per_vocab_entry == 36
    assert release_of(server, "vLLM before 0.11 (llm-d, 2025)") is before
    assert release_of(server, "vLLM V1 (Aug 2025; log layout of v0.10.1)") is before  # a "v" before the version
    assert release_of(server, "vLLM v0.9.0") is before and release_of(server, "vLLM v0.11.0") is None
    v0 = release_of(server, "vLLM V0 0.9.2")
    assert v0 is not None and v0.v0 and as_released(server, v0).batch_budget.large_card.sequences == 256
    # llm-d's 2025 runs, Llama 3.1 8B on one H100 at 0.9: 71.30 − 14.958 − (1,024 × 128,256 × 36 B = 4.403, + 0.4)
    # − 0.15 = 51.39 GiB against the 51.38 printed
    record = next(r for r in catalog.memory_measurements if r.id == "llmd-llama31-8b-h100-1x")
    check = check_memory_record(catalog, record)
    assert check.predicted_kv_gib == pytest.approx(51.39, abs=0.01) and abs(check.kv_error or 1) < 0.001


def test_v0_without_chunked_prefill_profiles_the_whole_context(catalog):
    # vLLM V0 on an RTX 3090, Llama 3.1 8B at 20,000 and 29,000 tokens: the forward pass of the whole context (1.91
    # and 2.77 GiB) outweighs the sampler (256 × 128,256 × 36 B = 1.10 GiB); the KV cache within 10 % both times
    for rid in ("vllm10517-llama31-8b-rtx3090-1x-20k", "vllm10517-llama31-8b-rtx3090-1x-29k-fail"):
        record = next(r for r in catalog.held_out_memory_measurements if r.id == rid)
        check = check_memory_record(catalog, record)
        assert check.batch is not None and check.batch.tokens == record.max_model_len
        assert abs(check.kv_error or 1) < 0.10


def test_sglang_gives_its_static_share_to_weights_and_pool(catalog):
    # SGLang, QwQ-32B on an A800 at --mem-fraction-static 0.98: 0.98 × 79.2 GiB = 77.62 less weights 61.02 and
    # 0.15 of CUDA context = 16.45 GiB against the 16.14 printed (K + V)
    record = next(r for r in catalog.held_out_memory_measurements if r.id == "yuy4o-sglang-qwq-32b-a800-1x")
    check = check_memory_record(catalog, record)
    assert check.predicted_kv_gib == pytest.approx(16.45, abs=0.01) and abs(check.kv_error or 1) < 0.03


def test_sglang_keeps_its_activations_outside_its_static_share():
    # 80 GiB seen, 1.5 GiB of activation peak: at 0.98 the share leaves 1.6 GiB, enough; at 0.99, 0.8 GiB, not; at
    # 1.0, nothing (the start runs out of memory, as gpt-oss-120b's on two A800s did)
    peak = Reserve(activations=1.5 * GIB, overhead=0.5 * GIB)
    assert sglang_leaves_room_for_activations(80 * GIB, 0.98 * 80 * GIB, peak)
    assert not sglang_leaves_room_for_activations(80 * GIB, 0.99 * 80 * GIB, peak)
    assert not sglang_leaves_room_for_activations(80 * GIB, 1.0 * 80 * GIB, peak)


def test_an_sglang_start_at_a_static_share_of_one_is_seen_failing(catalog):
    record = next(r for r in catalog.held_out_memory_measurements if r.id == "yuy4o-sglang-gpt-oss-120b-a800-2x-oom")
    assert record.mem_fraction_static == 1.0 and record.outcome == "out_of_memory"
    check = check_memory_record(catalog, record)
    assert check.predicted_kv_gib > check.one_sequence_gib  # the pool alone would hold a sequence
    assert not check.predicted_starts


def test_llama_cpp_allocates_the_kv_cache_of_its_context(catalog):
    # llama.cpp b7342, Qwen3 30B-A3B Q8_0 at --ctx-size 65,536: 48 layers × 2 × 4 heads × 128 × 2 B × 65,536 =
    # 6,144 MiB, as printed ("CUDA0 KV buffer size = 6144.00 MiB")
    record = next(r for r in catalog.held_out_memory_measurements if r.engine_kind == "llama.cpp" and r.flash_attention)
    check = check_memory_record(catalog, record)
    assert check.predicted_kv_gib == pytest.approx(6.0)
    assert compute_buffer_error(catalog, record) == pytest.approx(0, abs=0.001)
