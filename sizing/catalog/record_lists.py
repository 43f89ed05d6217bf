"""A YAML file that holds a list of records, such as the estimator's scenarios or the plan's requirements. Each
record is checked on its own. Every problem of every record is reported at once, each starting with its
``file:line``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from sizing.catalog.errors import shown_value, terminal_text
from sizing.catalog.schema import UNION_TAGS
from sizing.catalog.yaml_lines import DataFileError, TooManyEntries, line_of, load_yaml, yaml_kind

R = TypeVar("R", bound=BaseModel)


class RecordListError(Exception):
    """The file cannot be used; ``lines`` are the messages, one per problem."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


def record_label(path: Path, noun: str, index: int, raw: Any, key: str | None = None) -> str:
    """ "scenarios.yml:7: scenario 2 ('big')": where a record, or one of its keys, stands (its id as a message
    quotes any input: escaped and cut, ``shown_value``)."""
    name = raw.get("id") if isinstance(raw, dict) else None
    line = line_of(raw, key) if isinstance(raw, dict) else None
    where = f"{path}:{line}: " if line else f"{path}: "
    return where + f"{noun} {index + 1}" + (f" ({shown_value(name)})" if name is not None else "")


def validation_lines(
    path: Path, noun: str, index: int, raw: dict[str, Any], error: ValidationError, model: type[BaseModel]
) -> list[str]:
    """One line per problem pydantic found in a record, at the line of the key it is about."""
    lines = []
    for e in error.errors():
        loc = [k for k in e["loc"] if k not in UNION_TAGS]
        label = record_label(path, noun, index, raw, loc[0] if loc and isinstance(loc[0], str) else None)
        field = terminal_text(".".join(str(k) for k in loc))  # a key as the file wrote it
        if e["type"] == "extra_forbidden":
            valid = ", ".join(model.model_fields) if len(loc) == 1 else None
            lines.append(f"{label}: unknown key '{field}'" + (f"; valid keys: {valid}" if valid else ""))
        elif e["type"] == "missing":
            lines.append(f"{label}: missing key '{field}'")
        else:
            message = e["msg"].removeprefix("Value error, ")
            found = "" if e["type"] == "value_error" else f" (found {shown_value(e.get('input'))})"
            lines.append(f"{label}: {field + ': ' if field else ''}{message}{found}")
    return lines


def load_list(path: Path, noun: str, most: int) -> list[Any]:
    """The file's YAML list of at most ``most`` records, counted before they are built (a key given twice is an
    error, not silently the last one)."""
    try:
        raw = load_yaml(path, most)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise RecordListError([f"{where}: invalid YAML: {getattr(exc, 'problem', None) or exc}"]) from None
    except OSError as exc:
        raise RecordListError([f"{path}: cannot be read: {exc.strerror}"]) from None
    except TooManyEntries as exc:
        raise RecordListError(
            [
                f"{path}:{exc.line}: more than the {exc.most:,} {noun}s one run answers (a bound that keeps a run "
                f"within about a minute); split the file, {exc.most:,} {noun}s at most in each"
            ]
        ) from None
    except DataFileError as exc:  # not a regular file, not UTF-8: not YAML text one reads
        where = f"{path}:{exc.line}: " if exc.line else f"{path}: cannot be read: "
        raise RecordListError([where + exc.reason]) from None
    if not isinstance(raw, list):
        raise RecordListError([f"{path}: expected a YAML list of {noun}s, found {yaml_kind(raw)}"])
    return raw


def read_records(
    path: Path, noun: str, model: type[R], problems_of: Callable[[int, dict[str, Any], R], list[str]], most: int
) -> list[R]:
    """Every record of the file (at most ``most``: the command line's budget), validated by ``model`` and then by
    ``problems_of`` (what the catalog refuses, one line per problem). If any record has a problem,
    RecordListError lists them all."""
    records: list[R] = []
    problems: list[str] = []
    for index, item in enumerate(load_list(path, noun, most)):
        if not isinstance(item, dict):
            label = record_label(path, noun, index, item)
            problems.append(f"{label}: expected a mapping of keys, found {yaml_kind(item)}")
            continue
        try:
            record = model.model_validate(dict(item))
        except ValidationError as exc:
            problems += validation_lines(path, noun, index, item, exc, model)
            continue
        found = problems_of(index, item, record)
        problems += found
        if not found:
            records.append(record)
    if problems:
        raise RecordListError(problems)
    return records
