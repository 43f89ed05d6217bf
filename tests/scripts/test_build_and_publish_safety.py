"""Safety of scripts/build_site.py and scripts/publish.py: a build never writes over the project's sources,
builds and publishes into one place are serialised, rollback never returns to a rolled-back release, the
release limit always holds, and a bad target gets one clear line instead of a traceback.

The build tests build a tiny MkDocs project made here (not the real site); the publish tests publish a
small fake site that passes the real check_site (one page per English page, in every language)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))

# scripts/ is not a package: its modules are imported once it is on the path
import build_site  # noqa: E402
import publish  # noqa: E402
from build_site import BuildError, BuildRefused, file_lock  # noqa: E402
from check_site import LANGUAGE_PREFIXES, check_site  # noqa: E402
from publish import KEEP_RELEASES, PublishError, current_release, rollback  # noqa: E402

BUILD = SCRIPTS / "build_site.py"
PUBLISH = SCRIPTS / "publish.py"
SOURCE_FOLDERS = ["data", "macros", "sizing", "hooks", "scripts", "tests", "overrides", ".git"]
# the scripts run for no address (conftest.no_site_address), whatever the environment the tests run in
ENV = {
    **{k: v for k, v in os.environ.items() if k != "SITE_URL"},
    "NO_MKDOCS_2_WARNING": "1",
    "SOURCE_DATE_EPOCH": "1577836800",
}


pytestmark = pytest.mark.usefixtures("no_site_address")  # fake sites, built for no address


# --- helpers -------------------------------------------------------------------------------------------


def snapshot(root: Path, exclude: Path | None = None) -> dict[str, object]:
    """Every file, folder and symlink under ``root`` (symlinks not followed) with its content and mode."""
    found: dict[str, object] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if d != "__pycache__" and (exclude is None or here / d != exclude)]
        for name in dirs + files:
            path = here / name
            if exclude is not None and path == exclude:
                continue
            key = path.relative_to(root).as_posix()
            info = path.lstat()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir", info.st_mode, info.st_ino)
            else:
                found[key] = ("file", info.st_mode, info.st_ino, path.read_bytes())
    return found


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def tiny_project(root: Path) -> Path:
    """A three-page MkDocs project with the project's source folders beside its docs/; its mkdocs.yml."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: Tiny\ndocs_dir: docs\ntheme:\n  name: mkdocs\n")
    (docs / "index.md").write_text("# Tiny\n\nSee [the first page](first.md).\n")
    (docs / "first.md").write_text("# First\n\nBack [home](index.md).\n")
    (docs / "second.md").write_text("# Second\n\nSome text.\n")
    for name in SOURCE_FOLDERS:
        (root / name).mkdir()
        (root / name / "keep.txt").write_text(f"a source file in {name}\n")
    return root / "mkdocs.yml"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return tiny_project(tmp_path / "project")


@pytest.fixture
def built(config: Path, tmp_path: Path) -> Path:
    """A site built once from the tiny project: the previous site a later build must not damage."""
    site = tmp_path / "out" / "site"
    result = build_site.build(config, site)
    assert result.returncode == 0, result.stderr
    return site


def run_build(config: Path, target: str | Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BUILD), "-f", str(config), "-d", str(target), *extra],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
        timeout=120,
        check=False,
    )


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def make_site(folder: Path, marker: str = "") -> Path:
    """A fake built site that passes check_site: a page for every English page, in every language."""
    english = ROOT / "docs" / "en"
    for source in sorted(english.rglob("*.md")):
        relative = source.relative_to(english).with_suffix("")
        url = relative.parent if relative.name == "index" else relative
        for prefix in ("", *LANGUAGE_PREFIXES):
            page = folder / prefix / url / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"<html><body><p>{prefix or 'en'} {url} {marker}</p></body></html>\n")
    (folder / "index.html").write_text(f"<html><body><p>home {marker}</p></body></html>\n")
    return folder


@pytest.fixture
def sites(tmp_path: Path):
    """``sites("R1")``: a fresh fake site whose home page names R1."""

    def make(marker: str) -> Path:
        return make_site(tmp_path / "sites" / marker, marker)

    return make


