"""Shared fixtures: the real catalog, what the site computes from it (each computed once for the session), a
writable copy of data/ to break on purpose, the site builds the tests read, a browser."""

from __future__ import annotations

import contextlib
import functools
import gc
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Generator, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import mkdocs.commands.build
import pytest
from brokenbuilds import BrokenBuilds, broken_builds
from chromium import launch
from playwright.sync_api import sync_playwright
from searching import SearchBox
from sitebuild import BASE_PATH, SITE_URL, BuiltSite, build, copy_project, edit

from macros.generated import api_files
from macros.site.site_data import SiteData, site_data
from sizing.catalog.loader import DATA_DIR, Catalog, current_catalog
from sizing.views.plan_figures import PlanFigures

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    """The catalog of data/, as the command lines and the site's macros read it (``current_catalog``)."""
    return current_catalog()


@pytest.fixture
def no_site_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test of small fake sites built for no address: the checks read none from the environment the tests run
    in (CI and .ci/run set $SITE_URL for the site they build)."""
    monkeypatch.delenv("SITE_URL", raising=False)


@pytest.fixture(scope="session")
def data() -> SiteData:
    """The catalog of data/ with its verdicts, and what macros compute from them, as a build holds them."""
    return site_data()


@pytest.fixture(scope="session")
def api_documents(data: SiteData) -> dict[str, object]:
    """Every file of the site's API, by its path in the site, as JSON: the documents and their schemas."""
    return {path: json.loads(content) for path, content in api_files(data).items()}


@pytest.fixture(scope="session")
def plan_figures(data: SiteData) -> PlanFigures:
    """The plan's figures of every language model, as the site computes them once for its data."""
    from macros.library.plan_tables import plan_figures_of

    return plan_figures_of(data)


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of data/ that a test may edit."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


# Refuses every connection in the Python process it is imported into (as sitecustomize, via PYTHONPATH).
NETWORK_BLOCKER = """import socket
def _refuse(*args, **kwargs):
    raise RuntimeError(f'network access during the build: {args!r}')
socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.getaddrinfo = _refuse
socket.create_connection = _refuse
"""
EPOCH_2020 = "1577836800"  # 2020-01-01T00:00:00Z


