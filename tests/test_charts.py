"""Chart geometry: round ticks, scales, bars in proportion, labels that stay clear of each other."""
from itertools import combinations

from macros.chart_geometry import (WIDTH, Scale, _label_box, _overlaps, bar_chart, round_step, scatter_chart,
                                   text_width, ticks)


def test_ticks_are_one_two_or_five_times_a_power_of_ten_and_cover_the_values():
    assert round_step(26_443, 6) == 5_000          # 4,407 per interval -> 5,000
    assert round_step(139.1, 5) == 50              # 27.8 -> 50
    assert round_step(0.9, 5) == 0.2               # 0.18 -> 0.2
    assert ticks(4_157, 30_600, 6) == [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 35_000]
    assert ticks(0, 139.1) == [0, 50, 100, 150]
    assert ticks(0, 900) == [0, 200, 400, 600, 800, 1_000]


def test_a_scale_maps_its_ends_and_can_run_backwards():
    assert Scale(0, 200, 100, 500)(50) == 200
    upward = Scale(0, 250, 310, 30)  # y grows upwards on screen
    assert (upward(0), upward(250), upward(125)) == (310, 30, 170)


def test_chinese_text_is_measured_wider_than_latin_text_of_the_same_length():
    assert text_width("每月价格") == 4 * 12
    assert text_width("abcd") < text_width("每月价格")


def test_bars_are_in_proportion_start_at_zero_and_the_labels_fit_the_width():
    chart = bar_chart(["NVLink 5", "PCIe Gen4 ×16"], [900, 31.5], ["900 GB/s", "31.5 GB/s"], ["#000", "#111"],
                      lambda v: f"{v:g}", "GB/s")
    long, short = chart.bars
    assert abs(long.width / short.width - 900 / 31.5) < 0.2
    assert long.y < short.y                               # first one on top
    assert chart.plot_left >= text_width("PCIe Gen4 ×16")  # room for the names on the left
    assert chart.plot_left + long.width + text_width("900 GB/s") <= WIDTH
    assert [t.label for t in chart.ticks] == ["0", "200", "400", "600", "800", "1000"]


def test_a_reference_line_near_the_right_edge_puts_its_label_on_its_left():
    chart = bar_chart(["BF16"], [10], ["10 GiB"], ["#000"], str, "GiB", marker=(99, "H100 PCIe: 99 GiB usable", "#f00"))
    assert chart.marker.label_anchor == "end"
    assert bar_chart(["BF16"], [99], ["99 GiB"], ["#000"], str, "GiB",
                     marker=(10, "H100: 10 GiB", "#f00")).marker.label_anchor == "start"


def test_scatter_labels_in_a_crowd_overlap_no_other_label_and_no_point():
    crowd = [(1_000 + 60 * i, 95 + 4 * i, "#000", f"{i + 1} × A100 80GB PCIe") for i in range(6)]
    crowd += [(30_000, 211, "#000", "8 × B200")]  # on the last tick: the right edge
    chart = scatter_chart(crowd, str, str, "US$", "tok/s", [("#000", "NVLink")])
    boxes = [_label_box(point) for point in chart.points]
    assert not [pair for pair in combinations(boxes, 2) if _overlaps(*pair)]
    for box in boxes:
        for point in chart.points:
            r = chart.marker_radius
            assert not _overlaps(box, (point.x - r, point.y - r, point.x + r, point.y + r))
        assert chart.plot_left <= box[0] and box[2] <= chart.plot_right  # nothing runs out of the plot
    far_right = next(p for p in chart.points if p.label == "8 × B200")
    assert far_right.label_anchor == "end" and not far_right.leader
