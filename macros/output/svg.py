"""Draw a chart described by plain data (a ``BarChart``, a ``ScatterChart`` or a ``LogScatterChart``) as inline
SVG, by hand.

A chart needs a few lines, rectangles, circles and labels: written directly, it takes under a millisecond and
no plotting library (matplotlib took a third of a second to import, on every build that drew one). Text stays
text (the browser renders Chinese labels with its own fonts, a reader can select it); ticks fall on round values
and are written the way the page's language writes numbers and money; text and axes take the colour of the
page's text. A drawing is a pure function of its description: the same bytes on every build. It is kept out of
the search index and of reading times (``DRAWING``): a chart is read through its title and its text alternative.

Every chart is laid out for a phone's column: ``WIDTH`` user units across, every label ``TEXT_SIZE`` units
high, labels above their bars, axis titles written across, the legend wrapped in rows and the points of a
scatter plot numbered, with a key of their names below. Shown at full width on a 390 px phone (a 358 px
column), text is 12.6 CSS px; on wider screens ``docs/en/assets/site.css`` (Charts) stops the chart growing where
its text is the size of the page's text. One drawing serves every screen: no second copy of the chart, of
its title or of its text alternative.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from html import escape

from macros.base.errors import MacroError
from macros.output.formatting import formatter

WIDTH = 340.0  # user units across: a phone's column (see the module's docstring)
TEXT_SIZE = 12.0  # every label: 11 CSS px or more wherever the chart is 312 px wide or more
# Of the size, above and below the baseline: the box a browser gives a line of text in the tallest font a reader
# has, Noto Sans CJK (Debian's fonts-noto-cjk, which Chromium also takes for the Latin letters of a Chinese page:
# 1.16 and 0.29 of the size, measured); DejaVu Sans and Liberation Sans take less.
ASCENT, DESCENT = 1.17, 0.31
LINE = 1.5 * TEXT_SIZE  # from one baseline to the next: two lines' boxes do not meet
HALF_LINE = (ASCENT + DESCENT) / 2 * TEXT_SIZE  # how far a label centred on a tick reaches above it
TICK, PAD = 3.5, 3.5  # a tick mark's length, and the space between it and its label
GAP = 4.0  # the least space between a label and another label or a mark
POINT_RADIUS = 3.0
PLOT_HEIGHT = 250.0  # of a scatter plot: room for a crowd of numbered points, each a line of text high
BOLD = 1.12  # how much wider bold text is (the numbers of a scatter plot's points)
BAR = 14.0  # a bar's thickness
MARGIN = 0.05  # of the data's span, left free at the ends of an axis
DRAWING = re.compile(r'<g data-search-exclude="true"[^>]*>.*?</g>', re.S)  # everything but title and desc


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars, the first on top; each of ``markers`` is (value, label, colour) of a dashed reference
    line, its label on a row of its own above the bars."""

    lang: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    value_labels: tuple[str, ...]
    colours: tuple[str, ...]
    axis_title: str
    markers: tuple[tuple[float, str, str], ...] = ()


@dataclass(frozen=True)
class ScatterChart:
    """Points (x, y, colour, label); x ticks are written as money, y ticks as numbers. Points are numbered by
    price and named in a key under the plot."""

    lang: str
    points: tuple[tuple[float, float, str, str], ...]
    x_title: str
    y_title: str
    legend: tuple[tuple[str, str], ...]  # (colour, label)
    currency: str = "USD"


@dataclass(frozen=True)
class LogScatterChart:
    """Points (x, y, colour) on logarithmic axes that span the same decades, with the line y = x and the
    lines y = 2x and y = x / 2 dashed: an estimate against a measurement."""

    lang: str
    points: tuple[tuple[float, float, str], ...]
    x_title: str
    y_title: str
    legend: tuple[tuple[str, str], ...]  # (colour, label)
    band_label: str  # what the dashed lines mean


Chart = BarChart | ScatterChart | LogScatterChart


def draw(chart: Chart, title: str, description: str) -> str:
    """The chart as an SVG element sized by its container, with its title and text alternative."""
    height, parts = (
        _bars(chart)
        if isinstance(chart, BarChart)
        else _log_scatter(chart)
        if isinstance(chart, LogScatterChart)
        else _scatter(chart)
    )
    return (
        f'<svg role="img" class="chart" viewBox="0 0 {_n(WIDTH)} {_n(height)}" font-family="sans-serif" '
        f'font-size="{_n(TEXT_SIZE)}"><title>{_xml(title)}</title><desc>{_xml(description)}</desc>'
        f'<g data-search-exclude="true" fill="currentColor">{"".join(parts)}</g></svg>'
    )