@pytest.fixture(scope="session")
def offline_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment variables under which a Python process cannot open a network connection."""
    blocker = tmp_path_factory.mktemp("offline")
    (blocker / "sitecustomize.py").write_text(NETWORK_BLOCKER)
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(blocker), os.environ.get("PYTHONPATH")]))}


# The shared build is made offline, with reproducible dates and a fixed hash seed: test_publishing builds the
# site again with another seed and compares, and checks that the shared build made no network request.
SHARED_BUILD_ENV = {"SOURCE_DATE_EPOCH": EPOCH_2020, "PYTHONHASHSEED": "1"}
# The configurator pages of a build that does not test them: one model of each kind of page (a server engine's
# precisions and contexts, llama.cpp's, the KV cache in FP8; an image model's precisions), on every language.
SAMPLE_MODELS = "gpt-oss-20b,flux.1-dev"
SAMPLE_PAGES = {"MODEL_PAGES": SAMPLE_MODELS}


# The one altered copy of the project, built once: what a change of data/ does to the built site, and the site
# published to a project site (an address with a path) the day a writer added a macro call to an English guide
# and nobody has updated its translations yet, and a few pages are not translated at all.
DATA_EDITS = [
    ("nodes.yml", "{amount: 4157, currency: USD}", "{amount: 4321, currency: USD}"),  # 4 × A100 PCIe
    ("models.yml", "name: Llama 3.3 70B", "name: Llama <script>alert(1)</script>"),
    ("gpus.yml", "short_name: L40S", "short_name: L40S <img src=x onerror=alert(2)>"),
    ("gpus.yml", "short_name: A40\n", "short_name: 'A40 [clickme](javascript:alert(12))'\n"),
    ("models.yml", "name: Qwen3 32B", "name: 'Qwen3 32B {{ 7*7 }} {: onclick=x }'"),
    ("models.yml", "params: 2567460000", "params: 5134920000"),  # SDXL's UNet doubled
]
PUBLISHED_ADDRESS = "https://example.org/guides/"
WRITERS_GUIDE = "guides/nvlink-or-pcie"
WRITERS_EDIT = (
    'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones.',
    'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones: we rent '
    "{{ node_count() }} configurations.",
)
UNTRANSLATED_GUIDE = "guides/mixture-of-experts"  # in Chinese; the French home page is not translated either
TRANSLATORS_BEHIND = (  # the English API page changed after its translations were stamped
    "rebuilt with every release of the site.",
    "rebuilt with every release of the site, and never edited by hand.",
)


def double_rtx_6000_ada(gpus: Path) -> None:
    """The RTX 6000 Ada with twice its memory, as nvidia-smi and CUDA would see it."""
    before, ada, after = re.split(r"(  - id: rtx-6000-ada\n(?:    .*\n|      .*\n)+)", gpus.read_text(encoding="utf-8"))
    doubled = (
        ada.replace("memory_gb: 48", "memory_gb: 96")
        .replace("nvidia_smi_memory_mib: 46068", "nvidia_smi_memory_mib: 92136")
        .replace("runtime_visible_memory_mib: 45599", "runtime_visible_memory_mib: 91198")
    )
    gpus.write_text(before + doubled + after, encoding="utf-8")


def altered_project(project: Path) -> Path:
    """A copy of the project at ``project``: its data/ with DATA_EDITS and a doubled RTX 6000 Ada (a new price,
    hostile markup, Markdown and template code in names, larger models and cards), the writer's edit, two pages
    never translated and the API page's translations behind its English page."""
    copy_project(project)
    for name, old, new in DATA_EDITS:
        edit(project / "data" / name, old, new)
    double_rtx_6000_ada(project / "data" / "gpus.yml")
    edit(project / "docs" / "en" / f"{WRITERS_GUIDE}.md", *WRITERS_EDIT)
    (project / "docs" / "zh" / f"{UNTRANSLATED_GUIDE}.md").unlink()
    (project / "docs" / "fr" / "index.md").unlink()
    edit(project / "docs" / "en" / "reference" / "api.md", *TRANSLATORS_BEHIND)
    return project


def successful_build(project: Path, site: Path, environ: Mapping[str, str], url: str = SITE_URL) -> BuiltSite:
    """``project`` built into ``site``, which must succeed."""
    result = build(project, site, url, environ)
    assert result.returncode == 0, result.stderr
    return BuiltSite(site, result)


class SessionBuilds:
    """The builds that tests share, each made once per session: of the whole site, and of broken copies of the
    project (tests/brokenbuilds.py). As the session starts, those its tests will ask for are started in a thread
    of their own, one after the other, in the order the tests need them: MkDocs runs in processes of its own, on
    another core than the tests, which run in the order the builds they read are done
    (pytest_collection_modifyitems). Each build gets the environment the session started with, plus its own
    variables: what a test sets in os.environ meanwhile does not reach it."""

    def __init__(self, makers: Mapping[str, Callable[[], Any]]) -> None:
        self.makers = makers
        self.started: dict[str, Future[Any]] = {}
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="site-builds")

    def start(self, names: list[str]) -> None:
        for name in names:
            if name not in self.started:
                self.started[name] = self.thread.submit(self.makers[name])

    def result(self, name: str) -> Any:
        """The build ``name``: waited for if it was started, else made now."""
        started = self.started.get(name)
        return started.result() if started else self.makers[name]()

    def stop(self) -> None:
        """Cancel the builds not begun (a session cut short), wait for the one running."""
        self.thread.shutdown(wait=True, cancel_futures=True)


# The fixtures below, in the order they are built: the site as it is (the site tests and the browser tests read
# it), the quickest of the others next; the broken copies last, which only two test files of tests/site read, and
# those come last in that folder (pytest_collection_modifyitems).
SESSION_BUILDS = ("site_build", "sample_rebuilt", "altered_site", "broken_builds")


