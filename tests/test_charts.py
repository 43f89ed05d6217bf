"""Charts: labels of a crowded scatter plot kept apart, and each drawing made once then reused."""
import os
import subprocess
import sys
from itertools import combinations

from macros.chart_drawing import _box_around, _overlaps, label_place, text_width
from sitebuild import ROOT


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
