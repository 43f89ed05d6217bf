"""Shared fixtures: the real catalog, and a writable copy of data/ to break on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sizing.catalog.loader import DATA_DIR, Catalog, load_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """A copy of data/ that a test may edit."""
    target = tmp_path / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file, insisting that ``old`` is there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once for the whole test session."""
    from sitebuild import ROOT as project
    from sitebuild import build

    target = tmp_path_factory.mktemp("built") / "site"
    result = build(project, target)
    assert result.returncode == 0, result.stderr
    return target


@pytest.fixture(scope="session")
def server(site: Path):
    """The built site served on a free loopback port."""
    import functools
    import http.server
    import threading

    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class QuietHandler(__import__("http.server").server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, driven by Playwright (`make test` installs it where missing)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: run `make test`, which installs Debian's chromium"
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


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