def publish_as(sites, target: Path, name: str) -> Path:
    return publish.publish(sites(name), target, name=name)


def serving(target: Path) -> str:
    """The name of the release whose home page is served."""
    return (target / "current" / "index.html").read_text().split("home ")[1].split("<")[0]


def release_names(target: Path) -> set[str]:
    return {p.name for p in (target / "releases").iterdir()}


def history(target: Path) -> dict[str, Any]:
    return json.loads((target / "history.json").read_text())


def leftovers(target: Path) -> list[str]:
    """Temporary things a publish may make in its target (staging symlinks, histories, partial copies)."""
    expected = {"releases", "current", "history.json", ".publish.lock"}
    return sorted(
        [p.name for p in target.iterdir() if p.name not in expected]
        + [p.name for p in (target / "releases").glob("*.partial")]
    )


# --- builds: where a build refuses to write ------------------------------------------------------------


def test_the_fake_site_used_by_the_publish_tests_passes_the_real_checks(tmp_path: Path):
    assert check_site(make_site(tmp_path / "site")) == []


def test_a_build_refuses_to_write_into_the_docs_folder(config: Path, tmp_path: Path):
    before = snapshot(tmp_path)
    result = run_build(config, "docs", cwd=config.parent)
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert str(config.parent / "docs") in line and "docs folder" in line and "refusing" in line
    assert snapshot(tmp_path) == before


def test_a_build_refuses_to_replace_the_project_root(config: Path, tmp_path: Path):
    before = snapshot(tmp_path)
    result = run_build(config, ".", cwd=config.parent)
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert str(config.parent) in line and "root folder" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("folder", SOURCE_FOLDERS)
def test_a_build_refuses_every_source_folder_of_the_project(config: Path, tmp_path: Path, folder: str):
    before = snapshot(tmp_path)
    with pytest.raises(BuildRefused, match=f"{folder}/ folder") as refused:
        build_site.build(config, config.parent / folder)
    assert str(config.parent / folder) in str(refused.value)
    assert snapshot(tmp_path) == before


def test_a_build_refuses_a_folder_that_holds_the_project(config: Path, tmp_path: Path):
    before = snapshot(tmp_path)
    result = run_build(config, "..", cwd=config.parent)
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert str(tmp_path) in line and "holds the project's" in line
    assert snapshot(tmp_path) == before
    # the root of the file system is refused by the same rule (asked of the rule only, never run for real)
    assert "holds the project's" in (build_site.refusal(config, Path("/")) or "")


@pytest.mark.parametrize("inside", ["docs/site", "docs/deeper/still", "data/site", ".git/site"])
def test_a_build_refuses_a_folder_inside_the_sources(config: Path, tmp_path: Path, inside: str):
    before = snapshot(tmp_path)
    result = run_build(config, inside, cwd=config.parent)
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert str(config.parent / inside) in line and "inside the project's" in line
    assert snapshot(tmp_path) == before  # not even the missing parent folders were made


def test_a_build_resolves_symlinks_before_deciding(config: Path, tmp_path: Path):
    (tmp_path / "innocent").symlink_to(config.parent / "docs")
    (tmp_path / "alias").symlink_to(config.parent)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    before = snapshot(tmp_path)
    for target, why in [
        (tmp_path / "innocent", "docs folder"),
        (tmp_path / "alias" / "data", "data/ folder"),
        (tmp_path / "alias" / "docs" / "site", "inside the project's docs folder"),
        (tmp_path / "loop", "cannot be resolved"),
    ]:
        result = run_build(config, target, cwd=tmp_path)
        assert result.returncode == 2, (target, result.stderr)
        line = one_line(result.stderr)
        assert str(target) in line and why in line, line
    assert snapshot(tmp_path) == before


