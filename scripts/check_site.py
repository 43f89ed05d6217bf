"""Checks on the built site, every language: internal links and anchors resolve, every English page
exists in every language (translated or served from English), and no template syntax is left.

    python scripts/check_site.py [site]      # exit 1 and a list of problems when any check fails
"""

from __future__ import annotations

import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE_PREFIXES = ("fr", "zh")
SKIPPED_SCHEMES = ("http", "https", "mailto", "data", "javascript", "tel")


class _Page(HTMLParser):
    """Collects link targets and element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self._code_depth = 0
        self.text_outside_code: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if values.get("name") and tag == "a":
            self.ids.add(values["name"] or "")
        for attribute in ("href", "src"):
            if values.get(attribute) and tag in ("a", "link", "script", "img", "iframe", "source"):
                self.links.append(values[attribute] or "")
        if tag in ("code", "pre", "script"):
            self._code_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre", "script") and self._code_depth:
            self._code_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self._code_depth:
            self.text_outside_code.append(data)


def _parse(path: Path) -> _Page:
    """The page's links and ids; ValueError naming the line of a byte that is not UTF-8."""
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"line {line}: byte 0x{data[exc.start]:02x} is not UTF-8") from None
    parser = _Page()
    parser.feed(text)
    return parser


def _symlinks(site: Path) -> list[str]:
    """Every symlink in the built site: it would publish a file from outside the project."""
    found = []
    for root, dirs, files in os.walk(site):
        for name in [*dirs, *files]:
            path = Path(root, name)
            if path.is_symlink():
                found.append(f"{path.relative_to(site).as_posix()}: a symlink (to {os.readlink(path)}); remove it")
    return found


def _parsed_pages(site: Path, problems: list[str]) -> dict[Path, _Page]:
    """Every HTML page of the site, parsed; one problem per page that cannot be read."""
    pages = {}
    for path in sorted(site.rglob("*.html")):
        try:
            pages[path] = _parse(path)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            problems.append(f"{path.relative_to(site).as_posix()}: cannot be read ({reason}); write it as UTF-8")
    return pages


def _target_file(site: Path, page: Path, link: str) -> tuple[Path | None, str]:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None, ""
    base = page.parent
    path = unquote(parts.path)
    target = (site / path.lstrip("/")) if path.startswith("/") else (base / path if path else page)
    target = target.resolve()
    if target.is_dir() or path.endswith("/"):
        target = target / "index.html"
    return target, unquote(parts.fragment)


def check_site(site: Path, english_docs: Path = ROOT / "docs" / "en") -> list[str]:
    """Every problem found, as 'page: what'."""
    site = site.resolve()
    problems: list[str] = _symlinks(site)
    pages = _parsed_pages(site, problems)
    for path, parsed in pages.items():
        where = path.relative_to(site).as_posix()
        text = "".join(parsed.text_outside_code)
        if re.search(r"\{\{|\{%", text):
            problems.append(f"{where}: template syntax left in the page")
        for link in parsed.links:
            if link.split(":", 1)[0] in SKIPPED_SCHEMES and ":" in link:
                continue
            target, anchor = _target_file(site, path, link)
            if target is None:
                continue
            if not str(target).startswith(str(site)) or not target.exists():
                problems.append(f"{where}: link to '{link}' leads to no file")
            elif anchor and target.suffix == ".html" and target in pages and anchor not in pages[target].ids:
                problems.append(f"{where}: link to '{link}' has no anchor '#{anchor}' in its target")
    for source in sorted(english_docs.rglob("*.md")):
        relative = source.relative_to(english_docs).with_suffix("")
        url = relative.parent if relative.name == "index" else relative
        for prefix in ("", *LANGUAGE_PREFIXES):
            built = site / prefix / url / "index.html"
            if not built.exists():
                problems.append(
                    f"{built.relative_to(site)}: missing (the English page {relative}.md has no "
                    f"page in /{prefix or 'en'}/)"
                )
    return list(dict.fromkeys(problems))  # a link repeated on a page is one problem


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site"
    problems = check_site(site)
    for problem in problems:
        print(problem)
    count = len(list(site.rglob("*.html")))
    print(f"checked {count} pages: {len(problems)} problems" if problems else f"checked {count} pages: all good")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
