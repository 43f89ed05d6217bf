"""Every verdict of the configurator that differs between a git revision and the working tree, and every change of
how a node runs a model (its cards per copy): what a change to the sizing code or to data/ does to the figures
customers choose by.

    .venv/bin/python bench/verdict_changes.py [--against HEAD]

Prints a Markdown table (model, precision, context, configuration, old and new verdict with cards, need and
budget per card in GiB) and a count per transition, then the count of cells whose cards per copy changed, per
transition (a revision before the deployment of issue 34 ran each model on the fewest cards).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DUMP = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from sizing.catalog.loader import load_catalog
from sizing.views.matrix import VerdictMatrix
from sizing.catalog.units import GIB
catalog = load_catalog(Path(sys.argv[1]) / "data")
for (model, precision, context, configuration), cell in VerdictMatrix(catalog).everything.items():
    fit = cell.fit
    runs = getattr(cell, "layout", None) or getattr(cell, "speed", None)  # how the node runs it, then and now
    print(json.dumps([model, precision, context, configuration, fit.verdict.value, fit.cards,
                      round(fit.need.total / GIB, 2), round(fit.budget / GIB, 2), runs and runs.cards]))
"""


def verdicts(tree: Path) -> dict[tuple[str, str, int | None, str], list[object]]:
    """The matrix of the code and data in ``tree``, computed by that code in its own process."""
    out = subprocess.run([sys.executable, "-c", DUMP, str(tree)], capture_output=True, text=True, check=True).stdout
    return {tuple(row[:4]): row[4:] for row in map(json.loads, out.splitlines())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="HEAD", help="the git revision to compare with (default HEAD)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        archive = Path(folder) / "old.tar"
        subprocess.run(["git", "archive", "-o", str(archive), args.against, "sizing", "data"], cwd=ROOT, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(folder) / "old", filter="data")
        old = verdicts(Path(folder) / "old")
    new = verdicts(ROOT)
    changed = [(key, old[key], new[key]) for key in sorted(new, key=str) if key in old and old[key][:2] != new[key][:2]]
    print(f"{len(changed)} of {len(new)} verdicts differ from {args.against}\n")
    print("| model | precision | context | configuration | was | is | need / budget was | need / budget is |")
    print("|---|---|---:|---|---|---|---|---|")
    for (model, precision, context, configuration), was, now in changed:
        print(
            f"| {model} | {precision} | {context or '—'} | {configuration} | {was[0]} ({was[1]}) | "
            f"{now[0]} ({now[1]}) | {was[2]} / {was[3]} | {now[2]} / {now[3]} |"
        )
    print("\n| transition | cells |\n|---|---:|")
    for (before, after), count in Counter((w[0], n[0]) for _, w, n in changed).most_common():
        print(f"| {before} → {after} | {count} |")
    relaid = Counter((old[key][4], new[key][4]) for key in new if key in old and old[key][4] != new[key][4])
    print(f"\n{sum(relaid.values())} cells run on another number of cards per copy\n")
    print("| cards per copy, was → is | cells |\n|---|---:|")
    for (before, after), count in sorted(relaid.items(), key=lambda item: -item[1]):
        print(f"| {before or '—'} → {after or '—'} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
