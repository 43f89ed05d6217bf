"""How well the speed model predicts published runs (``sizing.views.accuracy`` on data/measurements.yml): the
figures, the chart of estimated against measured, the table of every record, and the claim that fails the
build when the model misses its targets."""

from __future__ import annotations

import math
import re
from collections import Counter

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.base.languages import SOURCE_LANGUAGE
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.html import block, code, id_code, table
from macros.output.svg import LogScatterChart, draw
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DecodeMeasurement, FigureOrigin, LlamaCppEngine, MemoryMeasurement, ServerEngine
from sizing.catalog.units import GIB
from sizing.engine.fit import visible_memory
from sizing.engine.reserve import is_large_card, release_of, version_key
from sizing.engine.scenarios import measured_setup
from sizing.views.accuracy import (
    FLOOR_STEP,
    MAX_MEDIAN_ABS_ERROR,
    MIN_FLOOR_AT_OR_BELOW_MEASURED,
    OLDER_LLAMA_CPP_BUILD,
    AccuracyError,
    AccuracyMetrics,
    RecordCheck,
    check_records,
    enforce_accuracy,
    floor_misses,
    held_out_sharing_a_setup,
    largest_floor_step,
    metrics,
)
from sizing.views.memory_accuracy import (
    MAX_KV_CACHE_ERROR,
    MemoryCheck,
    MemoryMetrics,
    check_memory_record,
    device_name,
    memory_metrics,
)
from sizing.views.memory_fit import FIGURES

COLOURS = {"used": "#3949ab", "left_out": "#9e9e9e"}


RECORD_SETS = ("fitted", "held_out")


def _records(ctx: MacroContext, records: str) -> tuple[DecodeMeasurement, ...]:
    """``fitted``: the records the constants were fitted on; ``held_out``: those no constant was fitted on."""
    if records not in RECORD_SETS:
        raise MacroError(f"unknown set of records '{records}'; one of {', '.join(RECORD_SETS)}")
    return ctx.catalog.measurements if records == "fitted" else ctx.catalog.held_out_measurements


def _checks(ctx: MacroContext, records: str = "fitted") -> list[tuple[DecodeMeasurement, RecordCheck]]:
    chosen = _records(ctx, records)
    return ctx.data.remembered(
        f"speed checks {records}", lambda: list(zip(chosen, check_records(ctx.catalog, chosen), strict=True))
    )


def _metrics(ctx: MacroContext, records: str = "fitted") -> AccuracyMetrics:
    return ctx.data.remembered(f"speed metrics {records}", lambda: metrics(check for _, check in _checks(ctx, records)))


def _percent(ctx: MacroContext, share: float) -> str:
    return ctx.text("guides", "percent", value=ctx.f.number(100 * share))


def record_name(ref: object) -> str:
    """A catalog id, or the id an inline record gives itself."""
    return ref if isinstance(ref, str) else (getattr(ref, "id", None) or "?")


def card_name(catalog: Catalog, ref: object) -> str:
    """The name a reader knows a record's card by: a catalog card's short name, else the id the record gives it
    as a name ("rtx-3090" is the RTX 3090, "a800-80gb-pcie" the A800 80GB PCIe)."""
    if isinstance(ref, str) and ref in catalog.gpus:
        return catalog.gpus[ref].short_name
    return " ".join("PCIe" if word == "PCIE" else word for word in record_name(ref).upper().split("-"))


def engine_note(ctx: MacroContext, engine: str) -> str:
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
    gpu = card_name(c, record.gpu)
    model = (
        c.models[record.model].name
        if isinstance(record.model, str) and record.model in c.models
        else record_name(record.model)
    )
    precision = record.precision
    precision_name = (
        c.precisions[precision].name
        if isinstance(precision, str) and precision in c.precisions
        else record_name(precision)
        if precision is not None
        else ""
    )
    setup = ctx.text(
        "speed",
        "setup",
        cards=record.cards,
        gpu=gpu,
        model=model,
        precision=precision_name,
        streams=ctx.f.number(record.concurrency),
        engine=engine_note(ctx, record.engine),
    )
    resolved = measured_setup(ctx.catalog, record)
    in_host = resolved.host_layers
    if in_host is None:
        return setup
    bandwidth = ctx.f.gbps(in_host.bandwidth_gbps)
    if in_host.cpu_moe_layers and in_host.gpu_layers > resolved.model.layers:  # the experts alone in host memory
        layers = ctx.f.number(in_host.cpu_moe_layers)
        return ctx.text("speed", "setup_cpu_moe", setup=setup, layers=layers, bandwidth=bandwidth)
    layers = ctx.f.number(in_host.gpu_layers)
    return ctx.text("speed", "setup_gpu_layers", setup=setup, layers=layers, bandwidth=bandwidth)


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
                id_code(record.id),
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
    "decode_sublayer_seconds_llama_cpp",
    "decode_moe_sublayer_extra_seconds",
    "decode_mla_sublayer_extra_seconds",
    "decode_step_host_seconds_server",
    "decode_step_host_seconds_llama_cpp",
    "decode_floor_factor",
    "decode_bandwidth_fraction_host",
    "decode_host_crossing_seconds",
    "layout_tie_share",
)


