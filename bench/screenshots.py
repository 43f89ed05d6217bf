"""Screenshots for a reviewer's eye, not a test: the NVLink guide at 1280 px, and the configurator at 390 and
1280 px (whole page and first screen), in each language, taken in Debian's headless Chromium; the script stops
if a page logs a JavaScript error.

    .venv/bin/python bench/screenshots.py [site] [folder]   # default: site/ into test-artifacts/
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, serve

CHROMIUM = "/usr/bin/chromium"
LANGUAGES = {"en": "", "fr": "fr/", "zh": "zh/"}
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 900}


def configurator_ready(page) -> None:
    """The script has run: its menus are enabled and its first table is drawn."""
    page.wait_for_function("!document.querySelector('select[name=model]').disabled")
    page.wait_for_function("document.querySelector('.cfg-status').textContent.length > 0")
    page.wait_for_load_state("networkidle")


def take(page, server: str, out: Path, lang: str) -> list[Path]:
    """The guide and the configurator of ``lang``, shot into ``out``."""
    shots = [out / f"guide-{lang}.png"]
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server}{LANGUAGES[lang]}guides/nvlink-or-pcie/")
    page.screenshot(path=str(shots[0]), full_page=True)
    for name, viewport in (("390", PHONE), ("1280", DESKTOP)):
        page.set_viewport_size(viewport)
        page.goto(f"{server}{LANGUAGES[lang]}configurator/")
        configurator_ready(page)
        shots += [out / f"configurator-{lang}-{name}.png", out / f"configurator-{lang}-{name}-top.png"]
        page.screenshot(path=str(shots[-2]), full_page=True)
        page.screenshot(path=str(shots[-1]))
    return shots


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    errors: list[str] = []
    with serve(site) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        for lang in LANGUAGES:
            for shot in take(page, server, out, lang):
                print(shot.relative_to(out.parent) if shot.is_relative_to(out.parent) else shot)
        browser.close()
    if errors:
        print("JavaScript errors:\n" + "\n".join(errors), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
