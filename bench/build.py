"""Build performance, in medians of alternating runs (absolute times are noisy on a shared machine: compare
the ratios, measured in the same run):

- a cold build (`make build` from a clean clone) against a baseline: the same site with every page's macro
  output pre-rendered and no hook, so the difference is what the macros cost;
- edit -> served: from saving a French page to `mkdocs serve` serving it, for one language
  (`make serve-fr`) and for all (`make serve`);
- the catalog x100: a build with every node offered 100 times, against the real catalog, and the size of
  api/fit.json gzipped.

    .venv/bin/python bench/build.py [--runs 5] [--skip-serve] [--skip-scaling]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from common import PYTHON, ROOT, mkdocs_build
from mkdocs.utils.meta import get_data
from sitebuild import copy_project

from macros.base.languages import LANGUAGES
from macros.base.links import PageLinks
from macros.generated import configurator_page_uris, generated_page_source
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.site_data import site_data


# --- baseline: the same site, macros pre-rendered, no hook --------------------------------------------
def page_url(lang: str, relative: str) -> str:
    path = relative.removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    return ("" if lang == "en" else f"{lang}/") + path


def prerendered_project(target: Path) -> Path:
    """A copy whose pages hold their rendered Markdown, generated pages as files, and no hook."""
    project = copy_project(target)
    data = site_data()
    docs = project / "docs"
    for lang in LANGUAGES:
        for uri in configurator_page_uris(data, lang):
            (docs / uri).parent.mkdir(parents=True, exist_ok=True)
            (docs / uri).write_text(generated_page_source(data, uri))
    for path in sorted(docs.rglob("*.md")):
        lang, relative = path.relative_to(docs).parts[0], "/".join(path.relative_to(docs).parts[1:])
        source = path.read_text(encoding="utf-8")
        markdown, _ = get_data(source)
        url = page_url(lang, relative)
        rendered = render_page(
            PageSource(
                f"docs/{lang}/{relative}",
                lang,
                source,
                markdown,
                generated="configurator/" in relative and relative != "configurator/index.md",
            ),
            ROOT / "docs",
            data,
            PageLinks.at(url, lang),
        )
        head = source[: len(source) - len(markdown)] if source.endswith(markdown) else ""
        path.write_text(head + rendered.whole, encoding="utf-8")
    config = project / "mkdocs.yml"
    text = config.read_text().replace("\n  - hooks/page_macros.py\n", "\n")  # the other hooks only print
    text = text.replace("    omitted_files: warn", "    omitted_files: info")
    # what the hook gives the 404 template, fixed
    text = text.replace(
        "  generator: false",
        "  generator: false\n  not_found: {title: Page not found, text: Gone, "
        "home: Home, configurator: Configurator, home_url: /}",
    )
    config.write_text(text)
    return project


# --- scaling ------------------------------------------------------------------------------------------
def _node_copy(record: str, copy: int) -> str:
    """A node of nodes.yml again, under another id and a price a few dollars apart."""
    renamed = re.sub(r"id: (\S+)", rf"id: \1-r{copy}", record, count=1)
    return re.sub(r"amount: (\d+)", lambda m: f"amount: {int(m.group(1)) + copy}", renamed)


def scale_catalog(project: Path, factor: int) -> None:
    nodes = project / "data" / "nodes.yml"
    head, _, body = nodes.read_text().partition("nodes:\n")
    records = re.findall(r"  - id: .*?(?=\n  - id: |\Z)", body, re.S)
    extra = []
    for copy in range(1, factor):
        extra += [_node_copy(record, copy) for record in records]
    nodes.write_text(head + "nodes:\n" + "\n".join(records + extra).rstrip() + "\n")


def fit_gzip_kb(site: Path) -> float:
    return len(gzip.compress((site / "api" / "fit.json").read_bytes(), 9)) / 1000


# --- serve ----------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def save_to_served(project: Path, only: str | None, edits: int) -> float:
    port = free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **({"BUILD_ONLY_LOCALE": only} if only else {})}
    server = subprocess.Popen(
        [PYTHON, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lang = only or "fr"
    # with BUILD_ONLY_LOCALE, mkdocs-static-i18n builds that one language at the root of the site
    url = f"http://127.0.0.1:{port}/{'' if only else lang + '/'}guides/quantization/"
    page = project / "docs" / lang / "guides" / "quantization.md"

    def fetch() -> str:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            return ""

    try:
        deadline = time.time() + 120
        while "<html" not in fetch():
            if time.time() > deadline:
                raise SystemExit("mkdocs serve did not come up")
            time.sleep(0.2)
        times = []
        original = page.read_text()
        for edit in range(edits):
            marker = "BENCHMARKEDIT" + "abcdefghij"[edit]  # no digit: pages may not hold typed figures
            page.write_text(original.replace("# Choisir un format de quantification", f"# Choisir {marker}", 1))
            saved = time.perf_counter()
            while marker not in fetch():
                if time.perf_counter() - saved > 60:
                    raise SystemExit("the edit never reached the served page")
                time.sleep(0.05)
            times.append(time.perf_counter() - saved)
            time.sleep(1.0)
        page.write_text(original)
        return sorted(times)[len(times) // 2]
    finally:
        server.terminate()
        server.wait(timeout=20)


def alternating(configs: dict[str, Path], runs: int, work: Path) -> dict[str, float]:
    """Median seconds of a strict build of each config, the configs taking turns run after run."""
    times: dict[str, list[float]] = {name: [] for name in configs}
    for run in range(runs):
        for name, config in configs.items():
            times[name].append(mkdocs_build(config, work / f"{name}-{run}"))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-serve", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        baseline = prerendered_project(work / "baseline")
        cold = alternating({"baseline": baseline / "mkdocs.yml", "cold": ROOT / "mkdocs.yml"}, args.runs, work)
        print(
            f"cold build              {cold['cold']:.2f} s   baseline (pre-rendered, no hook) {cold['baseline']:.2f} s"
            f"   ratio {cold['cold'] / cold['baseline']:.2f}x   (aim: <= 1.5x)"
        )
        if not args.skip_serve:
            project = copy_project(work / "serve")
            for only, label in (("fr", "one language (serve-fr)"), (None, "all languages (serve)")):
                seconds = save_to_served(project, only, edits=args.runs)
                print(f"edit -> served, {label:<24} {seconds:.2f} s" + ("   (aim: <= 1.5 s)" if only else ""))
        if not args.skip_scaling:
            scaled = copy_project(work / "x100")
            scale_catalog(scaled, 100)
            sizes = alternating({"x1": ROOT / "mkdocs.yml", "x100": scaled / "mkdocs.yml"}, args.runs, work)
            print(
                f"catalog x100            {sizes['x100']:.2f} s   real catalog {sizes['x1']:.2f} s"
                f"   +{100 * (sizes['x100'] / sizes['x1'] - 1):.0f} %   (aim: <= +30 %)"
                f"   api/fit.json {fit_gzip_kb(work / f'x100-{args.runs - 1}'):.1f} KB gzipped"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
