"""The guides' charts, drawn at build time as inline SVG (see ``output.svg``) from the engine's results:
labels and ticks in the page's language, a title and a text alternative on every chart, same bytes on every
build."""

from __future__ import annotations

from markupsafe import Markup

from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.html import block
from macros.output.svg import BarChart, Chart, ScatterChart, draw
from sizing.catalog.schema import Node
from sizing.catalog.units import GIB
from sizing.engine.fit import card_budget, llm_need
from sizing.views.comparisons import nodes_that_hold

COLOURS = {"nvlink": "#3949ab", "pcie": "#8d6e63"}
# the memory chart: each engine's bars and the dashed line of its budget (a server engine, then llama.cpp)
ENGINE_COLOURS = {"server": ("#3949ab", "#c62828"), "llama.cpp": ("#8d6e63", "#2e7d32")}


_t = section_text("charts")


def _items(ctx: MacroContext, items: list[tuple[str, str]]) -> str:
    """ "NVLink 4: 450 GB/s, PCIe Gen5: 63 GB/s" as the page's language punctuates it: a text alternative."""
    return _t(ctx, "separator").join(_t(ctx, "item", name=name, value=value) for name, value in items)


def _figure(chart: Chart, title: str, description: str) -> Markup:
    """The chart inline, with role img, its title and description (its accessible name and text), captioned."""
    return block(
        Markup('<figure class="chart">{}<figcaption>{}</figcaption></figure>').format(
            Markup(draw(chart, title, description)), title
        )
    )


def _speed_of(ctx: MacroContext, model: str, precision: str, node: Node) -> float:
    """The typical speed of one stream on a node that holds the model."""
    return ctx.layout_at(model, precision, node.id).typical


@macro
def chart_links(ctx: MacroContext) -> Markup:
    """A bar chart of every link's bandwidth per card, one direction, fastest on top."""
    used = {n.link.interconnect for n in ctx.catalog.nodes.values() if n.cards > 1}
    # fastest first, ties by name: never the order of a set, which changes with the hash seed
    links = sorted((ctx.catalog.interconnects[i] for i in used), key=lambda link: (-link.per_direction_gbps, link.name))
    values = tuple(link.per_direction_gbps for link in links)
    chart = BarChart(
        ctx.lang,
        tuple(link.name for link in links),
        values,
        tuple(ctx.f.gbps(v) for v in values),
        tuple(COLOURS[link.family] for link in links),
        _t(ctx, "links_axis"),
    )
    items = _items(ctx, [(link.name, ctx.f.gbps(link.per_direction_gbps)) for link in links])
    return _figure(chart, _t(ctx, "links_title"), _t(ctx, "links_desc", items=items))


@macro
def chart_floor_price(ctx: MacroContext, model: str, precision: str) -> Markup:
    """A scatter plot of the nodes that hold a model: monthly price against typical speed of one stream."""
    llm, prec = ctx.llm(model), ctx.precision(precision)
    nodes = nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
    speeds = [_speed_of(ctx, model, precision, n) for n in nodes]
    families = [ctx.catalog.interconnect_of(n).family if n.cards > 1 else "pcie" for n in nodes]
    chart = ScatterChart(
        ctx.lang,
        tuple(
            (n.price_per_month.amount, speed, COLOURS[family], ctx.node_label(n))
            for n, speed, family in zip(nodes, speeds, families, strict=True)
        ),
        _t(ctx, "floor_x"),
        _t(ctx, "floor_y"),
        ((COLOURS["nvlink"], _t(ctx, "legend_nvlink")), (COLOURS["pcie"], _t(ctx, "legend_pcie"))),
    )
    items = _items(
        ctx,
        [
            (ctx.node_label(n), _t(ctx, "pair", first=ctx.monthly_price(n), second=ctx.f.tokens_per_s(s)))
            for n, s in zip(nodes, speeds, strict=True)
        ],
    )
    title = _t(ctx, "floor_title", model=llm.name, precision=prec.name)
    return _figure(chart, title, _t(ctx, "floor_desc", model=llm.name, precision=prec.name, items=items))


@macro
def chart_memory(ctx: MacroContext, model: str, gpu: str) -> Markup:
    """A bar chart of the memory a model needs on one card in each format, against what the engine that runs
    the format may use of the card: a server engine's share for BF16, FP8 and INT4, all of it for llama.cpp's
    GGUF. A format run by another engine than the first is named with its engine."""
    llm, card = ctx.llm(model), ctx.gpu(gpu)
    precisions = ctx.catalog.precisions_for(llm)
    engines = [ctx.catalog.engine_of(p) for p in precisions]
    needs = tuple(
        llm_need(ctx.catalog, llm, p, ctx.catalog.assumptions.default_context_tokens.value, 1, 1, gpu=card).total / GIB
        for p in precisions
    )
    need_texts = tuple(ctx.f.gib(v) for v in needs)
    used = [ctx.catalog.engines[i] for i in dict.fromkeys(engine.id for engine in engines)]  # formats' order
    budgets = [(engine, card_budget(ctx.catalog, card, engine) / GIB) for engine in used]
    markers = tuple(
        (budget, _t(ctx, "memory_budget", engine=engine.name, budget=ctx.f.gib(budget)), ENGINE_COLOURS[engine.kind][1])
        for engine, budget in budgets
    )
    labels = tuple(
        p.name if engine is used[0] else _t(ctx, "memory_bar_engine", format=p.name, engine=engine.name)
        for p, engine in zip(precisions, engines, strict=True)
    )
    chart = BarChart(
        ctx.lang,
        labels,
        needs,
        need_texts,
        tuple(ENGINE_COLOURS[e.kind][0] for e in engines),
        _t(ctx, "memory_axis"),
        markers,
    )
    items = _items(ctx, [(label, need) for label, need in zip(labels, need_texts, strict=True)])
    budget_items = _items(ctx, [(engine.name, ctx.f.gib(budget)) for engine, budget in budgets])
    title = _t(ctx, "memory_title", model=llm.name)
    return _figure(
        chart, title, _t(ctx, "memory_desc", model=llm.name, card=card.short_name, budget=budget_items, items=items)
    )
