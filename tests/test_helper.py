"""The build's helper process renders pages ahead of MkDocs: each page exactly as the build would, so that the
build finds it in the cache; a page it cannot render is left to the build, which reports it."""
from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.utils.meta import get_data

from macros import incremental
from macros.helper import Helper, remember_build, worth_starting
from macros.incremental import prerender
from macros.pipeline import markdown_of

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
    """Record the page jobs of a build, do them here into an empty cache: a second build renders no page
    itself, every language and every generated configurator page included."""
    jobs: list[dict[str, object]] = []
    monkeypatch.setattr(Helper, "send", lambda self, request: jobs.append(request))
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "first"))
    _build(tmp_path / "site")
    pages = [job for job in jobs if job["kind"] == "page"]
    built = {path.relative_to(tmp_path / "site").as_posix() for path in (tmp_path / "site").rglob("index.html")}
    assert len(pages) == len(built) - len({"search/index.html"} & built)  # every page, once
    assert {job["lang"] for job in pages} == {"en", "fr", "zh"} and any(job["generated"] for job in pages)

    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "second"))
    for job in pages:
        prerender(job)
    rendered_here: list[str] = []
    process_page = incremental.process_page
    monkeypatch.setattr(incremental, "process_page", lambda page, *args: rendered_here.append(page.path)
                        or process_page(page, *args))
    _build(tmp_path / "site")
    assert rendered_here == []


def test_a_page_the_helper_cannot_render_is_left_to_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    docs = tmp_path / "docs"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "broken.md").write_text('# Broken\n\n{{ price("no-such-node") }}\n', encoding="utf-8")
    prerender({"kind": "page", "src_uri": "en/broken.md", "lang": "en", "generated": False, "root": "../",
               "lang_root": "../", "docs_dir": str(docs)})  # no exception: the build reports it, by file and line
    assert not (tmp_path / "cache" / "pages").exists()


def test_the_helper_is_worth_starting_only_for_data_or_code_the_build_cache_has_not_seen(tmp_path, monkeypatch):
    """A build after a page edit finds every other page in the cache: the helper would only check them."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "nodes.yml").write_text("nodes: []\n", encoding="utf-8")
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path / "cache"))
    assert worth_starting(data)
    remember_build(data)
    assert not worth_starting(data)
    (data / "nodes.yml").write_text("nodes: [] # a price changed\n", encoding="utf-8")
    assert worth_starting(data)
    monkeypatch.setenv("BUILD_CACHE_DIR", "")
    assert not worth_starting(data)  # no cache: nowhere to put what it renders
