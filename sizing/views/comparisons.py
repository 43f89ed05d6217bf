"""Comparisons the sizing guides draw across the catalog, on top of the verdicts and speeds: which cards hold a
model and what each costs per GPU-hour, which nodes hold it, compute per dollar of one job (every card it
occupies counted), the card with more memory than the cheapest, the node with the lowest cost per million
generated tokens, bits per parameter of a format and the KV cache in another element format."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DiffusionModel, Gpu, Llm, Node, Precision
from sizing.engine.decode import tensor_tflops
from sizing.engine.fit import VERDICT_RANK, Fit, Verdict, fit
from sizing.engine.memory import kv_cache_bytes, model_weight_bytes
from sizing.engine.specs import gpu_spec, llm_shape, precision_spec
from sizing.views.matrix import VerdictMatrix
from sizing.views.offers import price_per_gpu_hour


# --- which cards and nodes hold a model --------------------------------------------------------------------
@dataclass(frozen=True)
class CardChoice:
    gpu: Gpu
    fit: Fit  # on one card, or placed on a few cards of the GPU's largest node
    price_per_gpu_hour: float  # the cheapest per-card price among the nodes of this GPU


def cheapest_per_gpu_hour(catalog: Catalog, gpu: Gpu) -> float:
    return price_per_gpu_hour(catalog, catalog.cheapest_per_card_of[gpu.id])


def largest_node(catalog: Catalog, gpu: Gpu) -> Node:
    return catalog.largest_node_of[gpu.id]


def card_choices(catalog: Catalog, model: Llm | DiffusionModel, precision_id: str) -> list[CardChoice]:
    """Every card of the catalog that holds the model (alone or with a few of its kind), cheapest first."""
    precision = catalog.precisions[precision_id]
    choices = []
    for gpu in catalog.gpus.values():
        verdict = fit(catalog, model, precision, largest_node(catalog, gpu))
        if verdict.fits:
            price = cheapest_per_gpu_hour(catalog, gpu)
            choices.append(CardChoice(gpu, verdict, price))
    return sorted(choices, key=lambda c: (VERDICT_RANK[c.fit.verdict], c.price_per_gpu_hour, c.gpu.id))


def one_card_choices(catalog: Catalog, model: Llm | DiffusionModel, precision_id: str) -> list[CardChoice]:
    return [c for c in card_choices(catalog, model, precision_id) if c.fit.verdict is Verdict.ONE_CARD]


def nodes_that_hold(catalog: Catalog, matrix: VerdictMatrix, model_id: str, precision_id: str) -> list[Node]:
    """The cheapest node of each hardware configuration on which the model fits (one card or split),
    cheapest first."""
    held = [
        c.cheapest
        for c in catalog.configurations.values()
        if matrix.cell(model_id, precision_id, c.cheapest.id).fit.fits
    ]
    return sorted(held, key=lambda n: (n.price_per_month.amount, n.id))


def effective_bits_per_parameter(model: Llm, catalog: Catalog, precision_id: str) -> float:
    """Bits per parameter over the whole model, 16-bit embeddings and head included."""
    return model_weight_bytes(model, catalog.precisions[precision_id]) * 8 / model.params


# --- image and video: compute per dollar -------------------------------------------------------------------
def format_tflops(gpu: Gpu, precision: Precision) -> float:
    """Dense TFLOPS a card computes a format at: FP8 tensor cores for an FP8 format on a card that has them,
    16-bit tensor cores otherwise (``decode.tensor_tflops``)."""
    return tensor_tflops(gpu_spec(gpu), precision_spec(precision))


def tflops_per_dollar_per_job(choice: CardChoice, precision: Precision) -> float:
    """One job's compute per dollar of GPU-hour: the denoiser's card computes, but every card the job occupies
    is paid for (a pipeline with its text encoders on a second card costs two cards per job)."""
    return format_tflops(choice.gpu, precision) / (choice.price_per_gpu_hour * choice.fit.cards)


def roomier_choice(choices: list[CardChoice]) -> CardChoice | None:
    """The cheapest of ``choices`` (cheapest first) with more memory than the first, None if there is none."""
    first = choices[0]
    return next((c for c in choices[1:] if c.gpu.memory_gb > first.gpu.memory_gb), None)


# --- language models: what a million generated tokens cost -----------------------------------------------------------
def lowest_cost_node(
    catalog: Catalog, matrix: VerdictMatrix, nodes: list[Node], model_id: str, precision_id: str
) -> tuple[Node, float] | None:
    """Of ``nodes``, the one whose million output tokens cost least at full load, with that price."""
    priced = []
    hours = catalog.assumptions.hours_per_month.value
    for node in nodes:
        layout = matrix.cell(model_id, precision_id, node.id).layout
        price = None if layout is None else layout.price_per_million_tokens(node.price_per_month.amount, hours)
        if price is not None:
            priced.append((price, node.price_per_month.amount, node.id, node))
    if not priced:
        return None
    price, _, _, node = min(priced)
    return node, price


# --- the KV cache in another format ------------------------------------------------------------------------
def kv_cache_bytes_in(model: Llm, context_tokens: int, precision: Precision) -> float:
    """KV cache of one sequence stored in ``precision``'s element size (an FP8 cache: one byte per element)."""
    return kv_cache_bytes(llm_shape(model), context_tokens, 1, precision.bits_per_weight / 8)
