"""Checks a page must pass before it is rendered, besides its front matter (``front_matter``): pinned heading
ids, links, and for a translation, the same macro calls as its English source and the glossary's terms. Each
problem is a PageError naming the file, the line and the fix."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import PurePosixPath

from jinja2 import nodes

from macros.base.errors import PageError
from macros.base.front_matter import front_matter_end
from macros.base.languages import SOURCE_LANGUAGE
from macros.page.template import ENV, compile_page
from macros.site.glossary import glossary
from macros.site.translations import is_current

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_HEADING_ID = re.compile(r"\{#([A-Za-z0-9_-]+)\}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _outside_fences(source: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code and front matter."""
    lines = source.splitlines()
    kept, fenced = [], False
    front_matter = front_matter_end(lines)
    for number, line in enumerate(lines, start=1):
        if number <= front_matter:
            continue
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append((number, line))
    return kept


def heading_ids(source: str, page: str, require: bool) -> list[tuple[int, str]]:
    """(line, id) of each heading; with ``require``, a heading without ``{#id}`` is an error."""
    found: list[tuple[int, str]] = []
    for number, line in _outside_fences(source):
        heading = _HEADING.match(line)
        if not heading:
            continue
        pinned = _HEADING_ID.search(heading.group(2))
        if pinned:
            earlier = next((line for line, ident in found if ident == pinned.group(1)), None)
            if earlier is not None:
                raise PageError(
                    page,
                    number,
                    f"heading id {{#{pinned.group(1)}}} is given twice (first at line "
                    f"{earlier}); a link can reach only one: give this heading an id of its own",
                )
            found.append((number, pinned.group(1)))
        elif require:
            raise PageError(
                page,
                number,
                "heading without a pinned id; end it with one, like "
                "'## What to buy {#what-to-buy}', so links to it work in every language",
            )
    return found


def headings(source: str) -> list[tuple[int, str | None]]:
    """(line, pinned id or None) of every heading."""
    found: list[tuple[int, str | None]] = []
    for number, line in _outside_fences(source):
        heading = _HEADING.match(line)
        if heading:
            pinned = _HEADING_ID.search(heading.group(2))
            found.append((number, pinned.group(1) if pinned else None))
    return found


def check_heading_ids(source: str, page: str, english: str, english_page: str) -> None:
    """A current translation keeps the English page's heading ids, in order; a heading that lost its id is
    named where it lost it. An outdated translation is not compared: the English page may have moved on."""
    theirs = heading_ids(english, english_page, require=True)
    if not is_current(source, english):
        return
    heading_ids(source, page, require=False)  # an id given twice
    mine = headings(source)
    for index, (line, ident) in enumerate(mine):
        expected = theirs[index][1] if index < len(theirs) else None
        if ident is None and expected:
            raise PageError(
                page,
                line,
                f"heading without its id: {english_page}:{theirs[index][0]} has {{#{expected}}} here; end this "
                f"heading with {{#{expected}}}, as the English page does",
            )
        if ident != expected:
            where = (
                f"{english_page}:{theirs[index][0]} has {{#{expected}}}"
                if expected
                else f"{english_page} has no heading left"
            )
            raise PageError(
                page,
                line,
                f"heading id {{#{ident}}} does not match the English page ({where}); "
                "keep the English ids, in the same order, and translate only the heading text",
            )
    if len(mine) < len(theirs):
        line, ident = theirs[len(mine)]
        raise PageError(
            page,
            None,
            f"heading {{#{ident}}} of {english_page}:{line} is missing; translate every heading and keep its id",
        )


@dataclass(frozen=True)
class MacroCall:
    text: str
    line: int
    block: int


def _expr(node: nodes.Node) -> str:
    if isinstance(node, nodes.Const):
        return json.dumps(node.value, ensure_ascii=False)
    if isinstance(node, nodes.List):
        return "[" + ", ".join(_expr(item) for item in node.items) + "]"
    if isinstance(node, nodes.Name):
        return node.name
    return f"<{type(node).__name__.lower()}>"


def _blocks(source: str) -> list[int]:
    """For each line (index = line - 1), the number of the paragraph it belongs to."""
    block, previous_blank, numbers = 0, True, []
    for line in source.splitlines():
        blank = not line.strip()
        if previous_blank and not blank:
            block += 1
        numbers.append(block)
        previous_blank = blank
    return numbers


