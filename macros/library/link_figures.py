"""Figures of what a split costs over a node's link: a tensor-parallel all-reduce at one stream and in prefill,
one model split against copies side by side, full-parameter training sharded over a node (memory, traffic,
time), the all-reduce bus bandwidth a healthy node reaches; and the claims that keep those sentences true."""

from __future__ import annotations

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.claims import claim
from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.html import table
from sizing.catalog.schema import HealthyAllreduce, Node
from sizing.catalog.units import GIB, KIB, MIB
from sizing.engine import links, training
from sizing.engine.deployment import Layout

_t = section_text("links")


def duration(ctx: MacroContext, seconds: float) -> str:
    """A short time in the unit that keeps it readable: µs below a millisecond, ms below a second, else s."""
    if seconds < 1e-3:
        return ctx.f.unit("microseconds", ctx.f.significant(seconds * 1e6))
    if seconds < 1:
        return ctx.f.unit("milliseconds", ctx.f.significant(seconds * 1e3))
    return ctx.f.unit("seconds", ctx.f.significant(seconds))


def message_size(ctx: MacroContext, size_bytes: float) -> str:
    """A message in KiB below a MiB, in MiB from there (binary units: a hidden state is 2^k bytes wide)."""
    if size_bytes < MIB:
        return _t(ctx, "kib", value=ctx.f.significant(size_bytes / KIB))
    return _t(ctx, "mib", value=ctx.f.significant(size_bytes / MIB))


def _multi_card(ctx: MacroContext, node: str) -> Node:
    chosen = ctx.node(node)
    if chosen.cards < 2:
        raise MacroError(f"'{node}' has one card: nothing crosses a link; name a node of two cards or more")
    return chosen


def _allreduce_seconds(ctx: MacroContext, model: str, node: str, tokens: int) -> float:
    """One tensor-parallel all-reduce of ``tokens`` hidden states over every card of ``node``."""
    chosen = _multi_card(ctx, node)
    link = links.node_link(ctx.catalog, chosen, chosen.cards)
    return links.tensor_allreduce_seconds(link, chosen.cards, ctx.llm_shape(model), tokens)


# --- a tensor-parallel all-reduce ----------------------------------------------------------------------------
@macro
def token_count(ctx: MacroContext, tokens: int) -> str:
    """A number of tokens, as the language writes it ("2,048 tokens")."""
    return _t(ctx, "tokens", value=ctx.f.number(tokens))


@macro
def allreduce_message(ctx: MacroContext, model: str, tokens: int = 1) -> str:
    """What one tensor-parallel all-reduce carries: hidden size × 2 bytes per token in flight (one at one
    stream; the whole prompt in prefill)."""
    return message_size(ctx, links.tensor_parallel_message_bytes(ctx.llm_shape(model), tokens))


@macro
def tp_allreduce_time(ctx: MacroContext, model: str, node: str, tokens: int = 1) -> str:
    """One tensor-parallel all-reduce over every card of a node: the link's latency plus the message over its
    measured bus bandwidth (data/interconnects.yml), as the speed model counts it."""
    return duration(ctx, _allreduce_seconds(ctx, model, node, tokens))


@macro
def tp_sync_time(ctx: MacroContext, model: str, node: str, tokens: int = 1) -> str:
    """Every all-reduce of one forward pass (two per layer) over ``tokens`` tokens, one after the other."""
    chosen = _multi_card(ctx, node)
    link = links.node_link(ctx.catalog, chosen, chosen.cards)
    per_layer = ctx.catalog.assumptions.allreduces_per_layer.value
    return duration(ctx, links.tensor_sync_seconds(link, chosen.cards, ctx.llm_shape(model), per_layer, tokens))


@macro
def tp_allreduce_ratio(ctx: MacroContext, model: str, slow_node: str, fast_node: str, tokens: int = 1) -> str:
    """How many times longer a tensor-parallel all-reduce takes on one node than on another."""
    slow, fast = (_allreduce_seconds(ctx, model, n, tokens) for n in (slow_node, fast_node))
    return ctx.f.times_more(slow / fast)


@macro
def claim_allreduce_bound(ctx: MacroContext, model: str, node: str, tokens: int, bound: str) -> str:
    """Fails the build unless one tensor-parallel all-reduce of ``tokens`` tokens on the node is bound by
    ``bound``: ``latency`` (the link's latency is most of its time) or ``bandwidth`` (the transfer is)."""
    if bound not in ("latency", "bandwidth"):
        raise MacroError(f'bound must be "latency" or "bandwidth", found {bound!r}')
    chosen = _multi_card(ctx, node)
    link = links.node_link(ctx.catalog, chosen, chosen.cards)
    share = links.tensor_allreduce_latency_share(link, chosen.cards, ctx.llm_shape(model), tokens)
    holds = share > 0.5 if bound == "latency" else share < 0.5
    return claim(
        holds,
        f"an all-reduce of {tokens} tokens of '{model}' on '{node}' is {bound}-bound",
        f"the latency is {share:.0%} of its time",
    )