# --- the three kinds --------------------------------------------------------------------------------------
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
    """Each bar under its label, its value at its end; the markers' labels above the bars, one row each."""
    parts: list[str] = []
    top = (LINE + GAP) * len(chart.markers)
    overhang = max(0.0, ((ASCENT + DESCENT) * TEXT_SIZE - BAR) / 2)  # of a value's box, above and below its bar
    row = LINE + overhang + BAR + overhang + 2 * GAP
    largest = max([*chart.values, *(value for value, _, _ in chart.markers)])
    right = WIDTH - max(text_width(label) for label in chart.value_labels) - GAP
    plot = Plot(1.0, right, top, top + row * len(chart.labels) - GAP, (0.0, largest * (1 + MARGIN) or 1.0))
    labels: list[Box] = []
    for index, (label, value, value_label, colour) in enumerate(
        zip(chart.labels, chart.values, chart.value_labels, chart.colours, strict=True)
    ):
        row_top = plot.top + row * index
        bar_top, end = row_top + LINE + overhang, plot.x(value)
        parts.append(
            f'<rect x="{_n(plot.left)}" y="{_n(bar_top)}" width="{_n(end - plot.left)}" '
            f'height="{_n(BAR)}" fill="{colour}"/>'
        )
        parts.append(_text(plot.left + GAP, row_top + ASCENT * TEXT_SIZE, _fitting(label, WIDTH - plot.left - GAP)))
        value_baseline = _middle(bar_top + BAR / 2)
        parts.append(_text(end + GAP, value_baseline, value_label))
        labels += [
            text_box(plot.left + GAP, row_top + ASCENT * TEXT_SIZE, label),
            text_box(end + GAP, value_baseline, value_label),
        ]
    parts.append(_line(plot.left, plot.top, plot.left, plot.bottom))
    parts += _x_axis(plot, chart.lang, None, chart.axis_title)
    for index, (value, label, colour) in enumerate(chart.markers):
        parts += _marker(plot, value, label, colour, labels, index)
    return _bottom_of(plot), parts


def _marker(plot: Plot, value: float, label: str, colour: str, labels: list[Box], row: int) -> list[str]:
    """A dashed line at ``value`` across the bars, broken where a label crosses it, and its label above them,
    on label row ``row``."""
    at = plot.x(value)
    width = text_width(_fitting(label))
    start = at + GAP if at + GAP + width <= WIDTH else at - GAP - width if at - GAP - width >= 0 else WIDTH - width
    parts = [_text(start, ASCENT * TEXT_SIZE + row * (LINE + GAP), label, colour=colour)]
    crossing = sorted((box[1] - 1, box[3] + 1) for box in labels if box[0] - 1 <= at <= box[2] + 1)
    y = plot.top - GAP / 2
    for upper, lower in [*crossing, (plot.bottom, plot.bottom)]:
        if upper > y:
            parts.append(
                f'<line x1="{_n(at)}" y1="{_n(y)}" x2="{_n(at)}" y2="{_n(upper)}" stroke="{colour}" '
                'stroke-width="1.5" stroke-dasharray="5.5 2.4"/>'
            )
        y = max(y, lower)
    return parts


def _scatter(chart: ScatterChart) -> tuple[float, list[str]]:
    """Points numbered by price, their numbers placed clear of every point and number, a key of names below."""
    xs, ys = [p[0] for p in chart.points], [p[1] for p in chart.points]
    span = (max(xs) - min(xs)) or max(xs) or 1.0
    legend_height, legend = _legend([(colour, False, label) for colour, label in chart.legend])
    y_range = (0.0, max(ys) * (1 + MARGIN) or 1.0)
    y_ticks = tick_labels(*y_range, chart.lang)
    left = max(text_width(label) for _, label in y_ticks) + TICK + PAD + 1
    top = _plot_top(legend_height)
    plot = Plot(left, WIDTH - GAP, top, top + PLOT_HEIGHT, (min(xs) - MARGIN * span, max(xs) + MARGIN * span), y_range)
    parts = [*legend, *_y_axis(plot, y_ticks, chart.y_title), *_x_axis(plot, chart.lang, chart.currency, chart.x_title)]
    points = sorted(chart.points)
    centres = [(plot.x(px), plot.y(py)) for px, py, _, _ in points]
    parts += [_dot(cx, cy, point[2]) for point, (cx, cy) in zip(points, centres, strict=True)]
    bounds = (plot.left + 1, plot.top - GAP, plot.right, plot.bottom - 1)
    for index, place in enumerate(_number_places(centres, bounds)):
        if place.leader:
            parts.append(_line(*place.leader, width=0.6, opacity=0.6))
        parts.append(_text(place.box[0], place.box[1] + ASCENT * TEXT_SIZE, _number(index), bold=True))
    key_height, key = _key([point[3] for point in points], _bottom_of(plot) + GAP)
    return _bottom_of(plot) + GAP + key_height, parts + key


