"""What the speed page says of its published runs (data/measurements.yml ``decode`` and ``held_out``), every count
computed: the runs and sources a constant is fitted on and their engines (its ``fitted_on``, written by the fit),
the sources of a set, why runs are left out, how the held-out runs relate to the fitted ones, and the table of
every source."""

from __future__ import annotations

from collections import Counter

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.library.speed_accuracy import RECORD_SETS, build_year, engine_note
from macros.output.html import id_code, table
from sizing.catalog.schema import DecodeMeasurement, FittedAssumption
from sizing.views.accuracy import KIN, LEFT_OUT_KINDS, held_out_kin, left_out_kind


def _set(ctx: MacroContext, records: str) -> tuple[DecodeMeasurement, ...]:
    if records not in RECORD_SETS:
        raise MacroError(f"unknown set of records '{records}'; one of {', '.join(RECORD_SETS)}")
    return ctx.catalog.measurements if records == "fitted" else ctx.catalog.held_out_measurements


def _fitted_on(ctx: MacroContext, constant: str) -> list[DecodeMeasurement]:
    """The runs a fitted constant of assumptions.yml is fitted on, in file order."""
    assumption = getattr(ctx.catalog.assumptions, constant, None)
    if not isinstance(assumption, FittedAssumption) or not constant.startswith("decode_"):
        fitted = [name for name, a in ctx.catalog.assumptions if isinstance(a, FittedAssumption)]
        decode = [name for name in fitted if name.startswith("decode_")]
        raise MacroError(f"'{constant}' is no fitted constant of the speed model; one of {', '.join(decode)}")
    ids = set(assumption.fitted_on)
    return [m for m in ctx.catalog.measurements if m.id in ids]


def _runs_and_sources(ctx: MacroContext, runs: list[DecodeMeasurement]) -> str:
    if len(runs) == 1:
        return ctx.text("speed_records", "one_run")
    sources = len({m.source_table for m in runs})
    n = ctx.f.number
    if sources == 1:
        return ctx.text("speed_records", "runs_from_one_source", runs=n(len(runs)))
    return ctx.text("speed_records", "runs_from_sources", runs=n(len(runs)), sources=n(sources))


@macro
def speed_fitted_runs(ctx: MacroContext, constant: str) -> str:
    """How many published runs a constant of the speed model is fitted on (its ``fitted_on``), from how many
    sources: "39 runs from 28 sources"."""
    return _runs_and_sources(ctx, _fitted_on(ctx, constant))


@macro
def speed_fitted_engines(ctx: MacroContext, constant: str) -> str:
    """The runs a constant is fitted on, by the engine they name, most runs first: "39 runs from 28 sources:
    vLLM (13), SGLang (6), …"."""
    runs = _fitted_on(ctx, constant)
    counts = Counter(m.engine_name for m in runs)
    order = sorted(counts, key=lambda name: (-counts[name], name is None, name or ""))
    engines = [
        ctx.text(
            "speed_memory",
            "engine_count",
            engine=name or ctx.text("speed", "engine_not_stated"),
            n=ctx.f.number(counts[name]),
        )
        for name in order
    ]
    return ctx.text("speed_records", "runs_by_engine", runs=_runs_and_sources(ctx, runs), engines=ctx.f.join(engines))


@macro
def speed_source_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many sources (tables of a repository or site, ``source_table``) the counted runs of a set come from."""
    return ctx.f.number(len({m.source_table for m in _set(ctx, records) if m.unreliable is None}))


@macro
def speed_left_out_count(ctx: MacroContext, records: str = "fitted") -> str:
    """How many runs of a set are listed but left out of the fit and the statistics."""
    return ctx.f.number(sum(m.unreliable is not None for m in _set(ctx, records)))


@macro
def speed_left_out_reasons(ctx: MacroContext, records: str = "fitted") -> str:
    """Why the runs of a set are left out, by kind, most first: "13 flagged by their source or by us, 6 of
    llama.cpp builds of 2023–2024, …"."""
    chosen = [m for m in _set(ctx, records) if m.unreliable is not None]
    kinds = Counter(kind for m in chosen if (kind := left_out_kind(m)) is not None)
    parts = []
    for kind in sorted(kinds, key=lambda k: (-kinds[k], LEFT_OUT_KINDS.index(k))):
        values: dict[str, str] = {"n": ctx.f.number(kinds[kind])}
        if kind == "older_llama_cpp":
            years = sorted({y for m in chosen if left_out_kind(m) == kind and (y := build_year(m)) is not None})
            values["years"] = str(years[0]) if years[0] == years[-1] else f"{years[0]}–{years[-1]}"
        one = "_one" if kinds[kind] == 1 else ""
        parts.append(ctx.text("speed_records", f"left_out_{kind}{one}", **values))
    if not parts:
        raise MacroError(f"no run of the set '{records}' is left out: fix the sentence that says why some are")
    return ctx.f.join(parts)


@macro
def speed_held_out_kin(ctx: MacroContext, kind: str) -> str:
    """How many held-out runs, each from a table no fitted run comes from, are still read from a repository or site
    that gave fitted runs (``repository``) or run a model a fitted run runs (``model``): "6 of 9"."""
    if kind not in KIN:
        raise MacroError(f"unknown kinship '{kind}'; one of {', '.join(KIN)}")
    counted = sum(m.unreliable is None for m in ctx.catalog.held_out_measurements)
    shared = held_out_kin(ctx.catalog, kind)
    return ctx.text("speed_memory", "n_of_m", n=ctx.f.number(len(shared)), m=ctx.f.number(counted))


@macro
def speed_sources_table(ctx: MacroContext) -> str:
    """Every source of the published runs (``source_table``, a table of a repository or site), with the engines its
    runs name and how many of them are fitted, held out and left out."""
    rows: dict[str, list[DecodeMeasurement]] = {}
    for m in (*ctx.catalog.measurements, *ctx.catalog.held_out_measurements):
        rows.setdefault(m.source_table, []).append(m)
    held_out = {m.id for m in ctx.catalog.held_out_measurements}
    n = ctx.f.number
    body = []
    for source, runs in rows.items():
        engines = list(dict.fromkeys(engine_note(ctx, m.engine) for m in runs))
        fitted = sum(m.unreliable is None and m.id not in held_out for m in runs)
        kept_apart = sum(m.unreliable is None and m.id in held_out for m in runs)
        left_out = sum(m.unreliable is not None for m in runs)
        body.append([id_code(source), "; ".join(engines), n(fitted), n(kept_apart), n(left_out)])
    headers = [
        ctx.text("speed_records", key)
        for key in ("col_source", "col_engine", "col_fitted", "col_held_out", "col_left_out")
    ]
    return table(ctx.text("speed_records", "sources_caption"), headers, body)
