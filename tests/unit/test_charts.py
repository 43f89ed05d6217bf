"""Charts drawn as inline SVG for a phone's column: text large enough there, round ticks written as each
language writes them and never touching, bars as long as their values under their labels, points numbered
and named in a key, no label on a mark or another label, text escaped, and the drawing kept out of reading
times and search (a chart is read through its title and text alternative)."""

import itertools
import math
import re
from itertools import combinations

import pytest

from macros.base.errors import MacroError
from macros.output.svg import (
    BOLD,
    DESCENT,
    DRAWING,
    GAP,
    LINE,
    POINT_RADIUS,
    TEXT_SIZE,
    WIDTH,
    BarChart,
    Chart,
    LabelPlace,
    LogScatterChart,
    ScatterChart,
    _box_around,
    _crosses,
    _overlaps,
    draw,
    label_place,
    line_span,
    nice_ticks,
    text_box,
    text_width,
    tick_labels,
)

LINKS = BarChart(
    "zh",
    ("NVLink 4", "PCIe Gen5 ×16"),
    (450.0, 63.0),
    ("450 GB/s", "63 GB/s"),
    ("#3949ab", "#8d6e63"),
    "每卡带宽（GB/s，单向）",
    markers=((300.0, '预算 "300" & <更多>', "#c62828"),),
)
# the quantization guide's chart: a value label (45,1 Gio) crosses the budget's line, which breaks around it
MEMORY = BarChart(
    "fr",
    ("BF16", "FP8", "INT4 AWQ/GPTQ", "GGUF Q8_0", "GGUF Q4_K_M"),
    (139.5, 75.7, 45.1, 74.1, 44.4),
    ("139,5 Gio", "75,7 Gio", "45,1 Gio", "74,1 Gio", "44,4 Gio"),
    ("#3949ab",) * 3 + ("#8d6e63",) * 2,
    "Gio sur une carte",
    markers=(
        (71.3, "vLLM / SGLang : 71,3 Gio utilisables", "#c62828"),
        (79.2, "llama.cpp : 79,2 Gio utilisables", "#2e7d32"),
    ),
)
PRICES = ScatterChart(
    "fr",
    (
        (2800.0, 6.5, "#8d6e63", "4 × A40"),
        (30600.0, 18.4, "#3949ab", "8 × B200"),
        (15500.0, 30.7, "#3949ab", "8 × H100 SXM5"),
    ),
    "Prix par mois ($US)",
    "Plancher (tokens/s)",
    (("#3949ab", "NVLink"), ("#8d6e63", "PCIe")),
)
# the mixture-of-experts guide's crowd: ten nodes between $4,157 and $9,380, at 51 to 65 tokens/s
CROWD = ScatterChart(
    "en",
    tuple(
        (price, speed, "#3949ab", f"{cards} × {gpu}")
        for price, speed, cards, gpu in (
            (4157, 53, 4, "A100 80GB PCIe"),
            (4395, 63, 4, "A100 80GB SXM4"),
            (4400, 51, 4, "RTX PRO 6000"),
            (4720, 65, 2, "H200 NVL"),
            (5920, 51, 8, "L40S"),
            (7900, 59, 4, "H100 NVL"),
            (8260, 53, 8, "A100 80GB PCIe"),
            (8730, 63, 8, "A100 80GB SXM4"),
            (8740, 51, 8, "RTX PRO 6000"),
            (9380, 65, 4, "H200 NVL"),
            (15480, 69, 8, "H100 SXM5"),
            (19650, 65, 8, "H200 SXM"),
            (30600, 71, 8, "B200"),
        )
    ),
    "Price per month (US$)",
    "Typical speed, one stream (tokens/s)",
    (("#3949ab", "NVLink between the cards"), ("#8d6e63", "PCIe between the cards, or one card")),
)
ACCURACY = LogScatterChart(
    "fr",
    ((1.5, 2.0, "#3949ab"), (276.0, 301.0, "#3949ab"), (13.0, 30.0, "#9e9e9e"), (900.0, 610.0, "#3949ab")),
    "Mesuré (tokens/s, échelle logarithmique)",
    "Estimé (tokens/s, échelle logarithmique)",
    (("#3949ab", "prise en compte"), ("#9e9e9e", "écartée")),
    "à 2× près",
)
ALL: list[Chart] = [LINKS, MEMORY, PRICES, CROWD, ACCURACY]


