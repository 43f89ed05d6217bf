"""The decode-speed model against every published measurement in data/measurements.yml: per record the
measured and predicted tokens/s per stream, the ratio and the step's terms, then the accuracy statistics on the
usable (unflagged) records and whether the targets hold (sizing/views/accuracy.py); then the same for the held-out
records, which no constant was fitted on (reported, not enforced); then the KV-cache memory and weights the
engines' memory rules predict against what engines reported at start-up (the records the rules were fitted on,
then those kept out).

    .venv/bin/python bench/speed_accuracy.py

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.loader import load_catalog
from sizing.views.accuracy import RecordCheck, check_records, metrics, missed_targets, summary_lines
from sizing.views.memory_accuracy import MemoryCheck, check_memory_records, memory_metrics, memory_summary_lines


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
    print(f"{'id':44} {'engine':6} {'start':8} {'KV':>7} {'pred':>7} {'gap':>7}  {'weights':>7} {'pred':>6} {'gap':>6}")
    for c in checks:
        kv_gap = "" if (e := c.kv_error) is None else f"{e:+.1%}"
        w_gap = "" if (w := c.weights_error) is None else f"{w:+.1%}"
        reported = "" if c.measured_kv_gib is None else f"{c.measured_kv_gib:7.2f}"
        weights = "" if c.measured_weights_gib is None else f"{c.measured_weights_gib:7.2f}"
        flag = "" if c.unreliable is None else f"  [left out: {c.unreliable[:40]}]"
        print(
            f"{c.id[:44]:44} {c.engine_kind[:6]:6} {c.outcome[:8]:8} {reported:>7} {c.predicted_kv_gib:7.2f} "
            f"{kv_gap:>7}  {weights:>7} {c.predicted_weights_gib:6.2f} {w_gap:>6}{flag}"
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
        kept_out = check_records(catalog, catalog.held_out_measurements)
        print_table(kept_out)
        print()
        print("\n".join(summary_lines(metrics(kept_out))))
    for held_out, label in ((False, "fitted on"), (True, "kept out of the fit")):
        print(f"\nMemory at start-up, the records the reserve's figures were {label} (GiB per card):")
        memory = check_memory_records(catalog, held_out)
        print_memory_table(memory)
        print()
        print("\n".join(memory_summary_lines(memory_metrics(memory))))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
