"""Bytes of weights (held, and read by one decode step) and of KV cache, per format and per card of a split.

The formulas read a model's ``LlmShape`` and a ``PrecisionSpec``; ``model_weight_bytes`` applies them to catalog
records (a language model through its shape, an image or video pipeline by its components)."""

from __future__ import annotations

import math

from sizing.catalog.errors import SizingError
from sizing.catalog.schema import (
    DiffusionModel,
    HybridAttention,
    Llm,
    MlaAttention,
    Parallelism,
    Precision,
    SlidingAttention,
)
from sizing.engine.specs import LlmShape, PrecisionSpec, checkpoint_precision, llm_shape

SIXTEEN_BIT_BYTES = 2
EIGHT_BIT_BYTES = 1  # an FP8 element (a KV cache kept in FP8)


def require_precision(model: Llm | DiffusionModel, precision: Precision) -> None:
    if model.kind not in precision.applies_to:
        raise SizingError(f"precision '{precision.id}' does not apply to {model.kind} model '{model.id}'")


# --- weights -----------------------------------------------------------------------------------------------
def embedding_params(model: LlmShape) -> int:
    """Input embeddings plus output head (one matrix when tied)."""
    return model.vocab_size * model.hidden_size * (1 if model.tie_word_embeddings else 2)


def routed_expert_params(model: LlmShape) -> float:
    """Parameters of all routed experts: the model card's count where it gives one (gpt-oss counts its active
    parameters without the input embedding, which the rule below would take for experts); else from
    ``params = N + R`` and ``active = N + R × a/E``: ``R = (params − active) / (1 − a/E)``. Experts unknown: the
    inactive ``params − active`` (never read)."""
    if model.active_params is None:
        return 0.0
    if model.routed_expert_params is not None:
        return model.routed_expert_params
    if model.experts is None or model.experts_per_token is None:
        return model.params - model.active_params
    return (model.params - model.active_params) / (1 - model.experts_per_token / model.experts)


def distinct_experts_touched(experts: int, experts_per_token: int, streams: int) -> float:
    """Expected distinct experts a MoE layer runs when ``streams`` tokens each pick ``experts_per_token`` of
    ``experts`` (uniform routing): ``E × (1 − (1 − a/E)^c)``; ``a`` at one stream, nearly ``E`` at many."""
    return experts * (1 - (1 - experts_per_token / experts) ** streams)


def _embedding_bits(precision: PrecisionSpec) -> float:
    return 16 if precision.keeps_embeddings_16bit else precision.bits_per_weight


def _expert_bits(precision: PrecisionSpec) -> float:
    return precision.expert_bits_per_weight or precision.bits_per_weight


def weight_bytes(model: LlmShape, precision: PrecisionSpec) -> float:
    """Every weight held in memory (all experts), embeddings at 16 bits where the format keeps them so, and what the
    checkpoint leaves in 16 bits."""
    routed = routed_expert_params(model) if model.experts is not None else 0.0
    embeddings = embedding_params(model)
    kept = precision.params_16bit
    return (
        (model.params - routed - embeddings - kept) * precision.bits_per_weight / 8
        + kept * 2
        + embeddings * _embedding_bits(precision) / 8
        + routed * _expert_bits(precision) / 8
    )


def weight_bytes_per_card(model: LlmShape, precision: PrecisionSpec, cards: int, architecture: str | None) -> float:
    """What each card of a ``cards``-way tensor split holds: its share of every weight, and where the format's
    kernels on cards of ``architecture`` pad each card's share of an expert's intermediate size up to a multiple
    (vLLM's MXFP4 kernels), the padding of its experts too. A model that does not give its experts' width is taken
    unpadded."""
    share = weight_bytes(model, precision) / cards
    multiple = precision.expert_intermediate_multiple(architecture)
    if multiple is None or model.expert_intermediate_size is None:
        return share
    width = model.expert_intermediate_size / cards
    padded = math.ceil(width / multiple) * multiple
    experts = routed_expert_params(model) * _expert_bits(precision) / 8 / cards
    return share + experts * (padded / width - 1)


def weight_bytes_read_per_step(
    model: LlmShape, precision: PrecisionSpec, streams: int, reads_output_head: bool = True
) -> float:
    """Weights one decode step reads over all cards: everything except the input embedding (one row per token),
    the output head at its own width (unless the step computes no logits), and of the routed experts only those
    the ``streams`` tokens touch."""
    routed = routed_expert_params(model)
    head = model.vocab_size * model.hidden_size
    input_embedding = 0 if model.tie_word_embeddings else head
    body = model.params - routed - head - input_embedding - precision.params_16bit
    head_read = head if reads_output_head else 0
    return (
        body * precision.bits_per_weight / 8
        + precision.params_16bit * 2
        + head_read * _embedding_bits(precision) / 8
        + expert_bytes_read_per_step(model, precision, streams)
    )


