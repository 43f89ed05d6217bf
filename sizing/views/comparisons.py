"""Comparisons the sizing guides draw, on top of the verdicts and speeds: compute per dollar of one job (every
card it occupies counted), the card with more memory than the cheapest, every format on the same cards, the
node with the lowest cost per million output tokens, and the KV cache in another element format."""

from __future__ import annotations

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Gpu, Llm, Node, Precision
from sizing.engine.decode import PrecisionSpec, tensor_tflops
from sizing.engine.fit import Fit, fit_llm_on, split_needs
from sizing.engine.memory import kv_cache_bytes
from sizing.engine.scenarios import gpu_spec
from sizing.engine.speeds import Speed, speed_for_fit
from sizing.views.choices import CardChoice
from sizing.views.matrix import VerdictMatrix


# --- image and video: compute per dollar -------------------------------------------------------------------
def format_tflops(gpu: Gpu, precision: Precision) -> float:
    """Dense TFLOPS a card computes a format at: FP8 tensor cores for an FP8 format on a card that has them,
    16-bit tensor cores otherwise (``decode.tensor_tflops``)."""
    spec = PrecisionSpec(precision.bits_per_weight, precision.keeps_embeddings_16bit, None, precision.compute_format)
    return tensor_tflops(gpu_spec(gpu), spec)


def tflops_per_dollar_per_job(choice: CardChoice, precision: Precision) -> float:
    """One job's compute per dollar of GPU-hour: the denoiser's card computes, but every card the job occupies
    is paid for (a pipeline with its text encoders on a second card costs two cards per job)."""
    return format_tflops(choice.gpu, precision) / (choice.price_per_gpu_hour * choice.fit.cards)


def roomier_choice(choices: list[CardChoice]) -> CardChoice | None:
    """The cheapest of ``choices`` (cheapest first) with more memory than the first, None if there is none."""
    first = choices[0]
    return next((c for c in choices[1:] if c.gpu.memory_gb > first.gpu.memory_gb), None)


# --- language models: every format on the same cards -------------------------------------------------------
def fit_on_cards(
    catalog: Catalog, model: Llm, precision: Precision, gpu: Gpu, cards: int, context_tokens: int | None = None
) -> Fit | None:
    """The verdict on exactly ``cards`` cards (one copy of the model spread over all of them), None when the
    format's engine cannot split the model that way."""
    needs = split_needs(catalog, model, precision, cards, context_tokens, gpu=gpu)
    if cards not in needs:
        return None
    return fit_llm_on(catalog, model, precision, gpu, cards, context_tokens, needs={cards: needs[cards]})


def speed_on_cards(
    catalog: Catalog, model: Llm, precision: Precision, node: Node, cards: int, context_tokens: int | None = None
) -> Speed | None:
    """Decode speed of one copy of the model spread over exactly ``cards`` cards of ``node``, so that formats
    compare on the same hardware; None when it cannot run on them."""
    context_tokens = catalog.assumptions.default_context_tokens.value if context_tokens is None else context_tokens
    fit = fit_on_cards(catalog, model, precision, catalog.gpu_of(node), cards, context_tokens)
    if fit is None or not fit.fits:
        return None
    return speed_for_fit(catalog, model, precision, node, fit, context_tokens)


# --- language models: what a million tokens cost -----------------------------------------------------------
def lowest_cost_node(
    catalog: Catalog, matrix: VerdictMatrix, nodes: list[Node], model_id: str, precision_id: str
) -> tuple[Node, float] | None:
    """Of ``nodes``, the one whose million output tokens cost least at full load, with that price."""
    priced = []
    for node in nodes:
        speed = matrix.cell(model_id, precision_id, node.id).speed
        price = speed.price_per_million_tokens(catalog, node) if speed is not None else None
        if price is not None:
            priced.append((price, node.price_per_month.amount, node.id, node))
    if not priced:
        return None
    price, _, _, node = min(priced)
    return node, price


# --- the KV cache in another format ------------------------------------------------------------------------
def kv_cache_bytes_in(model: Llm, context_tokens: int, precision: Precision) -> float:
    """KV cache of one sequence stored in ``precision``'s element size (an FP8 cache: one byte per element)."""
    return kv_cache_bytes(model, context_tokens, 1, precision.bits_per_weight / 8)