# --- one model split, or copies side by side ----------------------------------------------------------------
def _split(ctx: MacroContext, model: str, precision: str, node: str, cards: int, context: int | None) -> Layout:
    """One of the layouts the deployment weighed for the node (``sizing.engine.deployment``): copies of ``cards``
    cards each, the one it runs or one it set aside."""
    chosen = ctx.node(node)
    if not 1 <= cards <= chosen.cards:
        raise MacroError(f"'{node}' has {chosen.cards} cards: cards must be between 1 and {chosen.cards}")
    ctx.llm(model)
    deployment = ctx.cell(model, precision, node, context).deployment
    weighed = () if deployment is None else deployment.layouts
    layout = next((x for x in weighed if x.cards == cards), None)
    if layout is None:
        raise MacroError(
            f"'{model}' in {precision} cannot run on {cards} cards of '{node}' (the split is not "
            "allowed by its heads, or does not fit): pick another card count"
        )
    return layout


@macro
def split_stream_speed(
    ctx: MacroContext, model: str, precision: str, node: str, cards: int, context: int | None = None
) -> str:
    """Typical speed of one stream with the model on ``cards`` cards of the node, even where fewer hold it."""
    return ctx.f.tokens_per_s(_split(ctx, model, precision, node, cards, context).typical)


@macro
def split_full_load(
    ctx: MacroContext, model: str, precision: str, node: str, cards: int, context: int | None = None
) -> str:
    """The whole node at full load with one copy of the model on every ``cards`` cards: streams at once and
    their typical total tokens per second."""
    layout = _split(ctx, model, precision, node, cards, context)
    return ctx.text(
        "guides", "full_load", streams=ctx.f.streams(layout.streams), total=ctx.f.tokens_per_s(layout.total)
    )


@macro
def claim_stream_faster(
    ctx: MacroContext, model: str, precision: str, node: str, cards: int, than_cards: int, context: int | None = None
) -> str:
    """Fails the build unless one stream runs faster on ``cards`` cards than on ``than_cards`` cards."""
    fast, slow = (_split(ctx, model, precision, node, k, context) for k in (cards, than_cards))
    return claim(
        fast.typical > slow.typical,
        f"one stream of '{model}' in {precision} runs faster on {cards} cards of '{node}' than on {than_cards}",
        f"{fast.typical:.1f} against {slow.typical:.1f} tok/s",
    )


@macro
def claim_serves_more(
    ctx: MacroContext, model: str, precision: str, node: str, cards: int, than_cards: int, context: int | None = None
) -> str:
    """Fails the build unless the node at full load serves more tokens per second in total with copies on
    ``cards`` cards each than with copies on ``than_cards`` cards each."""
    more, less = (_split(ctx, model, precision, node, k, context).total for k in (cards, than_cards))
    return claim(
        more > less,
        f"'{node}' at full load serves more of '{model}' in {precision} with copies on {cards} cards "
        f"than on {than_cards} (context {context})",
        f"{more:.0f} against {less:.0f} tok/s in total",
    )


# --- full-parameter training with Adam, sharded -------------------------------------------------------------
@macro
def adam_bytes_per_parameter(ctx: MacroContext) -> str:
    """Bytes per parameter of full-parameter training with Adam in mixed precision: 16-bit weights and
    gradients, FP32 master weights and two FP32 moments."""
    return _t(ctx, "bytes", value=ctx.f.number(training.ADAM.total))


@macro
def training_memory(ctx: MacroContext, model: str) -> str:
    """Weights, gradients and Adam states of a model in full-parameter training, before activations (GiB)."""
    return ctx.f.gib_from_bytes(training.training_state_bytes(ctx.llm(model)))


@macro
def training_memory_per_card(ctx: MacroContext, model: str, node: str) -> str:
    """That training state sharded evenly over every card of a node (FSDP, ZeRO stage 3), per card (GiB)."""
    return ctx.f.gib_from_bytes(
        training.sharded_training_fit(ctx.catalog, ctx.llm(model), ctx.node(node)).state_bytes_per_card
    )


@macro
def training_room_per_card(ctx: MacroContext, model: str, node: str) -> str:
    """What each card of the node keeps for activations once it holds its share of the training state (GiB)."""
    fit = training.sharded_training_fit(ctx.catalog, ctx.llm(model), ctx.node(node))
    if not fit.fits:
        raise MacroError(f"'{model}' does not fit '{node}' for training, even sharded: no room is left")
    return ctx.f.gib_from_bytes(fit.activation_room_bytes)


