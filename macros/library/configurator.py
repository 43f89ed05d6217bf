"""The configurator macro: every configuration's verdict for one model at one precision and context, with
the KV cache in BF16 or FP8, pre-rendered, with links to every other choice.

Every (model, precision, context, KV cache) has a page of its own (``choice_path``), so a reader without
JavaScript reaches every choice by links. The KV cache in FP8 is a choice for a language model in a format a
server engine runs (vLLM's ``--kv-cache-dtype fp8``): llama.cpp and image or video models have none. The
page's script switches choices by placing the chosen page's table, status and menus into the page: every word
it shows was written here, once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.formatting import decisive_digits
from macros.output.html import TEMPLATES, TypesetBlock, block
from macros.site.site_data import SiteData
from sizing.catalog.configurations import Configuration
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import KvCacheDtype, Llm, ServerEngine
from sizing.catalog.units import GIB
from sizing.engine.fit import Verdict, card_budget, kv_element_bytes, seconds_per_pass_in_host_memory, tight_setting
from sizing.engine.memory import kv_bytes_per_token
from sizing.engine.specs import llm_shape
from sizing.views.api import NO_CONTEXT, context_keys
from sizing.views.matrix import Cell, VerdictMatrix
from sizing.views.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, Offer, cheapest, offers, price_per_gpu_hour

GUIDE = "guides/nvlink-or-pcie/"
DEFAULT_KV: KvCacheDtype = "bf16"
FP8_KV_FOLDER = "kv-fp8"  # an FP8 KV-cache choice's page: "<precision>/<context>/kv-fp8/"
RUNS = {Verdict.ONE_CARD, Verdict.SPLIT}


_t = section_text("configurator")


# --- which precision and context a page shows, and where its page stands ---------------------------------
def default_choice(catalog: Catalog, model_id: str) -> tuple[str, str]:
    """The precision and context key a model's own page shows: its default precision, the site's default
    context when the model offers it, else its longest."""
    contexts = context_keys(catalog, model_id)
    default = str(catalog.assumptions.default_context_tokens.value)
    return catalog.models[model_id].default_precision, default if default in contexts else contexts[-1]


def choices(catalog: Catalog, model_id: str) -> list[tuple[str, str]]:
    """Every (precision, context key) pair a model offers, in the menus' order: each has a page of its own, so
    a reader without JavaScript reaches every choice, and the script shows a choice by placing its page's
    table."""
    contexts = context_keys(catalog, model_id)
    return [(p.id, c) for p in catalog.precisions_for(catalog.models[model_id]) for c in contexts]


def fp8_kv_offered(catalog: Catalog, model_id: str, precision_id: str) -> bool:
    """Whether the KV cache in FP8 is a choice: for a language model in a format a server engine runs."""
    engine = catalog.engine_of(catalog.precisions[precision_id])
    return isinstance(catalog.models[model_id], Llm) and isinstance(engine, ServerEngine)


def fp8_kv_choices(catalog: Catalog, model_id: str) -> list[tuple[str, str]]:
    """The (precision, context key) pairs that also have a page with the KV cache in FP8, in the menus' order."""
    return [(p, c) for p, c in choices(catalog, model_id) if fp8_kv_offered(catalog, model_id, p)]


def kv_matrix(data: SiteData, kv_cache: KvCacheDtype) -> VerdictMatrix:
    """The verdicts with the KV cache in ``kv_cache``: the site's own for BF16, one more for FP8, made once per
    state of the data (the API's ``fit-kv-fp8.json`` reads the same)."""
    if kv_cache == DEFAULT_KV:
        return data.matrix
    return data.remembered(("verdict matrix", kv_cache), lambda: VerdictMatrix(data.catalog, kv_cache))


def choice_path(
    catalog: Catalog, model_id: str, precision_id: str, context: str, kv_cache: KvCacheDtype = DEFAULT_KV
) -> str:
    """Where the page of a choice stands below ``configurator/<model>/``: "" for the model's defaults,
    "fp8/32768/" for a language model, "fp8/" for an image or video model, "bf16/8192/kv-fp8/" with the KV
    cache in FP8."""
    if kv_cache != DEFAULT_KV:
        return f"{precision_id}/{context}/{FP8_KV_FOLDER}/"
    if (precision_id, context) == default_choice(catalog, model_id):
        return ""
    return f"{precision_id}/" if context == NO_CONTEXT else f"{precision_id}/{context}/"


