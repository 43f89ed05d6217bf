"""Shared fixtures: the real catalog, and a writable copy of data/ to break on purpose."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sizing.catalog import DATA_DIR, Catalog, load_catalog

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
    from sitebuild import ROOT as project, build
    target = tmp_path_factory.mktemp("built") / "site"
    result = build(project, target)
    assert result.returncode == 0, result.stderr
    return target
