"""Numbers, money, units and dates written the way each language writes them (Babel, CLDR)."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import cache, lru_cache

from babel import Locale
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal

from .strings import text

BABEL_LOCALES = {"en": "en_US", "fr": "fr_FR", "zh": "zh_Hans_CN"}


@dataclass(frozen=True)
class Formatter:
    """Formatting for one language; get one with ``formatter(lang)``. Results are memoized: Babel parses
    its patterns on every call, and the same figures recur on every page."""

    lang: str
    locale: Locale

    def number(self, value: float, digits: int = 0) -> str:
        """``value`` rounded to ``digits`` decimals, grouped as the locale groups."""
        return _number(self.locale, round(value, digits), digits)

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

    def join(self, items: list[str], style: str = "standard") -> str:
        return format_list(items, style=style, locale=self.locale)

    def date(self, value: datetime.date) -> str:
        return format_date(value, format="long", locale=self.locale)


@lru_cache(maxsize=65536)
def _number(locale: Locale, value: float, digits: int) -> str:
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=locale)


@lru_cache(maxsize=16384)
def _money(locale: Locale, amount: float, currency: str, digits: int) -> str:
    decimals = "." + "0" * digits if digits else ""
    pattern = locale.currency_formats["standard"].pattern.replace(".00", decimals)
    return format_currency(amount, currency, format=pattern, locale=locale, currency_digits=False)


@cache
def formatter(lang: str) -> Formatter:
    return Formatter(lang, Locale.parse(BABEL_LOCALES[lang]))
