"""What the site's search returns for the words readers type, in each language: the first pages of each query, as
the site's own search worker ranks them (bench/search_worker.js runs it under Node on the built index).

    .venv/bin/python bench/search_results.py [site] [--top N] [--query LANG QUERY]...

Without --query, the queries of issue #38 and those the browser tests hold (tests/browser/test_search_queries.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT

WORKER = Path(__file__).resolve().parent / "search_worker.js"
QUERIES = {
    "en": ["price per month", "70b", "per hour", "H100", "memory", "NVLink", "plan"],
    "fr": ["prix par mois", "prix", "par heure", "70b", "nœud", "mémoire", "parallélisme"],
    "zh": ["每小时", "每月价格", "价格", "70b", "张量并行", "显存", "规划"],
}


def results(site: Path, lang: str, queries: list[str]) -> dict[str, list[str]]:
    """Each query's pages, best first, each once ("configurator/llama-3.3-70b/")."""
    out = subprocess.run(
        ["node", str(WORKER), str(site), lang, *queries], capture_output=True, text=True, check=True
    ).stdout
    found = dict(json.loads(line) for line in out.splitlines() if line.startswith("["))
    return {query: list(dict.fromkeys(pages)) for query, pages in found.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--top", type=int, default=5, help="pages shown per query (default 5)")
    parser.add_argument("--query", nargs=2, action="append", metavar=("LANG", "QUERY"))
    args = parser.parse_args()
    asked: dict[str, list[str]] = {}
    for lang, query in args.query or [(lang, q) for lang, qs in QUERIES.items() for q in qs]:
        asked.setdefault(lang, []).append(query)
    for lang, queries in asked.items():
        for query, pages in results(args.site, lang, queries).items():
            shown = ", ".join(f"/{page}" for page in pages[: args.top]) or "(nothing)"
            print(f"{lang}  {query!r:<22} {len(pages):>3} pages: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
