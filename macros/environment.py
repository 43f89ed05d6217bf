"""The sandboxed Jinja environment pages are rendered with: no globals but the macros passed in."""
from __future__ import annotations

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

TEMPLATE_NAME = "<page>"
ENV = SandboxedEnvironment(
    undefined=StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
    # {#id} is Markdown's heading-id syntax (attr_list): Jinja comments use {## ... ##} instead.
    comment_start_string="{##",
    comment_end_string="##}",
)
ENV.globals.clear()  # no range, cycler, joiner, namespace, lipsum, dict: only the macros
