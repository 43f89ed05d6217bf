"""Publish the verified site to a static host directory, atomically, keeping releases for rollback.

    <target>/releases/<release>/   one full copy of the site per publish
    <target>/current -> releases/<release>     what the web server serves
    <target>/history.json          the releases publish created (each with its manifest: file count and hash),
                                   those it made current, in order, those rolled back, those being deleted
    <target>/.publish.lock         held (flock) by the publish or rollback at work on this target
    <target>/.publish-staging/     where a release is copied before it is moved into releases/

A publish checks the site (a site that fails the checks is not published), copies it into a new release
folder, then swaps the `current` symlink in one rename: readers see the old site or the new one, never a
mix. A half-copied release (left in .publish-staging/) is never served nor returned to, and is removed by the
next publish.

Publish touches only its own releases: it deletes only folders its history.json names as created by it (a
folder another tool left in releases/ stays, and is never served), writes the history without a release
before it starts deleting it (a publish killed while deleting never lists a half-deleted release), and
removes its own leftovers (.history.json.*.tmp, .current.new-*, .publish-staging/). Every name the history
holds must be a release name as publish makes them (``RELEASE_NAME``: a plain folder name, never '..', '' or a
path): a history holding any other stops publish and rollback before anything is deleted or served. A release
holds regular files, each with one name (no symlink, hard link, pipe or device): the manifest hashes them,
and a rollback serves only a release whose files match the manifest written when it was published. --target
may be neither the site folder, nor inside it, nor hold it.

Publishes and rollbacks into one target are serialised by the lock: the one that switches last is current,
and each waits at most --lock-timeout seconds (10 minutes) for the others, then fails without changing
anything.

Rollback goes to the most recent release published before the current one that was not rolled back
itself, and marks the release it leaves as rolled back: a rolled-back release is never returned to by a
later rollback. Publish R1, R2, roll back (to R1), publish R3, roll back: current is R1 again, not R2.
history.json records this: the releases made current by publish, in order, and the ones rolled back. It
is written to a temporary file, then renamed over the old one, always before `current` is switched. A
target without history.json has no release of publish's own: nothing in it is deleted nor rolled back to.

At most KEEP_RELEASES (5) releases are kept: the current one, then the ones successive rollbacks would go
to, then the most recently published; the others are deleted. The current release and the one a rollback
would go to are never deleted.

    python scripts/publish.py --target /srv/guides [--site site]
    python scripts/publish.py --target /srv/guides --rollback

Exit codes: 0 done, 1 nothing published (the site fails its checks, no release to roll back to, another
publish held the lock too long, a history or release that cannot be trusted, a copy that failed), 2 the
target is unusable (a file, under a file, a symlink loop, no permission), with one line saying what is wrong
and what to do (a failed check of the site lists its problems, one a line).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_site import LockTimeout, file_lock
from check_site import check_site  # puts the project's root on the path

from sizing.catalog.errors import terminal_text
from sizing.catalog.regular_files import MAX_FILE_BYTES, foreign_kind, read_regular_file, refusal

KEEP_RELEASES = 5
LOCK_TIMEOUT = 600.0  # seconds a publish or rollback waits for another one into the same target
HISTORY = "history.json"
LOCK = ".publish.lock"
STAGING = ".publish-staging"
History = dict[str, Any]  # published, rolled_back, deleting: lists of names; created: name -> manifest
# The names publish gives its releases (a stamp and a commit, 20261202T040512123456Z-5e407eb, or the caller's):
# a plain folder name, so that a name read back from history.json can never reach outside releases/
RELEASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
PARTIAL = ".partial"  # a half-copied release of an older publish: never served nor deleted


class PublishError(Exception):
    """Nothing was published or rolled back; ``exit_code`` is what the command line returns."""

    exit_code = 1


class TargetError(PublishError):
    """The target directory cannot be used: one line, ``<target>: <what is wrong>; <what to do>``."""

    exit_code = 2

    def __init__(self, target: Path, problem: str, remedy: str) -> None:
        super().__init__(f"{target}: {problem}; {remedy}")


# --- the target ----------------------------------------------------------------------------------------


def _target_error(target: Path, exc: OSError) -> TargetError:
    code = exc.errno
    if code == errno.ELOOP:
        return TargetError(
            target,
            "a symlink loop (too many levels of symbolic links)",
            "fix or remove the symlink, or give the real folder",
        )
    if code == errno.ENOTDIR:
        blocking = next((p for p in reversed([target, *target.parents]) if p.exists() and not p.is_dir()), None)
        where = f"{blocking} is a file" if blocking else "a part of the path is a file, not a folder"
        return TargetError(target, f"{where}, so no folder can be made under it", "give a path made of folders")
    if code in (errno.EACCES, errno.EPERM):
        place = f" on {exc.filename}" if exc.filename and Path(exc.filename) != target else ""
        return TargetError(
            target, f"permission denied{place}", "run as a user who may write there, or choose another folder"
        )
    if code == errno.EROFS:
        return TargetError(target, "on a read-only file system", "choose a writable folder")
    if code == errno.EEXIST and target.is_symlink():
        return TargetError(
            target, f"a symlink to {os.readlink(target)}, which does not exist", "create that folder or fix the link"
        )
    return TargetError(target, exc.strerror or str(exc), "check the path and its permissions")


def _prepare_target(target: Path, create: bool) -> None:
    """Insist that ``target`` is a usable folder (made when missing and ``create``); raise TargetError."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        if not create:
            raise TargetError(
                target,
                "no such folder",
                "nothing was published there, so there is nothing to roll back; check the path",
            ) from None
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _target_error(target, exc) from None
    except OSError as exc:
        raise _target_error(target, exc) from None
    else:
        if not stat.S_ISDIR(mode):
            raise TargetError(
                target, "a file, not a folder", "give the folder the web server serves (or move the file away)"
            )
    if not os.access(target, os.W_OK | os.X_OK):
        raise TargetError(target, "permission denied", "run as a user who may write there, or choose another folder")
    releases, current = target / "releases", target / "current"
    if releases.is_symlink():
        raise TargetError(
            target,
            f"{releases} is a symlink (to {terminal_text(os.readlink(releases))}), not the folder of releases publish "
            "deletes in",
            "move it away, or give the real folder as the target",
        )
    if releases.exists() and not releases.is_dir():
        raise TargetError(target, f"{releases} is a file, not the folder of releases", "move it away")
    if current.exists() and not current.is_symlink():
        raise TargetError(
            target,
            f"{current} is a real {'folder' if current.is_dir() else 'file'}, not the symlink publish switches",
            "move it away, then publish again",
        )


