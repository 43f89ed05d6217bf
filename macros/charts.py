"""The guides' charts, drawn at build time as inline SVG (see ``chart_drawing``) from the engine's results:
labels and ticks in the page's language, a title and a text alternative on every chart, same bytes on every
build."""
from __future__ import annotations

from markupsafe import Markup

from sizing.choices import nodes_that_hold
from sizing.fit import card_budget, llm_need
from sizing.units import GIB

from .chart_drawing import BarChart, Chart, ScatterChart, draw
from .library import Macros, macro
from .strings import text
from .tables import block

COLOURS = {"nvlink": "#3949ab", "pcie": "#8d6e63", "bar": "#3949ab", "budget": "#c62828"}


def _t(m: Macros, key: str, **values: object) -> str:
    return text("charts", key, m.lang, **values)


def _figure(chart: Chart, title: str, description: str) -> Markup:
    """The chart inline, with role img, its title and description (its accessible name and text), captioned."""
    return block(Markup('<figure class="chart">{}<figcaption>{}</figcaption></figure>').format(
        Markup(draw(chart, title, description)), title))


@macro
def chart_links(self: Macros) -> Markup:
    """A bar chart of every link's bandwidth per card, one direction, fastest on top."""
    used = {n.link.interconnect for n in self.catalog.nodes.values() if n.cards > 1}
    # fastest first, ties by name: never the order of a set, which changes with the hash seed
    links = sorted((self.catalog.interconnects[i] for i in used),
                   key=lambda link: (-link.per_direction_gbps, link.name))
    values = tuple(link.per_direction_gbps for link in links)
    chart = BarChart(self.lang, tuple(link.name for link in links), values, tuple(self._gbps(v) for v in values),
                     tuple(COLOURS[link.family] for link in links), _t(self, "links_axis"))
    items = ", ".join(f"{link.name}: {self._gbps(link.per_direction_gbps)}" for link in links)
    return _figure(chart, _t(self, "links_title"), _t(self, "links_desc", items=items))


@macro
def chart_floor_price(self: Macros, model: str, precision: str) -> Markup:
    """A scatter plot of the nodes that hold a model: monthly price against throughput floor."""
    llm, prec = self._llm(model), self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    speeds = [self._cell(model, precision, n.id).tokens_per_s for n in nodes]
    families = [self.catalog.interconnect_of(n).family if n.cards > 1 else "pcie" for n in nodes]
    chart = ScatterChart(
        self.lang,
        tuple((n.price_per_month.amount, speed, COLOURS[family], self._node_label(n))
              for n, speed, family in zip(nodes, speeds, families)),
        _t(self, "floor_x"), _t(self, "floor_y"),
        ((COLOURS["nvlink"], _t(self, "legend_nvlink")), (COLOURS["pcie"], _t(self, "legend_pcie"))))
    items = ", ".join(f"{self._node_label(n)}: {self.price(n.id)}, {self._tokens(s)}" for n, s in zip(nodes, speeds))
    title = _t(self, "floor_title", model=llm.name, precision=prec.name)
    return _figure(chart, title, _t(self, "floor_desc", model=llm.name, precision=prec.name, items=items))


@macro
def chart_memory(self: Macros, model: str, gpu: str) -> Markup:
    """A bar chart of the memory a model needs on one card in each format, against one card's budget."""
    llm, card = self._llm(model), self._gpu(gpu)
    precisions = self.catalog.precisions_for(llm)
    needs = tuple(llm_need(self.catalog, llm, p, self.catalog.assumptions.default_context_tokens.value, 1, 1).total
                  / GIB for p in precisions)
    budget = card_budget(self.catalog, card) / GIB
    budget_text = self.f.unit("gib", self.f.number(budget, 1))
    need_texts = tuple(self.f.unit("gib", self.f.number(v, 1)) for v in needs)
    marker = (budget, _t(self, "memory_budget", card=card.short_name, budget=budget_text), COLOURS["budget"])
    chart = BarChart(self.lang, tuple(p.name for p in precisions), needs, need_texts,
                     (COLOURS["bar"],) * len(needs), _t(self, "memory_axis"), marker)
    items = ", ".join(f"{p.name}: {need}" for p, need in zip(precisions, need_texts))
    title = _t(self, "memory_title", model=llm.name)
    return _figure(chart, title, _t(self, "memory_desc", model=llm.name, card=card.short_name,
                                    budget=budget_text, items=items))
