"""The configurator macro: every configuration's verdict for one model, pre-rendered, plus what the page's
script needs to switch model, precision and context without recomputing anything."""
from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from sizing.api import NO_CONTEXT, context_keys
from sizing.configurations import Configuration
from sizing.offers import FP8_NOT_NATIVE, SPLIT_OVER_PCIE, Offer, cheapest, offers, price_per_gpu_hour
from sizing.fit import Verdict, card_budget
from sizing.schema import Llm
from sizing.units import GIB

from .formatting import BABEL_LOCALES
from .library import Macros, macro
from .strings import strings, text
from .tables import TEMPLATES, block

GUIDE = "guides/nvlink-or-pcie/"


def _t(m: Macros, key: str, **values: Any) -> str:
    return text("configurator", key, m.lang, **values)


def _gib(m: Macros, value: float) -> str:
    return m.f.unit("gib", m.f.number(value, 1))


def _cards(m: Macros, count: int) -> str:
    return m.f.unit("one_card", "") if count == 1 else m.f.unit("cards", m.f.number(count))


def _why(m: Macros, row: Offer) -> str:
    need, budget = _gib(m, row.fit.need.total / GIB), _gib(m, row.fit.budget / GIB)
    if row.fit.verdict is Verdict.ONE_CARD:
        return _t(m, "why_one", need=need, budget=budget)
    if row.fit.verdict is Verdict.SPLIT:
        return _t(m, "why_split", need=need, budget=budget, cards=m.f.number(row.fit.cards))
    return _t(m, "why_nofit", need=need, budget=budget, cards=_cards(m, row.fit.cards))


def _notes(m: Macros, row: Offer) -> Markup:
    parts: list[Markup] = []
    if FP8_NOT_NATIVE in row.warnings:
        parts.append(Markup("{}").format(_t(m, "warn_fp8")))
    if SPLIT_OVER_PCIE in row.warnings:
        link = Markup('<a href="{}">{}</a>').format(m.links.lang_root + GUIDE, _t(m, "warn_pcie_link"))
        parts.append(Markup(_t(m, "with_link", text=Markup.escape(_t(m, "warn_pcie")), link=link)))
    return Markup(_t(m, "notes_separator")).join(parts)


def _speed(m: Macros, row: Offer) -> str:
    if row.tokens_per_s is not None:
        return m._tokens(row.tokens_per_s)
    if row.jobs is not None:
        return _t(m, "jobs", value=m.f.number(row.jobs))
    return _t(m, "none")


def _billions(m: Macros, params: int) -> str:
    value = params / 1e9
    return m.f.unit("params_billions", m.f.number(value) if value >= 100 else m.f.number(value, 1))


def _summary(m: Macros, rows: list[Offer]) -> list[str]:
    one = cheapest(rows, {Verdict.ONE_CARD})
    any_fit = cheapest(rows, {Verdict.ONE_CARD, Verdict.SPLIT})
    lines = [_t(m, "summary_one", node=m._node_label(one.node), price=m.price(one.node.id)) if one
             else _t(m, "summary_none_one")]
    if any_fit is None:
        lines.append(_t(m, "summary_none"))
    elif any_fit is not one:
        lines.append(_t(m, "summary_any", node=m._node_label(any_fit.node), price=m.price(any_fit.node.id)))
    return lines


def _note(m: Macros, model: Any) -> str:
    if isinstance(model, Llm):
        if model.active_params is None:
            return ""
        return _t(m, "moe_note", model=model.name, total=_billions(m, model.params),
                  active=_billions(m, model.active_params))
    w = model.workload
    workload = _t(m, f"workload_{w.kind}", width=w.width_px, height=w.height_px, frames=w.frames)
    return _t(m, "diffusion_note", model=model.name, workload=workload)


def _label(m: Macros, configuration: Configuration) -> str:
    """The configuration's name, with how many nodes offer it when more than one does."""
    name = m._node_label(configuration.cheapest)
    count = len(configuration.nodes)
    return name if count == 1 else _t(m, "offer_count", node=name, count=m.f.number(count))


