"""Macros for translators: the translation status of every page and the glossary."""

from __future__ import annotations

from markupsafe import Markup

from macros.base.languages import TRANSLATIONS
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.html import code, table
from macros.output.strings import text
from macros.site.glossary import glossary
from macros.site.translations import translation_status


@macro
def translation_status_table(ctx: MacroContext) -> str:
    """Every page and the state of its French and Chinese translations."""
    rows: dict[str, dict[str, str]] = {}
    for status in translation_status(ctx.docs_dir):
        rows.setdefault(status.page, {})[status.lang] = text("translation", status.state.value, ctx.lang)
    headers = [
        text("translation", "page", ctx.lang),
        *[text("translation", f"language_{lang}", ctx.lang) for lang in TRANSLATIONS],
    ]
    body = [[code(page), *[states.get(lang, "") for lang in TRANSLATIONS]] for page, states in rows.items()]
    return table(text("translation", "caption", ctx.lang), headers, body)


@macro
def glossary_table(ctx: MacroContext) -> str:
    """The glossary: how each term is written in French and Chinese, and the forms to avoid."""
    headers = [text("translation", "term", ctx.lang)]
    for lang in TRANSLATIONS:
        name = text("translation", f"language_{lang}", ctx.lang)
        headers += [
            f"{name} · {text('translation', 'use', ctx.lang)}",
            f"{name} · {text('translation', 'avoid', ctx.lang)}",
        ]
    body = []
    for forms in glossary().values():
        row: list[str | Markup] = [forms["en"]]
        for lang in TRANSLATIONS:
            # the forms to avoid, listed as their own language lists words: "a, b" in French, 「甲、乙」 in Chinese
            row += [forms[lang]["use"], text("translation", "list_separator", lang).join(forms[lang].get("avoid", []))]
        body.append(row)
    return table(text("translation", "glossary_caption", ctx.lang), headers, body)
