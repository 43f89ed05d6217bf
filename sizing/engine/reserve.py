"""What an inference engine keeps on each card besides the weights and the KV cache, as the engine itself
reserves it (figures and sources in data/engines.yml).

vLLM (and SGLang, sized the same way) profiles one batch at start-up and keeps its peak out of the KV cache:

* its batch budget depends on the card (``EngineArgs.get_batch_defaults``): for ``vllm serve``, cards of at
  least 70 GiB that are not A100 take 8,192 batched tokens and 1,024 sequences, every other card 2,048 tokens
  and 256 sequences;
* the peak is the sampler's work on the logits of the positions it samples (one per sequence of the batch,
  not one per batched token), plus the rest of the forward pass (more for mixture-of-experts);
* outside PyTorch each card holds its CUDA context, and NCCL buffers when split; CUDA graphs are charged
  inside the budget by current vLLM (since v0.21), outside it before.

llama.cpp has no utilization cap: beside weights and KV cache each card holds a compute buffer sized for its
physical batch (``n_ubatch``) and its CUDA context.

Plain numbers in, bytes out."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.schema import LlamaCppEngine, ServerEngine
from sizing.catalog.units import GIB
from sizing.engine.specs import LlmShape


@dataclass(frozen=True)
class BatchBudget:
    """One scheduler step at most: ``tokens`` (``--max-num-batched-tokens``) over ``sequences``
    (``--max-num-seqs``)."""

    tokens: int
    sequences: int

    @property
    def sampled_positions(self) -> int:
        """Positions whose logits one step computes: one per sequence, never more than the tokens."""
        return min(self.tokens, self.sequences)


@dataclass(frozen=True)
class Reserve:
    """Bytes one card keeps besides weights and KV cache: ``activations`` (a server engine's activation peak,
    llama.cpp's compute buffer) and ``overhead`` (memory outside PyTorch, CUDA graphs)."""

    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.activations + self.overhead


# --- vLLM / SGLang ------------------------------------------------------------------------------------------
def is_large_card(visible_bytes: float, device_name: str, min_bytes: float, excluded_names: list[str]) -> bool:
    """vLLM's test for its larger defaults: at least ``min_bytes`` of device memory and a name containing none
    of ``excluded_names`` (``"a100"``: larger batches lowered its throughput, vLLM PR #17885)."""
    name = device_name.lower()
    return visible_bytes >= min_bytes and not any(excluded in name for excluded in excluded_names)


def server_batch_budget(engine: ServerEngine, visible_bytes: float, device_name: str) -> BatchBudget:
    """The batch ``vllm serve`` profiles on this card by default."""
    rule = engine.batch_budget
    large = is_large_card(visible_bytes, device_name, rule.large_card_min_gib * GIB, rule.large_card_excluded_names)
    chosen = rule.large_card if large else rule.other_cards
    return BatchBudget(chosen.tokens, chosen.sequences)


def sampler_peak_bytes(sampled_positions: int, vocab_size: int, bytes_per_vocab_entry: float) -> float:
    """The sampler's working set: logits, probabilities, sorted copies and indices of every sampled position,
    ``positions × vocab × bytes``."""
    return sampled_positions * vocab_size * bytes_per_vocab_entry


def activation_peak_bytes(
    sampled_positions: int,
    vocab_size: int,
    *,
    bytes_per_vocab_entry: float,
    base_bytes: float,
    moe_extra_bytes: float,
    is_moe: bool,
) -> float:
    """A server engine's activation peak on every card of a split (it does not shrink with tensor parallelism):
    the sampler's working set plus the rest of the forward pass, more for mixture-of-experts."""
    rest = base_bytes + (moe_extra_bytes if is_moe else 0.0)
    return sampler_peak_bytes(sampled_positions, vocab_size, bytes_per_vocab_entry) + rest


def non_torch_bytes(cards: int, cuda_context_bytes: float, split_extra_bytes: float) -> float:
    """Memory outside PyTorch on each card: the CUDA context, and NCCL and all-reduce buffers when split."""
    return cuda_context_bytes + (split_extra_bytes if cards > 1 else 0.0)


def server_reserve(
    engine: ServerEngine,
    model: LlmShape,
    cards: int,
    budget: BatchBudget,
    cuda_graphs_in_budget: bool = True,
) -> Reserve:
    """What a server engine keeps on each card of a ``cards``-way split with the batch ``budget``."""
    activations = activation_peak_bytes(
        budget.sampled_positions,
        model.vocab_size,
        bytes_per_vocab_entry=engine.sampler_bytes_per_vocab_entry.value,
        base_bytes=engine.activation_base_gib.value * GIB,
        moe_extra_bytes=engine.activation_moe_extra_gib.value * GIB,
        is_moe=model.is_moe,
    )
    overhead = non_torch_bytes(cards, engine.cuda_context_gib.value * GIB, engine.nccl_buffers_gib.value * GIB)
    if cuda_graphs_in_budget:
        overhead += engine.cuda_graphs_gib.value * GIB
    return Reserve(activations, overhead)


# --- llama.cpp ----------------------------------------------------------------------------------------------
def compute_buffer_bytes(
    context_tokens: int,
    batch: int,
    *,
    ubatch_tokens: int,
    attention_heads: int,
    vocab_size: int,
    scores_bytes: float,
    logits_bytes: float,
) -> float:
    """llama.cpp's compute buffer on each card: one layer's attention scores for every head over the context of
    the ``batch`` sequences (``n_ctx × n_ubatch × n_head × scores_bytes``) and the logits of one physical batch
    (``n_ubatch × vocab × logits_bytes``)."""
    scores = context_tokens * batch * attention_heads * scores_bytes
    return ubatch_tokens * (scores + vocab_size * logits_bytes)


def llama_cpp_reserve(engine: LlamaCppEngine, model: LlmShape, context_tokens: int, batch: int) -> Reserve:
    """What llama.cpp keeps on each card: its compute buffer and CUDA context."""
    buffer = compute_buffer_bytes(
        context_tokens,
        batch,
        ubatch_tokens=engine.ubatch_tokens.value,
        attention_heads=model.attention_heads,
        vocab_size=model.vocab_size,
        scores_bytes=engine.attention_scores_bytes.value,
        logits_bytes=engine.logits_bytes_per_vocab_entry.value,
    )
    return Reserve(buffer, engine.cuda_context_gib.value * GIB)


# --- what is left for the KV cache --------------------------------------------------------------------------
def kv_cache_room_bytes(card_budget_bytes: float, weight_bytes_per_card: float, reserve: Reserve) -> float:
    """What an engine gives its KV cache on one card ("Available KV cache memory" in vLLM's start-up log):
    the budget less the weights and the reserve; negative when they do not fit."""
    return card_budget_bytes - weight_bytes_per_card - reserve.total
