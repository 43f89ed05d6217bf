"""The build's budgets against plain MkDocs, measured in one run: each figure times two things in turn (A B A B
...) and gives the median of the pairs' ratios, so the ratio holds when a shared machine's speed drifts
(absolute times do not: compare the ratios).

- the build: `mkdocs build` of the site against plain MkDocs building the same pages (the same project without
  the macro hook, each page's Markdown as the hook hands it to MkDocs, the generated pages written as files).
  Aim: <= 1.5x;
- save to served: from saving a French guide under `make serve-fr` (BUILD_ONLY_LOCALE=fr mkdocs serve) until the
  server serves the change, against plain MkDocs serving the same French pages. Aim: <= 1.5x;
- three times the models (two synthetic copies of every model): the build's time and the site's size against
  the real catalog's, beside how much the pages grew. Aim: neither grows more than the pages.

    .venv/bin/python bench/build.py [--runs 5] [--skip-serve] [--skip-scaling]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from common import PYTHON, ROOT, mkdocs_build, site_size
from mkdocs.utils.meta import get_data
from sitebuild import copy_project

from macros.base.languages import LANGUAGES
from macros.base.links import PageLinks
from macros.generated import generated_page_source, generated_page_uris
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.site_data import site_data

AIM = 1.5
COPIES = ("", "-copy2", "-copy3")  # a model, then its copies' id suffixes


# --- plain MkDocs on the same pages -------------------------------------------------------------------
def page_url(lang: str, relative: str) -> str:
    path = relative.removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    return ("" if lang == "en" else f"{lang}/") + path


def plain_project(target: Path) -> Path:
    """A copy whose pages hold their rendered Markdown, generated pages as files, and no macro hook."""
    project = copy_project(target)
    data = site_data()
    docs = project / "docs"
    generated = {uri for lang in LANGUAGES for uri in generated_page_uris(data, lang)}
    for uri in generated:
        (docs / uri).parent.mkdir(parents=True, exist_ok=True)
        (docs / uri).write_text(generated_page_source(data, uri))
    for path in sorted(docs.rglob("*.md")):
        lang, relative = path.relative_to(docs).parts[0], "/".join(path.relative_to(docs).parts[1:])
        source = path.read_text(encoding="utf-8")
        markdown, _ = get_data(source)
        rendered = render_page(
            PageSource(
                f"docs/{lang}/{relative}",
                lang,
                source,
                markdown,
                generated=f"{lang}/{relative}" in generated,
            ),
            ROOT / "docs",
            data,
            PageLinks.at(page_url(lang, relative), lang),
        )
        head = source[: len(source) - len(markdown)] if source.endswith(markdown) else ""
        path.write_text(head + rendered.whole, encoding="utf-8")
    config = project / "mkdocs.yml"
    text = config.read_text().replace("\n  - hooks/page_macros.py\n", "\n")  # the other hook only prints
    text = text.replace("    omitted_files: warn", "    omitted_files: info")
    # what the hook gives the 404 template, fixed
    text = text.replace(
        "  generator: false",
        "  generator: false\n  not_found: {title: Page not found, text: Gone, "
        "home: Home, configurator: Configurator, home_url: /}",
    )
    config.write_text(text)
    return project


# --- three times the models ---------------------------------------------------------------------------
def _model_copy(record: str, copy: int) -> str:
    """A model record of models.yml again, its id and name told apart: ``<id>-copy2``, "<name> (copy 2)"."""
    renamed = re.sub(r"^  - id: (\S+)", rf"  - id: \g<1>-copy{copy}", record, count=1, flags=re.M)
    return re.sub(r"^    name: (.*?)(['\"]?)$", rf"    name: \1 (copy {copy})\2", renamed, count=1, flags=re.M)


def _model_copies(section: str, copy: int) -> str:
    """Every model record of a section of models.yml again, as ``_model_copy``."""
    records = re.findall(r"^  - id: .*?(?=^  - id: |\Z)", section, re.S | re.M)
    return "".join(_model_copy(record, copy).rstrip("\n") + "\n" for record in records)


def triple_models(project: Path) -> None:
    """Two copies of every model in the project's data/, offered in the formats made for the model they copy."""
    models = project / "data" / "models.yml"
    models.write_text(
        re.sub(
            r"^(llms|diffusion):\n(.*?)(?=^\S|\Z)",
            lambda m: (
                f"{m.group(1)}:\n{m.group(2).rstrip()}\n{_model_copies(m.group(2), 2)}{_model_copies(m.group(2), 3)}\n"
            ),
            models.read_text(),
            flags=re.S | re.M,
        )
    )
    precisions = project / "data" / "precisions.yml"
    precisions.write_text(
        re.sub(
            r"^(    models: )\[(.*)\]$",
            lambda m: f"{m.group(1)}[{', '.join(f'{i}{c}' for i in m.group(2).split(', ') for c in COPIES)}]",
            precisions.read_text(),
            flags=re.M,
        )
    )


