"""The writer's reference: every macro with a live example (``reference.yml`` holds the French and Chinese
descriptions and the examples' arguments), and every valid id."""

from __future__ import annotations

import inspect
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from macros.base.languages import SOURCE_LANGUAGE
from macros.library.context import MacroContext
from macros.library.registry import MACROS, bound_macros, macro, signature_of
from macros.output.html import code, id_code, table
from macros.output.strings import text
from sizing.catalog.yaml_lines import load_yaml

REFERENCE_FILE = Path(__file__).resolve().parent / "reference.yml"


@cache
def reference_entries() -> dict[str, dict[str, Any]]:
    """The writer's reference entries, checked to cover every macro in every language."""
    entries = load_yaml(REFERENCE_FILE)
    missing = sorted(set(MACROS) - set(entries))
    unknown = sorted(set(entries) - set(MACROS))
    incomplete = [name for name, e in entries.items() if not (e.get("fr") and e.get("zh") and "args" in e)]
    if missing or unknown or incomplete:
        raise ValueError(
            f"{REFERENCE_FILE}: undocumented macros {missing}, unknown entries {unknown}, "
            f"entries missing fr, zh or args {incomplete}"
        )
    return entries


def _call_text(name: str, args: list[Any]) -> str:
    def show(value: Any) -> str:
        return "[" + ", ".join(show(v) for v in value) + "]" if isinstance(value, list) else json.dumps(value)

    return f"{name}({', '.join(show(a) for a in args)})"


CODE_SPAN = re.compile(r"``?([^`]+)``?")  # `x` in a translation, ``x`` in a docstring


def _with_code(description: str) -> Markup:
    """A description with its code spans as code: an argument's value reads `latency`, not "latency"."""
    parts = CODE_SPAN.split(description)  # every other part is code
    return Markup("").join(id_code(part) if index % 2 else part for index, part in enumerate(parts))


@macro
def macro_reference(ctx: MacroContext) -> str:
    """This table: every macro, what it gives, and an example computed live."""
    rows = []
    calls = bound_macros(ctx)
    for name, entry in reference_entries().items():  # in the reference's order: the same in every process
        description = (inspect.getdoc(MACROS[name]) if ctx.lang == SOURCE_LANGUAGE else entry[ctx.lang]) or ""
        if entry["output"] == "table":
            output = text("reference", "table_output", ctx.lang)
        elif entry["output"] == "nothing":
            calls[name](*entry["args"])
            output = text("reference", "nothing_output", ctx.lang)
        else:
            output = Markup(calls[name](*entry["args"]))  # what a page gets: escaped already
        rows.append(
            [id_code(signature_of(name)), _with_code(description), id_code(_call_text(name, entry["args"])), output]
        )
    headers = [text("reference", k, ctx.lang) for k in ("macro", "description", "example", "output")]
    return table(text("reference", "caption", ctx.lang), headers, rows, stacked=True)


@macro
def id_reference(ctx: MacroContext) -> str:
    """Every valid id: nodes (the first of each hardware configuration, with the number of offers of that
    hardware when there are several, all listed in data/nodes.yml), GPUs, models, precisions, links."""
    c = ctx.catalog
    groups = {"gpus": c.gpus, "models": c.models, "precisions": c.precisions, "interconnects": c.interconnects}
    rows = [
        [
            text("reference", "nodes", ctx.lang),
            Markup(", ").join(ctx.configuration_ids(configuration) for configuration in c.configurations.values()),
        ]
    ]
    rows += [
        [text("reference", kind, ctx.lang), Markup(", ").join(code(i) for i in ids)] for kind, ids in groups.items()
    ]
    headers = [text("reference", "kind", ctx.lang), text("reference", "ids", ctx.lang)]
    return table(text("reference", "ids_caption", ctx.lang), headers, rows)
