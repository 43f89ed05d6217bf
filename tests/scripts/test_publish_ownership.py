"""Publishing touches only its own releases (issue 26): it deletes only folders its history.json names as
created by it, never lists a release it has started to delete, refuses a target that is, holds or lies inside
the site, cleans its own leftovers, and a rollback serves only a release that matches the manifest written
when it was published. In-process on temporary folders, with a small fake site that passes check_site."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import publish  # noqa: E402
from check_site import LANGUAGE_PREFIXES  # noqa: E402
from publish import PublishError, TargetError, current_release, rollback  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_site_address")  # fake sites, built for no address


def fake_site(folder: Path, marker: str) -> Path:
    """A site that passes check_site: a page for every English page in every language; its home page names
    ``marker``."""
    english = ROOT / "docs" / "en"
    for source in sorted(english.rglob("*.md")):
        relative = source.relative_to(english).with_suffix("")
        url = relative.parent if relative.name == "index" else relative
        for prefix in ("", *LANGUAGE_PREFIXES):
            page = folder / prefix / url / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"<html><body><p>{prefix or 'en'} {url}</p></body></html>\n")
    (folder / "index.html").write_text(f"<html><body><p>home {marker}</p></body></html>\n")
    return folder


@pytest.fixture
def publish_as(tmp_path: Path):
    """``publish_as(target, "R1")``: publish a fresh fake site as release R1."""

    def run(target: Path, name: str) -> Path:
        return publish.publish(fake_site(tmp_path / "sites" / name, name), target, name=name)

    return run


def serving(target: Path) -> str:
    return (target / "current" / "index.html").read_text().split("home ")[1].split("<")[0]


def history(target: Path) -> dict:
    return json.loads((target / "history.json").read_text())


def folders(target: Path) -> set[str]:
    return {p.name for p in (target / "releases").iterdir()}


def test_folders_another_tool_left_in_releases_are_never_deleted_nor_served(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    theirs = {f"backup-{n}" for n in range(10)}
    for name in theirs:
        (target / "releases" / name).mkdir(parents=True)
        (target / "releases" / name / "keep.txt").write_text(name)
    for n in range(1, 8):
        publish_as(target, f"R{n}")
    assert theirs <= folders(target)  # all ten, exit 0 or not
    assert all((target / "releases" / name / "keep.txt").read_text() == name for name in theirs)
    assert folders(target) - theirs == {"R3", "R4", "R5", "R6", "R7"}  # its own: pruned to five
    assert [rollback(target).name for _ in range(4)] == ["R6", "R5", "R4", "R3"]
    with pytest.raises(PublishError, match="no release before R3"):
        rollback(target)


def test_a_publish_killed_while_deleting_never_lists_the_half_deleted_release(
    tmp_path: Path, publish_as, monkeypatch: pytest.MonkeyPatch
):
    target = tmp_path / "host"
    for n in range(1, 6):
        publish_as(target, f"R{n}")
    real_rmtree = shutil.rmtree

    def killed_half_way(path: Path, *args: Any, **kwargs: Any) -> None:
        if Path(path).parent == target / "releases":
            (Path(path) / "index.html").unlink()  # half of the release is gone, then the process dies
            raise KeyboardInterrupt
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(publish.shutil, "rmtree", killed_half_way)
    with pytest.raises(KeyboardInterrupt):
        publish_as(target, "R6")  # R6 is current; pruning R1 is under way when the process is killed
    monkeypatch.setattr(publish.shutil, "rmtree", real_rmtree)
    assert serving(target) == "R6"
    recorded = history(target)
    assert "R1" not in recorded["published"] and "R1" not in recorded["created"]
    assert recorded["deleting"] == ["R1"]
    assert [rollback(target).name for _ in range(4)] == ["R5", "R4", "R3", "R2"]
    with pytest.raises(PublishError, match="no release before R2"):
        rollback(target)  # never the half-deleted R1
    publish_as(target, "R7")  # finishes the deletion it owns
    assert "R1" not in folders(target) and history(target)["deleting"] == []


@pytest.mark.parametrize("where", ["equal", "inside", "holding"])
def test_a_target_that_is_inside_or_holds_the_site_is_refused(tmp_path: Path, where: str):
    site = fake_site(tmp_path / "site", "R1")
    target = {"equal": site, "inside": site / "host", "holding": tmp_path}[where]
    with pytest.raises(TargetError, match=r"the same folder as the site .*, inside it or holding it; publish into"):
        publish.publish(site, target, name="R1")
    assert not (site / "host").exists() and not (site / "releases").exists() and not (tmp_path / "releases").exists()


def test_the_command_line_refuses_a_target_equal_to_the_site_in_one_line(tmp_path: Path):
    site = fake_site(tmp_path / "site", "R1")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "publish.py"), "--target", str(site), "--site", str(site)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"publish: {site}: the same folder as the site {site}, inside it or holding it; "
        "publish into a folder outside the built site"
    )


def test_a_publish_cleans_the_leftovers_of_its_own_killed_runs(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    publish_as(target, "R1")
    (target / ".history.json.k3j2.tmp").write_text("{")
    (target / ".current.new-4242-deadbeef").symlink_to("releases/R1")
    (target / ".publish-staging" / "R2").mkdir(parents=True)
    (target / "unrelated.txt").write_text("not publish's")
    publish_as(target, "R2")
    assert sorted(p.name for p in target.iterdir()) == [
        ".publish.lock",
        "current",
        "history.json",
        "releases",
        "unrelated.txt",
    ]


@pytest.mark.parametrize("damage", ["a file removed", "a file changed", "a file added"])
def test_rollback_serves_only_a_release_that_matches_its_manifest(tmp_path: Path, publish_as, damage: str):
    target = tmp_path / "host"
    publish_as(target, "R1")
    publish_as(target, "R2")
    page = target / "releases" / "R1" / "fr" / "index.html"
    if damage == "a file removed":
        page.unlink()
    elif damage == "a file changed":
        page.write_text("<html></html>")
    else:
        (target / "releases" / "R1" / "extra.html").write_text("<html></html>")
    with pytest.raises(PublishError, match="release R1 is not the release that was published"):
        rollback(target)
    assert serving(target) == "R2" and history(target)["rolled_back"] == []


def test_the_manifest_counts_every_file_and_hashes_paths_and_bytes(tmp_path: Path):
    site = fake_site(tmp_path / "site", "R1")
    written = publish.manifest(site)
    assert written["files"] == sum(1 for p in site.rglob("*") if p.is_file())
    (site / "index.html").rename(site / "home.html")  # same bytes, another path
    assert publish.manifest(site)["sha256"] != written["sha256"]


def test_a_release_without_a_manifest_is_not_rolled_back_to(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    publish_as(target, "R1")
    publish_as(target, "R2")
    recorded = history(target)
    del recorded["created"]["R1"]  # as a history written before manifests existed
    (target / "history.json").write_text(json.dumps(recorded))
    with pytest.raises(PublishError, match="release R1 has no manifest"):
        rollback(target)
    assert current_release(target).name == "R2"
    assert os.readlink(target / "current") == "releases/R2"


# --- issue 36: publishing trusts no name it reads ------------------------------------------------------------------

# a history.json that names something else than a release of publish's own, in one of its lists (each deleted
# what it names, by publish and by rollback alike)
HOSTILE_HISTORIES = {
    "the target itself": ("deleting", ".."),
    "every release": ("deleting", ""),
    "a folder outside the target": ("deleting", "../../victim"),
    "an absolute path": ("deleting", "/tmp/victim"),
    "a path inside releases/": ("deleting", "R1/fr"),
    "a name that is not text": ("deleting", 7),
    "a current release outside": ("published", "../../victim"),
    "a rolled-back path": ("rolled_back", "../x"),
    "a manifest for a path": ("created", "../../victim"),
    "a terminal escape": ("deleting", "\x1b]0;pwned\x07"),
}


@pytest.mark.parametrize("case", HOSTILE_HISTORIES)
@pytest.mark.parametrize("action", ["publish", "rollback"])
def test_a_history_naming_anything_but_its_own_releases_stops_publish_and_rollback(
    tmp_path: Path, publish_as, case: str, action: str
):
    target = tmp_path / "host"
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    publish_as(target, "R1")
    publish_as(target, "R2")
    (target / "releases" / "foreign").mkdir()
    key, name = HOSTILE_HISTORIES[case]
    recorded = history(target)
    if key == "created":
        recorded["created"][name] = recorded["created"]["R1"]
    else:
        recorded[key].append(name)
    (target / "history.json").write_text(json.dumps(recorded))
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if "sites" not in p.parts)
    with pytest.raises(PublishError) as caught:
        publish_as(target, "R3") if action == "publish" else rollback(target)
    message = str(caught.value)
    assert message.startswith(f"{target / 'history.json'}: '{key}' lists ")
    assert "which is not a release name publish makes" in message and "nothing was deleted nor served" in message
    assert "\x1b" not in message and "\n" not in message
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if "sites" not in p.parts) == before
    assert serving(target) == "R2"


def test_publish_gives_a_release_only_a_name_of_its_own(tmp_path: Path):
    site = fake_site(tmp_path / "site", "R1")
    for name in ("..", "", "a/b", ".hidden", "R1.partial", "x" * 101):
        with pytest.raises(PublishError, match="which is not a release name publish makes"):
            publish.publish(site, tmp_path / "host", name=name)
    assert not (tmp_path / "host" / "releases").exists()
    assert publish.RELEASE_NAME.fullmatch(publish._release_name())


def swap_for_a_symlink(page: Path, elsewhere: Path) -> None:
    """The page replaced by a symlink to a file of the same bytes elsewhere: same manifest through the link."""
    elsewhere.write_bytes(page.read_bytes())
    page.unlink()
    page.symlink_to(elsewhere)


def swap_for_a_hard_link(page: Path, elsewhere: Path) -> None:
    elsewhere.write_bytes(page.read_bytes())
    page.unlink()
    os.link(elsewhere, page)


def swap_folder_for_a_symlink(folder: Path, elsewhere: Path) -> None:
    shutil.copytree(folder, elsewhere)
    shutil.rmtree(folder)
    folder.symlink_to(elsewhere)


# how a release is tampered with, and what the refusal says it found
TAMPERED_RELEASES = {
    "a page swapped for a symlink to its bytes": (swap_for_a_symlink, "a symlink (to "),
    "a page swapped for a hard link to its bytes": (swap_for_a_hard_link, "a hard link (one of 2 names of one file)"),
    "a named pipe added": (lambda page, elsewhere: os.mkfifo(page.with_name("pipe.html")), "a named pipe"),
    "a folder swapped for a symlink": (
        lambda page, elsewhere: swap_folder_for_a_symlink(page.parent, elsewhere),
        "a symlink (to ",
    ),
}


@pytest.mark.parametrize("case", TAMPERED_RELEASES)
def test_rollback_never_serves_a_release_holding_anything_but_its_own_regular_files(
    tmp_path: Path, publish_as, case: str
):
    target = tmp_path / "host"
    publish_as(target, "R1")
    publish_as(target, "R2")
    tamper, found = TAMPERED_RELEASES[case]
    tamper(target / "releases" / "R1" / "fr" / "index.html", tmp_path / "elsewhere")
    with pytest.raises(PublishError) as caught:
        rollback(target)
    message = str(caught.value)
    assert message.startswith(f"{target}: release R1 cannot be served: {target / 'releases' / 'R1' / 'fr'}")
    assert found in message and message.endswith("; nothing was changed")
    assert serving(target) == "R2" and history(target)["rolled_back"] == []


def test_a_release_folder_that_is_a_symlink_is_never_served(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    publish_as(target, "R1")
    publish_as(target, "R2")
    shutil.move(target / "releases" / "R1", tmp_path / "R1-elsewhere")
    (target / "releases" / "R1").symlink_to(tmp_path / "R1-elsewhere")
    with pytest.raises(PublishError, match="no release before R2"):  # not a folder of releases/: not a release
        rollback(target)
    assert serving(target) == "R2"


def test_a_releases_folder_that_is_a_symlink_is_refused(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    (tmp_path / "elsewhere").mkdir()
    target.mkdir()
    (target / "releases").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(TargetError, match=r"releases is a symlink \(to .*elsewhere\), not the folder of releases"):
        publish_as(target, "R1")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_copy_failing_on_every_file_is_one_short_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    site = fake_site(tmp_path / "site", "R1")
    target = tmp_path / "host"

    def disk_full(source: str, destination: str, **kwargs: Any) -> str:
        raise OSError(28, "No space left on device", destination)

    monkeypatch.setattr(publish.shutil, "copyfile", disk_full)  # what copytree's copy2 calls for each file
    monkeypatch.setattr(sys, "argv", ["publish.py", "--target", str(target), "--site", str(site)])
    assert publish.main() == 1
    err = capsys.readouterr().err
    files = sum(1 for p in site.rglob("*") if p.is_file())
    assert err.count("\n") == 1 and len(err) < 600, err
    assert err.startswith(f"publish: {target}: the copy of {site} failed: [Errno 28] No space left on device: ")
    assert f", and {files - 1:,} more files; nothing was published: free space or fix the permissions" in err
    assert not (target / "releases").exists() or list((target / "releases").iterdir()) == []


def test_a_history_that_is_a_named_pipe_is_refused_without_waiting(tmp_path: Path, publish_as):
    target = tmp_path / "host"
    publish_as(target, "R1")
    (target / "history.json").unlink()
    os.mkfifo(target / "history.json")  # nobody writes to it: reading it would wait forever
    with pytest.raises(PublishError, match=r"history.json: unreadable \(a named pipe, not a regular file"):
        publish_as(target, "R2")
    assert serving(target) == "R1"
