"""The Plan page in the built site for readers without JavaScript (issue 38, item 2): each model's plan for each
common requirement is a page of its own in every language, with its own title, linked from the Plan page and from
its neighbours; no page of the plans sends a reader to the command line or the README."""

import re
from pathlib import Path

import pytest
from sitebuild import LANGUAGES, page

from macros.library.plan_pages import common_plans


def link(lang: str, at: str, target: str) -> str:
    """The link of the page at ``at`` to ``target`` (both paths below the language's root), as the site writes it."""
    return "../" * (LANGUAGES[lang] + at).count("/") + LANGUAGES[lang] + target


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_common_plan_has_a_page_with_its_own_title_linked_from_the_plan_page(site: Path, catalog, lang: str):
    plans = common_plans(catalog)
    plan_page = page(site, lang, "plan")
    titles = set()
    for plan in plans:
        html = page(site, lang, plan.path)
        title = re.search(r"<title>([^<]*)</title>", html).group(1)
        heading = re.search(r'<h1 id="plan">([^<]*)<', html).group(1)
        assert title.startswith(heading), (title, heading)
        assert html.count('<table class="data-table card-table">') == 1  # the plan, a card an option on a phone
        assert f'href="{link(lang, plan.path, "plan/")}?model={plan.model}&amp;' in html  # the form, opened on it
        assert f'href="{link(lang, "plan/", plan.path)}"' in plan_page
        titles.add(title)
    assert len(titles) == len(plans) == 120


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_the_plan_page_points_to_the_plans_for_common_requirements(site: Path, lang: str):
    html = page(site, lang, "plan")
    noscript = re.search(r'<noscript><p class="plan-nojs">(.*?)</p></noscript>', html, re.S).group(1)
    assert '<a href="#common">' in noscript and 'id="common"' in html


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["plan", "plan/llama-3.1-8b/batch-100"])
def test_no_page_of_the_plans_sends_a_reader_to_the_command_line_or_the_readme(site: Path, lang: str, path: str):
    """« python -m sizing.plan, as the project's README shows »: a customer has neither. The words the page's script
    writes (its data) are held to it too."""
    html = page(site, lang, path)
    for words in ("sizing.plan", "README", "command line", "ligne de commande", "命令行"):
        assert words not in html, words