def _number_places(centres: list[tuple[float, float]], bounds: Box) -> list[LabelPlace]:
    """Where each point's number goes, in the points' order (``label_place``), placed one after another; a number
    that finds no clear place is placed first in the next try, until every number is clear or each has led once."""
    dots = [_box_around(cx, cy, POINT_RADIUS + 1) for cx, cy in centres]
    order = list(range(len(centres)))
    for _ in centres:
        places: dict[int, LabelPlace] = {}
        numbers: list[Box] = []
        leaders: list[tuple[float, float, float, float]] = []
        for index in order:
            cx, cy = centres[index]
            place = label_place(
                cx,
                cy,
                BOLD * text_width(_number(index)),
                bounds,
                dots[:index] + dots[index + 1 :] + numbers,
                centres[:index] + centres[index + 1 :],
                leaders=leaders,
                labels=numbers,
            )
            places[index] = place
            numbers.append(place.box)
            if place.leader:
                leaders.append(place.leader)
        stuck = next((index for index in order if not places[index].clear), None)
        if stuck is None or order[0] == stuck:
            break
        order.remove(stuck)
        order.insert(0, stuck)
    return [places[index] for index in range(len(centres))]


def _log_scatter(chart: LogScatterChart) -> tuple[float, list[str]]:
    """A square plot: a decade is as long across as up."""
    values = [v for x, y, _ in chart.points for v in (x, y)]
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    f = formatter(chart.lang)
    ticks = [
        (math.log10(value), f.number(value, max(0, -exponent)))
        for exponent in range(low, high + 1)
        for multiple in (1, 2, 5)
        if math.log10(value := multiple * 10.0**exponent) <= high + 1e-9
    ]
    legend_height, legend = _legend(
        [*((colour, False, label) for colour, label in chart.legend), ("currentColor", True, chart.band_label)]
    )
    left = max(text_width(label) for _, label in ticks) + TICK + PAD + 1
    top = _plot_top(legend_height)
    side = WIDTH - GAP - left
    plot = Plot(left, left + side, top, top + side, (low, high), (low, high))
    parts = [
        *legend,
        _line(plot.left, plot.bottom, plot.right, plot.bottom),
        _line(plot.left, plot.top, plot.left, plot.bottom),
    ]
    parts += _ticks_across(plot, ticks) + _ticks_up(plot, ticks)
    for factor, dashed in ((1.0, False), (2.0, True), (0.5, True)):  # y = factor × x across the plot
        shift = math.log10(factor)
        x1, x2 = max(low, low - shift), min(high, high - shift)
        parts.append(
            f'<line x1="{_n(plot.x(x1))}" y1="{_n(plot.y(x1 + shift))}" x2="{_n(plot.x(x2))}" '
            f'y2="{_n(plot.y(x2 + shift))}" stroke="currentColor" stroke-width="0.8"'
            + (' stroke-dasharray="4 3" opacity="0.6"/>' if dashed else ' opacity="0.8"/>')
        )
    parts.append(_y_title(plot, chart.y_title))
    parts += _axis_title(plot, chart.x_title)
    parts += [_dot(plot.x(math.log10(px)), plot.y(math.log10(py)), colour) for px, py, colour in sorted(chart.points)]
    return _bottom_of(plot), parts


# --- axes, legend, key ------------------------------------------------------------------------------------
def _x_axis(plot: Plot, lang: str, currency: str | None, title: str) -> list[str]:
    """The axis under the plot, as many round ticks as their labels leave room for, and its title."""
    for most in range(8, 1, -1):
        ticks = tick_labels(*plot.x_range, lang, currency, most)
        if _fit_across(plot, ticks):
            break
    return [
        _line(plot.left, plot.bottom, plot.right, plot.bottom),
        *_ticks_across(plot, ticks),
        *_axis_title(plot, title),
    ]


