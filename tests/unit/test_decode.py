"""The decode-speed model, term by term, on figures checked by hand (the arithmetic is in the comments)."""

from dataclasses import replace

import pytest

from sizing.catalog.schema import DecodeScenario, EngineClass, MlaAttention, Parallelism
from sizing.catalog.units import GIB
from sizing.engine.decode import (
    DecodeConstants,
    DecodeSetup,
    flops_per_token,
    layer_split_seconds,
    price_per_million_tokens,
    seconds_communicating,
    seconds_computing,
    seconds_handing_over,
    seconds_memory_and_compute,
    seconds_overhead,
    seconds_reading_memory,
    step_seconds,
    streams_that_fit,
    tensor_tflops,
)
from sizing.engine.deployment import layout_of
from sizing.engine.fit import card_budget, fit_split, llm_need
from sizing.engine.links import seconds_per_allreduce
from sizing.engine.memory import (
    distinct_experts_touched,
    routed_expert_params,
    weight_bytes_read_per_step,
)
from sizing.engine.scenarios import measured_setup, scenario_node, scenario_query, scenario_shape
from sizing.engine.specs import GpuSpec, LinkSpec, LlmShape, PrecisionSpec
from sizing.views.estimates import card_plan, run_of

BF16 = PrecisionSpec(bits_per_weight=16, keeps_embeddings_16bit=True)
FP8 = PrecisionSpec(bits_per_weight=8, keeps_embeddings_16bit=True, compute_format="fp8")
# 8e9 parameters, 32 layers, 128,000 x 4,096 embeddings (untied): 524,288,000 parameters each
DENSE_8B = LlmShape(
    params=8e9, layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128, vocab_size=128_000
)
# 10e9 parameters, 4e9 active, 4 experts, 1 per token, no embeddings
MOE = LlmShape(
    params=10e9,
    layers=16,
    hidden_size=2048,
    attention_heads=16,
    kv_heads=4,
    head_dim=128,
    active_params=4e9,
    experts=4,
    experts_per_token=1,
)
NVLINK = LinkSpec(allreduce_latency_us=8, allreduce_busbw_gbps=370)
PCIE = LinkSpec(allreduce_latency_us=22, allreduce_busbw_gbps=24)


@pytest.fixture(scope="module")
def constants(catalog) -> DecodeConstants:
    return DecodeConstants.from_assumptions(catalog.assumptions)


# --- memory ---------------------------------------------------------------------------------------
def test_memory_term_is_bytes_over_achievable_bandwidth():
    # 16e9 B / (2,000e9 B/s x 0.8) = 0.01 s
    assert seconds_reading_memory(16e9, 2000, 0.8) == pytest.approx(0.01)


def test_a_step_reads_every_weight_but_the_input_embedding():
    # BF16: 8e9 x 2 B - 524,288,000 x 2 B (input embedding, one row per token) = 14,951,424,000 B
    assert weight_bytes_read_per_step(DENSE_8B, BF16, 1) == pytest.approx(14_951_424_000)
    # FP8 keeps the head at 16 bits: (8e9 - 2 x 524,288,000) x 1 B + 524,288,000 x 2 B = 8e9 B
    assert weight_bytes_read_per_step(DENSE_8B, FP8, 1) == pytest.approx(8e9)


def test_a_step_without_logits_skips_the_output_head():
    # llama-bench's prompt test at microbatch 1: 14,951,424,000 B - 524,288,000 x 2 B of head = 13,902,848,000 B
    assert weight_bytes_read_per_step(DENSE_8B, BF16, 1, reads_output_head=False) == pytest.approx(13_902_848_000)


def test_routed_experts_follow_from_params_and_active_params():
    # params = N + R, active = N + R/4: R = (10e9 - 4e9) / (1 - 1/4) = 8e9, N = 2e9
    assert routed_expert_params(MOE) == pytest.approx(8e9)


def test_a_model_cards_count_of_expert_parameters_wins_over_the_rule():
    # gpt-oss-120b counts its 5.13e9 active parameters without the 0.579e9 input embedding: the rule would give
    # (116.83e9 - 5.13e9) / (1 - 4/128) = 115.30e9 expert parameters, the model card says 114.71e9
    gpt_oss = LlmShape(
        params=116.83e9,
        layers=36,
        hidden_size=2880,
        attention_heads=64,
        kv_heads=8,
        head_dim=64,
        vocab_size=201_088,
        active_params=5.13e9,
        experts=128,
        experts_per_token=4,
    )
    assert routed_expert_params(gpt_oss) == pytest.approx(115.303e9, rel=1e-4)
    assert routed_expert_params(replace(gpt_oss, routed_expert_params=114.71e9)) == 114.71e9


