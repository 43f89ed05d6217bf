"""Per-language strings of the macros, from strings.yml beside this module."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from macros.base.languages import LANGUAGES
from macros.output.typography import held_name, typeset
from sizing.catalog.yaml_lines import load_yaml

STRINGS_FILE = Path(__file__).resolve().parent / "strings.yml"


class StringsError(ValueError):
    """strings.yml cannot be used; the message names the file, the line and the fix."""


@cache
def strings() -> dict[str, dict[str, dict[str, str]]]:
    """All strings, checked complete: every key has every language, and no key is given twice."""
    try:
        table = load_yaml(STRINGS_FILE)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{STRINGS_FILE}:{mark.line + 1}" if mark else str(STRINGS_FILE)
        raise StringsError(
            f"{where}: {getattr(exc, 'problem', None) or exc}; fix the YAML there (a key given "
            "twice, or a value holding ': ' without quotes)"
        ) from None
    missing = [
        f"{group}.{key}: {lang}"
        for group, keys in table.items()
        for key, texts in keys.items()
        for lang in LANGUAGES
        if texts.get(lang) is None
    ]
    if missing:
        raise StringsError(f"{STRINGS_FILE}: strings missing a language: " + ", ".join(missing))
    # each language's typography, once, so a string reads the same in a page and in the configurator's script
    return {
        group: {key: {lang: typeset(value, lang) for lang, value in texts.items()} for key, texts in keys.items()}
        for group, keys in table.items()
    }


def text(group: str, key: str, lang: str, **values: object) -> str:
    """The string ``key`` of ``group`` in ``lang`` with ``values`` put in, the model's name (``model``) as the
    language writes it (typography.held_name: on one line in Chinese)."""
    model = values.get("model")
    if type(model) is str:  # a Markup value is left as written
        values = {**values, "model": held_name(model, lang)}
    return strings()[group][key][lang].format(**values)
