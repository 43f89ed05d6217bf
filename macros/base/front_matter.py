"""A page's front matter: where it ends, and what it holds, checked (a PageError names the line and the fix)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

import yaml

from macros.base.errors import PageError
from sizing.catalog.errors import closest
from sizing.catalog.yaml_lines import DataFileError, line_of, load_yaml_text, yaml_kind

FRONT_MATTER_KEYS = ("title", "description", "category", "hide", "source_hash")
TEXT_KEYS = ("title", "description", "category", "source_hash")  # text, never markup
MAX_FRONT_MATTER_CHARACTERS = 20_000  # a title, a description and a few keys take a few hundred


def parse_front_matter(lines: list[str], end: int, page: str) -> object:
    """The YAML between the front matter's fences, bounded before it is parsed (size, nesting, aliases:
    ``load_yaml_text``); a PageError naming the line and the fix."""
    text = "\n".join(lines[1 : end - 1])
    if len(text) > MAX_FRONT_MATTER_CHARACTERS:
        raise PageError(
            page, 2, f"front matter of {len(text):,} characters, more than {MAX_FRONT_MATTER_CHARACTERS:,}; shorten it"
        )
    try:
        return load_yaml_text(text) or {}
    except DataFileError as exc:
        raise PageError(page, (exc.line or 0) + 1, f"front matter: {exc.reason}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark else 1
        if isinstance(exc, yaml.constructor.ConstructorError):  # a key twice, aliases or nesting past the bounds
            raise PageError(page, line, f"front matter: {exc.problem}") from None
        raise PageError(
            page,
            line,
            f"front matter is not valid YAML ({getattr(exc, 'problem', exc)}); "
            "quote a value that contains ': ', like title: \"NVLink : PCIe\"",
        ) from None


def front_matter_end(lines: list[str]) -> int:
    """Number of lines the front matter takes (0 without front matter)."""
    if lines and lines[0].strip() == "---":
        for index, line in enumerate(lines[1:], start=1):
            if line.strip() in ("---", "..."):
                return index + 1
    return 0


def check_front_matter(source: str, page: str) -> dict[str, object]:
    """The page's front matter, or a PageError saying what is wrong with it."""
    lines = source.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    end = front_matter_end(lines)
    if end == 0:
        raise PageError(page, 1, "front matter opened with '---' is never closed; add a '---' line after it")
    data = parse_front_matter(lines, end, page)
    if not isinstance(data, dict):
        raise PageError(page, 2, "front matter must be 'key: value' lines")
    for number, line in enumerate(lines[1 : end - 1], start=2):
        key = line.split(":", 1)[0].strip()
        if line and not line.startswith((" ", "-")) and key not in FRONT_MATTER_KEYS:
            near = closest(key, FRONT_MATTER_KEYS)
            hint = f"did you mean '{near[0]}'?" if near else f"allowed keys: {', '.join(FRONT_MATTER_KEYS)}"
            raise PageError(page, number, f"unknown front matter key '{key}'; {hint}")
    for key in TEXT_KEYS:
        if key in data and not isinstance(data[key], str):
            raise PageError(
                page,
                (line_of(data, key) or 1) + 1,
                f"front matter '{key}' is {yaml_kind(data[key])}, not text; write one line of text, in quotes if "
                "YAML would read it otherwise",
            )
    return data


def theme_text(front_matter: Mapping[str, object]) -> dict[str, str]:
    """The front matter's title and description as MkDocs and Material must be given them: they write
    ``page.meta`` as it is into HTML, the title into ``<title>``, the header, the navigation and the previous and
    next links, the description into its ``<meta>``'s double-quoted ``content``. So "<", ">" and "&" are escaped,
    and a description's '"'; an apostrophe stays one (Material escapes a title again where it makes it an
    attribute)."""
    shown: dict[str, str] = {}
    if isinstance(title := front_matter.get("title"), str):
        shown["title"] = escape(title, quote=False)
    if isinstance(description := front_matter.get("description"), str):
        shown["description"] = escape(description, quote=False).replace('"', "&quot;")
    return shown
