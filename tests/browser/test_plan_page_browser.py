"""The Plan page's form in real headless Chromium, at a phone's width and a desktop's, in every language: the
default requirement gives a table, a changed one gives its own and lands in the address, the address alone
restores it (and going back restores the first), the page never scrolls sideways, and axe finds nothing; on a
phone each option is a card; without JavaScript the page leads to the plans for common requirements, pages of their
own; an address beyond the command line's bounds gets a message, never a plan."""

import pytest
from sitebuild import LANGUAGES, ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = {"phone": 390, "desktop": 1280}
PRICE = {"en": "$", "fr": "\xa0$US", "zh": "US$"}  # how each language writes a monthly price


def table(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".plan-result tbody tr", "trs => trs.map(tr => [...tr.children].map(c => c.textContent))"
    )


def shown(page, status_before: str = "") -> list[list[str]]:
    """The table once the status sentence has changed from ``status_before`` (the plan is written)."""
    page.wait_for_function(
        "before => { const s = document.querySelector('.plan-status').textContent;"
        " return s && s !== before && document.querySelector('.plan-result:not([aria-busy]) tbody tr'); }",
        arg=status_before,
    )
    return table(page)


def status(page) -> str:
    return page.text_content(".plan-status") or ""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_plan_form_plans_and_shares(browser, server, lang, width):
    context = browser.new_context(viewport={"width": WIDTHS[width], "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    address = f"{server}{LANGUAGES[lang]}plan/"
    page.goto(address)
    first = shown(page)
    assert first and all(PRICE[lang] in row[6] for row in first)  # cheapest first, in the language's money
    # the page's own requirement comes with the plan the build wrote for it: the first worked plan, every row
    worked = page.evaluate("""() => {
        let e = document.getElementById("chat-assistant");
        while (!e.classList.contains("table-scroll")) e = e.nextElementSibling;
        return [...e.querySelectorAll("tbody tr")].map(tr => [...tr.children].map(c => c.textContent));
    }""")
    assert worked and first[: len(worked)] == worked

    before = status(page)
    page.select_option(".plan-controls select[name=model]", "llama-3.1-8b")
    page.fill(".plan-controls input[name=users]", "120")
    page.fill(".plan-controls input[name=ttft]", "")
    page.keyboard.press("Enter")  # the form submits from the keyboard
    changed = shown(page, before)
    assert changed != first and "users=120" in page.url and "model=llama-3.1-8b" in page.url

    shared = context.new_page()  # a shared link: the address alone restores the requirement and the plan
    shared.goto(page.url)
    assert shown(shared) == changed
    assert shared.input_value(".plan-controls input[name=users]") == "120"
    shared.close()

    page.go_back()
    page.wait_for_function("() => document.querySelector('.plan-controls input[name=users]').value === '40'")
    page.wait_for_selector(".plan-result:not([aria-busy]) tbody tr")  # popstate fills the form and plans at once
    assert table(page) == first

    sideways = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert sideways <= 0, f"the page scrolls {sideways}px sideways"
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ["violations"]});
        return r.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.length}× ${v.nodes[0].target.join(" ")}`);
    }""")
    assert not violations and not errors, (violations, errors)
    context.close()


# What a card must show on a phone, by the column's key in strings.yml: the price, the price per million tokens and
# what limits a node (issue 38, item 1)
CARD_FIGURES = ("col_month", "col_million", "col_binding")
CARDS = """(table, labels) => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const rows = [...table.querySelectorAll("tbody tr")];
  if (!rows.length) problems.push("no row");
  for (const tr of rows) {
    const box = tr.getBoundingClientRect();
    if (getComputedStyle(tr).display !== "block" || box.left < 0 || box.right > width) problems.push("row " + tr.textContent.slice(0, 30));
    for (const label of labels) {
      const td = [...tr.querySelectorAll("td")].find((cell) => cell.dataset.label === label);
      const r = td ? td.getBoundingClientRect() : null;
      if (!td || r.width <= 0 || r.height <= 0 || r.left < 0 || r.right > width || getComputedStyle(td).visibility !== "visible") {
        problems.push(label + " hidden in " + tr.firstElementChild.textContent);
      } else if (!getComputedStyle(td, "::before").content.includes(label)) {
        problems.push(label + " unnamed in " + tr.firstElementChild.textContent);
      }
    }
  }
  return problems;
}"""


def card_problems(table, lang: str) -> list[str]:
    """What a phone does not show of each option of ``table`` (a locator): each row a card no wider than the screen,
    its price, its price per million tokens and what limits it in view, each after its column's name."""
    from macros.output.strings import strings

    labels = [strings()["plan"][key][lang] for key in CARD_FIGURES]
    return table.evaluate(CARDS, labels)


def heading(page) -> str:
    """The page's heading, without its permalink."""
    return page.evaluate("() => document.querySelector('article h1').firstChild.textContent")


def sideways(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_on_a_phone_each_option_is_a_card_with_its_prices_and_what_limits_it(tab, server, lang):
    """Issue 38, item 1: a 1,038 px table in a 358 px box, "Per month", "Per million tokens" and "What limits a node"
    three screens of sideways scrolling away. On a phone each option is a card, in the plan the build wrote, in the
    worked plans and in a plan the page's script writes; a desktop keeps the tables."""
    page = tab(viewport={"width": 390, "height": 844})
    page.goto(f"{server}{LANGUAGES[lang]}plan/")
    shown(page)
    tables = page.locator("article table.card-table:not(:has(a))")  # the plans, not the links to them
    assert tables.count() == 5  # the form's plan and the four worked plans
    problems = {index: card_problems(tables.nth(index), lang) for index in range(tables.count())}
    assert not any(problems.values()), problems
    assert sideways(page) <= 0, f"the page scrolls {sideways(page)}px sideways"

    before = status(page)
    page.select_option(".plan-controls select[name=model]", "qwen3-32b")
    page.fill(".plan-controls input[name=users]", "75")
    page.keyboard.press("Enter")
    shown(page, before)  # the script's own table
    assert not card_problems(page.locator(".plan-result table"), lang)
    assert sideways(page) <= 0

    page.set_viewport_size({"width": 1280, "height": 900})  # a desktop keeps the table
    assert page.eval_on_selector(".plan-result tbody tr", "r => getComputedStyle(r).display") == "table-row"
    assert not page.errors, page.errors


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_the_page_links_to_plans_for_common_requirements_each_a_page_of_its_own(tab, server, lang):
    """Issue 38, item 2: without JavaScript the page said "use the command line: python -m sizing.plan". It now
    hides the form and points to each model's plans for common requirements: pages of their own, each with its own
    title, that read as cards on a phone and link to each other."""
    page = tab(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page.goto(f"{server}{LANGUAGES[lang]}plan/")
    assert not page.is_visible(".plan-controls") and not page.is_visible(".plan-answer")
    assert "sizing.plan" not in (page.text_content(".plan-nojs") or "")
    plan_title = page.title()
    page.click(".plan-nojs a")
    assert page.url.endswith("plan/#common")
    links = page.locator("#common ~ .table-scroll table a")
    assert links.count() == 120  # 15 language models, 4 requirements, 2 counts of users
    links.nth(11).click()  # the second model's retrieval service for 100 users
    first = page.title()
    assert first != plan_title and heading(page) in first
    assert "plan/mistral-small-3-24b/retrieval-100/" in page.url
    assert not card_problems(page.locator("article table.card-table"), lang)
    assert page.evaluate(
        "() => document.querySelector('article').scrollWidth <= document.querySelector('article').clientWidth"
    )
    page.click(".plan-choices p:nth-child(2) a:not([aria-current]) >> nth=0")  # the same requirement, another model
    assert page.title() not in (first, plan_title) and heading(page) in page.title()
    assert "plan/llama-3.1-8b/retrieval-100/" in page.url


def test_a_plan_asked_for_while_another_is_made_replaces_it(browser, tab, server):
    """The page plans in steps between frames: a second requirement sent before the first one's table is written
    is the one the page shows, as a link to it alone shows it, even when the first one would finish later (its
    model's figures still to fetch, more ways to run it)."""
    page = tab()
    page.goto(f"{server}plan/")
    shown(page)
    before = status(page)
    page.evaluate("""() => {  // two requirements sent at once: quicker than a person, to be sure of the race
        const form = document.querySelector(".plan-controls");
        form.elements.model.value = "llama-3.1-8b";
        form.requestSubmit();
        form.elements.model.value = "llama-3.3-70b";
        form.elements.users.value = "7";
        form.requestSubmit();
    }""")
    shown(page, before)
    assert "users=7" in page.url and "model=llama-3.3-70b" in page.url
    alone = browser.new_page()  # meanwhile the first requirement, had it gone on, would have written its table
    alone.goto(page.url)
    assert table(page) == shown(alone)
    alone.close()


@pytest.mark.parametrize(
    "query, field", [("rpm=1e25", "field_rpm"), ("users=1e21", "field_users")], ids=["rpm=1e25", "users=1e21"]
)
def test_an_address_beyond_the_planners_bounds_gets_a_message_and_no_made_up_plan(tab, server, query, field):
    """Issue 36: ?rpm=1e25 showed "3 nodes, $8 a month" and ?users=1e21 stayed on "Planning…"."""
    from macros.output.strings import strings

    words = strings()["plan_form"]
    page = tab()
    asked = {"model": "llama-3.1-8b", "prompt": "1000", "output": "100", "users": "10", "speed": "10"}
    asked.update([query.split("=")])
    page.goto(f"{server}plan/?" + "&".join(f"{key}={value}" for key, value in asked.items()))
    start = words["too_large"]["en"].split("{")[1].split("}")[1][:8]  # ": at mo", after the field's name
    page.wait_for_function("text => document.querySelector('.plan-status').textContent.includes(text)", arg=start)
    assert status(page).startswith(words[field]["en"] + ": at most ") and not table(page) and not page.errors
