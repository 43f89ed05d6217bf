"""Refit the decode-speed constants of data/assumptions.yml on the usable records of data/measurements.yml.

    .venv/bin/python bench/fit_speed_model.py              # fit from today's constants, print what would move
    .venv/bin/python bench/fit_speed_model.py --from-mid   # start every constant mid-range (a fresh fit)
    .venv/bin/python bench/fit_speed_model.py --write      # also write the moved values and fitted_on
    .venv/bin/python bench/fit_speed_model.py --fitted-on  # only write what each constant is fitted on (no fit)
    .venv/bin/python bench/fit_speed_model.py --only llama_cpp   # refit llama.cpp's constants, hold the others
    .venv/bin/python bench/fit_speed_model.py --only host_crossing   # refit the cost of a pass between card and CPU

The loss is soft-L1 on the log of typical ÷ measured, ``sqrt(1 + (r / 0.25)²) − 1``: a record twice off weighs
like three records 25 % off, not eight, so one odd publication cannot drag the physics. The fit is coordinate
descent: one constant at a time over a grid inside its physical range, sweeping until none moves. The floor
factor is then the largest 0.05 step at or below which 90 % of the records are, one step lower for margin.
Held-out records (measurements.yml ``held_out``) are never fitted; the script prints how the fit does on them.
Each constant's ``fitted_on`` in assumptions.yml is written by the script, never by hand: the usable records whose
estimate the constant moves (``sizing.views.accuracy.decode_fitted_on``); tests fail when the data differs from it.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.fitted_on import write_fitted_on, write_values
from sizing.catalog.loader import DATA_DIR, Catalog, load_catalog
from sizing.catalog.schema import DecodeMeasurement
from sizing.engine.decode import DecodeConstants
from sizing.views.accuracy import DECODE_PREFIX, check_records, decode_fitted_on, metrics, summary_lines

LOSS_SCALE = 0.25
FLOOR_SHARE = 0.90
FLOOR_STEP = 0.05

# DecodeConstants field -> the grid of its physical range; the order is the sweep order.
GRIDS: dict[str, list[Any]] = {  # each constant on its own grid (max_running_streams whole)
    "bandwidth_fraction_server": [x / 100 for x in range(60, 96)],
    "bandwidth_fraction_llama_cpp": [x / 100 for x in range(45, 96)],
    "bandwidth_fraction_host": [x / 100 for x in range(30, 96)],
    "host_crossing_seconds": [x * 1e-5 for x in range(41)],
    "step_host_seconds_server": [x * 1e-4 for x in range(31)],
    "sublayer_seconds": [x * 1e-6 for x in range(61)],
    "step_host_seconds_llama_cpp": [x * 1e-4 for x in range(31)],
    "sublayer_seconds_llama_cpp": [x * 1e-6 for x in range(61)],
    "moe_sublayer_extra_seconds": [x * 5e-6 for x in range(61)],
    "mla_sublayer_extra_seconds": [x * 5e-6 for x in range(61)],
    "combine_exponent": [1, 1.5, 2, 3, 4, 100],
}


def loss(catalog: Catalog, records: list[DecodeMeasurement], constants: DecodeConstants) -> float:
    total = 0.0
    for check in check_records(catalog, records, constants):
        r = math.log(check.ratio) / LOSS_SCALE
        total += math.sqrt(1 + r * r) - 1
    return total


def fit(
    catalog: Catalog, records: list[DecodeMeasurement], start: DecodeConstants, grids: dict[str, list[Any]]
) -> DecodeConstants:
    best, best_loss = start, loss(catalog, records, start)
    for sweep in range(1, 21):
        moved = False
        for name, grid in grids.items():
            for value in grid:
                trial = replace(best, **{name: value})
                trial_loss = loss(catalog, records, trial)
                if trial_loss < best_loss - 1e-9:
                    best, best_loss, moved = trial, trial_loss, True
        print(f"  sweep {sweep}: loss {best_loss:.3f}")
        if not moved:
            break
    return replace(best, floor_factor=floor_factor(catalog, records, best))


def floor_factor(catalog: Catalog, records: list[DecodeMeasurement], constants: DecodeConstants) -> float:
    """The largest multiple of FLOOR_STEP that puts FLOOR_SHARE of typical speeds at or below the measurement,
    one step lower for margin."""
    ratios = [c.ratio for c in check_records(catalog, records, replace(constants, floor_factor=1.0))]
    factor = 1.0
    while factor > FLOOR_STEP:
        if sum(factor * r <= 1 for r in ratios) / len(ratios) >= FLOOR_SHARE:
            return round(factor - FLOOR_STEP, 2)
        factor = round(factor - FLOOR_STEP, 2)
    return factor


def grids_matching(only: str | None) -> dict[str, list[Any]]:
    """The grids of the constants whose name contains ``only`` (all of them without it)."""
    chosen = {name: grid for name, grid in GRIDS.items() if only is None or only in name}
    if not chosen:
        raise SystemExit(f"--only {only}: no constant matches; the constants are {', '.join(GRIDS)}")
    return chosen


def assumption_key(field: str) -> str:
    return f"{DECODE_PREFIX}{field}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-mid", action="store_true", help="start every constant at the middle of its grid")
    parser.add_argument("--write", action="store_true", help="write the moved values into data/assumptions.yml")
    parser.add_argument("--only", help="fit only the constants whose name contains this (e.g. llama_cpp)")
    parser.add_argument("--fitted-on", action="store_true", help="only write each constant's fitted_on, no fit")
    args = parser.parse_args(argv)
    grids = grids_matching(args.only)
    catalog = load_catalog()
    if args.fitted_on:
        return write_lists(catalog)
    usable = [m for m in catalog.measurements if m.unreliable is None]
    today = DecodeConstants.from_assumptions(catalog.assumptions)
    start = replace(today, **{n: g[len(g) // 2] for n, g in grids.items()}) if args.from_mid else today
    print(f"Fitting {len(grids)} constants on {len(usable)} usable records (soft-L1 on log typical/measured):")
    fitted = fit(catalog, usable, start, grids)
    fields = [*grids, "floor_factor"]
    moved = [f for f in fields if not math.isclose(getattr(today, f), getattr(fitted, f), rel_tol=1e-6, abs_tol=1e-12)]
    for field in fields:
        mark = "  <- moves" if field in moved else ""
        print(f"  {assumption_key(field):40} {getattr(today, field):<10.6g} -> {getattr(fitted, field):<10.6g}{mark}")
    print("\nFitted records:\n" + "\n".join(summary_lines(metrics(check_records(catalog, usable, fitted)))))
    if catalog.held_out_measurements:
        held_out = check_records(catalog, catalog.held_out_measurements, fitted)
        print("\nHeld-out records (never fitted):\n" + "\n".join(summary_lines(metrics(held_out))))
    if moved and args.write:
        write_values(DATA_DIR / "assumptions.yml", {assumption_key(f): getattr(fitted, f) for f in moved})
        print(f"\nwrote {len(moved)} values into data/assumptions.yml; check the reasons beside them")
    elif not moved:
        print("\nassumptions.yml holds the fit: nothing moves")
    return write_lists(catalog) if args.write else 0


def write_lists(catalog: Catalog) -> int:
    """Write each fitted constant's fitted_on (the records its fit reads) into assumptions.yml."""
    lists = decode_fitted_on(catalog)
    changed = [name for name, ids in lists.items() if getattr(catalog.assumptions, name).fitted_on != ids]
    write_fitted_on(DATA_DIR / "assumptions.yml", lists)
    for name in changed:
        print(f"fitted_on of {name}: {len(getattr(catalog.assumptions, name).fitted_on)} -> {len(lists[name])} records")
    print(f"wrote fitted_on of {len(lists)} constants into data/assumptions.yml ({len(changed)} changed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
