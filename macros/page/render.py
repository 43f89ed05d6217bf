"""Render a page's Markdown through the macros: every ``{{ ... }}`` is a Jinja expression evaluated in a
sandboxed environment (see ``template``), the text around it is left as it is.

Errors come back as PageError naming the page, the line and the fix; a page can reach nothing but the
documented macros (no Jinja globals, sandboxed attribute access)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import UndefinedError
from jinja2.exceptions import SecurityError

from macros.base.errors import MacroError, PageError
from macros.library.context import MacroContext
from macros.library.families import MACROS, bound_macro
from macros.output.html import Block
from macros.page.template import BadPage, Call, compile_page, expression, has_macros
from sizing.catalog.errors import closest


def _undefined_message(exc: UndefinedError) -> str:
    match = re.search(r"'([^']+)' is undefined", str(exc))
    if not match:
        return f"{exc}; pages may only call the macros listed in the writer's reference"
    name = match.group(1)
    near = closest(name, MACROS)
    hint = (
        ("did you mean " + " or ".join(f"{n}()" for n in near) + "?")
        if near
        else "macro names stay in English in every language; see the writer's reference"
    )
    return f"unknown macro '{name}'; {hint}"


def _evaluate(call: Call, ctx: MacroContext) -> str:
    """The text a call writes (a ``Block`` as it is); BadPage saying why it cannot. A call names one macro (its
    shape is checked when the page is compiled): only that one is bound, an unknown name stays undefined."""
    name = call.name
    names = {name: bound_macro(name, ctx)} if name in MACROS else {}
    try:
        written = expression(call.text)(**names)
        return written if isinstance(written, Block) else str(written)
    except MacroError as exc:
        message = str(exc)
    except SecurityError as exc:
        message = f"not allowed ({exc}); pages may only call the documented macros"
    except UndefinedError as exc:
        message = _undefined_message(exc)
    except Exception as exc:  # any other failure of a call is reported at its line, never as a traceback
        shown = str(exc) if len(str(exc)) <= 120 else str(exc)[:120] + "…"
        message = (
            f"{call.name or 'this call'}() could not be computed ({type(exc).__name__}: {shown}); "
            "check its arguments against the writer's reference"
        )
    raise BadPage(call.line, message)


@dataclass(frozen=True)
class Rendered:
    """A page's Markdown with its macros rendered; each block of ready-made HTML a macro wrote (``Block``) is
    set aside in ``blocks`` and stands in ``markdown`` as a placeholder, an HTML comment Markdown passes on."""

    markdown: str
    blocks: tuple[str, ...] = ()

    @property
    def whole(self) -> str:
        """The Markdown with every block in its place."""
        return self.fill(self.markdown)

    def fill(self, html: str) -> str:
        """``html`` (the page once Markdown has run) with every block in its place."""
        if not self.blocks:
            return html
        return _PLACEHOLDER.sub(lambda found: self.blocks[int(found.group(1))], html)


_PLACEHOLDER = re.compile(r"<!--macro-block-(\d+)-->")
# What only the build writes into a page: a block's placeholder, a reading time's; a page that types one is refused
_RESERVED_MARKUP = re.compile(r"<!--\s*macro-block-|data-reading-time\s*=", re.I)


def check_reserved_markup(markdown: str, page: str, line_offset: int = 0) -> None:
    """A page's text holds none of the markup the build writes (``_RESERVED_MARKUP``): the build would fill
    it with another block, or time a page the writer named."""
    found = _RESERVED_MARKUP.search(markdown)
    if found:
        line = markdown.count("\n", 0, found.start()) + 1 + line_offset
        raise PageError(
            page,
            line,
            f"'{found.group(0)}' is markup the build writes itself; remove it "
            '(a reading time is {{ reading_time("guides/<page>.md") }})',
        )


def render_macros(markdown: str, page: str, ctx: MacroContext, line_offset: int = 0) -> Rendered:
    """Markdown with every macro call replaced by its output for ``ctx``'s language and place."""
    check_reserved_markup(markdown, page, line_offset)
    if not has_macros(markdown):
        return Rendered(markdown)
    compiled = compile_page(markdown, page, line_offset)
    out, blocks = [compiled.texts[0]], list[str]()
    try:
        for call, text in zip(compiled.calls, compiled.texts[1:], strict=True):
            written = _evaluate(call, ctx)
            if isinstance(written, Block):
                out.append(f"\n\n<!--macro-block-{len(blocks)}-->\n\n")
                blocks.append(str(written).strip())
            else:
                out.append(str(written))
            out.append(text)
    except BadPage as problem:
        raise PageError(page, problem.line + line_offset, str(problem)) from None
    return Rendered("".join(out), tuple(blocks))
