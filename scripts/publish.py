"""Publish the verified site to a static host directory, atomically, keeping releases for rollback.

    <target>/releases/<release>/   one full copy of the site per publish
    <target>/current -> releases/<release>     what the web server serves

A publish copies the site into a new release folder, then swaps the `current` symlink in one rename:
readers see the old site or the new one, never a mix. A site that fails the checks is not published.

    python scripts/publish.py --target /srv/guides [--site site]
    python scripts/publish.py --target /srv/guides --rollback
"""
from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from check_site import check_site  # noqa: E402

KEEP_RELEASES = 5


class PublishError(Exception):
    pass


def _releases(target: Path) -> list[Path]:
    folder = target / "releases"
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.endswith(".partial")) \
        if folder.exists() else []


def current_release(target: Path) -> Path | None:
    link = target / "current"
    return (target / os.readlink(link)).resolve() if link.is_symlink() else None


def _point_current_to(target: Path, release: Path) -> None:
    staging = target / "current.new"
    if staging.is_symlink() or staging.exists():
        staging.unlink()
    staging.symlink_to(release.relative_to(target))
    os.replace(staging, target / "current")  # rename(2): atomic on POSIX


def _release_name() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"{stamp}-{commit.stdout.strip() or 'nogit'}"


def publish(site: Path, target: Path, name: str | None = None) -> Path:
    """Check ``site``, copy it into a new release and make it current; return the release."""
    if not (site / "index.html").exists():
        raise PublishError(f"{site} holds no built site; run `make build` first")
    problems = check_site(site)
    if problems:
        raise PublishError(f"{site} fails its checks, nothing was published:\n  " + "\n  ".join(problems[:20]))
    release = target / "releases" / (name or _release_name())
    partial = release.with_name(release.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(site, partial)
    partial.rename(release)
    _point_current_to(target, release)
    for old in _releases(target)[:-KEEP_RELEASES]:
        if old != release:
            shutil.rmtree(old)
    return release


def rollback(target: Path) -> Path:
    """Make the release before the current one current again."""
    releases = _releases(target)
    current = current_release(target)
    if current not in releases or releases.index(current) == 0:
        raise PublishError(f"no release before {current.name if current else 'nothing'} in {target}/releases")
    previous = releases[releases.index(current) - 1]
    _point_current_to(target, previous)
    return previous


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", type=Path, required=True, help="the static host's directory")
    parser.add_argument("--site", type=Path, default=Path(__file__).resolve().parent.parent / "site")
    parser.add_argument("--rollback", action="store_true", help="go back to the previous release")
    args = parser.parse_args()
    args.target.mkdir(parents=True, exist_ok=True)
    try:
        release = rollback(args.target) if args.rollback else publish(args.site, args.target)
    except PublishError as exc:
        print(f"publish: {exc}", file=sys.stderr)
        return 1
    print(f"{args.target}/current -> {release.relative_to(args.target)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
