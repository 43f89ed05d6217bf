"""Numbers, money, units and dates written the way each language writes them (Babel, CLDR)."""
from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import cache

from babel import Locale
from babel.dates import format_date
from babel.lists import format_list
from babel.numbers import format_currency, format_decimal

from .strings import text

BABEL_LOCALES = {"en": "en_US", "fr": "fr_FR", "zh": "zh_Hans_CN"}


@dataclass(frozen=True)
class Formatter:
    """Formatting for one language; get one with ``formatter(lang)``."""

    lang: str
    locale: Locale

    def number(self, value: float, digits: int = 0) -> str:
        """``value`` rounded to ``digits`` decimals, grouped as the locale groups."""
        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        return format_decimal(round(value, digits), format=pattern, locale=self.locale)

    def significant(self, value: float) -> str:
        """Two significant figures for small values, whole numbers from 10 up."""
        if value >= 10:
            return self.number(value)
        return self.number(value, 1 if value >= 1 else 2)

    def money(self, amount: float, currency: str, digits: int = 0) -> str:
        """``amount`` of ``currency`` with ``digits`` decimals: $4,157 / 4 157 $US / US$4,157."""
        decimals = "." + "0" * digits if digits else ""
        pattern = self.locale.currency_formats["standard"].pattern.replace(".00", decimals)
        return format_currency(round(amount, digits), currency, format=pattern, locale=self.locale,
                               currency_digits=False)

    def unit(self, key: str, value: str) -> str:
        return text("units", key, self.lang, value=value)

    def join(self, items: list[str], style: str = "standard") -> str:
        return format_list(items, style=style, locale=self.locale)

    def date(self, value: datetime.date) -> str:
        return format_date(value, format="long", locale=self.locale)


@cache
def formatter(lang: str) -> Formatter:
    return Formatter(lang, Locale.parse(BABEL_LOCALES[lang]))