@macro
def speed_constant(ctx: MacroContext, name: str) -> str:
    """A constant of the speed model (data/assumptions.yml), in its unit: a share as a percentage, a time in
    microseconds or milliseconds."""
    if name not in SPEED_CONSTANTS:
        raise MacroError(f"unknown speed constant '{name}'; one of {', '.join(SPEED_CONSTANTS)}")
    value = getattr(ctx.catalog.assumptions, name).value
    if name.endswith(("_fraction", "_fraction_server", "_fraction_llama_cpp", "_fraction_host", "_factor", "_share")):
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


# --- how the floor was chosen and what falls below it --------------------------------------------------------
@macro
def speed_floor_largest_step(ctx: MacroContext) -> str:
    """The largest 5-point step that, as the floor factor, keeps the floor at or below 90 % of the fitted runs;
    fails the build unless the floor factor is one step below it, as the page says."""
    largest = largest_floor_step(check for _, check in _checks(ctx))
    factor = ctx.catalog.assumptions.decode_floor_factor.value
    if not math.isclose(largest - FLOOR_STEP, factor):
        raise MacroError(
            f"the page says the floor factor sits one step below {largest:.2f}, the largest share that keeps the floor "
            f"under 90 % of the fitted runs; it is {factor}: refit it (bench/fit_speed_model.py) or fix the sentence"
        )
    return _percent(ctx, largest)


@macro
def speed_targets_floor(ctx: MacroContext) -> str:
    """The share of fitted runs the floor must stay at or below (the target the floor factor is chosen on)."""
    return _percent(ctx, MIN_FLOOR_AT_OR_BELOW_MEASURED)


@macro
def speed_floor_misses(ctx: MacroContext, records: str = "fitted") -> str:
    """How many counted runs of the set fall below the floor, out of how many: "3 of 46"."""
    below, of = floor_misses(check for _, check in _checks(ctx, records))
    return ctx.text("speed_memory", "n_of_m", n=ctx.f.number(below), m=ctx.f.number(of))


@macro
def speed_held_out_sharing_a_setup(ctx: MacroContext) -> Markup:
    """The one held-out run whose GPU, cards, model and format are those of a fitted run, as code; fails the build
    unless there is exactly one (the sentence around it says so)."""
    shared = held_out_sharing_a_setup(ctx.catalog)
    if len(shared) != 1:
        raise MacroError(
            f"the page says one held-out run shares its setup with a fitted one; {len(shared)} do now "
            f"({', '.join(shared) or 'none'}): fix the sentence"
        )
    return code(shared[0])


# --- the llama.cpp builds its constants describe ----------------------------------------------------------
LLAMA_CPP_CONSTANTS = (
    "decode_bandwidth_fraction_llama_cpp",
    "decode_step_host_seconds_llama_cpp",
    "decode_sublayer_seconds_llama_cpp",
)
BUILD_NOT_STATED = "build not stated"  # an engine note whose source does not date its build says so
LLAMA_CPP_RUN_SETS = ("fitted", "undated", "older")
YEAR = re.compile(r"(?<![#\w])(20[12]\d)(?!\w)")  # 2010-2029, not "PR #2015" nor a hash


