"""Charts in real headless Chromium, on every page that draws one, in every language, on a 390 px phone and
a 1280 px desktop: text of 11 CSS px or more, no label on a mark, another label or the chart's edge (by more
than a CSS pixel), no sideways scrolling; marks and text legible in the light and the dark scheme (test_accessibility.py runs axe
on every chart page, whole, in both).

Measured with the fonts readers have: with Debian's fonts-noto-cjk installed (`make test` installs it), Chinese
labels are drawn in Noto Sans CJK, taller and wider than the Latin fallback; without it they are drawn as
placeholder boxes and the test would prove nothing for Chinese, so it refuses to run."""

from __future__ import annotations

import subprocess

import pytest
from site_pages import chart_pages
from sitebuild import LANGUAGES

pytestmark = pytest.mark.browser

SMALLEST_TEXT_PX = 11

CHART_PAGES = chart_pages()

# Per chart: its drawing's scale, the size of each text in CSS px, and the boxes (user units) of its texts
# and its marks (every circle, rect and line), and of the chart itself.
MEASURE = """() => [...document.querySelectorAll('svg.chart')].map(svg => {
  const box = e => { const b = e.getBBox(); return [b.x, b.y, b.x + b.width, b.y + b.height]; };
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const texts = [...svg.querySelectorAll('text')];
  return {
    title: svg.querySelector('title').textContent,
    sizes: texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale),
    texts: texts.map(t => [t.textContent, box(t)]),
    marks: [...svg.querySelectorAll('circle, rect, line')].map(m => [m.outerHTML.slice(0, 60), box(m)]),
    view: [0, 0, svg.viewBox.baseVal.width, svg.viewBox.baseVal.height],
    right: svg.getBoundingClientRect().right,
    scale: scale,
  };
})"""


def overlaps(a: list[float], b: list[float], slack: float) -> bool:
    """Whether two boxes overlap by more than ``slack`` (a CSS pixel, in the chart's units) both ways."""
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def inside(a: list[float], b: list[float], slack: float) -> bool:
    return b[0] <= a[0] + slack and b[1] <= a[1] + slack and a[2] <= b[2] + slack and a[3] <= b[3] + slack


def problems(chart: dict) -> list[str]:
    """What a reader would see wrong in one chart: small text, a label on a mark or a label, a label cut off."""
    found = [
        f"text {chart['texts'][i][0]!r} at {size:.1f} px"
        for i, size in enumerate(chart["sizes"])
        if size < SMALLEST_TEXT_PX
    ]
    texts, pixel = chart["texts"], 1 / chart["scale"]
    for i, (text, box) in enumerate(texts):
        found += [
            f"{text!r} overlaps {other!r}" for other, other_box in texts[i + 1 :] if overlaps(box, other_box, pixel)
        ]
        found += [f"{text!r} overlaps {mark}" for mark, mark_box in chart["marks"] if overlaps(box, mark_box, pixel)]
        if not inside(box, chart["view"], pixel):
            found.append(f"{text!r} runs off the chart: {box} outside {chart['view']}")
    return [f"{chart['title']}: {problem}" for problem in found]


def test_the_chinese_font_readers_have_is_installed():
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False).stdout
    assert "Noto Sans CJK" in fonts, "fonts-noto-cjk is missing: run `make test`, which installs it"


def test_every_chart_page_is_found():
    assert CHART_PAGES == [
        "guides/mixture-of-experts/",
        "guides/nvlink-or-pcie/",
        "guides/quantization/",
        "reference/speed-model/",
    ]


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_chart_text_is_11_px_or_more_clear_of_marks_and_labels_and_the_page_does_not_scroll_sideways(
    tab, server, lang, width
):
    page = tab(viewport={"width": width, "height": 900})
    found, charts = [], 0
    for path in CHART_PAGES:
        page.goto(f"{server}{LANGUAGES[lang]}{path}")
        measured = page.evaluate(MEASURE)
        charts += len(measured)
        for chart in measured:
            found += [f"/{path}: {problem}" for problem in problems(chart)]
            if chart["right"] > width:
                found.append(f"/{path}: {chart['title']} ends at {chart['right']:.0f} px, past the screen")
        widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        if widths[0] > widths[1]:
            found.append(f"/{path}: the page is {widths[0]} px wide on a {widths[1]} px screen")
    assert charts >= len(CHART_PAGES)
    assert not found, "\n".join(found)


# --- both schemes -----------------------------------------------------------------------------------------
CONTRAST = """() => {
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => { const f = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const background = getComputedStyle(document.body).backgroundColor;
  const paint = (selector, property) => [...document.querySelectorAll(selector)]
    .map(e => [e.outerHTML.slice(0, 60), ratio(getComputedStyle(e)[property], background)]);
  return {text: paint('svg.chart text', 'fill'),
          marks: [...paint('svg.chart circle, svg.chart rect', 'fill'),
                  ...paint('svg.chart line:not([stroke="currentColor"])', 'stroke')]};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_chart_text_and_marks_contrast_with_the_page_in_both_schemes(tab, server, lang, scheme):
    page = tab(color_scheme=scheme)
    low = []
    for path in CHART_PAGES:
        page.goto(f"{server}{LANGUAGES[lang]}{path}")
        paints = page.evaluate(CONTRAST)
        assert paints["text"] and paints["marks"], path
        low += [(path, what, round(ratio, 2)) for what, ratio in paints["text"] if ratio < 4.5]
        low += [(path, what, round(ratio, 2)) for what, ratio in paints["marks"] if ratio < 3]  # WCAG 1.4.11
    assert not low, low
