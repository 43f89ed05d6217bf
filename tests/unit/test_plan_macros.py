"""Worked plans on the site: the table and the sentence say what `python -m sizing.plan` answers, in each
language."""

import pytest
from rendering import render

from sizing.views.plan import Requirement, plan

CHAT = '"llama-3.3-70b", 4000, 500, 40, 15, max_ttft_s=2'


@pytest.mark.parametrize(
    "lang, expected",
    [
        ("en", "2 × RTX PRO 6000 in FP8, 1 node, $2,220 a month"),
        ("fr", "2 × RTX PRO 6000 en FP8, 1 nœud, 2\u202f220\xa0$US par mois"),
        ("zh", "2 × RTX PRO 6000（FP8），1 个节点，每月 US$2,220"),
    ],
)
def test_the_cheapest_plan_in_a_sentence(data, lang, expected):
    shown = render(data, "{{ plan_cheapest(" + CHAT + ") }}", lang)
    assert shown.replace("\xa0", " ").replace("\u202f", " ") == expected.replace("\xa0", " ").replace("\u202f", " ")


def test_the_table_lists_what_the_command_line_lists_cheapest_first(data, catalog):
    html = render(data, "{{ plan_table(" + CHAT + ", rows=3) }}", "en")
    options = plan(catalog, Requirement("llama-3.3-70b", 4000, 500, 40, 15, None, 2))[:3]
    positions = [html.index(f"${o.price_per_month_usd:,.0f}") for o in options]
    assert positions == sorted(positions)
    assert "first token within 2.0\xa0s" in html


def test_an_impossible_requirement_shows_the_closest_plans(data):
    html = render(data, '{{ plan_table("llama-3.1-405b", 30000, 500, 10, 40, max_ttft_s=1) }}', "fr")
    assert "Rien n’y répond" in html