def test_expert_coverage_grows_with_the_streams():
    # E (1 - (1 - a/E)^c): one stream touches its a experts
    assert distinct_experts_touched(256, 8, 1) == pytest.approx(8)
    # 8 x (1 - (3/4)^2) = 8 x 0.4375 = 3.5
    assert distinct_experts_touched(8, 2, 2) == pytest.approx(3.5)
    # DeepSeek at 64 streams: 256 x (1 - (31/32)^64) = 256 x 0.8689 = 222.4 of 256
    assert distinct_experts_touched(256, 8, 64) == pytest.approx(222.44, abs=0.01)


def test_a_moe_step_reads_the_experts_its_streams_touch():
    # c = 1: N 2e9 + R 8e9 x 1/4 = 4e9 parameters (the active ones) x 2 B = 8e9 B
    assert weight_bytes_read_per_step(MOE, BF16, 1) == pytest.approx(8e9)
    # c = 2: 4 x (1 - (3/4)^2) = 1.75 experts: 2e9 + 8e9 x 1.75/4 = 5.5e9 parameters x 2 B = 11e9 B
    assert weight_bytes_read_per_step(MOE, BF16, 2) == pytest.approx(11e9)


def test_without_experts_a_moe_step_reads_its_active_parameters():
    shapeless = LlmShape(
        params=10e9, layers=16, hidden_size=2048, attention_heads=16, kv_heads=4, head_dim=128, active_params=4e9
    )
    # 4e9 x 2 B at any concurrency
    assert weight_bytes_read_per_step(shapeless, BF16, 64) == pytest.approx(8e9)


# --- compute --------------------------------------------------------------------------------------
def test_compute_term_is_flops_over_achievable_throughput_of_the_cards_at_work():
    # 1e12 FLOP / (100e12 x 0.5 x 2 cards) = 0.01 s
    assert seconds_computing(1e12, 100, 0.5, 2) == pytest.approx(0.01)


def test_flops_per_token_are_matrix_products_plus_attention():
    # 2 x 8e9 + 4 x (32 heads x 128) x (32 layers x 1,000 tokens) = 16e9 + 524,288,000
    assert flops_per_token(DENSE_8B, 1000) == pytest.approx(16_524_288_000)
    mla = LlmShape(
        params=8e9,
        layers=32,
        hidden_size=4096,
        attention_heads=32,
        kv_heads=32,
        head_dim=128,
        attention=MlaAttention(type="mla", kv_lora_rank=512, qk_rope_head_dim=64),
    )
    # latent attention: q-width 32 x (512 + 64) = 18,432: 16e9 + 4 x 18,432 x 32,000 = 18,359,296,000
    assert flops_per_token(mla, 1000) == pytest.approx(18_359_296_000)


def test_fp8_weights_use_fp8_tensor_cores_only_where_the_card_has_them():
    hopper = GpuSpec(80, 3350, 989, 1979)
    ampere = GpuSpec(80, 2039, 312, None)
    assert tensor_tflops(hopper, FP8) == 1979
    assert tensor_tflops(ampere, FP8) == 312  # weight-only: multiplied in 16 bits
    assert tensor_tflops(hopper, BF16) == 989


def test_memory_and_compute_overlap_as_a_p_norm():
    assert seconds_memory_and_compute(3, 4, 1) == pytest.approx(7)  # p = 1: no overlap, 3 + 4
    assert seconds_memory_and_compute(3, 4, 2) == pytest.approx(5)  # p = 2: sqrt(9 + 16)


# --- communication --------------------------------------------------------------------------------
def test_an_allreduce_is_latency_plus_ring_volume_over_bus_bandwidth():
    # 8 us + 2 x (2-1)/2 x 16,384 B / 370e9 B/s = 8 us + 0.0443 us
    assert seconds_per_allreduce(16_384, 2, NVLINK) == pytest.approx(8.04428e-6, rel=1e-5)
    # 4 cards: 2 x 3/4 x 16,384 / 370e9 = 0.0664 us
    assert seconds_per_allreduce(16_384, 4, NVLINK) == pytest.approx(8.06642e-6, rel=1e-5)


