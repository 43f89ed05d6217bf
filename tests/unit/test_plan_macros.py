"""Worked plans on the site: the table and the sentence say what `python -m sizing.plan` answers, in each
language; each model's plans for the common requirements, each a page of its own."""

import re

import pytest
from rendering import ROOT, render

from macros.base.errors import PageError
from macros.base.links import PageLinks
from macros.library.plan_pages import USERS, common_plans
from macros.library.plan_tables import SHAPES
from sizing.catalog.schema import Llm
from sizing.views.plan import Requirement, plan_for

CHAT = '"llama-3.3-70b", 4000, 500, 40, 15, max_ttft_s=2'


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


def test_a_worked_plan_names_its_common_requirement_and_says_what_the_requirement_written_out_says(data):
    """The worked plans of the Plan page and the pages of common requirements read one set of requirements
    (``SHAPES``): a worked plan names one by id, so its prompt, answer, speed and first token are typed once."""
    chat = SHAPES["chat"]
    written_out = f'"llama-3.3-70b", {chat.prompt_tokens}, {chat.output_tokens}, 40, {chat.min_tokens_per_s}, max_ttft_s={chat.max_ttft_s}'
    for lang in ("en", "zh"):
        assert render(data, '{{ shape_plan_table("llama-3.3-70b", "chat", 40) }}', lang) == render(
            data, "{{ plan_table(" + written_out + ") }}", lang
        )
        assert render(data, '{{ shape_plan_cheapest("llama-3.3-70b", "chat", 40) }}', lang) == render(
            data, "{{ plan_cheapest(" + written_out + ") }}", lang
        )
    plan_md = (ROOT / "docs" / "en" / "plan.md").read_text()
    assert set(re.findall(r'shape_plan_table\("[^"]+", "(\w+)", \d+\)', plan_md)) == set(SHAPES)


def test_an_unknown_requirement_stops_the_page_naming_the_ones_there_are(data):
    with pytest.raises(PageError, match="unknown shape 'chatbot'; use one of chat, retrieval, batch, coding"):
        render(data, '{{ shape_plan_table("llama-3.3-70b", "chatbot", 40) }}', "en")


# --- plans for common requirements (issue 38, item 2) --------------------------------------------------------------
def test_every_language_model_has_a_plan_for_each_common_requirement(data):
    plans = common_plans(data.catalog)
    llms = [m for m in data.catalog.models.values() if isinstance(m, Llm)]
    assert len(plans) == len(llms) * len(SHAPES) * len(USERS) == 120
    assert len({p.path for p in plans}) == len(plans)


def test_a_common_plan_says_what_it_is_plans_it_and_links_to_its_neighbours(data):
    html = render(data, '{{ common_plan("qwen3-32b", "coding", 100) }}', "en", links=PageLinks.at("plan/q/c/", "en"))
    assert "run Qwen3 32B as a coding assistant for 100 users at once, cheapest first" in spaced(html)
    assert "Qwen3 32B for 100 users at once: 8,000-token prompts, 800-token answers" in spaced(html)
    assert "The cheapest: " in html and 'class="data-table card-table"' in html
    form = "../../../plan/?model=qwen3-32b&amp;precision=&amp;prompt=8000&amp;output=800&amp;users=100&amp;rpm="
    assert f'<a href="{form}&amp;speed=30&amp;ttft=3">this requirement in the Plan page’s form</a>' in html
    nav = html[html.index('<nav class="plan-choices"') :]
    llms = sum(isinstance(m, Llm) for m in data.catalog.models.values())
    assert nav.count("<a href=") == len(SHAPES) * len(USERS) + llms
    assert nav.count('aria-current="page"') == 2  # this page, in each row of links
    assert '<a href="../../../plan/qwen3-32b/batch-10/">Batch summarizer, 10 users</a>' in nav
    assert '<a href="../../../plan/gemma-3-27b/coding-100/">Gemma 3 27B</a>' in nav


@pytest.mark.parametrize(
    "call, message",
    [
        ('common_plan("qwen3-32b", "poetry", 10)', "unknown shape 'poetry'; use one of chat, retrieval, batch, coding"),
        ('common_plan("qwen3-32b", "chat", 11)', "no common plan of 'qwen3-32b' for 'chat' at 11 users"),
        ('common_plan_title("sdxl-base-1.0", "chat", 10)', "is an image or video model"),
    ],
)
def test_a_common_plan_that_is_not_one_is_an_error_that_says_what_to_write(data, call, message):
    with pytest.raises(PageError, match=re.escape(message)):
        render(data, "{{ " + call + " }}", "en")


@pytest.mark.parametrize(
    "lang, title",
    [
        ("en", "Plan: Llama 3.3 70B for a chat assistant, 10 users at once"),
        ("fr", "Plan : Llama 3.3 70B pour un assistant conversationnel, 10 utilisateurs à la fois"),
        ("zh", "规划：Llama 3.3 70B 用于聊天助手，同时服务 10 个用户"),
    ],
)
def test_each_common_plan_has_a_title_of_its_own_in_each_language(data, lang, title):
    assert spaced(render(data, '{{ common_plan_title("llama-3.3-70b", "chat", 10) }}', lang)) == title
