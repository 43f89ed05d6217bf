"""Macros: locale formatting to the code point, argument checks, the sandbox, the reference."""
import os
import re
import subprocess
import sys
from dataclasses import replace

import pytest

from macros.errors import PageError
from macros.languages import LANGUAGES
from macros.library.families import MACROS
from macros.library.reference import reference_entries
from macros.output import strings as strings_module
from macros.output.strings import strings
from macros.page.hand_typed import hand_typed_figures, product_names
from macros.site_data import site_data
from rendering import render
from sitebuild import ROOT


@pytest.fixture(scope="module")
def data():
    return site_data()


@pytest.mark.parametrize("lang, expected", [
    ("en", "$4,157/month"),
    ("fr", "4\u202f157\xa0$US/mois"),   # narrow no-break space grouping, no-break space before $US
    ("zh", "US$4,157/月"),
])
def test_prices_are_written_the_way_each_language_writes_money(data, lang, expected):
    assert render(data, '{{ price("4x-a100-pcie-80gb") }}', lang) == expected


@pytest.mark.parametrize("lang, expected", [("en", "3.9 s"), ("fr", "3,9 s"), ("zh", "3.9 秒")])
def test_decimals_follow_the_locale(data, lang, expected):
    assert render(data, '{{ allreduce_time("llama-3.3-70b", "8x-rtx-pro-6000-blackwell") }}', lang) == expected


def test_catalog_counts_and_memory_totals(data):
    assert render(data, '{{ node_count() }} {{ max_cards() }} {{ total_memory("4x-a100-pcie-80gb") }}') == "41 8 320 GB"


def test_a_link_bandwidth_is_one_direction_unless_both_ways_is_asked(data):
    assert render(data, '{{ link_bandwidth("nvlink4") }} / {{ link_bandwidth("nvlink4", both_ways=true) }}') \
        == "450 GB/s / 900 GB/s"


def test_a_link_ratio_is_written_as_times(data):
    assert render(data, '{{ link_ratio("nvlink4", "pcie-gen5-x16") }}') == "7×"


def test_a_70b_model_makes_two_allreduces_per_layer_per_token(data):
    assert render(data, '{{ allreduces_per_token("llama-3.3-70b") }}') == "160"


@pytest.mark.parametrize("lang, expected", [
    ("en", "about 37 tok/s, at least 25"), ("fr", "environ 37 tok/s, au moins 25"), ("zh", "约 37 token/秒，至少 25"),
])
def test_a_speed_is_written_as_typical_then_floor(lang, expected):
    from macros.output.formatting import formatter
    assert formatter(lang).speed(37.1, 24.96) == expected


def test_the_throughput_macro_gives_the_cells_typical_speed_and_floor(data):
    speed = data.matrix.cell("llama-3.3-70b", "bf16", "4x-a100-sxm4-80gb").speed
    assert render(data, '{{ throughput("llama-3.3-70b", "bf16", "4x-a100-sxm4-80gb") }}') \
        == f"about {round(speed.typical)} tok/s, at least {round(speed.floor)}"


@pytest.mark.parametrize("node, lang, expected", [
    ("4x-a100-pcie-80gb", "en", "split across 4 cards"),
    ("1x-a100-pcie-80gb", "fr", "ne tient pas sur ce nœud"),
])
def test_a_verdict_is_written_in_the_readers_language(data, node, lang, expected):
    assert render(data, f'{{{{ verdict("llama-3.3-70b", "bf16", "{node}") }}}}', lang) == expected


def test_the_prices_date_is_written_the_way_the_language_writes_dates(data):
    assert render(data, '{{ prices_as_of() }}', "zh") == "2026年11月1日"


def test_every_string_exists_in_every_language():
    for group, keys in strings().items():
        for key, texts in keys.items():
            assert set(LANGUAGES) <= set(texts), f"{group}.{key}"


def test_a_string_given_twice_stops_the_build_naming_the_file_and_line(tmp_path, monkeypatch):
    broken = tmp_path / "strings.yml"
    broken.write_text("guides:\n  min:\n    en: min\n    fr: min\n    zh: 分钟\n    fr: minutes\n", encoding="utf-8")
    monkeypatch.setattr(strings_module, "STRINGS_FILE", broken)
    strings.cache_clear()
    try:
        with pytest.raises(strings_module.StringsError, match=r"strings.yml:6: duplicate key 'fr' \(first at line 4\)"):
            strings()
    finally:
        strings.cache_clear()


def test_every_macro_is_in_the_writers_reference_in_every_language():
    entries = reference_entries()
    assert set(entries) == set(MACROS)
    for name in MACROS:
        assert MACROS[name].__doc__, name
        assert entries[name]["fr"] and entries[name]["zh"], name


