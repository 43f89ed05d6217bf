"""Render a page's Markdown through the macros: every ``{{ ... }}`` is a Jinja expression evaluated in a
sandboxed environment (see ``template``), the text around it is left as it is.

Errors come back as PageError naming the page, the line and the fix; a page can reach nothing but the
documented macros (no Jinja globals, sandboxed attribute access)."""
from __future__ import annotations

import re

from jinja2 import UndefinedError
from jinja2.exceptions import SecurityError

from sizing.errors import closest

from ..errors import MacroError, PageError
from ..library.context import MacroContext
from ..library.families import MACROS, bound_macros
from .template import BadPage, Call, compile_page, expression, has_macros


def _undefined_message(exc: UndefinedError) -> str:
    match = re.search(r"'([^']+)' is undefined", str(exc))
    if not match:
        return f"{exc}; pages may only call the macros listed in the writer's reference"
    name = match.group(1)
    near = closest(name, MACROS)
    hint = ("did you mean " + " or ".join(f"{n}()" for n in near) + "?") if near else \
        "macro names stay in English in every language; see the writer's reference"
    return f"unknown macro '{name}'; {hint}"


def _evaluate(call: Call, names: dict[str, object]) -> str:
    """The text a call writes; BadPage saying why it cannot."""
    try:
        return str(expression(call.text)(**names))
    except MacroError as exc:
        message = str(exc)
    except SecurityError as exc:
        message = f"not allowed ({exc}); pages may only call the documented macros"
    except UndefinedError as exc:
        message = _undefined_message(exc)
    raise BadPage(call.line, message)


def render_macros(markdown: str, page: str, ctx: MacroContext, line_offset: int = 0) -> str:
    """Markdown with every macro call replaced by its output for ``ctx``'s language and place."""
    if not has_macros(markdown):
        return markdown
    compiled = compile_page(markdown, page, line_offset)
    names = bound_macros(ctx)
    out = [compiled.texts[0]]
    try:
        for call, text in zip(compiled.calls, compiled.texts[1:]):
            out.append(_evaluate(call, names))
            out.append(text)
    except BadPage as problem:
        raise PageError(page, problem.line + line_offset, str(problem)) from None
    return "".join(out)
