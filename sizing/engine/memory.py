"""Bytes of weights and of KV cache, per precision and per card of a split."""

from __future__ import annotations

from typing import Protocol

from sizing.catalog.errors import SizingError
from sizing.catalog.schema import DiffusionModel, HybridAttention, Llm, MlaAttention, Precision, SlidingAttention

SIXTEEN_BIT_BYTES = 2
EIGHT_BIT_BYTES = 1  # an FP8 element (a KV cache kept in FP8)


class LlmShape(Protocol):
    """What the KV and embedding formulas read: a models.yml ``Llm`` or a ``decode.ModelSpec``."""

    layers: int
    hidden_size: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    tie_word_embeddings: bool
    attention: MlaAttention | SlidingAttention | HybridAttention | None


def require_precision(model: Llm | DiffusionModel, precision: Precision) -> None:
    if model.kind not in precision.applies_to:
        raise SizingError(f"precision '{precision.id}' does not apply to {model.kind} model '{model.id}'")


def embedding_params(model: Llm | LlmShape) -> int:
    """Input embeddings plus output head (one matrix when tied)."""
    return model.vocab_size * model.hidden_size * (1 if model.tie_word_embeddings else 2)


def _llm_bytes(model: Llm, params: int, precision: Precision) -> float:
    if not precision.keeps_embeddings_16bit:
        return params * precision.bits_per_weight / 8
    embeddings = embedding_params(model)
    return (params - embeddings) * precision.bits_per_weight / 8 + embeddings * SIXTEEN_BIT_BYTES


def weight_bytes(model: Llm | DiffusionModel, precision: Precision) -> float:
    """Bytes of every weight held in memory (MoE: all experts). A diffusion VAE stays 16-bit."""
    require_precision(model, precision)
    if isinstance(model, DiffusionModel):
        return sum(component_bytes(c.role, c.params, precision) for c in model.components)
    return _llm_bytes(model, model.params, precision)


def component_bytes(role: str, params: int, precision: Precision) -> float:
    bits = 16 if role == "vae" else precision.bits_per_weight
    return params * bits / 8


def weight_bytes_read_per_token(model: Llm, precision: Precision) -> float:
    """Bytes of weights one decode step reads: all for a dense model, the active parameters for MoE."""
    require_precision(model, precision)
    return _llm_bytes(model, model.params_read_per_token, precision)


def kv_heads_per_card(model: Llm | LlmShape, cards: int) -> float:
    """KV heads each card holds under a ``cards``-way split; replicated when the split exceeds them."""
    return max(model.kv_heads / cards, 1)


def kv_bytes_per_token_per_layer(model: Llm | LlmShape, cards: int, bytes_per_element: float) -> float:
    if isinstance(model.attention, MlaAttention):
        # One latent vector per layer, kept whole on every card of the split.
        return (model.attention.kv_lora_rank + model.attention.qk_rope_head_dim) * bytes_per_element
    return 2 * kv_heads_per_card(model, cards) * model.head_dim * bytes_per_element


def kv_bytes_per_token(model: Llm, bytes_per_element: float, cards: int = 1) -> float:
    """``2 × layers × kv_heads × head_dim × bytes`` (MLA: ``layers × (rank + rope) × bytes``), per card."""
    return model.layers * kv_bytes_per_token_per_layer(model, cards, bytes_per_element)


def kv_layer_tokens(model: Llm | LlmShape, context_tokens: int) -> int:
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


def kv_cache_bytes(
    model: Llm | LlmShape, context_tokens: int, batch: int, bytes_per_element: float, cards: int = 1
) -> float:
    """KV cache one card holds for ``batch`` sequences of ``context_tokens`` (sliding windows honoured)."""
    per_layer = kv_bytes_per_token_per_layer(model, cards, bytes_per_element)
    return per_layer * kv_layer_tokens(model, context_tokens) * batch


def kv_cache_bytes_layer_split(
    model: Llm | LlmShape, context_tokens: int, batch: int, bytes_per_element: float, cards: int = 1
) -> float:
    """KV cache one card holds when the layers are shared out (llama.cpp's layer split): every KV head of its
    ``1 / cards`` of the layers, never replicated, unlike a tensor split's heads."""
    return kv_cache_bytes(model, context_tokens, batch, bytes_per_element, 1) / cards
