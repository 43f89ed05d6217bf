"""Reading time of a page from its own text: words per minute in English and French, characters per
minute in Chinese (rates from assumptions.yml, with their studies)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from html import unescape
from typing import TYPE_CHECKING

from macros.output.svg import DRAWING

if TYPE_CHECKING:
    from sizing.catalog.loader import Catalog

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


def plain_text(markdown: str) -> str:
    """What a reader reads: no front matter, code blocks, HTML tags, link targets or Markdown marks, and of a
    chart only its title and text alternative (its tick labels are not words to read)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)
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


def reading_rates(catalog: Catalog) -> dict[str, int]:
    """Reading units (``reading_units``) per minute in each language."""
    a = catalog.assumptions
    return {
        "en": a.reading_words_per_minute_en.value,
        "fr": a.reading_words_per_minute_fr.value,
        "zh": a.reading_characters_per_minute_zh.value,
    }


def reading_minutes(text: str, lang: str, rates: Mapping[str, int]) -> int:
    return max(1, math.ceil(reading_units(text, lang) / rates[lang]))
