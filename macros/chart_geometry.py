"""Geometry of the guides' SVG charts: scales, round ticks and where each mark goes, in SVG user units.

Plain arithmetic, no drawing: ``templates/bar_chart.svg`` and ``templates/scatter_chart.svg`` draw what these
functions place. Text is left to the reader's browser fonts, so widths are estimates (a CJK character is as
wide as the font size, another character a little over half of it); margins leave room for the widest label.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH = 700.0
FONT_SIZE = 12.0
SMALL_FONT_SIZE = 11.0
BAR_ROW = 28.0
BAR_THICKNESS = 18.0
TICK_LABEL_HEIGHT = 18.0
AXIS_TITLE_HEIGHT = 22.0
GAP = 6.0


def text_width(text: str, font_size: float = FONT_SIZE) -> float:
    """An upper estimate of the width of ``text`` drawn at ``font_size``."""
    return sum(font_size if ord(char) >= 0x2E80 else 0.62 * font_size for char in text)


def round_step(span: float, wanted_ticks: int) -> float:
    """The 1, 2 or 5 times a power of ten that cuts ``span`` into about ``wanted_ticks`` intervals."""
    raw = span / wanted_ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def ticks(low: float, high: float, wanted_ticks: int = 5) -> list[float]:
    """Round tick values from at or below ``low`` to at or above ``high``."""
    if high <= low:
        high = low + 1
    step = round_step(high - low, wanted_ticks)
    first, last = math.floor(low / step), math.ceil(high / step)
    return [round(i * step, 10) for i in range(first, last + 1)]


@dataclass(frozen=True)
class Scale:
    """Maps data values in [low, high] linearly onto user units in [start, end]."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return round(self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start), 1)


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Bar:
    label: str
    value_label: str
    colour: str
    y: float
    width: float


@dataclass(frozen=True)
class Marker:
    """A vertical reference line across the bars, labelled above them."""

    x: float
    label: str
    colour: str
    label_anchor: str


@dataclass(frozen=True)
class BarChart:
    width: float
    height: float
    plot_left: float
    plot_top: float
    plot_bottom: float
    bars: list[Bar]
    ticks: list[Tick]
    axis_title: str
    marker: Marker | None


def bar_chart(labels: list[str], values: list[float], value_labels: list[str], colours: list[str],
              tick_label, axis_title: str, marker: tuple[float, str, str] | None = None) -> BarChart:
    """Horizontal bars, first one on top; ``tick_label`` writes a tick value the page's way;
    ``marker`` is (value, label, colour) of a reference line."""
    plot_left = round(max(text_width(label) for label in labels) + 2 * GAP, 1)
    plot_right = round(WIDTH - max(text_width(label) for label in value_labels) - 2 * GAP, 1)
    plot_top = GAP + (FONT_SIZE + GAP if marker else 0)
    top_value = max([*values, *([marker[0]] if marker else [])])
    tick_values = ticks(0, top_value)
    scale = Scale(0, tick_values[-1], plot_left, plot_right)
    bars = [Bar(label, value_label, colour, plot_top + i * BAR_ROW + (BAR_ROW - BAR_THICKNESS) / 2,
                round(scale(value) - plot_left, 1))
            for i, (label, value, value_label, colour) in enumerate(zip(labels, values, value_labels, colours))]
    plot_bottom = plot_top + len(labels) * BAR_ROW
    placed_marker = None
    if marker:
        x = scale(marker[0])
        anchor = "end" if x + text_width(marker[1], SMALL_FONT_SIZE) > WIDTH else "start"
        placed_marker = Marker(x, marker[1], marker[2], anchor)
    return BarChart(WIDTH, plot_bottom + TICK_LABEL_HEIGHT + AXIS_TITLE_HEIGHT, plot_left, plot_top, plot_bottom,
                    bars, [Tick(scale(v), tick_label(v)) for v in tick_values], axis_title, placed_marker)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    colour: str
    label: str
    label_anchor: str
    label_x: float
    label_y: float

    @property
    def leader(self) -> bool:
        """A label moved off its point's line is joined to it."""
        return not -5.0 <= self.label_y - self.y <= 14.0


