"""Worked plans on the site: the table and the sentence say what `python -m sizing.plan` answers, in each
language."""

import pytest
from rendering import render

from macros.site.site_data import site_data
from sizing.views.plan import Requirement, plan_for

CHAT = '"llama-3.3-70b", 4000, 500, 40, 15, max_ttft_s=2'


@pytest.fixture(scope="module")
def data():
    return site_data()


def spaced(text: str) -> str:
    """No-break spaces read as spaces, and the word joiners of a Chinese measure-word phrase as nothing."""
    return text.replace("\xa0", " ").replace("\u202f", " ").replace("\u2060", "")


@pytest.mark.parametrize(
    "lang, expected",
    [
        ("en", "4 × H100 NVL in FP8, 1 node, $7,900 a month"),
        ("fr", "4 × H100 NVL en FP8, 1 nœud, 7\u202f900\xa0$US par mois"),
        ("zh", "4 × H100 NVL（FP8），1 个节点，每月 US$7,900"),
    ],
)
def test_the_cheapest_plan_in_a_sentence(data, lang, expected):
    shown = render(data, "{{ plan_cheapest(" + CHAT + ") }}", lang)
    assert spaced(shown) == spaced(expected)


def test_the_table_lists_what_the_command_line_lists_cheapest_first(data, plan_figures):
    html = render(data, "{{ plan_table(" + CHAT + ", rows=3) }}", "en")
    options = plan_for(plan_figures, Requirement("llama-3.3-70b", 4000, 500, 40, 15, None, 2))[:3]
    positions = [html.index(f"${o.price_per_month_usd:,.0f}") for o in options]
    assert positions == sorted(positions)
    assert "first token within 2.0\xa0s" in html
    assert "(at most " in html  # the first token typically and in the slow tail


def test_an_impossible_requirement_shows_the_closest_plans(data):
    html = render(data, '{{ plan_table("llama-3.1-405b", 30000, 500, 10, 40, max_ttft_s=1) }}', "fr")
    assert "Rien n’y répond" in html
