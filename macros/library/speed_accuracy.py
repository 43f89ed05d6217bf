"""How well the speed model predicts published runs (``sizing.views.accuracy`` on data/measurements.yml): the
figures, the chart of estimated against measured, the table of every record, and the claim that fails the
build when the model misses its targets."""

from __future__ import annotations

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.base.languages import SOURCE_LANGUAGE
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.html import block, code, table
from macros.output.svg import LogScatterChart, draw
from sizing.catalog.schema import DecodeMeasurement
from sizing.views.accuracy import (
    MAX_MEDIAN_ABS_ERROR,
    MIN_FLOOR_AT_OR_BELOW_MEASURED,
    AccuracyError,
    AccuracyMetrics,
    RecordCheck,
    check_records,
    enforce_accuracy,
    metrics,
)

COLOURS = {"used": "#3949ab", "left_out": "#9e9e9e"}


RECORD_SETS = ("fitted", "held_out")


def _records(ctx: MacroContext, records: str) -> tuple[DecodeMeasurement, ...]:
    """``fitted``: the records the constants were fitted on; ``held_out``: those no constant was fitted on."""
    if records not in RECORD_SETS:
        raise MacroError(f"unknown set of records '{records}'; one of {', '.join(RECORD_SETS)}")
    return ctx.catalog.measurements if records == "fitted" else ctx.catalog.held_out_measurements


def _checks(ctx: MacroContext, records: str = "fitted") -> list[tuple[DecodeMeasurement, RecordCheck]]:
    chosen = _records(ctx, records)
    return ctx.data.remembered(f"speed checks {records}", lambda: list(zip(chosen, check_records(ctx.catalog, chosen))))


def _metrics(ctx: MacroContext, records: str = "fitted") -> AccuracyMetrics:
    return ctx.data.remembered(f"speed metrics {records}", lambda: metrics(check for _, check in _checks(ctx, records)))


def _percent(ctx: MacroContext, share: float) -> str:
    return ctx.text("guides", "percent", value=ctx.f.number(100 * share))


def _named(ref: object) -> str:
    """A catalog id, or the id an inline record gives itself."""
    return ref if isinstance(ref, str) else (getattr(ref, "id", None) or "?")


def _shown_name(ref: object) -> str:
    """The name a reader knows a card by, from the id an inline record gives it: "rtx-3090" is the RTX 3090."""
    return _named(ref).upper().replace("-", " ")


def _engine(ctx: MacroContext, engine: str) -> str:
    """The engine a run used, as the page's language writes it. The records note it in English, with remarks in
    brackets ("SGLang (version not stated)"): a translation shows the engine's name and version, and says when
    the source does not state them; the English page shows the whole note."""
    if ctx.lang == SOURCE_LANGUAGE:
        return engine
    name = engine.split(" (", 1)[0].strip()
    if name.startswith("not stated"):
        return ctx.text("speed", "engine_not_stated")
    if "version not stated" in engine:
        return ctx.text("speed", "engine_version_not_stated", engine=name)
    return name


def _setup(ctx: MacroContext, record: DecodeMeasurement) -> str:
    c = ctx.catalog
    gpu = (
        c.gpus[record.gpu].short_name
        if isinstance(record.gpu, str) and record.gpu in c.gpus
        else _shown_name(record.gpu)
    )
    model = (
        c.models[record.model].name
        if isinstance(record.model, str) and record.model in c.models
        else _named(record.model)
    )
    precision = record.precision
    precision_name = (
        c.precisions[precision].name
        if isinstance(precision, str) and precision in c.precisions
        else _named(precision)
        if precision is not None
        else ""
    )
    return ctx.text(
        "speed",
        "setup",
        cards=record.cards,
        gpu=gpu,
        model=model,
        precision=precision_name,
        streams=ctx.f.number(record.concurrency),
        engine=_engine(ctx, record.engine),
    )


