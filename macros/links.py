"""Where a page stands in the site, as its relative links need it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageLinks:
    """Relative paths from the page being rendered: to the site root, and to its language's root."""

    root: str = ""
    lang_root: str = ""
