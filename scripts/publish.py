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
removes its own leftovers (.history.json.*.tmp, .current.new-*, .publish-staging/). A rollback serves only a
release whose files match the manifest written when it was published. --target may be neither the site
folder, nor inside it, nor hold it.

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
publish held the lock too long), 2 the target is unusable (a file, under a file, a symlink loop, no
permission), with one line saying what is wrong and what to do.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import errno
import hashlib
import json
import os
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
from check_site import check_site

KEEP_RELEASES = 5
LOCK_TIMEOUT = 600.0  # seconds a publish or rollback waits for another one into the same target
HISTORY = "history.json"
LOCK = ".publish.lock"
STAGING = ".publish-staging"
History = dict[str, Any]  # published, rolled_back, deleting: lists of names; created: name -> manifest


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


def _releases(target: Path) -> list[Path]:
    folder = target / "releases"
    return (
        sorted(
            p for p in folder.iterdir() if p.is_dir() and not p.name.endswith(".partial") and not p.name.startswith(".")
        )
        if folder.exists()
        else []
    )


def current_release(target: Path) -> Path | None:
    link = target / "current"
    return target / os.readlink(link) if link.is_symlink() else None


def manifest(folder: Path) -> dict[str, object]:
    """What a complete copy of ``folder`` holds: its number of files and one hash of their paths and bytes."""
    digest, count = hashlib.sha256(), 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
        count += 1
    return {"files": count, "sha256": digest.hexdigest()}


def _empty_history() -> History:
    return {"published": [], "rolled_back": [], "created": {}, "deleting": []}


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(n, str) for n in value)


def _read_history(target: Path) -> History:
    """The history; an empty one for a target without history.json (nothing in it is publish's own)."""
    path = target / HISTORY
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _empty_history()
    except (OSError, ValueError) as exc:
        raise PublishError(f"{path}: unreadable ({exc}); fix it, or remove it to forget the rollback history") from None
    history = {**_empty_history(), **loaded} if isinstance(loaded, dict) else None
    if not (
        history
        and all(_names(history[key]) for key in ("published", "rolled_back", "deleting"))
        and isinstance(history["created"], dict)
    ):
        raise PublishError(
            f"{path}: not a publish history (expected lists 'published', 'rolled_back', 'deleting' and a "
            "mapping 'created'); fix it, or remove it to forget the rollback history"
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
    found = manifest(target / "releases" / name)
    if found != recorded:
        raise PublishError(
            f"{target}: release {name} is not the release that was published ({found['files']} files of "
            f"{recorded.get('files')}, or their content changed); nothing was changed"
        )


def _release_name() -> str:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return f"{stamp}-{commit.stdout.strip() or 'nogit'}"


# --- publish and rollback ------------------------------------------------------------------------------


def publish(site: Path, target: Path, name: str | None = None, lock_timeout: float = LOCK_TIMEOUT) -> Path:
    """Check ``site``, copy it into a new release and make it current; return the release."""
    if name is not None and (not name or "/" in name or name.startswith(".") or name.endswith(".partial")):
        raise PublishError(f"{name!r} cannot name a release: give a plain folder name")
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
            shutil.copytree(site, staged)
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
            f"publish: {target}: {exc.strerror or exc}{where}; `current` still points to a complete release",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
