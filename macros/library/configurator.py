"""The configurator macro: every configuration's verdict for one model, pre-rendered, plus what the page's
script needs to switch model, precision and context without recomputing anything.

Each model has a page (its default precision and context) and a page for every other precision and context
(``choice_path``), so a reader without JavaScript reaches every choice by links."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.formatting import BABEL_LOCALES
from macros.output.html import TEMPLATES, block
from macros.output.strings import strings
from sizing.catalog.configurations import Configuration
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm
from sizing.catalog.units import GIB
from sizing.engine.fit import Verdict, card_budget
from sizing.views.api import NO_CONTEXT, context_keys, speed_for_display
from sizing.views.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, Offer, cheapest, offers, price_per_gpu_hour

GUIDE = "guides/nvlink-or-pcie/"
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
    """The (precision, context key) pairs that have a page: every precision at the model's default context,
    and every context at its default precision, in the menus' order (70 pages a language). A page for every
    pair would be 170 a language and double the build's time: pairs that change both are left to the script."""
    precision, context = default_choice(catalog, model_id)
    model = catalog.models[model_id]
    return [
        *((p.id, context) for p in catalog.precisions_for(model)),
        *((precision, c) for c in context_keys(catalog, model_id) if c != context),
    ]


def choice_path(catalog: Catalog, model_id: str, precision_id: str, context: str) -> str:
    """Where the page of a choice stands below ``configurator/<model>/``: "" for the model's defaults,
    "fp8/32768/" for a language model, "fp8/" for an image or video model."""
    if (precision_id, context) == default_choice(catalog, model_id):
        return ""
    return f"{precision_id}/" if context == NO_CONTEXT else f"{precision_id}/{context}/"


def _choice(ctx: MacroContext, model: str, precision: str | None, context: int | None) -> tuple[str, str]:
    """The precision and context key a call asks for, checked against what the model offers."""
    chosen = ctx.model(model)
    default_precision, default_context = default_choice(ctx.catalog, chosen.id)
    precision_id = ctx.precision(precision).id if precision else default_precision
    ctx.check_pair(chosen.id, precision_id)
    contexts = context_keys(ctx.catalog, chosen.id)
    if context is None:
        return precision_id, default_context
    if contexts == [NO_CONTEXT]:
        raise MacroError(f"'{chosen.id}' is an image or video model, without a context length: leave context out")
    if str(context) not in contexts:
        raise MacroError(f"'{chosen.id}' has no context preset of {context} tokens; use one of {', '.join(contexts)}")
    return precision_id, str(context)


# --- one row ------------------------------------------------------------------------------------------
def _why(ctx: MacroContext, row: Offer) -> str:
    need, budget = ctx.f.gib_from_bytes(row.fit.need.total), ctx.f.gib_from_bytes(row.fit.budget)
    if row.fit.verdict is Verdict.ONE_CARD:
        return _t(ctx, "why_one", need=need, budget=budget)
    if row.fit.verdict is Verdict.SPLIT:
        return _t(ctx, "why_split", need=need, budget=budget, cards=ctx.f.number(row.fit.cards))
    if row.fit.verdict is Verdict.TIGHT:  # against what a card offers at the engine's default setting
        default = card_budget(ctx.catalog, ctx.catalog.gpu_of(row.node), ctx.catalog.engines[row.fit.engine])
        return _t(ctx, "why_tight", need=need, budget=ctx.f.gib_from_bytes(default), cards=ctx.f.cards(row.fit.cards))
    return _t(ctx, "why_nofit", need=need, budget=budget, cards=ctx.f.cards(row.fit.cards))


def _notes(ctx: MacroContext, row: Offer) -> Markup:
    parts: list[Markup] = []
    if FP8_NOT_NATIVE in row.warnings:
        parts.append(Markup("{}").format(_t(ctx, "warn_fp8")))
    if SPLIT_OVER_PCIE in row.warnings:
        link = Markup('<a href="{}">{}</a>').format(ctx.links.lang_root + GUIDE, _t(ctx, "warn_pcie_link"))
        parts.append(Markup(_t(ctx, "with_link", text=Markup.escape(_t(ctx, "warn_pcie")), link=link)))
    return Markup(_t(ctx, "notes_separator")).join(parts)


def _speed(ctx: MacroContext, row: Offer) -> str:
    if row.speed is not None:
        return ctx.f.speed(row.speed.typical, row.speed.floor, in_a_cell=True)
    if row.jobs is not None:
        return _t(ctx, "jobs", value=ctx.f.number(row.jobs))
    return _t(ctx, "none")


