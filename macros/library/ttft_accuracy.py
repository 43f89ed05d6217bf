"""The time to first token on the speed page (``sizing.engine.prefill``, ``sizing.views.prefill_accuracy``): its
constants, a worked figure for a catalog node, how well it predicts published runs, the table of every
record, and the claim that fails the build when the runs kept out of the fit drift past the target."""

from __future__ import annotations

import math

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.library.speed_accuracy import card_name, record_name
from macros.output.html import id_code, table
from sizing.catalog.schema import PrefillMeasurement
from sizing.engine.load import TAIL_PERCENTILE, Arrival
from sizing.engine.prefill import PrefillConstants, estimate_ttft
from sizing.views.prefill_accuracy import (
    MAX_MEDIAN_ABS_ERROR_HELD_OUT,
    MIN_WITHIN_2X_HELD_OUT,
    TtftCheck,
    TtftMetrics,
    check_records,
    metrics,
    missed_target,
)

RECORD_SETS = ("fitted", "held_out")
TTFT_CONSTANTS = (
    "prefill_compute_fraction",
    "prefill_compute_fraction_llama_cpp",
    "prefill_request_seconds_server",
    "prefill_frontend_seconds_server",
    "prefill_attention_score_bytes_llama_cpp",
    "ttft_ceiling_factor",
)


def _records(ctx: MacroContext, records: str) -> tuple[PrefillMeasurement, ...]:
    if records not in RECORD_SETS:
        raise MacroError(f"unknown set of records '{records}'; one of {', '.join(RECORD_SETS)}")
    c = ctx.catalog
    return c.prefill_measurements if records == "fitted" else c.held_out_prefill_measurements


def _checks(ctx: MacroContext, records: str = "fitted") -> list[tuple[PrefillMeasurement, TtftCheck]]:
    chosen = _records(ctx, records)
    return ctx.data.remembered(
        f"ttft checks {records}", lambda: list(zip(chosen, check_records(ctx.catalog, chosen), strict=True))
    )


def _metrics(ctx: MacroContext, records: str = "fitted") -> TtftMetrics:
    return ctx.data.remembered(f"ttft metrics {records}", lambda: metrics(c for _, c in _checks(ctx, records)))


def _percent(ctx: MacroContext, share: float) -> str:
    return ctx.text("guides", "percent", value=ctx.f.number(100 * share))


def _seconds(ctx: MacroContext, seconds: float) -> str:
    if seconds >= 1:
        return ctx.f.unit("seconds", ctx.f.significant(seconds))
    return ctx.f.unit("milliseconds", ctx.f.significant(seconds * 1e3))


def _setup(ctx: MacroContext, record: PrefillMeasurement) -> str:
    c = ctx.catalog
    gpu = card_name(c, record.gpu)
    model = c.models[record.model].name if isinstance(record.model, str) else record_name(record.model)
    if record.arrival == "poisson":
        assert record.requests_per_s is not None
        arrival = ctx.text("ttft", "arrival_poisson", rate=ctx.f.number(record.requests_per_s, 1))
    elif record.arrival == "burst":
        assert record.burst_requests is not None
        arrival = ctx.text("ttft", "arrival_burst", count=ctx.f.number(record.burst_requests))
    else:
        arrival = ctx.text("ttft", "arrival_closed", count=ctx.f.number(record.concurrency))
    return ctx.text(
        "ttft",
        "setup",
        cards=record.cards,
        gpu=gpu,
        model=model,
        prompt=ctx.f.number(record.prompt_tokens),
        arrival=arrival,
        engine=record.engine,
    )


@macro
def ttft_constant(ctx: MacroContext, name: str) -> str:
    """A constant of the time-to-first-token model (data/assumptions.yml), in its unit."""
    if name not in TTFT_CONSTANTS:
        raise MacroError(f"unknown time-to-first-token constant '{name}'; one of {', '.join(TTFT_CONSTANTS)}")
    value = getattr(ctx.catalog.assumptions, name).value
    if "_fraction" in name:
        return _percent(ctx, value)
    if name.endswith("_factor"):
        return ctx.f.number(value, 2)
    if "_seconds" in name:
        return _seconds(ctx, value)
    if name.endswith("_bytes_llama_cpp"):
        return ctx.text("links", "bytes", value=ctx.f.number(value))
    return ctx.f.number(value)


@macro
def ttft_example(
    ctx: MacroContext,
    model: str,
    node: str,
    prompt_tokens: int,
    users: int = 1,
    *,
    output_tokens: int = 500,
    precision: str | None = None,
    figure: str = "typical",
) -> str:
    """The time to first token of a prompt of ``prompt_tokens`` among ``users`` users of one copy of the model as
    ``node`` runs it at that context (``sizing.engine.deployment``; as ``python -m sizing.plan`` counts it):
    ``typical`` or ``at_most``."""
    if figure not in ("typical", "at_most"):
        raise MacroError(f"unknown figure '{figure}'; one of typical, at_most")
    layout = ctx.layout_at(model, precision, node, prompt_tokens + output_tokens)
    prefill = PrefillConstants.from_assumptions(ctx.catalog.assumptions)
    e = estimate_ttft(
        layout.setup,
        prefill,
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        arrival=Arrival("closed", users=users),
        most_streams=layout.most_streams,
    )
    return _seconds(ctx, e.ttft_seconds if figure == "typical" else e.ttft_at_most_seconds)


