"""Build the site into a fresh folder and swap it into place only if the build succeeded.

A failed build (bad data, a broken page, a false claim) leaves the previous site untouched.

Safety rules, checked before anything is touched (exit code 2 and one line saying why):

* the target may not be the project's root, one of its source folders (docs/ or the config's docs_dir,
  data/, macros/, sizing/, hooks/, scripts/, tests/, overrides/, .git/ ...), a folder that holds one of
  them (`-d ..`, `-d /`), or a folder inside one of them; symlinks are resolved before comparing;
* the target may not be a file, nor an existing folder that holds something other than a built site.

Builds into one folder are serialised by an flock on ``<site>.lock`` beside it (the lock file is removed
when the build ends): a second build waits for the first, at most ``--lock-timeout`` seconds (10 minutes),
then fails. Every build stages into its own hidden folder beside the target (``.<site>.new-<pid>-*``), so
two builds never share a staging folder even if the lock were bypassed.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

REPOSITORY = Path(__file__).resolve().parent.parent
# Folders of a project that hold its sources (or its history, or its tools): never a build's target.
SOURCE_FOLDERS = (
    "docs",
    "data",
    "macros",
    "sizing",
    "hooks",
    "scripts",
    "tests",
    "overrides",
    ".git",
    ".github",
    ".ci",
    "bench",
    ".venv",
    "node_modules",
)
# What any MkDocs build leaves in its site folder: an existing folder without one of them is not a site.
SITE_MARKERS = ("index.html", "404.html", "sitemap.xml")
LOCK_TIMEOUT = 600.0  # seconds a build waits for another build into the same folder


class BuildError(Exception):
    """A build that did not run; ``exit_code`` is what the command line returns."""

    exit_code = 1


class BuildRefused(BuildError):
    """The target is a place a build must never write to."""

    exit_code = 2


class LockTimeout(Exception):
    """Another process held the lock for longer than we were willing to wait."""


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, what: str, remove: bool = False) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the ``with`` block.

    Waits at most ``timeout`` seconds for another holder, then raises LockTimeout. With ``remove``, the file
    is deleted before the lock is released; a waiter that then wins the lock on the deleted file notices that
    the path no longer names it and locks the path again, so two holders can never coexist."""
    deadline = time.monotonic() + timeout
    told = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(f"{what} still running after {timeout:g} s (lock {path} held)") from None
                    if not told:
                        print(f"waiting for {what} to finish (lock {path})", file=sys.stderr, flush=True)
                        told = True
                    time.sleep(random.uniform(0.05, 0.2))
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the previous holder removed the file we locked: lock the one at the path now
    try:
        yield
    finally:
        if remove:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        os.close(fd)


def _docs_dir(config: Path) -> Path:
    """The config's docs_dir (``docs`` when unset or unreadable), resolved."""

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !ENV, !!python/name: ... ignored
    name = "docs"
    with contextlib.suppress(OSError, yaml.YAMLError, RecursionError):  # MkDocs itself then says what is wrong
        loaded = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader)
        if isinstance(loaded, dict) and isinstance(loaded.get("docs_dir"), str):
            name = loaded["docs_dir"]
    return (config.parent / name).resolve()


def refusal(config: Path, site: Path) -> str | None:
    """Why ``site`` must not be the target of a build of ``config``, or None when it may be."""
    try:
        target = site.resolve()
        config = config.resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
        return f"its path cannot be resolved ({exc}); fix the path or the symlinks in it"
    roots = dict.fromkeys([config.parent, REPOSITORY])
    protected: dict[Path, str] = {}
    for root in roots:
        protected.setdefault(root, f"the project's root folder ({root})")
    docs = _docs_dir(config)
    protected.setdefault(docs, f"the project's docs folder ({docs}, docs_dir in {config.name})")
    for root in roots:
        for name in SOURCE_FOLDERS:
            folder = (root / name).resolve()
            protected.setdefault(folder, f"the project's {name}/ folder ({folder})")
    for folder, what in protected.items():
        if target == folder:
            return f"it is {what}, which the build would replace"
    for folder, what in protected.items():
        if folder.is_relative_to(target):
            return f"it holds {what}, which the build would delete"
    for folder, what in protected.items():
        if folder not in roots and target.is_relative_to(folder):
            return f"it is inside {what}, whose files are sources, not output"
    if target.exists() and not target.is_dir():
        return "it is a file, not a folder, and the build would replace it"
    if target.is_dir():
        try:
            entries = {entry.name for entry in os.scandir(target)}
        except OSError as exc:
            return f"it cannot be read ({exc.strerror})"
        if entries and not entries & set(SITE_MARKERS):
            return (
                f"it is a folder that holds no built site (none of {', '.join(SITE_MARKERS)}), "
                "and the build would delete everything in it"
            )
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_staging(site: Path) -> None:
    """Remove what killed builds into ``site`` left beside it (called with the lock held)."""
    for kind in ("new", "old"):
        if kind == "old" and not site.exists():
            continue  # killed between its two renames: the previous site is all there is, keep it
        for leftover in site.parent.glob(f".{site.name}.{kind}-*"):
            pid = leftover.name[len(f".{site.name}.{kind}-") :].split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                shutil.rmtree(leftover, ignore_errors=True)


