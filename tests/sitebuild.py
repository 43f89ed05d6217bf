"""Helpers for build tests: copy the project, edit the copy, build it for real, read the HTML."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PARTS = ["mkdocs.yml", "docs", "data", "hooks", "macros", "sizing", "overrides", "scripts"]
LANGUAGES = {"en": "", "fr": "fr/", "zh": "zh/"}
# The address test builds are made for: $SITE_URL (CI: the GitHub Pages URL, whose built site the tests then read
# through $BUILT_SITE), else a domain of their own. BASE_PATH is its path: the test servers serve the site there.
SITE_URL = os.environ.get("SITE_URL") or "https://guides.example.com/"
BASE_PATH = urlsplit(SITE_URL).path.rstrip("/") + "/"


def copy_project(target: Path) -> Path:
    """A copy of everything the build reads, to break on purpose."""
    target.mkdir(parents=True, exist_ok=True)
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, target / part)
    return target


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file, insisting that ``old`` is there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def build(
    project: Path, site: Path, url: str = SITE_URL, environ: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Build ``project`` into ``site`` the way `make build` does (atomic, strict), for the address ``url``, with
    MkDocs in ``environ`` (default: this process's environment)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from build_site import build as atomic_build

    given = os.environ if environ is None else environ
    return atomic_build(project / "mkdocs.yml", site, environ={**given, "SITE_URL": url})


@dataclass(frozen=True)
class BuiltSite:
    path: Path
    result: subprocess.CompletedProcess[str]  # what the build printed


def page(site: Path, lang: str, path: str) -> str:
    return (site / LANGUAGES[lang] / path / "index.html").read_text(encoding="utf-8")


def visible_text(html: str) -> str:
    """The article's text with tags removed and entities decoded."""
    article = re.search(r"<article[^>]*>(.*?)</article>", html, re.S)
    body = article.group(1) if article else html
    return unescape(re.sub(r"<[^>]+>", " ", body))


def outside_code(html: str) -> str:
    return re.sub(r"<(pre|code)[^>]*>.*?</\1>", " ", html, flags=re.S)
