"""A page never becomes script: its source holds no raw HTML, links only to http(s) addresses, ``mailto:`` or
relative paths, and attribute lists that give an ``{#id}`` or a ``{.class}`` only (``check_markup``, each
problem a PageError at its line); and, should any construct slip past those checks, the HTML Markdown makes of
the page holds no script, no event handler and no address of another scheme (``check_page_html``).

What Markdown shows as written (front matter, fenced code, code spans) and macro calls (checked by the template)
are left out of the source checks. No raw HTML is allowed at all, not even Material's ``<div markdown>``: the
pages need none (admonitions are written ``!!! note``), and the writer's reference says so."""

from __future__ import annotations

import re
from html import unescape

from macros.base.errors import PageError
from macros.base.front_matter import front_matter_end
from macros.page.template import MACRO_CALL
from sizing.catalog.errors import terminal_text

SAFE_SCHEMES = ("http", "https", "mailto")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})[^`]*")
# a code span starts at the first backtick of a run (tried once per run) and ends inside its paragraph
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
_TAG_START = re.compile(r"(?<!\\)<(?=[A-Za-z/!?])")
_TAG = re.compile(r"<[^>\n]*>?")
_AUTOLINK = re.compile(r"<(?:https?://[^\s<>]+|mailto:[^\s<>]+|[\w.+-]+@[\w.-]+)>", re.I)  # Markdown's own links
_LINK_TARGET = re.compile(r"\]\(\s*<?([^)>]*)")  # [text](target "title"), ![alt](target), a line break kept
_REFERENCE = re.compile(r"^[ ]{0,3}\[(?!\^)[^\]\n]+\]:\s*<?([^\s>]*)", re.M)  # [name]: target
_ATTRIBUTE_LIST = re.compile(r"(?<!\{)\{(?!\{)([^{}\n]*)\}(?!\})")  # not half of a '{{ … }}': the template's
_ID_OR_CLASS = re.compile(r"[#.][\w-]+|:")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _fenced_lines(lines: list[str], start: int) -> set[int]:
    """The lines of every fenced code block from ``start`` on, fences included: a fence counts only once closed
    (by a run of its character at least as long), since Markdown shows an unclosed one as text."""
    fenced: set[int] = set()
    index = start
    while index < len(lines):
        opening = _FENCE_OPEN.fullmatch(lines[index])
        if opening:
            run = opening.group(1)
            closing = re.compile(rf"[ \t]*{re.escape(run[0])}{{{len(run)},}}[ \t]*")
            end = next((j for j in range(index + 1, len(lines)) if closing.fullmatch(lines[j])), None)
            if end is not None:
                fenced.update(range(index, end + 1))
                index = end
        index += 1
    return fenced


def prose(source: str) -> str:
    """``source`` with what Markdown shows as written, and macro calls, blanked out: front matter, fenced code
    blocks, code spans and ``{{ … }}``, each character a space (lines and columns stay where they were)."""
    lines = source.split("\n")
    start = front_matter_end(lines)
    fenced = set(range(start)) | _fenced_lines(lines, start)
    text = "\n".join(" " * len(line) if number in fenced else line for number, line in enumerate(lines))
    text = _CODE_SPAN.sub(lambda found: _blank(found.group(0)), text)
    # line by line: a call opens and closes on its line (the template refuses any other), and a '{{' that does not
    # close is then tried to the end of its line only, not of the page; a line without '}}' holds no call
    return "\n".join(
        MACRO_CALL.sub(lambda found: _blank(found.group(0)), line) if "}}" in line else line
        for line in text.split("\n")
    )


def unsafe_scheme(target: str) -> str | None:
    """The scheme of an address a browser would not follow as a plain link (``javascript``, ``data``,
    ``vbscript``…), read as the browser reads it: entities decoded, tabs and line breaks dropped, leading
    spaces and control characters stripped; None for an http(s) or mailto: address or a relative one."""
    address = re.sub(r"[\t\n\r]", "", unescape(target)).lstrip("".join(map(chr, range(33))))
    scheme = _SCHEME.match(address)  # a colon after a "/", "?" or "#" is no scheme's: the address is relative
    if scheme is None or scheme.group(1).lower() in SAFE_SCHEMES:
        return None
    return scheme.group(1).lower()


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _raw_html(text: str) -> tuple[int, str] | None:
    """The first tag, comment or declaration of ``text`` that is not one of Markdown's own links."""
    found = next((tag for tag in _TAG_START.finditer(text) if not _AUTOLINK.match(text, tag.start())), None)
    if found is None:
        return None
    tag = _TAG.match(text, found.start())
    return found.start(), (
        f"raw HTML '{terminal_text(tag.group(0) if tag else '<', 60)}': a page holds text, Markdown and macro calls, "
        "never HTML (it could run script in readers' browsers); write it in Markdown, or in `code` to show it as text"
    )


def _unsafe_link(text: str) -> tuple[int, str] | None:
    """The first link target (``[text](target)`` or ``[name]: target``) of another scheme than http(s), mailto:."""
    found = min(
        (link for pattern in (_LINK_TARGET, _REFERENCE) for link in pattern.finditer(text) if unsafe_scheme(link[1])),
        key=lambda link: link.start(1),
        default=None,
    )
    if found is None:
        return None
    return found.start(1), (
        f"a link to '{terminal_text(found.group(1), 60)}' ({unsafe_scheme(found.group(1))}:): a page links to http:// "
        "and https:// addresses, mailto: and relative paths only; fix the address"
    )


def _attribute(text: str) -> tuple[int, str] | None:
    """The first attribute list that sets more than an id or a class."""
    for found in _ATTRIBUTE_LIST.finditer(text):
        other = next((word for word in found.group(1).split() if not _ID_OR_CLASS.fullmatch(word)), None)
        if other is not None:
            return found.start(), (
                f"the attribute list '{terminal_text(found.group(0), 60)}' sets "
                f"'{terminal_text(other.split('=')[0], 40)}': a page's attribute lists give an {{#id}} or a "
                "{.class} only (an attribute could run script); remove it"
            )
    return None


def check_markup(source: str, page: str) -> None:
    """Raw HTML, a link to another scheme than http(s) or mailto:, an attribute list that sets an attribute:
    PageError at the line of the first one (``source``: the whole file, front matter included)."""
    text = prose(source)
    problems = [found for check in (_raw_html, _unsafe_link, _attribute) if (found := check(text))]
    if problems:
        offset, message = min(problems)
        raise PageError(page, _line(text, offset), message)


# What Markdown never writes of a page without raw HTML, and a macro never writes inline (its tables and charts
# come back after this check): an element that runs or loads something, an event handler, an address of another
# scheme in an attribute that a browser follows.
_ACTIVE_ELEMENT = re.compile(
    r"<\s*(script|style|iframe|frame|frameset|object|embed|applet|link|meta|base|form|input|button|textarea|"
    r"select|svg|math|template|noscript|portal)\b",
    re.I,
)
_HANDLER = re.compile(r"<[^>]*?[\s\"'/](on[a-z]+)\s*=", re.I)
_ADDRESS = re.compile(
    r"<[^>]*?\s(?:href|src|action|formaction|xlink:href|poster|data|background|cite|ping)\s*=\s*"
    r"(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))",
    re.I,
)


def check_page_html(html: str, page: str) -> None:
    """The last guard: PageError (naming the page) when the HTML Markdown made of a page's text holds an active
    element, an event handler or an address of another scheme than http(s) or mailto:."""
    found = _ACTIVE_ELEMENT.search(html) or _HANDLER.search(html)
    if found is None:
        for address in _ADDRESS.finditer(html):
            if unsafe_scheme(next(part for part in address.groups() if part is not None)):
                found = address
                break
    if found is not None:
        raise PageError(
            page,
            None,
            f"its HTML holds '{terminal_text(found.group(0), 60)}', which could run script in readers' browsers; "
            "remove the markup that writes it (a page holds text, Markdown and macro calls only)",
        )