def _ticks_across(plot: Plot, ticks: list[tuple[float, str]]) -> list[str]:
    """Tick marks under the plot, each labelled unless its label would touch one already written, powers of
    ten first: a log axis always shows 1, 10, 100, and 2 and 5 where there is room."""
    corner = (
        0.0,
        plot.bottom - HALF_LINE,
        plot.left - TICK - PAD,
        plot.bottom + HALF_LINE,
    )  # the y axis's lowest label
    parts, kept = [], [corner]
    for value, label in sorted(ticks, key=lambda tick: not _is_decade(tick[1])):
        parts.append(_line(plot.x(value), plot.bottom, plot.x(value), plot.bottom + TICK))
        box = text_box(_centred(plot.x(value), label), _tick_baseline(plot), label)
        if not any(_overlaps(_grown(box, GAP / 2), other) for other in kept):
            kept.append(box)
            parts.append(_text(box[0], _tick_baseline(plot), label))
    return parts


def _ticks_up(plot: Plot, ticks: list[tuple[float, str]]) -> list[str]:
    """Tick marks left of the plot, every one labelled when a line of text fits between two of them, else
    only the powers of ten."""
    spacing = min(abs(plot.y(a[0]) - plot.y(b[0])) for a, b in itertools.pairwise(ticks)) if len(ticks) > 1 else LINE
    parts = []
    for value, label in ticks:
        at = plot.y(value)
        parts.append(_line(plot.left - TICK, at, plot.left, at))
        if spacing >= LINE or _is_decade(label):
            parts.append(_text(plot.left - TICK - PAD, _middle(at), label, "end"))
    return parts


def _is_decade(label: str) -> bool:
    """A tick at a power of ten, by its label ("1", "10", "0.1", "1 000"): the ones a log axis labels first."""
    return re.sub(r"[^\d]", "", label).strip("0") == "1"


def _fit_across(plot: Plot, ticks: list[tuple[float, str]]) -> bool:
    """Whether the ticks' labels stand apart, by ``GAP`` at least, along the axis."""
    boxes = [(plot.x(value) - text_width(label) / 2, plot.x(value) + text_width(label) / 2) for value, label in ticks]
    return all(b[0] - a[1] >= GAP for a, b in itertools.pairwise(boxes))


def _y_axis(plot: Plot, ticks: list[tuple[float, str]], title: str) -> list[str]:
    """The axis left of the plot, its ticks, and its title written across above it."""
    parts = [_line(plot.left, plot.top, plot.left, plot.bottom)]
    for value, label in ticks:
        at = plot.y(value)
        parts.append(_line(plot.left - TICK, at, plot.left, at))
        parts.append(_text(plot.left - TICK - PAD, _middle(at), label, "end"))
    parts.append(_y_title(plot, title))
    return parts


def _y_title(plot: Plot, title: str) -> str:
    """The y axis's title, written across above the plot, clear of the top tick's label."""
    return _text(0, plot.top - HALF_LINE - GAP / 2 - DESCENT * TEXT_SIZE, _fitting(title))


def _plot_top(legend_height: float) -> float:
    """Where a scatter plot starts: under its legend and its y axis's title."""
    return legend_height + GAP + TEXT_SIZE * (ASCENT + DESCENT) + GAP / 2 + HALF_LINE


def _tick_baseline(plot: Plot) -> float:
    """The baseline of the x axis's tick labels."""
    return plot.bottom + TICK + PAD + ASCENT * TEXT_SIZE


def _axis_title(plot: Plot, title: str) -> list[str]:
    """The x axis's title a line under its tick labels, centred on the plot as far as the chart's width allows."""
    return [_text(_centred((plot.left + plot.right) / 2, _fitting(title)), _tick_baseline(plot) + LINE + 2, title)]


def _bottom_of(plot: Plot) -> float:
    """Where the drawing ends: a unit under the x axis's title."""
    return _tick_baseline(plot) + LINE + 2 + DESCENT * TEXT_SIZE + 1


def _legend(items: list[tuple[str, bool, str]]) -> tuple[float, list[str]]:
    """(colour, dashed, label): a dot or a dashed line and a label each, in rows as wide as the chart, at its
    top; and their height."""
    parts, x, baseline = [], 0.0, ASCENT * TEXT_SIZE
    for colour, dashed, label in items:
        sample = 14.0 if dashed else 2 * POINT_RADIUS
        width = sample + GAP + text_width(_fitting(label, WIDTH - sample - GAP))
        if x > 0 and x + width > WIDTH:
            x, baseline = 0.0, baseline + LINE
        centre = baseline - (ASCENT - DESCENT) / 2 * TEXT_SIZE
        parts.append(
            f'<line x1="{_n(x)}" y1="{_n(centre)}" x2="{_n(x + sample)}" y2="{_n(centre)}" '
            'stroke="currentColor" stroke-width="0.8" stroke-dasharray="4 3" opacity="0.6"/>'
            if dashed
            else _dot(x + POINT_RADIUS, centre, colour)
        )
        parts.append(_text(x + sample + GAP, baseline, label))
        x += width + 3 * GAP
    return baseline + DESCENT * TEXT_SIZE, parts


