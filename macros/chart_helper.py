"""Charts drawn by a helper process while the build goes on.

Importing matplotlib and drawing take over half a second, which MkDocs would wait for whenever a chart
changed (a new price redraws the price chart in three languages) or the build cache is empty. So a page is
rendered with a placeholder for each chart it shows (``placeholder``: the chart's description, its title and
its text alternative), the description goes to a helper process that imports matplotlib once and draws on
the machine's other core, and the page's finished HTML gets the drawing in place of the placeholder
(``fill_charts``), by then usually ready. The helper only saves time: a drawing it did not deliver (it could
not start, or it ended) is drawn here, and an error in its drawing stops the build as one here would.

Run as ``python -m macros.chart_helper``, this module is the helper: one JSON request per line on its
standard input (a chart's key and description), one JSON reply per line on its standard output.
"""
from __future__ import annotations

import atexit
import importlib
import json
import os
import re
import subprocess
import sys
import threading
import traceback
from html import unescape
from pathlib import Path

from markupsafe import Markup

from .chart_drawing import Chart, chart_key, draw, from_json, keep, stored, svg, to_json

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REPLY_TIMEOUT_SECONDS = 120.0   # a drawing takes a tenth of a second; past this the helper is stuck
_PLACEHOLDER = re.compile(r'<svg role="img" class="chart" data-chart="([^"]*)">(<title>.*?</desc>)</svg>', re.S)


class ChartError(Exception):
    """A chart could not be drawn (an error in the drawing code, not in a page)."""


def placeholder(chart: Chart, title: str, description: str) -> Markup:
    """Where the chart goes in a page: replaced by its drawing in the page's HTML (``fill_charts``). Starts
    the drawing in the helper unless it is drawn already."""
    _ask_helper(chart)
    return Markup('<svg role="img" class="chart" data-chart="{}"><title>{}</title><desc>{}</desc></svg>').format(
        to_json(chart), title, description)


def fill_charts(html: str) -> str:
    """``html`` with every placeholder replaced by the chart's drawing, titled and described."""
    if 'data-chart="' not in html:
        return html

    def drawing(found: re.Match[str]) -> str:
        document = _drawing(from_json(unescape(found.group(1)))).replace("<svg ", '<svg role="img" class="chart" ', 1)
        opening_end = document.index(">", document.index("<svg")) + 1
        return (document[:opening_end] + found.group(2) + document[opening_end:]).strip()
    return _PLACEHOLDER.sub(drawing, html)


def _drawing(chart: Chart) -> str:
    key = chart_key(chart)
    document = stored(key)
    if document is None and _helper is not None:
        document = _helper.answer(key)
        if document is not None:
            keep(key, document)
    return document if document is not None else svg(chart)


# --- this process's side -----------------------------------------------------------------------------------
class _Helper:
    """The helper process, the requests sent to it and its replies (read by a thread as they come)."""

    def __init__(self) -> None:
        path = os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")]))
        self._process = subprocess.Popen([sys.executable, "-m", "macros.chart_helper"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": path})
        self._asked: set[str] = set()
        self._replies: dict[str, dict[str, str]] = {}
        self._changed = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read_replies, name="chart helper replies", daemon=True).start()

    def ask(self, key: str, chart: Chart) -> None:
        if key in self._asked or self.ended:
            return
        try:
            self._process.stdin.write(json.dumps({"key": key, "chart": to_json(chart)}).encode() + b"\n")
            self._process.stdin.flush()
        except OSError:  # it ended: what it did not draw is drawn here
            self._end()
            return
        self._asked.add(key)

    def answer(self, key: str) -> str | None:
        """The drawing the helper made of ``key``; None when it was not asked or ended without drawing it."""
        if key not in self._asked:
            return None
        with self._changed:
            if not self._changed.wait_for(lambda: key in self._replies or self.ended, REPLY_TIMEOUT_SECONDS):
                raise ChartError(f"the chart helper process drew nothing for {REPLY_TIMEOUT_SECONDS:.0f} s; "
                                 "build again, and report it if it happens again")
            reply = self._replies.get(key)
        if reply is not None and "error" in reply:
            raise ChartError(f"drawing a chart failed (an error in macros/chart_drawing.py, not in the page):\n"
                             f"{reply['error']}")
        return reply["svg"] if reply is not None else None

    def close(self) -> None:
        try:
            self._process.stdin.close()
            self._process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()

    def _read_replies(self) -> None:
        for line in self._process.stdout:
            reply = json.loads(line)
            with self._changed:
                self._replies[reply["key"]] = reply
                self._changed.notify_all()
        self._end()

    def _end(self) -> None:
        with self._changed:
            self.ended = True
            self._changed.notify_all()


_helper: _Helper | None = None


def _ask_helper(chart: Chart) -> None:
    """Have the helper draw ``chart`` unless it is drawn already; the helper starts with the first drawing
    a build needs and serves every later build of this process (``mkdocs serve``)."""
    global _helper
    key = chart_key(chart)
    if stored(key) is not None:
        return
    if _helper is None or _helper.ended:
        try:
            _helper = _Helper()
        except OSError:  # no helper: the chart is drawn here when the page is finished
            return
        atexit.register(_helper.close)
    _helper.ask(key, chart)


# --- the helper's side -------------------------------------------------------------------------------------
def serve_requests() -> None:
    """Draw every chart asked for on standard input, replying on standard output, until the input ends."""
    importlib.import_module("matplotlib.figure")  # at once: the first request is on its way

    for line in sys.stdin.buffer:
        request = json.loads(line)
        try:
            reply = {"key": request["key"], "svg": draw(from_json(request["chart"]))}
        except Exception:  # noqa: BLE001 - reported to the build, which stops with it
            reply = {"key": request["key"], "error": traceback.format_exc()}
        sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    serve_requests()
