"""The fit of the server engine's reserve figures (data/engines.yml) on the start-ups they judge.

Four figures of the current release are fitted: the sampler's bytes per position and vocabulary entry, the rest of
the activation peak, what a mixture of experts adds to it, and NCCL's NVSwitch buffers. They are fitted on the
usable start-ups of measurements.yml ``memory`` whose KV cache they move (a release before the current one is
judged by its own figures, which they do not move): the sum over those start-ups of the gap, in GiB, between the KV
cache the rules leave and the one the engine reported (least absolute deviations: the figures are amounts of memory,
and a start-up whose engine kept something the rules do not describe, a vision encoder's budget, drags such a fit
less than a squared one). Coordinate descent from today's figures over each figure's grid, at the precision
engines.yml writes it (whole bytes, tenths of a GiB), sweeping until none moves.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sizing.catalog.fitted_on import records_moved_by
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import MemoryMeasurement, ServerEngine
from sizing.views.memory_accuracy import check_memory_record


@dataclass(frozen=True)
class ReserveFigures:
    """The fitted figures of the server engine's reserve, by their engines.yml names."""

    sampler_bytes_per_vocab_entry: float
    activation_base_gib: float
    activation_moe_extra_gib: float
    nvswitch_buffers_gib: float

    @classmethod
    def of(cls, engine: ServerEngine) -> ReserveFigures:
        return cls(**{f.name: getattr(engine, f.name).value for f in dataclasses.fields(cls)})

    def applied(self, catalog: Catalog) -> Catalog:
        """The catalog with these figures in its server engine."""
        server = catalog.server_engine
        figures = {
            f.name: getattr(server, f.name).model_copy(update={"value": getattr(self, f.name)})
            for f in dataclasses.fields(self)
        }
        changed = server.model_copy(update=figures)
        engines = {key: changed if engine is server else engine for key, engine in catalog.engines.items()}
        return dataclasses.replace(catalog, engines=engines)


FIGURES = [f.name for f in dataclasses.fields(ReserveFigures)]


def _tenths(top: float) -> list[float]:
    return [k / 10 for k in range(round(top * 10) + 1)]


GRIDS: dict[str, list[float]] = {  # each figure's physical range, at the precision engines.yml writes it
    "sampler_bytes_per_vocab_entry": [float(b) for b in range(8, 41)],
    "activation_base_gib": _tenths(1.5),
    "activation_moe_extra_gib": _tenths(2),
    "nvswitch_buffers_gib": _tenths(3),
}


def reported_start_ups(catalog: Catalog) -> list[MemoryMeasurement]:
    """The usable ``memory`` start-ups that reported their KV cache."""
    return [m for m in catalog.memory_measurements if m.unreliable is None and m.kv_cache_gib is not None]


def kv_cache_gib(catalog: Catalog, records: list[MemoryMeasurement], figures: ReserveFigures) -> list[float]:
    """The KV cache per card the rules leave each start-up under ``figures``, GiB."""
    with_figures = figures.applied(catalog)
    return [check_memory_record(with_figures, m).predicted_kv_gib for m in records]


def memory_fitted_on(catalog: Catalog) -> dict[str, list[str]]:
    """What each fitted figure is fitted on: the reported start-ups whose KV cache it moves."""
    records = reported_start_ups(catalog)
    return records_moved_by(
        records,
        lambda figures: kv_cache_gib(catalog, records, figures),
        ReserveFigures.of(catalog.server_engine),
        FIGURES,
    )


def gib_off(catalog: Catalog, records: list[MemoryMeasurement], figures: ReserveFigures) -> float:
    """The loss: the sum of |predicted - reported| KV cache over the records, GiB."""
    reported = [m.kv_cache_gib or 0.0 for m in records]
    return sum(abs(p - r) for p, r in zip(kv_cache_gib(catalog, records, figures), reported, strict=True))


def fit_reserve(catalog: Catalog) -> tuple[ReserveFigures, list[MemoryMeasurement]]:
    """The figures the fit gives, from today's, and the start-ups it fitted them on."""
    fitted_on = {rid for ids in memory_fitted_on(catalog).values() for rid in ids}
    records = [m for m in reported_start_ups(catalog) if m.id in fitted_on]
    best = ReserveFigures.of(catalog.server_engine)
    best_loss = gib_off(catalog, records, best)
    moved = True
    while moved:
        moved = False
        for name, grid in GRIDS.items():
            for value in grid:
                trial = dataclasses.replace(best, **{name: value})
                trial_loss = gib_off(catalog, records, trial)
                if trial_loss < best_loss - 1e-9:
                    best, best_loss, moved = trial, trial_loss, True
    return best, records
