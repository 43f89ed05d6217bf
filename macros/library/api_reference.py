"""The JSON API's reference, generated from the JSON Schema the build writes beside the API files
(``sizing.views.api.api_schemas``): every field of every document with its type, its values and its unit, and
what it means in the reader's language (``api_reference.yml``). A field the schema gains without a description,
or a description of a field it lost, stops the build: the page cannot drift from the files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.base.languages import LANGUAGES
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.html import code, id_code, table
from sizing.catalog.yaml_lines import safe_load
from sizing.engine.fit import tight_settings_offered
from sizing.views.api import api_schemas
from sizing.views.plan_api import plan_schemas

DESCRIPTIONS_FILE = Path(__file__).resolve().parent / "api_reference.yml"
DOCUMENTS = {  # each document's schema, and the file (or files) the schema describes
    "catalog": ("api/catalog.schema.json", "api/catalog.json"),
    "fit": ("api/fit.schema.json", "api/fit.json"),
    "plan": ("api/plan.schema.json", "api/plan.json"),
    "plan-model": ("api/plan-model.schema.json", "api/plan/<model>.json"),
}


@cache
def api_reference_text() -> dict[str, Any]:
    """``api_reference.yml``: the reference's words, each field's description and the units, in every language."""
    return safe_load(DESCRIPTIONS_FILE.read_text(encoding="utf-8"))


def _resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def schema_fields(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, schema) of every field of a document, in the document's order: ``nodes[].link.topology``;
    a mapping's keys as ``<model>``; a fit cell's fields as ``cell.verdict`` (a cell is a list, in the order of
    ``cell``; another list of named fields as its ``x-tuple`` names it)."""

    def walk(path: str, node: dict[str, Any], shown: bool = True) -> Iterator[tuple[str, dict[str, Any]]]:
        node = _resolve(node, schema)
        if path and shown:
            yield path, node
        for name, child in node.get("properties", {}).items():
            yield from walk(f"{path}.{name}" if path else name, child)
        if isinstance(node.get("items"), dict):  # a list: its items' fields (a list of values shows them itself)
            yield from walk(f"{path}[]", node["items"], shown=False)
        if isinstance(node.get("additionalProperties"), dict):
            yield from walk(f"{path}.<{node['x-key']}>", node["additionalProperties"])
        for item in node.get("prefixItems", []):
            yield from walk(f"{node.get('x-tuple', 'cell')}.{item['title']}", item)
        for option in node.get("anyOf", []):
            if "$ref" in option:
                yield from ((p, n) for p, n in walk(path, option) if p != path)

    yield from walk("", schema)


def _type_of(node: dict[str, Any]) -> Markup:
    """A field's JSON type, or the values it may take (each as code, joined by |)."""
    if "const" in node:
        return code("array" if isinstance(node["const"], list) else json.dumps(node["const"], ensure_ascii=False))
    if "enum" in node:
        return Markup(" | ").join(code(json.dumps(value, ensure_ascii=False)) for value in node["enum"])
    if "anyOf" in node:
        return Markup(" | ").join(_type_of(option) for option in node["anyOf"])
    if "$ref" in node:
        return code("object")
    items = node.get("items")
    if isinstance(items, dict) and "properties" not in items and "$ref" not in items:  # a list of values
        return Markup("{}[{}]").format(code("array"), _type_of(items))
    kinds = node.get("type", [])
    return Markup(" | ").join(code(kind) for kind in ([kinds] if isinstance(kinds, str) else kinds))


def unit_of(path: str, lang: str) -> str:
    """The unit a field's name carries (``memory_bandwidth_gbps``: GB/s), in the reader's language; '' for none."""
    name = path.rsplit(".", 1)[-1].removesuffix("[]")
    for pattern, unit in api_reference_text()["units"].items():
        if re.search(pattern, name):
            return str(unit[lang])
    return ""


def field_problems(document: str) -> list[str]:
    """Fields of a document's schema without a description in every language, and descriptions of no field."""
    fields = [path for path, _ in schema_fields(all_schemas()[DOCUMENTS[document][0]])]
    described = api_reference_text()["fields"][document]
    missing = [p for p in fields if not all(described.get(p, {}).get(lang) for lang in LANGUAGES)]
    return [f"'{p}' has no description in every language" for p in missing] + [
        f"'{p}' describes no field of the schema" for p in described if p not in fields
    ]


def all_schemas() -> dict[str, dict[str, Any]]:
    """The schemas of every API document the build writes, the plan's included."""
    return api_schemas() | plan_schemas()


@macro
def api_fields(ctx: MacroContext, document: str) -> str:
    """Every field of an API document ("catalog", "fit", "plan" or "plan-model"), from the JSON Schema the build
    writes beside it: its type or values, its unit and what it holds."""
    if document not in DOCUMENTS:
        raise MacroError(f"unknown API document '{document}'; use one of {', '.join(map(repr, DOCUMENTS))}")
    problems = field_problems(document)
    if problems:
        raise MacroError(f"{DESCRIPTIONS_FILE.name}, {document}: " + "; ".join(problems))
    words = api_reference_text()["words"]
    described = api_reference_text()["fields"][document]
    settings = {f"{how}_setting": text for how, text in tight_settings_offered(ctx.catalog).items()}
    rows = [
        [id_code(path), _type_of(node), unit_of(path, ctx.lang) or "—", described[path][ctx.lang].format_map(settings)]
        for path, node in schema_fields(all_schemas()[DOCUMENTS[document][0]])
    ]
    headers = [words[key][ctx.lang] for key in ("field", "type", "unit", "meaning")]
    caption = words["caption"][ctx.lang].format(file=DOCUMENTS[document][1])
    return table(caption, headers, rows, stacked=True)
