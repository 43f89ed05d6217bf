"""Layers in host memory (llama.cpp's --n-gpu-layers): how many layers the cards hold, what the host holds and
reads at every step, the tight verdict that names the setting, its speed, and the estimator's answer."""

from dataclasses import replace

import pytest

from sizing.catalog.schema import DecodeScenario
from sizing.catalog.units import GIB
from sizing.engine.decode import DecodeConstants, DecodeSetup, step_seconds
from sizing.engine.deployment import layout_of
from sizing.engine.fit import Verdict, fit, host_memory_bytes, llm_query, tight_setting
from sizing.engine.host_layers import crossings_per_step, layers_on_cards
from sizing.engine.memory import bytes_read_per_step_on_cards_and_host
from sizing.engine.scenarios import ScenarioError, measured_setup
from sizing.engine.specs import GpuSpec, HostLayers, LlmShape, PrecisionSpec
from sizing.views.estimates import answer
from sizing.views.matrix import node_cards

# A toy model whose figures add up by hand: 10 layers of 1e8 one-byte weights, embeddings and head of
# 1,000 x 1,000 each (2e6 bytes), one KV head of 100: 2 x 100 x 2 B = 400 B per token and layer.
TOY = LlmShape(
    params=1.002e9, layers=10, hidden_size=1000, attention_heads=10, kv_heads=1, head_dim=100, vocab_size=1000
)
EIGHT_BITS = PrecisionSpec(bits_per_weight=8, keeps_embeddings_16bit=False)


def test_the_cards_hold_the_whole_layers_that_fit_and_the_host_the_rest_with_the_embeddings():
    # a layer: 1e8 B of weights + 1,000 tokens x 400 B = 4e5 B of KV cache = 1.004e8 B;
    # 3.5e8 B per card hold 3 of them, 2 cards 6; the host: 4 layers (4e8 B) + embeddings and head (2e6 B)
    found = layers_on_cards(TOY, EIGHT_BITS, 2, 3.5e8, 1000, 1, 2)
    assert found is not None
    assert (found.gpu_layers, found.busiest_card_layers) == (6, 3)
    assert found.host_weight_bytes == pytest.approx(4.02e8)
    assert found.host_kv_bytes == pytest.approx(1.6e6)
    assert found.busiest_card_weight_bytes == pytest.approx(3e8)


def test_no_plan_when_not_one_layer_fits_and_the_head_alone_waits_when_every_layer_does():
    assert layers_on_cards(TOY, EIGHT_BITS, 1, 1e8, 1000, 1, 2) is None  # 1e8 < 1.004e8
    every_layer = layers_on_cards(TOY, EIGHT_BITS, 1, 11e8, 1000, 1, 2)  # all 10 fit, not the embeddings and head
    assert every_layer is not None and every_layer.gpu_layers == 10 and every_layer.host_weight_bytes == 2e6


def test_a_step_reads_each_layer_where_it_is_and_the_head_in_host_memory():
    # per layer: 1e8 B of weights + 4e5 B of KV = 1.004e8 B; the head 1,000 x 1,000 x 1 B = 1e6 B
    on_cards, in_host = bytes_read_per_step_on_cards_and_host(TOY, EIGHT_BITS, 1, 1000, 2, 6)
    assert on_cards == pytest.approx(6 * 1.004e8)
    assert in_host == pytest.approx(4 * 1.004e8 + 1e6)
    # more layers than the model has: every layer and the head on the cards
    assert bytes_read_per_step_on_cards_and_host(TOY, EIGHT_BITS, 1, 1000, 2, 11) == pytest.approx((1.005e9, 0))


def test_the_host_share_is_read_at_the_hosts_bandwidth_after_the_cards_share(catalog):
    constants = replace(
        DecodeConstants.from_assumptions(catalog.assumptions),
        bandwidth_fraction_llama_cpp=0.5,
        bandwidth_fraction_host=0.5,
    )
    gpu = GpuSpec(memory_gb=24, memory_bandwidth_gbps=1000, bf16_dense_tflops=100)
    host = HostLayers(gpu_layers=6, bandwidth_gbps=100)
    step = step_seconds(
        DecodeSetup(
            gpu, None, TOY, EIGHT_BITS, 1, "layers", 1000, constants, "llama.cpp", host_layers=host, batch_tokens=2048
        ),
        1,
    )
    # 6.024e8 B / (1,000 GB/s x 0.5) = 1.2048 ms on the cards; 4.026e8 B / (100 GB/s x 0.5) = 8.052 ms in the host
    assert step.memory == pytest.approx(1.2048e-3 + 8.052e-3)


