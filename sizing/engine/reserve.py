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

import re
from dataclasses import dataclass

from sizing.catalog.schema import EarlierRelease, LlamaCppEngine, ServerEngine
from sizing.catalog.units import GIB
from sizing.engine.memory import mlp_width
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


# A forward pass of the profiling batch holds, per token in 16 bits, the MLP's gate and up projections (2 × its width)
# and their activated product (1 × its width), 6 bytes per unit of width, beside the residual and normed hidden
# states (2 × the hidden size), 4 bytes per unit: vLLM V0 profiling Llama 3.1 8B on an RTX 3090 over 20,000 and
# 29,000 tokens kept 0.92 GiB more for 9,000 more tokens, 102 KiB a token = 6 × 14,336 + 4 × 4,096 bytes.
FORWARD_BYTES_PER_MLP_WIDTH = 6
FORWARD_BYTES_PER_HIDDEN = 4


def forward_activation_bytes(tokens: int, mlp_width_per_card: float, hidden_size: int) -> float:
    """What a forward pass over ``tokens`` tokens holds on one card at its peak (the MLP's tensors of one layer)."""
    return tokens * (FORWARD_BYTES_PER_MLP_WIDTH * mlp_width_per_card + FORWARD_BYTES_PER_HIDDEN * hidden_size)


def activation_peak_bytes(
    sampler_bytes: float, forward_bytes: float, *, base_bytes: float, moe_extra_bytes: float, is_moe: bool
) -> float:
    """A server engine's activation peak on every card of a split: the larger of the sampler's working set (which
    does not shrink with tensor parallelism) and the forward pass of its profiling batch (they do not peak at the same
    time), plus what else the pass keeps, more for mixture-of-experts."""
    rest = base_bytes + (moe_extra_bytes if is_moe else 0.0)
    return max(sampler_bytes, forward_bytes) + rest


def non_torch_bytes(cards: int, cuda_context_bytes: float, split_extra_bytes: float) -> float:
    """Memory outside PyTorch on each card: the CUDA context, and NCCL and all-reduce buffers when split."""
    return cuda_context_bytes + (split_extra_bytes if cards > 1 else 0.0)


def server_reserve(
    engine: ServerEngine,
    model: LlmShape,
    cards: int,
    budget: BatchBudget,
    cuda_graphs_in_budget: bool = True,
    over_nvswitch: bool = False,
) -> Reserve:
    """What a server engine keeps on each card of a ``cards``-way split with the batch ``budget``; a split across an
    NVSwitch board that has them keeps the NVSwitch buffers too (``over_nvswitch``)."""
    sampler = sampler_peak_bytes(budget.sampled_positions, model.vocab_size, engine.sampler_bytes_per_vocab_entry.value)
    forward = forward_activation_bytes(budget.tokens, mlp_width(model) / cards, model.hidden_size)
    activations = activation_peak_bytes(
        sampler,
        forward,
        base_bytes=engine.activation_base_gib.value * GIB,
        moe_extra_bytes=engine.activation_moe_extra_gib.value * GIB,
        is_moe=model.is_moe,
    )
    split_gib = engine.nccl_buffers_gib.value + (engine.nvswitch_buffers_gib.value if over_nvswitch else 0.0)
    overhead = non_torch_bytes(cards, engine.cuda_context_gib.value * GIB, split_gib * GIB)
    if cuda_graphs_in_budget:
        overhead += engine.cuda_graphs_gib.value * GIB
    return Reserve(activations, overhead)


# --- a release's own figures ---------------------------------------------------------------------------------
def release_of(engine: ServerEngine, engine_text: str) -> EarlierRelease | None:
    """The earlier release of the server engine a text names ("vLLM V0 0.9.2", "vLLM 0.10.1", "vLLM v0.9.0", "log layout
    of v0.10.1", "vLLM before 0.11"), None for the current one or a text that names no version."""
    if re.search(r"\bV0\b", engine_text):
        return next((r for r in engine.earlier_releases if r.v0), None)
    found = re.search(r"\b(before )?v?(\d+)\.(\d+)(?:\.\d+)?\b", engine_text)  # "0.10.1", "v0.9.0"
    if found is None:
        return None
    version = (int(found[2]), int(found[3]) - (1 if found[1] else 0))  # "before 0.11": a release below it
    earlier = [r for r in engine.earlier_releases if r.before is not None and version < version_key(r.before)]
    return min(earlier, key=lambda r: version_key(r.before or ""), default=None)


