"""YAML loading that remembers where each mapping and key came from, for error messages."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

# libyaml's parser where PyYAML was built with it: about ten times faster, same marks and messages
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineDict(dict):
    """A YAML mapping that knows the line of itself and of each of its keys (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


class _LineLoader(_SafeBase):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        mapping = LineDict(super().construct_mapping(node, deep=deep))
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {
            key_node.value: key_node.start_mark.line + 1 for key_node, _ in node.value
        }
        return mapping


def _check_duplicate_keys(loader: _SafeBase, node: yaml.MappingNode) -> None:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = key_node.value
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None,
                f"duplicate key '{key}' (first at line {seen[key]})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line + 1


class _StrictLineLoader(_LineLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        _check_duplicate_keys(self, node)
        return super().construct_mapping(node, deep=deep)


_StrictLineLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLineLoader.construct_mapping
)


def load_yaml(path: Path) -> Any:
    """Parse a YAML file into LineDicts; raises yaml.YAMLError with a position on bad syntax."""
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_StrictLineLoader)  # noqa: S506 - SafeLoader subclass


def safe_load(text: str) -> Any:
    """Plain YAML (no line tracking), parsed by libyaml where available."""
    return yaml.load(text, Loader=_SafeBase)  # noqa: S506 - a safe loader


def line_of(container: Any, key: str | int | None = None) -> int | None:
    """Line of ``key`` inside ``container`` (or of the container itself)."""
    if isinstance(container, LineDict):
        if isinstance(key, str) and key in container.key_lines:
            return container.key_lines[key]
        return container.line
    return None