def test_a_tensor_split_allreduces_after_every_sublayer():
    seventy_b = LlmShape(params=70e9, layers=80, hidden_size=8192, attention_heads=64, kv_heads=8, head_dim=128)
    # 2 x 80 = 160 all-reduces of 1 x 8,192 x 2 B = 16,384 B: 160 x 8.04428 us = 1.2871 ms
    assert seconds_communicating(seventy_b, NVLINK, 2, 1, 2) == pytest.approx(1.28709e-3, rel=1e-4)
    # over PCIe: 160 x (22 us + 16,384 / 24e9) = 160 x 22.683 us = 3.629 ms
    assert seconds_communicating(seventy_b, PCIE, 2, 1, 2) == pytest.approx(3.62923e-3, rel=1e-4)
    assert seconds_communicating(seventy_b, NVLINK, 1, 1, 2) == 0


# --- per-layer cost -------------------------------------------------------------------------------
def test_overhead_is_a_cost_per_sublayer(constants):
    # 32 layers x 2 sub-layers x 40 us = 2.56 ms (server engines: no per-step host cost)
    assert seconds_overhead(DENSE_8B, constants, "server") == pytest.approx(2.56e-3)


def test_llama_cpp_pays_its_own_host_and_sublayer_costs(constants):
    own = replace(constants, step_host_seconds_llama_cpp=2e-3, sublayer_seconds_llama_cpp=5e-6)
    # 2 ms on the host + 32 layers x 2 sub-layers x 5 us = 2.32 ms; the server engines' 40 us per sub-layer does
    # not apply
    assert seconds_overhead(DENSE_8B, own, "llama.cpp") == pytest.approx(2.32e-3)


def test_moe_and_latent_attention_sublayers_cost_more(catalog, constants):
    deepseek = scenario_shape(catalog, "deepseek-v3")
    # 122 sub-layers x 40 us + 58 MoE layers x 35 us + 61 MLA layers x 130 us = 4.88 + 2.03 + 7.93 = 14.84 ms
    assert seconds_overhead(deepseek, constants, "server") == pytest.approx(14.84e-3)
    # MoE without moe_layers: every layer. 16 x 2 x 40 us + 16 x 35 us = 1.28 + 0.56 = 1.84 ms
    assert seconds_overhead(MOE, constants, "server") == pytest.approx(1.84e-3)


# --- layer split ----------------------------------------------------------------------------------
def test_a_layer_split_is_the_single_card_step_plus_handovers():
    # 20 ms + 3 x 0.1 ms = 20.3 ms
    assert layer_split_seconds(0.020, 4, 0.0001) == pytest.approx(0.0203)
    # one hand-over: 22 us + 1 x 8,192 x 2 B / 24e9 B/s = 22.683 us
    seventy_b = LlmShape(params=70e9, layers=80, hidden_size=8192, attention_heads=64, kv_heads=8, head_dim=128)
    assert seconds_handing_over(seventy_b, PCIE, 1) == pytest.approx(22.6827e-6, rel=1e-5)


def test_a_layer_split_step_adds_handovers_to_the_one_card_step(constants):
    gpu = GpuSpec(24, 1008, 165, 330)
    on_one = DecodeSetup(gpu, None, DENSE_8B, BF16, 1, "layers", 1000, constants, "llama.cpp", batch_tokens=2048)
    one, three = step_seconds(on_one, 1), step_seconds(replace(on_one, link=PCIE, cards=3), 1)
    # 2 hand-overs of 22 us + 4,096 x 2 / 24e9 (0.341 us)
    assert three.total - one.total == pytest.approx(2 * (22e-6 + 8192 / 24e9))


# --- a whole step, checked by hand ----------------------------------------------------------------
def test_llama_70b_fp8_on_two_h100_matches_the_hand_computation(catalog):
    scenario = DecodeScenario(
        gpu="h100-sxm5-80gb", cards=2, link="nvlink", model="llama-3.3-70b", precision="fp8", context_tokens=5250
    )
    seconds = step_seconds(measured_setup(catalog, scenario), scenario.concurrency)
    # weights: FP8 body 1 B + 16-bit head, input embedding not read: 70,553,706,496 B in all, / 2 cards
    # KV: 2 x (8/2 heads) x 128 x 2 B = 2,048 B x 80 layers x 5,250 tokens = 860,160,000 B per card
    # (35,276,853,248 + 860,160,000) B / (3,350e9 x 0.84) = 12.842 ms
    assert seconds.memory == pytest.approx(12.842e-3, rel=1e-4)
    # (2 x 70.554e9 + 4 x 8,192 x 80 x 5,250) FLOP / (1,979e12 x 0.6 x 2) = 154.87e9 / 2.3748e15 = 0.0652 ms
    assert seconds.compute == pytest.approx(0.06521e-3, rel=1e-3)
    assert seconds.communication == pytest.approx(1.28709e-3, rel=1e-4)  # 160 x 8.044 us
    assert seconds.overhead == pytest.approx(6.4e-3)  # 160 x 40 us
    # (12.842^1.5 + 0.0652^1.5)^(1/1.5) + 1.287 + 6.4 = 20.532 ms: 48.7 tok/s (NIM measured 53.8)
    assert 1 / seconds.total == pytest.approx(48.70, abs=0.01)