@contextlib.contextmanager
def _locked(target: Path, timeout: float) -> Iterator[None]:
    try:
        with file_lock(target / LOCK, timeout, f"another publish or rollback into {target}"):
            yield
    except LockTimeout as exc:
        raise PublishError(f"{target}: {exc}; nothing was changed, try again when it has finished") from None
    except OSError as exc:
        if exc.filename and Path(exc.filename) == target / LOCK:
            raise _target_error(target, exc) from None
        raise


# --- releases and history ------------------------------------------------------------------------------


def release_name_problem(name: object) -> str | None:
    """``'..', which is not a release name …`` when ``name`` is not a name publish gives a release; None when it
    is one."""
    if isinstance(name, str) and RELEASE_NAME.fullmatch(name) and not name.endswith(PARTIAL):
        return None
    return (
        f"{terminal_text(repr(name), 60)}, which is not a release name publish makes (1 to 100 letters, digits, "
        f"'.', '_' or '-', the first a letter or a digit, not ending in {PARTIAL})"
    )


def _releases(target: Path) -> list[Path]:
    """The folders in releases/ (real folders, not symlinks) whose names could be publish's."""
    folder = target / "releases"
    return (
        sorted(p for p in folder.iterdir() if _is_real_folder(p) and release_name_problem(p.name) is None)
        if folder.exists()
        else []
    )


def _is_real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def current_release(target: Path) -> Path | None:
    link = target / "current"
    return target / os.readlink(link) if link.is_symlink() else None


class ForeignRelease(PublishError):
    """A site or a release holds something other than folders and regular files with one name each."""


