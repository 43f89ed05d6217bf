"""What a macro works with: the data, the page's language and place, docs/; the lookups of ids (an unknown
id is a MacroError with the closest valid ones) and the labels several families of macros write."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.base.links import PageLinks
from macros.output.formatting import Formatter, formatter
from macros.output.html import code
from macros.output.strings import text
from macros.site.site_data import SiteData
from sizing.catalog.configurations import Configuration
from sizing.catalog.errors import closest
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DiffusionModel, Gpu, Interconnect, Llm, Node, Precision
from sizing.engine.deployment import Layout
from sizing.engine.fit import Fit, Verdict, tight_setting
from sizing.engine.specs import LlmShape, llm_shape
from sizing.views.matrix import Cell, VerdictMatrix


@dataclass(frozen=True)
class MacroContext:
    data: SiteData
    lang: str
    links: PageLinks
    docs_dir: Path

    @property
    def catalog(self) -> Catalog:
        return self.data.catalog

    @property
    def matrix(self) -> VerdictMatrix:
        return self.data.matrix

    @property
    def f(self) -> Formatter:
        return formatter(self.lang)

    def text(self, group: str, key: str, **values: object) -> str:
        """A string of ``macros/output/strings.yml`` in the page's language."""
        return text(group, key, self.lang, **values)

    # --- ids -------------------------------------------------------------------------------------------
    def _lookup(self, kind: str, table: Mapping[str, Any], key: str) -> Any:
        if key in table:
            return table[key]
        near = closest(key, table)
        hint = (
            ("did you mean " + " or ".join(f"'{n}'" for n in near) + "?")
            if near
            else f"valid {kind} ids are listed in the writer's reference"
        )
        raise MacroError(f"unknown {kind} id '{key}'; {hint}")

    def node(self, node_id: str) -> Node:
        return self._lookup("node", self.catalog.nodes, node_id)

    def gpu(self, gpu_or_node: str) -> Gpu:
        """A GPU by its id, or the GPU of a node by the node's id."""
        if gpu_or_node in self.catalog.nodes:
            return self.catalog.gpu_of(self.catalog.nodes[gpu_or_node])
        return self._lookup("GPU", self.catalog.gpus, gpu_or_node)

    def model(self, model_id: str) -> Llm | DiffusionModel:
        return self._lookup("model", self.catalog.models, model_id)

    def llm(self, model_id: str) -> Llm:
        model = self.model(model_id)
        if not isinstance(model, Llm):
            raise MacroError(f"'{model_id}' is an image or video model; this macro needs a language model")
        return model

    def llm_shape(self, model_id: str) -> LlmShape:
        """The shape the engine's formulas read, of a language model of the catalog."""
        return llm_shape(self.llm(model_id))

    def diffusion_model(self, model_id: str) -> DiffusionModel:
        model = self.model(model_id)
        if not isinstance(model, DiffusionModel):
            raise MacroError(f"'{model_id}' is a language model; this macro needs an image or video model")
        return model

    def precision(self, precision_id: str) -> Precision:
        return self._lookup("precision", self.catalog.precisions, precision_id)

    def interconnect(self, link_id: str) -> Interconnect:
        return self._lookup("interconnect", self.catalog.interconnects, link_id)

    def cell(self, model_id: str, precision_id: str, node_id: str, context: int | None = None) -> Cell:
        """The verdict of a model in a precision on a node; MacroError when an id is unknown or the
        precision does not apply to the model."""
        model, precision = self.model(model_id), self.precision(precision_id)
        self.node(node_id)
        if model.kind not in precision.applies_to:
            raise MacroError(
                f"precision '{precision_id}' does not apply to '{model_id}'; use one of "
                + ", ".join(f"'{p.id}'" for p in self.catalog.precisions_for(model))
            )
        return self.matrix.cell(model_id, precision_id, node_id, context)

    def layout_at(self, model_id: str, precision_id: str | None, node_id: str, context: int | None = None) -> Layout:
        """How ``node`` runs a language model in a format (its default one when None) at a context; MacroError
        when an id is unknown or the node does not hold the model."""
        precision = precision_id or self.llm(model_id).default_precision
        cell = self.cell(model_id, precision, node_id, context)
        if cell.layout is None:
            raise MacroError(
                f"'{model_id}' in {precision} {self.verdict_text(cell.fit)} on '{node_id}' at this context: no "
                "speed; choose a node the configurator shows it running on"
            )
        return cell.layout

    def check_pair(self, model_id: str, precision_id: str) -> None:
        """MacroError unless both ids are known and the precision applies to the model."""
        self.cell(model_id, precision_id, next(iter(self.catalog.nodes)))

    # --- labels ----------------------------------------------------------------------------------------
    def monthly_price(self, node: Node) -> str:
        return self.f.unit("per_month", self.f.money(node.price_per_month.amount, node.price_per_month.currency))

    def verdict_text(self, fit: Fit) -> str:
        """ "split across 4 cards"; a tight fit says what makes it fit: "fits with --gpu-memory-utilization 0.95"."""
        if fit.verdict is not Verdict.TIGHT:
            return self.text("verdicts", fit.verdict.value, cards=self.f.number(fit.cards))
        if fit.tight_by in ("offload", "partial_load", "gpu_layers"):
            return self.text("tight", fit.tight_by, setting=tight_setting(self.catalog, fit))
        cards = self.f.number(fit.cards)
        several = "_cards" if fit.cards > 1 else ""
        tokens = None if fit.longest_context_tokens is None else self.f.number(fit.longest_context_tokens)
        setting = tight_setting(self.catalog, fit)
        if fit.tight_by == "context" or setting is None:
            return self.text("tight", "context" + several, cards=cards, tokens=tokens)
        text = self.text("tight", "utilization" + several, cards=cards, setting=setting)
        return text if tokens is None else text + self.text("tight", "or_context", tokens=tokens)

    def cards_text(self, per_copy: int, copies: int, cards: int) -> str:
        """How a node of ``cards`` cards holds ``copies`` copies of ``per_copy`` cards each: "on its single card",
        "one copy on each of its 4 cards", "split across its 4 cards", "split across 6 of its 8 cards", "2 copies,
        each split across 2 of its 4 cards"."""
        n = self.f.number
        if cards == 1:
            return self.text("layouts", "single")
        if per_copy == 1 and copies == cards:
            return self.text("layouts", "copies", cards=n(cards))
        if copies == 1:
            if per_copy == cards:
                return self.text("layouts", "split_all", cards=n(cards))
            return self.text("layouts", "split_some", used=n(per_copy), cards=n(cards))
        return self.text("layouts", "copies_split", copies=n(copies), per_copy=n(per_copy), cards=n(cards))

    def layout_text(self, layout: Layout, node: Node) -> str:
        """How ``node`` runs a language model (``cards_text``), with the setting its copies need, if any."""
        how = self.cards_text(layout.cards, layout.copies, node.cards)
        setting = tight_setting(self.catalog, layout.fit)
        return how if setting is None else self.text("layouts", "with_setting", how=how, setting=setting)

    def load_text(self, layout: Layout, node: Node, room: Mapping[str, str] | None = None) -> str:
        """What ``node`` serves at full load as the configurator writes it: how it runs the model (on a node of
        several cards), the streams, their typical total and a million tokens' cost; with ``room``, the memory a card
        keeps beside the weights and what one stream takes of it."""
        hours = self.catalog.assumptions.hours_per_month.value
        price = layout.price_per_million_tokens(node.price_per_month.amount, hours)
        if price is None:
            return self.text("configurator", "none")
        values = {
            "streams": self.f.streams(layout.streams),
            "total": self.f.speed_number(layout.total),
            "price": self.f.money(price, "USD", digits=2),
        }
        load = self.text("configurator", "load" if room is None else "load_room", **values, **(room or {}))
        if node.cards == 1:
            return load
        return self.text("configurator", "load_as", how=self.layout_text(layout, node), load=load)

    def node_label(self, node: Node, full: bool = False) -> str:
        """ "4 × A100 80GB PCIe": the card count and the GPU's short name (its full name with ``full``)."""
        gpu = self.catalog.gpu_of(node)
        return self.text("units", "node_name", cards=node.cards, gpu=gpu.name if full else gpu.short_name)

    def link_label(self, link: Interconnect, topology: str) -> str:
        qualifier = self.text("topology_short", topology)
        return self.text("tables", "link_qualified", link=link.name, qualifier=qualifier) if qualifier else link.name

    def configuration_ids(self, configuration: Configuration) -> Markup:
        """A configuration's id (its first node's), and how many offers share its hardware."""
        if len(configuration.nodes) == 1:
            return code(configuration.id)
        return Markup("{} {}").format(
            code(configuration.id),
            self.text("reference", "offers_of_hardware", count=self.f.number(len(configuration.nodes))),
        )


def section_text(group: str) -> Callable[..., str]:
    """A macro module's shortcut to its own group of ``strings.yml``: ``_t = section_text("links")``, then
    ``_t(ctx, "key", value=...)``."""

    def text_of(ctx: MacroContext, key: str, **values: object) -> str:
        return ctx.text(group, key, **values)

    return text_of