def _texts(svg: str) -> list[tuple[float, float, str, str, bool]]:
    """(x, baseline, anchor, content, bold) of every text of the drawing."""
    found = re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)"( text-anchor="(\w+)")?[^>]*?( font-weight="bold")?>'
        r"([^<]*)</text>",
        DRAWING.search(svg).group(0),
    )
    return [
        (
            float(x),
            float(y),
            anchor or "start",
            content.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"),
            bool(bold),
        )
        for x, y, _, anchor, bold, content in found
    ]


def _text_boxes(svg: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    boxes = []
    for x, baseline, anchor, content, bold in _texts(svg):
        width = text_width(content) * (BOLD if bold else 1)
        left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
        box = text_box(left, baseline, content)
        boxes.append((content, (box[0], box[1], box[0] + width, box[3])))
    return boxes


def _mark_boxes(svg: str) -> list[tuple[float, float, float, float]]:
    """Every point and bar."""
    circles = [
        _box_around(float(x), float(y), float(r))
        for x, y, r in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"', svg)
    ]
    bars = [
        (float(x), float(y), float(x) + float(w), float(y) + float(h))
        for x, y, w, h in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    ]
    return circles + bars


def _height(svg: str) -> float:
    return float(re.search(r'viewBox="0 0 [\d.]+ ([\d.]+)"', svg).group(1))


# --- sizes ----------------------------------------------------------------------------------------------------
def test_text_is_11_css_px_or_more_when_the_chart_fills_a_390_px_phones_column():
    column_px = 390 - 2 * 16  # Material's content padding: 0.8rem at a 20 px root
    assert TEXT_SIZE * column_px / WIDTH >= 11  # 12 × 358 / 340 = 12.6 px
    assert TEXT_SIZE * 312 / WIDTH >= 11  # and still 11 px in a 312 px column
    for chart in ALL:
        svg = draw(chart, "t", "d")
        assert f'viewBox="0 0 {WIDTH:g} ' in svg and f'font-size="{TEXT_SIZE:g}"' in svg
        assert "font-size" not in DRAWING.search(svg).group(0)  # no text made smaller than the rest


def test_chinese_text_is_measured_wider_than_latin_text_of_the_same_length():
    assert text_width("每月价格", 10) == 40
    assert text_width("abcd", 10) < text_width("每月价格", 10)


def test_a_label_has_room_for_the_tallest_font_readers_have_and_two_lines_do_not_meet():
    """Noto Sans CJK (Debian's fonts-noto-cjk) gives a line of 12-unit text a box from 13.9 units above the
    baseline to 3.5 below (1.16 and 0.29 of the size, measured in Chromium): the box must hold it, and the
    next line start under it."""
    _, top, _, bottom = text_box(0, 100, "典型速度")
    assert top <= 100 - 1.16 * TEXT_SIZE and bottom >= 100 + 0.29 * TEXT_SIZE
    assert bottom - top <= LINE


def test_in_a_crowd_no_number_sits_on_a_leader_line_or_in_its_span():
    svg = draw(CROWD, "t", "d")
    leaders = [
        (float(x1), float(y1), float(x2), float(y2))
        for x1, y1, x2, y2 in re.findall(
            r'<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"[^>]*stroke-width="0.6"', svg
        )
    ]
    numbers = [box for text, box in _text_boxes(svg) if text.isdigit()]
    assert leaders and numbers
    assert not [(line, box) for line in leaders for box in numbers if _crosses(line, box)]
    assert not [(line, box) for line in leaders for box in numbers if _overlaps(line_span(line), box)]


def test_a_number_keeps_out_of_the_span_of_a_slanted_leader_already_drawn():
    """A Chinese price chart of Qwen3 235B once put number 2 below its point, 14 units from the leader of number 3
    but inside the rectangle its ends make, which is the box a browser gives the line: it now goes elsewhere."""
    leader = (43.01, 118.66, 61.38, 137.03)
    place = label_place(48.93, 130.41, BOLD * text_width("2"), (0, 0, WIDTH, 300), [], [], leaders=[leader])
    assert not _overlaps(line_span(leader), place.box)


def test_a_leader_keeps_its_span_off_the_numbers_already_placed():
    """Number 3 of such a chart, boxed in by points 2, 4 and 5 and number 2 below: its one free leader runs down to
    the right with number 2 inside its span. Told the numbers placed, no place is clear, and the chart places
    that number before the others on its next try."""
    number_2 = (44.63, 152.9, 53.2, 170.7)
    neighbours = [(43.62, 126.61), (56.52, 136.61), (40.13, 161.79)]
    taken = [_box_around(x, y, POINT_RADIUS + 1) for x, y in neighbours] + [number_2]
    width, bounds = BOLD * text_width("3"), (24.36, 40, WIDTH, 300)
    alone = label_place(40.18, 133.84, width, bounds, taken, neighbours)
    assert alone.leader and _overlaps(line_span(alone.leader), number_2)
    told = label_place(40.18, 133.84, width, bounds, taken, neighbours, labels=[number_2])
    assert not told.clear


# --- ticks ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "low, high, ticks",
    [
        (0, 146.0, [0, 20, 40, 60, 80, 100, 120, 140]),  # steps of 2 × 10
        (0, 945.0, [0, 200, 400, 600, 800]),
        (1410.0, 32190.0, [5000, 10000, 15000, 20000, 25000, 30000]),  # not from zero: a price axis
        (0, 19.0, [0, 2.5, 5, 7.5, 10, 12.5, 15, 17.5]),  # steps of 2.5
        (0, 0.9, [0, 0.2, 0.4, 0.6, 0.8]),
    ],
)
def test_ticks_fall_on_round_values_inside_the_axis(low, high, ticks):
    assert nice_ticks(low, high) == pytest.approx(ticks)


