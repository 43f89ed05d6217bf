"""Which cards and nodes hold a model: image and video pipelines card by card, the nodes that hold a language
model, the cheapest and best-value choices, and what is left on a card."""
from __future__ import annotations

from sizing.choices import card_choices, cheapest_per_gpu_hour, nodes_that_hold, one_card_choices
from sizing.fit import Verdict, card_budget
from sizing.memory import component_bytes, weight_bytes
from sizing.schema import DiffusionModel, Llm
from sizing.units import GIB

from ..errors import MacroError
from ..output.html import table
from ..output.strings import text
from .claims import claim
from .context import MacroContext
from .registry import macro


def _t(ctx: MacroContext, key: str, **values: object) -> str:
    return text("guides", key, ctx.lang, **values)


def _workload(ctx: MacroContext, model: DiffusionModel) -> str:
    w = model.workload
    return text("configurator", f"workload_{w.kind}", ctx.lang, width=w.width_px, height=w.height_px, frames=w.frames)


@macro
def diffusion_memory_table(ctx: MacroContext, precision: str) -> str:
    """What every image and video model needs: denoiser, text encoders, VAE, working memory, total."""
    prec = ctx.precision(precision)
    rows = []
    for model in ctx.catalog.models.values():
        if not isinstance(model, DiffusionModel):
            continue
        def part(role: str) -> float:
            return sum(component_bytes(c.role, c.params, prec) for c in model.components if c.role == role)
        working = model.activation_reserve_gib * GIB
        sizes = (part("denoiser"), part("text_encoder"), part("vae"), working, weight_bytes(model, prec) + working)
        rows.append([model.name, _workload(ctx, model), *[ctx.f.gb_from_bytes(size) for size in sizes]])
    headers = [_t(ctx, k) for k in ("model", "workload", "denoiser", "text_encoders", "vae", "working", "total")]
    return table(_t(ctx, "memory_caption", precision=prec.name), headers, rows)


def _holds(ctx: MacroContext, verdict: Verdict, cards: int) -> str:
    if verdict is Verdict.ONE_CARD:
        return _t(ctx, "alone")
    return _t(ctx, "with_encoders_apart", cards=ctx.f.unit("cards", ctx.f.number(cards)))


@macro
def card_table(ctx: MacroContext, model: str, precision: str) -> str:
    """Every catalog card that holds the model, cheapest first: memory, how it holds it, price per
    GPU-hour, BF16 TFLOPS and TFLOPS per dollar (a speed-per-price proxy)."""
    chosen, prec = ctx.model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    rows = [[c.gpu.short_name, ctx.f.gb(c.gpu.memory_gb), _holds(ctx, c.fit.verdict, c.fit.cards),
             ctx.f.money(c.price_per_gpu_hour, "USD", digits=2), ctx.f.number(c.gpu.bf16_dense_tflops),
             ctx.f.number(c.tflops_per_dollar)] for c in card_choices(ctx.catalog, chosen, precision)]
    headers = [_t(ctx, k) for k in ("card", "card_memory", "holds", "per_gpu_hour", "tflops", "tflops_per_dollar")]
    return table(_t(ctx, "cards_caption", model=chosen.name, precision=prec.name), headers, rows)


def _one_card(ctx: MacroContext, model: str, precision: str) -> list:
    choices = one_card_choices(ctx.catalog, ctx.model(model), precision)
    if not choices:
        raise MacroError(f"no card of the catalog holds '{model}' in {precision} on its own")
    return choices


@macro
def cheapest_card(ctx: MacroContext, model: str, precision: str) -> str:
    """The card with the lowest price per GPU-hour that holds the model on its own."""
    return _one_card(ctx, model, precision)[0].gpu.short_name


@macro
def best_value_card(ctx: MacroContext, model: str, precision: str) -> str:
    """The card that holds the model on its own with the most BF16 TFLOPS per dollar of GPU-hour."""
    return max(_one_card(ctx, model, precision), key=lambda c: c.tflops_per_dollar).gpu.short_name


@macro
def value_ratio(ctx: MacroContext, model: str, precision: str) -> str:
    """How many times more compute per dollar the best-value card gives than the cheapest card."""
    choices = _one_card(ctx, model, precision)
    best = max(choices, key=lambda c: c.tflops_per_dollar)
    return ctx.f.times(best.tflops_per_dollar / choices[0].tflops_per_dollar)


@macro
def card_price(ctx: MacroContext, gpu: str) -> str:
    """The lowest price of one card per GPU-hour across the nodes of that GPU."""
    return ctx.f.money(cheapest_per_gpu_hour(ctx.catalog, ctx.gpu(gpu)), "USD", digits=2)


@macro
def headroom(ctx: MacroContext, model: str, precision: str, gpu: str) -> str:
    """Memory left on one card of a GPU once the model is loaded (negative if it does not fit)."""
    card = ctx.gpu(gpu)
    node = min(ctx.catalog.nodes_of_gpu[card.id], key=lambda n: n.cards)
    cell = ctx.cell(model, precision, node.id)
    if cell.fit.verdict is not Verdict.ONE_CARD:
        raise MacroError(f"'{model}' in {precision} does not fit on one {card.short_name}: no headroom to show")
    return ctx.f.gib_from_bytes(card_budget(ctx.catalog, card) - cell.fit.need.total)


