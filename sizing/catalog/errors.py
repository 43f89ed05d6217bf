"""Errors that name the file, the line, the record and the field, and say how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a data file."""

    file: Path
    line: int | None
    record: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else str(self.file)
        parts = [where]
        if self.record:
            parts.append(f"record '{self.record}'")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


class CatalogError(Exception):
    """The catalog in data/ is invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("the catalog in data/ is invalid:\n" + "\n".join(f"  - {p}" for p in problems))


class SizingError(ValueError):
    """A calculation was asked something the data cannot answer (e.g. a precision a model lacks)."""


def closest(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The valid ids nearest to a mistyped one."""
    return difflib.get_close_matches(word, list(choices), n=n, cutoff=0.5)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    near = closest(word, choices)
    if near:
        return "did you mean " + " or ".join(f"'{c}'" for c in near) + "?"
    return "valid ids: " + ", ".join(f"'{c}'" for c in choices)


SHOWN_CHARACTERS = 80  # what a message quotes of any input


def terminal_text(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text`` as a message may print it on a terminal: every character that is not printable (a line break,
    an escape sequence, a bidirectional override) written as its Python escape, ``\\x1b``, and the whole cut to
    ``limit`` characters with "…"."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[: limit + 1])
    return shown if len(shown) <= limit else shown[:limit] + "…"


def shown_value(value: Any, limit: int = SHOWN_CHARACTERS) -> str:
    """An input as a message quotes it: ``repr``, cut to ``limit`` characters; a mapping or a list by its size, a
    huge whole number by its digits. A message never formats an unbounded input."""
    if isinstance(value, Mapping | list):
        return f"a {'mapping' if isinstance(value, Mapping) else 'list'} of {len(value)} entries"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"a whole number of {len(str(abs(value))) if abs(value) < 10**4000 else 'over 4,000'} digits"
    shown = repr(value[: limit + 1] if isinstance(value, str) else value)
    return shown if len(shown) <= limit else shown[:limit] + "…"