def test_fewer_intervals_give_longer_round_steps():
    # 30,780 / 6 = 5,130: a step of 10,000 (5,000 is too short)
    assert nice_ticks(1410.0, 32190.0, most=6) == pytest.approx([10000, 20000, 30000])


def test_tick_labels_are_written_as_the_language_writes_numbers_and_money_with_the_steps_decimals():
    assert [label for _, label in tick_labels(0, 19.0, "en")][:3] == ["0.0", "2.5", "5.0"]
    assert [label for _, label in tick_labels(0, 19.0, "fr")][:2] == ["0,0", "2,5"]
    assert tick_labels(1410.0, 32190.0, "en", "USD")[0][1] == "$5,000"
    assert tick_labels(1410.0, 32190.0, "fr", "USD")[0][1] == "5\u202f000\u00a0$US"
    assert tick_labels(1410.0, 32190.0, "zh", "USD")[0][1] == "US$5,000"


def test_a_narrow_price_axis_takes_as_many_ticks_as_its_labels_leave_room_for():
    # 13 nodes from $4,157 to $30,600: "$5,000" steps would put 6 labels of 7 characters in 280 units
    svg = draw(CROWD, "t", "d")
    assert [t[3] for t in _texts(svg) if t[3].startswith("$")] == ["$10,000", "$20,000", "$30,000"]


def test_a_log_axis_labels_every_power_of_ten_and_2_and_5_where_they_fit():
    svg = draw(ACCURACY, "Titre", "Description")
    numbers = [t for t in _texts(svg) if re.fullmatch(r"[\d\u202f]+", t[3])]
    across = [t[3] for t in numbers if t[2] != "end"]
    up = [t[3] for t in numbers if t[2] == "end"]
    # from 1.5 to 900: the decades 1 to 1,000; three decades in 290 units leave 29 units between 500 and
    # 1 000, less than half their labels' widths (11.5 + 19.2) and a gap: 500 goes, 1 000 stays
    assert sorted(across, key=lambda label: int(label.replace("\u202f", ""))) == [
        "1",
        "2",
        "5",
        "10",
        "20",
        "50",
        "100",
        "200",
        "1\u202f000",
    ]
    assert up == ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1\u202f000"]  # 29 units > a line
    assert svg.count("<circle") == 4 + 2  # one per point, one per dot in the legend
    assert svg.count('stroke-dasharray="4 3"') == 2 + 1  # y = 2x and y = x/2, and the legend's sample


