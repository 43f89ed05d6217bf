"""Per-language strings of the macros, from strings.yml beside this module."""
from __future__ import annotations

from functools import cache
from pathlib import Path

from sizing.yaml_lines import safe_load

STRINGS_FILE = Path(__file__).resolve().parent / "strings.yml"
LANGUAGES = ("en", "fr", "zh")


@cache
def strings() -> dict[str, dict[str, dict[str, str]]]:
    """All strings, checked complete: every key has every language."""
    table = safe_load(STRINGS_FILE.read_text(encoding="utf-8"))
    missing = [f"{group}.{key}: {lang}" for group, keys in table.items() for key, texts in keys.items()
               for lang in LANGUAGES if texts.get(lang) is None]
    if missing:
        raise ValueError(f"{STRINGS_FILE}: strings missing a language: " + ", ".join(missing))
    return table


def text(group: str, key: str, lang: str, **values: object) -> str:
    return strings()[group][key][lang].format(**values)