def builds_used(item: pytest.Item) -> list[str]:
    """The session builds a test reads, in SESSION_BUILDS' order."""
    names = set(getattr(item, "fixturenames", ()))
    if "site" in names and not os.environ.get("BUILT_SITE"):
        names.add("site_build")  # what `site` reads unless CI gives it the site it built
    return [name for name in SESSION_BUILDS if name in names]


def builds_needed(items: list[pytest.Item]) -> list[str]:
    """The session builds the collected tests read, in SESSION_BUILDS' order."""
    used = {name for item in items for name in builds_used(item)}
    return [name for name in SESSION_BUILDS if name in used]


@pytest.fixture(scope="session", autouse=True)
def session_builds(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, offline_env: dict[str, str]
) -> Iterator[SessionBuilds]:
    environ = dict(os.environ)
    shared, rebuilt, altered, broken = (
        tmp_path_factory.mktemp(name) for name in ("built", "again", "altered", "broken")
    )

    def altered_site() -> BuiltSite:
        project = altered_project(altered / "project")
        return successful_build(project, project / "site", environ, PUBLISHED_ADDRESS)

    builds = SessionBuilds(
        {
            "site_build": lambda: successful_build(
                ROOT, shared / "site", {**environ, **offline_env, **SHARED_BUILD_ENV}
            ),
            "sample_rebuilt": lambda: BuiltSite(
                rebuilt / "site",
                build(
                    ROOT,
                    rebuilt / "site",
                    environ={**environ, **SHARED_BUILD_ENV, **SAMPLE_PAGES, "PYTHONHASHSEED": "3"},
                ),
            ),
            "altered_site": altered_site,
            "broken_builds": lambda: broken_builds(broken, {**environ, **SAMPLE_PAGES}),
        }
    )
    builds.start(builds_needed(request.session.items))
    yield builds
    builds.stop()


@pytest.fixture(scope="session")
def site_build(session_builds: SessionBuilds) -> BuiltSite:
    """The real site, built once for the whole test session (offline, see SHARED_BUILD_ENV)."""
    return session_builds.result("site_build")


@pytest.fixture(scope="session")
def site(request: pytest.FixtureRequest) -> Path:
    """The real site, built once for the whole test session: for tests that only read it. In CI, the site the
    workflow built and checked and will publish ($BUILT_SITE)."""
    if os.environ.get("BUILT_SITE"):
        return Path(os.environ["BUILT_SITE"]).resolve()
    return request.getfixturevalue("site_build").path


@pytest.fixture(scope="session")
def sample_rebuilt(session_builds: SessionBuilds) -> BuiltSite:
    """The real site built again as site_build was, but with another hash seed (3), not offline, and the
    configurator pages of SAMPLE_MODELS only; what the build returned is for the test to check."""
    return session_builds.result("sample_rebuilt")


@pytest.fixture(scope="session")
def altered_site(session_builds: SessionBuilds) -> tuple[Path, Path]:
    """The project of altered_project and its site, built once for PUBLISHED_ADDRESS, every configurator page
    included (hostile names land on all of them; `make check` follows every link)."""
    site = session_builds.result("altered_site").path
    return site.parent, site


@pytest.fixture(scope="session", name="broken_builds")
def broken_builds_fixture(session_builds: SessionBuilds) -> BrokenBuilds:
    """Each case of tests/brokenbuilds.py: a broken copy of the project built over a live site, with the
    configurator pages of SAMPLE_MODELS only."""
    return session_builds.result("broken_builds")


