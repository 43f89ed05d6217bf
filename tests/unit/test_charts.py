"""Charts drawn as inline SVG: round ticks written as each language writes them, bars as long as their values,
labels of a crowded scatter plot kept apart, text escaped, and the drawing kept out of reading times and
search (a chart is read through its title and text alternative)."""
import re
from itertools import combinations

import pytest

from macros.output.svg import (
    DRAWING, BarChart, LogScatterChart, ScatterChart, _box_around, _overlaps, draw, label_place, nice_ticks, text_width, tick_labels,
)

LINKS = BarChart("zh", ("NVLink 4", "PCIe Gen5 ×16"), (450.0, 63.0), ("450 GB/s", "63 GB/s"), ("#3949ab", "#8d6e63"),
                 "每卡带宽（GB/s，单向）", marker=(300.0, "预算 \"300\" & <更多>", "#c62828"))
PRICES = ScatterChart("fr", ((2800.0, 6.5, "#8d6e63", "4 × A40"), (30600.0, 18.4, "#3949ab", "8 × B200"),
                             (15500.0, 30.7, "#3949ab", "8 × H100 SXM5")),
                      "Prix par mois ($US)", "Plancher (tokens/s)", (("#3949ab", "NVLink"), ("#8d6e63", "PCIe")))


def test_chinese_text_is_measured_wider_than_latin_text_of_the_same_length():
    assert text_width("每月价格", 10) == 40
    assert text_width("abcd", 10) < text_width("每月价格", 10)


@pytest.mark.parametrize("low, high, ticks", [
    (0, 146.0, [0, 20, 40, 60, 80, 100, 120, 140]),                 # steps of 2 × 10
    (0, 945.0, [0, 200, 400, 600, 800]),
    (1410.0, 32190.0, [5000, 10000, 15000, 20000, 25000, 30000]),   # not from zero: a price axis
    (0, 19.0, [0, 2.5, 5, 7.5, 10, 12.5, 15, 17.5]),                # steps of 2.5
    (0, 0.9, [0, 0.2, 0.4, 0.6, 0.8]),
])
def test_ticks_fall_on_round_values_inside_the_axis(low, high, ticks):
    assert nice_ticks(low, high) == pytest.approx(ticks)


def test_tick_labels_are_written_as_the_language_writes_numbers_and_money_with_the_steps_decimals():
    assert [label for _, label in tick_labels(0, 19.0, "en")][:3] == ["0.0", "2.5", "5.0"]
    assert [label for _, label in tick_labels(0, 19.0, "fr")][:2] == ["0,0", "2,5"]
    assert tick_labels(1410.0, 32190.0, "en", "USD")[0][1] == "$5,000"
    assert tick_labels(1410.0, 32190.0, "fr", "USD")[0][1] == "5\u202f000\u00a0$US"
    assert tick_labels(1410.0, 32190.0, "zh", "USD")[0][1] == "US$5,000"


def _rects(svg: str) -> list[tuple[float, float]]:
    return [(float(x), float(width)) for x, width in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)]


def test_each_bar_is_as_long_as_its_value_and_the_marker_stands_at_its_value():
    svg = draw(LINKS, "Bande passante", "NVLink 4 : 450 GB/s")
    (left, long_bar), (_, short_bar) = _rects(svg)
    assert long_bar / short_bar == pytest.approx(450 / 63, rel=1e-3)
    marker = float(re.search(r'<line x1="([\d.]+)"[^>]*stroke="#c62828"', svg).group(1))
    assert (marker - left) / long_bar == pytest.approx(300 / 450, rel=1e-3)


def test_text_is_text_escaped_titled_and_described():
    svg = draw(LINKS, "Bande passante <NVLink>", "NVLink 4 : 450 GB/s")
    assert svg.startswith('<svg role="img" class="chart" viewBox="0 0 504 ')
    assert "<title>Bande passante &lt;NVLink&gt;</title><desc>NVLink 4 : 450 GB/s</desc>" in svg
    assert '>预算 "300" &amp; &lt;更多&gt;</text>' in svg and ">每卡带宽（GB/s，单向）</text>" in svg
    assert "font-family" in svg and 'fill="currentColor"' in svg  # text in the page's colour


def test_the_drawing_is_kept_out_of_reading_times_and_search_but_not_its_title_and_description():
    svg = draw(PRICES, "Prix et plancher", "4 × A40 : 2 800 $US")
    assert DRAWING.sub("", svg) == (
        '<svg role="img" class="chart" viewBox="0 0 504 316.8" font-family="sans-serif" font-size="10">'
        '<title>Prix et plancher</title><desc>4 × A40 : 2 800 $US</desc></svg>')
    assert "8 × B200" in svg and "5\u202f000\u00a0$US" in svg


def test_every_point_is_drawn_where_its_values_put_it():
    svg = draw(PRICES, "t", "d")
    drawn = [(float(x), float(y)) for x, y in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg)]
    xs, ys = zip(*drawn[len(PRICES.legend):])        # after the legend's dots, by price
    prices, floors = zip(*[(p[0], p[1]) for p in sorted(PRICES.points)])
    hundredth = 1e-3  # coordinates are written to a hundredth
    assert (xs[2] - xs[0]) / (xs[1] - xs[0]) == pytest.approx((prices[2] - prices[0]) / (prices[1] - prices[0]),
                                                              rel=hundredth)
    assert (ys[0] - ys[1]) / (ys[0] - ys[2]) == pytest.approx((floors[1] - floors[0]) / (floors[2] - floors[0]),
                                                              rel=hundredth)


def test_labels_in_a_crowd_overlap_no_other_label_and_no_point_and_stay_in_the_plot():
    points = [(100 + 3 * i, 200 + 4 * i) for i in range(7)] + [(580, 300)]
    taken = [_box_around(x, y, 4) for x, y in points]
    placed = []
    for x, y in points:
        place = label_place(x, y, text_width("4 × A100 80GB SXM4", 7), 7, (50, 600), taken, step=11, gap=4)
        placed.append(place)
        taken.append(place.box)
    boxes = [p.box for p in placed]
    assert not [pair for pair in combinations(boxes, 2) if _overlaps(*pair)]
    assert not [(box, x, y) for box in boxes for x, y in points if _overlaps(box, _box_around(x, y, 4))]
    assert all(50 <= box[0] and box[2] <= 600 for box in boxes)
    assert placed[-1].align == "right" and not placed[-1].moved  # near the right edge: on its left, on its line
    assert any(p.moved for p in placed)  # the crowd needed leader lines


def test_an_estimate_against_a_measurement_is_drawn_on_log_axes_spanning_whole_decades():
    chart = LogScatterChart("fr", ((16.0, 15.2, "#3949ab"), (276.0, 301.0, "#3949ab"), (13.0, 30.0, "#9e9e9e")),
                            "Mesuré", "Estimé", (("#3949ab", "prise en compte"),), "à 2× près")
    svg = draw(chart, "Titre", "Description")
    ticks = re.findall(r'text-anchor="middle"[^>]*>([^<]+)</text>', svg)
    # from 13 to 301: the decades 10 to 1,000, ticks at 1, 2 and 5 of each, written the French way
    assert ticks[:7] == ["10", "20", "50", "100", "200", "500", "1\u202f000"]
    assert svg.count("<circle") == 3 + 1                      # one per point, one in the legend
    assert svg.count('stroke-dasharray="4 3"') == 2 + 1       # y = 2x and y = x/2, and the legend's sample
