"""The time-to-first-token model against every published prefill record of data/measurements.yml: per record
the measured and typical time, the ratio and the terms (request/prompt/shared/queue), then the statistics on
the usable records and on the records kept out of the fit (sizing/views/prefill_accuracy.py).

    .venv/bin/python bench/prefill_accuracy.py

bench/fit_prefill_model.py fits the constants and prints each step of its fit.

Exit status 1 when the median error on the records kept out exceeds 25 %.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.loader import load_catalog
from sizing.engine.burst import Burst
from sizing.engine.load import Arrival
from sizing.views.prefill_accuracy import TtftCheck, check_records, metrics, missed_aim, missed_target, summary_lines


def load_label(arrival: Arrival | Burst) -> str:
    """``c8`` (8 clients), ``r2.5/s`` (Poisson), ``b100`` (a burst)."""
    if isinstance(arrival, Burst):
        return f"b{arrival.requests}"
    if arrival.kind == "poisson":
        return f"r{arrival.requests_per_s:g}/s"
    return f"c{arrival.users}"


def print_table(checks: list[TtftCheck]) -> None:
    print(f"{'id':52} {'load':>7} {'P':>6} {'measured':>9} {'typical':>8} {'ratio':>6}  request/prompt/steps/wait ms")
    for c in checks:
        t = c.terms
        terms = "/".join(f"{x * 1e3:6.1f}" for x in (t.request, t.prompt, t.steps, t.wait))
        flag = "" if c.unreliable is None else f"  [excluded: {c.unreliable[:50]}]"
        outside = "" if 0.5 <= c.ratio <= 2 else " <2x>"
        print(
            f"{c.id[:52]:52} {load_label(c.arrival):>7} {c.prompt_tokens:>6} {c.measured_seconds * 1e3:9.1f} "
            f"{c.typical_seconds * 1e3:8.1f} {c.ratio:6.2f}  {terms}{outside}{flag}"
        )


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    catalog = load_catalog()
    checks = check_records(catalog)
    print_table(checks)
    print()
    print("\n".join(summary_lines(metrics(checks))))
    print("\nKept out of the fit:")
    held_out = check_records(catalog, catalog.held_out_prefill_measurements)
    print_table(held_out)
    print()
    held = metrics(held_out)
    print("\n".join(summary_lines(held)))
    missed = missed_target(held)
    print("target: " + ("held" if missed is None else "MISSED: " + missed))
    short = missed_aim(held)
    print("aim: " + ("held" if short is None else "short: " + short))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