# --- bars -----------------------------------------------------------------------------------------------------
def _rects(svg: str) -> list[tuple[float, float]]:
    return [(float(x), float(width)) for x, width in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)]


def test_each_bar_is_as_long_as_its_value_and_the_marker_stands_at_its_value():
    svg = draw(LINKS, "Bande passante", "NVLink 4 : 450 GB/s")
    (left, long_bar), (_, short_bar) = _rects(svg)
    assert long_bar / short_bar == pytest.approx(450 / 63, rel=1e-3)
    marker = float(re.search(r'<line x1="([\d.]+)"[^>]*stroke="#c62828"', svg).group(1))
    assert (marker - left) / long_bar == pytest.approx(300 / 450, rel=1e-3)


def test_each_marker_has_a_label_row_of_its_own_and_a_line_at_its_value():
    svg = draw(MEMORY, "t", "d")
    texts = {t[3]: t for t in _texts(svg)}
    server, llama_cpp = (texts[label] for _, label, _ in MEMORY.markers)
    assert llama_cpp[1] > server[1]  # the second label on the row below
    (left, first_bar), *_ = _rects(svg)
    for (value, _, colour), bar_value in zip(MEMORY.markers, (139.5, 139.5), strict=True):
        x = float(re.search(rf'<line x1="([\d.]+)"[^>]*stroke="{colour}"', svg).group(1))
        assert (x - left) / first_bar == pytest.approx(value / bar_value, rel=1e-3)


def test_each_label_stands_above_its_bar_and_each_value_at_its_end():
    svg = draw(MEMORY, "t", "d")
    bars = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg)
    texts = {t[3]: t for t in _texts(svg)}
    for (x, y, width, height), label, value in zip(bars, MEMORY.labels, MEMORY.value_labels, strict=True):
        assert texts[label][1] + DESCENT * TEXT_SIZE <= float(y)  # above its bar
        assert texts[value][0] == pytest.approx(float(x) + float(width) + GAP, abs=0.01)  # after its end
        assert float(y) < texts[value][1] < float(y) + float(height) + DESCENT * TEXT_SIZE


def test_the_markers_line_breaks_where_a_label_crosses_it():
    svg = draw(MEMORY, "t", "d")
    segments = [
        tuple(map(float, s))
        for s in re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="[\d.]+" y2="([\d.]+)" stroke="#c62828"', svg)
    ]
    at, top, bottom = segments[0][0], segments[0][1], segments[-1][2]
    crossed = [box for text, box in _text_boxes(svg) if box[0] < at < box[2] and top < box[3] and box[1] < bottom]
    assert [text for text, box in _text_boxes(svg) if box in crossed] == ["45,1 Gio", "44,4 Gio"]
    assert len(segments) == 3  # broken twice, around each of them
    for ((_, _, upper), (_, lower, _)), box in zip(itertools.pairwise(segments), crossed, strict=True):
        assert upper <= box[1] and box[3] <= lower


# --- scatter plots --------------------------------------------------------------------------------------------
def test_every_point_is_drawn_where_its_values_put_it():
    svg = draw(PRICES, "t", "d")
    drawn = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg)]
    xs, ys = zip(*drawn[len(PRICES.legend) :], strict=True)  # after the legend's dots, by price
    prices, floors = zip(*[(p[0], p[1]) for p in sorted(PRICES.points)], strict=True)
    hundredth = 1e-3  # coordinates are written to a hundredth
    assert (xs[2] - xs[0]) / (xs[1] - xs[0]) == pytest.approx(
        (prices[2] - prices[0]) / (prices[1] - prices[0]), rel=hundredth
    )
    assert (ys[0] - ys[1]) / (ys[0] - ys[2]) == pytest.approx(
        (floors[1] - floors[0]) / (floors[2] - floors[0]), rel=hundredth
    )


def test_points_are_numbered_by_price_and_named_in_a_key_of_two_columns():
    svg = draw(CROWD, "t", "d")
    bold = [t for t in _texts(svg) if t[4]]
    on_points, in_key = bold[:13], bold[13:]
    assert [t[3] for t in on_points] == [t[3] for t in in_key] == [str(n) for n in range(1, 14)]
    names = [t[3] for t in _texts(svg) if "×" in t[3]]
    assert names == [p[3] for p in sorted(CROWD.points)]
    assert len({t[0] for t in in_key}) == 2  # two columns: 1 to 7, then 8 to 13 beside 1 to 6
    assert [t[1] for t in in_key[7:]] == [t[1] for t in in_key[:6]]


