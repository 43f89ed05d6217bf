"""The site's plan against published capacity-planning answers (data/capacity_plans.yml): per answer, the GPUs the
planner gave; the GPUs the site's plan rents for the same requirement on the closest node configuration with
copies as large as the planner's (alike), their ratio and what binds its copies; and the GPUs of the site's
cheapest plan, which may split the model over more cards or keep its KV cache in FP8.

    .venv/bin/python bench/planners.py

Exit status 1 when a plan alike rents fewer than two thirds of the planner's GPUs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sizing.catalog.loader import load_catalog
from sizing.views.planners import compare, read_plans

MIN_RATIO = 2 / 3


def main() -> int:
    catalog = load_catalog()
    low = 0
    print(
        f"{'published answer':46} {'planner':>7} {'alike':>6} {'ratio':>6} {'binding':>8} {'cheapest':>8} {'ratio':>6}"
    )
    for plan in read_plans(catalog):
        found = compare(catalog, plan)
        cells = []
        for option in (found.alike, found.option):
            gpus, ratio = found.gpus(option), found.ratio(option)
            cells.append("none" if gpus is None or ratio is None else f"{gpus:>6} {ratio:6.2f}")
        binding = "" if found.alike is None else found.alike.binding
        print(f"{plan.id[:46]:46} {plan.gpus:>7} {cells[0]:>13} {binding:>8} {cells[1]:>15}")
        ratio = found.ratio(found.alike)
        low += ratio is not None and ratio < MIN_RATIO
    print(f"\nplans alike under two thirds of the planner's GPUs: {low}")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
