"""Time to first token: how long a prompt takes to read on one copy, and what the load model needs of it.

A prompt of P tokens read alone costs its matrix products and attention (``P × flops per token at P/2``:
attention grows with the square of P) over the tensor throughput times an achievable fraction, overlapping with
reading the weights once (the decode model's p-norm); plus the tensor-split all-reduces of ``P × hidden size``
activations after every sub-layer over the node's own link (``links.tensor_sync_seconds``), or the layer split's
hand-overs: ``prompt_work_seconds``. The engine reads it in steps of its batch budget (``DecodeSetup.batch_tokens``:
``--max-num-batched-tokens`` for the card's class, llama.cpp's physical batch), each with the step's fixed cost.
Among other users the prompt shares those steps with their decoding and waits for their prompts:
``sizing.engine.load`` adds that, from the ``CopyTimes`` built here (``copy_times``); a server also spends a fixed
time on each request (HTTP, tokenizing, scheduling) that an engine's own benchmark does not count. A burst of
requests is read step by step (``sizing.engine.burst``, from ``burst_times``): prompts packed into each step's
budget, the weights read once a step (``tokens_work_seconds``), behind a front end that takes the requests one
after another.

Plain records in; the constants come from ``assumptions.yml`` (``PrefillConstants.from_assumptions``). Units are
in the names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sizing.catalog.schema import Assumptions
from sizing.engine.burst import BurstTimes
from sizing.engine.decode import (
    DecodeSetup,
    flops_per_token,
    seconds_computing,
    seconds_handing_over,
    seconds_memory_and_compute,
    seconds_overhead,
    seconds_reading_memory,
    step_seconds,
    tensor_tflops,
)
from sizing.engine.links import tensor_sync_seconds
from sizing.engine.load import Arrival, CopyTimes, Load, load_of
from sizing.engine.memory import weight_bytes_read_per_step
from sizing.engine.specs import LlmShape


@dataclass(frozen=True)
class PrefillConstants:
    compute_fraction: float  # server engines
    compute_fraction_llama_cpp: float
    request_seconds_server: float
    frontend_seconds_server: float  # a server's front end, one request after another
    ceiling_factor: float
    attention_score_bytes_llama_cpp: float  # without flash attention

    @classmethod
    def from_assumptions(cls, a: Assumptions) -> PrefillConstants:
        return cls(
            compute_fraction=a.prefill_compute_fraction.value,
            compute_fraction_llama_cpp=a.prefill_compute_fraction_llama_cpp.value,
            request_seconds_server=a.prefill_request_seconds_server.value,
            frontend_seconds_server=a.prefill_frontend_seconds_server.value,
            ceiling_factor=a.ttft_ceiling_factor.value,
            attention_score_bytes_llama_cpp=a.prefill_attention_score_bytes_llama_cpp.value,
        )


# --- the prompt alone ------------------------------------------------------------------------------
def prompt_flops(model: LlmShape, prompt_tokens: int) -> float:
    """Every prompt token's products and its attention over the tokens before it: on average half the prompt."""
    return prompt_tokens * flops_per_token(model, prompt_tokens // 2)


def chunks(prompt_tokens: int, batch_tokens: int) -> int:
    """Steps the engine splits the prompt into under its batch budget (chunked prefill)."""
    return math.ceil(prompt_tokens / batch_tokens)


def prompt_communication_seconds(setup: DecodeSetup, prompt_tokens: int) -> float:
    """Tensor split: every sub-layer all-reduces the prompt's activations, ``P × hidden size × 2`` bytes. Layer
    split: the activations cross each card boundary once."""
    if setup.cards == 1 or setup.link is None:
        return 0.0
    if setup.parallelism == "layers":
        return (setup.cards - 1) * seconds_handing_over(setup.model, setup.link, prompt_tokens)
    return tensor_sync_seconds(
        setup.link, setup.cards, setup.model, setup.constants.allreduces_per_layer, prompt_tokens
    )


def attention_scores(model: LlmShape, prompt_tokens: int) -> float:
    """The attention scores a prompt computes over all layers and heads: each token against those before it,
    ``P² / 2`` per layer and head."""
    return model.layers * model.attention_heads * prompt_tokens * prompt_tokens / 2


def prompt_work_seconds(
    setup: DecodeSetup, prompt_tokens: int, prefill: PrefillConstants, flash_attention: bool = True
) -> float:
    """The prompt read once with no other stream and no step costs (``tokens_work_seconds`` of the whole prompt)."""
    return tokens_work_seconds(setup, prompt_tokens, prompt_tokens, prefill, flash_attention)


def tokens_work_seconds(
    setup: DecodeSetup, prompt_tokens: int, tokens: int, prefill: PrefillConstants, flash_attention: bool = True
) -> float:
    """``tokens`` tokens of prompts of ``prompt_tokens`` each, read together in one step with no step costs: their
    products and attention (each token against half its prompt on average) and the weights those tokens touch,
    read once, overlapping; and the link; llama.cpp without flash attention also moves every attention score
    through memory. Cards of a layer split work in turn; those of a tensor split at once."""
    decode, model = setup.constants, setup.model
    working = setup.cards if setup.parallelism == "tensor" else 1
    llama_cpp = setup.engine_class == "llama.cpp"
    efficiency = prefill.compute_fraction_llama_cpp if llama_cpp else prefill.compute_fraction
    compute = seconds_computing(
        tokens * flops_per_token(model, prompt_tokens // 2),
        tensor_tflops(setup.gpu, setup.precision),
        efficiency,
        working,
    )
    fraction = decode.bandwidth_fraction_llama_cpp if llama_cpp else decode.bandwidth_fraction_server
    weights = weight_bytes_read_per_step(model, setup.precision, tokens) / setup.cards
    memory = seconds_reading_memory(weights, setup.gpu.memory_bandwidth_gbps, fraction) * (setup.cards / working)
    scores = 0.0
    if llama_cpp and not flash_attention:
        share = tokens / prompt_tokens  # of a prompt's scores
        moved = attention_scores(model, prompt_tokens) * share * prefill.attention_score_bytes_llama_cpp
        scores = seconds_reading_memory(moved, setup.gpu.memory_bandwidth_gbps, fraction)
    return (
        seconds_memory_and_compute(memory, compute, decode.combine_exponent)
        + scores
        + prompt_communication_seconds(setup, tokens)
    )


def step_fixed_seconds(setup: DecodeSetup) -> float:
    """The fixed cost of one step of the copy (kernel launches and tails, the host's share)."""
    return seconds_overhead(setup.model, setup.constants, setup.engine_class)


# --- among other streams ---------------------------------------------------------------------------
def decode_step_seconds(setup: DecodeSetup, streams: int, context_tokens: int) -> float:
    """One decode step of ``streams`` streams of ``context_tokens`` on the setup's cards (``decode.step_seconds``),
    no prompt inside it."""
    at = replace(setup, context_tokens=context_tokens, prompt_tokens_per_output_token=0.0)
    return step_seconds(at, streams).total


def served(setup: DecodeSetup, through_server: bool) -> bool:
    """Whether the requests go through a server (its cost per request, its front end): a server engine's run
    measured at the server, not an engine's own benchmark nor llama.cpp."""
    return through_server and setup.engine_class == "server"


def copy_times(
    setup: DecodeSetup,
    prefill: PrefillConstants,
    prompt_tokens: int,
    output_tokens: int,
    through_server: bool = True,
    flash_attention: bool = True,
) -> CopyTimes:
    """What the load model needs of the copy for requests of ``prompt_tokens`` and ``output_tokens`` (each stream
    holding the prompt and half the answer on average); ``through_server``: the request pays the server's fixed
    cost (not in an engine's own benchmark); ``flash_attention``: llama.cpp's ``-fa`` (its default now)."""
    context = prompt_tokens + output_tokens // 2
    request = prefill.request_seconds_server if served(setup, through_server) else 0.0
    return CopyTimes(
        decode_step_seconds=lambda streams: decode_step_seconds(setup, max(1, math.ceil(streams)), context),
        prompt_tokens=prompt_tokens,
        prompt_seconds=prompt_work_seconds(setup, prompt_tokens, prefill, flash_attention),
        chunk_seconds=step_fixed_seconds(setup),
        batch_tokens=setup.batch_tokens,
        request_seconds=request,
        prompt_tail_factor=prefill.ceiling_factor,
    )


def burst_times(
    setup: DecodeSetup,
    prefill: PrefillConstants,
    prompt_tokens: int,
    output_tokens: int,
    through_server: bool = True,
    flash_attention: bool = True,
) -> BurstTimes:
    """What a burst needs of the copy (``sizing.engine.burst``): its ``copy_times``, prompt tokens read together
    in one step, and the server's front end, which takes the requests one after another."""
    return BurstTimes(
        copy=copy_times(setup, prefill, prompt_tokens, output_tokens, through_server, flash_attention),
        tokens_seconds=lambda tokens: tokens_work_seconds(setup, prompt_tokens, tokens, prefill, flash_attention),
        output_tokens=output_tokens,
        frontend_seconds=prefill.frontend_seconds_server if served(setup, through_server) else 0.0,
    )


def estimate_ttft(
    setup: DecodeSetup,
    prefill: PrefillConstants,
    *,
    prompt_tokens: int,
    output_tokens: int,
    arrival: Arrival,
    most_streams: int,
    through_server: bool = True,
) -> Load:
    """The copy under the arrival's load (``sizing.engine.load``): its first token typically and at most, and the
    decode step with the prompts inside it."""
    times = copy_times(setup, prefill, prompt_tokens, output_tokens, through_server)
    return load_of(times, arrival, output_tokens, most_streams)