def _choice(
    ctx: MacroContext, model: str, precision: str | None, context: int | None, kv_cache: str | None = None
) -> tuple[str, str, KvCacheDtype]:
    """The precision, context key and KV-cache precision a call asks for, checked against what the model
    offers."""
    chosen = ctx.model(model)
    default_precision, default_context = default_choice(ctx.catalog, chosen.id)
    precision_id = ctx.precision(precision).id if precision else default_precision
    ctx.check_pair(chosen.id, precision_id)
    kv = _kv_cache(ctx, chosen.id, precision_id, kv_cache)
    contexts = context_keys(ctx.catalog, chosen.id)
    if context is None:
        return precision_id, default_context, kv
    if contexts == [NO_CONTEXT]:
        raise MacroError(f"'{chosen.id}' is an image or video model, without a context length: leave context out")
    if str(context) not in contexts:
        raise MacroError(f"'{chosen.id}' has no context preset of {context} tokens; use one of {', '.join(contexts)}")
    return precision_id, str(context), kv


def _kv_cache(ctx: MacroContext, model_id: str, precision_id: str, kv_cache: str | None) -> KvCacheDtype:
    """The KV-cache precision a call asks for (BF16 when left out), checked against what the choice offers."""
    if kv_cache is None or kv_cache == DEFAULT_KV:
        return DEFAULT_KV
    if kv_cache != "fp8":
        raise MacroError(f"unknown KV-cache precision '{kv_cache}'; use 'bf16' (the default) or 'fp8'")
    if not fp8_kv_offered(ctx.catalog, model_id, precision_id):
        raise MacroError(
            f"'{model_id}' in {precision_id} has no KV cache in FP8 (an image or video model, or a format llama.cpp "
            "runs): leave kv_cache out"
        )
    return "fp8"


def _offers(ctx: MacroContext, model_id: str, precision_id: str, context: str, kv_cache: KvCacheDtype) -> list[Offer]:
    """The rows of a choice, sorted, made once for every language."""
    tokens = None if context == NO_CONTEXT else int(context)
    key = ("configurator offers", model_id, precision_id, context, kv_cache)
    matrix = kv_matrix(ctx.data, kv_cache)
    return ctx.data.remembered(key, lambda: offers(ctx.catalog, matrix, model_id, precision_id, tokens))


# --- one row ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reason:
    """Why a row's verdict, before its figures are written: the string of ``configurator`` that says it, its memory
    figures in GiB by the field that shows them, the pairs of those fields it compares, and its other values."""

    key: str
    gib: dict[str, float]
    compared: tuple[tuple[str, str], ...]
    values: dict[str, str]

    def pairs(self) -> list[tuple[float, float]]:
        return [(self.gib[a], self.gib[b]) for a, b in self.compared]


NEED, OTHER = ("need", "budget"), ("setting_need", "budget")  # what most reasons compare


def _reason(ctx: MacroContext, row: Offer) -> Reason:
    """The need against what a card offers. A tight fit compares with what a card offers at the engine's default
    setting, which it exceeds."""
    fit = row.fit
    budget = fit.budget
    if fit.verdict is Verdict.TIGHT:
        engine = ctx.catalog.engines[fit.engine] if fit.engine is not None else None
        budget = card_budget(ctx.catalog, ctx.catalog.gpu_of(row.node), engine)
    if fit.tight_need is not None:  # above the budget at the default setting, within it at the tight one
        if fit.tight_by == "partial_load":
            return _reason_partial_load(ctx, row)
        figures = {"need": fit.need.total / GIB, "budget": budget / GIB, "setting_need": fit.tight_need.total / GIB}
        if fit.tight_by == "offload":
            figures["part_need"] = figures.pop("setting_need")
            return Reason("why_offload", figures, (NEED, ("part_need", "budget")), {})
        setting = tight_setting(ctx.catalog, fit) or ""
        said = {"cards": ctx.f.cards(fit.cards), "setting": setting}
        if fit.tight_by == "gpu_layers":
            figures["host"] = fit.host_weight_bytes / GIB
            return Reason("why_gpu_layers", figures, (NEED, OTHER), said)
        if fit.budget > budget:  # the setting raises the utilization too: compare with what the card then offers
            figures["raised_budget"] = fit.budget / GIB
            return Reason("why_tight_setting_raised", figures, (NEED, ("setting_need", "raised_budget")), said)
        return Reason("why_tight_setting", figures, (NEED, OTHER), said)
    figures = {"need": fit.need.total / GIB, "budget": budget / GIB}
    if fit.verdict is Verdict.ONE_CARD:
        return Reason("why_one", figures, (NEED,), {})
    if fit.verdict is Verdict.SPLIT:
        return Reason("why_split", figures, (NEED,), {"cards": ctx.f.number(fit.cards)})
    key = "why_tight" if fit.verdict is Verdict.TIGHT else "why_nofit" if fit.cards > 1 else "why_nofit_one"
    return Reason(key, figures, (NEED,), {"cards": ctx.f.cards(fit.cards)})


