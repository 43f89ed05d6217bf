"""Comparisons the guides make across the catalog: which cards hold a model, what each costs per
GPU-hour and per unit of compute, which nodes hold a model, how formats compare."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DiffusionModel, Gpu, Llm, Node
from sizing.engine.fit import VERDICT_RANK, Fit, Verdict, fit
from sizing.engine.memory import weight_bytes
from sizing.views.matrix import VerdictMatrix
from sizing.views.offers import price_per_gpu_hour


@dataclass(frozen=True)
class CardChoice:
    gpu: Gpu
    fit: Fit  # on one card, or placed on a few cards of the GPU's largest node
    price_per_gpu_hour: float  # the cheapest per-card price among the nodes of this GPU
    tflops_per_dollar: float  # BF16 dense TFLOPS per dollar of GPU-hour: a speed-per-price proxy


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
            choices.append(CardChoice(gpu, verdict, price, gpu.bf16_dense_tflops / price))
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
    return weight_bytes(model, catalog.precisions[precision_id]) * 8 / model.params