def q4_70b_layout(catalog, found):
    """How one RTX 4090 runs Llama 3.3 70B in Q4_K_M at 8K with the fit ``found``."""
    model, q4 = catalog.models["llama-3.3-70b"], catalog.precisions["gguf-q4_k_m"]
    query = llm_query(catalog, model, q4, catalog.gpus["rtx-4090"], 8192)
    return layout_of(query, node_cards(catalog, catalog.nodes["1x-rtx-4090"]), found)


def test_llama_70b_q4_on_one_24_gb_card_fits_with_43_layers_on_it(catalog):
    # RTX 4090: 24,115 MiB visible = 25,286,410,240 B; llama.cpp's compute buffer with flash attention (279,445,504 B)
    # and CUDA context (0.5 GiB) leave 24,470,093,824 B. A layer: 523,489,424.6 B of Q4_K_M weights (43,164,757,634 B
    # less 1,285,603,669 B of embeddings and head, / 80) + 33,554,432 B of KV cache at 8,192 tokens
    # = 557,043,856.6 B: 43 layers fit (43.93). The host keeps 37 layers and the embeddings: 19.24 GiB of
    # weights, within 1.875 x 24 GB - 4 GiB = 37.91 GiB.
    node = catalog.nodes["1x-rtx-4090"]
    found = fit(catalog, catalog.models["llama-3.3-70b"], catalog.precisions["gguf-q4_k_m"], node, 8192)
    assert found.verdict is Verdict.TIGHT and found.tight_by == "gpu_layers"
    assert found.gpu_layers == 43 and tight_setting(catalog, found) == "--n-gpu-layers 43"
    assert found.host_weight_bytes / GIB == pytest.approx(19.24, abs=0.01)
    assert host_memory_bytes(catalog, catalog.gpus["rtx-4090"], 1) / GIB == pytest.approx(37.91, abs=0.01)
    assert found.tight_need is not None and found.tight_need.total <= found.budget < found.need.total
    speed = q4_70b_layout(catalog, found)
    assert speed.streams_per_copy == 1  # the cards are full of layers: one stream
    on_cards_only = q4_70b_layout(catalog, replace(found, tight_by=None))
    assert speed.typical < on_cards_only.typical / 3  # the host's memory sets the pace


def test_a_model_the_hosts_memory_cannot_hold_does_not_fit(catalog):
    # Llama 3.1 405B in Q4_K_M: about 230 GiB, of which more than 200 would wait in 37.9 GiB of host memory
    found = fit(
        catalog, catalog.models["llama-3.1-405b"], catalog.precisions["gguf-q4_k_m"], catalog.nodes["1x-rtx-4090"]
    )
    assert found.verdict is Verdict.NO_FIT


def test_the_estimator_answers_as_the_configurator_with_the_layers_in_host_memory(catalog):
    scenario = DecodeScenario(gpu="rtx-4090", model="llama-3.3-70b", precision="gguf-q4_k_m", context_tokens=8192)
    said = answer(catalog, scenario)
    assert said.fits and said.verdict == "tight" and said.setting == "--n-gpu-layers 43" and said.gpu_layers == 43
    node = catalog.nodes["1x-rtx-4090"]
    cell = fit(catalog, catalog.models["llama-3.3-70b"], catalog.precisions["gguf-q4_k_m"], node, 8192)
    speed = q4_70b_layout(catalog, cell)
    assert said.at_concurrency is not None
    assert said.at_concurrency.per_stream_typical == pytest.approx(speed.typical)


def test_more_streams_than_one_wait_when_the_estimator_chooses_the_layers(catalog):
    scenario = DecodeScenario(
        gpu="rtx-4090", model="llama-3.3-70b", precision="gguf-q4_k_m", context_tokens=8192, concurrency=4
    )
    said = answer(catalog, scenario)
    assert (said.streams_running, said.streams_waiting) == (1, 3)
    assert said.note is not None and "--n-gpu-layers 43" in said.note and "3 wait" in said.note


def on_llama_cpp(model: str, **named: object) -> DecodeScenario:
    """A scenario of ``model`` in Q4_K_M on llama.cpp and one RTX 4090, with the layers it names."""
    return DecodeScenario.model_validate(
        {"gpu": "rtx-4090", "model": model, "precision": "gguf-q4_k_m", "engine_class": "llama.cpp"}
        | {"parallelism": "layers", **named}
    )


