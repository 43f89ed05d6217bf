"""Time to first token: how long a prompt waits and is read before the first generated token, term by term.

A request of P prompt tokens arriving among ``c`` streams (the others decoding) costs::

    ttft = t_request + t_prompt + t_shared + t_queue

* request: a fixed cost of the server per request (HTTP, tokenizing, scheduling, sampling the first token);
* prompt: the prompt read once: its matrix products and attention (``P × flops per token at P/2``: attention
  grows with the square of P) over the tensor throughput times an achievable fraction, overlapping with reading
  the weights once (the decode model's p-norm); plus the tensor-split all-reduces of ``P × hidden size``
  activations after every sub-layer over the node's own link (``links.tensor_sync_seconds``), or the layer
  split's hand-overs; plus the fixed cost of one step per chunk of the engine's batch budget;
* shared: with chunked prefill, each chunk's step also carries the other ``c − 1`` streams' decode step;
* queue: the prompts of other streams ahead of it. In a closed loop each of the ``c − 1`` others is reading its
  own prompt a share ``t_prompt / t_request_cycle`` of the time; one found there has half of it left.

"At most" is the typical time times a factor that published runs stay under. Plain records in, a frozen
``PrefillEstimate`` out; the constants come from ``assumptions.yml`` (``PrefillConstants.from_assumptions``).
Units are in the names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from sizing.catalog.schema import Assumptions
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
from sizing.engine.memory import weight_bytes_read_per_step
from sizing.engine.specs import LlmShape


@dataclass(frozen=True)
class PrefillConstants:
    compute_fraction: float  # server engines
    compute_fraction_llama_cpp: float
    request_seconds_server: float
    batch_tokens: int
    ceiling_factor: float

    @classmethod
    def from_assumptions(cls, a: Assumptions) -> PrefillConstants:
        return cls(
            compute_fraction=a.prefill_compute_fraction.value,
            compute_fraction_llama_cpp=a.prefill_compute_fraction_llama_cpp.value,
            request_seconds_server=a.prefill_request_seconds_server.value,
            batch_tokens=a.prefill_batch_tokens.value,
            ceiling_factor=a.ttft_ceiling_factor.value,
        )


@dataclass(frozen=True)
class TtftSeconds:
    """The time to first token, term by term (the bench prints them)."""

    request: float
    prompt: float
    shared: float
    queue: float

    @property
    def total(self) -> float:
        return self.request + self.prompt + self.shared + self.queue


@dataclass(frozen=True)
class PrefillEstimate:
    typical_seconds: float
    at_most_seconds: float
    terms: TtftSeconds


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


def prompt_seconds(setup: DecodeSetup, prompt_tokens: int, prefill: PrefillConstants) -> float:
    """The prompt read once with no other stream: compute and weight reads overlapping, the link, and one step's
    fixed cost per chunk. Cards of a layer split work in turn; those of a tensor split at once."""
    decode, model = setup.constants, setup.model
    working = setup.cards if setup.parallelism == "tensor" else 1
    llama_cpp = setup.engine_class == "llama.cpp"
    efficiency = prefill.compute_fraction_llama_cpp if llama_cpp else prefill.compute_fraction
    compute = seconds_computing(
        prompt_flops(model, prompt_tokens), tensor_tflops(setup.gpu, setup.precision), efficiency, working
    )
    fraction = decode.bandwidth_fraction_llama_cpp if llama_cpp else decode.bandwidth_fraction_server
    weights = weight_bytes_read_per_step(model, setup.precision, prompt_tokens) / setup.cards
    memory = seconds_reading_memory(weights, setup.gpu.memory_bandwidth_gbps, fraction) * (setup.cards / working)
    steps = chunks(prompt_tokens, prefill.batch_tokens)
    return (
        seconds_memory_and_compute(memory, compute, decode.combine_exponent)
        + prompt_communication_seconds(setup, prompt_tokens)
        + steps * seconds_overhead(model, decode, setup.engine_class)
    )


# --- among other streams ---------------------------------------------------------------------------
def decode_step_seconds(setup: DecodeSetup, streams: int, context_tokens: int) -> float:
    """One decode step of ``streams`` streams of ``context_tokens`` on the setup's cards (``decode.step_seconds``),
    no prompt inside it."""
    at = replace(setup, context_tokens=context_tokens, prompt_tokens_per_output_token=0.0)
    return step_seconds(at, streams).total


def queue_seconds(others: int, own_prompt_seconds: float, request_cycle_seconds: float) -> float:
    """Closed loop: each other stream reads its prompt a share ``prompt / cycle`` of the time; one found doing so
    has on average half of it left."""
    if others <= 0 or request_cycle_seconds <= 0:
        return 0.0
    return others * own_prompt_seconds / request_cycle_seconds * own_prompt_seconds / 2


def estimate_ttft(
    setup: DecodeSetup, prefill: PrefillConstants, *, prompt_tokens: int, output_tokens: int, concurrency: int
) -> PrefillEstimate:
    """Typical and "at most" time to first token of a prompt of ``prompt_tokens`` among ``concurrency`` streams,
    each of which generates ``output_tokens`` per request."""
    context = prompt_tokens + output_tokens // 2
    request = prefill.request_seconds_server if setup.engine_class == "server" else 0.0
    prompt = prompt_seconds(setup, prompt_tokens, prefill)
    others = concurrency - 1
    shared = (
        chunks(prompt_tokens, prefill.batch_tokens) * decode_step_seconds(setup, others, context) if others > 0 else 0.0
    )
    cycle = request + prompt + output_tokens * decode_step_seconds(setup, concurrency, context)
    terms = TtftSeconds(request, prompt, shared, queue_seconds(others, prompt, cycle))
    return PrefillEstimate(terms.total, terms.total * prefill.ceiling_factor, terms)