def expert_bytes_read_per_step(model: LlmShape, precision: PrecisionSpec, streams: int) -> float:
    """Bytes of the routed experts one decode step reads over all layers: those the ``streams`` tokens touch
    (0 for a dense model)."""
    if model.experts is None or model.experts_per_token is None:
        return 0.0
    touched = distinct_experts_touched(model.experts, model.experts_per_token, streams) / model.experts
    return routed_expert_params(model) * touched * _expert_bits(precision) / 8


def embedding_bytes(model: LlmShape, precision: PrecisionSpec) -> float:
    """Bytes of the input embeddings and the output head as held (16 bits where the format keeps them so)."""
    return embedding_params(model) * _embedding_bits(precision) / 8


def output_head_bytes_read(model: LlmShape, precision: PrecisionSpec) -> float:
    """Bytes of the output head one step reads to compute its logits."""
    return model.vocab_size * model.hidden_size * _embedding_bits(precision) / 8


def attention_params_per_layer(model: LlmShape) -> int:
    """The query, key, value and output projections of one layer."""
    query = model.attention_heads * model.head_dim
    return model.hidden_size * (2 * query + 2 * model.kv_heads * model.head_dim)


def mlp_width(model: LlmShape) -> float:
    """The width of the MLP one token runs through (the experts it is routed to together, for a mixture of
    experts), from the parameters a token reads: per layer, less the attention, over the three matrices (gate,
    up, down) of the hidden size."""
    read = model.active_params if model.active_params is not None else model.params
    per_layer = (read - embedding_params(model)) / model.layers - attention_params_per_layer(model)
    return max(per_layer, 0.0) / (3 * model.hidden_size)


def layer_weight_bytes(model: LlmShape, precision: PrecisionSpec) -> float:
    """Bytes one repeating layer holds (all its experts): every weight but the embeddings and the output head,
    shared evenly over the layers."""
    return (weight_bytes(model, precision) - embedding_bytes(model, precision)) / model.layers


def bytes_read_per_step_on_cards_and_host(
    model: LlmShape,
    precision: PrecisionSpec,
    streams: int,
    context_tokens: int,
    kv_bytes_per_element: float,
    gpu_layers: int,
    reads_output_head: bool = True,
    cpu_moe_layers: int = 0,
) -> tuple[float, float]:
    """Bytes one decode step reads (weights and KV cache) on the cards and in host memory when ``gpu_layers`` of
    the layers are on the cards (llama.cpp's ``--n-gpu-layers``, the last layers) and the routed experts of the
    first ``cpu_moe_layers`` layers stay in host memory (``--n-cpu-moe``): each layer's share where it is; the
    output head in host memory unless every layer and the head are on the cards (``gpu_layers`` above the layer
    count)."""
    head = output_head_bytes_read(model, precision) if reads_output_head else 0.0
    layers = weight_bytes_read_per_step(model, precision, streams, reads_output_head) - head
    per_layer = (layers + kv_cache_bytes(model, context_tokens, streams, kv_bytes_per_element)) / model.layers
    on_cards = min(gpu_layers, model.layers)
    in_host = model.layers - on_cards
    experts_per_layer = expert_bytes_read_per_step(model, precision, streams) / model.layers
    experts_moved = max(0, min(cpu_moe_layers, model.layers) - in_host) * experts_per_layer
    head_on_cards = gpu_layers > model.layers
    return (
        on_cards * per_layer - experts_moved + (head if head_on_cards else 0.0),
        in_host * per_layer + experts_moved + (0.0 if head_on_cards else head),
    )


def component_bytes(role: str, params: int, precision: Precision) -> float:
    """One component of an image or video pipeline; its VAE stays 16-bit."""
    bits = 16 if role == "vae" else precision.bits_per_weight
    return params * bits / 8


def model_weight_bytes(model: Llm | DiffusionModel, precision: Precision) -> float:
    """Bytes of every weight of a catalog model in a catalog format."""
    require_precision(model, precision)
    if isinstance(model, DiffusionModel):
        return sum(component_bytes(c.role, c.params, precision) for c in model.components)
    return weight_bytes(llm_shape(model), checkpoint_precision(model, precision))


# --- KV cache ----------------------------------------------------------------------------------------------
def kv_heads_per_card(model: LlmShape, cards: int) -> float:
    """KV heads each card holds under a ``cards``-way split; replicated when the split exceeds them."""
    return max(model.kv_heads / cards, 1)


