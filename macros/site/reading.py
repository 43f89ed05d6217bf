"""Reading time of a page from its own text: words per minute in English and French, characters per
minute in Chinese (rates in ``reading.yml``, with their studies)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import cache
from html import unescape
from pathlib import Path

from macros.base.front_matter import front_matter_end
from macros.base.languages import LANGUAGES
from macros.output.svg import DRAWING
from sizing.catalog.yaml_lines import load_yaml

READING_FILE = Path(__file__).resolve().parent / "reading.yml"

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


def plain_text(markdown: str) -> str:
    """What a reader reads: no front matter, code blocks, HTML tags, link targets or Markdown marks, and of a
    chart only its title and text alternative (its tick labels are not words to read)."""
    lines = markdown.split("\n")
    text = "\n".join(lines[front_matter_end(lines) :])
    text = DRAWING.sub(" ", text)
    text = re.sub(r"^\s*(```|~~~).*?^\s*\1\s*$", " ", text, flags=re.S | re.M)
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\]\([^)]*\)|\{[#.][^}]*\}|[#*_`>|!\[\]]", " ", text)
    return unescape(text)


def reading_units(text: str, lang: str) -> int:
    """Words for English and French; Chinese characters plus words in other scripts for Chinese."""
    if lang == "zh":
        return len(_CJK.findall(text)) + len(_WORD.findall(_CJK.sub(" ", text)))
    return len(_WORD.findall(text))


READING_RATES = (50, 2_000)  # words or characters a reader reads in a minute: what lies outside is a typo


def _plausible_rate(rate: object) -> bool:
    return isinstance(rate, int) and not isinstance(rate, bool) and READING_RATES[0] <= rate <= READING_RATES[1]


@cache
def reading_rates() -> dict[str, int]:
    """Reading units (``reading_units``) per minute in each language, from ``reading.yml``."""
    rates = load_yaml(READING_FILE)
    missing = [lang for lang in LANGUAGES if not _plausible_rate(rates.get(lang, {}).get("per_minute"))]
    if missing:
        raise ValueError(
            f"{READING_FILE}: give a whole 'per_minute' from {READING_RATES[0]} to {READING_RATES[1]} for "
            + ", ".join(missing)
        )
    return {lang: rates[lang]["per_minute"] for lang in LANGUAGES}


def reading_minutes(text: str, lang: str, rates: Mapping[str, int]) -> int:
    return max(1, math.ceil(reading_units(text, lang) / rates[lang]))
