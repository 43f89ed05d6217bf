"""The site's navigation (``nav:`` of mkdocs.yml) names pages of the source language that exist."""

from __future__ import annotations

from pathlib import Path

from macros.base.languages import SOURCE_LANGUAGE


def nav_pages(nav: object, trail: str = "nav") -> list[tuple[str, str]]:
    """(key in mkdocs.yml, page path) of every page the nav names."""
    if isinstance(nav, str):
        return [(trail, nav)] if nav.endswith(".md") else []
    if isinstance(nav, dict):
        return [found for title, value in nav.items() for found in nav_pages(value, f"{trail} > {title}")]
    if isinstance(nav, list):
        return [found for item in nav for found in nav_pages(item, trail)]
    return []


def missing_nav_pages(nav: object, docs_dir: Path) -> list[str]:
    """A message for every page the nav names that docs/<source language>/ lacks (mkdocs-static-i18n drops
    such a page without a warning)."""
    english = docs_dir / SOURCE_LANGUAGE
    return [
        f"mkdocs.yml: {key}: '{target}' is not a page of docs/{SOURCE_LANGUAGE}/; fix the path or add the page"
        for key, target in nav_pages(nav)
        if not (english / target).exists()
    ]


def empty_language_folders(docs_dir: Path, languages: list[str]) -> list[str]:
    """A message for every configured language whose folder holds no page."""
    return [
        f"docs/{lang}/ holds no page: a language folder must hold at least its home page (index.md); add "
        f"pages, or remove '{lang}' from plugins.i18n.languages in mkdocs.yml"
        for lang in languages
        if not any((docs_dir / lang).rglob("*.md"))
    ]
