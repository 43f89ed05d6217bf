"""Draw a chart described by plain data (a ``BarChart`` or a ``ScatterChart``) as SVG with matplotlib.

Text stays text (the browser renders Chinese labels with its own fonts), ticks are written the way the page's
language writes numbers and money, ids are salted so two builds give the same bytes. Drawing is a pure
function of the description, so its SVG is kept by a hash of the description, the drawing and formatting
code and the matplotlib and Babel versions (``chart_key``): in memory for ``mkdocs serve``, and on disk (see
``sizing.disk_cache``) so that a build whose charts did not change neither imports matplotlib nor draws.
A description travels as JSON (``to_json``, ``from_json``) to the helper process that draws while the
build goes on (``chart_helper``).
"""
from __future__ import annotations

import io
import json
import re
import warnings
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path

from sizing import disk_cache

from .formatting import formatter

STYLE = {
    "svg.fonttype": "none",             # keep text as <text>, so any script renders with the reader's fonts
    "svg.hashsalt": "gpu-node-guides",  # stable ids: two builds give the same bytes
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
LABEL_SIZE = 10.0        # tick and bar labels, in points
POINT_LABEL_SIZE = 7.0
WIDTH_INCHES = 7.0


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


Chart = BarChart | ScatterChart
_drawn: dict[str, str] = {}


def svg(chart: Chart) -> str:
    """The chart as an SVG document without size or metadata, drawn here once per distinct description."""
    key = chart_key(chart)
    document = stored(key)
    if document is None:
        document = draw(chart)
        keep(key, document)
    return document


def stored(key: str) -> str | None:
    """The drawing of ``key`` if this process or the build cache has it."""
    if key not in _drawn:
        cached = disk_cache.read("charts", key)
        if cached is None:
            return None
        _drawn[key] = cached.decode("utf-8")
    return _drawn[key]


def keep(key: str, document: str) -> None:
    _drawn[key] = document
    disk_cache.write("charts", key, document.encode("utf-8"))


def chart_key(chart: Chart) -> str:
    """Everything the drawing depends on: the description, the code that draws it and writes its ticks,
    and the versions of matplotlib and of Babel (whose locale data writes the ticks)."""
    return disk_cache.content_key(_CODE_VERSION, to_json(chart).encode())


_CODE_VERSION = (Path(__file__).read_bytes() + Path(__file__).with_name("formatting.py").read_bytes()
                 + f"matplotlib {version('matplotlib')} babel {version('babel')}".encode())


def to_json(chart: Chart) -> str:
    return json.dumps({"type": type(chart).__name__, **asdict(chart)}, ensure_ascii=False, sort_keys=True)


def from_json(text: str) -> Chart:
    """The chart ``to_json`` wrote (JSON lists back into the tuples the descriptions hold)."""
    fields = json.loads(text)
    kind = fields.pop("type")
    if kind == "BarChart":
        marker = fields.pop("marker")
        return BarChart(**{name: tuple(value) if isinstance(value, list) else value for name, value in fields.items()},
                        marker=tuple(marker) if marker else None)
    if kind == "ScatterChart":
        return ScatterChart(fields["lang"], tuple(tuple(point) for point in fields["points"]), fields["x_title"],
                            fields["y_title"], tuple(tuple(item) for item in fields["legend"]), fields["currency"])
    raise ValueError(f"unknown chart type {kind!r}")


# --- drawing ----------------------------------------------------------------------------------------------
def draw(chart: Chart) -> str:
    import matplotlib  # imported only when a chart is not drawn yet: about a third of a second
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        # Margins are set from the labels' estimated widths rather than measured by a "tight" bounding box,
        # which would draw the figure twice.
        if isinstance(chart, BarChart):
            height = 0.42 * len(chart.labels) + 0.95
            figure = Figure(figsize=(WIDTH_INCHES, height))
            left = max(text_width(label, LABEL_SIZE) for label in chart.labels) / 72 + 0.2
            right = max(text_width(label, LABEL_SIZE) for label in chart.value_labels) / 72 + 0.1
            figure.subplots_adjust(left=left / WIDTH_INCHES, right=1 - right / WIDTH_INCHES,
                                   top=1 - 0.3 / height, bottom=0.65 / height)
            _draw_bars(figure, chart)
        else:
            height = 4.4
            figure = Figure(figsize=(WIDTH_INCHES, height))
            figure.subplots_adjust(left=1.0 / WIDTH_INCHES, right=1 - 0.15 / WIDTH_INCHES,
                                   top=1 - 0.35 / height, bottom=0.65 / height)
            _draw_scatter(figure, chart)
        buffer = io.StringIO()
        with warnings.catch_warnings():
            # Chinese labels are measured with a Latin font's metrics; the browser draws them with its own fonts
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    document = buffer.getvalue()
    document = document[document.index("<svg"):]
    return re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r"<svg \1", document, count=1)


