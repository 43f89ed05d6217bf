"""Figures of the catalog and of the calculations on it: counts, names, prices, memory, bandwidths, link
ratios, all-reduce volumes and times, verdicts and decode speeds."""

from __future__ import annotations

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.typography import held_name
from sizing.engine import links


@macro
def node_count(ctx: MacroContext) -> str:
    """How many node configurations the catalog offers."""
    return ctx.f.number(len(ctx.catalog.nodes))


@macro
def max_cards(ctx: MacroContext) -> str:
    """The most cards any node has."""
    return ctx.f.number(max(n.cards for n in ctx.catalog.nodes.values()))


@macro
def cards(ctx: MacroContext, node: str) -> str:
    """How many cards a node has."""
    return ctx.f.number(ctx.node(node).cards)


@macro
def node_name(ctx: MacroContext, node: str) -> str:
    """A node's name: its card count and GPU."""
    return ctx.node_label(ctx.node(node))


@macro
def gpu_name(ctx: MacroContext, gpu: str) -> str:
    """A GPU's short name (a GPU id, or a node id for its GPU)."""
    return ctx.gpu(gpu).short_name


@macro
def model_name(ctx: MacroContext, model: str) -> str:
    """A model's name (on one line in Chinese: typography.held_name)."""
    return held_name(ctx.model(model).name, ctx.lang)


@macro
def layers(ctx: MacroContext, model: str) -> str:
    """How many transformer layers a language model has."""
    return ctx.f.number(ctx.llm(model).layers)


@macro
def price(ctx: MacroContext, node: str) -> str:
    """A node's monthly price."""
    return ctx.monthly_price(ctx.node(node))


@macro
def price_gap(ctx: MacroContext, node: str, other: str) -> str:
    """How much more one node costs than another per month (absolute difference)."""
    a, b = ctx.node(node), ctx.node(other)
    return ctx.f.money(abs(a.price_per_month.amount - b.price_per_month.amount), a.price_per_month.currency)


@macro
def prices_as_of(ctx: MacroContext) -> str:
    """The date the catalog's prices were set."""
    return ctx.f.date(ctx.catalog.prices_as_of)


@macro
def card_memory(ctx: MacroContext, gpu: str) -> str:
    """Memory of one card (a GPU id, or a node id for its GPU)."""
    return ctx.f.gb(ctx.gpu(gpu).memory_gb)


@macro
def total_memory(ctx: MacroContext, node: str) -> str:
    """Memory of all the cards of a node together."""
    n = ctx.node(node)
    return ctx.f.gb(n.cards * ctx.catalog.gpu_of(n).memory_gb)


@macro
def memory_bandwidth(ctx: MacroContext, gpu: str) -> str:
    """Memory bandwidth of one card (a GPU id, or a node id for its GPU)."""
    return ctx.f.gbps(ctx.gpu(gpu).memory_bandwidth_gbps)


@macro
def link_bandwidth(ctx: MacroContext, link: str, both_ways: bool = False) -> str:
    """A link's bandwidth per card, one direction (both_ways=true adds the two directions)."""
    ic = ctx.interconnect(link)
    return ctx.f.gbps(ic.both_directions_gbps if both_ways else ic.per_direction_gbps)


@macro
def link_ratio(ctx: MacroContext, faster: str, slower: str) -> str:
    """How many times faster one link is than another, one direction against one direction, worded per language
    ("7×", « 7 fois », "7 倍"): the page says faster."""
    return ctx.f.times_more(links.link_ratio(ctx.interconnect(faster), ctx.interconnect(slower)))


@macro
def allreduces_per_token(ctx: MacroContext, model: str) -> str:
    """All-reduces per generated token under tensor parallelism (two per layer)."""
    return ctx.f.number(links.sublayers(ctx.llm_shape(model), ctx.catalog.assumptions.allreduces_per_layer.value))


@macro
def verdict(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """Whether a model fits on one card of a node, must be split (and across how many), or does not fit."""
    return ctx.verdict_text(ctx.cell(model, precision, node, context).fit)


@macro
def gpu_layers(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """How many layers llama.cpp keeps in GPU memory where the verdict leaves the others in host memory
    (``--n-gpu-layers``); MacroError where the verdict leaves none there."""
    found = ctx.cell(model, precision, node, context).fit
    if found.gpu_layers is None:
        raise MacroError(
            f"'{model}' in {precision} on '{node}' keeps every layer in GPU memory (its verdict: "
            f"{found.verdict.value}); name a node where some layers stay in host memory"
        )
    return ctx.f.number(found.gpu_layers)


HOST_FIGURES = ("per_card_memory", "reserved", "bandwidth")


@macro
def host_memory(ctx: MacroContext, figure: str) -> str:
    """What a node's host offers the layers llama.cpp leaves in host memory (data/assumptions.yml): its memory
    as a multiple of its cards' (``per_card_memory``), what the system keeps of it (``reserved``), its memory
    bandwidth (``bandwidth``)."""
    a = ctx.catalog.assumptions
    if figure == "per_card_memory":
        return ctx.f.times_more(a.host_memory_per_card_memory.value)
    if figure == "reserved":
        return ctx.f.gib(a.host_memory_reserved_gib.value, 0)
    if figure == "bandwidth":
        return ctx.f.gbps(a.host_memory_bandwidth_gbps.value)
    raise MacroError(f"unknown host memory figure '{figure}'; one of {', '.join(HOST_FIGURES)}")


@macro
def throughput(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """Decode speed of one stream as the node runs the model (``sizing.engine.deployment``): what a current engine
    typically reaches, then a floor real runs beat."""
    layout = ctx.layout_at(model, precision, node, context)
    return ctx.f.speed(layout.typical, layout.floor)


@macro
def layout(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """How the node runs the model (``sizing.engine.deployment``): "split across its 4 cards", "2 copies, each split
    across 2 of its 4 cards", with the setting its copies need."""
    return ctx.layout_text(ctx.layout_at(model, precision, node, context), ctx.node(node))


@macro
def full_load(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """How many streams a node serves at once at the context (KV cache beside the weights, on every copy of
    the model it holds) and their typical total tokens per second."""
    layout = ctx.layout_at(model, precision, node, context)
    return ctx.text(
        "guides", "full_load", streams=ctx.f.streams(layout.streams), total=ctx.f.tokens_per_s(layout.total)
    )


@macro
def cost_per_million_tokens(
    ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None
) -> str:
    """What a million output tokens cost on a node kept at full load all month, from its monthly price."""
    layout = ctx.layout_at(model, precision, node, context)
    monthly, hours = ctx.node(node).price_per_month.amount, ctx.catalog.assumptions.hours_per_month.value
    price = layout.price_per_million_tokens(monthly, hours)
    if price is None:
        raise MacroError(f"'{model}' in {precision} runs no stream on '{node}': no cost per token")
    return ctx.f.per_million_tokens(price)
