"""YAML loading that remembers where each mapping and key came from, for error messages."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from sizing.catalog.regular_files import MAX_FILE_BYTES, read_regular_file

# libyaml's parser where PyYAML was built with it: about ten times faster, same marks and messages
if TYPE_CHECKING:
    _SafeBase = yaml.SafeLoader
else:
    _SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineDict(dict):
    """A YAML mapping that knows the line of itself and of each of its keys (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


MAX_EXPANDED_NODES = 1_000_000  # aliases (*name) repeat nodes: a bound on what they expand to, not on the file
MAX_NESTING = 50  # data files nest a handful of levels
MAX_DIGITS = 30  # a whole number longer than any figure (Python refuses to read one of 4,300 digits)
MAX_ALIASES = 1_000  # data files use none; a bound checked on the text, before any parser runs


class DataFileError(ValueError):
    """A data file that cannot be read as YAML text; the message says why and what to do, ``line`` where."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line, self.reason = line, message


class TooManyEntries(DataFileError):
    """A list longer than its reader's budget (``load_yaml``'s ``most_entries``), counted before any entry is built."""

    def __init__(self, most: int, line: int) -> None:
        super().__init__(f"the list holds more than {most:,} entries", line)
        self.most = most


class _StrictLineLoader(_SafeBase):
    """Mappings become LineDicts, built in one pass; a key given twice is an error (YAML itself would keep
    the last one silently); aliases and nesting are bounded; an impossible date is reported at its line."""

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"'{node.value[:40]}' is not a date ({exc}); write a real date as YYYY-MM-DD",
                node.start_mark,
            ) from None

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = sum(character.isdigit() for character in node.value)
        if digits > MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"a whole number of {digits:,} digits; no figure needs more than {MAX_DIGITS}",
                node.start_mark,
            )
        return super().construct_yaml_int(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        self.flatten_mapping(node)  # merge keys (<<), as SafeConstructor does
        mapping = LineDict()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value", key_node.start_mark)
            line = key_node.start_mark.line + 1
            if key_node.value in mapping.key_lines:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key '{key_node.value}' (first at line {mapping.key_lines[key_node.value]})",
                    key_node.start_mark,
                )
            mapping.key_lines[key_node.value] = line
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


_StrictLineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _StrictLineLoader.construct_mapping)
_StrictLineLoader.add_constructor("tag:yaml.org,2002:timestamp", _StrictLineLoader.construct_yaml_timestamp)
_StrictLineLoader.add_constructor("tag:yaml.org,2002:int", _StrictLineLoader.construct_yaml_int)


def read_text_file(path: Path) -> str:
    """A text file of the project, or a command line's input, read as UTF-8 with or without a byte-order mark:
    a regular file with one name of at most MAX_FILE_BYTES (``read_regular_file``: a named pipe, a device or a
    hard link is refused before it is read). DataFileError saying what is wrong, with the line of the first
    byte that is not UTF-8; OSError when it cannot be opened."""
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except ValueError as exc:  # ForeignFile, or too large
        raise DataFileError(str(exc)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line = data.count(b"\n", 0, start) + 1
        raise DataFileError(f"byte 0x{data[start]:02x} is not UTF-8; save the file as UTF-8", line) from None


def load_yaml(path: Path, most_entries: int | None = None) -> Any:
    """Parse a YAML file into LineDicts; yaml.YAMLError with a position on bad syntax, DataFileError when the
    file cannot be read as YAML text at all (``read_text_file``), TooManyEntries when it is a list of more than
    ``most_entries``."""
    if path.is_dir():
        raise DataFileError("is a folder, not a file; a data file is a YAML file")
    return load_yaml_text(read_text_file(path), most_entries)


def load_yaml_text(text: str, most_entries: int | None = None) -> Any:
    """Parse YAML text into LineDicts, its bounds checked on the text before any parser runs
    (``check_yaml_bounds``), then on the parsed nodes before they become values: the entries of a list at the top
    (at most ``most_entries``, when given), its aliases' expansion and its nesting."""
    check_yaml_bounds(text)
    if most_entries is not None and (line := _entry_beyond(text, most_entries)) is not None:
        raise TooManyEntries(most_entries, line)
    loader = _StrictLineLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        size, depth = expanded_size(node)
        if size > MAX_EXPANDED_NODES:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"its aliases (*name) expand to more than {MAX_EXPANDED_NODES:,} values; write the values out",
                node.start_mark,
            )
        if depth > MAX_NESTING:
            raise yaml.constructor.ConstructorError(
                None, None, f"values nested more than {MAX_NESTING} levels deep; fix the brackets", node.start_mark
            )
        return loader.construct_document(node)
    except RecursionError:
        raise DataFileError("nested too deeply to read (unclosed brackets?); fix the nesting") from None
    finally:
        loader.dispose()