def _key(names: list[str], top: float) -> tuple[float, list[str]]:
    """The name of each numbered point, in two columns when they fit, else one; numbered down the columns."""
    number_width = BOLD * text_width(_number(len(names) - 1))
    entry = number_width + 2 * GAP + max(text_width(name) for name in names)
    columns = 2 if 2 * entry + 3 * GAP <= WIDTH else 1
    rows = math.ceil(len(names) / columns)
    parts = []
    for index, name in enumerate(names):
        x = (index // rows) * (WIDTH / columns)
        baseline = top + ASCENT * TEXT_SIZE + (index % rows) * LINE
        parts.append(_text(x + number_width, baseline, _number(index), "end", bold=True))
        parts.append(
            _text(x + number_width + 2 * GAP, baseline, _fitting(name, WIDTH / columns - number_width - 2 * GAP))
        )
    return rows * LINE, parts


def _number(index: int) -> str:
    return str(index + 1)


def nice_ticks(low: float, high: float, most: int = 8) -> list[float]:
    """Round values between ``low`` and ``high``, at most ``most`` intervals apart: steps of 1, 2, 2.5 or 5
    times a power of ten."""
    rough = (high - low) / most
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 2.5, 5, 10) if power * factor >= rough)
    first = math.ceil(low / step - 1e-9)
    return [k * step for k in range(first, math.floor(high / step + 1e-9) + 1)]


def tick_labels(
    low: float, high: float, lang: str, currency: str | None = None, most: int = 8
) -> list[tuple[float, str]]:
    """(value, label) of each tick: numbers, or amounts of ``currency``, as the language writes them, all
    with the decimals of the step."""
    ticks = nice_ticks(low, high, most)
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


def _middle(centre: float) -> float:
    """The baseline that centres a line of text on ``centre``."""
    return centre + (ASCENT - DESCENT) / 2 * TEXT_SIZE


def _centred(centre: float, text: str) -> float:
    """Where ``text`` starts when centred on ``centre``, moved as little as keeps it inside the chart."""
    width = text_width(text)
    return min(max(centre - width / 2, 0.0), WIDTH - width)


def _fitting(text: str, width: float = WIDTH) -> str:
    """``text``, checked to fit on one line of the chart: the strings are short by design."""
    if text_width(text) > width:
        raise MacroError(
            f"chart text {text!r} is wider than a phone's chart ({text_width(text):.0f} > "
            f"{width:.0f} units): shorten it in macros/output/strings.yml"
        )
    return text


def _line(x1: float, y1: float, x2: float, y2: float, width: float = 0.8, opacity: float = 1.0) -> str:
    faded = f' stroke-opacity="{_n(opacity)}"' if opacity != 1 else ""
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="currentColor" '
        f'stroke-width="{_n(width)}"{faded}/>'
    )


def _dot(x: float, y: float, colour: str) -> str:
    return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(POINT_RADIUS)}" fill="{colour}"/>'


def _text(
    x: float, y: float, content: str, anchor: str = "start", colour: str | None = None, bold: bool = False
) -> str:
    attributes = f' text-anchor="{anchor}"' if anchor != "start" else ""
    attributes += f' fill="{colour}"' if colour else ""
    attributes += ' font-weight="bold"' if bold else ""
    return f'<text x="{_n(x)}" y="{_n(y)}"{attributes}>{_xml(content)}</text>'


# --- boxes and label placement (y downwards) --------------------------------------------------------------
Box = tuple[float, float, float, float]  # left, top, right, bottom


@dataclass(frozen=True)
class LabelPlace:
    box: Box  # where the label's text goes
    leader: tuple[float, float, float, float] | None = None  # a line to its point, when set away from it
    clear: bool = True  # False: no place met every rule, this is the first one inside the bounds


def text_width(text: str, font_size: float = TEXT_SIZE) -> float:
    """An upper estimate of the width of ``text`` at ``font_size``: a CJK character is as wide as the size,
    another character under two thirds of it."""
    return sum(font_size if ord(char) >= 0x2E80 else 0.64 * font_size for char in text)