def _llama_cpp_runs(ctx: MacroContext, runs: str) -> list[DecodeMeasurement]:
    """``fitted``: the llama.cpp runs its constants are fitted on (their ``fitted_on``); ``undated``: those of them
    whose source does not date the build; ``older``: the llama.cpp runs of both sets left out as older builds."""
    if runs not in LLAMA_CPP_RUN_SETS:
        raise MacroError(f"unknown set of llama.cpp runs '{runs}'; one of {', '.join(LLAMA_CPP_RUN_SETS)}")
    every = (*ctx.catalog.measurements, *ctx.catalog.held_out_measurements)
    llama_cpp = [m for m in every if m.engine_class == "llama.cpp"]
    if runs == "older":
        return [m for m in llama_cpp if (m.unreliable or "").startswith(OLDER_LLAMA_CPP_BUILD)]
    a = ctx.catalog.assumptions
    named = {r for name in LLAMA_CPP_CONSTANTS for r in getattr(a, name).fitted_on}
    fitted = [m for m in llama_cpp if m.id in named]
    return fitted if runs == "fitted" else [m for m in fitted if build_year(m) is None]


def build_year(record: DecodeMeasurement) -> int | None:
    """The year of a run's build, as its engine note gives it ("llama.cpp (Aug 2025, ...)"); None where the note
    says the source does not state the build."""
    found = YEAR.search(record.engine)
    if found is not None:
        return int(found.group(1))
    if BUILD_NOT_STATED in record.engine:
        return None
    raise MacroError(
        f"measurement '{record.id}': its engine note '{record.engine}' names no year; the speed page says "
        "which llama.cpp builds the constants describe: add the build's year, e.g. 'llama.cpp (2025, b6000)', or "
        f"'{BUILD_NOT_STATED}' where the source does not give it"
    )


@macro
def llama_cpp_run_count(ctx: MacroContext, runs: str = "fitted") -> str:
    """How many llama.cpp runs its constants are fitted on (``fitted``), how many of those do not date their build
    (``undated``), or how many were left out as older builds (``older``)."""
    return ctx.f.number(len(_llama_cpp_runs(ctx, runs)))


@macro
def llama_cpp_build_years(ctx: MacroContext, runs: str = "fitted") -> str:
    """The years of the llama.cpp builds of those runs that date them, first to last: "2025–2026"."""
    years = sorted({y for m in _llama_cpp_runs(ctx, runs) if (y := build_year(m)) is not None})
    if not years:
        raise MacroError(f"no dated llama.cpp run in the set '{runs}': fix the sentence that names their builds")
    return str(years[0]) if years[0] == years[-1] else f"{years[0]}–{years[-1]}"


# --- link figures: measured, copied or derived ----------------------------------------------------------------
def _origin(ctx: MacroContext, origin: FigureOrigin) -> str:
    if origin.basis == "measured":
        return ctx.text("speed_memory", "measured", reference=origin.reference)
    if origin.from_link is not None:
        source = ctx.catalog.interconnects[origin.from_link].name
        return ctx.text("speed_memory", f"{origin.basis}_from_link", link=source)
    return ctx.text("speed_memory", f"{origin.basis}_from_reference", reference=origin.reference)


@macro
def link_figures_table(ctx: MacroContext) -> str:
    """Every link's all-reduce latency and bus bandwidth as the speed model uses them, each marked measured,
    copied or derived, with where it comes from."""
    rows = []
    for link in ctx.catalog.interconnects.values():
        origins = link.figure_origins
        rows.append(
            [
                link.name,
                ctx.f.unit("microseconds", ctx.f.number(link.allreduce_latency_us)),
                _origin(ctx, origins.allreduce_latency_us),
                ctx.f.gbps(link.allreduce_busbw_gbps),
                _origin(ctx, origins.allreduce_busbw_gbps),
            ]
        )
    headers = [
        ctx.text("speed_memory", key)
        for key in ("col_link", "col_latency", "col_latency_origin", "col_busbw", "col_busbw_origin")
    ]
    return table(ctx.text("speed_memory", "links_caption"), headers, rows)


# --- memory: what the rules predict against what engines reported at start-up --------------------------------
MEMORY_SETS = ("fitted", "held_out", "current_fit", "earlier_releases")
MEMORY_ENGINES = {"vllm": "vLLM", "sglang": "SGLang", "llama.cpp": "llama.cpp"}


