"""The glossary (``glossary.yml``): how each term is written in each language, and the forms to avoid."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from sizing.catalog.yaml_lines import load_yaml

GLOSSARY_FILE = Path(__file__).resolve().parent / "glossary.yml"


@cache
def glossary() -> dict[str, dict[str, Any]]:
    return load_yaml(GLOSSARY_FILE)
