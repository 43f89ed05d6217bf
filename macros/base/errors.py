"""Errors a writer or translator can act on: the page, the line, what is wrong and the fix."""

from __future__ import annotations


class MacroError(Exception):
    """Raised by a macro on bad input (unknown id, wrong argument, false claim). The renderer adds
    the page and the line."""


class PageError(Exception):
    """A page cannot be rendered. ``str()`` reads ``page:line: message``."""

    def __init__(self, page: str, line: int | None, message: str):
        self.page, self.line, self.message = page, line, message
        super().__init__(f"{page}:{line}: {message}" if line else f"{page}: {message}")
