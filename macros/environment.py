"""The sandboxed Jinja environment a page's macro calls are compiled in: no globals but the macros
passed in, attribute access checked."""
from __future__ import annotations

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
ENV.globals.clear()  # no range, cycler, joiner, namespace, lipsum, dict: only the macros