def _tick_formatter(lang: str, money: str | None = None):  # noqa: ANN202 - matplotlib FuncFormatter
    from matplotlib.ticker import FuncFormatter

    f = formatter(lang)

    def write(value: float, _position: int) -> str:
        decimals = len(f"{value:g}".partition(".")[2])
        return f.money(value, money, decimals) if money else f.number(value, decimals)
    return FuncFormatter(write)


def _draw_bars(figure, chart: BarChart) -> None:  # noqa: ANN001 - matplotlib Figure
    axes = figure.add_subplot()
    bars = axes.barh(list(chart.labels), list(chart.values), color=list(chart.colours))
    axes.bar_label(bars, labels=list(chart.value_labels), padding=3)
    axes.xaxis.set_major_formatter(_tick_formatter(chart.lang))
    axes.set_xlabel(chart.axis_title)
    axes.invert_yaxis()  # the first bar on top
    if chart.marker:
        value, label, colour = chart.marker
        axes.axvline(value, color=colour, linestyle="--")
        axes.text(value, -0.6, " " + label, color=colour, fontsize=8, va="bottom")


def _draw_scatter(figure, chart: ScatterChart) -> None:  # noqa: ANN001 - matplotlib Figure
    from matplotlib.lines import Line2D

    axes = figure.add_subplot()
    axes.scatter([p[0] for p in chart.points], [p[1] for p in chart.points], color=[p[2] for p in chart.points],
                 s=28, zorder=3)
    axes.set_ylim(bottom=0)
    axes.xaxis.set_major_formatter(_tick_formatter(chart.lang, chart.currency))
    axes.yaxis.set_major_formatter(_tick_formatter(chart.lang))
    axes.set_xlabel(chart.x_title)
    axes.set_ylabel(chart.y_title)
    axes.legend(handles=[Line2D([], [], marker="o", linestyle="", color=colour, label=label)
                         for colour, label in chart.legend],
                loc="lower left", bbox_to_anchor=(0, 1.01), ncols=len(chart.legend), fontsize=8, frameon=False)
    axes.get_xlim(), axes.get_ylim()  # settle the autoscaled limits before placing labels in display units
    # Labels beside their points, kept clear of each other and of the points (in display units, once the
    # axes' limits are set), joined to their point by a thin line when moved off its line.
    to_display = axes.transData.transform
    plot = axes.get_window_extent()
    points = sorted(chart.points)
    centres = [tuple(to_display((x, y))) for x, y, _, _ in points]
    scale = figure.dpi / 72  # display units per typographic point
    taken = [_box_around(cx, cy, 4 * scale) for cx, cy in centres]
    for (x, y, _, label), (cx, cy) in zip(points, centres):
        place = label_place(cx, cy, text_width(label, POINT_LABEL_SIZE) * scale, POINT_LABEL_SIZE * scale,
                            (plot.x0, plot.x1), taken, step=POINT_LABEL_SIZE * 1.6 * scale, gap=4 * scale)
        taken.append(place.box)
        axes.annotate(label, (x, y), xytext=(place.dx / scale, place.dy / scale), textcoords="offset points",
                      fontsize=POINT_LABEL_SIZE, ha=place.align, va="bottom",
                      arrowprops={"arrowstyle": "-", "lw": 0.5, "alpha": 0.5} if place.moved else None)


# --- label placement (display units, y upwards) -----------------------------------------------------------
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
