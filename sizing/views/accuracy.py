"""How well the decode-speed model predicts published measurements (data/measurements.yml), and the targets
it must hold: the floor at or below the measurement for at least 90 % of usable records, the median error of
the typical speed at most 25 %. Records flagged ``unreliable`` are shown but kept out of the statistics."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, replace

from sizing.catalog.errors import SizingError
from sizing.catalog.fitted_on import records_moved_by
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DecodeMeasurement, FittedAssumption
from sizing.engine.decode import DecodeConstants, StepSeconds, step_seconds
from sizing.engine.scenarios import measured_setup

MIN_FLOOR_AT_OR_BELOW_MEASURED = 0.90
MAX_MEDIAN_ABS_ERROR = 0.25


class AccuracyError(SizingError):
    """The decode-speed model misses its accuracy targets on measurements.yml."""


@dataclass(frozen=True)
class RecordCheck:
    id: str
    concurrency: int
    measured: float
    typical: float
    floor: float
    step: StepSeconds
    unreliable: str | None

    @property
    def ratio(self) -> float:
        """typical / measured."""
        return self.typical / self.measured


@dataclass(frozen=True)
class AccuracyMetrics:
    records: int
    median_abs_error: float
    within_2x: float
    floor_at_or_below_measured: float
    median_ratio: float


def check_records(
    catalog: Catalog, records: Iterable[DecodeMeasurement] | None = None, constants: DecodeConstants | None = None
) -> list[RecordCheck]:
    """Each record (by default every ``decode`` record of measurements.yml), in order, with the model's typical
    and floor speed, under ``constants`` (by default those of assumptions.yml)."""
    checks = []
    for m in catalog.measurements if records is None else records:
        setup = replace(measured_setup(catalog, m), reads_output_head=m.logits_every_step)
        if constants is not None:
            element = setup.constants.kv_cache_bytes_per_element
            setup = replace(setup, constants=replace(constants, kv_cache_bytes_per_element=element))
        seconds = step_seconds(setup, m.concurrency)
        typical = 1 / seconds.total
        floor = typical * setup.constants.floor_factor
        checks.append(
            RecordCheck(m.id, m.concurrency, m.tokens_per_s_per_stream, typical, floor, seconds, m.unreliable)
        )
    return checks


def metrics(checks: Iterable[RecordCheck]) -> AccuracyMetrics:
    """The statistics over the usable (unflagged) records."""
    usable = [c for c in checks if c.unreliable is None]
    if not usable:
        raise AccuracyError("no usable record in measurements.yml")
    ratios = [c.ratio for c in usable]
    return AccuracyMetrics(
        records=len(usable),
        median_abs_error=statistics.median(abs(r - 1) for r in ratios),
        within_2x=sum(0.5 <= r <= 2 for r in ratios) / len(ratios),
        floor_at_or_below_measured=sum(c.floor <= c.measured for c in usable) / len(usable),
        median_ratio=statistics.median(ratios),
    )


FLOOR_STEP = 0.05


def floor_misses(checks: Iterable[RecordCheck]) -> tuple[int, int]:
    """Usable records whose measurement falls below the floor, and the usable records: (below, of)."""
    usable = [c for c in checks if c.unreliable is None]
    return sum(c.floor > c.measured for c in usable), len(usable)


def largest_floor_step(checks: Iterable[RecordCheck], step: float = FLOOR_STEP) -> float:
    """The largest multiple of ``step`` that, as the floor factor, keeps the floor at or below at least
    ``MIN_FLOOR_AT_OR_BELOW_MEASURED`` of the usable records (the floor factor is one step below it)."""
    usable = [c for c in checks if c.unreliable is None]
    best = 0.0
    for k in range(1, round(1 / step) + 1):
        factor = round(k * step, 10)
        share = sum(c.typical * factor <= c.measured for c in usable) / len(usable)
        if share >= MIN_FLOOR_AT_OR_BELOW_MEASURED:
            best = factor
    return best


def setup_of(record: DecodeMeasurement) -> tuple[str, int, str, str]:
    """GPU, cards, model and format of a record, by catalog id or the id an inline figure gives itself."""

    def named(ref: object) -> str:
        return ref if isinstance(ref, str) else str(getattr(ref, "id", None))

    return named(record.gpu), record.cards, named(record.model), named(record.precision)


def held_out_sharing_a_setup(catalog: Catalog) -> list[str]:
    """Held-out records whose GPU, cards, model and format are those of a fitted record."""
    fitted = {setup_of(m) for m in catalog.measurements}
    return [m.id for m in catalog.held_out_measurements if setup_of(m) in fitted]


def repository(record: DecodeMeasurement) -> str:
    """The repository or site a record was read from: the first part of its ``source_table``."""
    return record.source_table.split("/", 1)[0]


KIN = ("repository", "model")


def held_out_kin(catalog: Catalog, kind: str) -> list[str]:
    """Usable held-out records read from a repository or site (``repository``) that gave a fitted record, or running
    a model (``model``) that a fitted record runs: apart from the fit by their table, not strangers to it."""
    fitted = [m for m in catalog.measurements if m.unreliable is None]
    of = repository if kind == "repository" else (lambda m: setup_of(m)[2])
    shared = {of(m) for m in fitted}
    return [m.id for m in catalog.held_out_measurements if m.unreliable is None and of(m) in shared]


OLDER_LLAMA_CPP_BUILD = "scope: a llama.cpp build of"  # how a run of a 2023-24 llama.cpp build is left out
LEFT_OUT_KINDS = ("flagged", "older_llama_cpp", "scope", "duplicate")


def left_out_kind(record: DecodeMeasurement) -> str | None:
    """Why a record is left out, by kind (``LEFT_OUT_KINDS``): its figure flagged by its source or by us ("note:"),
    a llama.cpp build of 2023-24, another setup the model does not describe ("scope:"), a duplicate; None when it
    counts."""
    reason = record.unreliable
    if reason is None:
        return None
    if reason.startswith(OLDER_LLAMA_CPP_BUILD):
        return "older_llama_cpp"
    if reason.startswith("scope:"):
        return "scope"
    return "flagged" if reason.startswith("note:") else "duplicate"


DECODE_PREFIX = "decode_"  # a decode constant of assumptions.yml is its DecodeConstants field with this prefix


def decode_fitted_on(catalog: Catalog) -> dict[str, list[str]]:
    """What each fitted decode constant of assumptions.yml is fitted on: the usable ``decode`` records whose typical
    speed or floor moves with it (``bench/fit_speed_model.py`` fits every constant on every usable record; the
    others do not weigh on its value)."""
    usable = [m for m in catalog.measurements if m.unreliable is None]
    names = [
        name
        for name, assumption in catalog.assumptions
        if name.startswith(DECODE_PREFIX) and isinstance(assumption, FittedAssumption)
    ]
    moved = records_moved_by(
        usable,
        lambda constants: [(c.typical, c.floor) for c in check_records(catalog, usable, constants)],
        DecodeConstants.from_assumptions(catalog.assumptions),
        [name.removeprefix(DECODE_PREFIX) for name in names],
    )
    return {name: moved[name.removeprefix(DECODE_PREFIX)] for name in names}


def missed_targets(m: AccuracyMetrics) -> list[str]:
    """One sentence per target missed; empty when the model holds them."""
    missed = []
    if m.floor_at_or_below_measured < MIN_FLOOR_AT_OR_BELOW_MEASURED:
        missed.append(
            f"floor <= measured on {m.floor_at_or_below_measured:.1%} of usable records, "
            f"below the {MIN_FLOOR_AT_OR_BELOW_MEASURED:.0%} target"
        )
    if m.median_abs_error > MAX_MEDIAN_ABS_ERROR:
        missed.append(
            f"median |typical/measured - 1| = {m.median_abs_error:.1%}, above the {MAX_MEDIAN_ABS_ERROR:.0%} target"
        )
    return missed


def summary_lines(m: AccuracyMetrics) -> list[str]:
    return [
        f"usable records: {m.records}",
        f"median |typical/measured - 1| = {m.median_abs_error:.1%}   (target <= {MAX_MEDIAN_ABS_ERROR:.0%})",
        f"within 2x                      = {m.within_2x:.1%}",
        f"floor <= measured              = {m.floor_at_or_below_measured:.1%}   "
        f"(target >= {MIN_FLOOR_AT_OR_BELOW_MEASURED:.0%})",
        f"median typical/measured        = {m.median_ratio:.3f}",
    ]


def enforce_accuracy(catalog: Catalog) -> AccuracyMetrics:
    """For the build: the metrics, or AccuracyError naming every target missed."""
    m = metrics(check_records(catalog))
    missed = missed_targets(m)
    if missed:
        raise AccuracyError(
            "the decode-speed model misses its accuracy targets on data/measurements.yml: "
            + "; ".join(missed)
            + " (run bench/speed_accuracy.py for every record)"
        )
    return m