_QUOTED = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'""")
_COMMENT = re.compile(r"(?:^|\s)#.*")
_BLOCK_ENTRIES = re.compile(r"(?:[-?](?:\s+|$))+")
_BRACKET = re.compile(r"[\[\]{}]")
_ALIAS = re.compile(r"(?:^|[\s,\[{:])\*[^\s,\[\]{}]")


def _entry_beyond(text: str, most: int) -> int | None:
    """The line of the entry that follows the first ``most`` of a list at the top of ``text``, found from the
    parser's events and no further (composing a 4 MB list of a million entries first took 7 s and 330 MB); None
    when the text is not such a list, or holds no more (a text the parser refuses: the parse itself says why)."""
    loader = _SafeBase(text)
    depth, entries = 0, 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.NodeEvent) and depth == 1:
                entries += 1
                if entries > most:
                    return event.start_mark.line + 1 if event.start_mark else 1
            if isinstance(event, yaml.CollectionStartEvent):
                if depth == 0 and not isinstance(event, yaml.SequenceStartEvent):
                    return None
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def check_yaml_bounds(text: str) -> None:
    """Refuse YAML text that nests deeper than MAX_NESTING or holds more than MAX_ALIASES aliases, from the
    text alone: libyaml takes quadratic time on deep brackets (40,000 take a minute) and its composer
    recurses in C (a segmentation fault), so no parser may see such a text. The depth counted is an upper
    bound of the document's (indentation levels, ``- `` entries, open brackets; quoted text and comments
    left out). DataFileError naming the line."""
    indents: list[int] = []
    flow, aliases = 0, 0
    for number, line in enumerate(text.splitlines(), start=1):
        body = _QUOTED.sub("''", line) if "'" in line or '"' in line else line
        body = _COMMENT.sub("", body) if "#" in body else body
        stripped = body.lstrip(" ")
        if not stripped.strip():
            continue
        block = len(indents)
        if flow == 0:
            indent = len(body) - len(stripped)
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
            entries = _BLOCK_ENTRIES.match(stripped)
            block = len(indents) + (len(entries.group(0).split()) if entries else 0)
        deepest = flow
        for bracket in _BRACKET.findall(body):
            flow = flow + 1 if bracket in "[{" else max(0, flow - 1)
            deepest = max(deepest, flow)
        if block + deepest > MAX_NESTING:
            raise DataFileError(
                f"values nested more than {MAX_NESTING} levels deep; fix the brackets or the indentation", number
            )
        aliases += len(_ALIAS.findall(body)) if "*" in body else 0
        if aliases > MAX_ALIASES:
            raise DataFileError(f"more than {MAX_ALIASES:,} aliases (*name); write the values out", number)


def safe_load(text: str) -> Any:
    """YAML text as values, with the bounds of ``load_yaml_text`` (no parser sees an unbounded text)."""
    return load_yaml_text(text)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def expanded_size(root: yaml.Node) -> tuple[int, int]:
    """How many nodes the document holds once every alias is expanded, and how deep they nest, found
    without expanding them (a node reached twice counts twice; its own size is computed once). A node that
    holds itself through an alias (``- &a [*a]``, ``x: &a {y: *a}``, ``<<: *a`` inside ``&a``) would expand
    forever: a ConstructorError at the line of its anchor. A scalar is one node one level deep, counted where
    it stands: only collections are walked (most nodes are scalars)."""
    if isinstance(root, yaml.ScalarNode):
        return 1, 1
    sizes: dict[int, tuple[int, int]] = {}
    open_nodes = {id(root)}  # the collections on the path from the root to the one being walked
    path: list[tuple[yaml.Node, list[yaml.Node], Iterator[yaml.Node]]] = []
    children = _children(root)
    path.append((root, children, iter(children)))
    while path:
        node, children, pending = path[-1]
        for child in pending:
            if isinstance(child, yaml.ScalarNode) or id(child) in sizes:
                continue
            if id(child) in open_nodes:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    "an alias (*name) inside the value its anchor (&name) names: it would repeat forever; "
                    "write the values out",
                    child.start_mark,
                )
            open_nodes.add(id(child))
            grandchildren = _children(child)
            path.append((child, grandchildren, iter(grandchildren)))
            break
        else:
            path.pop()
            open_nodes.discard(id(node))
            size, depth = 1, 1
            for child in children:
                if isinstance(child, yaml.ScalarNode):
                    size, depth = size + 1, max(depth, 2)
                else:
                    child_size, child_depth = sizes[id(child)]
                    size, depth = size + child_size, max(depth, 1 + child_depth)
            sizes[id(node)] = size, depth
    return sizes[id(root)]


def line_of(container: Any, key: str | int | None = None) -> int | None:
    """Line of ``key`` inside ``container`` (or of the container itself)."""
    if isinstance(container, LineDict):
        if isinstance(key, str) and key in container.key_lines:
            return container.key_lines[key]
        return container.line
    return None


def yaml_kind(value: Any) -> str:
    """What a YAML value is, in the reader's words (not the parser's class)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true or false"
    return "nothing" if value is None else "a number"
