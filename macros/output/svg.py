"""Draw a chart described by plain data (a ``BarChart`` or a ``ScatterChart``) as inline SVG, by hand.

Two kinds of chart need a few lines, rectangles, circles and labels: written directly, a chart takes under a
millisecond and no plotting library (matplotlib took a third of a second to import, on every build that drew
one). Text stays text (the browser renders Chinese labels with its own fonts, a reader can select it); ticks
fall on round values and are written the way the page's language writes numbers and money; text and axes
take the colour of the page's text. A drawing is a pure function of its description: the same bytes on every
build. It is kept out of the search index and of reading times (``DRAWING``): a chart is read through its
title and its text alternative.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape

from .formatting import formatter

WIDTH = 504.0             # user units: points across a 7-inch figure
LABEL_SIZE = 10.0         # tick, category and value labels, axis titles
LEGEND_SIZE = 8.0
MARKER_LABEL_SIZE = 8.0
POINT_LABEL_SIZE = 7.0
TICK, PAD = 3.5, 3.5      # a tick mark's length, and the space between it and its label
POINT_RADIUS = 2.65
MARGIN = 0.05             # of the data's span, left free at the ends of an axis
DRAWING = re.compile(r'<g data-search-exclude="true"[^>]*>.*?</g>', re.S)  # everything but title and desc


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars, the first on top; ``marker`` is (value, label, colour) of a dashed reference line."""

    lang: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    value_labels: tuple[str, ...]
    colours: tuple[str, ...]
    axis_title: str
    marker: tuple[float, str, str] | None = None


@dataclass(frozen=True)
class ScatterChart:
    """Points (x, y, colour, label); x ticks are written as money, y ticks as numbers."""

    lang: str
    points: tuple[tuple[float, float, str, str], ...]
    x_title: str
    y_title: str
    legend: tuple[tuple[str, str], ...]   # (colour, label)
    currency: str = "USD"


@dataclass(frozen=True)
class LogScatterChart:
    """Points (x, y, colour) on logarithmic axes that span the same decades, with the line y = x and the
    lines y = 2x and y = x / 2 dashed: an estimate against a measurement."""

    lang: str
    points: tuple[tuple[float, float, str], ...]
    x_title: str
    y_title: str
    legend: tuple[tuple[str, str], ...]   # (colour, label)
    band_label: str                        # what the dashed lines mean


Chart = BarChart | ScatterChart | LogScatterChart


def draw(chart: Chart, title: str, description: str) -> str:
    """The chart as an SVG element sized by its container, with its title and text alternative."""
    height, parts = (_bars(chart) if isinstance(chart, BarChart) else
                     _log_scatter(chart) if isinstance(chart, LogScatterChart) else _scatter(chart))
    return (f'<svg role="img" class="chart" viewBox="0 0 {_n(WIDTH)} {_n(height)}" font-family="sans-serif" '
            f'font-size="{_n(LABEL_SIZE)}"><title>{_xml(title)}</title><desc>{_xml(description)}</desc>'
            f'<g data-search-exclude="true" fill="currentColor">{"".join(parts)}</g></svg>')


# --- the two kinds ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plot:
    """The plotting area, in user units (y downwards), and the data values at its edges."""

    left: float
    right: float
    top: float
    bottom: float
    x_range: tuple[float, float]
    y_range: tuple[float, float] = (0.0, 1.0)

    def x(self, value: float) -> float:
        low, high = self.x_range
        return self.left + (self.right - self.left) * (value - low) / (high - low)

    def y(self, value: float) -> float:
        low, high = self.y_range
        return self.bottom - (self.bottom - self.top) * (value - low) / (high - low)