@macro
def claim_cheapest_is_not_best_value(ctx: MacroContext, model: str, precision: str) -> str:
    """Fails the build if the cheapest card that holds the model is also the best compute per dollar."""
    choices = _one_card(ctx, model, precision)
    best = max(choices, key=lambda c: c.tflops_per_dollar)
    return claim(best.gpu.id != choices[0].gpu.id,
                 f"the cheapest card for '{model}' in {precision} is not its best compute per dollar",
                 f"{choices[0].gpu.short_name} is both")


@macro
def fits_table(ctx: MacroContext, model: str, precision: str) -> str:
    """Every node that holds the model, cheapest first: verdict, memory per card, floor, price."""
    llm, prec = ctx.llm(model), ctx.precision(precision)
    nodes = nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
    if not nodes:
        return _t(ctx, "none_hold", model=llm.name, precision=prec.name)
    rows = []
    for node in nodes:
        cell = ctx.cell(model, precision, node.id)
        rows.append([ctx.node_label(node), ctx.verdict_text(cell.fit), ctx.f.gib_from_bytes(cell.fit.need.total),
                     ctx.f.speed(cell.speed.typical, cell.speed.floor, in_a_cell=True), ctx.monthly_price(node)])
    headers = [text("configurator", k, ctx.lang) for k in ("col_node", "col_verdict")] + [
        _t(ctx, "need_per_card"), text("configurator", "col_speed", ctx.lang),
        text("configurator", "col_month", ctx.lang)]
    return table(_t(ctx, "nodes_caption", model=llm.name, precision=prec.name), headers, rows)


@macro
def cheapest_node(ctx: MacroContext, model: str, precision: str) -> str:
    """The cheapest node that holds the model (one card or split)."""
    ctx.precision(precision)
    nodes = nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
    if not nodes:
        raise MacroError(f"no node of the catalog holds '{model}' in {precision}")
    return ctx.node_label(nodes[0])


@macro
def claim_no_node_holds(ctx: MacroContext, model: str, precision: str) -> str:
    """Fails the build if some node of the catalog holds the model in this format at the engine's default
    settings (on one card or split; a tight fit, with a higher memory setting or a shorter context, does not
    count)."""
    ctx.precision(precision)
    holding = [n for n in nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
               if ctx.cell(model, precision, n.id).fit.verdict in (Verdict.ONE_CARD, Verdict.SPLIT)]
    return claim(not holding, f"no node holds '{model}' in {precision} at the engine's default settings",
                 f"{holding[0].id} holds it" if holding else "")


@macro
def need_per_card(ctx: MacroContext, model: str, precision: str, node: str, context: int | None = None) -> str:
    """Memory the model needs on each card it uses on a node (weights, KV cache, activations, runtime)."""
    return ctx.f.gib_from_bytes(ctx.cell(model, precision, node, context).fit.need.total)


@macro
def budget_per_card(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """What one card of the node offers the engine that runs this format, at its default setting."""
    ctx.check_pair(model, precision)
    engine = ctx.catalog.engine_of(ctx.precision(precision)) if isinstance(ctx.model(model), Llm) else None
    return ctx.f.gib_from_bytes(card_budget(ctx.catalog, ctx.gpu(node), engine))


@macro
def max_node_memory(ctx: MacroContext) -> str:
    """The most memory any one node has, all its cards together."""
    return ctx.f.gb(max(n.cards * ctx.catalog.gpu_of(n).memory_gb for n in ctx.catalog.nodes.values()))


@macro
def pcie_only_gpus(ctx: MacroContext) -> str:
    """Cards the catalog offers only over PCIe, without NVLink."""
    linked = {c.cheapest.gpu for c in ctx.catalog.configurations.values()
              if ctx.catalog.interconnect_of(c.cheapest).family == "nvlink"}
    return ctx.f.join([g.short_name for g in ctx.catalog.gpus.values() if g.id not in linked])


@macro
def pipeline_memory(ctx: MacroContext, model: str, precision: str) -> str:
    """Everything an image or video pipeline needs on one card: weights of every component plus working
    memory at its usual resolution or clip length."""
    chosen, prec = ctx.diffusion_model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    return ctx.f.gb_from_bytes(weight_bytes(chosen, prec) + chosen.activation_reserve_gib * GIB)


@macro
def cheapest_card_price(ctx: MacroContext, model: str, precision: str) -> str:
    """Price per GPU-hour of the cheapest card that holds the model on its own."""
    return ctx.f.money(_one_card(ctx, model, precision)[0].price_per_gpu_hour, "USD", digits=2)


@macro
def cheapest_card_headroom(ctx: MacroContext, model: str, precision: str) -> str:
    """Memory left on the cheapest card that holds the model on its own."""
    choice = _one_card(ctx, model, precision)[0]
    return ctx.f.gib_from_bytes(choice.fit.budget - choice.fit.need.total)