@contextlib.contextmanager
def serving(site: Path) -> Iterator[str]:
    """``site`` served on a free loopback port, at BASE_PATH: its address."""
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}{BASE_PATH}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="session")
def server(site: Path) -> Iterator[str]:
    """The built site served on a free loopback port."""
    with serving(site) as address:
        yield address


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site at the path of its address (BASE_PATH: / unless $SITE_URL has a path); a path
    outside it is a miss."""

    def translate_path(self, path: str) -> str:
        inside = path.startswith(BASE_PATH)
        return super().translate_path("/" + path[len(BASE_PATH) :] if inside else "/.outside-the-site/")

    def log_message(self, *args: object) -> None:
        pass


class RootNotFoundHandler(QuietHandler):
    """A host like GitHub Pages: any miss, at any depth, gets the root 404.html with status 404."""

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            super().send_error(code, message, explain)
            return
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium driven by Playwright: the one $CHROMIUM names (tests/chromium.py)."""
    with sync_playwright() as playwright:
        instance = launch(playwright)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def search_box(browser, server) -> Iterator[SearchBox]:
    """Each language's search box, opened once for every query of the session (tests/searching.py)."""
    context = browser.new_context()
    yield SearchBox(context, server)
    context.close()


DEFAULT_VIEWPORT = {"width": 1280, "height": 720}  # Playwright's, for a context given none
# FOREGROUND: a page kept open for the session is brought to the front before a test uses it. Chromium runs the
# animation frames and timers of a page behind another at most once a second, and Material draws search results
# on an animation frame, axe yields on timers: a French query took 1.0 s behind the English page, 0.1 s in front.


class Tabs:
    """Pages kept open for the whole session, one per set of options, handed to one test after another. A new page
    starts a renderer that parses Material's style sheet and compiles its script before it draws anything: about
    1.5 CPU-seconds a load on this 2-core machine, against 0.4 in a page already open (20 loads of five pages).

    A test gets its page in front of the others (FOREGROUND), on ``about:blank`` at the viewport and colour scheme
    asked for (``viewport``, ``color_scheme``; whatever the last test set), with the site's storage cleared, the
    errors its scripts log collected afresh in ``page.errors``, and ``init_script`` (if given) run in each document
    before its own scripts. Asked twice for the same options, a test gets the same page. A test that
    needs a history of its own (Back and Forward), routes, listeners of its own, or a first load in a new renderer
    opens its own page (``context_factory``)."""

    def __init__(self, browser, server: str) -> None:
        self.browser, self.server = browser, server
        self.pages: dict[tuple[str, str | None], Any] = {}  # Playwright pages, each given an ``errors`` list

    def page(
        self,
        viewport: Mapping[str, int] | None = None,
        color_scheme: str = "light",
        init_script: str | None = None,
        **context_options,
    ) -> Any:
        key = (json.dumps([viewport, color_scheme, context_options], sort_keys=True), init_script)
        page = self.pages.get(key)
        if page is None:
            page = self.browser.new_context(**context_options).new_page()
            if init_script is not None:
                page.add_init_script(init_script)
            page.errors = []
            page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            self.pages[key] = page
        elif context_options.get("java_script_enabled", True) and page.url.startswith(self.server):
            page.evaluate("localStorage.clear(); sessionStorage.clear()")
        page.bring_to_front()  # FOREGROUND
        page.goto("about:blank")
        page.set_viewport_size(dict(viewport or DEFAULT_VIEWPORT))
        page.emulate_media(color_scheme=color_scheme)
        page.errors.clear()
        return page

    def close(self) -> None:
        for page in self.pages.values():
            page.context.close()


@pytest.fixture(scope="session")
def tab_pool(browser, server) -> Iterator[Tabs]:
    tabs = Tabs(browser, server)
    yield tabs
    tabs.close()


@pytest.fixture
def tab(tab_pool: Tabs):
    """``tab(viewport=…, color_scheme=…, **context options)``: a page of the session's (``Tabs``), for this test."""
    return tab_pool.page


@pytest.fixture
def context_factory(browser):
    """``make(**options)``: a new browser context (viewport, colour scheme, JavaScript…), closed after the test."""
    contexts = []

    def make(**options):
        context = browser.new_context(**options)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


# How many MkDocs builds the session ran: of the whole project in every language, of the project with few
# generated pages ($MODEL_PAGES), of one language only (BUILD_ONLY_LOCALE), and of anything smaller (a
# tiny test project). Printed at the end, so that a change which adds a build to the suite shows in every run.
BUILDS = {
    "the whole site": 0,
    "the site with few generated pages": 0,
    "the site in one language": 0,
    "tiny projects": 0,
}