def _bars(chart: BarChart) -> tuple[float, list[str]]:
    height = 30.2 * len(chart.labels) + 68.4
    left = max(text_width(label, LABEL_SIZE) for label in chart.labels) + TICK + PAD + 7
    right = max(text_width(label, LABEL_SIZE) for label in chart.value_labels) + 7
    largest = max([*chart.values, chart.marker[0] if chart.marker else 0.0])
    plot = Plot(left, WIDTH - right, 21.6, height - 46.8, (0.0, largest * (1 + MARGIN) or 1.0))
    band = (plot.bottom - plot.top) / len(chart.labels)
    parts = []
    for index, (label, value, value_label, colour) in enumerate(
            zip(chart.labels, chart.values, chart.value_labels, chart.colours)):
        centre = plot.top + band * (index + 0.5)
        parts.append(f'<rect x="{_n(plot.left)}" y="{_n(centre - 0.4 * band)}" width="{_n(plot.x(value) - plot.left)}" '
                     f'height="{_n(0.8 * band)}" fill="{colour}"/>')
        parts.append(_line(plot.left - TICK, centre, plot.left, centre))
        parts.append(_text(plot.left - TICK - PAD, _middle(centre, LABEL_SIZE), label, "end"))
        parts.append(_text(plot.x(value) + 3, _middle(centre, LABEL_SIZE), value_label))
    parts += _x_axis(plot, chart.lang, None, chart.axis_title, height)
    parts.append(_line(plot.left, plot.top, plot.left, plot.bottom))
    if chart.marker:
        value, label, colour = chart.marker
        at = plot.x(value)
        parts.append(f'<line x1="{_n(at)}" y1="{_n(plot.top - 4)}" x2="{_n(at)}" y2="{_n(plot.bottom)}" '
                     f'stroke="{colour}" stroke-width="1.5" stroke-dasharray="5.5 2.4"/>')
        parts.append(_text(at + 2, plot.top - 7, label, size=MARKER_LABEL_SIZE, colour=colour))
    return height, parts


def _scatter(chart: ScatterChart) -> tuple[float, list[str]]:
    height = 316.8
    xs, ys = [p[0] for p in chart.points], [p[1] for p in chart.points]
    span = (max(xs) - min(xs)) or max(xs) or 1.0
    plot = Plot(72.0, WIDTH - 10.8, 25.2, height - 46.8,
                (min(xs) - MARGIN * span, max(xs) + MARGIN * span), (0.0, max(ys) * (1 + MARGIN) or 1.0))
    parts = _x_axis(plot, chart.lang, chart.currency, chart.x_title, height)
    parts += _y_axis(plot, chart.lang, chart.y_title)
    # the legend above the plot, in a row
    x, y = plot.left, plot.top - 12
    for colour, label in chart.legend:
        parts.append(_dot(x + POINT_RADIUS, y, colour))
        parts.append(_text(x + 2 * POINT_RADIUS + 5, _middle(y, LEGEND_SIZE), label, size=LEGEND_SIZE))
        x += 2 * POINT_RADIUS + 5 + text_width(label, LEGEND_SIZE) + 18
    points = sorted(chart.points)
    centres = [(plot.x(px), plot.y(py)) for px, py, _, _ in points]
    parts += [_dot(cx, cy, point[2]) for point, (cx, cy) in zip(points, centres)]
    # Labels beside their points, clear of each other and of the points, joined to their point by a thin line
    # when moved off its line. label_place works with y upwards.
    taken = [_box_around(cx, height - cy, 4) for cx, cy in centres]
    for point, (cx, cy) in zip(points, centres):
        label = point[3]
        place = label_place(cx, height - cy, text_width(label, POINT_LABEL_SIZE), POINT_LABEL_SIZE,
                            (plot.left, plot.right), taken, step=POINT_LABEL_SIZE * 1.6, gap=4)
        taken.append(place.box)
        if place.moved:
            parts.append(_line(cx, cy, cx + place.dx, cy - place.dy, width=0.5, opacity=0.5))
        parts.append(_text(cx + place.dx, cy - place.dy - 1.5, label, "start" if place.align == "left" else "end",
                           size=POINT_LABEL_SIZE))
    return height, parts