def _without_info(log: str) -> str:
    """MkDocs' log without its INFO records (each a line, and any indented lines continuing it)."""
    kept, in_info = [], False
    for line in log.splitlines(keepends=True):
        if line.startswith("INFO "):
            in_info = True
        elif not (in_info and line[:1] in (" ", "\t")):
            in_info = False
            kept.append(line)
    return "".join(kept)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def build(
    config: Path,
    site: Path,
    quiet: bool = True,
    lock_timeout: float = LOCK_TIMEOUT,
    environ: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build --strict`` into a private folder beside ``site``, then replace ``site`` with it.
    MkDocs runs in ``environ`` (this process's environment when None: the tests build in a thread of their own,
    with the environment they mean, whatever another test does to os.environ meanwhile).

    Raises BuildRefused (nothing touched) when ``site`` is a place a build must not write to, and
    BuildError when another build into ``site`` held its lock for more than ``lock_timeout`` seconds."""
    config, given = Path(os.path.abspath(config)), Path(os.path.abspath(site))
    reason = refusal(config, given)
    named = (
        str(given)
        if (reason and "cannot be resolved" in reason) or given.resolve() == given
        else f"{given} (which resolves to {given.resolve()})"
    )
    if reason:
        raise BuildRefused(f"refusing to build into {named}: {reason}; choose another folder, e.g. site/")
    site = given.resolve()
    site.parent.mkdir(parents=True, exist_ok=True)
    try:
        with file_lock(site.with_name(site.name + ".lock"), lock_timeout, f"another build into {site}", remove=True):
            return _build_locked(config, site, quiet, os.environ if environ is None else environ)
    except LockTimeout as exc:
        raise BuildError(f"cannot build into {named}: {exc}; try again when it has finished") from None


def _build_locked(
    config: Path, site: Path, quiet: bool, environ: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    reason = refusal(config, site)  # again, now that no other build can change it
    if reason:
        raise BuildRefused(f"refusing to build into {site}: {reason}; choose another folder, e.g. site/")
    _remove_stale_staging(site)
    staging = Path(tempfile.mkdtemp(dir=site.parent, prefix=f".{site.name}.new-{os.getpid()}-"))
    try:
        # never `--quiet`: MkDocs 1.6 then drops warnings before --strict counts them, and a page with a
        # broken link builds "successfully" (mkdocs/mkdocs#4126); its INFO lines are removed here instead
        command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(staging)]
        env = {**environ, "NO_MKDOCS_2_WARNING": "1"}
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if quiet:
            result.stderr = _without_info(result.stderr)
        if result.returncode != 0:
            return result
        staging.chmod(0o777 & ~_umask())  # mkdtemp made it private: a site is read by a web server
        previous = None
        if site.exists():
            previous = site.with_name(f".{site.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
            site.rename(previous)
        try:
            staging.rename(site)
        except OSError:
            if previous is not None:
                previous.rename(site)
            raise
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already after a successful swap


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    parser.add_argument("-d", "--site-dir", type=Path, default=Path("site"))
    parser.add_argument(
        "--lock-timeout",
        type=float,
        default=LOCK_TIMEOUT,
        metavar="SECONDS",
        help="how long to wait for another build into the same folder (default: 600)",
    )
    args = parser.parse_args()
    try:
        result = build(args.config_file, args.site_dir, lock_timeout=args.lock_timeout)
    except BuildError as exc:
        print(f"build_site: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"build_site: cannot build into {args.site_dir}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        sys.stderr.write(f"\nbuild failed: {args.site_dir} was left as it was\n")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