@macro
def speed_record_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many published measurements the speed model is judged on (those not left out): the ``fitted``
    records or the ``held_out`` ones."""
    return ctx.f.number(_metrics(ctx, records).records)


@macro
def speed_median_error(ctx: MacroContext, records: str = "fitted") -> str:
    """The median gap between the typical speed and a published measurement."""
    return _percent(ctx, _metrics(ctx, records).median_abs_error)


@macro
def speed_within_2x(ctx: MacroContext, records: str = "fitted") -> str:
    """The share of published measurements the typical speed is within a factor of two of."""
    return _percent(ctx, _metrics(ctx, records).within_2x)


@macro
def speed_floor_below(ctx: MacroContext, records: str = "fitted") -> str:
    """The share of published measurements at or above the floor."""
    return _percent(ctx, _metrics(ctx, records).floor_at_or_below_measured)


@macro
def claim_speed_accuracy(ctx: MacroContext) -> str:
    """Fails the build when the speed model misses its targets on data/measurements.yml: median error of the
    typical speed at most 25 %, floor at or below at least 90 % of the measurements. Prints nothing."""
    try:
        enforce_accuracy(ctx.catalog)
    except AccuracyError as exc:
        raise MacroError(
            f"{exc}; the speed model no longer matches published runs: fix the model or its "
            "constants in data/assumptions.yml, not the measurements"
        ) from None
    return ""


@macro
def chart_speed_accuracy(ctx: MacroContext) -> Markup:
    """A chart of every published measurement against the typical speed the model gives it, on log axes."""
    points = tuple(
        (check.measured, check.typical, COLOURS["left_out" if check.unreliable else "used"])
        for _, check in _checks(ctx)
    )
    chart = LogScatterChart(
        ctx.lang,
        points,
        ctx.text("speed", "chart_x"),
        ctx.text("speed", "chart_y"),
        (
            (COLOURS["used"], ctx.text("speed", "legend_used")),
            (COLOURS["left_out"], ctx.text("speed", "legend_left_out")),
        ),
        ctx.text("speed", "legend_band"),
    )
    title = ctx.text("speed", "chart_title")
    m = _metrics(ctx)
    description = ctx.text(
        "speed",
        "chart_desc",
        count=ctx.f.number(len(points)),
        used=ctx.f.number(m.records),
        median=_percent(ctx, m.median_abs_error),
        within=_percent(ctx, m.within_2x),
    )
    return block(
        Markup('<figure class="chart">{}<figcaption>{}</figcaption></figure>').format(
            Markup(draw(chart, title, description)), title
        )
    )


@macro
def speed_accuracy_table(ctx: MacroContext, records: str = "fitted") -> str:
    """Every published measurement of the set: its setup, measured and estimated speed of one stream, the ratio,
    and whether it counts (a fitted record can be left out; a held-out one was never fitted)."""
    rows = []
    for record, check in _checks(ctx, records):
        counted = "left_out" if check.unreliable else "used" if records == "fitted" else "never_fitted"
        rows.append(
            [
                code(record.id),
                _setup(ctx, record),
                ctx.f.tokens_per_s(check.measured),
                ctx.f.speed(check.typical, check.floor, in_a_cell=True),
                ctx.text("speed", "ratio", value=ctx.f.number(check.ratio, 2)),
                ctx.text("speed", counted),
            ]
        )
    headers = [
        ctx.text("speed", key)
        for key in ("col_record", "col_setup", "col_measured", "col_estimate", "col_ratio", "col_used")
    ]
    caption = "table_caption" if records == "fitted" else "held_out_caption"
    return table(ctx.text("speed", caption), headers, rows)


SPEED_CONSTANTS = (
    "decode_bandwidth_fraction_server",
    "decode_bandwidth_fraction_llama_cpp",
    "decode_compute_fraction",
    "decode_combine_exponent",
    "decode_sublayer_seconds",
    "decode_moe_sublayer_extra_seconds",
    "decode_mla_sublayer_extra_seconds",
    "decode_step_host_seconds_server",
    "decode_step_host_seconds_llama_cpp",
    "decode_floor_factor",
    "max_running_streams",
)


@macro
def speed_constant(ctx: MacroContext, name: str) -> str:
    """A constant of the speed model (data/assumptions.yml), in its unit: a share as a percentage, a time in
    microseconds or milliseconds."""
    if name not in SPEED_CONSTANTS:
        raise MacroError(f"unknown speed constant '{name}'; one of {', '.join(SPEED_CONSTANTS)}")
    value = getattr(ctx.catalog.assumptions, name).value
    if name.endswith(("_fraction", "_fraction_server", "_fraction_llama_cpp", "_factor")):
        return _percent(ctx, value)
    if name.endswith("_seconds") or "_seconds_" in name:
        if value >= 1e-3:
            return ctx.f.unit("milliseconds", ctx.f.significant(value * 1e3))
        return ctx.f.unit("microseconds", ctx.f.number(value * 1e6))
    return ctx.f.number(value, 0 if float(value).is_integer() else 1)


@macro
def speed_targets(ctx: MacroContext) -> str:
    """The targets the build holds the speed model to (``sizing.views.accuracy``)."""
    return ctx.text(
        "speed",
        "targets",
        median=_percent(ctx, MAX_MEDIAN_ABS_ERROR),
        floor=_percent(ctx, MIN_FLOOR_AT_OR_BELOW_MEASURED),
    )
