"""The build's helper process does the pipeline's work while MkDocs works: each page exactly as the build would
render it, so that the build finds it in the cache, and the build's own process imports none of the pipeline.
What the helper cannot make, the build makes and reports; a site built without the helper is the same site;
a stuck helper is stopped."""
from __future__ import annotations

import filecmp
import logging
import subprocess
import sys
from pathlib import Path

from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.utils.meta import get_data

from macros import helper as build_helper
from macros import incremental
from macros.fetch import page_job
from macros.helper import Helper, remember_build, worth_starting
from macros.incremental import prerender
from macros.links import PageLinks
from macros.page_source import markdown_of

ROOT = Path(__file__).resolve().parent.parent


def test_the_helper_splits_off_front_matter_as_mkdocs_does():
    pages = sorted((ROOT / "docs").rglob("*.md"))
    for path in pages:
        source = path.read_text(encoding="utf-8")
        assert markdown_of(source) == get_data(source)[0], path
    assert markdown_of("# No front matter\n") == "# No front matter\n"


def _build(site: Path) -> None:
    logging.disable(logging.WARNING)
    try:
        mkdocs_build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site)))
    finally:
        logging.disable(logging.NOTSET)


def test_each_page_the_helper_is_handed_is_the_page_the_build_then_finds_rendered(tmp_path, monkeypatch):
    """Record the pages a build hands the helper, render them here into an empty cache: a second build
    neither renders a page itself nor asks the helper for one, every language and generated page included."""
    sent: list[dict[str, object]] = []
    asked: list[dict[str, object]] = []
    monkeypatch.setattr(Helper, "send", lambda self, request, urgent=False: sent.append(request))
    monkeypatch.setattr(Helper, "ask", lambda self, request: asked.append(request))  # no reply: made here
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "first"))
    _build(tmp_path / "site")
    keys = [job["key"] for job in sent if job["kind"] == "page"]
    pages = list({job["key"]: job for job in sent if job["kind"] == "page"}.values())
    built = {path.relative_to(tmp_path / "site").as_posix() for path in (tmp_path / "site").rglob("index.html")}
    assert len(pages) == len(built) - len({"search/index.html"} & built)  # every page
    assert {job["lang"] for job in pages} == {"en", "fr", "zh"} and any(job["generated"] for job in pages)
    assert [job["stage"] for job in pages] == sorted(job["stage"] for job in pages)  # in MkDocs' order
    # the English pages handed over before MkDocs listed its files are MkDocs' own, in its order
    early = keys[:len(keys) - len(pages)]
    assert len(early) > 10 and early == [key for key in keys[len(early):] if key in early]

    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "second"))
    assert all(prerender(job) for job in pages)
    rendered_here: list[str] = []
    process_page = incremental.process_page
    monkeypatch.setattr(incremental, "process_page", lambda page, *args: rendered_here.append(page.path)
                        or process_page(page, *args))
    asked.clear()
    _build(tmp_path / "site")
    assert rendered_here == [] and [request for request in asked if request["kind"] == "page"] == []


def test_a_page_the_helper_cannot_render_is_left_to_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "broken.md").write_text('# Broken\n\n{{ price("no-such-node") }}\n', encoding="utf-8")
    # no exception: the build reports it, by file and line
    assert not prerender(page_job("en/broken.md", "en", False, PageLinks("../", "../"), docs, stage=1, version=""))
    assert not (tmp_path / "cache" / "pages").exists()


IMPORTS = """
import logging, sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.disable(logging.WARNING)
for site in sys.argv[1:]:
    build(load_config("mkdocs.yml", site_dir=site))
    print(" ".join(name for name in ("pydantic", "sizing.catalog", "macros.pipeline")
                   if name in sys.modules) or "none")
"""