@macro
def ttft_record_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many published times to first token (not left out) the model is judged on."""
    return ctx.f.number(_metrics(ctx, records).records)


@macro
def ttft_median_error(ctx: MacroContext, records: str = "fitted") -> str:
    """The median gap between the typical time to first token and a published one."""
    return _percent(ctx, _metrics(ctx, records).median_abs_error)


@macro
def ttft_within_2x(ctx: MacroContext, records: str = "fitted") -> str:
    """The share of published times the typical time is within a factor of two of."""
    return _percent(ctx, _metrics(ctx, records).within_2x)


@macro
def ttft_at_most_share(ctx: MacroContext, records: str = "fitted") -> str:
    """The share of published times at or under the "at most" figure."""
    return _percent(ctx, _metrics(ctx, records).at_or_under_at_most)


@macro
def ttft_record(ctx: MacroContext, record: str) -> Markup:
    """A published first-token record by its id, with its measured time and the model's: "`id` (measured 377 ms,
    ours 502 ms)", in the brackets of the page's language."""
    found = {m.id: c for records in RECORD_SETS for m, c in _checks(ctx, records)}
    if record not in found:
        raise MacroError(f"unknown first-token record '{record}' (measurements.yml prefill or prefill_held_out)")
    check = found[record]
    figures = ctx.text(
        "ttft",
        "record_figures",
        measured=_seconds(ctx, check.measured_seconds),
        estimate=_seconds(ctx, check.typical_seconds),
    )
    return Markup(f"{id_code(record)}{figures}")


@macro
def ttft_prompt_range(ctx: MacroContext, records: str = "fitted") -> str:
    """The shortest and longest prompt of the counted records of the set ("128 to 16,384 tokens")."""
    prompts = [m.prompt_tokens for m in _records(ctx, records) if m.unreliable is None]
    return ctx.text("ttft", "prompt_range", low=ctx.f.number(min(prompts)), high=ctx.f.number(max(prompts)))


@macro
def ttft_table_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many published tables (or pages) the counted records of the set come from."""
    counted = [m for m in _records(ctx, records) if m.unreliable is None]
    return ctx.f.number(len({m.source_table or m.source for m in counted}))


@macro
def ttft_misses(ctx: MacroContext, records: str = "held_out") -> Markup:
    """The counted records of the set the model misses by more than a factor of two, as code."""
    missed = [m.id for m, c in _checks(ctx, records) if c.unreliable is None and not 0.5 <= c.ratio <= 2]
    if not missed:
        return Markup(ctx.text("ttft", "no_miss"))
    return Markup(ctx.f.join([str(id_code(i)) for i in missed]))


@macro
def ttft_tail_share(ctx: MacroContext) -> str:
    """The share of waits in line the "at most" first token covers ("90 %")."""
    return _percent(ctx, TAIL_PERCENTILE)


@macro
def ttft_within_2x_target(ctx: MacroContext) -> str:
    """The share of the runs kept out of the fit we aim to hold within a factor of two."""
    return _percent(ctx, MIN_WITHIN_2X_HELD_OUT)


@macro
def ttft_target(ctx: MacroContext) -> str:
    """The median error the build holds the model to on the runs kept out of the fit."""
    return _percent(ctx, MAX_MEDIAN_ABS_ERROR_HELD_OUT)


@macro
def claim_ttft_accuracy(ctx: MacroContext) -> str:
    """Fails the build when the median error on the prefill records kept out of the fit exceeds the target."""
    missed = missed_target(_metrics(ctx, "held_out"))
    if missed is not None:
        raise MacroError(
            f"time to first token: {missed}; fix the model or its constants in data/assumptions.yml, "
            "not the measurements"
        )
    return ""


@macro
def ttft_accuracy_table(ctx: MacroContext, records: str = "fitted") -> str:
    """Every published time to first token of the set against the model's typical time."""
    rows = []
    for record, check in _checks(ctx, records):
        counted = "left_out" if check.unreliable else "used" if records == "fitted" else "never_fitted"
        saturated = math.isinf(check.typical_seconds)
        rows.append(
            [
                id_code(record.id),
                _setup(ctx, record),
                _seconds(ctx, check.measured_seconds),
                ctx.text("ttft", "saturated") if saturated else _seconds(ctx, check.typical_seconds),
                ctx.text("configurator", "none")
                if saturated
                else ctx.text("speed", "ratio", value=ctx.f.number(check.ratio, 2)),
                ctx.text("speed", counted),
            ]
        )
    headers = [ctx.text("ttft", key) for key in ("col_record", "col_setup", "col_measured", "col_estimate")]
    headers += [ctx.text("speed", "col_ratio"), ctx.text("speed", "col_used")]
    caption = "table_caption" if records == "fitted" else "held_out_caption"
    return table(ctx.text("ttft", caption), headers, rows)


@macro
def user_count(ctx: MacroContext, users: int) -> str:
    """A number of users served at once, as the language writes it ("25 users")."""
    return ctx.text("ttft", "users", count=ctx.f.number(users))
