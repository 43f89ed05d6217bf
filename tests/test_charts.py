"""Charts: labels of a crowded scatter plot kept apart, each drawing made once then reused, drawn by a
helper process while the build goes on, or here when the helper cannot."""
import os
import subprocess
import sys
from itertools import combinations

import pytest

from macros import chart_drawing, helper as build_helper
from macros.chart_drawing import BarChart, ScatterChart, _box_around, _overlaps, from_json, label_place, text_width, to_json
from macros.chart_helper import ChartError, fill_charts, placeholder
from sitebuild import ROOT

LINKS = BarChart("zh", ("NVLink 4", "PCIe Gen5 ×16"), (450.0, 63.0), ("450 GB/s", "63 GB/s"), ("#3949ab", "#8d6e63"),
                 "每卡带宽（GB/s，单向）", marker=(300.0, "预算 \"300\" & <更多>", "#c62828"))


def test_chinese_text_is_measured_wider_than_latin_text_of_the_same_length():
    assert text_width("每月价格", 10) == 40
    assert text_width("abcd", 10) < text_width("每月价格", 10)


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


DRAW = """
import sys
from macros.chart_drawing import BarChart, svg
document = svg(BarChart("fr", ("NVLink 4", "PCIe Gen5 ×16"), (450.0, 63.0), ("450 GB/s", "63 GB/s"),
                        ("#3949ab", "#8d6e63"), "GB/s, dans un sens"))
print("matplotlib" in sys.modules, len(document))
"""


def test_a_chart_is_drawn_once_then_read_from_the_cache_without_importing_matplotlib(tmp_path):
    env = {**os.environ, "BUILD_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", DRAW], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", DRAW], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    drew, size = first.stdout.split()
    assert drew == "True" and second.stdout.split() == ["False", size]
    cached = list((tmp_path / "charts").iterdir())
    assert len(cached) == 1 and "<text" in cached[0].read_text() and "450 GB/s" in cached[0].read_text()


def test_a_description_survives_its_trip_to_the_helper():
    scatter = ScatterChart("fr", ((1200.0, 35.5, "#3949ab", "8 × H100"), (300.0, 9.0, "#8d6e63", "1 × L4")),
                           "Prix par mois ($US)", "Plancher (tokens/s)", (("#3949ab", "NVLink"), ("#8d6e63", "PCIe")))
    for chart in (LINKS, scatter, BarChart("en", ("a",), (1.0,), ("1",), ("#000",), "x")):
        assert from_json(to_json(chart)) == chart


FILL = """
import sys
from macros.chart_drawing import BarChart, draw
from macros.chart_helper import fill_charts, placeholder
chart = BarChart("fr", ("NVLink 4", "PCIe Gen5 ×16"), (450.0, 63.0), ("450 GB/s", "63 GB/s"),
                 ("#3949ab", "#8d6e63"), "GB/s, dans un sens")
page = fill_charts("<p>avant</p>" + str(placeholder(chart, "Débit", "NVLink 4 : 450 GB/s")) + "<p>après</p>")
drawn_by_helper = "matplotlib" not in sys.modules
here = draw(chart)
expected = here.replace("<svg ", '<svg role="img" class="chart" ', 1)
end = expected.index(">") + 1
print(drawn_by_helper, page == "<p>avant</p>" + (expected[:end] + "<title>Débit</title><desc>NVLink 4 : 450 GB/s</desc>"
                                                  + expected[end:]).strip() + "<p>après</p>")
"""


def test_a_chart_drawn_by_the_helper_is_the_drawing_made_here_titled_and_described(tmp_path):
    run = subprocess.run([sys.executable, "-c", FILL], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "BUILD_CACHE_DIR": str(tmp_path)})
    assert run.stdout.split() == ["True", "True"]  # the build's process never imported matplotlib


@pytest.fixture
def nothing_drawn(tmp_path, monkeypatch):
    """An empty build cache and no helper yet."""
    monkeypatch.setenv("BUILD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(chart_drawing, "_drawn", {})
    monkeypatch.setattr(build_helper, "_helper", None)


@pytest.mark.parametrize("helper", ["/bin/false", "/no/such/python"])  # ends at once; cannot start
def test_without_a_helper_the_chart_is_drawn_here(nothing_drawn, monkeypatch, helper):
    monkeypatch.setattr(build_helper.sys, "executable", helper)
    page = fill_charts(placeholder(LINKS, "Bande passante", "NVLink 4 : 450 GB/s"))
    assert "<text" in page and "每卡带宽" in page and '预算 "300" &amp; &lt;更多&gt;' in page
    assert page.startswith('<svg role="img" class="chart" ') and "<title>Bande passante</title>" in page


def test_a_failed_drawing_stops_the_build_naming_the_drawing_code(nothing_drawn):
    broken = BarChart("en", ("a",), (1.0,), ("1",), ("no such colour",), "x")
    with pytest.raises(ChartError, match=r"drawing a chart failed \(an error in macros/chart_drawing.py"):
        fill_charts(placeholder(broken, "t", "d"))
