"""What a fitted constant is fitted on, and how a fit writes it into the data files.

A fit finds each constant's value by comparing estimates with records. The records a constant's fit reads are
those whose estimate moves when that constant alone moves: the others add the same to the loss whatever the
constant's value. ``records_moved_by`` finds them for any model: give it the records (with an ``id``), a function
that estimates every record under a set of constants (a frozen dataclass), the constants, and the fields fitted.
``write_fitted_on`` writes those lists into a data file as each constant's ``fitted_on``, and ``write_values`` the
values a fit moved, keeping every reason, source and comment. The fits (``bench/fit_speed_model.py``,
``bench/fit_memory_model.py``) write them; tests hold the data files to them.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class Identified(Protocol):
    @property
    def id(self) -> str: ...


C = TypeVar("C", bound="DataclassInstance")  # a model's constants, a (frozen) dataclass


def probe(value: float) -> float:
    """Where a constant is moved to see what it moves: twice its value, or a thousandth where it is zero."""
    return 2 * value if value else 1e-3


def _moved(before: Any, after: Any) -> bool:
    """Whether an estimate (a number or a tuple of numbers) changed."""
    if isinstance(before, tuple):
        return any(_moved(b, a) for b, a in zip(before, after, strict=True))
    return not math.isclose(before, after, rel_tol=1e-12, abs_tol=0.0)


def records_moved_by(
    records: Sequence[Identified],
    estimates: Callable[[C], Sequence[Any]],
    constants: C,
    fields: Iterable[str],
) -> dict[str, list[str]]:
    """For each field of ``constants``, the ids of the records (in their order) whose estimate changes when that
    field alone moves (``estimates`` gives one number, or tuple of numbers, per record)."""
    today = estimates(constants)
    moved = {}
    for field in fields:
        shifted = estimates(dataclasses.replace(constants, **{field: probe(getattr(constants, field))}))
        moved[field] = [r.id for r, b, a in zip(records, today, shifted, strict=True) if _moved(b, a)]
    return moved


class FittedOnError(ValueError):
    """A data file whose layout the writer cannot place a fitted value or list in."""


def write_values(path: Path, values: Mapping[str, float]) -> None:
    """Write each ``name: value`` of ``values`` on the ``value:`` line that opens the block ``name:`` of the YAML file
    at ``path`` (shortest form, six significant digits)."""
    text = path.read_text(encoding="utf-8")
    for name, value in values.items():
        shown = f"{value:.6g}"
        if "e" in shown and "." not in shown.split("e", maxsplit=1)[0]:
            shown = shown.replace("e", ".0e")  # YAML 1.1 reads 4e-05 as a string
        text, found = re.subn(rf"(\n( *){re.escape(name)}:\n\2  value: )[^\n]+", rf"\g<1>{shown}", text)
        if found != 1:
            raise FittedOnError(f"{path}: {found} blocks '{name}:' opening with a value line; expected one")
    path.write_text(text, encoding="utf-8")


def write_fitted_on(path: Path, lists: Mapping[str, Sequence[str]]) -> None:
    """Write each ``name: [ids]`` of ``lists`` as the ``fitted_on`` of the block ``name:`` of the YAML file at
    ``path``: the block's ``fitted_on`` list is replaced, or added at the block's end."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for name, ids in lists.items():
        lines = _with_fitted_on(lines, name, ids, path)
    path.write_text("".join(lines), encoding="utf-8")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _with_fitted_on(lines: list[str], name: str, ids: Sequence[str], path: Path) -> list[str]:
    header = re.compile(rf"^ *{re.escape(name)}:\s*$")
    starts = [i for i, line in enumerate(lines) if header.match(line)]
    if len(starts) != 1:
        raise FittedOnError(f"{path}: {len(starts)} blocks '{name}:' where the fit writes fitted_on; expected one")
    start = starts[0]
    depth = _indent(lines[start]) + 2
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= depth):
        end += 1
    while lines[end - 1].strip() == "":  # blank lines after the block belong to what follows
        end -= 1
    written = [f"{' ' * depth}fitted_on:\n", *(f"{' ' * (depth + 2)}- {rid}\n" for rid in ids)]
    key = re.compile(rf"^ {{{depth}}}fitted_on:\s*$")
    found = [i for i in range(start + 1, end) if key.match(lines[i])]
    if not found:
        return [*lines[:end], *written, *lines[end:]]
    first = found[0]
    last = first + 1
    while last < end and (_indent(lines[last]) > depth or lines[last].lstrip().startswith("- ")):
        last += 1
    return [*lines[:first], *written, *lines[last:]]
