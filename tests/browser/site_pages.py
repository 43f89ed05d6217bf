"""The site's pages as the browser tests read them: those that draw a chart, and what shows that the
configurator's script has drawn its page."""

from __future__ import annotations

import re

from sitebuild import ROOT


def chart_pages() -> list[str]:
    """Every page whose English source calls a chart macro, as its URL path ("guides/quantization/")."""
    docs = ROOT / "docs" / "en"
    pages = []
    for source in sorted(docs.rglob("*.md")):
        if re.search(r"\{\{\s*chart_\w+\(", source.read_text(encoding="utf-8")):
            path = source.relative_to(docs).with_suffix("").as_posix()
            pages.append(
                "" if path == "index" else path.removesuffix("index") if path.endswith("/index") else f"{path}/"
            )
    return pages


# the configurator's script has run: its menus are enabled and it has said what it shows
CONFIGURATOR_DRAWN = (
    "!document.querySelector('select[name=model]').disabled"
    " && document.querySelector('.cfg-status').textContent.length > 0"
)
