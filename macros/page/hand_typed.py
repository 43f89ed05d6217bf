"""Find figures typed by hand in a page's Markdown source: every digit must come from a macro, code,
or a product or model name."""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sizing.catalog import Catalog

from .front_matter import front_matter_end

READER_VISIBLE_KEYS = ("title", "description", "category")  # front matter a reader sees; the rest is bookkeeping
_FENCE = re.compile(r"^\s*(```|~~~)")
_STRIPPED = [
    re.compile(r"\{\{.*?\}\}"),            # macro calls
    re.compile(r"\{%.*?%\}"),              # template statements
    re.compile(r"\{##.*?##\}"),            # template comments
    re.compile(r"\{[#.:][^}]*\}"),         # Markdown attribute lists: {#heading-id}, {.class}
    re.compile(r"`[^`]*`"),                # inline code
    re.compile(r"\]\([^)]*\)"),            # link targets
    re.compile(r"<!--.*?-->"),             # HTML comments
    re.compile(r"^\s*\d+\.\s"),            # ordered-list markers
]


@dataclass(frozen=True)
class HandTypedFigure:
    line: int
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: '{self.text.strip()}'"


def product_names(catalog: Catalog) -> list[str]:
    """Names whose digits are part of a name, not a figure: GPUs, models, links, precisions."""
    names: set[str] = set()
    for gpu in catalog.gpus.values():
        names |= {gpu.name, gpu.short_name}
    for model in catalog.models.values():
        names |= {model.name, *([model.family] if model.family else [])}
    names |= {link.name for link in catalog.interconnects.values()}
    names |= {p.name for p in catalog.precisions.values()}
    return sorted(names, key=lambda name: (-len(name), name))


def _name_tokens(names: Iterable[str]) -> set[str]:
    """Words of names that mix letters and digits (A100, SXM4, Gen5, BF16): usable on their own."""
    tokens = set()
    for name in names:
        for word in re.split(r"[\s/(),]+", name):
            if re.search(r"[A-Za-z]", word) and re.search(r"\d", word):
                tokens.add(word)
    return tokens


def hand_typed_figures(markdown: str, names: list[str]) -> list[HandTypedFigure]:
    """Lines of ``markdown`` that hold a digit outside macros, code and product or model names."""
    tokens = sorted(_name_tokens(names), key=lambda token: (-len(token), token))
    name_pattern = re.compile("|".join(re.escape(n) for n in [*names, *tokens])) if names else None
    found: list[HandTypedFigure] = []
    lines = markdown.splitlines()
    front_matter = front_matter_end(lines)
    in_fence = False
    for number, line in enumerate(lines, start=1):
        if number <= front_matter:
            key, _, value = line.partition(":")
            rest = value if key.strip() in READER_VISIBLE_KEYS else ""
        elif _FENCE.match(line):
            in_fence = not in_fence
            continue
        elif in_fence:
            continue
        else:
            rest = line
        for pattern in _STRIPPED:
            rest = pattern.sub(" ", rest)
        if name_pattern:
            rest = name_pattern.sub(" ", rest)
        if re.search(r"\d", rest):
            found.append(HandTypedFigure(number, line))
    return found