def _memory_records(ctx: MacroContext, records: str) -> tuple[MemoryMeasurement, ...]:
    """``fitted``: the start-ups the reserve's figures come from; ``held_out``: those kept out of the fit;
    ``current_fit``: the fitted start-ups the current release's figures are fitted on (their ``fitted_on``);
    ``earlier_releases``: the fitted start-ups of earlier releases, judged by those releases' own figures."""
    if records not in MEMORY_SETS:
        raise MacroError(f"unknown set of start-ups '{records}'; one of {', '.join(MEMORY_SETS)}")
    c = ctx.catalog
    if records == "held_out":
        return c.held_out_memory_measurements
    if records == "current_fit":
        fitted_on = {rid for name in FIGURES for rid in getattr(c.server_engine, name).fitted_on}
        return tuple(m for m in c.memory_measurements if m.id in fitted_on)
    if records == "earlier_releases":
        return tuple(
            m for m in c.memory_measurements if m.engine_kind == "vllm" and release_of(c.server_engine, m.engine)
        )
    return c.memory_measurements


def _memory_checks(ctx: MacroContext, records: str) -> list[MemoryCheck]:
    chosen = _memory_records(ctx, records)
    return ctx.data.remembered(
        ("memory checks", records), lambda: [check_memory_record(ctx.catalog, r) for r in chosen]
    )


def _memory_metrics(ctx: MacroContext, records: str) -> MemoryMetrics:
    return ctx.data.remembered(("memory metrics", records), lambda: memory_metrics(_memory_checks(ctx, records)))


def _memory_counted(ctx: MacroContext, records: str) -> list[MemoryMeasurement]:
    """The start-ups of a set ``memory_record_count`` counts: not left out, a KV cache reported."""
    return [m for m in _memory_records(ctx, records) if m.unreliable is None and (m.kv_cache_gib or 0) > 0]


@macro
def memory_source_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many sources (tables of a repository or site, ``source_table``) the counted start-ups of a set (those
    ``memory_record_count`` counts) come from."""
    return ctx.f.number(len({m.source_table for m in _memory_counted(ctx, records)}))


@macro
def memory_engines(ctx: MacroContext, records: str = "held_out") -> str:
    """The engines the counted start-ups of a set ran, with how many each, most first: "vLLM (16), SGLang (8) and
    llama.cpp (1)"."""
    counts = Counter(m.engine_kind for m in _memory_counted(ctx, records))
    engines = [
        ctx.text("speed_memory", "engine_count", engine=MEMORY_ENGINES[kind], n=ctx.f.number(counts[kind]))
        for kind in sorted(counts, key=lambda k: (-counts[k], k))
    ]
    return ctx.f.join(engines)


@macro
def claim_no_start_up_charges_cuda_graphs(ctx: MacroContext) -> str:
    """Fails the build when a counted start-up charged its CUDA graphs inside the budget (the page says none tests
    that figure). Prints nothing."""
    c = ctx.catalog
    charged = [
        m.id
        for m in (*c.memory_measurements, *c.held_out_memory_measurements)
        if m.unreliable is None and m.cuda_graphs_in_budget and not m.enforce_eager
    ]
    if charged:
        raise MacroError(
            f"the page says no start-up charged its CUDA graphs inside the budget; {', '.join(charged)} did: fix the "
            "sentence"
        )
    return ""


@macro
def memory_record_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many start-up figures of the KV cache the engine's memory rules are judged on (not left out)."""
    return ctx.f.number(_memory_metrics(ctx, records).kv_records)


@macro
def memory_within_target(ctx: MacroContext, records: str = "fitted") -> str:
    """How many of them the predicted KV-cache memory is within the target of: "6 of 7"."""
    m = _memory_metrics(ctx, records)
    return ctx.text("speed_memory", "n_of_m", n=ctx.f.number(m.kv_within), m=ctx.f.number(m.kv_records))


@macro
def memory_weights_within(ctx: MacroContext, records: str = "fitted") -> str:
    """How many of the weights engines printed the predicted weights are within the target of: "28 of 28"."""
    m = _memory_metrics(ctx, records)
    return ctx.text("speed_memory", "n_of_m", n=ctx.f.number(m.weights_within), m=ctx.f.number(m.weights_records))


@macro
def memory_failed_seen(ctx: MacroContext, records: str = "fitted") -> str:
    """How many starts that failed for lack of memory the rules also see failing: "5 of 9"."""
    m = _memory_metrics(ctx, records)
    return ctx.text("speed_memory", "n_of_m", n=ctx.f.number(m.failed_predicted), m=ctx.f.number(m.failed))


@macro
def memory_target(ctx: MacroContext) -> str:
    """The gap the predicted KV-cache memory aims to stay within."""
    return _percent(ctx, MAX_KV_CACHE_ERROR)