def _prices(m: Macros, configuration: Configuration) -> tuple[str, str]:
    """Monthly and per-GPU-hour price of the cheapest node; "from" when several nodes offer the hardware."""
    node = configuration.cheapest
    month = m.price(node.id)
    hour = m.f.money(price_per_gpu_hour(m.catalog, node), node.price_per_month.currency, digits=2)
    if len(configuration.nodes) == 1:
        return month, hour
    return _t(m, "price_from", price=month), _t(m, "price_from", price=hour)


_script_data_cache: dict[tuple[str, str, str], str] = {}


def _script_data(m: Macros) -> str:
    """Strings and per-configuration figures the script formats rows with (no sizing logic); the same on
    every configurator page of a language, so made once per language and data state."""
    key = (m.fingerprint, m.lang, m.links.lang_root)
    if key not in _script_data_cache:
        if any(k[0] != m.fingerprint for k in _script_data_cache):
            _script_data_cache.clear()  # the data changed (mkdocs serve): keep no stale figures
        _script_data_cache[key] = _make_script_data(m)
    return _script_data_cache[key]


def _make_script_data(m: Macros) -> str:
    c = m.catalog
    configurations = []
    for configuration in c.configurations.values():
        node = configuration.cheapest
        month, hour = _prices(m, configuration)
        configurations.append({
            "id": configuration.id, "name": _label(m, configuration), "amount": node.price_per_month.amount,
            "month": month, "hour": hour, "budget": round(card_budget(c, c.gpu_of(node)) / GIB, 1),
            # the summary names the cheapest node itself, at its own price
            "cheapest_name": m._node_label(node), "cheapest_month": m.price(node.id)})
    data = {
        "locale": BABEL_LOCALES[m.lang].replace("_", "-").replace("-Hans-CN", "-CN"),
        "strings": {**strings()["configurator"], **{f"verdict_{k}": v for k, v in strings()["verdicts"].items()},
                    **{f"unit_{k}": strings()["units"][k] for k in ("gib", "tokens_per_s", "cards", "one_card",
                                                                   "params_billions")}},
        "precisions": {p.id: p.name for p in c.precisions.values()},
        "configurations": configurations,
        "guide": m.links.lang_root + GUIDE,
        "pages": m.links.lang_root + "configurator/",
    }
    data["strings"] = {k: v[m.lang] for k, v in data["strings"].items()}
    # </script> cannot appear: JSON escapes "<" as \u003c below.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


@macro
def configurator(self: Macros, model: str) -> str:
    """The configurator for a model at its default precision and context: every configuration's verdict, why,
    throughput floor, prices and warnings, the cheapest first; the page's script switches model,
    precision and context from api/fit/."""
    chosen = self._model(model)
    precision = self._precision(chosen.default_precision)
    contexts = context_keys(self.catalog, chosen.id)
    default = str(self.catalog.assumptions.default_context_tokens.value)
    context = default if default in contexts else contexts[-1]
    rows = offers(self.catalog, self.matrix, chosen.id, precision.id,
                  None if context == NO_CONTEXT else int(context))
    speed_header = "col_speed" if isinstance(chosen, Llm) else "col_jobs"
    html = TEMPLATES.get_template("configurator.html").render(
        api=self.links.root + "api/fit/", model=chosen, precision=precision, context=context,
        i18n_json=Markup(_script_data(self)),
        labels={k: _t(self, k) for k in ("model", "precision", "context", "noscript", "other_models", "none")},
        models=[{"id": m.id, "name": m.name, "url": f"{self.links.lang_root}configurator/{m.id}/"}
                for m in self.catalog.models.values()],
        precisions=self.catalog.precisions_for(chosen),
        contexts=[{"value": c, "label": _t(self, "context_tokens", value=self.f.number(int(c)))}
                  for c in contexts if c != NO_CONTEXT],
        summary=_summary(self, rows), note=_note(self, chosen),
        caption=_t(self, "caption", model=chosen.name, precision=precision.name),
        headers=[_t(self, k) for k in ("col_node", "col_verdict", "col_why", speed_header, "col_month",
                                       "col_hour", "col_notes")],
        rows=[{"verdict": r.fit.verdict.value, "configuration": r.configuration.id, "cells": [
            _label(self, r.configuration), self._verdict_text(r.fit), _why(self, r), _speed(self, r),
            *_prices(self, r.configuration), _notes(self, r)]} for r in rows],
        floor_note=_t(self, "floor_note") if isinstance(chosen, Llm) else "",
    )
    return block(html)
