"""Macros for translators: the translation status of every page and the glossary."""
from __future__ import annotations

from markupsafe import Markup

from .library import Macros, macro
from .page_checks import glossary
from .strings import text
from .tables import code, table
from .translations import TRANSLATIONS, translation_status


@macro
def translation_status_table(self: Macros) -> str:
    """Every page and the state of its French and Chinese translations."""
    rows: dict[str, dict[str, str]] = {}
    for status in translation_status():
        rows.setdefault(status.page, {})[status.lang] = text("translation", status.state.value, self.lang)
    headers = [text("translation", "page", self.lang),
               *[text("translation", f"language_{lang}", self.lang) for lang in TRANSLATIONS]]
    body = [[code(page), *[states.get(lang, "") for lang in TRANSLATIONS]] for page, states in rows.items()]
    return table(text("translation", "caption", self.lang), headers, body)


@macro
def glossary_table(self: Macros) -> str:
    """The glossary: how each term is written in French and Chinese, and the forms to avoid."""
    headers = [text("translation", "term", self.lang)]
    for lang in TRANSLATIONS:
        name = text("translation", f"language_{lang}", self.lang)
        headers += [f"{name} · {text('translation', 'use', self.lang)}",
                    f"{name} · {text('translation', 'avoid', self.lang)}"]
    body = []
    for term, forms in glossary().items():
        row: list[str | Markup] = [forms["en"]]
        for lang in TRANSLATIONS:
            row += [forms[lang]["use"], ", ".join(forms[lang].get("avoid", []))]
        body.append(row)
    return table(text("translation", "glossary_caption", self.lang), headers, body)
