"""A page as text and macro calls: cut at every ``{{ ... }}``, each call checked and compiled.

Pages are text with macro calls and nothing else (no statements, loops or includes), so each distinct
expression is compiled once for the whole build and shared by every page and language that writes it;
a page's own cost is one scan."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from jinja2 import StrictUndefined, TemplateSyntaxError, nodes
from jinja2.environment import TemplateExpression
from jinja2.sandbox import SandboxedEnvironment

from macros.base.errors import PageError

# The sandboxed environment a page's macro calls are compiled in: no globals but the macros passed in,
# attribute access checked.
ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
ENV.globals.clear()  # no range, cycler, joiner, namespace, lipsum, dict: only the macros

# {{, then anything but a quote or }} (a quoted string may hold either), then }}
MACRO_CALL = re.compile(r'\{\{((?:[^"}]|"[^"]*"|\}(?!\}))*?)\}\}')
_CALLED_NAME = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")


@dataclass(frozen=True)
class Call:
    line: int  # in the Markdown given, 1-based
    text: str  # the expression between the braces

    @property
    def name(self) -> str | None:
        """The macro the expression calls, if it is a call."""
        called = _CALLED_NAME.match(self.text)
        return called.group(1) if called else None


@dataclass(frozen=True)
class CompiledPage:
    """A page cut into its text and its calls: ``texts[i]`` comes before ``calls[i]``, and one more text
    ends the page."""

    texts: tuple[str, ...]
    calls: tuple[Call, ...]


def has_macros(markdown: str) -> bool:
    """Whether the page holds template syntax to check and render: a call, a statement, or a '}}' without its
    '{{' (which the check names, where an attribute list would otherwise read it: ``{: onclick=… }}``)."""
    return "{{" in markdown or "{%" in markdown or "}}" in markdown


@lru_cache(maxsize=4096)
def expression(text: str) -> TemplateExpression:
    """Compiled once per distinct expression, shared by every page and language and reused on rebuilds."""
    return ENV.compile_expression(text, undefined_to_none=False)


class BadPage(Exception):
    """A problem at a line of the Markdown given (the caller adds the page and its offset)."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


SHOWN_DELIMITERS = frozenset({"{{", "}}", "{%"})  # {{ "{{" }} shows the braces themselves


MAX_CALL_CHARACTERS = 2_000  # the longest call of the site takes about 150
MAX_WHOLE_NUMBER = 10**9  # a context, a count of tokens: every whole number a macro takes is far below
MAX_LIST_ITEMS = 16


def _scalar(node: nodes.Node) -> bool:
    """An id in quotes, a whole number, true, false or none."""
    return isinstance(node, nodes.Const) and (node.value is None or isinstance(node.value, (str, int, bool)))


def _literal(node: nodes.Node) -> bool:
    """A scalar (``_scalar``) or a flat list of them."""
    return _scalar(node) or (isinstance(node, nodes.List) and all(_scalar(item) for item in node.items))


def _bounds_problem(call: nodes.Call) -> str | None:
    """What is out of bounds in a call's literal arguments: a number too large, a list too long, a keyword
    given twice; None when nothing is."""
    values = [*call.args, *(k.value for k in call.kwargs)]
    items = [item for v in values for item in (v.items if isinstance(v, nodes.List) else [v])]
    for item in items:
        value = item.value if isinstance(item, nodes.Const) else None
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WHOLE_NUMBER:
            shown = str(value)[:12] + "…"
            return f"the whole number {shown} is larger than {MAX_WHOLE_NUMBER:,}, more than any figure needs"
    for v in values:
        if isinstance(v, nodes.List) and len(v.items) > MAX_LIST_ITEMS:
            return f"a list of {len(v.items):,} items, more than the {MAX_LIST_ITEMS} a macro takes"
    keys = [k.key for k in call.kwargs]
    repeated = next((key for key in keys if keys.count(key) > 1), None)
    if repeated:
        return f"the argument '{repeated}' is given twice; give it once"
    return None


