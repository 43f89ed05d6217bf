"""Material's search box, driven as a reader drives it."""

from __future__ import annotations

from sitebuild import BASE_PATH


def search(page, server: str, prefix: str, query: str) -> list[str]:
    """The paths of the results a query gives on the home page of ``prefix`` (a language's), in their order, from
    the site's root ("/fr/guides/", wherever the site is served)."""
    page.goto(f"{server}{prefix}")
    page.wait_for_load_state("networkidle")
    page.click("input.md-search__input")
    page.fill("input.md-search__input", query)
    page.press("input.md-search__input", "End")  # Material searches on key events
    page.wait_for_function("document.querySelector('.md-search-result__meta').textContent.match(/\\d/)", timeout=10000)
    paths = page.eval_on_selector_all(".md-search-result__item > a", "as => as.map(a => new URL(a.href).pathname)")
    return ["/" + path.removeprefix(BASE_PATH) for path in paths]
