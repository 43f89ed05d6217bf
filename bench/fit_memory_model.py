"""Refit the server engine's reserve figures of data/engines.yml on the start-ups of data/measurements.yml ``memory``
(sizing/views/memory_fit.py: the sum of the KV-cache gaps in GiB, least absolute deviations, on the start-ups each
figure moves).

    .venv/bin/python bench/fit_memory_model.py              # the figures today and the fit's, with the fit's error
    .venv/bin/python bench/fit_memory_model.py --fitted-on  # write each figure's fitted_on into engines.yml (no fit)
    .venv/bin/python bench/fit_memory_model.py --write      # also write the values that move

Each figure's ``fitted_on`` in engines.yml is written by this script, never by hand; tests fail when it differs from
what the fit reads. Start-ups kept out of the fit (``memory_held_out``) are judged by bench/speed_accuracy.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.fitted_on import write_fitted_on, write_values
from sizing.catalog.loader import DATA_DIR, Catalog, load_catalog
from sizing.catalog.schema import MemoryMeasurement
from sizing.views.memory_accuracy import MAX_KV_CACHE_ERROR
from sizing.views.memory_fit import FIGURES, ReserveFigures, fit_reserve, gib_off, kv_cache_gib, memory_fitted_on


def error_lines(catalog: Catalog, records: list[MemoryMeasurement], figures: ReserveFigures) -> list[str]:
    """The fit's error under ``figures``: the loss, the median gap and the start-ups within the target."""
    gaps = [
        p / (m.kv_cache_gib or 1) - 1 for p, m in zip(kv_cache_gib(catalog, records, figures), records, strict=True)
    ]
    within = sum(abs(g) <= MAX_KV_CACHE_ERROR for g in gaps)
    worst = max(zip(gaps, records, strict=True), key=lambda pair: abs(pair[0]))
    return [
        f"sum of |predicted - reported| KV cache = {gib_off(catalog, records, figures):.2f} GiB",
        f"median |predicted / reported - 1|   = {statistics.median(abs(g) for g in gaps):.1%}",
        f"within {MAX_KV_CACHE_ERROR:.0%}: {within} of {len(gaps)}; the widest gap {worst[0]:+.1%} ({worst[1].id})",
    ]


def write_lists(catalog: Catalog) -> None:
    lists = memory_fitted_on(catalog)
    write_fitted_on(DATA_DIR / "engines.yml", lists)
    print(f"wrote fitted_on of {len(lists)} figures into data/engines.yml")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fitted-on", action="store_true", help="only write each figure's fitted_on, no fit")
    parser.add_argument("--write", action="store_true", help="write the moved values and fitted_on into engines.yml")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    if args.fitted_on:
        write_lists(catalog)
        return 0
    today = ReserveFigures.of(catalog.server_engine)
    fitted, records = fit_reserve(catalog)
    print(f"Fitting {len(FIGURES)} reserve figures on {len(records)} start-ups (least absolute KV-cache gap, GiB):")
    moved = [name for name in FIGURES if getattr(today, name) != getattr(fitted, name)]
    for name in FIGURES:
        mark = "  <- moves" if name in moved else ""
        print(f"  {name:32} {getattr(today, name):<6g} -> {getattr(fitted, name):<6g}{mark}")
    print("\nengines.yml today:\n  " + "\n  ".join(error_lines(catalog, records, today)))
    print("\nthe fit:\n  " + "\n  ".join(error_lines(catalog, records, fitted)))
    if args.write:
        write_values(DATA_DIR / "engines.yml", {name: getattr(fitted, name) for name in moved})
        print(f"\nwrote {len(moved)} values into data/engines.yml; check the sources beside them")
        write_lists(catalog)
    elif not moved:
        print("\nengines.yml holds the fit: nothing moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