@lru_cache(maxsize=4096)
def _calls_in(expression_text: str) -> tuple[str, ...]:
    """The macro calls one expression makes, written the same way whatever the spacing or quotes."""
    calls = []
    for call in ENV.parse("{{ " + expression_text + " }}").find_all(nodes.Call):
        name = call.node.name if isinstance(call.node, nodes.Name) else _expr(call.node)
        args = [_expr(a) for a in call.args] + [f"{k.key}={_expr(k.value)}" for k in call.kwargs]
        calls.append(f"{name}({', '.join(args)})")
    return tuple(calls)


@lru_cache(maxsize=256)
def macro_calls(source: str, page: str) -> list[MacroCall]:
    """Every macro call of a page, with its line and paragraph, in the page's order."""
    blocks = _blocks(source)
    return [
        MacroCall(text, call.line, blocks[call.line - 1])
        for call in compile_page(source, page).calls
        for text in _calls_in(call.text)
    ]


def _canonical(calls: list[MacroCall]) -> list[MacroCall]:
    """Paragraph by paragraph; inside a paragraph the order follows the language, so sort it."""
    return sorted(calls, key=lambda c: (c.block, c.text))


def check_parity(source: str, page: str, english: str, english_page: str) -> None:
    """A current translation calls the same macros with the same arguments as its English page, paragraph by
    paragraph: the figures are then the same in every language by construction. An outdated one (its English
    page changed since its stamp) is published as it is, with its notice and today's figures: a writer's
    English edit never waits for its translations."""
    if not is_current(source, english):
        return
    mine = _canonical(macro_calls(source, page))
    theirs = _canonical(macro_calls(english, english_page))
    matcher = difflib.SequenceMatcher(a=[c.text for c in theirs], b=[c.text for c in mine], autojunk=False)
    for tag, a1, _a2, b1, _b2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            call = mine[b1]
            raise PageError(
                page,
                call.line,
                f"calls {call.text}, which {english_page} does not; remove it "
                "(a translation calls the same macros as its English page)",
            )
        if tag == "delete":
            missing = theirs[a1]
            line = mine[b1 - 1].line if b1 else None
            raise PageError(
                page,
                line,
                f"is missing {missing.text}, which {english_page}:{missing.line} calls here; add it to this paragraph",
            )
        call, expected = mine[b1], theirs[a1]
        raise PageError(
            page,
            call.line,
            f"calls {call.text} where {english_page}:{expected.line} calls "
            f"{expected.text}; use the English call unchanged",
        )


def check_links(source: str, page: str, exists: Callable[[str], bool]) -> None:
    """Relative links to .md pages must lead to a page of the site (in this language or English)."""
    page_dir = PurePosixPath(page).parent
    for number, line in _outside_fences(source):
        for target in _LINK.findall(re.sub(r"`[^`]*`|\{\{.*?\}\}", "", line)):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0].split("?")[0]
            if not path.endswith(".md"):
                continue
            resolved = _normalize(page_dir / path)
            if not exists(resolved):
                raise PageError(
                    page,
                    number,
                    f"links to '{target}', a page that exists in no language; "
                    "fix the path (it is relative to this page, like ../guides/nvlink-or-pcie.md)",
                )


def _normalize(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


_NOT_PROSE = re.compile(r"`[^`]*`|\{\{.*?\}\}|\{%.*?%\}|\]\([^)]*\)|\{[#.][^}]*\}")


@cache
def _avoided_forms(lang: str) -> tuple[re.Pattern[str] | None, dict[str, tuple[str, str]]]:
    """One pattern matching every form the glossary rules out in ``lang``, and for each form (lower
    case) the term it stands for and the form to write instead."""
    advice = {
        avoided.lower(): (term, forms[lang]["use"])
        for term, forms in glossary().items()
        for avoided in forms[lang].get("avoid", [])
    }
    if not advice:
        return None, advice
    alternatives = "|".join(re.escape(form) for form in sorted(advice, key=lambda f: (-len(f), f)))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE), advice


def check_glossary(source: str, page: str, lang: str) -> None:
    """Flag a term written in a form the glossary rules out for this language."""
    if lang == SOURCE_LANGUAGE:
        return
    pattern, advice = _avoided_forms(lang)
    if pattern is None:
        return
    for number, line in _outside_fences(source):
        found = pattern.search(_NOT_PROSE.sub(" ", line))
        if found:
            term, use = advice[found.group(0).lower()]
            raise PageError(
                page,
                number,
                f"'{found.group(0)}' is not how this site writes '{term}' in "
                f"{lang}: write '{use}' (see the glossary in the writer's reference)",
            )