def _regular_bytes(path: Path) -> bytes:
    """The bytes of ``path``, which must be a regular file with one name: opened without following a symlink
    nor waiting on a pipe, and checked on the open file (ForeignRelease otherwise)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise ForeignRelease(f"{terminal_text(str(path))}: {refusal('a symlink')}") from None
    with os.fdopen(fd, "rb") as file:
        kind = foreign_kind(os.fstat(fd))
        if kind:
            raise ForeignRelease(f"{terminal_text(str(path))}: {refusal(kind)}")
        return file.read()


def manifest(folder: Path) -> dict[str, object]:
    """What a complete copy of ``folder`` holds: its number of files and one hash of their paths and bytes.
    Every file is a regular file with one name, every folder a real folder: a symlink, a hard link, a pipe or a
    device anywhere below ``folder`` raises ForeignRelease naming it (a release served through one would serve
    what lies elsewhere)."""
    files = []
    for root, dirs, names in os.walk(folder):
        for name in [*dirs, *names]:
            path = Path(root, name)
            info = os.lstat(path)
            kind = None if stat.S_ISDIR(info.st_mode) else foreign_kind(info)
            if kind:
                to = f" (to {terminal_text(os.readlink(path))})" if stat.S_ISLNK(info.st_mode) else ""
                raise ForeignRelease(
                    f"{terminal_text(str(path), 200)}: {kind}{to}; a release holds only folders and "
                    "regular files, each with one name"
                )
        files += [Path(root, name) for name in names]
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(_regular_bytes(path)).digest())
    return {"files": len(files), "sha256": digest.hexdigest()}


def _empty_history() -> History:
    return {"published": [], "rolled_back": [], "created": {}, "deleting": []}


def _read_history(target: Path) -> History:
    """The history; an empty one for a target without history.json (nothing in it is publish's own)."""
    path = target / HISTORY
    try:
        loaded = json.loads(read_regular_file(path, MAX_FILE_BYTES).decode("utf-8"))  # never waits on a pipe
    except FileNotFoundError:
        return _empty_history()
    except (OSError, ValueError) as exc:
        raise PublishError(
            f"{path}: unreadable ({terminal_text(str(exc), 200)}); fix it, or remove it to forget the rollback history"
        ) from None
    history = {**_empty_history(), **loaded} if isinstance(loaded, dict) else None
    if not (
        history
        and all(isinstance(history[key], list) for key in ("published", "rolled_back", "deleting"))
        and isinstance(history["created"], dict)
    ):
        raise PublishError(
            f"{path}: not a publish history (expected lists 'published', 'rolled_back', 'deleting' and a "
            "mapping 'created'); fix it, or remove it to forget the rollback history"
        )
    for key in ("deleting", "published", "rolled_back", "created"):
        for name in history[key]:
            problem = release_name_problem(name)
            if problem:
                raise PublishError(
                    f"{path}: '{key}' lists {problem}; nothing was deleted nor served (publish lists only its own "
                    "releases there): fix the file, or remove it to forget the rollback history"
                )
    return history


def _write_history(target: Path, history: History) -> None:
    """Write history.json atomically: a reader (or a crash) sees the old file or the new one."""
    fd, temporary = tempfile.mkstemp(dir=target, prefix=f".{HISTORY}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(history, file, indent=2)
            file.write("\n")
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target / HISTORY)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _owned(history: History) -> set[str]:
    """The releases publish created: named in its history as created, or as made current by it."""
    return set(history["created"]) | set(history["published"])


def _order(target: Path, history: History) -> list[str]:
    """The releases on disk that publish made current, oldest first."""
    existing = {p.name for p in _releases(target)}
    return [name for name in history["published"] if name in existing]


def _rollback_chain(order: list[str], current: str | None, rolled_back: list[str]) -> list[str]:
    """The releases successive rollbacks from ``current`` would go to, the first one first."""
    if current not in order:
        return []
    return [name for name in reversed(order[: order.index(current)]) if name not in rolled_back]


def _without(history: History, names: set[str]) -> History:
    """The history with ``names`` no longer listed as releases, and listed as being deleted."""
    return {
        "published": [n for n in history["published"] if n not in names],
        "rolled_back": [n for n in history["rolled_back"] if n not in names],
        "created": {n: m for n, m in history["created"].items() if n not in names},
        "deleting": sorted({*history["deleting"], *names}),
    }


def _delete_own(target: Path, history: History, names: set[str]) -> History:
    """Delete releases publish created: the history first stops listing them (a publish killed half way
    through never lists a half-deleted release), then the folders go, then the history forgets them."""
    if names - set(history["deleting"]):
        history = _without(history, names)
        _write_history(target, history)
    for name in sorted(set(history["deleting"])):
        shutil.rmtree(target / "releases" / name, ignore_errors=True)
    if history["deleting"]:
        history = {**history, "deleting": []}
        _write_history(target, history)
    return history


def _clean_leftovers(target: Path, history: History) -> History:
    """Remove what a killed publish or rollback of its own left: temporary histories, staging symlinks,
    half-copied releases, releases it was deleting."""
    for leftover in [*target.glob(f".{HISTORY}.*.tmp"), *target.glob(".current.new-*")]:
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    shutil.rmtree(target / STAGING, ignore_errors=True)
    return _delete_own(target, history, set())


def _prune(target: Path, history: History) -> None:
    """Keep KEEP_RELEASES of publish's own releases: current, its rollback chain, then the most recent;
    delete the others, and those a killed publish created but never made current."""
    current = current_release(target)
    current_name = current.name if current else None
    order = _order(target, history)
    keep: list[str] = [current_name] if current_name is not None and current and current.is_dir() else []
    for name in _rollback_chain(order, current_name, history["rolled_back"]) + list(reversed(order)):
        if len(keep) >= KEEP_RELEASES:
            break
        if name not in keep:
            keep.append(name)
    doomed = {p.name for p in _releases(target)} & _owned(history) - set(keep)
    if doomed:
        _delete_own(target, history, doomed)


def _point_current_to(target: Path, release: Path) -> None:
    staging = target / f".current.new-{os.getpid()}-{secrets.token_hex(4)}"
    staging.symlink_to(release.relative_to(target))
    try:
        os.replace(staging, target / "current")  # rename(2): atomic on POSIX
    except BaseException:
        staging.unlink()
        raise


def _refuse_overlap(site: Path, target: Path) -> None:
    """The target may be neither the site, nor inside it, nor hold it: a copy would copy itself."""
    try:
        site_real, target_real = site.resolve(), target.resolve()
    except (OSError, RuntimeError):  # a symlink loop: an unusable target, which _prepare_target reports
        return
    if site_real == target_real or site_real in target_real.parents or target_real in site_real.parents:
        raise TargetError(
            target,
            f"the same folder as the site {site}, inside it or holding it",
            "publish into a folder outside the built site",
        )


def _check_complete(target: Path, name: str, history: History) -> None:
    """A release is served again only when its files match the manifest written when it was published."""
    recorded = history["created"].get(name)
    if not isinstance(recorded, dict):
        raise PublishError(
            f"{target}: release {name} has no manifest (published before manifests existed), so its "
            "completeness cannot be checked; nothing was changed"
        )
    release = target / "releases" / name
    if not _is_real_folder(release):
        raise PublishError(f"{target}: release {name} is not a folder of releases/ (a symlink?); nothing was changed")
    try:
        found = manifest(release)
    except ForeignRelease as exc:
        raise PublishError(f"{target}: release {name} cannot be served: {exc}; nothing was changed") from None
    if found != recorded:
        raise PublishError(
            f"{target}: release {name} is not the release that was published ({found['files']} files of "
            f"{recorded.get('files')}, or their content changed); nothing was changed"
        )


def _copy_failure(target: Path, site: Path, failures: list[tuple[str, str, str]]) -> str:
    """One line for a copy of the site that failed on many files (shutil.Error lists every one of them)."""
    _source, destination, why = failures[0]
    first = f"{terminal_text(str(why), 200)} ({terminal_text(str(destination), 200)})"
    more = f", and {len(failures) - 1:,} more files" if len(failures) > 1 else ""
    return (
        f"{target}: the copy of {site} failed: {first}{more}; nothing was published: free space or fix the "
        "permissions, then publish again"
    )


def _release_name() -> str:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return f"{stamp}-{commit.stdout.strip() or 'nogit'}"


# --- publish and rollback ------------------------------------------------------------------------------


def publish(site: Path, target: Path, name: str | None = None, lock_timeout: float = LOCK_TIMEOUT) -> Path:
    """Check ``site``, copy it into a new release and make it current; return the release."""
    if name is not None and (problem := release_name_problem(name)):
        raise PublishError(f"cannot name a release {problem}; give a plain folder name")
    _refuse_overlap(site, target)
    _prepare_target(target, create=True)
    if not (site / "index.html").exists():
        raise PublishError(f"{site} holds no built site; run `make build` first")
    problems = check_site(site)
    if problems:
        raise PublishError(f"{site} fails its checks, nothing was published:\n  " + "\n  ".join(problems[:20]))
    with _locked(target, lock_timeout):
        history = _clean_leftovers(target, _read_history(target))
        folder = target / "releases"
        folder.mkdir(exist_ok=True)
        if name is None:
            name = _release_name()
            while (folder / name).exists():
                name = _release_name()
        elif (folder / name).exists():
            raise PublishError(f"{target}: release {name} exists already; nothing was published")
        release = folder / name
        staged = target / STAGING / name
        try:
            staged.parent.mkdir()
            try:
                shutil.copytree(site, staged)
            except shutil.Error as exc:  # one entry per file that failed: a full disk fails them all
                raise PublishError(_copy_failure(target, site, exc.args[0])) from None
            written = manifest(staged)
            if written != manifest(site):
                raise PublishError(f"{target}: the copy of {site} is not complete; nothing was published")
            staged.rename(release)
        finally:
            shutil.rmtree(target / STAGING, ignore_errors=True)
        try:
            published, rolled_back = list(history["published"]), list(history["rolled_back"])
            current = current_release(target)
            if current and current.name in published:  # forget releases a killed publish never made current
                last = published.index(current.name)
                published = [n for i, n in enumerate(published) if i <= last or n in rolled_back]
            history = {
                "published": [n for n in published if n != name] + [name],
                "rolled_back": [n for n in rolled_back if n != name],
                "created": {**history["created"], name: written},
                "deleting": [],
            }
            _write_history(target, history)  # before the switch: after a crash the history knows `current`
            _point_current_to(target, release)
        except BaseException:
            if current_release(target) != release:
                shutil.rmtree(release, ignore_errors=True)
            raise
        _prune(target, history)
    return release


def _rollback(target: Path, lock_timeout: float = LOCK_TIMEOUT) -> tuple[Path | None, Path]:
    _prepare_target(target, create=False)
    with _locked(target, lock_timeout):
        history = _clean_leftovers(target, _read_history(target))
        current = current_release(target)
        current_name = current.name if current else None
        chain = _rollback_chain(_order(target, history), current_name, history["rolled_back"])
        if not chain:
            raise PublishError(
                f"no release before {current_name or 'nothing'} in {target}/releases that was not "
                "rolled back itself; nothing was changed"
            )
        previous = target / "releases" / chain[0]
        _check_complete(target, chain[0], history)
        if current_name and current_name not in history["rolled_back"]:
            history["rolled_back"].append(current_name)
        _write_history(target, history)
        _point_current_to(target, previous)
        _prune(target, history)
    return current, previous


def rollback(target: Path, lock_timeout: float = LOCK_TIMEOUT) -> Path:
    """Make current again the most recent release before the current one that was not rolled back; the
    release left is marked rolled back, never to be returned to by a later rollback. Return the release."""
    return _rollback(target, lock_timeout)[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", type=Path, required=True, help="the static host's directory")
    parser.add_argument("--site", type=Path, default=Path(__file__).resolve().parent.parent / "site")
    parser.add_argument("--rollback", action="store_true", help="go back to the previous release")
    parser.add_argument(
        "--lock-timeout",
        type=float,
        default=LOCK_TIMEOUT,
        metavar="SECONDS",
        help="how long to wait for another publish or rollback into the target (default: 600)",
    )
    args = parser.parse_args()
    target: Path = args.target
    try:
        if args.rollback:
            left, release = _rollback(target, args.lock_timeout)
            print(
                f"rollback: {target}/current -> {release.relative_to(target)} (was "
                f"{left.relative_to(target) if left else 'nothing'}, now marked rolled back: "
                "no later rollback returns to it)"
            )
        else:
            release = publish(args.site, target, lock_timeout=args.lock_timeout)
            print(f"{target}/current -> {release.relative_to(target)}")
    except PublishError as exc:
        print(f"publish: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(
            f"publish: {target}: {terminal_text(str(exc.strerror or exc) + where, 300)}; `current` still points to a "
            "complete release",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
