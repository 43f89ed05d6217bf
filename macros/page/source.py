"""A page as the build hands it over: its file, its language, its text; and the English page a translation
comes from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from macros.base.languages import SOURCE_LANGUAGE
from macros.base.project_files import read_page


@dataclass(frozen=True)
class PageSource:
    path: str  # docs/<lang>/<page>.md
    lang: str  # the language of the page's text
    source: str  # the whole file, front matter included
    markdown: str  # what MkDocs hands over: the file without its front matter
    generated: bool = False


def english_source(path: str, lang: str, docs_dir: Path) -> tuple[str, str] | None:
    """The English page a translation comes from: its text and its path; None for an English page."""
    relative = Path(path).relative_to(f"docs/{lang}")
    english_file = docs_dir / SOURCE_LANGUAGE / relative
    if lang == SOURCE_LANGUAGE or not english_file.exists():
        return None
    shown = f"docs/{SOURCE_LANGUAGE}/{relative.as_posix()}"
    return read_page(english_file, shown), shown
