"""Which cards and nodes hold a model: image and video pipelines card by card, the nodes that hold a language
model, the cheapest and best-value choices, and what is left on a card."""

from __future__ import annotations

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.claims import claim
from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.html import id_code, table
from macros.output.strings import text
from sizing.catalog.schema import DiffusionModel, Llm, Precision
from sizing.catalog.units import GB, GIB
from sizing.engine.fit import (
    Fit,
    Verdict,
    card_budget,
    offloaded_need,
    pipeline_need,
    seconds_per_pass_in_host_memory,
    visible_memory,
)
from sizing.engine.memory import component_bytes
from sizing.views.comparisons import (
    CardChoice,
    card_choices,
    cheapest_per_gpu_hour,
    format_tflops,
    nodes_that_hold,
    one_card_choices,
    roomier_choice,
    tflops_per_dollar_per_job,
)
from sizing.views.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, warnings_for

_t = section_text("guides")


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

        def part(role: str, model: DiffusionModel = model) -> float:
            return sum(component_bytes(c.role, c.params, prec) for c in model.components if c.role == role)

        need = pipeline_need(ctx.catalog, model, prec)  # the configurator's figure for one card
        sizes = (part("denoiser"), part("text_encoder"), part("vae"), need.activations, need.overhead, need.total)
        rows.append([model.name, _workload(ctx, model), *[ctx.f.gib_from_bytes(size) for size in sizes]])
    keys = ("model", "workload", "denoiser", "text_encoders", "vae", "working", "cuda_context", "total")
    headers = [_t(ctx, k) for k in keys]
    return table(_t(ctx, "memory_caption", precision=prec.name), headers, rows)


def _holds(ctx: MacroContext, fit: Fit) -> str:
    if fit.verdict is Verdict.ONE_CARD:
        return _t(ctx, "alone")
    if fit.tight_by == "partial_load":  # part of the denoiser waiting in host memory
        return _t(ctx, "partly_in_host_memory")
    if fit.verdict is Verdict.TIGHT:  # a pipeline's parts taking turns on one card
        return _t(ctx, "taking_turns")
    return _t(ctx, "with_encoders_apart", cards=ctx.f.unit("cards", ctx.f.number(fit.cards)))


@macro
def card_table(ctx: MacroContext, model: str, precision: str) -> str:
    """Every catalog card that holds the model, by how it holds it, then cheapest first: memory as sold, how it
    holds it, price per GPU-hour, the TFLOPS it computes the format at (FP8 only where the card has FP8 tensor
    cores) and the TFLOPS per dollar of one job, every card the job occupies paid for (a speed-per-price proxy)."""
    chosen, prec = ctx.model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    rows = [
        [
            c.gpu.short_name,
            ctx.f.gb(c.gpu.memory_gb),
            _holds(ctx, c.fit),
            ctx.f.money(c.price_per_gpu_hour, "USD", digits=2),
            _tflops_cell(ctx, c, prec),
            ctx.f.number(tflops_per_dollar_per_job(c, prec)),
        ]
        for c in card_choices(ctx.catalog, chosen, precision)
    ]
    headers = [
        _t(ctx, "card"),
        _t(ctx, "card_memory"),
        _t(ctx, "holds"),
        _t(ctx, "per_gpu_hour"),
        ctx.text("comparisons", "tflops_in", precision=prec.name),
        ctx.text("comparisons", "tflops_per_dollar_per_job"),
    ]
    return table(_t(ctx, "cards_caption", model=chosen.name, precision=prec.name), headers, rows)


def _tflops_cell(ctx: MacroContext, choice: CardChoice, precision: Precision) -> str:
    """The TFLOPS a card computes the format at; "150 (in BF16)" where it lacks the format's tensor cores."""
    tflops = ctx.f.number(format_tflops(choice.gpu, precision))
    if choice.gpu.architecture in precision.native_on:
        return tflops
    return ctx.text("comparisons", "tflops_not_native", value=tflops, precision=ctx.catalog.precisions["bf16"].name)


def _one_card(ctx: MacroContext, model: str, precision: str) -> list[CardChoice]:
    choices = one_card_choices(ctx.catalog, ctx.model(model), precision)
    if not choices:
        raise MacroError(f"no card of the catalog holds '{model}' in {precision} on its own")
    return choices


def _best_value(ctx: MacroContext, model: str, precision: str) -> CardChoice:
    prec = ctx.precision(precision)
    return max(_one_card(ctx, model, precision), key=lambda c: tflops_per_dollar_per_job(c, prec))


def _roomier(ctx: MacroContext, model: str, precision: str) -> CardChoice:
    found = roomier_choice(_one_card(ctx, model, precision))
    if found is None:
        raise MacroError(
            f"no card that holds '{model}' in {precision} on its own has more memory than the "
            "cheapest one: drop the comparison"
        )
    return found


def _named(ctx: MacroContext, choice: CardChoice, article: bool) -> str:
    return ctx.f.the_card(choice.gpu.short_name) if article else choice.gpu.short_name