def _reason_partial_load(ctx: MacroContext, row: Offer) -> Reason:
    """Every part at once and the parts taking turns, both above what a card offers, and what the layers left in host
    memory cost at every pass of the denoiser."""
    fit = row.fit
    on_card = fit.tight_need or fit.need
    in_turns = on_card.total + fit.host_weight_bytes  # the largest part whole, with the working memory
    seconds = seconds_per_pass_in_host_memory(ctx.catalog, ctx.catalog.gpu_of(row.node), fit)
    figures = {"need": fit.need.total, "budget": fit.budget, "part_need": in_turns, "waiting": fit.host_weight_bytes}
    per_pass = ctx.f.unit("seconds", ctx.f.significant(seconds))
    gib = {field: value / GIB for field, value in figures.items()}
    return Reason("why_partial_load", gib, (NEED, ("part_need", "budget")), {"seconds": per_pass})


def _room_figures(row: Offer) -> tuple[float, float, int] | None:
    """The memory (GiB) a card of a copy keeps beside the weights, what one stream's KV cache takes of it, and the
    streams a copy holds; None where memory does not set the count."""
    layout = row.layout
    if layout is None or layout.streams_per_copy >= layout.most_streams:
        return None  # no stream, or the engine's cap sets the count
    fit = layout.fit
    per_stream = fit.need.kv_cache
    if fit.tight_by in ("context", "gpu_layers") or per_stream <= 0:
        return None  # a shorter context, or cards full of layers, sets the count
    held = fit.tight_need or fit.need
    beside = (fit.budget - held.weights - held.activations - held.overhead) / GIB
    return beside, per_stream / GIB, layout.streams_per_copy