def _explain_training(ctx: MacroContext, model: str, node: str) -> tuple[bool, str]:
    fit = training.sharded_training_fit(ctx.catalog, ctx.llm(model), ctx.node(node))
    return fit.fits, (
        f"{fit.state_bytes_per_card / GIB:.1f} GiB of training state per card against "
        f"{fit.visible_bytes_per_card / GIB:.1f} GiB a card shows"
    )


@macro
def claim_training_fits(ctx: MacroContext, model: str, node: str) -> str:
    """Fails the build unless the model's full training state, sharded over every card, leaves room on each."""
    fits, actual = _explain_training(ctx, model, node)
    return claim(fits, f"full-parameter training of '{model}' with Adam fits '{node}' sharded", actual)


@macro
def claim_training_does_not_fit(ctx: MacroContext, model: str, node: str) -> str:
    """Fails the build if the model's full training state, sharded over every card, fits the node."""
    fits, actual = _explain_training(ctx, model, node)
    return claim(
        not fits, f"full-parameter training of '{model}' with Adam does not fit '{node}', even sharded", actual
    )


@macro
def training_traffic(ctx: MacroContext, model: str, node: str) -> str:
    """What each card sends in one sharded training step: the 16-bit weights gathered twice, the gradients
    scattered once, each (n−1)/n of the model (GB, as link bandwidth is counted)."""
    chosen = _multi_card(ctx, node)
    return ctx.f.gb_from_bytes(
        links.sharded_step_bytes_per_card(training.sixteen_bit_weight_bytes(ctx.llm(model)), chosen.cards)
    )


def _sharded_seconds(ctx: MacroContext, model: str, node: str) -> float:
    return links.node_sharded_step_seconds(
        ctx.catalog, _multi_card(ctx, node), training.sixteen_bit_weight_bytes(ctx.llm(model))
    )


@macro
def training_sync_time(ctx: MacroContext, model: str, node: str) -> str:
    """Pure transfer time of one sharded training step's collectives, at the link's rated bandwidth one way."""
    return duration(ctx, _sharded_seconds(ctx, model, node))


@macro
def training_sync_speedup(ctx: MacroContext, model: str, slow_node: str, fast_node: str) -> str:
    """How many times faster a sharded training step's collectives run on one node than on another."""
    return ctx.f.times_more(_sharded_seconds(ctx, model, slow_node) / _sharded_seconds(ctx, model, fast_node))


# --- what a healthy node reaches in all_reduce_perf ----------------------------------------------------------
def _busbw_range(ctx: MacroContext, healthy: HealthyAllreduce) -> str:
    low, high = healthy.low_gbps, healthy.high_gbps
    if low == high:
        return ctx.f.gbps(low)
    return _t(ctx, "gbps_range", low=ctx.f.number(low), high=ctx.f.number(high))


def _measured_on(ctx: MacroContext, healthy: HealthyAllreduce) -> str:
    setups = dict.fromkeys(
        ctx.text("units", "node_name", cards=run.cards, gpu=ctx.gpu(run.gpu).short_name) for run in healthy.runs
    )
    return ctx.f.join(list(setups))


@macro
def busbw_table(ctx: MacroContext) -> Markup:
    """For every family of node (the link an all-reduce over all its cards crosses, how the cards are joined,
    peer-to-peer or not): the all_reduce_perf bus bandwidth a healthy node reaches, from published runs."""
    families: dict[tuple[str, str, bool], list[Node]] = {}
    for configuration in ctx.catalog.configurations.values():
        node = configuration.cheapest
        if node.cards > 1:
            family = links.bus_family(ctx.catalog, node)
            families.setdefault((family.link.id, family.topology, family.peer_to_peer), []).append(node)
    rows = []
    for (_, topology, peer_to_peer), nodes in sorted(
        families.items(), key=lambda item: (-ctx.catalog.interconnects[item[0][0]].per_direction_gbps, item[0])
    ):
        family = links.bus_family(ctx.catalog, nodes[0])
        label = ctx.link_label(family.link, topology)
        if not peer_to_peer:
            label = _t(ctx, "host_staged", link=label)
        healthy = links.healthy_allreduce(family)
        if healthy is None:
            assumed = links.link_spec(family.link, family.peer_to_peer).allreduce_busbw_gbps
            reaches, measured = _t(ctx, "not_measured", busbw=ctx.f.gbps(assumed)), ctx.text("configurator", "none")
        else:
            reaches, measured = _busbw_range(ctx, healthy), _measured_on(ctx, healthy)
        rows.append([label, ctx.f.join([ctx.node_label(n) for n in nodes]), reaches, measured])
    headers = [_t(ctx, k) for k in ("col_family", "col_nodes", "col_busbw", "col_measured_on")]
    return table(_t(ctx, "busbw_caption"), headers, rows)
