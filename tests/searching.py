"""Material's search box, driven as a reader drives it: one page per language, kept open for every query of the
session, as a reader asks one question after another (the index is fetched and read once per language)."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page
from sitebuild import BASE_PATH, LANGUAGES

BOX = "input.md-search__input"
# the results' count ("3 matching documents", « 3 documents correspondants », "找到 3 个符合条件的结果"): the
# worker has answered; the empty query's placeholder holds no digit
ANSWERED = "document.querySelector('.md-search-result__meta').textContent.match(/\\d/)"


class SearchBox:
    """The search box of each language's home page, in one browser context."""

    def __init__(self, context: BrowserContext, server: str) -> None:
        self.context, self.server = context, server
        self.pages: dict[str, Page] = {}

    def page(self, lang: str) -> Page:
        """The home page of ``lang``, its search box open (its index fetched when the box took the focus)."""
        if lang not in self.pages:
            page = self.context.new_page()
            page.goto(f"{self.server}{LANGUAGES[lang]}")
            page.click(BOX)
            self.pages[lang] = page
        self.pages[lang].bring_to_front()  # FOREGROUND (tests/conftest.py)
        return self.pages[lang]

    def results(self, lang: str, query: str) -> list[str]:
        """The paths of the results ``query`` gives, in their order, from the site's root ("/fr/guides/", wherever
        the site is served). The box is emptied first, so that the count waited for is this query's."""
        page = self.page(lang)
        for text, answered in (("", f"!{ANSWERED}"), (query, ANSWERED)):
            page.fill(BOX, text)
            page.press(BOX, "End")  # Material searches on key events
            page.wait_for_function(answered, timeout=10000)
        paths = page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => new URL(a.href).pathname)")
        return ["/" + path.removeprefix(BASE_PATH) for path in paths]