@macro
def cheapest_card(ctx: MacroContext, model: str, precision: str, article: bool = False) -> str:
    """The card with the lowest price per GPU-hour that holds the model on its own (``article=true``: "the A40",
    « l’A40 », « la L4 »)."""
    return _named(ctx, _one_card(ctx, model, precision)[0], article)


@macro
def best_value_card(ctx: MacroContext, model: str, precision: str, article: bool = False) -> str:
    """The card that holds the model on its own with the most TFLOPS per dollar of GPU-hour, in the format's own
    compute (FP8 tensor cores for FP8 where the card has them)."""
    return _named(ctx, _best_value(ctx, model, precision), article)


@macro
def value_ratio(ctx: MacroContext, model: str, precision: str) -> str:
    """How many times more compute per dollar the best-value card gives than the cheapest card, worded for
    prose: "2.0×", « 2,0 fois », "2.0 倍"."""
    prec = ctx.precision(precision)
    best, cheapest = _best_value(ctx, model, precision), _one_card(ctx, model, precision)[0]
    return ctx.f.times_more(tflops_per_dollar_per_job(best, prec) / tflops_per_dollar_per_job(cheapest, prec))


@macro
def roomier_card(ctx: MacroContext, model: str, precision: str, article: bool = False) -> str:
    """The cheapest card that holds the model on its own with more memory than the cheapest such card."""
    return _named(ctx, _roomier(ctx, model, precision), article)


@macro
def roomier_card_memory(ctx: MacroContext, model: str, precision: str) -> str:
    """Memory, as sold, of the card ``roomier_card`` names."""
    return ctx.f.gb(_roomier(ctx, model, precision).gpu.memory_gb)


@macro
def roomier_card_headroom(ctx: MacroContext, model: str, precision: str) -> str:
    """Memory left on the card ``roomier_card`` names once the model is loaded, in GiB."""
    choice = _roomier(ctx, model, precision)
    return ctx.f.gib_from_bytes(choice.fit.budget - choice.fit.need.total)


@macro
def roomier_card_extra_price(ctx: MacroContext, model: str, precision: str) -> str:
    """How much more the card ``roomier_card`` names costs per GPU-hour than the cheapest card: the difference of the
    two prices as the page shows them, to the cent, so that a reader's subtraction gives it."""
    roomier = round(_roomier(ctx, model, precision).price_per_gpu_hour, 2)
    cheapest = round(_one_card(ctx, model, precision)[0].price_per_gpu_hour, 2)
    return ctx.f.money(roomier - cheapest, "USD", digits=2)


@macro
def cheapest_card_memory(ctx: MacroContext, model: str, precision: str) -> str:
    """Memory, as sold, of the cheapest card that holds the model on its own."""
    return ctx.f.gb(_one_card(ctx, model, precision)[0].gpu.memory_gb)


@macro
def card_price(ctx: MacroContext, gpu: str) -> str:
    """The lowest price of one card per GPU-hour across the nodes of that GPU."""
    return ctx.f.money(cheapest_per_gpu_hour(ctx.catalog, ctx.gpu(gpu)), "USD", digits=2)


@macro
def claim_cheapest_is_not_best_value(ctx: MacroContext, model: str, precision: str) -> str:
    """Fails the build if the cheapest card that holds the model is also the best compute per dollar."""
    choices, best = _one_card(ctx, model, precision), _best_value(ctx, model, precision)
    return claim(
        best.gpu.id != choices[0].gpu.id,
        f"the cheapest card for '{model}' in {precision} is not its best compute per dollar",
        f"{choices[0].gpu.short_name} is both",
    )


@macro
def fits_table(ctx: MacroContext, model: str, precision: str) -> str:
    """Every node that holds the model, cheapest first: verdict, memory per card, speed of one stream, streams
    and cost per million output tokens at full load, price, and the configurator's warnings (FP8 not native,
    a tensor split over PCIe)."""
    llm, prec = ctx.llm(model), ctx.precision(precision)
    nodes = nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
    if not nodes:
        return _t(ctx, "none_hold", model=llm.name, precision=prec.name)
    rows = []
    for node in nodes:
        cell = ctx.cell(model, precision, node.id)
        layout = cell.layout
        assert layout is not None  # the node holds the model: it runs it
        warnings = warnings_for(ctx.catalog, precision, node, cell)
        rows.append(
            [
                ctx.node_label(node),
                ctx.verdict_text(cell.fit),
                ctx.f.gib_from_bytes(cell.fit.need.total),
                ctx.f.speed(layout.typical, layout.floor, in_a_cell=True),
                ctx.load_text(layout, node),
                ctx.monthly_price(node),
                _warnings(ctx, warnings),
            ]
        )
    headers = (
        [ctx.text("configurator", k) for k in ("col_node", "col_verdict")]
        + [_t(ctx, "need_per_card")]
        + [ctx.text("configurator", k) for k in ("col_speed", "col_load", "col_month", "col_notes")]
    )
    return table(_t(ctx, "nodes_caption", model=llm.name, precision=prec.name), headers, rows)