@macro
def memory_median_error(ctx: MacroContext, records: str = "fitted") -> str:
    """The median gap between predicted and reported KV-cache memory."""
    median = _memory_metrics(ctx, records).kv_median_abs_error
    return ctx.text("guides", "percent", value=ctx.f.number(100 * median, 1))


@macro
def memory_misses(ctx: MacroContext, records: str = "held_out") -> Markup:
    """The records whose KV-cache memory the rules miss by more than the target (counted ones), as code."""
    missed = [
        c.id
        for c in _memory_checks(ctx, records)
        if c.unreliable is None and (e := c.kv_error) is not None and abs(e) > MAX_KV_CACHE_ERROR
    ]
    if not missed:
        return Markup(ctx.text("speed_memory", "no_miss"))
    return Markup(ctx.f.join([str(code(i)) for i in missed]))


def _signed(ctx: MacroContext, value: float) -> str:
    """A gap with its sign: +1.8, -0.2 (a zero gap has none)."""
    shown = ctx.f.number(value, 1)
    return f"+{shown}" if value > 0 and not shown.startswith("-") else shown


def _memory_setup(ctx: MacroContext, record: MemoryMeasurement) -> str:
    """The card, the model and the engine's setting a record started with."""
    c = ctx.catalog
    gpu = card_name(c, record.gpu)
    model = c.models[record.model].name if isinstance(record.model, str) else record_name(record.model)
    if record.engine_kind == "sglang":
        assert record.mem_fraction_static is not None
        setting = f"--mem-fraction-static {ctx.f.code_number(record.mem_fraction_static, 2)}"
    elif record.engine_kind == "vllm":
        assert record.gpu_memory_utilization is not None  # a vLLM record names it (MemoryMeasurement)
        setting = f"--gpu-memory-utilization {ctx.f.code_number(record.gpu_memory_utilization, 2)}"
    else:
        setting = f"--ctx-size {record.max_model_len}"
    return ctx.text(
        "speed_memory", "memory_setup", cards=record.cards, gpu=gpu, model=model, setting=setting, engine=record.engine
    )


@macro
def memory_accuracy_table(ctx: MacroContext, records: str = "fitted") -> str:
    """Every start-up record of a set: its setup, the KV-cache memory the engine reported and the one the rules
    give, the gap, the weights reported and predicted, what the start did, and whether it is counted."""
    if records not in RECORD_SETS:
        raise MacroError(f"unknown table of start-ups '{records}'; one of {', '.join(RECORD_SETS)}")
    chosen = {r.id: r for r in _memory_records(ctx, records)}
    rows = []
    for check in _memory_checks(ctx, records):
        record = chosen[check.id]
        gap = check.kv_error
        rows.append(
            [
                id_code(record.id),
                _memory_setup(ctx, record),
                _gib(ctx, check.measured_kv_gib)
                if check.measured_kv_gib is not None
                else ctx.text("configurator", "none"),
                _gib(ctx, check.predicted_kv_gib),
                ctx.text("configurator", "none")
                if gap is None
                else ctx.text("speed_memory", "signed_percent", value=_signed(ctx, 100 * gap)),
                ctx.text(
                    "speed_memory",
                    "memory_weights",
                    reported=ctx.text("configurator", "none")
                    if check.measured_weights_gib is None
                    else _gib(ctx, check.measured_weights_gib),
                    predicted=_gib(ctx, check.predicted_weights_gib),
                ),
                ctx.text("speed_memory", f"outcome_{check.outcome}"),
                ctx.text("speed", "left_out" if check.unreliable else "used"),
            ]
        )
    headers = [
        ctx.text("speed_memory", key)
        for key in (
            "col_record",
            "col_memory_setup",
            "col_reported",
            "col_predicted",
            "col_gap",
            "col_weights",
            "col_outcome",
            "col_counted",
        )
    ]
    return table(ctx.text("speed_memory", f"memory_caption_{records}"), headers, rows)


# --- the engine reserve's figures (data/engines.yml) ----------------------------------------------------------
def _gib(ctx: MacroContext, value: float) -> str:
    return ctx.f.unit("gib", ctx.f.number(value, 2))


