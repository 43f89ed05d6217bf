"""The decode-speed model against every published measurement in data/measurements.yml: per record the
measured and predicted tokens/s per stream, the ratio and the step's terms, then the accuracy statistics on the
usable (unflagged) records and whether the targets hold (sizing/views/accuracy.py); then the same for the held-out
records, which no constant was fitted on (reported, not enforced); then the KV-cache memory the engine profile
predicts against what engines reported at start-up.

    .venv/bin/python bench/speed_accuracy.py

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.loader import load_catalog
from sizing.views.accuracy import (
    MemoryCheck,
    RecordCheck,
    check_memory_records,
    check_records,
    memory_metrics,
    memory_summary_lines,
    metrics,
    missed_targets,
    summary_lines,
)


def print_table(checks: list[RecordCheck]) -> None:
    print(
        f"{'id':46} {'c':>3} {'measured':>9} {'typical':>8} {'floor':>8} {'ratio':>6}  "
        "memory/compute/prefill/comm/overhead ms"
    )
    for c in checks:
        s = c.step
        terms = "/".join(f"{t * 1e3:5.2f}" for t in (s.memory, s.compute, s.prefill_share, s.communication, s.overhead))
        flag = "" if c.unreliable is None else f"  [excluded: {c.unreliable[:60]}]"
        outside = "" if 0.5 <= c.ratio <= 2 else " <2x>"
        print(
            f"{c.id[:46]:46} {c.concurrency:>3} {c.measured:9.2f} {c.typical:8.2f} {c.floor:8.2f} "
            f"{c.ratio:6.2f}  {terms}{outside}{flag}"
        )


def print_memory_table(checks: list[MemoryCheck]) -> None:
    print(f"{'id':40} {'measured':>8} {'predicted':>9} {'error':>7}  budget/weights/activations/overhead GiB  batch")
    for c in checks:
        terms = f"{c.budget_gib:6.2f}/{c.weights_gib:6.2f}/{c.activations_gib:5.2f}/{c.overhead_gib:4.2f}"
        flag = "" if c.unreliable is None else f"  [excluded: {c.unreliable[:50]}]"
        print(
            f"{c.id[:40]:40} {c.measured_gib:8.2f} {c.predicted_gib:9.2f} {c.error:+7.1%}  {terms:>38}  "
            f"{c.batch.tokens}/{c.batch.sequences}{flag}"
        )


def main() -> int:
    catalog = load_catalog()
    checks = check_records(catalog)
    print_table(checks)
    m = metrics(checks)
    print()
    print("\n".join(summary_lines(m)))
    missed = missed_targets(m)
    print("targets: " + ("held" if not missed else "MISSED: " + "; ".join(missed)))
    if catalog.held_out_measurements:
        print("\nHeld out (never fitted):")
        held_out = check_records(catalog, catalog.held_out_measurements)
        print_table(held_out)
        print()
        print("\n".join(summary_lines(metrics(held_out))))
    if catalog.memory_measurements:
        print("\nKV-cache memory at start-up (GiB per card):")
        memory = check_memory_records(catalog)
        print_memory_table(memory)
        print()
        print("\n".join(memory_summary_lines(memory_metrics(memory))))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
