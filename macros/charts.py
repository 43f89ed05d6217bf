"""The guides' charts as inline SVG drawn at build time from the engine's results: text stays text in the
page's language (the browser renders it with its own fonts), ticks are written the way the language writes
numbers, output is deterministic, and each chart carries a title and a text alternative.

``chart_geometry`` places the marks, ``templates/*.svg`` draw them."""
from __future__ import annotations

from functools import partial

from markupsafe import Markup

from sizing.choices import nodes_that_hold
from sizing.fit import card_budget, llm_need
from sizing.units import GIB

from .chart_geometry import bar_chart, scatter_chart
from .library import Macros, macro
from .strings import text
from .tables import TEMPLATES, block

COLOURS = {"nvlink": "#3949ab", "pcie": "#8d6e63", "bar": "#3949ab", "budget": "#c62828"}


def _t(m: Macros, key: str, **values: object) -> str:
    return text("charts", key, m.lang, **values)


def _tick_label(m: Macros, value: float) -> str:
    """A round tick value with the decimals it has (0.5 keeps one), written the page's way."""
    decimals = f"{value:g}".partition(".")[2]
    return m.f.number(value, len(decimals))


def _figure(template: str, chart: object, title: str, description: str) -> Markup:
    """A captioned figure holding the chart; the SVG's title and desc are its accessible name and text."""
    svg = TEMPLATES.get_template(template).render(c=chart, title=title, description=description)
    return block(Markup('<figure class="chart">{}<figcaption>{}</figcaption></figure>').format(
        Markup(svg.strip()), title))


@macro
def chart_links(self: Macros) -> Markup:
    """A bar chart of every link's bandwidth per card, one direction, fastest on top."""
    used = {n.link.interconnect for n in self.catalog.nodes.values() if n.cards > 1}
    # fastest first, ties by name: never the order of a set, which changes with the hash seed
    links = sorted((self.catalog.interconnects[i] for i in used),
                   key=lambda link: (-link.per_direction_gbps, link.name))
    values = [link.per_direction_gbps for link in links]
    chart = bar_chart([link.name for link in links], values, [self._gbps(v) for v in values],
                      [COLOURS[link.family] for link in links], partial(_tick_label, self), _t(self, "links_axis"))
    items = ", ".join(f"{link.name}: {self._gbps(link.per_direction_gbps)}" for link in links)
    return _figure("bar_chart.svg", chart, _t(self, "links_title"), _t(self, "links_desc", items=items))


@macro
def chart_floor_price(self: Macros, model: str, precision: str) -> Markup:
    """A scatter plot of the nodes that hold a model: monthly price against throughput floor."""
    llm, prec = self._llm(model), self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    speeds = [self._cell(model, precision, n.id).tokens_per_s for n in nodes]
    families = [self.catalog.interconnect_of(n).family if n.cards > 1 else "pcie" for n in nodes]
    chart = scatter_chart(
        [(n.price_per_month.amount, speed, COLOURS[family], self._node_label(n))
         for n, speed, family in zip(nodes, speeds, families)],
        lambda v: self.f.money(v, "USD"), partial(_tick_label, self), _t(self, "floor_x"), _t(self, "floor_y"),
        [(COLOURS["nvlink"], _t(self, "legend_nvlink")), (COLOURS["pcie"], _t(self, "legend_pcie"))])
    items = ", ".join(f"{self._node_label(n)}: {self.price(n.id)}, {self._tokens(s)}" for n, s in zip(nodes, speeds))
    title = _t(self, "floor_title", model=llm.name, precision=prec.name)
    return _figure("scatter_chart.svg", chart, title,
                   _t(self, "floor_desc", model=llm.name, precision=prec.name, items=items))


@macro
def chart_memory(self: Macros, model: str, gpu: str) -> Markup:
    """A bar chart of the memory a model needs on one card in each format, against one card's budget."""
    llm, card = self._llm(model), self._gpu(gpu)
    precisions = self.catalog.precisions_for(llm)
    needs = [llm_need(self.catalog, llm, p, self.catalog.assumptions.default_context_tokens.value, 1, 1).total / GIB
             for p in precisions]
    budget = card_budget(self.catalog, card) / GIB
    budget_text = self.f.unit("gib", self.f.number(budget, 1))
    need_texts = [self.f.unit("gib", self.f.number(v, 1)) for v in needs]
    marker = (budget, _t(self, "memory_budget", card=card.short_name, budget=budget_text), COLOURS["budget"])
    chart = bar_chart([p.name for p in precisions], needs, need_texts, [COLOURS["bar"]] * len(needs),
                      partial(_tick_label, self), _t(self, "memory_axis"), marker)
    items = ", ".join(f"{p.name}: {need}" for p, need in zip(precisions, need_texts))
    title = _t(self, "memory_title", model=llm.name)
    return _figure("bar_chart.svg", chart, title, _t(self, "memory_desc", model=llm.name, card=card.short_name,
                                                     budget=budget_text, items=items))
