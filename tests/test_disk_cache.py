"""The build cache: a data file is parsed once per content, an edit is parsed afresh, and the cache can be off."""
from pathlib import Path

import pytest
import yaml

from sizing import disk_cache
from sizing.yaml_lines import line_of, load_yaml


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("BUILD_CACHE_DIR", str(folder))
    return folder


def test_a_parsed_file_is_read_back_with_its_lines_without_parsing_again(cache, tmp_path, monkeypatch):
    data = tmp_path / "nodes.yml"
    data.write_text("nodes:\n  - id: a\n    cards: 4\n", encoding="utf-8")
    first = load_yaml(data)
    assert len(list((cache / "yaml").iterdir())) == 1

    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed again")
    monkeypatch.setattr(yaml, "load", no_parsing)
    again = load_yaml(data)
    assert again == first and line_of(again["nodes"][0], "cards") == 3


def test_an_edited_file_is_parsed_afresh_and_its_errors_still_stop(cache, tmp_path):
    data = tmp_path / "nodes.yml"
    data.write_text("nodes:\n  - id: a\n", encoding="utf-8")
    load_yaml(data)
    data.write_text("nodes:\n  - id: a\n    id: b\n", encoding="utf-8")
    with pytest.raises(yaml.YAMLError, match="duplicate key 'id'"):
        load_yaml(data)


def test_an_empty_cache_setting_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("BUILD_CACHE_DIR", "")
    disk_cache.write("yaml", "k", b"x")
    assert disk_cache.read("yaml", "k") is None
    assert not (Path(disk_cache.PROJECT_ROOT) / ".cache" / "yaml" / "k").exists()


def test_keys_do_not_run_parts_together():
    assert disk_cache.content_key(b"ab", b"c") != disk_cache.content_key(b"a", b"bc")


def test_entries_no_build_used_for_a_month_are_pruned_at_most_once_a_day(cache):
    import os
    import time
    now = time.time()
    disk_cache.write("pages", "old", b"x")
    disk_cache.write("pages", "recent", b"x")
    disk_cache.write("pages", "read-lately", b"x")
    for name, days in (("old", 31), ("recent", 29), ("read-lately", 40)):
        os.utime(cache / "pages" / name, (now - days * 86400, now - days * 86400))
    assert disk_cache.read("pages", "read-lately") == b"x"  # reading marks it used
    assert disk_cache.prune(now) == 1
    assert sorted(p.name for p in (cache / "pages").iterdir()) == ["read-lately", "recent"]
    os.utime(cache / "pages" / "recent", (now - 45 * 86400, now - 45 * 86400))
    assert disk_cache.prune(now + 3600) == 0          # looked an hour ago: not again yet
    assert disk_cache.prune(now + 25 * 3600) == 1     # a day later it looks again


def test_the_garbage_collector_runs_again_after_a_parse_even_a_failed_one(cache, tmp_path):
    import gc
    data = tmp_path / "nodes.yml"
    data.write_text("nodes:\n  - id: a\n    id: b\n", encoding="utf-8")
    with pytest.raises(yaml.YAMLError):
        load_yaml(data)
    assert gc.isenabled()
    data.write_text("nodes: []\n", encoding="utf-8")
    load_yaml(data)
    load_yaml(data)  # from the cache
    assert gc.isenabled()
