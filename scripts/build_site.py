"""Build the site into a fresh folder and swap it into place only if the build succeeded.

A failed build (bad data, a broken page, a false claim) leaves the previous site untouched."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path


def build(config: Path, site: Path, quiet: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``mkdocs build --strict`` into a sibling folder, then replace ``site`` with it."""
    staging = site.with_name(site.name + ".new")
    previous = site.with_name(site.name + ".old")
    shutil.rmtree(staging, ignore_errors=True)
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(staging)]
    if quiet:
        command.append("--quiet")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        return result
    shutil.rmtree(previous, ignore_errors=True)
    if site.exists():
        site.rename(previous)
    staging.rename(site)
    shutil.rmtree(previous, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    parser.add_argument("-d", "--site-dir", type=Path, default=Path("site"))
    args = parser.parse_args()
    result = build(args.config_file.resolve(), args.site_dir.resolve())
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        sys.stderr.write(f"\nbuild failed: {args.site_dir} was left as it was\n")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
