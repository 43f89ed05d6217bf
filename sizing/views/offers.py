"""What the configurator shows for one model: every configuration's verdict, speed, price and warnings,
sorted (a configuration is the nodes that share their hardware: one node each in today's catalog)."""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.configurations import Configuration
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Node, Price
from sizing.engine.deployment import Layout
from sizing.engine.fit import VERDICT_RANK, Fit, Verdict
from sizing.engine.links import node_bus_link
from sizing.views.matrix import Cell, VerdictMatrix

FP8_NOT_NATIVE = "fp8-not-native"
SPLIT_OVER_PCIE = "split-over-pcie"


@dataclass(frozen=True)
class Offer:
    configuration: Configuration
    fit: Fit
    layout: Layout | None  # language models that fit: how the node runs them
    jobs: int | None  # image and video models that fit: independent jobs the node runs at once
    warnings: tuple[str, ...]
    price_per_gpu_hour: float

    @property
    def node(self) -> Node:
        """The cheapest node of the configuration."""
        return self.configuration.cheapest

    @property
    def price_per_month(self) -> Price:
        """The price of the cheapest node of the configuration."""
        return self.node.price_per_month

    def price_per_million_tokens(self, catalog: Catalog) -> float | None:
        """What a million output tokens cost on the cheapest node at full load."""
        if self.layout is None:
            return None
        return self.layout.price_per_million_tokens(
            self.price_per_month.amount, catalog.assumptions.hours_per_month.value
        )


def warnings_for(catalog: Catalog, precision_id: str, node: Node, cell: Cell) -> tuple[str, ...]:
    """FP8 on a card without FP8 tensor cores; a tensor-parallel split, as the node runs it, whose all-reduces
    cross PCIe (an image pipeline spread over cards hands data over once per image, and llama.cpp's cards once per
    step)."""
    found = []
    fit, layout = cell.fit, cell.layout
    if fit.fits and catalog.gpu_of(node).architecture not in catalog.precisions[precision_id].native_on:
        found.append(FP8_NOT_NATIVE)
    if (
        layout is not None
        and layout.cards > 1
        and layout.setup.parallelism == "tensor"
        and node_bus_link(catalog, node, layout.cards).family == "pcie"
    ):
        found.append(SPLIT_OVER_PCIE)
    return tuple(found)


def price_per_gpu_hour(catalog: Catalog, node: Node) -> float:
    return node.price_per_month.amount / (node.cards * catalog.assumptions.hours_per_month.value)


def offers(
    catalog: Catalog, matrix: VerdictMatrix, model_id: str, precision_id: str, context_tokens: int | None = None
) -> list[Offer]:
    """Every configuration, the cheapest that holds the model on one card first, then splits, then no fit."""
    model = catalog.models[model_id]
    rows = []
    for configuration in catalog.configurations.values():
        node = configuration.cheapest
        cell = matrix.cell(model_id, precision_id, node.id, context_tokens)
        jobs = node.cards // cell.fit.cards if model.kind == "diffusion" and cell.fit.fits else None
        warnings = warnings_for(catalog, precision_id, node, cell)
        rows.append(
            Offer(
                configuration,
                cell.fit,
                cell.layout,
                jobs,
                warnings,
                price_per_gpu_hour(catalog, node),
            )
        )
    return sorted(rows, key=lambda o: (VERDICT_RANK[o.fit.verdict], o.price_per_month.amount, o.node.id))


def cheapest(rows: list[Offer], verdicts: set[Verdict]) -> Offer | None:
    """The cheapest offer whose verdict is one of ``verdicts``."""
    return min((o for o in rows if o.fit.verdict in verdicts), key=lambda o: o.price_per_month.amount, default=None)