def _engine_figures(ctx: MacroContext) -> dict[str, str]:
    """Every figure of the engine reserve, formatted in its unit."""
    server = ctx.catalog.server_engine
    llama_cpp = next(e for e in ctx.catalog.engines.values() if isinstance(e, LlamaCppEngine))
    rule = server.batch_budget
    n = ctx.f.number
    return {
        "activation_base_gib": _gib(ctx, server.activation_base_gib.value),
        "activation_moe_extra_gib": _gib(ctx, server.activation_moe_extra_gib.value),
        "cuda_context_gib": _gib(ctx, server.cuda_context_gib.value),
        "nccl_buffers_gib": _gib(ctx, server.nccl_buffers_gib.value),
        "cuda_graphs_gib": _gib(ctx, server.cuda_graphs_gib.value),
        "large_card_min_gib": ctx.f.unit("gib", n(rule.large_card_min_gib)),
        "large_card_tokens": n(rule.large_card.tokens),
        "large_card_sequences": n(rule.large_card.sequences),
        "other_cards_tokens": n(rule.other_cards.tokens),
        "other_cards_sequences": n(rule.other_cards.sequences),
        "sampler_bytes_per_vocab_entry": ctx.text(
            "links", "bytes", value=n(server.sampler_bytes_per_vocab_entry.value)
        ),
        "tight_memory_utilization": n(server.tight_memory_utilization.value, 2),
        "llama_cpp_ubatch_tokens": n(llama_cpp.ubatch_tokens.value),
        "llama_cpp_cuda_context_gib": _gib(ctx, llama_cpp.cuda_context_gib.value),
        "llama_cpp_parallel_slots": n(llama_cpp.parallel_slots.value),
        "nvswitch_buffers_gib": _gib(ctx, server.nvswitch_buffers_gib.value),
        "excluded_large_cards": _excluded_large_cards(ctx, server),
        "sglang_mamba_ratio": n(server.sglang_mamba_full_memory_ratio.value, 1),
        **_earlier_release_figures(ctx, server),
    }


def _excluded_large_cards(ctx: MacroContext, server: ServerEngine) -> str:
    """The catalog's cards with the memory of the larger batch that vLLM gives the smaller one by their name: "A100
    80GB PCIe and A100 80GB SXM4"."""
    rule = server.batch_budget
    big_enough = [
        g for g in ctx.catalog.gpus.values() if visible_memory(ctx.catalog, g) >= rule.large_card_min_gib * GIB
    ]
    excluded = [
        g.short_name
        for g in big_enough
        if not is_large_card(visible_memory(ctx.catalog, g), device_name(g), 0, rule.large_card_excluded_names)
    ]
    if not excluded:
        raise MacroError("no card of the catalog is excluded from vLLM's larger batch by its name: fix the sentence")
    return ctx.f.join(excluded)


def _earlier_release_figures(ctx: MacroContext, server: ServerEngine) -> dict[str, str]:
    """What earlier releases of the server engine kept: the sampler's bytes before the current release, V0's batch;
    and the version the current release's figures start at (a version name, never localized: "0.11")."""
    n = ctx.f.number
    before = max(
        (r for r in server.earlier_releases if r.before is not None), key=lambda r: version_key(r.before or "")
    )
    v0 = next(r for r in server.earlier_releases if r.v0)
    assert v0.batch_budget is not None and v0.whole_context_batch_up_to is not None
    return {
        "sampler_bytes_per_vocab_entry_before": ctx.text(
            "links", "bytes", value=n(before.sampler_bytes_per_vocab_entry)
        ),
        "v0_sequences": n(v0.batch_budget.other_cards.sequences),
        "v0_whole_context_tokens": n(v0.whole_context_batch_up_to),
        "current_release": str(before.before),
    }


@macro
def engine_figure(ctx: MacroContext, name: str) -> str:
    """A figure of the engine reserve (data/engines.yml), in its unit: GiB with two decimals, a batch in tokens or
    sequences, bytes, or a plain share."""
    figures = _engine_figures(ctx)
    if name not in figures:
        raise MacroError(f"unknown engine figure '{name}'; one of {', '.join(figures)}")
    return figures[name]


@macro
def claim_fits_with_fp8_kv_cache(ctx: MacroContext, model: str, precision: str, node: str, context: int) -> str:
    """Fails the build unless the verdict for the model on the node at this context is tight, and fits by the
    KV cache in FP8 (``--kv-cache-dtype fp8``). Prints nothing."""
    fit = ctx.cell(model, precision, node, context).fit
    if fit.tight_by != "kv_cache_dtype":
        raise MacroError(
            f"the page says {model} in {precision} on {node} at {context} tokens fits only with an FP8 KV cache; "
            f"its verdict is now {fit.verdict.value} ({fit.tight_by or 'at the default setting'}): fix the sentence"
        )
    return ""