def test_with_the_helper_the_builds_process_imports_neither_the_catalog_nor_the_pipeline(tmp_path):
    """From an empty build cache (the helper renders every page), then from a filled one."""
    run = subprocess.run([sys.executable, "-c", IMPORTS, str(tmp_path / "first"), str(tmp_path / "second")],
                         cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "BUILD_CACHE_DIR": str(tmp_path / "cache"),
                              "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)})
    assert run.stdout.split("\n")[-3:] == ["none", "none", ""], run.stdout + run.stderr


def test_without_the_helper_the_build_makes_the_same_site_itself(tmp_path, monkeypatch):
    """Every page, chart and API file made in the build's own process is byte for byte what the helper made."""
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "with"))
    _build(tmp_path / "with-helper")
    monkeypatch.setattr(build_helper.sys, "executable", "/bin/false")  # the helper ends at once
    monkeypatch.setattr(build_helper, "_helper", None)
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "without"))
    _build(tmp_path / "without-helper")
    with_helper = sorted(p.relative_to(tmp_path / "with-helper") for p in (tmp_path / "with-helper").rglob("*")
                         if p.is_file())
    assert with_helper == sorted(p.relative_to(tmp_path / "without-helper")
                                 for p in (tmp_path / "without-helper").rglob("*") if p.is_file())
    _, differ, errors = filecmp.cmpfiles(tmp_path / "with-helper", tmp_path / "without-helper",
                                         [str(p) for p in with_helper if p.name != "sitemap.xml.gz"], shallow=False)
    assert differ == [] and errors == []


def test_the_helper_starts_only_when_docs_data_or_code_changed_since_the_last_build(tmp_path, monkeypatch):
    """A build that finds every page in the cache would only pay for the helper's start-up."""
    data, docs = tmp_path / "data", tmp_path / "docs"
    data.mkdir()
    (docs / "en").mkdir(parents=True)
    (data / "nodes.yml").write_text("nodes: []\n", encoding="utf-8")
    (docs / "en" / "index.md").write_text("# Home\n", encoding="utf-8")
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    assert worth_starting(docs, data)
    remember_build(docs, data)
    assert not worth_starting(docs, data)
    (data / "nodes.yml").write_text("nodes: [] # a price changed\n", encoding="utf-8")
    assert worth_starting(docs, data)
    remember_build(docs, data)
    (docs / "en" / "index.md").write_text("# Home, edited\n", encoding="utf-8")
    assert worth_starting(docs, data)
    monkeypatch.setenv("BUILD_CACHE_DIR", "")
    assert not worth_starting(docs, data)  # no cache: nowhere to put what it renders


def test_the_helper_is_handed_exactly_the_pages_the_build_cache_lacks(tmp_path, monkeypatch):
    sent: list[dict[str, object]] = []
    monkeypatch.setattr(Helper, "send", lambda self, request, urgent=False: sent.append(request))
    monkeypatch.setattr(Helper, "ask", lambda self, request: None)
    monkeypatch.setattr(build_helper, "_helper", None)
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    _build(tmp_path / "site")  # an empty cache: every page
    built = [path for path in (tmp_path / "site").rglob("index.html") if path.parent.name != "search"]
    assert len({job["key"] for job in sent if job["kind"] == "page"}) == len(built)
    pages = sorted((tmp_path / "cache" / "pages").iterdir())
    for entry in pages[:3]:  # as if three pages had changed
        entry.unlink()
    sent.clear()
    monkeypatch.setattr(build_helper, "_helper", None)
    build_helper.helper()  # a build after an edit starts one
    _build(tmp_path / "site")
    assert len({job["key"] for job in sent if job["kind"] == "page"}) == 3
    assert not [job for job in sent if job["kind"] != "page"]  # the API files are in the cache


def test_a_page_edited_in_mkdocs_serve_is_a_new_request_for_the_helper(tmp_path):
    """The helper does a request once: after an edit, the same page must be asked for anew."""
    from macros.build_cache import docs_state
    from macros.fetch import build_version

    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "index.md").write_text("# Home\n", encoding="utf-8")

    def key(data: str) -> object:
        return page_job("en/index.md", "en", False, PageLinks(), docs, 1, build_version(data, docs_state(docs)))["key"]
    before = key("data")
    (docs / "en" / "index.md").write_text("# Home, edited\n", encoding="utf-8")
    assert key("data") != before and key("new data") != key("data")


def test_a_helper_that_replies_nothing_is_stopped_and_the_build_does_without_it(tmp_path, monkeypatch, caplog):
    stuck = tmp_path / "stuck-python"
    stuck.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")
    stuck.chmod(0o755)
    monkeypatch.setattr(build_helper.sys, "executable", str(stuck))
    monkeypatch.setattr(build_helper, "REPLY_TIMEOUT_SECONDS", 0.2)
    worker = Helper()
    assert worker.ask({"kind": "facts", "key": "facts of some data", "stage": 0}) is None
    assert worker.ended and "replied nothing for 0 s: stopped" in caplog.text
    worker.send({"kind": "api", "key": "api of some data", "stage": 99})  # nothing to send to: no error
