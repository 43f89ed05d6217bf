"""Render a page's Markdown through the macros in a sandboxed Jinja environment.

Errors come back as PageError naming the page, the line and the fix; a page can reach nothing but the
documented macros (no Jinja globals, sandboxed attribute access)."""
from __future__ import annotations

import re
from functools import lru_cache
from types import TracebackType

from jinja2 import TemplateSyntaxError, UndefinedError
from jinja2.exceptions import SecurityError

from sizing.catalog import closest

from .context import BuildData
from .environment import ENV, TEMPLATE_NAME
from .errors import MacroError, PageError
from . import charts, configurator, guide_macros, translation_tables  # noqa: F401 - register their macros
from .library import MACROS, Macros, PageLinks

def has_macros(markdown: str) -> bool:
    return "{{" in markdown or "{%" in markdown


@lru_cache(maxsize=512)
def _compile(source: str):  # noqa: ANN202 - jinja2.Template
    """Compiled once per distinct source text, reused across languages and rebuilds."""
    return ENV.from_string(source)


def _template_line(tb: TracebackType | None) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == TEMPLATE_NAME or tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _undefined_message(exc: UndefinedError) -> str:
    match = re.search(r"'([^']+)' is undefined", str(exc))
    if not match:
        return f"{exc}; pages may only call the macros listed in the writer's reference"
    name = match.group(1)
    near = closest(name, MACROS)
    hint = ("did you mean " + " or ".join(f"{n}()" for n in near) + "?") if near else \
        "macro names stay in English in every language; see the writer's reference"
    return f"unknown macro '{name}'; {hint}"


def _shift(line: int | None, offset: int) -> int | None:
    return None if line is None else line + offset


_WELL_FORMED = re.compile(r'\{\{(?:[^"}]|"[^"]*"|\}(?!\}))*?\}\}')


def check_braces(markdown: str, page: str, line_offset: int = 0) -> None:
    """Every macro call opens and closes on one line, with its quotes closed: a broken one is reported
    on its own line (Jinja would report where parsing finally broke, often lines later)."""
    for number, line in enumerate(markdown.splitlines(), start=1 + line_offset):
        rest = _WELL_FORMED.sub("", line)
        if "{{" in rest:
            raise PageError(page, number, "a '{{' without its '}}' on the same line, or a quote left open "
                            "inside it; write each macro call on one line, like {{ price(\"4x-a100-pcie-80gb\") }}")
        if "}}" in rest:
            raise PageError(page, number, "a '}}' without its '{{'; write the call as {{ name(...) }}")


def compile_page(markdown: str, page: str, line_offset: int = 0):  # noqa: ANN201 - jinja2.Template
    """The page's template; a syntax error names the page and the line of the source file
    (``line_offset``: lines above ``markdown`` in the file, such as front matter)."""
    check_braces(markdown, page, line_offset)
    try:
        return _compile(markdown)
    except TemplateSyntaxError as exc:
        raise PageError(page, _shift(exc.lineno, line_offset),
                        f"template syntax error: {exc.message}; check that every "
                        "'{{' has its '}}' and every '{%' its '%}'") from None


def render_page(markdown: str, page: str, lang: str, data: BuildData, line_offset: int = 0,
                links: PageLinks = PageLinks()) -> str:
    """Markdown with every macro call replaced by its output for ``lang``."""
    if not has_macros(markdown):
        return markdown
    template = compile_page(markdown, page, line_offset)
    try:
        return template.render(Macros(data, lang, links).as_globals())
    except MacroError as exc:
        message, tb = str(exc), exc.__traceback__
    except SecurityError as exc:
        message, tb = f"not allowed ({exc}); pages may only call the documented macros", exc.__traceback__
    except UndefinedError as exc:
        message, tb = _undefined_message(exc), exc.__traceback__
    except TypeError as exc:
        message = f"{exc}; call macros by name with ids in quotes, e.g. price(\"4x-a100-pcie-80gb\")"
        tb = exc.__traceback__
    raise PageError(page, _shift(_template_line(tb), line_offset), message)
