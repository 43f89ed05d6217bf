"""Page weight of the home page, a guide, the configurator and the Plan page in each language: HTML, CSS, JS
and total of what a page loads, raw and gzip-compressed (what a static host sends). The Plan page comes with its
own plan written in it and fetches its planning script and figures only when another plan is asked for: those
are given apart, as what the first plan asked for adds (assets/plan-model.js, api/plan.json and the default
model's api/plan/<model>.json). Then the whole site's size (what a deployment uploads and a host stores) and its
heaviest folders: each language's sections (fr/configurator/...) and the folders the languages share (api/...).

    .venv/bin/python bench/page_weight.py [site]
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import NINE_PAGES, PLAN_PAGES, ROOT, site_size

LANGUAGE_FOLDERS = ("fr", "zh")  # English is at the root
HEAVIEST = 10  # folders listed
PLAN_ON_REQUEST = ("assets/plan-model.js", "api/plan.json")  # with the model's figures, when a plan is asked for
DEFAULT_MODEL = re.compile(r'<select name="model">.*?<option value="([^"]+)" selected>')


def weights(site: Path, page: str) -> dict[str, tuple[int, int]]:
    """Per kind: (raw bytes, gzip bytes) of the page and everything it loads from the site on load."""
    html_path = site / page / "index.html"
    html = html_path.read_text(encoding="utf-8")
    kinds: dict[str, list[Path]] = {"html": [html_path], "css": [], "js": []}
    for link in re.findall(r'(?:href|src)="([^"#?]+\.(?:css|js))"', html):
        path = (html_path.parent / link).resolve()
        if path.exists():
            kinds["css" if link.endswith(".css") else "js"].append(path)
    return {kind: _sizes(paths) for kind, paths in kinds.items()}


def first_plan(site: Path, page: str) -> tuple[int, int]:
    """(raw bytes, gzip bytes) the Plan page fetches when a plan is first asked for, for its default model."""
    chosen = DEFAULT_MODEL.search((site / page / "index.html").read_text(encoding="utf-8"))
    if chosen is None:
        raise SystemExit(f"{page}: no default model in the Plan page's form; has its template changed?")
    return _sizes([site / p for p in PLAN_ON_REQUEST] + [site / f"api/plan/{chosen.group(1)}.json"])


def _sizes(paths: list[Path]) -> tuple[int, int]:
    return sum(p.stat().st_size for p in paths), sum(len(gzip.compress(p.read_bytes(), 9)) for p in paths)


def folder_sizes(site: Path) -> dict[str, tuple[int, int, int]]:
    """By section, (bytes, HTML pages, bytes of those pages): a language's first folder (``configurator/``,
    ``fr/configurator/``), a folder the languages share (``api/``, ``assets/``), or ``(root)`` for the files at
    the site's or a language's root (the home page, the sitemap)."""
    sizes: Counter[str] = Counter()
    pages: Counter[str] = Counter()
    page_bytes: Counter[str] = Counter()
    for path in (p for p in site.rglob("*") if p.is_file()):
        parts = path.relative_to(site).parts[:-1]
        depth = 2 if parts[:1] and parts[0] in LANGUAGE_FOLDERS else 1
        section = "".join(f"{part}/" for part in parts[:depth]) + ("" if len(parts) >= depth else "(root)")
        size = path.stat().st_size
        sizes[section] += size
        if path.suffix == ".html":
            pages[section] += 1
            page_bytes[section] += size
    return {section: (size, pages[section], page_bytes[section]) for section, size in sizes.most_common()}


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    print(f"{'page':<30} {'HTML':>14} {'CSS':>14} {'JS':>14} {'total':>14}   (raw / gzip, KB, on load)")
    plan_pages = [p for p in PLAN_PAGES if (site / p).exists()]
    for page in NINE_PAGES + plan_pages:
        w = weights(site, page)
        total = (sum(v[0] for v in w.values()), sum(v[1] for v in w.values()))
        cells = [f"{raw / 1000:6.1f}/{gz / 1000:5.1f}" for raw, gz in (*w.values(), total)]
        print(f"{'/' + page:<30} " + " ".join(f"{c:>14}" for c in cells))
    for page in plan_pages:
        raw, gz = first_plan(site, page)
        print(f"{'/' + page:<30} the first plan asked for adds {raw / 1000:.1f}/{gz / 1000:.1f} KB")
    size, html = site_size(site)
    print(f"\nthe site: {size / 1e6:.1f} MB, {html:,} pages; its {HEAVIEST} heaviest folders:")
    for section, (held, pages, page_bytes) in list(folder_sizes(site).items())[:HEAVIEST]:
        share = f"{held / 1e6:6.1f} MB {100 * held / size:3.0f} %"
        per_page = f"{pages:5,} pages of {page_bytes / pages / 1000:5.1f} KB" if pages else ""
        print(f"  {section:<24} {share}  {per_page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