def version_key(text: str) -> tuple[int, int]:
    """A "major.minor" version as a sortable pair."""
    major, minor = text.split(".")
    return int(major), int(minor)


def as_released(engine: ServerEngine, release: EarlierRelease | None) -> ServerEngine:
    """The server engine with an earlier release's figures (unchanged for the current release)."""
    if release is None:
        return engine
    figures = {
        name: getattr(engine, name).model_copy(update={"value": getattr(release, name), "source": release.source})
        for name in (
            "sampler_bytes_per_vocab_entry",
            "activation_base_gib",
            "activation_moe_extra_gib",
            "nccl_buffers_gib",
            "nvswitch_buffers_gib",
        )
    }
    if release.batch_budget is not None:
        figures["batch_budget"] = release.batch_budget
    return engine.model_copy(update=figures)


# --- llama.cpp ----------------------------------------------------------------------------------------------
def compute_buffer_bytes(
    context_tokens: int,
    batch: int,
    *,
    ubatch_tokens: int,
    attention_heads: int,
    vocab_size: int,
    hidden_size: int,
    scores_bytes: float,
    logits_bytes: float,
    flash_attention: bool,
) -> float:
    """llama.cpp's compute buffer on each card: the logits and the hidden states of one physical batch
    (``n_ubatch × (vocab + hidden) × logits_bytes``) and, without flash attention, one layer's attention scores for
    every head over the context of the ``batch`` sequences (``n_ctx × n_ubatch × n_head × scores_bytes``), which
    flash attention never stores."""
    scores = 0.0 if flash_attention else context_tokens * batch * attention_heads * scores_bytes
    return ubatch_tokens * (scores + (vocab_size + hidden_size) * logits_bytes)


def llama_cpp_reserve(
    engine: LlamaCppEngine, model: LlmShape, context_tokens: int, batch: int, flash_attention: bool | None = None
) -> Reserve:
    """What llama.cpp keeps on each card: its compute buffer (with flash attention unless told otherwise, its
    default) and CUDA context."""
    buffer = compute_buffer_bytes(
        context_tokens,
        batch,
        ubatch_tokens=engine.ubatch_tokens.value,
        attention_heads=model.attention_heads,
        vocab_size=model.vocab_size,
        hidden_size=model.hidden_size,
        scores_bytes=engine.attention_scores_bytes.value,
        logits_bytes=engine.logits_bytes_per_vocab_entry.value,
        flash_attention=engine.flash_attention.value if flash_attention is None else flash_attention,
    )
    return Reserve(buffer, engine.cuda_context_gib.value * GIB)


# --- SGLang ---------------------------------------------------------------------------------------------------
def sglang_kv_pool_bytes(
    static_bytes: float, weight_bytes_per_card: float, reserve: Reserve, mamba_ratio: float | None = None
) -> float:
    """SGLang's KV pool on one card: its static share of the card (``--mem-fraction-static`` × the memory it sees)
    holds the weights and the pool; what it allocates before the pool outside PyTorch (CUDA context, NCCL
    buffers) comes out of that share too. Its activations and CUDA graphs live in the rest of the card. A model
    whose other layers keep recurrent states (Mamba, linear attention) gives them ``mamba_ratio`` of the attention
    layers' cache out of the same pool."""
    pool = static_bytes - weight_bytes_per_card - reserve.overhead
    return pool if mamba_ratio is None else pool / (1 + mamba_ratio)


def sglang_leaves_room_for_activations(visible_bytes: float, static_bytes: float, reserve: Reserve) -> bool:
    """Whether what SGLang's static share leaves of the card holds its activation peak, which lives outside the
    share (at ``--mem-fraction-static 1.0`` nothing is left, and the start runs out of memory)."""
    return visible_bytes - static_bytes >= reserve.activations


# --- what is left for the KV cache --------------------------------------------------------------------------
def kv_cache_room_bytes(card_budget_bytes: float, weight_bytes_per_card: float, reserve: Reserve) -> float:
    """What an engine gives its KV cache on one card ("Available KV cache memory" in vLLM's start-up log):
    the budget less the weights and the reserve; negative when they do not fit."""
    return card_budget_bytes - weight_bytes_per_card - reserve.total
