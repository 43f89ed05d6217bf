"""Find figures typed by hand in a page's Markdown source: every digit must come from a macro, code,
or a product or model name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from macros.base.front_matter import front_matter_end
from sizing.catalog.loader import Catalog

READER_VISIBLE_KEYS = ("title", "description", "category")  # front matter a reader sees; the rest is bookkeeping
_FENCE = re.compile(r"^\s*(```|~~~)")
_STRIPPED = [
    re.compile(r"\{\{.*?\}\}"),  # macro calls
    re.compile(r"\{%.*?%\}"),  # template statements
    re.compile(r"\{##.*?##\}"),  # template comments
    re.compile(r"\{\s*[#.][\w-]+(?:\s+[#.][\w-]+)*\s*\}"),  # attribute lists of ids and classes only: {#step-2}
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"<!--.*?-->"),  # HTML comments
    re.compile(r"^\s*\d+\.\s"),  # ordered-list markers
]


_ATTRIBUTE_NAMES = re.compile(r"(?<=[{\s:])[#.][\w-]+")  # ids and classes inside any other attribute list
# Chinese numerals that count: a digit with a magnitude (四十一, 两千, 一百, 三万) or ten and a digit (十二);
# not a magnitude alone (百万 "a million", 千万 "by all means", 万一 "in case"), 几十 "dozens" or 十进制 "decimal"
_CHINESE_NUMERAL = re.compile(
    r"(?<![几数〇零一二三四五六七八九十百千万亿两])"
    r"(?:[〇零一二三四五六七八九两]+[十百千万亿]|十[〇零一二三四五六七八九])"
    r"[〇零一二三四五六七八九十百千万亿两]*(?!进制)"
)
_NUMBER_WORDS = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen"
    r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion"
    r"|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|treize|quatorze|quinze|seize|vingt"
    r"|vingts|trente|quarante|cinquante|soixante|cent|cents|mille|millions?|milliards?"
)
_UNITS = (
    r"GB|GiB|TB|TiB|MB|Go|Gio|To|GB/s|Go/s|TB/s|TFLOPS|tok/s|tokens? per second|jetons par seconde|%|"
    r"percent|pour cent|dollars?|USD|\$|euros?|€|ms|µs|milliseconds?|millisecondes?|seconds?|secondes?"
)
# A number written in words beside a unit or a currency: "eighty GB", "deux mille dollars", "$ two"
_SPELLED_FIGURE = re.compile(
    rf"\b(?:{_NUMBER_WORDS})(?:[\s-]+(?:{_NUMBER_WORDS}|and|et))*\s*(?:{_UNITS})(?!\w)"
    rf"|(?:\$|€|USD)\s*(?:{_NUMBER_WORDS})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class HandTypedFigure:
    line: int
    text: str
    column: int = 0  # where the figure starts in ``text`` (0-based), to quote the line around it

    def __str__(self) -> str:
        return f"line {self.line}: '{self.text.strip()}'"


def product_names(catalog: Catalog) -> list[str]:
    """Names whose digits are part of a name, not a figure: GPUs, models, links, precisions, earlier engine
    releases (vLLM V0)."""
    names: set[str] = set()
    for gpu in catalog.gpus.values():
        names |= {gpu.name, gpu.short_name}
    for model in catalog.models.values():
        names |= {model.name, *([model.family] if model.family else [])}
    names |= {link.name for link in catalog.interconnects.values()}
    names |= {p.name for p in catalog.precisions.values()}
    names |= {release.name for release in catalog.server_engine.earlier_releases}
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
    """Lines of ``markdown`` that hold a figure outside macros, code and product or model names: a digit, a
    Chinese numeral with a magnitude (四十一, 两千), or a number in words beside a unit or a currency."""
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
        rest = re.sub(r"\{:?[^{}]*\}", lambda found: _ATTRIBUTE_NAMES.sub(" ", found.group(0)), rest)
        if name_pattern:
            rest = name_pattern.sub(" ", rest)
        hit = re.search(r"\d", rest) or _CHINESE_NUMERAL.search(rest) or _SPELLED_FIGURE.search(rest)
        if hit:
            found.append(HandTypedFigure(number, line, max(0, line.find(hit.group(0)))))
    return found