def test_a_build_refuses_the_real_checkout_and_its_sources_whatever_the_config():
    """Asked of the rule only: a build is never run against the real checkout here."""
    tiny = Path("/nonexistent-project/mkdocs.yml")
    for target in [
        ROOT,
        ROOT / "docs",
        ROOT / "docs" / "en",
        ROOT / "data",
        ROOT / ".git",
        ROOT / "macros",
        ROOT.parent,
        Path("/"),
    ]:
        assert build_site.refusal(tiny, target), target
    assert build_site.refusal(ROOT / "mkdocs.yml", ROOT / "site") is None


def test_a_build_refuses_a_file_or_a_folder_that_holds_no_site(config: Path, tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not a site")
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "letter.txt").write_text("keep me")
    before = snapshot(tmp_path)
    with pytest.raises(BuildRefused, match="is a file, not a folder"):
        build_site.build(config, tmp_path / "notes.txt")
    with pytest.raises(BuildRefused, match="holds no built site"):
        build_site.build(config, tmp_path / "documents")
    assert snapshot(tmp_path) == before


# --- builds: what a build does -------------------------------------------------------------------------


def test_a_build_into_an_ordinary_folder_replaces_the_site_and_touches_nothing_else(
    config: Path, built: Path, tmp_path: Path
):
    (config.parent / "docs" / "third.md").write_text("# Third\n")
    outside = snapshot(tmp_path, exclude=built)
    result = build_site.build(config, built)
    assert result.returncode == 0, result.stderr
    assert (built / "third" / "index.html").exists()
    umask = os.umask(0o022)
    os.umask(umask)
    assert built.stat().st_mode & 0o777 == 0o777 & ~umask  # readable by a web server, not private
    assert snapshot(tmp_path, exclude=built) == outside  # no lock file, staging or old copy left beside it


def test_a_failed_build_leaves_the_previous_site_exactly_as_it_was(config: Path, built: Path, tmp_path: Path):
    (config.parent / "docs" / "broken.md").write_text("# Broken\n\nA link to [nowhere](missing.md).\n")
    before = snapshot(tmp_path)
    result = run_build(config, built, cwd=tmp_path)
    assert result.returncode != 0
    assert f"{built} was left as it was" in result.stderr
    assert snapshot(tmp_path) == before  # the same files, contents and inodes: nothing moved or rewritten


def test_concurrent_builds_into_one_folder_are_serialised_and_leave_a_complete_site(config: Path, tmp_path: Path):
    reference = tmp_path / "reference"
    assert run_build(config, reference, cwd=tmp_path).returncode == 0
    site = tmp_path / "out" / "site"
    site.parent.mkdir()
    runs = [
        subprocess.Popen(
            [sys.executable, str(BUILD), "-f", str(config), "-d", str(site), "--lock-timeout", "120"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=ENV,
        )
        for _ in range(5)
    ]
    outputs = [run.communicate(timeout=180) for run in runs]
    assert [run.returncode for run in runs] == [0] * 5, outputs
    assert tree(site) == tree(reference)
    assert any("waiting for another build into" in err for _, err in outputs)  # the lock made them queue
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]  # no lock, staging or old copy left


def test_a_build_waits_for_the_lock_and_fails_clearly_after_its_timeout(config: Path, built: Path, tmp_path: Path):
    (config.parent / "docs" / "third.md").write_text("# Third\n")
    before = tree(built)
    with file_lock(built.with_name("site.lock"), 5, "the test", remove=True):
        with pytest.raises(BuildError, match=r"still running after 0\.3 s") as failed:
            build_site.build(config, built, lock_timeout=0.3)
        assert str(built) in str(failed.value)
        result = run_build(config, built, tmp_path, "--lock-timeout", "0.3")
        assert result.returncode == 1
        assert str(built) in result.stderr.strip().splitlines()[-1]
        assert "Traceback" not in result.stderr
    assert tree(built) == before
    assert sorted(p.name for p in built.parent.iterdir()) == ["site"]


