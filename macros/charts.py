"""Build-time SVG charts drawn by matplotlib from the engine's results: text stays text (the browser
renders Chinese with its own fonts), output is deterministic, and each chart carries a text alternative."""
from __future__ import annotations

import io
import re
import warnings

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from markupsafe import Markup  # noqa: E402

from sizing.choices import nodes_that_hold  # noqa: E402
from sizing.fit import card_budget, llm_need  # noqa: E402
from sizing.units import GIB  # noqa: E402

from .library import Macros, macro  # noqa: E402
from .strings import text  # noqa: E402
from .tables import block  # noqa: E402

STYLE = {
    "svg.fonttype": "none",          # keep text as <text>, so any script renders with the reader's fonts
    "svg.hashsalt": "gpu-node-guides",  # stable ids: two builds give the same bytes
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
COLOURS = {"nvlink": "#3949ab", "pcie": "#8d6e63", "bar": "#3949ab", "budget": "#c62828"}


def _t(m: Macros, key: str, **values: object) -> str:
    return text("charts", key, m.lang, **values)


def _svg(figure: plt.Figure, title: str, description: str) -> Markup:
    """The figure as inline SVG with role img, a title and a description; no size, no metadata."""
    buffer = io.StringIO()
    with plt.rc_context(STYLE), warnings.catch_warnings():
        # Chinese labels are measured with a Latin font's metrics; the browser draws them with its own fonts
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(figure)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r'<svg \1', svg, count=1)
    svg = svg.replace("<svg ", '<svg role="img" class="chart" ', 1)
    head = Markup('<title>{}</title><desc>{}</desc>').format(title, description)
    svg = re.sub(r"(<svg[^>]*>)", lambda match: match.group(1) + str(head), svg, count=1)
    return block(f'<figure class="chart">{svg}<figcaption>{Markup.escape(title)}</figcaption></figure>')


def _figure(height: float) -> plt.Figure:
    with plt.rc_context(STYLE):
        return plt.figure(figsize=(7, height))


@macro
def chart_links(self: Macros) -> Markup:
    """A bar chart of every link's bandwidth per card, one direction, side by side."""
    used = {n.link.interconnect for n in self.catalog.nodes.values() if n.cards > 1}
    # fastest first, ties by name: never the order of a set, which changes with the hash seed
    links = sorted((self.catalog.interconnects[i] for i in used),
                   key=lambda link: (-link.per_direction_gbps, link.name))
    bottom_up = links[::-1]  # barh draws the first bar at the bottom
    with plt.rc_context(STYLE):
        figure = _figure(0.45 * len(links) + 0.8)
        axes = figure.add_subplot()
        values = [link.per_direction_gbps for link in bottom_up]
        bars = axes.barh([link.name for link in bottom_up], values,
                         color=[COLOURS[link.family] for link in bottom_up])
        axes.bar_label(bars, labels=[self._gbps(v) for v in values], padding=3)
        axes.set_xlabel(_t(self, "links_axis"))
        axes.margins(x=0.15)
    items = ", ".join(f"{link.name}: {self._gbps(link.per_direction_gbps)}" for link in links)
    return _svg(figure, _t(self, "links_title"), _t(self, "links_desc", items=items))


@macro
def chart_floor_price(self: Macros, model: str, precision: str) -> Markup:
    """A scatter plot of the nodes that hold a model: monthly price against throughput floor."""
    llm, prec = self._llm(model), self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    points = [(n, self._cell(model, precision, n.id).tokens_per_s) for n in nodes]
    with plt.rc_context(STYLE):
        figure = _figure(4.2)
        axes = figure.add_subplot()
        for node, speed in points:
            family = self.catalog.interconnect_of(node).family if node.cards > 1 else "pcie"
            axes.scatter(node.price_per_month.amount, speed, color=COLOURS[family], s=28)
            axes.annotate(self._node_label(node), (node.price_per_month.amount, speed), fontsize=7,
                          xytext=(4, 3), textcoords="offset points")
        axes.set_xlabel(_t(self, "floor_x"))
        axes.set_ylabel(_t(self, "floor_y"))
    items = ", ".join(f"{self._node_label(n)}: {self.price(n.id)}, {self._tokens(s)}" for n, s in points)
    title = _t(self, "floor_title", model=llm.name, precision=prec.name)
    return _svg(figure, title, _t(self, "floor_desc", model=llm.name, precision=prec.name, items=items))


@macro
def chart_memory(self: Macros, model: str, gpu: str) -> Markup:
    """A bar chart of the memory a model needs on one card in each format, against one card's budget."""
    llm, card = self._llm(model), self._gpu(gpu)
    precisions = self.catalog.precisions_for(llm)
    needs = [llm_need(self.catalog, llm, p, self.catalog.assumptions.default_context_tokens.value, 1, 1).total / GIB
             for p in precisions]
    budget = card_budget(self.catalog, card) / GIB
    budget_text = self.f.unit("gib", self.f.number(budget, 1))
    with plt.rc_context(STYLE):
        figure = _figure(0.45 * len(precisions) + 0.9)
        axes = figure.add_subplot()
        bars = axes.barh([p.name for p in precisions], needs, color=COLOURS["bar"])
        axes.bar_label(bars, labels=[self.f.unit("gib", self.f.number(v, 1)) for v in needs], padding=3)
        axes.axvline(budget, color=COLOURS["budget"], linestyle="--")
        axes.text(budget, len(precisions) - 0.4, " " + _t(self, "memory_budget", card=card.short_name, budget=budget_text),
                  color=COLOURS["budget"], fontsize=8, va="bottom")
        axes.set_xlabel(_t(self, "memory_axis"))
        axes.invert_yaxis()
        axes.margins(x=0.15)
    items = ", ".join(f"{p.name}: {self.f.unit('gib', self.f.number(v, 1))}" for p, v in zip(precisions, needs))
    title = _t(self, "memory_title", model=llm.name)
    return _svg(figure, title, _t(self, "memory_desc", model=llm.name, card=card.short_name, budget=budget_text,
                                 items=items))
