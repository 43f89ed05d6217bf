"""Hints for the ways YAML reads a value other than the writer meant, and the field names a record may have:
what a data error adds to "expected … found …" so the writer sees the fix."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_EXPONENT = re.compile(r"^([+-]?\d+(?:\.\d*)?)[eE]([+-]?)(\d+)$")  # YAML 1.1 wants the dot and the sign


def split_number(mapping: Mapping[Any, Any]) -> tuple[int, int] | None:
    """(15, 600) when a mapping in braces read ``{amount: 15,600}`` as ``amount: 15`` and a key ``600``."""
    previous: Any = None
    for key, value in mapping.items():
        if isinstance(key, int) and not isinstance(key, bool) and value is None and isinstance(previous, int):
            return previous, key
        previous = value
    return None


def trap_hint(found: Any, parent: Any) -> str | None:
    """What YAML did to the value ``found`` (in the mapping ``parent``), and how to write it; None when nothing
    is known to be wrong with how it was written."""
    split = split_number(parent) if isinstance(parent, Mapping) else None
    if split:
        whole, rest = split
        return (
            f"YAML read the number {whole},{rest:03d} as two entries, {whole} and a key {rest}: write "
            f"{whole}{rest:03d}, without a thousands comma"
        )
    if isinstance(found, bool):
        return (
            "YAML reads an unquoted yes, no, on, off, true or false as a boolean: write a number here, "
            "or quote the text: 'no'"
        )
    if isinstance(found, str) and _THOUSANDS.match(found):
        return f"write {found.replace(',', '')}, without a thousands comma"
    exponent = _EXPONENT.match(found.strip()) if isinstance(found, str) else None
    if exponent:
        mantissa, sign, digits = exponent.groups()
        written = f"{mantissa}{'' if '.' in mantissa else '.0'}e{sign or '+'}{digits}"
        return f"YAML reads {found} as text, not a number: write {written}, with a dot and a signed exponent"
    return None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation may hold directly (through Optional, unions and Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]
    return []


def _items_of(annotation: Any) -> list[Any]:
    """What a list, tuple or dict annotation holds (through Optional, unions and Annotated)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated or origin in (typing.Union, types.UnionType):
        return [item for arg in typing.get_args(annotation) for item in _items_of(arg)]
    if origin in (list, tuple, dict, set, frozenset):
        args = [arg for arg in typing.get_args(annotation) if arg is not Ellipsis]
        return args[-1:] if args else []
    return []


def field_names_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names a record at ``loc`` (a pydantic error location without the wrong name) may have."""
    candidates: list[Any] = [model]
    for key in loc:
        following: list[Any] = []
        for candidate in candidates:
            if isinstance(key, str):
                for found in _models_in(candidate):
                    field = found.model_fields.get(key)
                    if field is not None:
                        following.append(field.annotation)
                following += [item for item in _items_of(candidate) if typing.get_origin(candidate) is dict]
            else:
                following += _items_of(candidate)
        candidates = following
    names = [name for candidate in candidates for found in _models_in(candidate) for name in found.model_fields]
    return list(dict.fromkeys(names))