def kv_bytes_per_token_per_layer(model: LlmShape, cards: int, bytes_per_element: float) -> float:
    if isinstance(model.attention, MlaAttention):
        # One latent vector per layer, kept whole on every card of the split.
        return (model.attention.kv_lora_rank + model.attention.qk_rope_head_dim) * bytes_per_element
    return 2 * kv_heads_per_card(model, cards) * model.head_dim * bytes_per_element


def kv_bytes_per_token(model: LlmShape, bytes_per_element: float, cards: int = 1) -> float:
    """``2 × layers × kv_heads × head_dim × bytes`` (MLA: ``layers × (rank + rope) × bytes``), per card."""
    return model.layers * kv_bytes_per_token_per_layer(model, cards, bytes_per_element)


def kv_layer_tokens(model: LlmShape, context_tokens: int) -> int:
    """Layer × token pairs that hold a KV entry at ``context_tokens``: sliding-window layers hold at most the
    window, Mamba layers of a hybrid none."""
    if isinstance(model.attention, SlidingAttention):
        local_layers = model.layers - model.attention.global_layers
        return model.attention.global_layers * context_tokens + local_layers * min(
            context_tokens, model.attention.window_tokens
        )
    if isinstance(model.attention, HybridAttention):
        return model.attention.kv_layers * context_tokens
    return model.layers * context_tokens


UNBOUNDED_CONTEXT = 2**62  # every layer of the model keeps a window: any context holds the same


def context_holding(model: LlmShape, layer_tokens: float) -> int:
    """The longest context whose layer × token pairs (``kv_layer_tokens``) stay within ``layer_tokens``, the
    inverse of ``kv_layer_tokens`` (0 when not one token; ``UNBOUNDED_CONTEXT`` when only windows keep a cache)."""
    if isinstance(model.attention, SlidingAttention):
        window, global_layers = model.attention.window_tokens, model.attention.global_layers
        if layer_tokens <= model.layers * window:  # within the window every layer holds every token
            return max(0, math.floor(layer_tokens / model.layers))
        if global_layers == 0:
            return UNBOUNDED_CONTEXT
        return math.floor((layer_tokens - (model.layers - global_layers) * window) / global_layers)
    layers = model.attention.kv_layers if isinstance(model.attention, HybridAttention) else model.layers
    return max(0, math.floor(layer_tokens / layers))


def longest_context_within(
    model: LlmShape,
    kv_bytes_per_card: float,
    batch: int,
    bytes_per_element: float,
    cards: int,
    parallelism: Parallelism,
) -> int:
    """The longest context whose KV cache of ``batch`` sequences stays within ``kv_bytes_per_card`` on each card
    of the split (the inverse of ``kv_cache_bytes_per_card``)."""
    if kv_bytes_per_card <= 0:
        return 0
    per_layer = kv_bytes_per_token_per_layer(model, cards if parallelism == "tensor" else 1, bytes_per_element)
    per_layer_token = per_layer * batch / (cards if parallelism == "layers" else 1)
    found = context_holding(model, kv_bytes_per_card / per_layer_token)
    while found > 0 and kv_cache_bytes_per_card(model, found, batch, bytes_per_element, cards, parallelism) > (
        kv_bytes_per_card
    ):
        found -= 1  # a rounding of the division above
    return found


def kv_cache_bytes(model: LlmShape, context_tokens: int, batch: int, bytes_per_element: float, cards: int = 1) -> float:
    """KV cache one card holds for ``batch`` sequences of ``context_tokens`` under a tensor split of ``cards``
    (sliding windows honoured)."""
    per_layer = kv_bytes_per_token_per_layer(model, cards, bytes_per_element)
    return per_layer * kv_layer_tokens(model, context_tokens) * batch


def kv_cache_bytes_layer_split(
    model: LlmShape, context_tokens: int, batch: int, bytes_per_element: float, cards: int = 1
) -> float:
    """KV cache one card holds when the layers are shared out (llama.cpp's layer split): every KV head of its
    ``1 / cards`` of the layers, never replicated, unlike a tensor split's heads."""
    return kv_cache_bytes(model, context_tokens, batch, bytes_per_element, 1) / cards


def kv_cache_bytes_per_card(
    model: LlmShape, context_tokens: int, batch: int, bytes_per_element: float, cards: int, parallelism: Parallelism
) -> float:
    """KV cache one card holds under the split the engine makes: its KV heads (tensor) or its layers (layers)."""
    if parallelism == "layers":
        return kv_cache_bytes_layer_split(model, context_tokens, batch, bytes_per_element, cards)
    return kv_cache_bytes(model, context_tokens, batch, bytes_per_element, cards)