def test_a_scenario_names_its_layers_and_its_hosts_bandwidth(catalog):
    named = on_llama_cpp("llama-3.3-70b", gpu_layers=30, host_memory_bandwidth_gbps=76.8)
    resolved = measured_setup(catalog, named)
    assert resolved.host_layers == HostLayers(30, 76.8)
    fewer_on_cards = answer(catalog, named)
    assert fewer_on_cards.gpu_layers == 30
    default = answer(catalog, named.model_copy(update={"gpu_layers": None, "host_memory_bandwidth_gbps": None}))
    assert fewer_on_cards.at_concurrency.per_stream_typical < default.at_concurrency.per_stream_typical
    everything_on_cards = measured_setup(catalog, named.model_copy(update={"gpu_layers": 81}))
    assert everything_on_cards.host_layers is None


def test_layers_in_host_memory_are_for_llama_cpp_only(catalog):
    with pytest.raises(ScenarioError, match=r"engine_class: llama\.cpp"):
        measured_setup(catalog, DecodeScenario(gpu="rtx-4090", model="llama-3.1-8b", precision="bf16", gpu_layers=10))


# A toy mixture of experts: the dense body 5e8 one-byte weights, 1e9 of routed experts in 10 experts of which a
# token takes one, embeddings and head as above: a step of one stream reads 5e8 + 1e8 of experts + 1e6 of head.
TOY_MOE = LlmShape(
    params=1.502e9,
    layers=10,
    hidden_size=1000,
    attention_heads=10,
    kv_heads=1,
    head_dim=100,
    vocab_size=1000,
    active_params=6.02e8,
    routed_expert_params=1e9,
    experts=10,
    experts_per_token=1,
)


def test_the_experts_of_the_first_layers_are_read_in_host_memory_with_n_cpu_moe():
    # a layer: (5e8 + 1e8 of experts + 4e6 of KV) / 10 = 6.04e7 B, of which 1e7 B of experts
    every_layer_on_cards = bytes_read_per_step_on_cards_and_host(TOY_MOE, EIGHT_BITS, 1, 1000, 2, 11, cpu_moe_layers=4)
    assert every_layer_on_cards == pytest.approx((10 * 6.04e7 - 4e7 + 1e6, 4e7))
    # 8 layers on the cards, the first 2 in host memory already: the experts of 2 more move there
    eight_on_cards = bytes_read_per_step_on_cards_and_host(TOY_MOE, EIGHT_BITS, 1, 1000, 2, 8, cpu_moe_layers=4)
    assert eight_on_cards == pytest.approx((8 * 6.04e7 - 2e7, 2 * 6.04e7 + 2e7 + 1e6))


def test_a_scenario_keeps_the_experts_of_its_first_layers_in_host_memory(catalog):
    moe = on_llama_cpp("qwen3-235b-a22b", cpu_moe_layers=60)
    layers = catalog.models["qwen3-235b-a22b"].layers
    node_host = catalog.assumptions.host_memory_bandwidth_gbps.value
    assert measured_setup(catalog, moe).host_layers == HostLayers(layers + 1, node_host, 60)  # every layer and the head
    said = answer(catalog, moe.model_copy(update={"concurrency": 2}))
    assert said.at_concurrency is not None and said.note is not None and "--n-cpu-moe 60" in said.note
    assert said.streams_running == 2  # the run names its layers: its streams run
    with pytest.raises(ScenarioError, match="has none"):
        measured_setup(catalog, moe.model_copy(update={"model": "llama-3.1-8b"}))


def test_a_step_passes_twice_between_card_and_cpu_per_layer_whose_experts_alone_wait_in_host_memory():
    # --n-gpu-layers 8 of 10: into the CPU's 2 layers and the head, and back, twice a step
    assert crossings_per_step(10, HostLayers(8, 100)) == 2
    # every layer on the card (11: the head too), the experts of the first 4 in host memory: 2 x 4 passes
    assert crossings_per_step(10, HostLayers(11, 100, cpu_moe_layers=4)) == 8
    # 8 on the card, experts of the first 4 in host memory: 2 of those layers are on the CPU already
    assert crossings_per_step(10, HostLayers(8, 100, cpu_moe_layers=4)) == 2 * 2 + 2


def test_each_pass_costs_the_fitted_time(catalog):
    constants = DecodeConstants.from_assumptions(catalog.assumptions)
    gpu = GpuSpec(memory_gb=24, memory_bandwidth_gbps=1000, bf16_dense_tflops=100)
    setup = DecodeSetup(gpu, None, TOY_MOE, EIGHT_BITS, 1, "layers", 1000, constants, "llama.cpp", batch_tokens=2048)
    on_cards = step_seconds(replace(setup, host_layers=HostLayers(11, 100)), 1)
    experts_away = step_seconds(replace(setup, host_layers=HostLayers(11, 100, cpu_moe_layers=4)), 1)
    assert experts_away.overhead - on_cards.overhead == pytest.approx(8 * constants.host_crossing_seconds)
