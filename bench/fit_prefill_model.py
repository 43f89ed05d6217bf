"""Fit the time-to-first-token constants of data/assumptions.yml on the first-token records of data/measurements.yml
(``prefill``; never those of ``prefill_held_out``), and print them with the records each was fitted on.

    .venv/bin/python bench/fit_prefill_model.py            # prints the fit
    .venv/bin/python bench/fit_prefill_model.py --write    # also writes the values and each fitted_on

Each engine's constants are fitted on its own records over a grid, by the smallest median over the published tables of
each table's median |typical / measured - 1| (one vote a table):
the server's compute fraction, cost per request and front end's time per request together on the server records
(vLLM, SGLang, TensorRT-LLM, NIM, LMDeploy), by turns until they settle;
llama.cpp's compute fraction and the bytes each attention score moves without flash attention on the llama.cpp
records; then the "at most" factor, the smallest 0.05 step at or above which 90 % of the usable records
fall. Prints the assumptions.yml figures, and the records held out with the fitted constants; ``--write`` writes
the values into data/assumptions.yml and each constant's ``fitted_on`` (the records its value moves,
``sizing.views.prefill_accuracy.prefill_fitted_on``), which a test holds the data to.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.fitted_on import write_fitted_on, write_values
from sizing.catalog.loader import DATA_DIR, load_catalog
from sizing.catalog.schema import PrefillMeasurement
from sizing.engine.prefill import PrefillConstants
from sizing.views.prefill_accuracy import PREFILL_CONSTANTS, check_record, metrics, prefill_fitted_on, summary_lines

SERVER_FRACTIONS = [x / 100 for x in range(20, 91, 2)]
SERVER_REQUEST_SECONDS = [x / 1000 for x in range(0, 61, 4)]
FRONTEND_SECONDS = [x / 1000 for x in range(21)]
LLAMA_CPP_FRACTIONS = [x / 100 for x in range(30, 101, 5)]
SCORE_BYTES = [float(x) for x in range(0, 33, 2)]
COVERED = 0.9
MOST_TURNS = 10


def median_error(catalog, records: Sequence[PrefillMeasurement], constants: PrefillConstants) -> float:
    """The median over the published tables of each table's median |typical / measured - 1|: one vote a table, so
    that a sweep of many runs from one source does not outvote the others."""
    tables: dict[str, list[PrefillMeasurement]] = defaultdict(list)
    for m in records:
        tables[m.source_table].append(m)
    return statistics.median(
        statistics.median(abs(check_record(catalog, m, constants).ratio - 1) for m in ms) for ms in tables.values()
    )


def best(catalog, records, base: PrefillConstants, grid: Iterable[dict[str, float]]) -> PrefillConstants:
    scored = [(median_error(catalog, records, replace(base, **point)), tuple(point.items())) for point in grid]
    error, point = min(scored)
    print(f"  best median error {error:.1%} at {dict(point)}")
    return replace(base, **dict(point))


def fit_server(catalog, records: Sequence[PrefillMeasurement], base: PrefillConstants) -> PrefillConstants:
    """The server's three constants on one objective, by turns until neither turn moves them: the compute fraction
    with the cost per request (a grid of both), then the front end's time per request."""
    fitted = base
    for turn in range(1, MOST_TURNS + 1):
        print(f"server, turn {turn}: compute fraction x cost per request, then the front end's time per request")
        grid = itertools.product(SERVER_FRACTIONS, SERVER_REQUEST_SECONDS)
        step = best(catalog, records, fitted, ({"compute_fraction": f, "request_seconds_server": r} for f, r in grid))
        step = best(catalog, records, step, ({"frontend_seconds_server": s} for s in FRONTEND_SECONDS))
        if step == fitted:
            return step
        fitted = step
    raise SystemExit(f"the server's constants did not settle in {MOST_TURNS} turns: widen or refine the grids")


def ceiling_factor(catalog, records, constants: PrefillConstants) -> float:
    """The smallest 0.05 step of the "at most" factor at or above which ``COVERED`` of the records fall."""
    ratios = sorted(check_record(catalog, m, replace(constants, ceiling_factor=1.0)).ratio for m in records)
    needed = 1 / ratios[int((1 - COVERED) * len(ratios))]  # measured / typical of the record at the share
    return max(1.0, round(-(-needed // 0.05) * 0.05, 2))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the values and fitted_on into data/")
    args = parser.parse_args()
    catalog = load_catalog()
    base = PrefillConstants.from_assumptions(catalog.assumptions)
    usable = [m for m in catalog.prefill_measurements if m.unreliable is None]
    server = [m for m in usable if m.engine_class == "server"]
    llama_cpp = [m for m in usable if m.engine_class == "llama.cpp"]
    print(f"fitting on {len(server)} server records and {len(llama_cpp)} llama.cpp records")
    fitted = fit_server(catalog, server, base)
    print("llama.cpp: compute fraction x bytes a score moves without flash attention")
    grid = itertools.product(LLAMA_CPP_FRACTIONS, SCORE_BYTES)
    fitted = best(
        catalog,
        llama_cpp,
        fitted,
        ({"compute_fraction_llama_cpp": f, "attention_score_bytes_llama_cpp": b} for f, b in grid),
    )
    fitted = replace(fitted, ceiling_factor=ceiling_factor(catalog, usable, fitted))
    print("\nconstants (assumptions.yml):")
    values = {name: getattr(fitted, field) for field, name in PREFILL_CONSTANTS.items()}
    for name, value in values.items():
        print(f"  {name}: {value:g}")
    if args.write:
        write_values(DATA_DIR / "assumptions.yml", values)
        write_fitted_on(DATA_DIR / "assumptions.yml", prefill_fitted_on(load_catalog()))
        print("written into data/assumptions.yml, with each constant's fitted_on")
    print("\nfitted records:", "; ".join(summary_lines(metrics(check_record(catalog, m, fitted) for m in usable))))
    held = [check_record(catalog, m, fitted) for m in catalog.held_out_prefill_measurements]
    print("held-out records:", "; ".join(summary_lines(metrics(held))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