def _check_shape(text: str, line: int) -> None:
    """A call is a macro's name with literal arguments, nothing else: no attribute, operator, filter or bare
    value, so a page can neither compute a figure nor type one inside braces. Parsed, never compiled first
    (compiling folds constants: ``9**(9**9)`` would run)."""
    if len(text) > MAX_CALL_CHARACTERS:
        raise BadPage(line, f"a call of {len(text):,} characters, more than {MAX_CALL_CHARACTERS:,}; shorten it")
    try:
        body = ENV.parse("{{ " + text + " }}").body
    except TemplateSyntaxError as exc:
        raise BadPage(
            line,
            f"template syntax error: {exc.message}; a call is written "
            '{{ name("id", ...) }} with its parentheses and quotes closed',
        ) from None
    except (RecursionError, ValueError, ArithmeticError):  # brackets nested deep, a number of 5,000 digits
        raise BadPage(
            line,
            "a call nested too deeply or holding a number too long to read; arguments are ids in quotes, "
            'whole numbers and flat lists of ids, like {{ price("4x-a100-pcie-80gb") }}',
        ) from None
    expression_node = (
        body[0].nodes[0] if len(body) == 1 and isinstance(body[0], nodes.Output) and len(body[0].nodes) == 1 else None
    )
    if isinstance(expression_node, nodes.Const) and expression_node.value in SHOWN_DELIMITERS:
        return
    call = expression_node
    if (
        isinstance(call, nodes.Call)
        and isinstance(call.node, nodes.Name)
        and call.dyn_args is None
        and call.dyn_kwargs is None
        and all(_literal(a) for a in call.args)
        and all(_literal(k.value) for k in call.kwargs)
    ):
        problem = _bounds_problem(call)
        if problem:
            raise BadPage(line, f"{call.node.name}(): {problem}")
        return
    shown = text if len(text) <= 60 else text[:60] + "…"
    raise BadPage(
        line,
        f"'{{{{ {shown} }}}}' is not a macro call: a call is a macro's name with literal "
        "arguments (ids in quotes, whole numbers, true or false, lists of ids), like "
        '{{ price("4x-a100-pcie-80gb") }}; to show braces themselves, write {{ "{{" }}',
    )


def _check_line(line: str, number: int) -> None:
    """A macro call opens and closes on its line with its quotes closed, and nothing starts a statement:
    a broken call is reported on its own line, not where a parser would finally give up."""
    if "｛" in line or "｝" in line:
        raise BadPage(
            number,
            "full-width braces ｛ ｝ do not make a macro call; write the call with ASCII braces, "
            'like {{ price("4x-a100-pcie-80gb") }} (an input method may type full-width ones)',
        )
    rest = MACRO_CALL.sub("", line)
    if "{{" in rest:
        raise BadPage(
            number,
            "a '{{' without its '}}' on the same line, or a quote left open inside it; "
            'write each macro call on one line, like {{ price("4x-a100-pcie-80gb") }}',
        )
    if "}}" in rest:
        raise BadPage(number, "a '}}' without its '{{'; write the call as {{ name(...) }}")
    if "{%" in rest:
        raise BadPage(
            number,
            "'{%' starts a template statement, which pages do not use: a page is text and "
            "{{ macro(...) }} calls; to show '{%' itself, write {{ \"{%\" }}",
        )


@lru_cache(maxsize=512)
def _scan(markdown: str) -> CompiledPage:
    """The page cut at its calls, every expression compiled; BadPage on the first problem."""
    for number, text in enumerate(markdown.splitlines(), start=1):
        if any(brace in text for brace in "{}｛｝"):
            _check_line(text, number)
    texts, calls, position, line = [], [], 0, 1
    for found in MACRO_CALL.finditer(markdown):
        line += markdown.count("\n", position, found.start())
        texts.append(markdown[position : found.start()])
        call = Call(line, found.group(1).strip())
        _check_shape(call.text, line)
        try:
            expression(call.text)
        except Exception as exc:  # the shape was checked: whatever still fails to compile is named at its line
            raise BadPage(line, f"this call cannot be compiled ({type(exc).__name__}); check its parentheses") from None
        calls.append(call)
        position = found.end()
    texts.append(markdown[position:])
    return CompiledPage(tuple(texts), tuple(calls))


def compile_page(markdown: str, page: str, line_offset: int = 0) -> CompiledPage:
    """The page's text and calls, checked and compiled; a problem names the page and the line of the
    source file (``line_offset``: lines above ``markdown`` in the file, such as front matter)."""
    try:
        return _scan(markdown)
    except BadPage as problem:
        raise PageError(page, problem.line + line_offset, str(problem)) from None