def _warnings(ctx: MacroContext, warnings: tuple[str, ...]) -> str:
    """The configurator's warnings in its words (``sizing.views.offers.warnings_for``), without its link."""
    keys = {FP8_NOT_NATIVE: "warn_fp8", SPLIT_OVER_PCIE: "warn_pcie"}
    return ctx.text("configurator", "notes_separator").join(ctx.text("configurator", keys[w]) for w in warnings)


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
    holding = [
        n
        for n in nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
        if ctx.cell(model, precision, n.id).fit.verdict in (Verdict.ONE_CARD, Verdict.SPLIT)
    ]
    return claim(
        not holding,
        f"no node holds '{model}' in {precision} at the engine's default settings",
        f"{holding[0].id} holds it" if holding else "",
    )


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
def gib_in_gb(ctx: MacroContext) -> str:
    """How many GB one GiB holds (2^30 bytes against 10^9), to three decimals."""
    return ctx.f.unit("gb", ctx.f.number(GIB / GB, 3))


@macro
def visible_memory_of(ctx: MacroContext, gpu: str) -> str:
    """Memory CUDA reports on one card (gpus.yml ``runtime_visible_memory_mib``), in GiB."""
    return ctx.f.gib_from_bytes(visible_memory(ctx.catalog, ctx.gpu(gpu)))


@macro
def server_budget(ctx: MacroContext, gpu: str) -> str:
    """What a server engine (vLLM, SGLang) uses of one card at its default setting, in GiB."""
    return ctx.f.gib_from_bytes(card_budget(ctx.catalog, ctx.gpu(gpu)))


@macro
def max_node_memory(ctx: MacroContext) -> str:
    """The most memory any one node has, all its cards together."""
    return ctx.f.gb(max(n.cards * ctx.catalog.gpu_of(n).memory_gb for n in ctx.catalog.nodes.values()))


@macro
def pcie_only_gpus(ctx: MacroContext) -> str:
    """Cards the catalog offers only over PCIe, without NVLink."""
    linked = {
        c.cheapest.gpu
        for c in ctx.catalog.configurations.values()
        if ctx.catalog.interconnect_of(c.cheapest).family == "nvlink"
    }
    return ctx.f.join([g.short_name for g in ctx.catalog.gpus.values() if g.id not in linked])


@macro
def pipeline_memory(ctx: MacroContext, model: str, precision: str) -> str:
    """Everything an image or video pipeline needs on one card: weights of every component plus working
    memory at its usual resolution or clip length."""
    chosen, prec = ctx.diffusion_model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    return ctx.f.gib_from_bytes(pipeline_need(ctx.catalog, chosen, prec).total)


@macro
def pipeline_memory_in_turns(ctx: MacroContext, model: str, precision: str) -> str:
    """What an image or video pipeline needs on one card when its parts take turns on it: its largest part's
    weights plus working memory."""
    chosen, prec = ctx.diffusion_model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    return ctx.f.gib_from_bytes(offloaded_need(ctx.catalog, chosen, prec).total)


@macro
def pipeline_offload_setting(ctx: MacroContext) -> Markup:
    """The call that makes a pipeline's parts take turns on the card, as typed."""
    return id_code(ctx.catalog.assumptions.pipeline_offload_setting.value)


@macro
def pipeline_partial_load_setting(ctx: MacroContext) -> Markup:
    """The call that leaves the layers of a denoiser that do not fit in host memory, as typed."""
    return id_code(ctx.catalog.assumptions.pipeline_partial_load_setting.value)


def _partial_load(ctx: MacroContext, model: str, precision: str, node: str) -> Fit:
    """The verdict of a pipeline on a node where part of its denoiser waits in host memory; MacroError elsewhere."""
    found = ctx.cell(model, precision, node).fit
    if found.tight_by != "partial_load":
        how = f", {found.tight_by}" if found.tight_by else ""
        raise MacroError(
            f"'{model}' in {precision} on '{node}' leaves no layer in host memory (its verdict: {found.verdict.value}"
            f"{how}): name a node whose cards hold less than its largest part"
        )
    return found


@macro
def pipeline_memory_in_host(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """How much of a pipeline's denoiser waits in host memory on one card of ``node``."""
    return ctx.f.gib_from_bytes(_partial_load(ctx, model, precision, node).host_weight_bytes)


@macro
def pipeline_seconds_per_pass(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """The least time each pass of the denoiser spends copying what waits in host memory over the card's PCIe link."""
    found = _partial_load(ctx, model, precision, node)
    seconds = seconds_per_pass_in_host_memory(ctx.catalog, ctx.catalog.gpu_of(ctx.node(node)), found)
    return ctx.f.unit("seconds", ctx.f.significant(seconds))


@macro
def cheapest_card_price(ctx: MacroContext, model: str, precision: str) -> str:
    """Price per GPU-hour of the cheapest card that holds the model on its own."""
    return ctx.f.money(_one_card(ctx, model, precision)[0].price_per_gpu_hour, "USD", digits=2)


@macro
def cheapest_card_headroom(ctx: MacroContext, model: str, precision: str) -> str:
    """Memory left on the cheapest card that holds the model on its own."""
    choice = _one_card(ctx, model, precision)[0]
    return ctx.f.gib_from_bytes(choice.fit.budget - choice.fit.need.total)
