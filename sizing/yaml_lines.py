"""YAML loading that remembers where each mapping and key came from, for error messages."""
from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser where PyYAML was built with it: about ten times faster, same marks and messages
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineDict(dict):
    """A YAML mapping that knows the line of itself and of each of its keys (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


class _StrictLineLoader(_SafeBase):
    """Mappings become LineDicts, built in one pass; a key given twice is an error (YAML itself would keep
    the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        self.flatten_mapping(node)  # merge keys (<<), as SafeConstructor does
        mapping = LineDict()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value",
                                                        key_node.start_mark)
            line = key_node.start_mark.line + 1
            if key_node.value in mapping.key_lines:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key_node.value}' (first at line {mapping.key_lines[key_node.value]})",
                    key_node.start_mark)
            mapping.key_lines[key_node.value] = line
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


_StrictLineLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLineLoader.construct_mapping
)


def load_yaml(path: Path) -> Any:
    """Parse a YAML file into LineDicts; raises yaml.YAMLError with a position on bad syntax."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLineLoader)  # noqa: S506 - SafeLoader subclass


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