def _count_build(config: Path, env: Mapping[str, str]) -> None:
    if not (config.parent / "docs" / "en").is_dir() or not (config.parent / "data").is_dir():
        BUILDS["tiny projects"] += 1
    elif env.get("BUILD_ONLY_LOCALE"):
        BUILDS["the site in one language"] += 1
    else:
        BUILDS["the site with few generated pages" if env.get("MODEL_PAGES") else "the whole site"] += 1


def _config_of(command: list[str], cwd: object) -> Path | None:
    """The mkdocs.yml a command builds, if it is `mkdocs build` or scripts/build_site.py."""
    words = [str(word) for word in command]
    builds = any(word.endswith("build_site.py") for word in words) or ("mkdocs" in words and "build" in words)
    if not builds:
        return None
    folder = str(cwd or ".")
    for flag in ("-f", "--config-file"):
        if flag in words[:-1]:
            return Path(folder, words[words.index(flag) + 1])
    return Path(folder, "mkdocs.yml")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SessionFixturesFrozen())
    popen_init = subprocess.Popen.__init__
    build_in_process = mkdocs.commands.build.build

    def counting_popen_init(self, args, *rest, **options):
        if isinstance(args, (list, tuple)) and (target := _config_of(list(args), options.get("cwd"))):
            _count_build(target, options.get("env") or os.environ)
        popen_init(self, args, *rest, **options)

    running: list[object] = []  # mkdocs-static-i18n builds each further language by calling build() again

    def counting_build(mkdocs_config, *rest, **options):
        if not running:
            _count_build(Path(mkdocs_config.config_file_path), os.environ)
        running.append(mkdocs_config)
        try:
            return build_in_process(mkdocs_config, *rest, **options)
        finally:
            running.pop()

    subprocess.Popen.__init__ = counting_popen_init  # type: ignore[method-assign]  # counting, then the real one
    mkdocs.commands.build.build = counting_build  # type: ignore[assignment]  # counting, then the real one


class SessionFixturesFrozen:
    """Each session fixture, once made, is moved out of the garbage collector's sight (``gc.freeze``): it lives as
    long as the session, and a full collection would otherwise walk it again and again. With the site's data and
    pytest's collected tests alive, a full collection took 0.8 s, and a test that loads a catalog set one off every
    third run (a catalog error's test: 0.47 s on average against 0.17 s). A plugin, not a hook of this conftest:
    pytest asks a session fixture's hooks of the session's folder, above tests/."""

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[object]) -> Generator[None, object, object]:
        value = yield
        if fixturedef.scope == "session":
            gc.collect()
            gc.freeze()
        return value


# The order the test folders run in: those that need no built site first, while the sites build (SessionBuilds).
# The browser tests come last: they read the shared site only, and Chromium would compete with the builds for the
# second core.
FOLDERS_IN_ORDER = ("unit", "scripts", "site", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Folder by folder (FOLDERS_IN_ORDER); in a folder, the tests that read no session build or only the first,
    then those that read the next, and so on: a test waits for a build only once the ones before it are done. A
    module's tests may so run in two or three runs: a module-scoped fixture would be made once per run (tests/site
    has none)."""

    def rank(item: pytest.Item) -> tuple[int, int]:
        folder = item.path.parent.name
        built = builds_used(item)
        last_build = SESSION_BUILDS.index(built[-1]) if built else -1
        return (FOLDERS_IN_ORDER.index(folder) if folder in FOLDERS_IN_ORDER else len(FOLDERS_IN_ORDER), last_build)

    items.sort(key=rank)  # stable: otherwise each folder keeps its own order


def pytest_terminal_summary(terminalreporter) -> None:
    counts = ", ".join(f"{count} of {what}" for what, count in BUILDS.items())
    terminalreporter.write_line(f"MkDocs builds in this session: {counts}")