def _log_scatter(chart: LogScatterChart) -> tuple[float, list[str]]:
    height = 360.0
    values = [v for x, y, _ in chart.points for v in (x, y)]
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    plot = Plot(72.0, WIDTH - 18.0, 25.2, height - 46.8, (low, high), (low, high))  # room for the last tick label
    parts = [_line(plot.left, plot.bottom, plot.right, plot.bottom), _line(plot.left, plot.top, plot.left, plot.bottom)]
    f = formatter(chart.lang)
    for exponent in range(low, high + 1):
        for multiple in (1, 2, 5):
            value = multiple * 10.0 ** exponent
            at = math.log10(value)
            if at > high + 1e-9:
                break
            label = f.number(value, max(0, -exponent))
            parts.append(_line(plot.x(at), plot.bottom, plot.x(at), plot.bottom + TICK))
            parts.append(_text(plot.x(at), plot.bottom + TICK + PAD + 0.8 * LABEL_SIZE, label, "middle"))
            parts.append(_line(plot.left - TICK, plot.y(at), plot.left, plot.y(at)))
            parts.append(_text(plot.left - TICK - PAD, _middle(plot.y(at), LABEL_SIZE), label, "end"))
    for factor, dashed in ((1.0, False), (2.0, True), (0.5, True)):  # y = factor × x across the plot
        shift = math.log10(factor)
        x1, x2 = max(low, low - shift), min(high, high - shift)
        parts.append(f'<line x1="{_n(plot.x(x1))}" y1="{_n(plot.y(x1 + shift))}" x2="{_n(plot.x(x2))}" '
                     f'y2="{_n(plot.y(x2 + shift))}" stroke="currentColor" stroke-width="0.8"'
                     + (' stroke-dasharray="4 3" opacity="0.6"/>' if dashed else ' opacity="0.8"/>'))
    parts.append(_text((plot.left + plot.right) / 2, height - 10, chart.x_title, "middle"))
    middle = (plot.top + plot.bottom) / 2
    parts.append(f'<text x="14" y="{_n(middle)}" text-anchor="middle" transform="rotate(-90 14 {_n(middle)})">'
                 f'{_xml(chart.y_title)}</text>')
    x, y = plot.left, plot.top - 12
    for colour, label in (*chart.legend, ("none", chart.band_label)):
        if colour == "none":
            parts.append(f'<line x1="{_n(x)}" y1="{_n(y)}" x2="{_n(x + 12)}" y2="{_n(y)}" stroke="currentColor" '
                         'stroke-width="0.8" stroke-dasharray="4 3" opacity="0.6"/>')
            x += 7
        else:
            parts.append(_dot(x + POINT_RADIUS, y, colour))
        parts.append(_text(x + 2 * POINT_RADIUS + 5, _middle(y, LEGEND_SIZE), label, size=LEGEND_SIZE))
        x += 2 * POINT_RADIUS + 5 + text_width(label, LEGEND_SIZE) + 18
    parts += [_dot(plot.x(math.log10(px)), plot.y(math.log10(py)), colour) for px, py, colour in sorted(chart.points)]
    return height, parts


# --- axes -------------------------------------------------------------------------------------------------
def _x_axis(plot: Plot, lang: str, currency: str | None, title: str, height: float) -> list[str]:
    parts = [_line(plot.left, plot.bottom, plot.right, plot.bottom)]
    for value, label in tick_labels(*plot.x_range, lang, currency):
        at = plot.x(value)
        parts.append(_line(at, plot.bottom, at, plot.bottom + TICK))
        parts.append(_text(at, plot.bottom + TICK + PAD + 0.8 * LABEL_SIZE, label, "middle"))
    parts.append(_text((plot.left + plot.right) / 2, height - 10, title, "middle"))
    return parts


def _y_axis(plot: Plot, lang: str, title: str) -> list[str]:
    parts = [_line(plot.left, plot.top, plot.left, plot.bottom)]
    for value, label in tick_labels(*plot.y_range, lang):
        at = plot.y(value)
        parts.append(_line(plot.left - TICK, at, plot.left, at))
        parts.append(_text(plot.left - TICK - PAD, _middle(at, LABEL_SIZE), label, "end"))
    middle = (plot.top + plot.bottom) / 2
    parts.append(f'<text x="14" y="{_n(middle)}" text-anchor="middle" transform="rotate(-90 14 {_n(middle)})">'
                 f'{_xml(title)}</text>')
    return parts