Box = tuple[float, float, float, float]  # left, top, right, bottom
LABEL_OFFSETS = (-5.0, 14.0, -19.0, 28.0, -33.0, 42.0, -47.0, 56.0, -61.0, 70.0)  # baseline below the centre
MARKER = 4.5  # radius of a point


def _label_box(point: Point) -> Box:
    width = text_width(point.label, SMALL_FONT_SIZE)
    left = point.label_x if point.label_anchor == "start" else point.label_x - width
    return left, point.label_y - SMALL_FONT_SIZE, left + width, point.label_y + 2


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _label_beside(x: float, y: float, colour: str, label: str, plot_left: float, plot_right: float,
                  taken: list[Box]) -> Point:
    """The point with its label right or left of it, on its line or a few lines above or below (then joined
    to it by a leader line): the first place that stays in the plot and clear of labels already placed, else
    the first that stays in the plot."""
    width = text_width(label, SMALL_FONT_SIZE)
    candidates = [Point(x, y, colour, label, anchor, round(x + dx, 1), round(y + dy, 1))
                  for dy in LABEL_OFFSETS for anchor, dx in (("start", GAP), ("end", -GAP))]
    inside = [c for c in candidates
              if (c.label_x + width <= plot_right if c.label_anchor == "start" else c.label_x - width >= plot_left)]
    for candidate in inside:
        if not any(_overlaps(_label_box(candidate), box) for box in taken):
            return candidate
    return (inside or candidates)[0]


@dataclass(frozen=True)
class LegendEntry:
    colour: str
    label: str
    x: float


@dataclass(frozen=True)
class ScatterChart:
    width: float
    height: float
    plot_left: float
    plot_right: float
    plot_top: float
    plot_bottom: float
    points: list[Point]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_title: str
    y_title: str
    legend: list[LegendEntry]
    marker_radius: float = MARKER


SCATTER_PLOT_HEIGHT = 280.0


def scatter_chart(points: list[tuple[float, float, str, str]], x_tick_label, y_tick_label, x_title: str,
                  y_title: str, legend_items: list[tuple[str, str]]) -> ScatterChart:
    """Points (x, y, colour, label) on round-ticked axes, labels beside the points, a legend on top."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x_values, y_values = ticks(min(xs), max(xs), 6), ticks(0, max(ys))
    y_labels = [y_tick_label(v) for v in y_values]
    plot_left = round(AXIS_TITLE_HEIGHT + max(text_width(label) for label in y_labels) + GAP, 1)
    plot_right = WIDTH - 4 * FONT_SIZE  # half the last tick label
    plot_top = GAP + FONT_SIZE + 2 * GAP
    plot_bottom = plot_top + SCATTER_PLOT_HEIGHT
    x_scale = Scale(x_values[0], x_values[-1], plot_left, plot_right)
    y_scale = Scale(y_values[0], y_values[-1], plot_bottom, plot_top)
    centres = [(x_scale(x), y_scale(y), colour, label) for x, y, colour, label in sorted(points)]
    boxes: list[Box] = [(x - MARKER, y - MARKER, x + MARKER, y + MARKER) for x, y, _, _ in centres]
    placed: list[Point] = []
    for x, y, colour, label in centres:
        point = _label_beside(x, y, colour, label, plot_left, plot_right, boxes)
        placed.append(point)
        boxes.append(_label_box(point))
    legend, legend_x = [], plot_left
    for colour, label in legend_items:
        legend.append(LegendEntry(colour, label, legend_x))
        legend_x = round(legend_x + 3 * GAP + text_width(label) + 2 * GAP, 1)
    return ScatterChart(WIDTH, plot_bottom + TICK_LABEL_HEIGHT + AXIS_TITLE_HEIGHT, plot_left, plot_right, plot_top,
                        plot_bottom, placed, [Tick(x_scale(v), x_tick_label(v)) for v in x_values],
                        [Tick(y_scale(v), label) for v, label in zip(y_values, y_labels)], x_title, y_title, legend)
