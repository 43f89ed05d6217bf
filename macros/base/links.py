"""Where a page stands in the site, as its relative links need it."""

from __future__ import annotations

from dataclasses import dataclass

from macros.base.languages import SOURCE_LANGUAGE


@dataclass(frozen=True)
class PageLinks:
    """Relative paths from the page being rendered: to the site root, and to its language's root."""

    root: str = ""
    lang_root: str = ""

    @classmethod
    def at(cls, url: str, lang: str) -> PageLinks:
        """Links from the page at ``url`` (inside its language's site; the home page's is "" or "./") of the
        site in ``lang``."""
        root = "../" * ("" if url in (".", "./") else url).count("/")
        return cls(root=root, lang_root=root + ("" if lang == SOURCE_LANGUAGE else f"{lang}/"))
