"""Lighthouse scores (performance, accessibility, best practices, SEO) and page weight for the home page,
a guide, the configurator and the Plan page in each language, served locally, in Debian's Chromium.

    .venv/bin/python bench/lighthouse.py [site]     # installs bench/node_modules (lighthouse) on first run
"""

from __future__ import annotations

import json
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
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    if not LIGHTHOUSE.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=BENCH, check=True)
    with serve(site) as base:
        print(f"{'page':<28} {'perf':>5} {'a11y':>5} {'best':>5} {'seo':>5} {'KB sent':>8}  failing audits")
        for page in TWELVE_PAGES:
            r = audit(base + page)
            print(
                f"{'/' + page:<28} {r['performance']:>5} {r['accessibility']:>5} {r['best-practices']:>5} "
                f"{r['seo']:>5} {r['transferred_kb']:>8}  {', '.join(r['failing']) or '-'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
