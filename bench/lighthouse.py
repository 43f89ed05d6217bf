"""Lighthouse scores (performance, accessibility, best practices, SEO) and page weight for the home page,
a guide, the configurator and the Plan page in each language, served locally, in Debian's Chromium.

    .venv/bin/python bench/lighthouse.py [site] [--runs N]   # installs bench/node_modules (lighthouse) on first run

Performance is simulated from the CPU time the run observes, so it moves by a few points from run to run on a
busy machine: each page is audited N times (5 unless told) and the median is given, with the lowest and highest;
the other categories do not depend on timing and give their lowest.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, TWELVE_PAGES, serve

BENCH = Path(__file__).resolve().parent
LIGHTHOUSE = BENCH / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def audit(url: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        report = Path(out) / "report.json"
        result = subprocess.run(
            [
                str(LIGHTHOUSE),
                url,
                "--chrome-path=/usr/bin/chromium",
                f"--chrome-flags={CHROME_FLAGS}",
                "--output=json",
                f"--output-path={report}",
                "--quiet",
                f"--only-categories={','.join(CATEGORIES)}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode:
            raise SystemExit(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
        data = json.loads(report.read_text())
    scores = {c: round(data["categories"][c]["score"] * 100) for c in CATEGORIES}
    weight = data["audits"]["total-byte-weight"]["numericValue"]
    failing = [
        a
        for c in ("accessibility", "best-practices", "seo")
        for ref in data["categories"][c]["auditRefs"]
        if (a := data["audits"][ref["id"]]).get("score") is not None and a["score"] < 1 and ref["weight"] > 0
    ]
    return {**scores, "transferred_kb": round(weight / 1000, 1), "failing": [a["id"] for a in failing]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--runs", type=int, default=5, help="audits of each page (default 5)")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=BENCH, check=True)
    with serve(args.site) as base:
        header = f"{'page':<28} {'perf':>5} {'(range)':>9} {'a11y':>5} {'best':>5} {'seo':>5} {'KB sent':>8}"
        print(header + "  failing audits")
        for page in TWELVE_PAGES:
            runs = [audit(base + page) for _ in range(args.runs)]
            performance = [r["performance"] for r in runs]
            lowest = {c: min(r[c] for r in runs) for c in CATEGORIES[1:]}
            failing = sorted({a for r in runs for a in r["failing"]})
            print(
                f"{'/' + page:<28} {statistics.median(performance):>5g} "
                f"{f'{min(performance)}-{max(performance)}':>9} {lowest['accessibility']:>5} "
                f"{lowest['best-practices']:>5} {lowest['seo']:>5} {runs[0]['transferred_kb']:>8}  "
                f"{', '.join(failing) or '-'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
