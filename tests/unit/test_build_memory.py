"""A build keeps the data's results and the pages it has read until it ends: the build that computes a state of
data/ freezes them out of the garbage collector's sight page by page and gives them back when it ends, or when the
next build starts if it failed; a rebuild of the same data freezes nothing. Builds that froze nothing give nothing
back: ``gc.freeze`` is the whole process's, and a test session freezes its own fixtures."""

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from sitebuild import ROOT

from macros.build import SiteBuild


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """Nothing frozen as the test starts; the session's fixtures frozen again after it (tests/conftest.py)."""
    gc.unfreeze()
    yield
    gc.freeze()


def test_the_build_that_computes_the_data_freezes_what_it_keeps_and_gives_it_back_at_its_end(
    data_copy: Path, nothing_frozen: None
):
    build = SiteBuild.start(ROOT / "docs", data_copy)
    assert build.computes_the_data
    build.kept_to_the_end()
    assert gc.get_freeze_count() > 0
    build.release()
    assert gc.get_freeze_count() == 0


def test_a_rebuild_of_the_same_data_freezes_nothing(data_copy: Path, nothing_frozen: None):
    SiteBuild.start(ROOT / "docs", data_copy).data.remembered("a result", lambda: [1])
    rebuild = SiteBuild.start(ROOT / "docs", data_copy)
    assert not rebuild.computes_the_data
    rebuild.kept_to_the_end()
    assert gc.get_freeze_count() == 0


def test_what_a_failed_build_froze_is_given_back_when_the_next_starts(data_copy: Path, nothing_frozen: None):
    SiteBuild.start(ROOT / "docs", data_copy).kept_to_the_end()  # and never reaches its release
    SiteBuild.start(ROOT / "docs", data_copy)
    assert gc.get_freeze_count() == 0


def test_builds_that_froze_nothing_give_nothing_back(data_copy: Path, nothing_frozen: None):
    gc.freeze()  # a test session's fixtures
    frozen = gc.get_freeze_count()
    SiteBuild.start(ROOT / "docs", data_copy).release()
    assert gc.get_freeze_count() == frozen
