"""Numbers, money, units and dates written the way each language writes them (Babel, CLDR). A quantity's
unit is in the method's name, and so is the unit of the value it takes (``gib_from_bytes``)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from babel import Locale
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal

from macros.output.strings import text
from sizing.catalog.units import GB, GIB
from sizing.views.api import speed_for_display

BABEL_LOCALES = {"en": "en_US", "fr": "fr_FR", "zh": "zh_Hans_CN"}
COUNT_WORD_UNIT = {"en": 1e9, "fr": 1e9, "zh": 1e8}  # billion, milliard, 亿
VOWELS = frozenset("AEIOUY")  # initials a French article elides before: « l’A40 »
ListStyle = Literal["standard", "standard-short", "or", "or-short", "unit", "unit-short", "unit-narrow"]  # Babel's


def decisive_digits(pairs: Iterable[tuple[float, float]], most: int = 3) -> int:
    """The fewest decimals, from one up to ``most``, at which every pair ``(a, b)`` rounded compares as it does:
    19.74 and 19.66 need two (both are 19.7 at one)."""

    def order(x: float, y: float) -> int:
        return (x > y) - (x < y)

    compared = list(pairs)
    return next(
        (d for d in range(1, most) if all(order(round(a, d), round(b, d)) == order(a, b) for a, b in compared)), most
    )


@dataclass(frozen=True)
class Formatter:
    """Formatting for one language; get one with ``formatter(lang)``. Results are memoized: Babel parses
    its patterns on every call, and the same figures recur on every page."""

    lang: str
    locale: Locale

    def number(self, value: float, digits: int = 0) -> str:
        """``value`` rounded to ``digits`` decimals, grouped as the locale groups."""
        return _number(self.locale, round(value, digits), digits)

    def code_number(self, value: float, digits: int = 0) -> str:
        """A number inside code (a flag's value, a setting as typed): the notation the program reads, in every
        language, a dot before the decimals and no grouping ("--gpu-memory-utilization 0.65", never « 0,65 »)."""
        return f"{round(value, digits):.{digits}f}"

    def significant(self, value: float) -> str:
        """Two significant figures for small values, whole numbers from 10 up."""
        if value >= 10:
            return self.number(value)
        return self.number(value, 1 if value >= 1 else 2)

    def money(self, amount: float, currency: str, digits: int = 0) -> str:
        """``amount`` of ``currency`` with ``digits`` decimals: $4,157 / 4 157 $US / US$4,157."""
        return _money(self.locale, round(amount, digits), currency, digits)

    def unit(self, key: str, value: str) -> str:
        return text("units", key, self.lang, value=value)

    def gb(self, value_gb: float) -> str:
        """Memory in GB, whole: a card's or a node's memory as it is sold (everything computed about fitting a
        model is in GiB: ``gib``)."""
        return self.unit("gb", self.number(value_gb))

    def gb_from_bytes(self, value_bytes: float) -> str:
        """Bytes in GB, one decimal below 10 GB: data moved over a link, beside bandwidths in GB/s. What a model
        needs in memory is in GiB (``gib_from_bytes``): the site's unit rule, guides/index.md#units."""
        value_gb = value_bytes / GB
        return self.unit("gb", self.number(value_gb) if value_gb >= 10 else self.number(value_gb, 1))

    def gib(self, value_gib: float, digits: int = 1) -> str:
        """Memory in GiB, one decimal unless told: what a card needs, and what it has for it."""
        return self.unit("gib", self.number(value_gib, digits))

    def gib_from_bytes(self, value_bytes: float) -> str:
        return self.gib(value_bytes / GIB)

    def gbps(self, value_gbps: float) -> str:
        """A bandwidth in GB/s, with the decimals its value has (up to two)."""
        digits = 0 if float(value_gbps).is_integer() else (1 if float(value_gbps * 10).is_integer() else 2)
        return self.unit("gb_per_s", self.number(value_gbps, digits))

    def times(self, ratio: float) -> str:
        """A ratio: "17×", one decimal below 3 ("2.5×")."""
        return self.unit("times", self.number(ratio) if ratio >= 3 else self.number(ratio, 1))

    def _ratio_number(self, ratio: float) -> str:
        return self.number(ratio) if ratio >= 3 else self.number(ratio, 1)

    def times_more(self, ratio: float) -> str:
        """A ratio of more in prose, worded per language: "2.0×", « 2,0 fois », "2.0 倍" (the page says of what)."""
        return self.unit("times_more", self._ratio_number(ratio))

    def times_less(self, ratio: float) -> str:
        """A ratio of less in prose: "17×" (less), « 17 fois » (moins), "1/17" in Chinese (仅为其 1/17)."""
        return self.unit("times_less", self._ratio_number(ratio))

    def speed_number(self, tokens_per_s: float) -> str:
        """A speed's number as every page and the API show it: whole from 10 up, one decimal below ("5.7")."""
        shown = speed_for_display(tokens_per_s)
        return self.number(shown) if shown >= 10 else self.number(shown, 1)

    def tokens_per_s(self, value: float) -> str:
        return self.unit("tokens_per_s", self.speed_number(value))

    def speed(self, typical: float, floor: float, in_a_cell: bool = False) -> str:
        """ "about 37 tok/s, at least 25" in a sentence; "~37 tok/s (at least 25)" in a table cell."""
        typical_text, floor_text = self.speed_number(typical), self.speed_number(floor)
        return text("units", "speed_cell" if in_a_cell else "speed", self.lang, typical=typical_text, floor=floor_text)

    def per_million_tokens(self, usd: float) -> str:
        return self.unit("per_million_tokens", self.money(usd, "USD", digits=2))

    def context(self, tokens: int) -> str:
        """A context length as models advertise it: "128K" for 131,072 tokens (K = 1,024), the count otherwise."""
        return f"{self.number(tokens // 1024)}K" if tokens % 1024 == 0 and tokens >= 1024 else self.number(tokens)

    def streams(self, count: int) -> str:
        """ "1 stream", or "12 streams"."""
        return self.unit("one_stream", "") if count == 1 else self.unit("streams", self.number(count))

    def cards(self, count: int) -> str:
        """ "one card", or "4 cards"."""
        return self.unit("one_card", "") if count == 1 else self.unit("cards", self.number(count))

    def billions_in_words(self, count: int) -> str:
        """A count of parameters in words, one decimal below 100 of the unit: "671 billion", « 37,6 milliards »,
        "6710 亿" (Chinese counts in 亿, 10^8, and does not group the digits of such a count)."""
        per_unit = COUNT_WORD_UNIT[self.lang]
        value = count / per_unit
        digits = 0 if value >= 100 else 1
        shown = _number(self.locale, round(value, digits), digits, grouped=self.lang != "zh")
        key = "billions_words_below_two" if value < 2 else "billions_words"
        return self.unit(key, shown)

    def the_card(self, name: str) -> str:
        """A card's name after the definite article: "the A40", « l’A40 », « la L4 », "A40"."""
        key = "the_card_vowel" if name[:1].upper() in VOWELS else "the_card"
        return text("units", key, self.lang, name=name)

    def join(self, items: list[str], style: ListStyle = "standard") -> str:
        return format_list(items, style=style, locale=self.locale)

    def date(self, value: datetime.date) -> str:
        """A long date; French writes the first of a month as an ordinal: « 1er novembre 2026 »."""
        written = format_date(value, format="long", locale=self.locale)
        return "1er" + written[1:] if self.lang == "fr" and value.day == 1 and written.startswith("1 ") else written


@lru_cache(maxsize=65536)
def _number(locale: Locale, value: float, digits: int, grouped: bool = True) -> str:
    pattern = ("#,##0" if grouped else "0") + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=locale)


@lru_cache(maxsize=16384)
def _money(locale: Locale, amount: float, currency: str, digits: int) -> str:
    decimals = "." + "0" * digits if digits else ""
    pattern = locale.currency_formats["standard"].pattern.replace(".00", decimals)
    return format_currency(amount, currency, format=pattern, locale=locale, currency_digits=False)


@cache
def formatter(lang: str) -> Formatter:
    return Formatter(lang, Locale.parse(BABEL_LOCALES[lang]))
