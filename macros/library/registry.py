"""The registry of macros: ``@macro`` registers a function ``(ctx, *args) -> str``; ``bound_macros`` gives a
page the callables it may use, each checking its arguments and escaping what it returns.

A macro's output depends only on the data, its arguments, the language and (for some) the page's place:
it is computed once per state of the data (``SiteData.remembered``), but for the macros that read other
pages of docs/, computed for every page that calls them."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.output.html import Block, TypesetBlock, as_text
from macros.output.typography import typeset

Macro = Callable[..., str]
MACROS: dict[str, Macro] = {}
# What a whole number or a list argument may be, by the parameter's name: a context or a count of tokens of at
# least one (10 million: above every model's window), a node comparison of distinct nodes that fit a table
WHOLE_NUMBER_RANGES = {"context": (1, 10_000_000), "tokens": (1, 10_000_000), "digits": (0, 3)}
LIST_LENGTHS = {"nodes": (1, 4)}
READS_OTHER_PAGES = frozenset({"guide_cards", "reading_time", "translation_status_table"})
LINK_DEPENDENT = frozenset({"configurator", "configurator_link", "common_plan", "common_plans_table"})


def macro(function: Macro) -> Macro:
    """Register ``function`` as callable from pages, under its own name."""
    MACROS[function.__name__] = function
    return function


def _matches(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_matches(value, h) for h in typing.get_args(hint))
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:60] + "…"


def _describe(hint: Any) -> str:
    return {
        str: "an id in quotes",
        int: "a whole number",
        list[str]: 'a list of ids in quotes, like ["a", "b"]',
        str | None: "an id in quotes",
        int | None: "a whole number",
        bool: "true or false",
    }.get(hint, str(hint))


def _range_problem(param: str, value: Any) -> str | None:
    """Why ``value`` makes no sense for ``param`` (WHOLE_NUMBER_RANGES, LIST_LENGTHS); None when it does."""
    if isinstance(value, int) and not isinstance(value, bool) and param in WHOLE_NUMBER_RANGES:
        low, high = WHOLE_NUMBER_RANGES[param]
        if not low <= value <= high:
            return f"must be from {low:,} to {high:,}, found {value:,}"
    if isinstance(value, list) and param in LIST_LENGTHS:
        low, high = LIST_LENGTHS[param]
        if not low <= len(value) <= high:
            return f"must list {low} to {high} ids, found {len(value):,}"
        repeated = next((item for item in value if value.count(item) > 1), None)
        if repeated is not None:
            return f"names '{repeated}' twice; list each once"
    return None


@cache
def _signature(name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    function = MACROS[name]
    return inspect.signature(function), typing.get_type_hints(function)


def signature_of(name: str) -> str:
    """How a page calls the macro: ``price(node)``, ``verdict(model, precision, node, context=None)``."""
    params = list(inspect.signature(MACROS[name]).parameters.values())[1:]
    return f"{name}({', '.join(p.name if p.default is p.empty else f'{p.name}={p.default!r}' for p in params)})"


def bound_macros(ctx: MacroContext) -> dict[str, Macro]:
    """Every callable a page may call, bound to ``ctx``."""
    return {name: bound_macro(name, ctx) for name in MACROS}


def bound_macro(name: str, ctx: MacroContext) -> Macro:
    """The macro ``name`` as a page calls it, bound to ``ctx``: its arguments checked, its output made safe."""
    function = MACROS[name]
    sig, hints = _signature(name)

    def call(*args: Any, **kwargs: Any) -> str:
        try:
            bound = sig.bind(ctx, *args, **kwargs)
        except TypeError as exc:
            raise MacroError(f"{name}() was called wrongly ({exc}); it takes {signature_of(name)}") from None
        for param, value in list(bound.arguments.items())[1:]:
            if not _matches(value, hints[param]):
                raise MacroError(
                    f"argument '{param}' of {name}() must be {_describe(hints[param])}, "
                    f"found {_shown(value)}; it takes {signature_of(name)}"
                )
            problem = _range_problem(param, value)
            if problem:
                raise MacroError(f"argument '{param}' of {name}() {problem}")

        def output() -> str:
            # Text from data/ lands in Markdown, where HTML and Markdown pass through: it is written as text.
            # Tables and other deliberate markup are built escaped already and come back as Markup. A block
            # skips the page's Markdown and its typography: it is typeset here, once (or was: TypesetBlock).
            result = function(*bound.args, **bound.kwargs)
            if isinstance(result, TypesetBlock):
                return result
            if isinstance(result, Block):
                return Block(typeset(result, ctx.lang))
            return str(result if isinstance(result, Markup) else as_text(result))

        if name in READS_OTHER_PAGES:
            return output()
        key = (
            "macro",
            name,
            repr(bound.args[1:]),
            repr(sorted(bound.kwargs.items())),
            ctx.lang,
            ctx.links if name in LINK_DEPENDENT else None,
        )
        return ctx.data.remembered(key, output)

    call.__name__ = name
    return call