def text_box(x: float, baseline: float, text: str) -> Box:
    """The box a label starting at ``x`` on ``baseline`` takes, with room for any font's ascent and descent."""
    return x, baseline - ASCENT * TEXT_SIZE, x + text_width(text), baseline + DESCENT * TEXT_SIZE


def _box_around(x: float, y: float, radius: float) -> Box:
    return x - radius, y - radius, x + radius, y + radius


def _grown(box: Box, by: float) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


DIRECTIONS = ((1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1))  # right, left, above, ...


def label_place(
    x: float,
    y: float,
    width: float,
    bounds: Box,
    taken: Iterable[Box],
    others: Iterable[tuple[float, float]] = (),
    clearance: float = POINT_RADIUS + 1.5,
    leaders: Iterable[tuple[float, float, float, float]] = (),
    labels: Iterable[Box] = (),
) -> LabelPlace:
    """Beside the point at (x, y), right, left, above, below or at a corner, then the same a line further
    and joined to it by a leader: the first place inside ``bounds`` whose label, and leader, touch nothing
    ``taken`` (each grown by ``GAP / 2``) and, without a leader, is nearer its point than any of ``others``,
    so that no reader gives it to another; whose label is clear of the span of every leader already drawn, and
    whose leader's span clear of the ``labels`` already placed (a span is the rectangle a line's ends make, the
    box a browser gives the line: a label is kept out of the corner of a slanted leader too); else the first
    place inside ``bounds``."""
    height = (ASCENT + DESCENT) * TEXT_SIZE
    near = [_grown(box, GAP / 2) for box in taken]
    texts = [_grown(box, GAP / 2) for box in labels]
    drawn = list(leaders)
    others = list(others)
    candidates = []
    for ring in range(6):
        distance = clearance + ring * height
        for dx, dy in DIRECTIONS:
            left = x + distance if dx > 0 else x - distance - width if dx < 0 else x - width / 2
            top = y + distance if dy > 0 else y - distance - height if dy < 0 else y - height / 2
            box = (left, top, left + width, top + height)
            candidates.append(LabelPlace(box, _leader(x, y, box) if ring else None))
    inside = [
        c
        for c in candidates
        if bounds[0] <= c.box[0] and c.box[2] <= bounds[2] and bounds[1] <= c.box[1] and c.box[3] <= bounds[3]
    ]
    for candidate in inside:
        own = _distance(candidate.box, x, y)
        if (
            not any(
                _overlaps(candidate.box, box) or (candidate.leader and _crosses(candidate.leader, box)) for box in near
            )
            and not any(_overlaps(line_span(line), _grown(candidate.box, GAP / 2)) for line in drawn)
            and not (candidate.leader and any(_overlaps(line_span(candidate.leader), box) for box in texts))
            and (candidate.leader or all(_distance(candidate.box, *point) > own + GAP for point in others))
        ):
            return candidate
    return replace((inside or candidates)[0], clear=False)


def _leader(x: float, y: float, box: Box) -> tuple[float, float, float, float]:
    """A line from the edge of the point at (x, y) to 1.5 units short of the nearest point of ``box``."""
    nx, ny = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
    length = math.hypot(nx - x, ny - y)
    ux, uy = (nx - x) / length, (ny - y) / length
    return x + ux * (POINT_RADIUS + 1), y + uy * (POINT_RADIUS + 1), nx - ux * 1.5, ny - uy * 1.5


def _distance(box: Box, x: float, y: float) -> float:
    """From the point (x, y) to the nearest point of ``box``."""
    return math.hypot(x - min(max(x, box[0]), box[2]), y - min(max(y, box[1]), box[3]))


def line_span(line: tuple[float, float, float, float]) -> Box:
    """The rectangle a line's two ends make."""
    x1, y1, x2, y2 = line
    return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)


def _crosses(line: tuple[float, float, float, float], box: Box) -> bool:
    """Whether the segment passes through ``box`` (clipped against its four sides, Liang and Barsky)."""
    x1, y1, x2, y2 = line
    low, high = 0.0, 1.0
    for step, room in ((x1 - x2, x1 - box[0]), (x2 - x1, box[2] - x1), (y1 - y2, y1 - box[1]), (y2 - y1, box[3] - y1)):
        if step == 0:
            if room < 0:
                return False
        elif step < 0:
            low = max(low, room / step)
        else:
            high = min(high, room / step)
    return low < high