def test_every_build_stages_into_its_own_folder_even_when_the_lock_is_bypassed(
    config: Path, built: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """Two builds running at once, lock removed: each has its own hidden staging folder beside the site,
    and both failing leaves the previous site as it was and no staging folder behind."""
    import contextlib

    staged: list[Path] = []
    together = threading.Barrier(2, timeout=20)

    def fake_mkdocs(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        staging = Path(command[command.index("-d") + 1])
        staged.append(staging)
        assert staging.is_dir()
        (staging / "index.html").write_text("half a site")
        together.wait()  # both builds are staging now
        return subprocess.CompletedProcess(command, 1, "", "failed on purpose")

    monkeypatch.setattr(build_site, "file_lock", lambda *args, **kwargs: contextlib.nullcontext())
    monkeypatch.setattr(build_site.subprocess, "run", fake_mkdocs)
    before = snapshot(tmp_path)
    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(build_site.build(config, built).returncode)) for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == [1, 1]
    assert len(set(staged)) == 2
    for staging in staged:
        assert staging.parent == built.parent and staging.name.startswith(f".site.new-{os.getpid()}-")
        assert not staging.exists()
    assert snapshot(tmp_path) == before


# --- publishing ----------------------------------------------------------------------------------------


def test_publish_switches_current_atomically_and_rollback_restores(sites, tmp_path: Path):
    target = tmp_path / "host"
    first = publish_as(sites, target, "R1")
    assert current_release(target) == first and serving(target) == "R1"
    second = publish_as(sites, target, "R2")
    assert os.readlink(target / "current") == "releases/R2"  # one relative symlink, swapped by a rename
    assert current_release(target) == second and serving(target) == "R2"
    assert rollback(target) == first and serving(target) == "R1"
    with pytest.raises(PublishError, match="no release before R1"):
        rollback(target)
    assert serving(target) == "R1"
    assert leftovers(target) == []  # no staging symlink, no temporary history


def test_a_rolled_back_release_is_never_returned_to_by_a_later_rollback(sites, tmp_path: Path):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    publish_as(sites, target, "R2")
    assert rollback(target).name == "R1"
    publish_as(sites, target, "R3")
    assert rollback(target).name == "R1"  # not R2, the release that was rolled back
    assert history(target)["published"] == ["R1", "R2", "R3"] and history(target)["rolled_back"] == ["R2", "R3"]
    with pytest.raises(PublishError, match="no release before R1"):
        rollback(target)


def test_successive_rollbacks_walk_back_one_published_release_at_a_time(sites, tmp_path: Path):
    target = tmp_path / "host"
    for name in ("R1", "R2", "R3"):
        publish_as(sites, target, name)
    assert [rollback(target).name for _ in range(2)] == ["R2", "R1"]
    with pytest.raises(PublishError, match="no release before R1"):
        rollback(target)


def test_rollback_prints_what_it_did(sites, tmp_path: Path):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    publish_as(sites, target, "R2")
    result = subprocess.run(
        [sys.executable, str(PUBLISH), "--target", str(target), "--rollback"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"rollback: {target}/current -> releases/R1 (was releases/R2, now marked "
        "rolled back: no later rollback returns to it)"
    )


def test_pruning_never_deletes_the_current_release_nor_the_rollback_target(sites, tmp_path: Path):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    for n in range(2, 9):  # seven releases published then rolled back: R1 is current again each time
        publish_as(sites, target, f"R{n}")
        assert len(release_names(target)) <= KEEP_RELEASES and "R1" in release_names(target)
        assert rollback(target).name == "R1"
    publish_as(sites, target, "R9")  # R1, the oldest, is the rollback target now: it stays
    assert len(release_names(target)) == KEEP_RELEASES and {"R1", "R9"} <= release_names(target)
    assert rollback(target).name == "R1"


def test_the_release_limit_holds_after_any_sequence_of_publishes_and_rollbacks(sites, tmp_path: Path):
    """Random publishes and rollbacks, checked against the rules: at most five releases; a rollback goes to
    the most recent published release before the current one that was not rolled back; the release a
    publish replaces, and the next rollback target after a rollback, are never pruned."""
    target = tmp_path / "host"
    rng = random.Random(20240607)
    published: list[str] = []  # the model: releases made current by publish, in order
    rolled_back: set[str] = set()
    current: str | None = None
    site = make_site(tmp_path / "one-site")

    def expected_target(of: str | None) -> str | None:
        existing = release_names(target)
        before = published[: published.index(of)] if of in published else []
        return next((n for n in reversed(before) if n not in rolled_back and n in existing), None)

    for step in range(45):
        if current is None or rng.random() < 0.55:
            name = f"P{step:02d}"
            publish.publish(site, target, name=name)
            assert current is None or current in release_names(target)  # the release it replaced is kept
            published.append(name)
            current = name
        else:
            goal = expected_target(current)
            after_goal = expected_target(goal) if goal else None
            if goal is None:
                with pytest.raises(PublishError, match="no release before"):
                    rollback(target)
                continue
            assert rollback(target).name == goal
            assert goal not in rolled_back
            rolled_back.add(current)
            current = goal
            assert after_goal is None or after_goal in release_names(target)
        assert len(release_names(target)) <= KEEP_RELEASES
        assert current_release(target).name == current and (target / "current" / "index.html").exists()
        assert history(target)["published"][-1] == published[-1] or published[-1] not in release_names(target)


def test_concurrent_publishes_are_serialised_keep_five_releases_and_end_on_the_last_published(tmp_path: Path):
    site, target = make_site(tmp_path / "site"), tmp_path / "host"
    runs = [
        subprocess.Popen(
            [sys.executable, str(PUBLISH), "--target", str(target), "--site", str(site), "--lock-timeout", "120"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=ENV,
        )
        for _ in range(10)
    ]
    outputs = [run.communicate(timeout=180) for run in runs]
    assert [run.returncode for run in runs] == [0] * 10, outputs
    assert all(
        line.startswith("waiting for another publish or rollback into")
        for _, err in outputs
        for line in err.splitlines()
    ), outputs
    names = [out.strip().rsplit("releases/", 1)[1] for out, _ in outputs]
    assert len(set(names)) == 10  # ten releases made, each current in its turn
    kept = sorted(names)[-KEEP_RELEASES:]  # names are timestamps taken under the lock: publish order
    assert sorted(release_names(target)) == kept
    assert current_release(target).name == kept[-1] == history(target)["published"][-1]
    assert history(target)["published"] == kept
    assert leftovers(target) == []
    assert rollback(target).name == kept[-2]


def test_a_publish_or_rollback_waits_for_the_lock_and_fails_clearly_after_its_timeout(sites, tmp_path: Path):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    publish_as(sites, target, "R2")
    before = snapshot(target)
    with file_lock(target / ".publish.lock", 5, "the test"):
        with pytest.raises(PublishError, match=r"still running after 0\.2 s") as failed:
            publish.publish(sites("R3"), target, name="R3", lock_timeout=0.2)
        assert str(target) in str(failed.value)
        with pytest.raises(PublishError, match="nothing was changed"):
            publish.rollback(target, lock_timeout=0.2)
    assert snapshot(target) == before and serving(target) == "R2"


@pytest.mark.parametrize("rolling_back", [False, True], ids=["publish", "rollback"])
@pytest.mark.parametrize("kind", ["a file", "under a file", "a symlink loop", "no permission"])
def test_a_bad_target_gets_one_clear_line_and_exit_code_2(tmp_path: Path, kind: str, rolling_back: bool):
    site = make_site(tmp_path / "site")
    command = [sys.executable, str(PUBLISH)]
    if kind == "a file":
        target, expected = tmp_path / "host", "a file, not a folder"
        target.write_text("not a folder")
    elif kind == "under a file":
        (tmp_path / "host").write_text("not a folder")
        target, expected = tmp_path / "host" / "site", f"{tmp_path / 'host'} is a file"
    elif kind == "a symlink loop":
        target, expected = tmp_path / "host", "symlink loop"
        target.symlink_to(target)
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target, expected = locked / "host", "permission denied"
        if os.geteuid() == 0:  # root ignores permissions: run as nobody (who may not even enter tmp_path)
            if not shutil.which("setpriv"):
                pytest.skip("running as root without setpriv to drop privileges")
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    before = snapshot(tmp_path)
    arguments = ["--target", str(target), "--rollback" if rolling_back else f"--site={site}"]
    result = subprocess.run(
        command + arguments, capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=60, check=False
    )
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert line.startswith(f"publish: {target}: ") and expected in line and "; " in line, line
    assert snapshot(tmp_path) == before


def test_rolling_back_a_target_where_nothing_was_published_is_a_clear_error(tmp_path: Path):
    target = tmp_path / "never-published"
    result = subprocess.run(
        [sys.executable, str(PUBLISH), "--target", str(target), "--rollback"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert one_line(result.stderr).startswith(f"publish: {target}: no such folder; ")
    assert not target.exists()


def test_a_site_failing_its_checks_is_not_published(sites, tmp_path: Path):
    target = tmp_path / "host"
    live = publish_as(sites, target, "R1")
    bad = sites("R2")
    shutil.rmtree(next(p for p in (bad / "fr").iterdir() if p.is_dir()))
    before = snapshot(target)
    with pytest.raises(PublishError, match="fails its checks, nothing was published"):
        publish.publish(bad, target, name="R2")
    assert current_release(target) == live and snapshot(target) == before
    result = subprocess.run(
        [sys.executable, str(PUBLISH), "--target", str(target), "--site", str(bad)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1 and "fails its checks" in result.stderr
    assert snapshot(target) == before


def test_a_half_copied_release_is_never_served_nor_returned_to(sites, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "host"
    (target / "releases" / "R0.partial").mkdir(parents=True)  # left by an older publish: not this one's to delete
    live = publish_as(sites, target, "R1")
    assert current_release(target) == live and release_names(target) == {"R0.partial", "R1"}
    with pytest.raises(PublishError, match="no release before R1"):
        rollback(target)

    def copy_half(source: Path, destination: Path) -> None:
        destination.mkdir()
        shutil.copy2(source / "index.html", destination / "index.html")
        raise OSError(28, "No space left on device")

    before = snapshot(target)
    monkeypatch.setattr(publish.shutil, "copytree", copy_half)
    with pytest.raises(OSError, match="No space left"):
        publish_as(sites, target, "R2")
    assert current_release(target) == live and snapshot(target) == before


def test_a_publish_that_fails_while_writing_its_history_changes_nothing(
    sites, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    publish_as(sites, target, "R2")
    recorded = (target / "history.json").read_bytes()

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    before = snapshot(target)
    real_dump = publish.json.dump
    monkeypatch.setattr(publish.json, "dump", crash)
    with pytest.raises(OSError):
        publish_as(sites, target, "R3")
    assert (target / "history.json").read_bytes() == recorded and serving(target) == "R2"
    assert snapshot(target) == before  # no temporary history, no release R3 that was never current
    monkeypatch.setattr(publish.json, "dump", real_dump)
    assert rollback(target).name == "R1"  # the history was never torn


def test_releases_a_history_does_not_name_are_neither_deleted_nor_rolled_back_to(sites, tmp_path: Path):
    target = tmp_path / "host"
    for name in ("0001", "0002", "0003"):
        publish_as(sites, target, name)
    (target / "history.json").unlink()  # releases no history of publish's own names
    with pytest.raises(PublishError, match="no release before 0003"):
        rollback(target)
    for name in ("0004", "0005", "0006", "0007", "0008"):
        publish_as(sites, target, name)
    assert {"0001", "0002", "0003"} <= release_names(target)  # never deleted: not publish's own
    assert rollback(target).name == "0007"


def test_a_release_a_killed_publish_never_made_current_is_never_a_rollback_target(sites, tmp_path: Path):
    target = tmp_path / "host"
    publish_as(sites, target, "R1")
    publish_as(sites, target, "R2")
    shutil.copytree(sites("R9"), target / "releases" / "R9")  # copied and recorded, then killed before its switch
    recorded = history(target)
    recorded["published"].append("R9")
    recorded["created"]["R9"] = publish.manifest(target / "releases" / "R9")
    (target / "history.json").write_text(json.dumps(recorded))
    publish_as(sites, target, "R3")
    assert release_names(target) == {"R1", "R2", "R3"}  # pruned as a copy no one served
    assert [rollback(target).name for _ in range(2)] == ["R2", "R1"]
