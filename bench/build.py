"""Build performance: what the macro pipeline costs next to MkDocs itself, and how it scales.

    .venv/bin/python bench/build.py [--runs 3] [--skip-baseline] [--skip-profile] [--skip-scaling] [--skip-serve]

Prints medians of several runs and ratios measured in the same run (absolute times are noisy on a shared
machine): full build from an empty build cache (a clean clone), after one page was edited, and with nothing
changed, against a baseline with the hook disabled and every page's macro output pre-rendered; the hook's own
wall time (a clock around its event handlers, plus its import) as a share of the build in the same three cases;
a profile per phase; build time and configurator data as the catalog grows ×10 and ×100, the model list ×10 and
the pages ×10, from an empty and from a filled cache; save-to-served time of `mkdocs serve`.
"""
from __future__ import annotations

import argparse
import cProfile
import importlib.util
import gzip
import os
import pstats
import re
import shutil
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
from common import PYTHON, ROOT, mkdocs_build  # noqa: E402
from sitebuild import copy_project  # noqa: E402

LANGS = ("en", "fr", "zh")


# --- baseline: the same site, macros pre-rendered, no hook --------------------------------------------
def page_url(lang: str, relative: str) -> str:
    path = relative.removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    return ("" if lang == "en" else f"{lang}/") + path


def prerendered_project(target: Path) -> Path:
    """A copy whose pages hold their rendered Markdown, generated pages as files, and no hook."""
    from macros.context import build_data
    from macros.links import PageLinks
    from macros.pages import configurator_page
    from macros.pipeline import PageSource, process_page
    from macros.site_facts import facts_of
    from mkdocs.utils.meta import get_data

    project = copy_project(target)
    data = build_data()
    docs = project / "docs"
    for lang in LANGS:
        for model in data.catalog.models:
            (docs / lang / "configurator" / f"{model}.md").write_text(configurator_page(facts_of(data), lang, model))
    for path in sorted(docs.rglob("*.md")):
        lang, relative = path.relative_to(docs).parts[0], "/".join(path.relative_to(docs).parts[1:])
        source = path.read_text(encoding="utf-8")
        markdown, _ = get_data(source)
        url = page_url(lang, relative)
        root = "../" * url.count("/")
        links = PageLinks(root=root, lang_root=root + ("" if lang == "en" else f"{lang}/"))
        rendered = process_page(PageSource(f"docs/{lang}/{relative}", lang, source, markdown,
                                           generated="configurator/" in relative and relative != "configurator/index.md"),
                                ROOT / "docs", data, links)
        head = source[: len(source) - len(markdown)] if source.endswith(markdown) else ""
        path.write_text(head + rendered, encoding="utf-8")
    config = project / "mkdocs.yml"
    text = re.sub(r"\nhooks:\n  - hooks/page_macros.py\n", "\n", config.read_text())
    text = text.replace("    omitted_files: warn", "    omitted_files: info")
    # what the hook gives the 404 template, fixed
    text = text.replace("  generator: false", "  generator: false\n  not_found: {title: Page not found, text: Gone, "
                        "home: Home, configurator: Configurator, home_url: /}")
    config.write_text(text)
    return project


# --- profile: our code's share, per phase -------------------------------------------------------------
PHASES = {
    "catalog load (data/ -> Catalog)": "load_catalog",
    "verdict matrix (fit + floor)": "cell",
    "page checks (front matter, ids, glossary, links)": "check_before_rendering",
    "hand-typed figure check": "check_hand_typed",
    "macro rendering (Jinja + macros)": "render_page",
    "translation parity": "check_parity",
    "configurator pages": "configurator",
    "charts drawn (inline SVG)": "draw",
    "API + search index files": "finish_site",
}


def profile_build(site: Path) -> list[tuple[str, float]]:
    """Profile a build in a fresh process (nothing cached from earlier work in this one)."""
    import json
    result = subprocess.run([PYTHON, __file__, "--profile-only", str(site)], capture_output=True, text=True,
                            env={**os.environ, "BUILD_CACHE_DIR": ""})  # cold: every chart drawn
    if result.returncode:
        raise SystemExit(result.stderr[-3000:])
    return [tuple(row) for row in json.loads(result.stdout.strip().splitlines()[-1])]