def _load(ctx: MacroContext, row: Offer) -> str:
    """Streams that fit, their typical total and the cost of a million tokens at that load."""
    price = row.price_per_million_tokens(ctx.catalog)
    if row.speed is None or price is None:
        return _t(ctx, "none")
    return _t(
        ctx,
        "load",
        streams=ctx.f.streams(row.speed.streams_on(row.node)),
        total=ctx.f.number(speed_for_display(row.speed.total_on(row.node))),
        price=ctx.f.money(price, "USD", digits=2),
    )


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


def _cells(ctx: MacroContext, row: Offer, llm: bool) -> list[str]:
    """The row's cells after its node: verdict, why, speed (or jobs), load for a language model, prices, notes."""
    return [
        ctx.verdict_text(row.fit),
        _why(ctx, row),
        _speed(ctx, row),
        *((_load(ctx, row),) if llm else ()),
        *_prices(ctx, row.configuration),
        _notes(ctx, row),
    ]


# --- what the page says above the table ---------------------------------------------------------------
def _how(ctx: MacroContext, row: Offer) -> str:
    """How the cheapest node that runs the model uses its cards: "on its single card", "split across its 4
    cards", "split across 6 of its 8 cards", "one copy on each of its 2 cards"."""
    used, cards = row.fit.cards, row.node.cards
    if used == cards:
        return _t(ctx, "how_single") if cards == 1 else _t(ctx, "how_split_all", cards=ctx.f.number(cards))
    if used == 1:
        return _t(ctx, "how_copies", cards=ctx.f.number(cards))
    return _t(ctx, "how_split_some", used=ctx.f.number(used), cards=ctx.f.number(cards))


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
    lines = [named("summary_runs", runs, how=_how(ctx, runs))]
    if single is None:
        lines.append(_t(ctx, "summary_no_single"))
    elif single.configuration.id != runs.configuration.id:
        lines.append(named("summary_single", single, gpu=ctx.catalog.gpu_of(single.node).short_name))
    if tight is not None and tight.price_per_month.amount < runs.price_per_month.amount:
        lines.append(named("summary_tight", tight, verdict=ctx.verdict_text(tight.fit)))
    return lines


