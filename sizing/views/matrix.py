"""Every verdict and deployment of the catalog, computed once per build: model × precision × context preset × node."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from sizing.catalog.configurations import hardware_key
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import KvCacheDtype, Llm, Node, Precision
from sizing.engine.deployment import Deployment, Layout, NodeCards, deploy
from sizing.engine.fit import Fit, MemoryNeed, batch_budget_on, fit_diffusion, fit_split, llm_query, nvswitch_splits
from sizing.engine.links import node_link
from sizing.engine.reserve import BatchBudget

Key = tuple[str, str, int | None, str]  # model, precision, context tokens (None for diffusion), node


@dataclass(frozen=True)
class Cell:
    """A model on a node: the verdict a reader is told, and for a language model how the node runs it."""

    fit: Fit
    deployment: Deployment | None = None

    @property
    def layout(self) -> Layout | None:
        """The layout the node runs (a language model that fits), None otherwise."""
        return None if self.deployment is None else self.deployment.chosen


def context_presets(catalog: Catalog, model: Llm) -> list[int]:
    """The configurator's context presets that a model supports."""
    presets = catalog.assumptions.context_presets_tokens.value
    return [c for c in presets if c <= model.max_context_tokens]


def node_cards(catalog: Catalog, node: Node) -> NodeCards:
    """A catalog node as the deployment reads it: its cards, the link a split over k of them crosses, its host."""
    links = tuple(node_link(catalog, node, k) if k else None for k in range(node.cards + 1))
    bandwidth = catalog.assumptions.host_memory_bandwidth_gbps.value
    return NodeCards(catalog.gpu_of(node), node.cards, links, bandwidth)


def deployment_on(
    catalog: Catalog,
    model: Llm,
    precision: Precision,
    node: Node,
    context_tokens: int | None = None,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> Deployment:
    """How ``node`` runs a language model of the catalog in a format at a context (the site's default unless
    given), the KV cache in ``kv_cache_dtype``."""
    splits = nvswitch_splits(catalog, node)
    query = llm_query(catalog, model, precision, catalog.gpu_of(node), context_tokens, kv_cache_dtype, splits)
    return deploy(query, node_cards(catalog, node))


class VerdictMatrix:
    """Lazily filled, shared table of verdicts and deployments with the KV cache in ``kv_cache_dtype``; ``cell``
    computes a missing entry once."""

    def __init__(self, catalog: Catalog, kv_cache_dtype: KvCacheDtype = "bf16"):
        self.catalog = catalog
        self.kv_cache_dtype = kv_cache_dtype
        self._cells: dict[Key, Cell] = {}
        # A verdict and a deployment depend on the node's hardware, not on which node (or price): nodes sharing it
        # share one computation. What a card needs for each split depends on the model and on the engine's batch
        # on the card (its class) and, where a format's kernels pad the weights by architecture, on that: one
        # computation serves every GPU of a class and architecture. The verdict of a split over k cards depends on
        # the card and on whether the split keeps NVSwitch buffers, not on the node's count: the 1, 2, 4 and 8-card
        # nodes of a GPU share it.
        self._by_hardware: dict[tuple[object, ...], Cell] = {}
        self._needs: dict[tuple[str, str, int, BatchBudget | None, str | None, int, bool], MemoryNeed] = {}
        self._split_fits: dict[tuple[str, str, int, str, int, bool], Fit] = {}

    def cell(self, model_id: str, precision_id: str, node_id: str, context_tokens: int | None = None) -> Cell:
        c = self.catalog
        model, precision, node = c.models[model_id], c.precisions[precision_id], c.nodes[node_id]
        tokens = c.assumptions.default_context_tokens.value if context_tokens is None else context_tokens
        key = (model_id, precision_id, tokens if isinstance(model, Llm) else None, node_id)  # images: no context
        found = self._cells.get(key)
        if found is None:
            hardware = (*key[:3], *hardware_key(node))
            found = self._by_hardware.get(hardware)
            if found is None:
                if isinstance(model, Llm):
                    found = self._llm_cell(model, precision, node, tokens)
                else:
                    found = Cell(fit_diffusion(c, model, precision, node))
                self._by_hardware[hardware] = found
            self._cells[key] = found
        return found

    def _llm_cell(self, model: Llm, precision: Precision, node: Node, context_tokens: int) -> Cell:
        c = self.catalog
        query = llm_query(
            c, model, precision, c.gpu_of(node), context_tokens, self.kv_cache_dtype, nvswitch_splits(c, node)
        )
        card_class = batch_budget_on(query.engine, query.gpu, c)  # the engine's batch on this card
        split_fits: dict[int, Fit] = {}
        for k in query.splits(node.cards):
            nvlink = k in query.nvswitch_splits
            fit_key = (model.id, precision.id, context_tokens, node.gpu, k, nvlink)
            found = self._split_fits.get(fit_key)
            if found is None:
                need_key = (model.id, precision.id, context_tokens, card_class, query.gpu.architecture, k, nvlink)
                need = self._needs.get(need_key)
                if need is None:
                    need = self._needs[need_key] = query.need(k)
                found = self._split_fits[fit_key] = fit_split(query, k, need)
            split_fits[k] = found
        deployment = deploy(query, node_cards(c, node), split_fits)
        return Cell(deployment.verdict, deployment)

    def combinations(self) -> Iterator[Key]:
        """Every combination the configurator offers, one per hardware configuration."""
        c = self.catalog
        for model in c.models.values():
            contexts: list[int | None] = [*context_presets(c, model)] if isinstance(model, Llm) else [None]
            for precision in c.precisions_for(model):
                for context in contexts:
                    for configuration_id in c.configurations:  # the id of its first node
                        yield model.id, precision.id, context, configuration_id

    @cached_property
    def everything(self) -> dict[Key, Cell]:
        """The full matrix (what the configurator data is built from)."""
        return {k: self.cell(k[0], k[1], k[3], k[2]) for k in self.combinations()}