@pytest.mark.parametrize("source, fragment", [
    ('{{ price("4x-a100-pcie-80g") }}', "unknown node id '4x-a100-pcie-80g'; did you mean '4x-a100-pcie-80gb'"),
    ('{{ prix("4x-a100-pcie-80gb") }}', "unknown macro 'prix'; did you mean price()"),
    ("{{ price(4) }}", "argument 'node' of price() must be an id in quotes, found 4"),
    ("{{ price() }}", "missing a required argument: 'node'"),
    ('{{ price("4x-a100-pcie-80gb", "x") }}', "too many positional arguments"),
    ('{{ throughput("llama-3.3-70b", "bf16", "1x-rtx-4090") }}', "does not fit on this node"),
    ('{{ verdict("flux.1-dev", "gguf-q4_k_m", "1x-l40s") }}', "precision 'gguf-q4_k_m' does not apply to 'flux.1-dev'"),
    ('{{ layers("flux.1-dev") }}', "image or video model"),
    ("{{ price( }}", "template syntax error"),
    ('{% if true %}{{ price("4x-a100-pcie-80gb") }}{% endif %}', "'{%' starts a template statement"),
    ('{{ price("4x-a100-pcie-80gb") }', "a '{{' without its '}}' on the same line"),
])
def test_writer_mistakes_stop_with_an_actionable_message(data, source, fragment):
    with pytest.raises(PageError) as caught:
        render(data, "first line\n" + source)
    assert str(caught.value).startswith("docs/en/page.md:2: ")
    assert fragment in str(caught.value)


@pytest.mark.parametrize("payload", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ price.__globals__ }}",
    "{{ price.__self__.catalog }}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ lipsum.__globals__['os'] }}",
    "{{ range(10**9)|list }}",
    "{{ self.__init__.__globals__ }}",
    "{{ '{0.__class__}'.format(1) }}",
    "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{{ config }}",
    "{{ request.application }}",
])
def test_template_injection_payloads_fail_without_running_code(data, payload):
    with pytest.raises(PageError):
        render(data, payload)


def test_data_strings_are_escaped_where_they_land_in_html(data):
    catalog = data.catalog
    model = catalog.models["llama-3.3-70b"]
    hostile = model.model_copy(update={"name": "<script>alert(1)</script>"})
    poisoned = replace(data, catalog=replace(catalog, models={**catalog.models, model.id: hostile}))
    html = render(poisoned, '{{ node_comparison(["4x-a100-pcie-80gb"], "llama-3.3-70b", "bf16") }}')
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_hand_typed_figures_are_found_and_names_code_and_macros_are_not(data):
    page = "\n".join([
        "---", "title: Guide 2", "---",
        "Llama 3.3 70B on an A100 80GB PCIe over NVLink 4 in BF16.",
        'It costs {{ price("4x-a100-pcie-80gb") }} and `-g 8` in code.',
        "## Heading {#step-2}",
        "```", "all_reduce_perf -g 8", "```",
        "It costs $4,157 a month.",
        "Four cards with 80 GB each.",
    ])
    found = hand_typed_figures(page, product_names(data.catalog))
    assert [(f.line, f.text) for f in found] == [
        (2, "title: Guide 2"), (10, "It costs $4,157 a month."), (11, "Four cards with 80 GB each.")]


def test_no_page_in_docs_has_a_hand_typed_figure(data):
    from sitebuild import ROOT
    offenders = [f"{path.relative_to(ROOT)}:{figure}" for path in sorted((ROOT / "docs").rglob("*.md"))
                 for figure in hand_typed_figures(path.read_text(encoding="utf-8"), product_names(data.catalog))]
    assert not offenders, "figures typed by hand:\n" + "\n".join(offenders)


RENDER_LINK_CHART = """
import sys
sys.path.insert(0, "tests")
from macros.site_data import site_data
from rendering import render
print(render(site_data(), "{{ chart_links() }}"))
"""


def test_the_link_chart_is_the_same_whatever_the_hash_seed_fastest_first_ties_by_name():
    drawings = set()
    for seed in ("1", "3"):  # these two seeds iterate the set of link ids in different orders
        run = subprocess.run([sys.executable, "-c", RENDER_LINK_CHART], cwd=ROOT, capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        drawings.add(run.stdout)
    assert len(drawings) == 1  # drawn twice (no cache), byte for byte the same
    assert "<text" in next(iter(drawings))
    description = re.search(r"<desc>(.*?)</desc>", drawings.pop()).group(1)
    listed = re.findall(r"([^:,]+): ([\d.]+) GB/s", description)
    assert [name.strip() for name, _ in listed][2:4] == ["NVLink 3", "NVLink 4 (H100 PCIe/NVL)"]  # both 300 GB/s
    speeds = [float(speed) for _, speed in listed]
    assert speeds == sorted(speeds, reverse=True)


@pytest.mark.parametrize("day, expected", [(1, "1er novembre 2026"), (2, "2 novembre 2026")])
def test_french_writes_the_first_of_a_month_as_an_ordinal(day, expected):
    import datetime

    from macros.output.formatting import formatter
    assert formatter("fr").date(datetime.date(2026, 11, day)) == expected


@pytest.mark.parametrize("tokens, expected", [(131072, "128K"), (8192, "8K"), (5515, "5,515")])
def test_a_context_length_is_written_as_models_advertise_it(tokens, expected):
    from macros.output.formatting import formatter
    assert formatter("en").context(tokens) == expected
