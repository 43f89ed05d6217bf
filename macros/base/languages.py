"""The site's languages: English is the source every translation comes from."""

from __future__ import annotations

SOURCE_LANGUAGE = "en"
TRANSLATIONS = ("fr", "zh")
LANGUAGES = (SOURCE_LANGUAGE, *TRANSLATIONS)
