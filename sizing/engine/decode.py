"""Decode speed of a language model: how long one decode step takes, term by term.

One decode step moves each of the ``c`` concurrent streams forward by one token::

    t_step = (t_memory^p + t_compute^p)^(1/p) + t_prefill_share + t_communication + t_overhead
    tokens/s per stream = 1 / t_step            tokens/s in total = c / t_step

* memory: the bytes one card reads (its share of the weights the step touches, and the KV cache of the ``c``
  streams) over the card's bandwidth times an achievable fraction;
* compute: the step's matrix products and attention over the tensor throughput times an achievable fraction;
  memory and compute overlap in part, hence the p-norm;
* prefill share: in steady serving each step also carries the prompts of other requests (``c × I/O`` tokens);
* communication: a tensor split all-reduces after every sub-layer (latency + ring volume over the measured bus
  bandwidth);
* overhead: a fixed cost per sub-layer (kernel launches and tails; llama.cpp's own), more for mixture-of-experts
  and latent attention, plus a per-step host cost (llama.cpp's own as well).

With layers in host memory (llama.cpp's ``--n-gpu-layers``), the memory term reads their share, with the
output head, at the host's memory bandwidth times a fraction of its own, after the cards' share (the CPU's
arithmetic is taken as hidden under its reads, as it is for one stream), and each pass between the cards and the
CPU (two per layer whose experts alone stay in host memory) costs a fixed time.

A layer split runs the cards one after another: the step is the single-card step plus one hand-over per card
boundary. The floor is the typical speed times a factor that published measurements beat.

Plain records in (a ``DecodeSetup``), a frozen ``StepSeconds`` out; the constants come from ``assumptions.yml``
(``DecodeConstants.from_assumptions``) and ``sizing.engine.scenarios`` resolves catalog ids into these records.
Units are in the names: ``_seconds``, ``_bytes``, ``_gbps`` (1e9 B/s), ``_tflops`` (1e12 FLOP/s), ``_us``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from sizing.catalog.schema import Assumptions, EngineClass, MlaAttention, Parallelism
from sizing.catalog.units import GB
from sizing.engine.host_layers import crossings_per_step
from sizing.engine.links import seconds_per_allreduce, sublayers, tensor_parallel_message_bytes
from sizing.engine.memory import (
    bytes_read_per_step_on_cards_and_host,
    kv_cache_bytes,
    kv_layer_tokens,
    weight_bytes_read_per_step,
)
from sizing.engine.specs import GpuSpec, HostLayers, LinkSpec, LlmShape, PrecisionSpec


# --- constants and results -------------------------------------------------------------------------
@dataclass(frozen=True)
class DecodeConstants:
    bandwidth_fraction_server: float
    bandwidth_fraction_llama_cpp: float
    compute_fraction: float
    combine_exponent: float
    sublayer_seconds: float
    sublayer_seconds_llama_cpp: float
    moe_sublayer_extra_seconds: float
    mla_sublayer_extra_seconds: float
    step_host_seconds_server: float
    step_host_seconds_llama_cpp: float
    floor_factor: float
    kv_cache_bytes_per_element: float
    allreduces_per_layer: int
    bandwidth_fraction_host: float
    host_crossing_seconds: float

    @classmethod
    def from_assumptions(cls, a: Assumptions) -> DecodeConstants:
        return cls(
            bandwidth_fraction_server=a.decode_bandwidth_fraction_server.value,
            bandwidth_fraction_llama_cpp=a.decode_bandwidth_fraction_llama_cpp.value,
            compute_fraction=a.decode_compute_fraction.value,
            combine_exponent=a.decode_combine_exponent.value,
            sublayer_seconds=a.decode_sublayer_seconds.value,
            sublayer_seconds_llama_cpp=a.decode_sublayer_seconds_llama_cpp.value,
            moe_sublayer_extra_seconds=a.decode_moe_sublayer_extra_seconds.value,
            mla_sublayer_extra_seconds=a.decode_mla_sublayer_extra_seconds.value,
            step_host_seconds_server=a.decode_step_host_seconds_server.value,
            step_host_seconds_llama_cpp=a.decode_step_host_seconds_llama_cpp.value,
            floor_factor=a.decode_floor_factor.value,
            kv_cache_bytes_per_element=a.kv_cache_bytes_per_element.value,
            allreduces_per_layer=a.allreduces_per_layer.value,
            bandwidth_fraction_host=a.decode_bandwidth_fraction_host.value,
            host_crossing_seconds=a.decode_host_crossing_seconds.value,
        )


@dataclass(frozen=True)
class DecodeSetup:
    """One copy of a model as its decode steps run: the card, the link a split of it crosses (None on one card),
    the model's shape and format, its cards and how they share it (every layer cut across them, or the layers
    shared out), the context each stream holds, the engine and its constants, whether a step computes logits,
    the prompt tokens each output token brings into the steps, the layers left in host memory (llama.cpp), and the
    tokens one step batches (``batch_tokens``: a server's ``--max-num-batched-tokens`` for the card's class,
    llama.cpp's physical batch), in which prompts are read."""

    gpu: GpuSpec
    link: LinkSpec | None
    model: LlmShape
    precision: PrecisionSpec
    cards: int
    parallelism: Parallelism
    context_tokens: int
    constants: DecodeConstants
    engine_class: EngineClass = "server"
    prompt_tokens_per_output_token: float = 0.0
    reads_output_head: bool = True
    host_layers: HostLayers | None = None
    batch_tokens: int = field(kw_only=True)

    def __post_init__(self) -> None:
        if self.cards > 1 and self.link is None:
            raise ValueError(f"a split over {self.cards} cards needs a link")


@dataclass(frozen=True)
class StepSeconds:
    """One decode step, term by term (the bench prints them)."""

    memory: float
    compute: float
    prefill_share: float
    communication: float
    overhead: float
    total: float


# --- the terms of a step ---------------------------------------------------------------------------
def seconds_reading_memory(bytes_read: float, bandwidth_gbps: float, bandwidth_fraction: float) -> float:
    return bytes_read / (bandwidth_gbps * GB * bandwidth_fraction)


def flops_per_token(model: LlmShape, context_tokens: int) -> float:
    """``2 × active params`` for the matrix products + ``4 × q-width × layer-tokens`` for attention scores and
    values (MLA attends over its latent, ``kv_lora_rank + qk_rope_head_dim`` wide per head)."""
    active = model.active_params if model.active_params is not None else model.params
    if isinstance(model.attention, MlaAttention):
        q_width = model.attention_heads * (model.attention.kv_lora_rank + model.attention.qk_rope_head_dim)
    else:
        q_width = model.attention_heads * model.head_dim
    return 2 * active + 4 * q_width * kv_layer_tokens(model, context_tokens)


def tensor_tflops(gpu: GpuSpec, precision: PrecisionSpec) -> float:
    """FP8 tensor cores when the format computes in FP8 and the card has them; 16-bit otherwise (weight-only
    formats dequantize and multiply in 16 bits)."""
    if precision.compute_format == "fp8" and gpu.fp8_dense_tflops is not None:
        return gpu.fp8_dense_tflops
    return gpu.bf16_dense_tflops


def seconds_computing(flops: float, tflops: float, compute_fraction: float, cards_working_at_once: int) -> float:
    return flops / (tflops * 1e12 * compute_fraction * cards_working_at_once)


def seconds_memory_and_compute(memory_seconds: float, compute_seconds: float, exponent: float) -> float:
    """p-norm of the two: p = 1 adds them (no overlap), large p tends to the roofline max (full overlap)."""
    return (memory_seconds**exponent + compute_seconds**exponent) ** (1 / exponent)


def prefill_tokens_per_step(concurrency: int, prompt_tokens_per_output_token: float) -> float:
    """Steady serving: each of ``c`` streams needs I/O prompt tokens per output token, processed between or
    inside the decode steps (chunked prefill). A single stream timed by its inter-token latency carries none."""
    return concurrency * prompt_tokens_per_output_token if concurrency > 1 else 0.0


def moe_sublayers(model: LlmShape) -> int:
    if not model.is_moe:
        return 0
    return model.moe_layers if model.moe_layers is not None else model.layers


def mla_sublayers(model: LlmShape) -> int:
    return model.layers if isinstance(model.attention, MlaAttention) else 0


def seconds_communicating(
    model: LlmShape, link: LinkSpec, cards: int, streams: int, allreduces_per_layer: int
) -> float:
    """Tensor split: one all-reduce of the streams' hidden states after every sub-layer."""
    if cards == 1:
        return 0.0
    message_bytes = tensor_parallel_message_bytes(model, streams)
    return sublayers(model, allreduces_per_layer) * seconds_per_allreduce(message_bytes, cards, link)


def seconds_handing_over(model: LlmShape, link: LinkSpec, streams: int) -> float:
    """Layer split: the hidden states cross one card boundary."""
    return link.allreduce_latency_us * 1e-6 + tensor_parallel_message_bytes(model, streams) / (
        link.allreduce_busbw_gbps * GB
    )


def seconds_overhead(model: LlmShape, constants: DecodeConstants, engine_class: EngineClass) -> float:
    """Per-step host cost + a fixed cost per sub-layer (each engine its own: llama.cpp replays one CUDA graph of
    fused kernels per token) + extras per MoE and per MLA sub-layer. Every card of a tensor split pays all of it."""
    llama_cpp = engine_class == "llama.cpp"
    host = constants.step_host_seconds_llama_cpp if llama_cpp else constants.step_host_seconds_server
    per_sublayer = constants.sublayer_seconds_llama_cpp if llama_cpp else constants.sublayer_seconds
    return (
        host
        + sublayers(model, constants.allreduces_per_layer) * per_sublayer
        + moe_sublayers(model) * constants.moe_sublayer_extra_seconds
        + mla_sublayers(model) * constants.mla_sublayer_extra_seconds
    )


def layer_split_seconds(single_card_step_seconds: float, cards: int, handover_seconds: float) -> float:
    """Cards run in turn: their k shares add back up to the single-card step, plus k − 1 hand-overs."""
    return single_card_step_seconds + (cards - 1) * handover_seconds


def step_seconds(setup: DecodeSetup, concurrency: int) -> StepSeconds:
    """The time of one decode step of ``concurrency`` streams of one copy, term by term (``steps_seconds``)."""
    return steps_seconds(setup, (concurrency,))[0]


def steps_seconds(setup: DecodeSetup, counts: Sequence[int]) -> list[StepSeconds]:
    """The time of one decode step of each count of streams of one copy, term by term (a step that computes no
    logits, as llama-bench's prompt test at microbatch 1, skips the output head); what does not depend on the
    count is worked out once. With host layers (llama.cpp), the layers left in host memory are read at the
    host's bandwidth, after those on the cards."""
    model, constants, cards = setup.model, setup.constants, setup.cards
    if setup.parallelism == "layers" and cards > 1:
        assert setup.link is not None
        singles = steps_seconds(replace(setup, link=None, cards=1, parallelism="tensor"), counts)
        handovers = [seconds_handing_over(model, setup.link, c) for c in counts]
        return [
            replace(single, communication=(cards - 1) * h, total=layer_split_seconds(single.total, cards, h))
            for single, h in zip(singles, handovers, strict=True)
        ]
    llama_cpp = setup.engine_class == "llama.cpp"
    fraction = constants.bandwidth_fraction_llama_cpp if llama_cpp else constants.bandwidth_fraction_server
    tflops = tensor_tflops(setup.gpu, setup.precision)
    per_token = flops_per_token(model, setup.context_tokens)
    per_prompt_token = flops_per_token(model, setup.context_tokens // 2)
    kv_per_stream = kv_cache_bytes(model, setup.context_tokens, 1, constants.kv_cache_bytes_per_element, cards)
    overhead = seconds_overhead(model, constants, setup.engine_class)
    host_layers = setup.host_layers
    if host_layers is not None:
        overhead += crossings_per_step(model.layers, host_layers) * constants.host_crossing_seconds
    found = []
    for concurrency in counts:
        if host_layers is None:
            weights = weight_bytes_read_per_step(model, setup.precision, concurrency, setup.reads_output_head)
            bytes_read = weights / cards + kv_per_stream * concurrency
            memory = seconds_reading_memory(bytes_read, setup.gpu.memory_bandwidth_gbps, fraction)
        else:
            on_cards, in_host = bytes_read_per_step_on_cards_and_host(
                model,
                setup.precision,
                concurrency,
                setup.context_tokens,
                constants.kv_cache_bytes_per_element,
                host_layers.gpu_layers,
                setup.reads_output_head,
                host_layers.cpu_moe_layers,
            )
            memory = seconds_reading_memory(
                on_cards, setup.gpu.memory_bandwidth_gbps, fraction
            ) + seconds_reading_memory(in_host, host_layers.bandwidth_gbps, constants.bandwidth_fraction_host)
        compute = seconds_computing(concurrency * per_token, tflops, constants.compute_fraction, cards)
        prompt_tokens = prefill_tokens_per_step(concurrency, setup.prompt_tokens_per_output_token)
        prefill = seconds_computing(prompt_tokens * per_prompt_token, tflops, constants.compute_fraction, cards)
        communication = (
            0.0
            if setup.link is None
            else seconds_communicating(model, setup.link, cards, concurrency, constants.allreduces_per_layer)
        )
        combined = seconds_memory_and_compute(memory, compute, constants.combine_exponent)
        total = combined + prefill + communication + overhead
        found.append(StepSeconds(memory, compute, prefill, communication, overhead, total))
    return found


# --- how many streams, at what price ---------------------------------------------------------------
def streams_that_fit(
    card_budget_bytes: float,
    weight_bytes_per_card: float,
    reserved_bytes_per_card: float,
    kv_bytes_per_stream_per_card: float,
    max_streams: int,
) -> int:
    """Streams whose KV cache fits beside the weights and the reserve on every card, up to the engine's cap
    (0 when the weights alone do not fit)."""
    free = card_budget_bytes - weight_bytes_per_card - reserved_bytes_per_card
    if free <= 0:
        return 0
    return min(int(free // kv_bytes_per_stream_per_card), max_streams)


def price_per_million_tokens(monthly_price: float, hours_per_month: float, tokens_per_s_total: float) -> float:
    """What a million generated tokens cost on a node rented by the month and kept busy at ``tokens_per_s_total``."""
    return monthly_price / (hours_per_month * 3600 * tokens_per_s_total) * 1e6