@pytest.mark.parametrize("chart", ALL, ids=["links", "memory", "prices", "crowd", "accuracy"])
def test_no_label_touches_another_label_or_a_mark_or_leaves_the_chart(chart):
    svg = draw(chart, "t", "d")
    texts, marks = _text_boxes(svg), _mark_boxes(svg)
    assert not [(a, b) for (a, box_a), (b, box_b) in combinations(texts, 2) if _overlaps(box_a, box_b)]
    assert not [(text, mark) for text, box in texts for mark in marks if _overlaps(box, mark)]
    hundredth = 0.01  # coordinates are written to a hundredth
    assert all(
        -hundredth <= box[0]
        and box[2] <= WIDTH + hundredth
        and -hundredth <= box[1]
        and box[3] <= _height(svg) + hundredth
        for _, box in texts
    )


def _reach(box: tuple[float, float, float, float], x: float, y: float) -> float:
    """From a point to the nearest point of a box."""
    return math.hypot(x - min(max(x, box[0]), box[2]), y - min(max(y, box[1]), box[3]))


def test_in_a_crowd_a_number_is_nearer_its_own_point_than_any_other_or_joined_to_it():
    points = [(100 + 4 * i, 200 + 8 * i) for i in range(7)] + [(330, 300)]  # 9 units apart, on a diagonal
    dots = [_box_around(x, y, 4) for x, y in points]
    bounds = (50, 100, 335, 400)
    placed: list[LabelPlace] = []
    for index, (x, y) in enumerate(points):
        others = points[:index] + points[index + 1 :]
        place = label_place(
            x, y, text_width(str(index + 1)), bounds, dots[:index] + dots[index + 1 :] + [p.box for p in placed], others
        )
        placed.append(place)
        assert place.leader or all(_reach(place.box, x, y) < _reach(place.box, *other) for other in others)
    boxes = [p.box for p in placed]
    assert not [pair for pair in combinations(boxes, 2) if _overlaps(*pair)]
    assert not [(box, dot) for box in boxes for dot in dots if _overlaps(box, dot)]
    assert all(bounds[0] <= box[0] and box[2] <= bounds[2] for box in boxes)
    assert placed[-1].box[2] < 330 and not placed[-1].leader  # near the right edge: on its left, beside it
    assert any(p.leader for p in placed)  # the crowd needed leader lines


def test_a_label_too_wide_for_a_phone_fails_the_build_with_its_fix():
    too_long = BarChart("en", ("a",), (1.0,), ("1",), ("#3949ab",), "x" * 60)
    with pytest.raises(MacroError, match=r"wider than a phone's chart.*shorten it in macros/output/strings\.yml"):
        draw(too_long, "t", "d")


# --- text ---------------------------------------------------------------------------------------------------
def test_text_is_text_escaped_titled_and_described():
    svg = draw(LINKS, "Bande passante <NVLink>", "NVLink 4 : 450 GB/s")
    assert svg.startswith('<svg role="img" class="chart" viewBox="0 0 340 ')
    assert "<title>Bande passante &lt;NVLink&gt;</title><desc>NVLink 4 : 450 GB/s</desc>" in svg
    assert '>预算 "300" &amp; &lt;更多&gt;</text>' in svg and ">每卡带宽（GB/s，单向）</text>" in svg
    assert "font-family" in svg and 'fill="currentColor"' in svg  # text in the page's colour


def test_the_drawing_is_kept_out_of_reading_times_and_search_but_not_its_title_and_description():
    svg = draw(PRICES, "Prix et plancher", "4 × A40 : 2 800 $US")
    assert DRAWING.sub("", svg) == (
        f'<svg role="img" class="chart" viewBox="0 0 340 {_height(svg):g}" font-family="sans-serif" '
        'font-size="12"><title>Prix et plancher</title><desc>4 × A40 : 2 800 $US</desc></svg>'
    )
    assert "8 × B200" in svg and "10\u202f000\u00a0$US" in svg