def _shows_why(figures: tuple[float, float, int], digits: int) -> bool:
    """Whether the figures rounded to ``digits`` divide to the streams: "4.0 GiB free, 2.0 GiB each" holds two,
    "3.99 GiB free, 2.00 GiB each" one."""
    beside, per_stream, streams = figures
    shown = round(per_stream, digits)
    return shown > 0 and int(round(beside, digits) // shown) == streams


ROOM_DIGITS = (1, 2, 3, 4)


@dataclass(frozen=True)
class ColumnDigits:
    """The decimals of a table's memory figures, one number per column, decided once per table: the reasons
    (``why``) take the fewest that keep every row's comparison true ("19.74 GiB … above the 19.66 GiB", never "19.7
    … above the 19.7"); the loads (``room``) the fewest at which the most rows' figures divide to their streams."""

    why: int
    room: int


def column_digits(ctx: MacroContext, rows: list[Offer]) -> ColumnDigits:
    """The decimals of the table of these rows."""
    why = decisive_digits(pair for row in rows for pair in _reason(ctx, row).pairs())
    rooms = [figures for row in rows if (figures := _room_figures(row)) is not None]
    room = max(ROOM_DIGITS, key=lambda d: (sum(_shows_why(f, d) for f in rooms), -d))
    return ColumnDigits(why, room)


def _why(ctx: MacroContext, row: Offer, digits: int) -> str:
    """The row's reason with its memory figures at the column's ``digits``."""
    reason = _reason(ctx, row)
    return _t(ctx, reason.key, **{k: ctx.f.gib(v, digits) for k, v in reason.gib.items()}, **reason.values)


def _notes(ctx: MacroContext, row: Offer) -> Markup:
    parts: list[Markup] = []
    if FP8_NOT_NATIVE in row.warnings:
        parts.append(Markup("{}").format(_t(ctx, "warn_fp8")))
    if SPLIT_OVER_PCIE in row.warnings:
        link = Markup('<a href="{}">{}</a>').format(ctx.links.lang_root + GUIDE, _t(ctx, "warn_pcie_link"))
        parts.append(Markup(_t(ctx, "with_link", text=Markup.escape(_t(ctx, "warn_pcie")), link=link)))
    return Markup(_t(ctx, "notes_separator")).join(parts)


def _speed(ctx: MacroContext, row: Offer) -> str:
    if row.layout is not None:
        return ctx.f.speed(row.layout.typical, row.layout.floor, in_a_cell=True)
    if row.jobs is not None:
        return _t(ctx, "jobs", value=ctx.f.number(row.jobs))
    return _t(ctx, "none")


def _load(ctx: MacroContext, row: Offer, digits: int) -> str:
    """How the node runs the model at full load (``MacroContext.load_text``), with how many streams the memory
    beside the weights holds where memory sets the count (not the engine's cap, nor a context shortened to fit)."""
    if row.layout is None:
        return _t(ctx, "none")
    return ctx.load_text(row.layout, row.node, _room(ctx, row, digits))


def _room(ctx: MacroContext, row: Offer, digits: int) -> dict[str, str] | None:
    """The memory a card of a copy keeps beside the weights and what one stream's KV cache takes of it, at the
    column's ``digits``: why it holds that many streams and not one more. None where memory does not set the count,
    or the figures at those digits do not divide to it."""
    figures = _room_figures(row)
    if figures is None or not _shows_why(figures, digits):
        return None
    beside, per_stream, _ = figures
    return {"beside": ctx.f.gib(beside, digits), "per_stream": ctx.f.gib(per_stream, digits)}


def _label(ctx: MacroContext, configuration: Configuration) -> str:
    """The configuration's name, with how many nodes offer it when more than one does."""
    name = ctx.node_label(configuration.cheapest)
    count = len(configuration.nodes)
    return name if count == 1 else _t(ctx, "offer_count", node=name, count=ctx.f.number(count))


def _prices(ctx: MacroContext, configuration: Configuration) -> tuple[str, str]:
    """Monthly and per-GPU-hour price of the cheapest node; "from" when several nodes offer the hardware."""
    node = configuration.cheapest
    month = ctx.monthly_price(node)
    hour = ctx.f.money(price_per_gpu_hour(ctx.catalog, node), node.price_per_month.currency, digits=2)
    if len(configuration.nodes) == 1:
        return month, hour
    return _t(ctx, "price_from", price=month), _t(ctx, "price_from", price=hour)


def row_cells(ctx: MacroContext, row: Offer, llm: bool, digits: ColumnDigits) -> list[str]:
    """The row's cells after its node: verdict, why, speed (or jobs), load for a language model, prices, notes; the
    memory figures at the decimals of its table (``column_digits``)."""
    return [
        ctx.verdict_text(row.fit),
        _why(ctx, row, digits.why),
        _speed(ctx, row),
        *((_load(ctx, row, digits.room),) if llm else ()),
        *_prices(ctx, row.configuration),
        _notes(ctx, row),
    ]


# --- what the page says above the table ---------------------------------------------------------------
def summary_lines(ctx: MacroContext, rows: list[Offer]) -> list[str]:
    """The cheapest node that runs the model, with its cards counted; where a single card holds it when that
    is another node; a cheaper node where it fits only just."""
    runs, single, tight = cheapest(rows, RUNS), cheapest(rows, {Verdict.ONE_CARD}), cheapest(rows, {Verdict.TIGHT})

    def named(key: str, row: Offer, **values: str) -> str:
        return _t(ctx, key, node=ctx.node_label(row.node), price=ctx.monthly_price(row.node), **values)

    if runs is None:
        return [
            _t(ctx, "summary_none")
            if tight is None
            else named("summary_tight_only", tight, verdict=ctx.verdict_text(tight.fit))
        ]
    if runs.layout is None:  # an image or video pipeline: one job per card, or one spread over a few
        jobs = runs.jobs or 1
        how = ctx.cards_text(runs.fit.cards, jobs if runs.fit.cards == 1 else 1, runs.node.cards)
    else:
        how = ctx.layout_text(runs.layout, runs.node)
    lines = [named("summary_runs", runs, how=how)]
    if single is None:
        lines.append(_t(ctx, "summary_no_single"))
    elif single.configuration.id != runs.configuration.id:
        lines.append(named("summary_single", single, gpu=ctx.catalog.gpu_of(single.node).short_name))
    if tight is not None and tight.price_per_month.amount < runs.price_per_month.amount:
        lines.append(named("summary_tight", tight, verdict=ctx.verdict_text(tight.fit)))
    return lines


def choice_text(
    ctx: MacroContext, model: Any, precision_name: str, context: str, kv_cache: KvCacheDtype = DEFAULT_KV
) -> str:
    """ "Llama 3.3 70B in BF16, 8K tokens"; "…, KV cache in FP8" with the KV cache in FP8; without the context
    for an image or video model."""
    if context == NO_CONTEXT:
        return _t(ctx, "choice", model=model.name, precision=precision_name)
    return _t(
        ctx,
        "choice_context" if kv_cache == DEFAULT_KV else "choice_context_kv_fp8",
        model=model.name,
        precision=precision_name,
        context=_t(ctx, "context_tokens", value=ctx.f.context(int(context))),
    )


def status_line(ctx: MacroContext, choice: str, rows: list[Offer]) -> str:
    """The one sentence a screen reader hears after each change: the choice and how many nodes run it."""
    runs = sum(r.fit.verdict in RUNS for r in rows)
    tight = sum(r.fit.verdict is Verdict.TIGHT for r in rows)
    values = {"choice": choice, "count": ctx.f.number(runs), "total": ctx.f.number(len(rows))}
    return _t(ctx, "status_tight", tight=ctx.f.number(tight), **values) if tight else _t(ctx, "status", **values)


def kv_fp8_note(ctx: MacroContext, model: Llm) -> str:
    """What an FP8 KV cache gains and costs, with what one token of context keeps in each precision."""
    shape = llm_shape(model)

    def per_token(kv_cache: KvCacheDtype) -> str:
        kib = kv_bytes_per_token(shape, kv_element_bytes(ctx.catalog, kv_cache)) / 1024
        return ctx.text("guides", "kib", value=ctx.f.number(kib, 1))

    flag = f"{ctx.catalog.server_engine.kv_cache_dtype_flag} fp8"
    return _t(ctx, "kv_fp8_note", setting=flag, fp8=per_token("fp8"), bf16=per_token(DEFAULT_KV))


def _note(ctx: MacroContext, model: Any) -> str:
    if isinstance(model, Llm):
        if model.active_params is None:
            return ""
        return _t(
            ctx,
            "moe_note",
            model=model.name,
            total=ctx.f.billions_in_words(model.params),
            active=ctx.f.billions_in_words(model.active_params),
        )
    w = model.workload
    workload = _t(ctx, f"workload_{w.kind}", width=w.width_px, height=w.height_px, frames=w.frames)
    return _t(ctx, "diffusion_note", model=model.name, workload=workload)


# --- the script's data --------------------------------------------------------------------------------
CHOICES_FILE = "configurator/choices.json"  # below the site's root: where every choice's page stands


def _script_data(ctx: MacroContext, shown: str) -> str:
    """What the script needs beside the page: the file that says where the page of every choice of every model
    stands (``choices_document``, one for the site, fetched once: a page's weight does not grow with the
    catalog), the folder its paths start from, and the two notices it may show, written for this page's choice
    (``shown``; ``{model}`` is the model asked for, named as its menu names it). The script writes no word of its
    own."""
    data = {
        "base": f"{ctx.links.lang_root}configurator/",
        "choices": f"{ctx.links.root}{CHOICES_FILE}",
        "load_error": _t(ctx, "load_error", model="{model}", shown=shown),
        "unknown_choice": _t(ctx, "unknown_choice"),
    }
    # </script> cannot appear: JSON escapes "<" as \u003c below.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def choices_document(catalog: Catalog) -> str:
    """``CHOICES_FILE``: where the page of each choice of each model stands below a language's ``configurator/``
    (``_pages``), as compact JSON."""
    return json.dumps(_pages(catalog), ensure_ascii=False, separators=(",", ":"))


def _pages(catalog: Catalog) -> dict[str, Any]:
    """For each model, in the menus' order: its default choice (precision, context, KV cache) and, by KV-cache
    precision, where the page of each precision and context stands below ``configurator/``:
    ``{"bf16": {"fp8": {"32768": "llama-3.3-70b/fp8/32768/"}}, "fp8": {...}}``; the BF16 pages hold every
    precision and context, the FP8 ones those a server engine runs."""
    pages: dict[str, Any] = {}
    for model_id in catalog.models:
        choice_pages: dict[str, dict[str, dict[str, str]]] = {}
        listed = [(DEFAULT_KV, choices(catalog, model_id)), ("fp8", fp8_kv_choices(catalog, model_id))]
        for kv_cache, pairs in listed:
            for precision, context in pairs:
                path = f"{model_id}/{choice_path(catalog, model_id, precision, context, kv_cache)}"
                choice_pages.setdefault(kv_cache, {}).setdefault(precision, {})[context] = path
        pages[model_id] = {"default": [*default_choice(catalog, model_id), DEFAULT_KV], "choices": choice_pages}
    return pages


def title_text(
    ctx: MacroContext, model_id: str, precision_id: str, context: str, kv_cache: KvCacheDtype = DEFAULT_KV
) -> str:
    """A choice's page title: "Configurator: Llama 3.3 70B in FP8, 32K tokens"."""
    model = ctx.catalog.models[model_id]
    precision_name = ctx.catalog.precisions[precision_id].name
    return _t(ctx, "choice_title", choice=choice_text(ctx, model, precision_name, context, kv_cache))


@macro
def configurator_title(
    ctx: MacroContext, model: str, precision: str | None = None, context: int | None = None, kv_cache: str | None = None
) -> str:
    """The heading of a model's configurator page at a precision, context and KV-cache precision (its defaults
    when left out): "Configurator: Llama 3.3 70B in FP8, 32K tokens"."""
    chosen = ctx.model(model)
    return title_text(ctx, chosen.id, *_choice(ctx, chosen.id, precision, context, kv_cache))


@macro
def configurator_link(
    ctx: MacroContext, model: str, precision: str | None = None, context: int | None = None, kv_cache: str | None = None
) -> Markup:
    """A link to a choice's configurator page, named by its choice: "Llama 3.1 8B in BF16, 32K tokens, KV cache
    in FP8"."""
    chosen = ctx.model(model)
    precision_id, context_key, kv = _choice(ctx, chosen.id, precision, context, kv_cache)
    path = choice_path(ctx.catalog, chosen.id, precision_id, context_key, kv)
    name = choice_text(ctx, chosen, ctx.catalog.precisions[precision_id].name, context_key, kv)
    return Markup('<a href="{}">{}</a>').format(f"{ctx.links.lang_root}configurator/{chosen.id}/{path}", name)


# --- the KV-cache choice in the guides ---------------------------------------------------------------------
def _kv_cell(ctx: MacroContext, model: str, precision: str, node: str, context: int, kv_cache: str) -> Cell:
    """The configurator's cell with the KV cache in ``kv_cache``; MacroError on an unknown id or a choice the
    configurator does not offer."""
    ctx.cell(model, precision, node, context)  # checks the ids and that the precision applies
    return kv_matrix(ctx.data, _kv_cache(ctx, model, precision, kv_cache)).cell(model, precision, node, context)


@macro
def verdict_with_kv_cache(ctx: MacroContext, model: str, precision: str, node: str, context: int, kv_cache: str) -> str:
    """The configurator's verdict with the KV cache in ``kv_cache`` ("bf16" or "fp8"): "fits on one card"."""
    return ctx.verdict_text(_kv_cell(ctx, model, precision, node, context, kv_cache).fit)


@macro
def full_load_with_kv_cache(
    ctx: MacroContext, model: str, precision: str, node: str, context: int, kv_cache: str
) -> str:
    """How many streams a node serves at once at the context with the KV cache in ``kv_cache``, and their
    typical total tokens per second, as the configurator's FP8 page shows them."""
    layout = _kv_cell(ctx, model, precision, node, context, kv_cache).layout
    if layout is None:
        raise MacroError(f"'{model}' in {precision} runs no stream on '{node}' with a {kv_cache} KV cache")
    return ctx.text(
        "guides", "full_load", streams=ctx.f.streams(layout.streams), total=ctx.f.tokens_per_s(layout.total)
    )


# --- the macro ----------------------------------------------------------------------------------------
def _links(ctx: MacroContext, model_id: str, shown: tuple[str, str, KvCacheDtype]) -> dict[str, Any]:
    """Links to the page of every precision at the context shown, of every context at the precision shown, and
    of each KV-cache precision of the choice shown, the page shown marked current: every choice is at most three
    links away, and each row of links says what it holds fixed. The precision and context links keep the KV
    cache shown where the format offers it."""
    c, base = ctx.catalog, f"{ctx.links.lang_root}configurator/{model_id}/"
    precision, context, kv_cache = shown

    def link(label: str, choice: tuple[str, str, KvCacheDtype]) -> dict[str, Any]:
        return {"label": label, "url": base + choice_path(c, model_id, *choice), "current": choice == shown}

    def kept(precision_id: str) -> KvCacheDtype:
        return kv_cache if fp8_kv_offered(c, model_id, precision_id) else DEFAULT_KV

    context_words = _t(ctx, "context_tokens", value=ctx.f.context(int(context))) if context != NO_CONTEXT else ""
    fp8_offered = fp8_kv_offered(c, model_id, precision)
    return {
        "precisions": [link(p.name, (p.id, context, kept(p.id))) for p in c.precisions_for(c.models[model_id])],
        "contexts": [
            link(_t(ctx, "context_tokens", value=ctx.f.context(int(k))), (precision, k, kv_cache))
            for k in context_keys(c, model_id)
            if k != NO_CONTEXT
        ],
        "kv_caches": [link(_t(ctx, f"kv_{k}"), (precision, context, k)) for k in (DEFAULT_KV, "fp8")]
        if fp8_offered
        else [],
        "precisions_label": _t(ctx, "precision")
        if context == NO_CONTEXT
        else _t(ctx, "choices_precision", context=context_words),
        "contexts_label": _t(ctx, "choices_context", precision=c.precisions[precision].name),
        "kv_caches_label": _t(ctx, "choices_kv", precision=c.precisions[precision].name, context=context_words)
        if fp8_offered
        else "",
    }


def _kv_menu(ctx: MacroContext, model: Any, precision_id: str) -> list[dict[str, str]]:
    """The KV-cache menu's options: BF16 and FP8 where FP8 is a choice; else one option that says why not
    (an image or video model keeps no KV cache; llama.cpp has no FP8 one), the menu disabled."""
    if fp8_kv_offered(ctx.catalog, model.id, precision_id):
        return [{"value": k, "label": _t(ctx, f"kv_{k}")} for k in (DEFAULT_KV, "fp8")]
    key = "kv_none_llama_cpp" if isinstance(model, Llm) else "kv_none_diffusion"
    return [{"value": DEFAULT_KV, "label": _t(ctx, key)}]


@macro
def configurator(
    ctx: MacroContext, model: str, precision: str | None = None, context: int | None = None, kv_cache: str | None = None
) -> str:
    """The configurator for a model at a precision, context and KV-cache precision (its defaults when left out):
    every configuration's verdict, why, speed, prices and warnings, the cheapest first, links to every other
    precision, context and KV cache; the page's script switches them by placing the chosen choice's own
    page."""
    chosen = ctx.model(model)
    precision_id, context_key, kv = _choice(ctx, model, precision, context, kv_cache)
    shown = ctx.precision(precision_id)
    contexts = context_keys(ctx.catalog, chosen.id)
    rows = _offers(ctx, chosen.id, shown.id, context_key, kv)
    llm = isinstance(chosen, Llm)
    headers = [
        _t(ctx, k)
        for k in (
            "col_node",
            "col_verdict",
            "col_why",
            "col_speed" if llm else "col_jobs",
            *(("col_load",) if llm else ()),
            "col_month",
            "col_hour",
            "col_notes",
        )
    ]
    choice = choice_text(ctx, chosen, shown.name, context_key, kv)
    digits = column_digits(ctx, rows)
    models = [
        {"id": m.id, "name": m.name, "url": f"{ctx.links.lang_root}configurator/{m.id}/"}
        for m in ctx.catalog.models.values()
    ]
    html = TEMPLATES.get_template("configurator.html").render(
        model=chosen,
        precision=shown,
        context=context_key,
        kv_cache=kv,
        data_json=Markup(_script_data(ctx, choice)),
        script=f"{ctx.links.root}assets/configurator.js",  # it fetches the page of the choice a reader makes
        labels={
            k: _t(ctx, k)
            for k in ("model", "precision", "context", "kv_cache", "noscript", "other_models", "none", "choices")
        },
        models=models,
        # a model's own page lists every model; a further choice of it links to that list (its precision and
        # context links reach the model's own page): the list on each of them grew with the catalog squared
        listed=models if choice_path(ctx.catalog, chosen.id, shown.id, context_key, kv) == "" else [],
        every_model=f"{ctx.links.lang_root}configurator/",
        precisions=ctx.catalog.precisions_for(chosen),
        contexts=[
            {"value": c, "label": _t(ctx, "context_tokens", value=ctx.f.context(int(c)))}
            for c in contexts
            if c != NO_CONTEXT
        ],
        kv_caches=_kv_menu(ctx, chosen, shown.id),
        links=_links(ctx, chosen.id, (shown.id, context_key, kv)),
        status=status_line(ctx, choice, rows),
        summary=summary_lines(ctx, rows),
        note=_note(ctx, chosen),
        kv_note=kv_fp8_note(ctx, ctx.llm(chosen.id)) if kv != DEFAULT_KV else "",
        caption=_t(ctx, "caption" if kv == DEFAULT_KV else "caption_kv_fp8", model=chosen.name, precision=shown.name),
        headers=headers,
        none_text=_t(ctx, "none"),
        rows=[
            {
                "verdict": r.fit.verdict.value,
                "configuration": r.configuration.id,
                "name": _label(ctx, r.configuration),
                "cells": row_cells(ctx, r, llm, digits),
            }
            for r in rows
        ],
        floor_note=_t(ctx, "floor_note") if llm else "",
    )
    # every text in it is typeset already (strings.yml is typeset when loaded): typesetting it again would
    # change nothing (tests/unit/test_configurator.py) and cost more than making it
    return TypesetBlock(block(html))


# --- the site search ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchRow:
    configuration: str  # the row's id on the model's page: #cfg-<configuration>
    title: str  # "Llama 3.3 70B in BF16 on 8 × B200"
    text: str  # "fits on one card — ~36 tok/s (at least 20) — $30,600/month"


def search_rows(ctx: MacroContext, model_id: str) -> tuple[str, list[SearchRow]]:
    """A model's page as the site search shows it: its summary, then one entry per node row at the model's
    default precision and context, readable on its own."""
    model = ctx.model(model_id)
    precision_id, context = default_choice(ctx.catalog, model_id)
    precision = ctx.precision(precision_id)
    rows = _offers(ctx, model_id, precision_id, context, DEFAULT_KV)
    separator, none = _t(ctx, "search_separator"), _t(ctx, "none")
    entries = []
    for row in rows:
        parts = [ctx.verdict_text(row.fit), _speed(ctx, row), _prices(ctx, row.configuration)[0]]
        title = _t(
            ctx, "search_row_title", model=model.name, precision=precision.name, node=_label(ctx, row.configuration)
        )
        entries.append(SearchRow(row.configuration.id, title, separator.join(p for p in parts if p != none)))
    summary = " ".join(
        [status_line(ctx, choice_text(ctx, model, precision.name, context), rows), *summary_lines(ctx, rows)]
    )
    return summary, entries
