"""The Chromium the browser tests drive, named by the environment variable CHROMIUM: the path of an executable
(default: Debian's /usr/bin/chromium, which `make test` installs where missing), or ``playwright`` for
Playwright's own download, pinned with the playwright package (what CI uses: GitHub's runners have no Debian
chromium, and Ubuntu's apt package is a snap wrapper that does not run there).

    python tests/chromium.py     # launch it once and print its version (`make browser` does)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

PLAYWRIGHT_DOWNLOAD = "playwright"
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def executable_path() -> str | None:
    """The executable to launch; None for Playwright's own download."""
    if CHROMIUM == PLAYWRIGHT_DOWNLOAD:
        return None
    assert Path(CHROMIUM).exists(), (
        f"{CHROMIUM} is missing: run `make test`, which installs Debian's chromium, or set CHROMIUM to another "
        "Chromium executable, or to 'playwright' for Playwright's own download"
    )
    return CHROMIUM


def launch(playwright: Any) -> Any:
    """A headless Chromium, from a started ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=executable_path(), args=CHROMIUM_ARGS)


def main() -> int:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        page.set_content("<span lang='zh'>张量并行</span>")
        width = page.evaluate("document.querySelector('span').getBoundingClientRect().width")
        print(f"==> Chromium {browser.version} ({CHROMIUM}) runs: a Chinese line is {width:.0f} px wide")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
