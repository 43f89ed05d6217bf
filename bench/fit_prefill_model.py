"""Fit the time-to-first-token constants of data/assumptions.yml on the first-token records of data/measurements.yml
(``prefill``; never those of ``prefill_held_out``), and print them with the records each was fitted on.

    .venv/bin/python bench/fit_prefill_model.py

Each engine's constants are fitted on its own records, by the smallest median |typical / measured - 1| over a grid:
the server's compute fraction and cost per request on the server records (vLLM, SGLang, TensorRT-LLM, NIM,
LMDeploy), llama.cpp's compute fraction and the bytes each attention score moves without flash attention on the
llama.cpp records; then the "at most" factor, the smallest 0.05 step at or above which 90 % of the usable records
fall. Prints the assumptions.yml figures to write, and the records held out with the fitted constants.
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.loader import load_catalog
from sizing.catalog.schema import PrefillMeasurement
from sizing.engine.prefill import PrefillConstants
from sizing.views.prefill_accuracy import check_record, metrics, summary_lines

SERVER_FRACTIONS = [x / 100 for x in range(20, 91, 2)]
SERVER_REQUEST_SECONDS = [x / 1000 for x in range(0, 61, 4)]
LLAMA_CPP_FRACTIONS = [x / 100 for x in range(30, 101, 5)]
SCORE_BYTES = [float(x) for x in range(0, 33, 2)]
COVERED = 0.9


def median_error(catalog, records: Sequence[PrefillMeasurement], constants: PrefillConstants) -> float:
    return statistics.median(abs(check_record(catalog, m, constants).ratio - 1) for m in records)


def best(catalog, records, base: PrefillConstants, grid: Iterable[dict[str, float]]) -> PrefillConstants:
    scored = [(median_error(catalog, records, replace(base, **point)), tuple(point.items())) for point in grid]
    error, point = min(scored)
    print(f"  best median error {error:.1%} at {dict(point)}")
    return replace(base, **dict(point))


def ceiling_factor(catalog, records, constants: PrefillConstants) -> float:
    """The smallest 0.05 step of the "at most" factor at or above which ``COVERED`` of the records fall."""
    ratios = sorted(check_record(catalog, m, replace(constants, ceiling_factor=1.0)).ratio for m in records)
    needed = 1 / ratios[int((1 - COVERED) * len(ratios))]  # measured / typical of the record at the share
    return max(1.0, round(-(-needed // 0.05) * 0.05, 2))


def main() -> int:
    catalog = load_catalog()
    base = PrefillConstants.from_assumptions(catalog.assumptions)
    usable = [m for m in catalog.prefill_measurements if m.unreliable is None]
    server = [m for m in usable if m.engine_class == "server"]
    llama_cpp = [m for m in usable if m.engine_class == "llama.cpp"]
    print(f"fitting on {len(server)} server records and {len(llama_cpp)} llama.cpp records")
    print("server: compute fraction x cost per request")
    grid = itertools.product(SERVER_FRACTIONS, SERVER_REQUEST_SECONDS)
    fitted = best(catalog, server, base, ({"compute_fraction": f, "request_seconds_server": r} for f, r in grid))
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
    for name, value in (
        ("prefill_compute_fraction", fitted.compute_fraction),
        ("prefill_request_seconds_server", fitted.request_seconds_server),
        ("prefill_compute_fraction_llama_cpp", fitted.compute_fraction_llama_cpp),
        ("prefill_attention_score_bytes_llama_cpp", fitted.attention_score_bytes_llama_cpp),
        ("ttft_ceiling_factor", fitted.ceiling_factor),
    ):
        print(f"  {name}: {value:g}")
    print("\nfitted_on, server constants:", ", ".join(m.id for m in server))
    print("fitted_on, llama.cpp constants:", ", ".join(m.id for m in llama_cpp))
    print("\nfitted records:", "; ".join(summary_lines(metrics(check_record(catalog, m, fitted) for m in usable))))
    held = [check_record(catalog, m, fitted) for m in catalog.held_out_prefill_measurements]
    print("held-out records:", "; ".join(summary_lines(metrics(held))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