# --- timing -------------------------------------------------------------------------------------------
def builds_in_turn(configs: dict[str, Path], runs: int, work: Path) -> dict[str, list[float]]:
    """Seconds of a strict build of each config, the configs taking turns run after run; each site is left in
    ``work/<name>``."""
    times: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(runs):
        for name, config in configs.items():
            shutil.rmtree(work / name, ignore_errors=True)
            times[name].append(mkdocs_build(config, work / name))
    return times


def paired(a: list[float], b: list[float]) -> str:
    """Medians of A and B and the median of their ratios pair by pair."""
    ratio = statistics.median(x / y for x, y in zip(a, b, strict=True))
    return f"{statistics.median(a):.2f} s against {statistics.median(b):.2f} s: {ratio:.2f}x"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:
        return ""


@contextmanager
def serving_french(project: Path) -> Iterator[str]:
    """`make serve-fr` of ``project`` (BUILD_ONLY_LOCALE=fr mkdocs serve) until the block ends; yields the
    address of the French quantization guide, which mkdocs-static-i18n then builds at the site's root."""
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}"],
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "BUILD_ONLY_LOCALE": "fr"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/guides/quantization/"
    try:
        deadline = time.monotonic() + 600
        while "<html" not in fetch(url):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"mkdocs serve of {project} did not come up")
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def save_to_served(project: Path, url: str, marker: str) -> float:
    """Seconds from saving the French quantization guide with ``marker`` in its heading to its page served."""
    page = project / "docs" / "fr" / "guides" / "quantization.md"
    original = page.read_text(encoding="utf-8")
    page.write_text(original.replace("# Choisir un format", f"# Choisir {marker} un format", 1), encoding="utf-8")
    saved = time.perf_counter()
    while marker not in fetch(url):
        if time.perf_counter() - saved > 300:
            raise SystemExit("the edit never reached the served page")
        time.sleep(0.05)
    seconds = time.perf_counter() - saved
    page.write_text(original, encoding="utf-8")
    return seconds


def serve_in_turn(site: Path, plain: Path, runs: int) -> tuple[list[float], list[float]]:
    """Save-to-served times of both projects served at once, an edit of each in turn."""
    times: tuple[list[float], list[float]] = ([], [])
    with serving_french(site) as site_url, serving_french(plain) as plain_url:
        for run in range(runs):
            for project, url, measured in ((site, site_url, times[0]), (plain, plain_url, times[1])):
                marker = "BENCHMARKEDIT" + "abcdefghijklmnopqrstuvwxyz"[run]  # a page may hold no typed figure
                measured.append(save_to_served(project, url, marker))
                time.sleep(2)  # the edit put back, rebuilt before the next
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, choices=range(1, 27), metavar="1-26")
    parser.add_argument("--skip-serve", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        site, plain = copy_project(work / "site-project"), plain_project(work / "plain-project")
        times = builds_in_turn({"site": site / "mkdocs.yml", "plain": plain / "mkdocs.yml"}, args.runs, work)
        _, pages = site_size(work / "site")
        print(f"build: the site against plain MkDocs building the same {pages:,} pages, {paired(*times.values())}")
        print(f"    (aim: <= {AIM}x)")
        if not args.skip_serve:
            served = serve_in_turn(site, plain, args.runs)
            print(f"save to served: make serve-fr against plain MkDocs serving the same pages, {paired(*served)}")
            print(f"    (aim: <= {AIM}x)")
        if not args.skip_scaling:
            tripled = copy_project(work / "tripled-project")
            triple_models(tripled)
            times = builds_in_turn({"tripled": tripled / "mkdocs.yml", "site": site / "mkdocs.yml"}, args.runs, work)
            (size, pages), (size_3, pages_3) = site_size(work / "site"), site_size(work / "tripled")
            time_ratio = statistics.median(x / y for x, y in zip(times["tripled"], times["site"], strict=True))
            print(
                f"three times the models: pages x{pages_3 / pages:.2f} ({pages:,} -> {pages_3:,}), build time "
                f"x{time_ratio:.2f} ({statistics.median(times['site']):.1f} -> "
                f"{statistics.median(times['tripled']):.1f} s), site size x{size_3 / size:.2f} "
                f"({size / 1e6:.1f} -> {size_3 / 1e6:.1f} MB)"
            )
            print(f"    (aim: time and size grow no more than the pages, x{pages_3 / pages:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
