"""Decode throughput floor: single stream, bandwidth-bound, deliberately conservative."""
from __future__ import annotations

from .catalog import Catalog
from .fit import Fit
from .memory import kv_cache_bytes, weight_bytes_read_per_token
from .schema import Gpu, Llm, Precision
from .units import GB


def decode_floor(efficiency: float, cards: int, bandwidth_gbps: float, weight_bytes_read: float,
                 kv_bytes_per_card: float = 0.0) -> float:
    """Tokens per second: ``η × k × BW / bytes read per token``, each card reading its share of the
    weights plus the KV cache it holds (written per card so that replicated KV heads are counted)."""
    per_card_bytes = weight_bytes_read / cards + kv_bytes_per_card
    return efficiency * bandwidth_gbps * GB / per_card_bytes


def llm_decode_floor(catalog: Catalog, model: Llm, precision: Precision, gpu: Gpu, cards: int,
                     context_tokens: int | None = None) -> float:
    """Floor for ``model`` split across ``cards`` cards of ``gpu``, batch 1, at ``context_tokens``."""
    a = catalog.assumptions
    context_tokens = a.default_context_tokens.value if context_tokens is None else context_tokens
    kv = kv_cache_bytes(model, context_tokens, 1, a.kv_cache_bytes_per_element.value, cards)
    return decode_floor(a.decode_bandwidth_efficiency.value, cards, gpu.memory_bandwidth_gbps,
                        weight_bytes_read_per_token(model, precision), kv)


def floor_for_fit(catalog: Catalog, model: Llm, precision: Precision, gpu: Gpu, fit: Fit,
                  context_tokens: int | None = None) -> float | None:
    """The floor on the cards a fit verdict uses; None when the model does not fit."""
    if not fit.fits:
        return None
    return llm_decode_floor(catalog, model, precision, gpu, fit.cards, context_tokens)
