"""Charts drawn by the build's helper process (``helper``) while the build goes on.

Importing matplotlib and drawing take over half a second, which MkDocs would wait for whenever a chart
changed (a new price redraws the price chart in three languages) or the build cache is empty. So a page is
rendered with a placeholder for each chart it shows (``placeholder``: the chart's description, its title and
its text alternative), the helper draws the chart once it has rendered the pages MkDocs needs first, and the
page's finished HTML gets the drawing in place of the placeholder (``fill_charts``): as MkDocs writes the page
if the drawing is ready (``charts_drawn``), otherwise once the language's pages are written (the hook). A
drawing the helper did not deliver (it could not start, or it ended) is drawn here; an error in its drawing
stops the build as one here would.
"""
from __future__ import annotations

import re
from html import unescape

from markupsafe import Markup

from .chart_drawing import Chart, chart_key, from_json, keep, stored, svg, to_json
from .helper import HelperError, Request, current, helper, in_helper, later

_PLACEHOLDER = re.compile(r'<svg role="img" class="chart" data-chart="([^"]*)">(<title>.*?</desc>)</svg>', re.S)


class ChartError(Exception):
    """A chart could not be drawn (an error in the drawing code, not in a page)."""


def placeholder(chart: Chart, title: str, description: str) -> Markup:
    """Where the chart goes in a page: replaced by its drawing in the page's HTML (``fill_charts``). Has the
    helper draw the chart unless it is drawn already (in the helper itself: after the pages of its stage)."""
    key = chart_key(chart)
    if stored(key) is None:
        if in_helper():
            later(_request(key, chart))
        elif (drawer := helper()) is not None:
            drawer.send(_request(key, chart))
    return Markup('<svg role="img" class="chart" data-chart="{}"><title>{}</title><desc>{}</desc></svg>').format(
        to_json(chart), title, description)


def charts_drawn(html: str) -> bool:
    """Whether every chart of ``html`` is drawn already: ``fill_charts`` would not wait for the helper."""
    def drawn(chart: Chart) -> bool:
        key = chart_key(chart)
        return stored(key) is not None or ((drawer := current()) is not None and drawer.replied(key))
    return all(drawn(from_json(unescape(found.group(1)))) for found in _PLACEHOLDER.finditer(html))


def fill_charts(html: str) -> str:
    """``html`` with every placeholder replaced by the chart's drawing, titled and described."""
    if 'data-chart="' not in html:
        return html

    def drawing(found: re.Match[str]) -> str:
        document = _drawing(from_json(unescape(found.group(1)))).replace("<svg ", '<svg role="img" class="chart" ', 1)
        opening_end = document.index(">", document.index("<svg")) + 1
        return (document[:opening_end] + found.group(2) + document[opening_end:]).strip()
    return _PLACEHOLDER.sub(drawing, html)


def _request(key: str, chart: Chart) -> Request:
    return {"kind": "chart", "key": key, "stage": 0, "chart": to_json(chart)}


def _drawing(chart: Chart) -> str:
    key = chart_key(chart)
    document = stored(key)
    try:
        reply = drawer.ask(_request(key, chart)) if document is None and (drawer := current()) is not None else None
    except HelperError as exc:
        raise ChartError(str(exc)) from None
    if reply is not None:
        if "error" in reply:
            raise ChartError("drawing a chart failed (an error in macros/chart_drawing.py, not in the page):\n"
                             + reply["error"])
        document = reply["svg"]
        keep(key, document)
    return document if document is not None else svg(chart)
