"""Tables comparing the catalog's links and nodes, and what `nvidia-smi topo -m` shows on each NVLink node."""

from __future__ import annotations

from markupsafe import Markup

from macros.library.catalog_figures import memory_bandwidth, price, total_memory
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.html import code, table
from macros.output.strings import text
from sizing.catalog.schema import Node


@macro
def link_table(ctx: MacroContext) -> str:
    """Every link between the cards of our nodes: where to get it, bandwidth each way and both ways."""
    groups: dict[tuple[str, str], dict[str, set[int]]] = {}
    hardware = [c.cheapest for c in ctx.catalog.configurations.values()]  # each kind of node once
    for node in hardware:
        if node.cards > 1:
            offers = groups.setdefault((node.link.interconnect, node.link.topology), {})
            offers.setdefault(node.gpu, set()).add(node.cards)
    order = sorted(groups, key=lambda k: (-ctx.catalog.interconnects[k[0]].per_direction_gbps, k[0], k[1]))
    rows = []
    for link_id, topology in order:
        link = ctx.catalog.interconnects[link_id]
        where = ctx.f.join(
            [
                text(
                    "tables",
                    "offer",
                    ctx.lang,
                    gpu=ctx.catalog.gpus[gpu].short_name,
                    counts=_card_counts(ctx, sorted(counts)),
                )
                for gpu, counts in groups[(link_id, topology)].items()
            ]
        )
        peer = next(
            (
                n.link.peer_per_direction_gbps
                for n in hardware
                if n.link.interconnect == link_id and n.link.topology == topology and n.link.peer_per_direction_gbps
            ),
            None,
        )
        shape = text("topologies", topology, ctx.lang, peer=ctx.f.gbps(peer) if peer else "")
        rows.append(
            [
                ctx.link_label(link, topology),
                where,
                ctx.f.gbps(link.per_direction_gbps),
                ctx.f.gbps(link.both_directions_gbps),
                shape,
            ]
        )
    headers = [text("tables", k, ctx.lang) for k in ("link", "where", "each_way", "both_ways", "topology")]
    return table(text("tables", "link_caption", ctx.lang), headers, rows)


def _card_counts(ctx: MacroContext, counts: list[int]) -> str:
    numbers = [ctx.f.number(c) for c in sorted(counts)]
    return ctx.f.unit("card_counts", ctx.f.join(numbers, "or"))


@macro
def node_comparison(ctx: MacroContext, nodes: list[str], model: str, precision: str) -> str:
    """Nodes side by side: link, total memory, bandwidth per card, the model's speed, price."""
    picked = [ctx.node(n) for n in nodes]
    llm, prec = ctx.llm(model), ctx.precision(precision)
    rows: list[list[str | Markup]] = [
        [text("tables", "link_between", ctx.lang), *[_node_link(ctx, n) for n in picked]],
        [text("tables", "total_memory", ctx.lang), *[total_memory(ctx, n.id) for n in picked]],
        [text("tables", "bandwidth_per_card", ctx.lang), *[memory_bandwidth(ctx, n.id) for n in picked]],
    ]
    cells = [ctx.cell(model, precision, n.id) for n in picked]
    layouts = [c.layout for c in cells]
    hows = {None if x is None else ctx.layout_text(x, n) for x, n in zip(layouts, picked, strict=True)}
    how = next(iter(hows)) if len(hows) == 1 else None  # every node runs it the same way: say how, once
    label = (
        text("tables", "floor_row", ctx.lang, model=llm.name, precision=prec.name, how=how)
        if how is not None
        else text("tables", "floor_row_plain", ctx.lang, model=llm.name, precision=prec.name)
    )
    rows.append(
        [
            label,
            *[
                ctx.f.speed(c.layout.typical, c.layout.floor, in_a_cell=True)
                if c.layout is not None
                else ctx.verdict_text(c.fit)
                for c in cells
            ],
        ]
    )
    rows.append([text("tables", "price", ctx.lang), *[price(ctx, n.id) for n in picked]])
    headers = [text("tables", "node", ctx.lang), *[ctx.node_label(n, full=True) for n in picked]]
    return table(text("tables", "compare_caption", ctx.lang), headers, rows)


def _node_link(ctx: MacroContext, node: Node) -> str:
    link = ctx.catalog.interconnect_of(node)
    if node.cards == 1:
        return text("tables", "no_link", ctx.lang)
    each_way = ctx.f.gbps(link.per_direction_gbps)
    if node.link.peer_per_direction_gbps:
        return text(
            "tables",
            "via_mesh",
            ctx.lang,
            link=link.name,
            each_way=each_way,
            peer=ctx.f.gbps(node.link.peer_per_direction_gbps),
        )
    return text("tables", "via_link", ctx.lang, link=ctx.link_label(link, node.link.topology), each_way=each_way)


@macro
def topo_table(ctx: MacroContext) -> str:
    """For every NVLink configuration: what `nvidia-smi topo -m` should show (a label no public output of the
    hardware shows yet is marked expected) and the `-g` of all_reduce_perf."""
    rows = []
    for configuration in ctx.catalog.configurations.values():
        node = configuration.cheapest
        if node.link.topo_label is None:
            continue
        key = "pairs_only" if node.link.topology == "bridged-pairs" else "every_pair"
        expected = text("topo", key, ctx.lang, label=node.link.topo_label)
        if node.link.topo_label_inferred:
            expected = text("topo", "inferred", ctx.lang, expected=expected)
        rows.append([ctx.node_label(node), expected, ctx.f.number(node.cards)])
    headers = [
        text("tables", "node", ctx.lang),
        code_header(text("tables", "topo_between", ctx.lang)),
        code_header(text("tables", "topo_cards", ctx.lang)),
    ]
    return table(text("tables", "topo_caption", ctx.lang), headers, rows)


def code_header(label: str) -> Markup:
    """A header whose `backticked` parts are code."""
    parts = label.split("`")
    return Markup("").join(code(p) if i % 2 else p for i, p in enumerate(parts))
