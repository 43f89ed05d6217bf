"""Shared fixtures: the real catalog, and a writable copy of data/ to break on purpose."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest
from chromium import launch
from playwright.sync_api import sync_playwright
from sitebuild import BASE_PATH, build

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
    if os.environ.get("BUILT_SITE"):  # CI: the site it built and checked, and will publish
        return Path(os.environ["BUILT_SITE"]).resolve()
    target = tmp_path_factory.mktemp("built") / "site"
    result = build(ROOT, target)
    assert result.returncode == 0, result.stderr
    return target


@pytest.fixture(scope="session")
def server(site: Path):
    """The built site served on a free loopback port."""
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{BASE_PATH}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the built site at the path of its address (BASE_PATH: / unless $SITE_URL has a path); a path
    outside it is a miss."""

    def translate_path(self, path: str) -> str:
        inside = path.startswith(BASE_PATH)
        return super().translate_path("/" + path[len(BASE_PATH) :] if inside else "/.outside-the-site/")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium driven by Playwright: the one $CHROMIUM names (tests/chromium.py)."""
    with sync_playwright() as playwright:
        instance = launch(playwright)
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