def nice_ticks(low: float, high: float, most: int = 8) -> list[float]:
    """Round values between ``low`` and ``high``, at most ``most`` intervals apart: steps of 1, 2, 2.5 or 5
    times a power of ten."""
    rough = (high - low) / most
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 2.5, 5, 10) if power * factor >= rough)
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, math.floor(high / step + 1e-9) + 1)]


def tick_labels(low: float, high: float, lang: str, currency: str | None = None) -> list[tuple[float, str]]:
    """(value, label) of each tick: numbers, or amounts of ``currency``, as the language writes them, all
    with the decimals of the step."""
    ticks = nice_ticks(low, high)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = len(f"{round(step, 6):g}".partition(".")[2])
    f = formatter(lang)
    return [(value, f.money(value, currency, decimals) if currency else f.number(value, decimals)) for value in ticks]


# --- SVG elements -----------------------------------------------------------------------------------------
def _n(value: float) -> str:
    """A coordinate, to a hundredth: short and the same on every build."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _xml(text: str) -> str:
    """Text as SVG content: &, < and > escaped (quotes need not be)."""
    return escape(text, quote=False)


def _middle(centre: float, size: float) -> float:
    """The baseline that centres text of ``size`` on ``centre`` (about where its x-height's middle sits)."""
    return centre + 0.35 * size


def _line(x1: float, y1: float, x2: float, y2: float, width: float = 0.8, opacity: float = 1.0) -> str:
    faded = f' stroke-opacity="{_n(opacity)}"' if opacity != 1 else ""
    return (f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="currentColor" '
            f'stroke-width="{_n(width)}"{faded}/>')


def _dot(x: float, y: float, colour: str) -> str:
    return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(POINT_RADIUS)}" fill="{colour}"/>'


def _text(x: float, y: float, content: str, anchor: str = "start", size: float = LABEL_SIZE,
          colour: str | None = None) -> str:
    attributes = f' text-anchor="{anchor}"' if anchor != "start" else ""
    attributes += f' font-size="{_n(size)}"' if size != LABEL_SIZE else ""
    attributes += f' fill="{colour}"' if colour else ""
    return f'<text x="{_n(x)}" y="{_n(y)}"{attributes}>{_xml(content)}</text>'


# --- label placement (y upwards) --------------------------------------------------------------------------
Box = tuple[float, float, float, float]  # left, bottom, right, top


@dataclass(frozen=True)
class LabelPlace:
    dx: float      # offset of the label's anchor from its point
    dy: float      # offset of the label's baseline from its point
    align: str     # "left": the label starts at the anchor; "right": it ends there
    box: Box
    moved: bool    # off its point's line: draw a leader


def text_width(text: str, font_size: float) -> float:
    """An upper estimate of the width of ``text`` at ``font_size``: a CJK character is as wide as the size,
    another character a little over half of it."""
    return sum(font_size if ord(char) >= 0x2E80 else 0.62 * font_size for char in text)


def _box_around(x: float, y: float, radius: float) -> Box:
    return x - radius, y - radius, x + radius, y + radius


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_place(x: float, y: float, width: float, height: float, plot: tuple[float, float], taken: list[Box],
                step: float, gap: float) -> LabelPlace:
    """Right or left of the point, on its line or a few lines above or below: the first place that stays
    within the plot's width and clear of ``taken``, else the first that stays within the plot."""
    candidates = []
    for lines in (0, 1, -1, 2, -2, 3, -3, 4, -4):
        dy = gap / 2 + lines * step
        for align, dx in (("left", gap), ("right", -gap)):
            left = x + dx if align == "left" else x + dx - width
            box = (left, y + dy, left + width, y + dy + height)
            candidates.append(LabelPlace(dx, dy, align, box, moved=lines != 0))
    inside = [c for c in candidates if plot[0] <= c.box[0] and c.box[2] <= plot[1]]
    for candidate in inside:
        if not any(_overlaps(candidate.box, box) for box in taken):
            return candidate
    return (inside or candidates)[0]