def choice_text(ctx: MacroContext, model: Any, precision_name: str, context: str) -> str:
    """ "Llama 3.3 70B in BF16, 8K tokens"; without the context for an image or video model."""
    if context == NO_CONTEXT:
        return _t(ctx, "choice", model=model.name, precision=precision_name)
    return _t(
        ctx,
        "choice_context",
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
def _script_data(ctx: MacroContext) -> str:
    """Strings and per-configuration figures the script formats rows with (no sizing logic); the same on
    every configurator page of a language at the same depth, so made once per language, depth and data state."""
    return ctx.data.remembered(("configurator script", ctx.lang, ctx.links.lang_root), lambda: _make_script_data(ctx))


def _make_script_data(ctx: MacroContext) -> str:
    c = ctx.catalog
    configurations = []
    for configuration in c.configurations.values():
        node = configuration.cheapest
        month, hour = _prices(ctx, configuration)
        configurations.append(
            {
                "id": configuration.id,
                "name": _label(ctx, configuration),
                "amount": node.price_per_month.amount,
                "month": month,
                "hour": hour,
                "cards": node.cards,
                "gpu": c.gpu_of(node).short_name,
                # what a card offers at each engine's default setting
                "budget": {
                    engine.id: round(card_budget(c, c.gpu_of(node), engine) / GIB, 1) for engine in c.engines.values()
                },
                # the summary names the cheapest node itself, at its own price
                "cheapest_name": ctx.node_label(node),
                "cheapest_month": ctx.monthly_price(node),
            }
        )
    data = {
        "locale": BABEL_LOCALES[ctx.lang].replace("_", "-").replace("-Hans-CN", "-CN"),
        "strings": {
            **strings()["configurator"],
            **{f"verdict_{k}": v for k, v in strings()["verdicts"].items()},
            **{f"tight_{k}": v for k, v in strings()["tight"].items()},
            **{
                f"unit_{k}": strings()["units"][k]
                for k in ("gib", "tokens_per_s", "speed_cell", "cards", "one_card", "streams", "one_stream")
            },
        },
        # the catalog's order, which is the menus' order on the server and in the script
        "precisions": {p.id: p.name for p in c.precisions.values()},
        # the engine that runs each format: a language model's (engines.yml), else the server engine's
        "engines": {
            p.id: (c.engine_of(p) if "llm" in p.applies_to else c.server_engine).id for p in c.precisions.values()
        },
        # US dollars as the language writes them, the amount left to the script: "${value}", "{value} $US"
        "money": ctx.f.money(1234.5, "USD", digits=2).replace(ctx.f.number(1234.5, 2), "{value}"),
        "configurations": configurations,
        "notes": {model.id: _note(ctx, model) for model in c.models.values()},
        "guide": ctx.links.lang_root + GUIDE,
        "pages": ctx.links.lang_root + "configurator/",
    }
    data["strings"] = {k: v[ctx.lang] for k, v in data["strings"].items()}
    # </script> cannot appear: JSON escapes "<" as \u003c below.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


# --- the macro ----------------------------------------------------------------------------------------
def _links(ctx: MacroContext, model_id: str, shown: tuple[str, str]) -> dict[str, Any]:
    """Links to the page of every precision (at the default context) and of every context (at the default
    precision), the page shown marked current, and what each row of links holds fixed."""
    c, base = ctx.catalog, f"{ctx.links.lang_root}configurator/{model_id}/"
    precision, context = default_choice(c, model_id)

    def link(label: str, choice: tuple[str, str]) -> dict[str, Any]:
        return {"label": label, "url": base + choice_path(c, model_id, *choice), "current": choice == shown}

    return {
        "precisions": [link(p.name, (p.id, context)) for p in c.precisions_for(c.models[model_id])],
        "contexts": [
            link(_t(ctx, "context_tokens", value=ctx.f.context(int(k))), (precision, k))
            for k in context_keys(c, model_id)
            if k != NO_CONTEXT
        ],
        "precisions_label": _t(ctx, "precision")
        if context == NO_CONTEXT
        else _t(ctx, "choices_precision", context=_t(ctx, "context_tokens", value=ctx.f.context(int(context)))),
        "contexts_label": _t(ctx, "choices_context", precision=c.precisions[precision].name),
    }


@macro
def configurator(ctx: MacroContext, model: str, precision: str | None = None, context: int | None = None) -> str:
    """The configurator for a model at a precision and context (its defaults when left out): every
    configuration's verdict, why, speed, prices and warnings, the cheapest first, links to every other
    precision and context; the page's script switches model, precision and context from api/fit/."""
    chosen = ctx.model(model)
    precision_id, context_key = _choice(ctx, model, precision, context)
    shown = ctx.precision(precision_id)
    contexts = context_keys(ctx.catalog, chosen.id)
    rows = offers(ctx.catalog, ctx.matrix, chosen.id, shown.id, None if context_key == NO_CONTEXT else int(context_key))
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
    html = TEMPLATES.get_template("configurator.html").render(
        api=ctx.links.root + "api/fit/",
        model=chosen,
        precision=shown,
        context=context_key,
        i18n_json=Markup(_script_data(ctx)),
        labels={
            k: _t(ctx, k) for k in ("model", "precision", "context", "noscript", "other_models", "none", "choices")
        },
        models=[
            {"id": m.id, "name": m.name, "url": f"{ctx.links.lang_root}configurator/{m.id}/"}
            for m in ctx.catalog.models.values()
        ],
        precisions=ctx.catalog.precisions_for(chosen),
        contexts=[
            {"value": c, "label": _t(ctx, "context_tokens", value=ctx.f.context(int(c)))}
            for c in contexts
            if c != NO_CONTEXT
        ],
        links=_links(ctx, chosen.id, (shown.id, context_key)),
        status=status_line(ctx, choice_text(ctx, chosen, shown.name, context_key), rows),
        summary=summary_lines(ctx, rows),
        note=_note(ctx, chosen),
        caption=_t(ctx, "caption", model=chosen.name, precision=shown.name),
        headers=headers,
        none_text=_t(ctx, "none"),
        rows=[
            {
                "verdict": r.fit.verdict.value,
                "configuration": r.configuration.id,
                "name": _label(ctx, r.configuration),
                "cells": _cells(ctx, r, llm),
            }
            for r in rows
        ],
        floor_note=_t(ctx, "floor_note") if llm else "",
    )
    return block(html)


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
    rows = offers(ctx.catalog, ctx.matrix, model_id, precision_id, None if context == NO_CONTEXT else int(context))
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
