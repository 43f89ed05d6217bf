"""MkDocs glue for what a build prints: only what a writer should read.

jieba's dictionary messages and mkdocs-static-i18n's INFO lines are silenced unless the build is verbose
(``mkdocs build -v``, ``mkdocs serve -v``); a build without a site address (SITE_URL) says once what that means."""

from __future__ import annotations

import logging
import sys

from mkdocs.config.defaults import MkDocsConfig

CHATTY_LOGGERS = ("jieba", "mkdocs.plugins.mkdocs_static_i18n")
NO_SITE_URL = (
    "No SITE_URL: canonical links are left out, language links, hreflang and the sitemap are relative to the site "
    "root, and the 404 page assumes the site is served at the host's root. Set SITE_URL to the published address "
    "(e.g. SITE_URL=https://owner.github.io/repo/ make build) for a site to publish."
)
_said: set[str] = set()


def verbose() -> bool:
    """Whether MkDocs was asked for its debug output (``-v``)."""
    return logging.getLogger("mkdocs").getEffectiveLevel() <= logging.DEBUG


def quiet_chatty_loggers() -> None:
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        print(message, file=sys.stderr)


def on_startup(command: str, dirty: bool) -> None:
    if not verbose():
        quiet_chatty_loggers()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if not config.site_url:
        say_once(NO_SITE_URL)
    return config
