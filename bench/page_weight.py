"""Page weight of the home page, a guide, the configurator and the Plan page in each language: HTML, CSS, JS,
data (what the page's script fetches: api/plan.json and its default model's api/plan/<model>.json for the Plan
page) and total, raw and gzip-compressed (what a
static host sends).

    .venv/bin/python bench/page_weight.py [site]
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import NINE_PAGES, PLAN_PAGES, ROOT

PLAN_DATA = "api/plan.json"  # what the Plan page's form fetches on load, with its default model's figures
DEFAULT_MODEL = re.compile(r'<select name="model">.*?<option value="([^"]+)" selected>')


def weights(site: Path, page: str) -> dict[str, tuple[int, int]]:
    """Per kind: (raw bytes, gzip bytes) of the page and everything it loads from the site."""
    html_path = site / page / "index.html"
    html = html_path.read_text(encoding="utf-8")
    chosen = DEFAULT_MODEL.search(html) if 'class="plan-data"' in html else None
    data = [site / PLAN_DATA, site / f"api/plan/{chosen.group(1)}.json"] if chosen else []
    kinds: dict[str, list[Path]] = {"html": [html_path], "css": [], "js": [], "data": data}
    for link in re.findall(r'(?:href|src)="([^"#?]+\.(?:css|js))"', html):
        path = (html_path.parent / link).resolve()
        if path.exists():
            kinds["css" if link.endswith(".css") else "js"].append(path)
    return {
        kind: (sum(p.stat().st_size for p in paths), sum(len(gzip.compress(p.read_bytes(), 9)) for p in paths))
        for kind, paths in kinds.items()
    }


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    print(f"{'page':<30} {'HTML':>14} {'CSS':>14} {'JS':>14} {'data':>14} {'total':>14}   (raw / gzip, KB)")
    for page in NINE_PAGES + [p for p in PLAN_PAGES if (site / p).exists()]:
        w = weights(site, page)
        total = (sum(v[0] for v in w.values()), sum(v[1] for v in w.values()))
        cells = [f"{raw / 1000:6.1f}/{gz / 1000:5.1f}" for raw, gz in (*w.values(), total)]
        print(f"{'/' + page:<30} " + " ".join(f"{c:>14}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