def _profile_here(site: Path) -> list[tuple[str, float]]:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    profiler = cProfile.Profile()
    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site))
    profiler.enable()
    build(config)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = max(entry[3] for entry in stats.stats.values())  # cumulative time of the outermost call
    ours = ("/hooks/", "/macros/", "/sizing/")

    def cumulative(name: str) -> float:
        return max((entry[3] for (path, _, fn), entry in stats.stats.items()
                    if fn == name and any(part in path for part in ours)), default=0.0)
    hook_entries = ("on_config", "add_generated_pages", "prerender_pages", "on_page_read_source", "on_page_markdown",
                    "on_page_context", "on_post_page", "fill_unfilled_pages", "keep_language_404", "finish_site")
    own = sum(cumulative(name) for name in hook_entries)
    rows = [("whole build (profiled)", total), ("project code, all hook entry points", own)]
    rows += [(label, cumulative(function)) for label, function in PHASES.items()]
    return rows


# --- wall time of the hook itself, no profiler -----------------------------------------------------------
def hook_wall_time(project: Path, site: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(seconds in the hook's events, seconds importing the hook, seconds of the whole build) of one build of
    ``project`` in a fresh process, measured with a clock around each event handler (cProfile inflates
    Python-heavy code)."""
    import json
    result = subprocess.run([PYTHON, __file__, "--hook-time-only", str(site), "--project", str(project)],
                            capture_output=True, text=True, env={**os.environ, **env})
    if result.returncode:
        raise SystemExit(result.stderr[-3000:])
    return tuple(json.loads(result.stdout.strip().splitlines()[-1]))


def _hook_time_here(project: Path, site: Path) -> tuple[float, float, float]:
    from mkdocs.commands.build import build  # MkDocs' own imports, outside the hook's import time
    from mkdocs.config import load_config

    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    start = time.perf_counter()
    # the hook's own import (pydantic, Babel, the engine, the macros), before MkDocs loads it again cheaply
    spec = importlib.util.spec_from_file_location("bench_page_macros", project / "hooks" / "page_macros.py")
    module = sys.modules["bench_page_macros"] = importlib.util.module_from_spec(spec)  # as MkDocs loads a hook
    spec.loader.exec_module(module)
    import_seconds = time.perf_counter() - start
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(site))
    spent = [0.0]
    for methods in config.plugins.events.values():
        for index, method in enumerate(methods):
            if "page_macros" not in getattr(method, "__module__", ""):
                continue

            def timed(*args, _method=method, **kwargs):  # noqa: ANN002, ANN003, ANN202
                began = time.perf_counter()
                try:
                    return _method(*args, **kwargs)
                finally:
                    spent[0] += time.perf_counter() - began
            methods[index] = timed
    build(config)
    return spent[0], import_seconds, time.perf_counter() - start


# --- one page edited, one price changed: as between two builds in CI or in `mkdocs serve` ---------------
EDITED_PAGE = Path("docs/en/guides/quantization.md")


def edit_page(project: Path, run: int) -> None:
    """Change a sentence of an English guide, differently on every run (so that no run finds it in the cache):
    that page, its translations (checked against it) and the pages showing reading times are rendered again."""
    page = project / EDITED_PAGE
    text = page.read_text(encoding="utf-8")
    marker = "Benchmark edit " + "".join("abcdefghij"[int(d)] for d in str(run)) + "."  # no digit: no typed figure
    text = re.sub(r"(This guide works it out for real models\.)( Benchmark edit [a-j]+\.)?", rf"\1 {marker}", text)
    page.write_text(text, encoding="utf-8")


def edit_price(project: Path, run: int) -> None:
    """Raise the monthly price of the last node by a few dollars, differently on every run: every page
    depends on the data, so every page is rendered again, and the charts that show prices are drawn again."""
    nodes = project / "data" / "nodes.yml"
    text = (ROOT / "data" / "nodes.yml").read_text(encoding="utf-8")
    last = list(re.finditer(r"amount: (\d+)", text))[-1]
    changed = f"amount: {int(last.group(1)) + 1 + run}"
    nodes.write_text(text[:last.start()] + changed + text[last.end():], encoding="utf-8")


# --- scaling ------------------------------------------------------------------------------------------
def scale_catalog(project: Path, factor: int) -> None:
    nodes = project / "data" / "nodes.yml"
    head, _, body = nodes.read_text().partition("nodes:\n")
    records = re.findall(r"  - id: .*?(?=\n  - id: |\Z)", body, re.S)
    extra = []
    for copy in range(1, factor):
        for record in records:
            record = re.sub(r"id: (\S+)", rf"id: \1-r{copy}", record, count=1)
            record = re.sub(r"amount: (\d+)", lambda m: f"amount: {int(m.group(1)) + copy}", record)
            extra.append(record)
    nodes.write_text(head + "nodes:\n" + "\n".join(records + extra).rstrip() + "\n")


def scale_models(project: Path, factor: int) -> None:
    models = project / "data" / "models.yml"
    text = models.read_text()
    head, _, rest = text.partition("llms:\n")
    llms, _, diffusion = rest.partition("\n# Image and video models")
    records = re.findall(r"  - id: .*?(?=\n  - id: |\Z)", llms, re.S)
    extra = [re.sub(r"name: (.*)", rf"name: \1 v{copy}", re.sub(r"id: (\S+)", rf"id: \1-v{copy}", r, count=1), count=1)
             for copy in range(1, factor) for r in records]
    models.write_text(head + "llms:\n" + "\n".join(records + extra).rstrip() + "\n\n# Image and video models" + diffusion)


def scale_pages(project: Path, factor: int) -> None:
    for lang in LANGS:
        guides = project / "docs" / lang / "guides"
        for copy in range(1, factor):
            for page in ("nvlink-or-pcie", "image-and-video", "quantization", "mixture-of-experts"):
                (guides / f"{page}-copy{copy}.md").write_text((guides / f"{page}.md").read_text())
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("    omitted_files: warn", "    omitted_files: info"))


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
    server = subprocess.Popen([PYTHON, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml"),
                               "-a", f"127.0.0.1:{port}"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--skip-serve", action="store_true")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--skip-profile", action="store_true")
    parser.add_argument("--profile-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--hook-time-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--project", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hook_time_only:
        import json
        import logging
        logging.disable(logging.WARNING)
        print(json.dumps(_hook_time_here(args.project, args.hook_time_only)))
        return 0
    if args.profile_only:
        import json
        import logging
        logging.disable(logging.WARNING)
        print(json.dumps(_profile_here(args.profile_only)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        config = ROOT / "mkdocs.yml"
        cache = {"BUILD_CACHE_DIR": str(work / "cache")}
        edited, priced = copy_project(work / "edited"), copy_project(work / "priced")
        if not args.skip_baseline:
            baseline_project = prerendered_project(work / "baseline")
            # alternate the builds so that a slower spell of a shared machine hits them alike. "cold" starts from
            # an empty build cache, as a clean clone does; "warm" finds everything from an identical build;
            # "edited" finds everything but what an edit to one English guide changes; "priced" finds the charts
            # that show no price and the parsed data files but nodes.yml
            mkdocs_build(config, work / "full", env=cache)  # fills the cache
            times: dict[str, list[float]] = {"cold": [], "priced": [], "edited": [], "warm": [], "baseline": []}
            for run in range(args.runs):
                times["cold"].append(mkdocs_build(config, work / "full", env={"BUILD_CACHE_DIR": str(work / f"empty{run}")}))
                edit_price(priced, run)
                times["priced"].append(mkdocs_build(priced / "mkdocs.yml", work / "full", env=cache))
                edit_page(edited, run)
                times["edited"].append(mkdocs_build(edited / "mkdocs.yml", work / "full", env=cache))
                times["warm"].append(mkdocs_build(config, work / "full", env=cache))
                times["baseline"].append(mkdocs_build(baseline_project / "mkdocs.yml", work / "base"))
            baseline = statistics.median(times["baseline"])
            print(f"baseline, macros pre-rendered, no hook  {baseline:5.2f} s  (medians of {args.runs}, alternating)")
            for key, label in (("cold", "full build, empty build cache"), ("priced", "full build, one price changed"),
                               ("edited", "full build, one page edited"), ("warm", "full build, nothing changed")):
                full = statistics.median(times[key])
                print(f"{label:<40}{full:5.2f} s  {full / baseline:5.2f}× baseline; "
                      f"pipeline adds {full - baseline:+.2f} s = {100 * (full - baseline) / full:.1f} % of the build")

        if not args.skip_profile:
            print("\nthe hook's own wall time (a clock around each of its event handlers, no profiler; "
                  f"median of {args.runs})")
            hook_wall_time(ROOT, work / "timed", cache)  # fills the cache if it is empty yet
            for label, project, env, change in (
                    ("empty build cache", ROOT, None, None),  # a new empty folder for each run, as in a clean clone
                    ("one price changed", priced, cache, edit_price),
                    ("one page edited", edited, cache, edit_page),
                    ("nothing changed", ROOT, cache, None)):
                runs = []
                for run in range(args.runs):
                    if change:
                        change(project, 100 + run)
                    fresh = {"BUILD_CACHE_DIR": str(work / f"hook-empty-{run}")}
                    runs.append(hook_wall_time(project, work / "timed", env or fresh))
                events, imports, whole = (statistics.median(r[i] for r in runs) for i in range(3))
                print(f"  {label:<18} events {events:5.2f} s + import {imports:4.2f} s of {whole:5.2f} s "
                      f"= {100 * (events + imports) / whole:4.1f} % of the build")

            print("\nprofiled build (cProfile, build cache off: every page rendered in the build's process; shares of the same run)")
            rows = profile_build(work / "profiled")
            total = rows[0][1]
            for label, seconds in rows:
                print(f"  {label:<50} {seconds:6.2f} s  {100 * seconds / total:5.1f} %")

        if not args.skip_scaling:
            runs = args.runs
            print(f"\nscaling ({runs} pairs each: the variant, then the real site; the ratio is the median of the "
                  "pairs' ratios)\n  empty: both from an empty build cache; filled: both find their own earlier build")
            print(f"  {'variant':<14} {'empty: build':>13} {'real':>6} {'adds':>6}   "
                  f"{'filled: build':>13} {'real':>6} {'adds':>6}   {'fit.json gz':>11}")
            for label, change in (("catalog ×10", lambda p: scale_catalog(p, 10)),
                                  ("catalog ×100", lambda p: scale_catalog(p, 100)),
                                  ("models ×10", lambda p: scale_models(p, 10)),
                                  ("pages ×10", lambda p: scale_pages(p, 10))):
                project = copy_project(work / label.replace(" ", "_").replace("×", "x"))
                change(project)
                columns = []
                for kind in ("empty", "filled"):
                    pairs = []
                    for run in range(runs):
                        fresh = work / f"empty-{project.name}-{run}"  # a new empty cache for each build
                        env = {"BUILD_CACHE_DIR": str(fresh if kind == "empty" else work / "cache")}
                        if kind == "filled" and run == 0:  # fill the cache with the variant's own build
                            mkdocs_build(project / "mkdocs.yml", project / "site", env=env)
                        variant = mkdocs_build(project / "mkdocs.yml", project / "site", env=env)
                        env = {"BUILD_CACHE_DIR": str(fresh.with_name(fresh.name + "-real"))} if kind == "empty" else env
                        pairs.append((variant, mkdocs_build(config, work / "full", env=env)))
                    ratio = statistics.median(variant / real for variant, real in pairs)
                    columns.append(f"{statistics.median(v for v, _ in pairs):12.2f}s "
                                   f"{statistics.median(r for _, r in pairs):5.2f}s {100 * (ratio - 1):+5.0f}%")
                print(f"  {label:<14} {columns[0]}   {columns[1]}   {fit_gzip_kb(project / 'site'):9.1f}KB"
                      f"   (real site: {fit_gzip_kb(work / 'full'):.1f}KB)")
                shutil.rmtree(project)

        if not args.skip_serve:
            print("\nmkdocs serve: save a page -> rebuilt page served (median of 3 edits)")
            project = copy_project(work / "serve")
            print(f"  all languages      {save_to_served(project, None, 3):5.2f} s")
            print(f"  French only        {save_to_served(project, 'fr', 3):5.2f} s   (make serve-fr)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
