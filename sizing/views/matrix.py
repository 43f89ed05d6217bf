"""Every verdict of the catalog, computed once per build: model × precision × context preset × node."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import KvCacheDtype, Llm, Node, Precision
from sizing.engine.fit import Fit, MemoryNeed, batch_budget_on, fit_diffusion, fit_llm_on, split_needs
from sizing.engine.reserve import BatchBudget
from sizing.engine.speeds import Speed, speed_for_fit

Key = tuple[str, str, int | None, str]  # model, precision, context tokens (None for diffusion), node


@dataclass(frozen=True)
class Cell:
    fit: Fit
    speed: Speed | None  # decode speed of a language model that fits; None otherwise


def context_presets(catalog: Catalog, model: Llm) -> list[int]:
    """The configurator's context presets that a model supports."""
    presets = catalog.assumptions.context_presets_tokens.value
    return [c for c in presets if c <= model.max_context_tokens]


class VerdictMatrix:
    """Lazily filled, shared table of verdicts with the KV cache in ``kv_cache_dtype``; ``cell`` computes a
    missing entry once."""

    def __init__(self, catalog: Catalog, kv_cache_dtype: KvCacheDtype = "bf16"):
        self.catalog = catalog
        self.kv_cache_dtype = kv_cache_dtype
        self._cells: dict[Key, Cell] = {}
        # A verdict and its floor depend on the GPU and the card count, not on which node (or price):
        # nodes sharing both share one computation. What a card needs for each split depends on the
        # model and on the engine's batch on the card (its class): one computation serves every GPU of a class.
        self._by_hardware: dict[tuple[str, str, int | None, str, int], Cell] = {}
        self._needs: dict[tuple[str, str, int, BatchBudget | None], dict[int, MemoryNeed]] = {}
        self._max_cards = max((n.cards for n in catalog.nodes.values()), default=1)

    def cell(self, model_id: str, precision_id: str, node_id: str, context_tokens: int | None = None) -> Cell:
        c = self.catalog
        model, precision, node = c.models[model_id], c.precisions[precision_id], c.nodes[node_id]
        tokens = c.assumptions.default_context_tokens.value if context_tokens is None else context_tokens
        key = (model_id, precision_id, tokens if isinstance(model, Llm) else None, node_id)  # images: no context
        found = self._cells.get(key)
        if found is None:
            hardware = (*key[:3], node.gpu, node.cards)
            found = self._by_hardware.get(hardware)
            if found is None:
                if isinstance(model, Llm):
                    found = self._llm_cell(model, precision, node, tokens)
                else:
                    found = Cell(fit_diffusion(c, model, precision, node), None)
                self._by_hardware[hardware] = found
            self._cells[key] = found
        return found

    def _llm_cell(self, model: Llm, precision: Precision, node: Node, context_tokens: int) -> Cell:
        c, gpu, dtype = self.catalog, self.catalog.gpu_of(node), self.kv_cache_dtype
        card_class = batch_budget_on(c.engine_of(precision), gpu, c)  # the engine's batch on this card
        needs_key = (model.id, precision.id, context_tokens, card_class)
        needs = self._needs.get(needs_key)
        if needs is None:
            needs = self._needs[needs_key] = split_needs(
                c, model, precision, self._max_cards, context_tokens, gpu=gpu, kv_cache_dtype=dtype
            )
        verdict = fit_llm_on(c, model, precision, gpu, node.cards, context_tokens, needs=needs, kv_cache_dtype=dtype)
        return Cell(verdict, speed_for_fit(c, model, precision, node, verdict, context_tokens))

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