# --- streams that fit, price ----------------------------------------------------------------------
def test_streams_that_fit_divide_the_free_memory_by_the_kv_of_one_stream():
    # (80e9 - 40e9 - 5e9) / 1e9 = 35 streams
    assert streams_that_fit(80e9, 40e9, 5e9, 1e9, 256) == 35
    assert streams_that_fit(80e9, 40e9, 5e9, 1e9, 20) == 20  # the engine's cap
    assert streams_that_fit(80e9, 76e9, 5e9, 1e9, 256) == 0  # the weights alone do not fit


def test_llama_70b_bf16_on_four_a100_holds_59_streams_of_8k(catalog):
    # The server engine's rules, as the fit verdicts (engines.yml): budget 0.9 x 79.25 GiB visible = 71.325 GiB;
    # reserve: an A100 profiles 256 sequences, whose sampler holds 256 x 128,256 vocab x 17 B = 0.520 GiB, and CUDA
    # context 0.15 + CUDA graphs 0.5 + NCCL 0.4 GiB (an A100 board keeps no NVSwitch buffers) = 1.570 GiB. Left:
    # 71.325 - weights 141.107e9 B / 4 (32.854 GiB) - 1.570 = 36.901 GiB; one stream of 8,192 tokens: 2.5 GiB of KV
    # / 4 cards = 0.625 GiB; 36.901 / 0.625 = 59.04 -> 59
    scenario = DecodeScenario(gpu="a100-sxm4-80gb", cards=4, link="nvlink", model="llama-3.3-70b", precision="bf16")
    query = scenario_query(catalog, scenario)
    fit = fit_split(query, 4)
    plan = card_plan(query, fit)
    assert plan.budget == pytest.approx(71.325 * GIB)
    assert plan.reserve == pytest.approx(1.570 * GIB, abs=0.001 * GIB)
    layout = layout_of(query, scenario_node(catalog, scenario), fit)
    assert layout.streams_per_copy == 59
    floor_factor = catalog.assumptions.decode_floor_factor.value
    assert layout.floor == pytest.approx(floor_factor * layout.typical)
    # 59 streams share each step: more per step, less per stream, far more in total
    assert layout.total_per_copy > 10 * layout.typical


def test_price_per_million_tokens():
    # 4,157 USD a month / (730 h x 3,600 s x 1,000 tok/s) x 1e6 = 1.5818 USD
    assert price_per_million_tokens(4157, 730, 1000) == pytest.approx(1.58181, rel=1e-5)


def test_more_streams_share_a_step_slower_each_faster_in_all(constants):
    gpu = GpuSpec(80, 2039, 312, None)
    speeds = []
    setup = DecodeSetup(gpu, NVLINK, MOE, BF16, 2, "tensor", 4096, constants, batch_tokens=2048)
    for streams in (1, 2, 8, 32, 128):
        seconds = step_seconds(setup, streams).total
        speeds.append((1 / seconds, streams / seconds))
    per_stream, total = zip(*speeds, strict=True)
    assert list(per_stream) == sorted(per_stream, reverse=True)
    assert list(total) == sorted(total)


def test_a_scenario_reserves_what_the_fit_verdict_reserves(catalog):
    """One memory rule: the estimator charges each card the engine's reserve that ``fit.llm_need`` charges."""
    setups: tuple[tuple[str, EngineClass, Parallelism, int], ...] = (
        ("bf16", "server", "tensor", 2),
        ("gguf-q4_k_m", "llama.cpp", "layers", 3),
    )
    for precision, engine_class, parallelism, cards in setups:
        run = run_of(
            catalog,
            DecodeScenario(
                gpu="rtx-4090",
                cards=cards,
                link="pcie",
                parallelism=parallelism,
                model="llama-3.1-8b",
                precision=precision,
                engine_class=engine_class,
                context_tokens=4096,
            ),
        )
        model, chosen = catalog.models["llama-3.1-8b"], catalog.precisions[precision]
        need = llm_need(catalog, model, chosen, 4096, 1, cards, gpu=catalog.gpus["rtx-4090"])
        plan = card_plan(run.query, run.fit)
        assert plan.reserve == pytest.approx(need.activations + need.overhead)
        assert plan.budget == pytest.approx(
            card_budget(catalog, catalog.gpus["rtx-4090"], catalog.engines[engine_class])
        )
