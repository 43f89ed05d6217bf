"""The configurator macro: every configuration's verdict for one model, pre-rendered, plus what the page's
script needs to switch model, precision and context without recomputing anything."""
from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from sizing.api import NO_CONTEXT, context_keys, speed_for_display
from sizing.configurations import Configuration
from sizing.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, Offer, cheapest, offers, price_per_gpu_hour
from sizing.fit import Verdict, card_budget
from sizing.schema import Llm
from sizing.units import GIB

from ..output.formatting import BABEL_LOCALES
from ..output.html import TEMPLATES, block
from ..output.strings import strings, text
from .context import MacroContext
from .registry import macro

GUIDE = "guides/nvlink-or-pcie/"


def _t(ctx: MacroContext, key: str, **values: Any) -> str:
    return text("configurator", key, ctx.lang, **values)


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
    return _t(ctx, "load", streams=ctx.f.streams(row.speed.streams_on(row.node)),
              total=ctx.f.number(speed_for_display(row.speed.total_on(row.node))),
              price=ctx.f.money(price, "USD", digits=2))


def _summary(ctx: MacroContext, rows: list[Offer]) -> list[str]:
    one = cheapest(rows, {Verdict.ONE_CARD})
    any_fit = cheapest(rows, {Verdict.ONE_CARD, Verdict.SPLIT})
    tight = cheapest(rows, {Verdict.TIGHT})
    lines = [_t(ctx, "summary_one", node=ctx.node_label(one.node), price=ctx.monthly_price(one.node)) if one
             else _t(ctx, "summary_none_one")]
    if any_fit is None and tight is None:
        lines.append(_t(ctx, "summary_none"))
    elif any_fit is not None and any_fit is not one:
        lines.append(_t(ctx, "summary_any", node=ctx.node_label(any_fit.node),
                        price=ctx.monthly_price(any_fit.node)))
    if tight is not None and (any_fit is None or tight.price_per_month < any_fit.price_per_month):
        lines.append(_t(ctx, "summary_tight", node=ctx.node_label(tight.node), price=ctx.monthly_price(tight.node)))
    return lines


def _note(ctx: MacroContext, model: Any) -> str:
    if isinstance(model, Llm):
        if model.active_params is None:
            return ""
        return _t(ctx, "moe_note", model=model.name, total=ctx.f.billions(model.params),
                  active=ctx.f.billions(model.active_params))
    w = model.workload
    workload = _t(ctx, f"workload_{w.kind}", width=w.width_px, height=w.height_px, frames=w.frames)
    return _t(ctx, "diffusion_note", model=model.name, workload=workload)


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


def _script_data(ctx: MacroContext) -> str:
    """Strings and per-configuration figures the script formats rows with (no sizing logic); the same on
    every configurator page of a language, so made once per language and data state."""
    return ctx.data.remembered(("configurator script", ctx.lang, ctx.links.lang_root), lambda: _make_script_data(ctx))


def _make_script_data(ctx: MacroContext) -> str:
    c = ctx.catalog
    configurations = []
    for configuration in c.configurations.values():
        node = configuration.cheapest
        month, hour = _prices(ctx, configuration)
        configurations.append({
            "id": configuration.id, "name": _label(ctx, configuration), "amount": node.price_per_month.amount,
            "month": month, "hour": hour,
            # what a card offers at each engine's default setting
            "budget": {engine.id: round(card_budget(c, c.gpu_of(node), engine) / GIB, 1)
                       for engine in c.engines.values()},
            # the summary names the cheapest node itself, at its own price
            "cheapest_name": ctx.node_label(node), "cheapest_month": ctx.monthly_price(node)})
    data = {
        "locale": BABEL_LOCALES[ctx.lang].replace("_", "-").replace("-Hans-CN", "-CN"),
        "strings": {**strings()["configurator"], **{f"verdict_{k}": v for k, v in strings()["verdicts"].items()},
                    **{f"tight_{k}": v for k, v in strings()["tight"].items()},
                    **{f"unit_{k}": strings()["units"][k] for k in ("gib", "tokens_per_s", "speed_cell", "cards",
                                                                   "one_card", "streams", "one_stream",
                                                                   "params_billions")}},
        "precisions": {p.id: p.name for p in c.precisions.values()},
        # the engine that runs each format: a language model's (engines.yml), else the server engine's
        "engines": {p.id: (c.engine_of(p) if "llm" in p.applies_to else c.server_engine).id
                    for p in c.precisions.values()},
        # US dollars as the language writes them, the amount left to the script: "${value}", "{value} $US"
        "money": ctx.f.money(1234.5, "USD", digits=2).replace(ctx.f.number(1234.5, 2), "{value}"),
        "configurations": configurations,
        "guide": ctx.links.lang_root + GUIDE,
        "pages": ctx.links.lang_root + "configurator/",
    }
    data["strings"] = {k: v[ctx.lang] for k, v in data["strings"].items()}
    # </script> cannot appear: JSON escapes "<" as \u003c below.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


@macro
def configurator(ctx: MacroContext, model: str) -> str:
    """The configurator for a model at its default precision and context: every configuration's verdict, why,
    throughput floor, prices and warnings, the cheapest first; the page's script switches model,
    precision and context from api/fit/."""
    chosen = ctx.model(model)
    precision = ctx.precision(chosen.default_precision)
    contexts = context_keys(ctx.catalog, chosen.id)
    default = str(ctx.catalog.assumptions.default_context_tokens.value)
    context = default if default in contexts else contexts[-1]
    rows = offers(ctx.catalog, ctx.matrix, chosen.id, precision.id,
                  None if context == NO_CONTEXT else int(context))
    speed_header = "col_speed" if isinstance(chosen, Llm) else "col_jobs"
    html = TEMPLATES.get_template("configurator.html").render(
        api=ctx.links.root + "api/fit/", model=chosen, precision=precision, context=context,
        i18n_json=Markup(_script_data(ctx)),
        labels={k: _t(ctx, k) for k in ("model", "precision", "context", "noscript", "other_models", "none")},
        models=[{"id": m.id, "name": m.name, "url": f"{ctx.links.lang_root}configurator/{m.id}/"}
                for m in ctx.catalog.models.values()],
        precisions=ctx.catalog.precisions_for(chosen),
        contexts=[{"value": c, "label": _t(ctx, "context_tokens", value=ctx.f.context(int(c)))}
                  for c in contexts if c != NO_CONTEXT],
        summary=_summary(ctx, rows), note=_note(ctx, chosen),
        caption=_t(ctx, "caption", model=chosen.name, precision=precision.name),
        headers=[_t(ctx, k) for k in ("col_node", "col_verdict", "col_why", speed_header,
                                       *(("col_load",) if isinstance(chosen, Llm) else ()), "col_month",
                                       "col_hour", "col_notes")],
        rows=[{"verdict": r.fit.verdict.value, "configuration": r.configuration.id, "cells": [
            _label(ctx, r.configuration), ctx.verdict_text(r.fit), _why(ctx, r), _speed(ctx, r),
            *((_load(ctx, r),) if isinstance(chosen, Llm) else ()), *_prices(ctx, r.configuration),
            _notes(ctx, r)]} for r in rows],
        floor_note=_t(ctx, "floor_note") if isinstance(chosen, Llm) else "",
    )
    return block(html)
