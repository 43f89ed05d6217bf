"""The Plan page's form in real headless Chromium, at a phone's width and a desktop's, in every language: the
default requirement gives a table, a changed one gives its own and lands in the address, the address alone
restores it (and going back restores the first), the page never scrolls sideways, and axe finds nothing; an
address beyond the command line's bounds gets a message, never a plan."""

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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_the_page_says_so_and_hides_the_form(browser, server, lang):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server}{LANGUAGES[lang]}plan/")
    assert not page.is_visible(".plan-controls") and not page.is_visible(".plan-answer")
    assert page.is_visible(".plan-nojs") and "python -m sizing.plan" in (page.text_content(".plan-nojs") or "")
    assert page.locator("table").count() >= 4  # the worked plans it points to
    context.close()


def test_a_plan_asked_for_while_another_is_made_replaces_it(browser, server):
    """The page plans in steps between frames: a second requirement sent before the first one's table is written
    is the one the page shows, as a link to it alone shows it, even when the first one would finish later (its
    model's figures still to fetch, more ways to run it)."""
    page = browser.new_page()
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
    page.close()


@pytest.mark.parametrize(
    "query, field", [("rpm=1e25", "field_rpm"), ("users=1e21", "field_users")], ids=["rpm=1e25", "users=1e21"]
)
def test_an_address_beyond_the_planners_bounds_gets_a_message_and_no_made_up_plan(browser, server, query, field):
    """Issue 36: ?rpm=1e25 showed "3 nodes, $8 a month" and ?users=1e21 stayed on "Planning…"."""
    from macros.output.strings import strings

    words = strings()["plan_form"]
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    asked = {"model": "llama-3.1-8b", "prompt": "1000", "output": "100", "users": "10", "speed": "10"}
    asked.update([query.split("=")])
    page.goto(f"{server}plan/?" + "&".join(f"{key}={value}" for key, value in asked.items()))
    start = words["too_large"]["en"].split("{")[1].split("}")[1][:8]  # ": at mo", after the field's name
    page.wait_for_function("text => document.querySelector('.plan-status').textContent.includes(text)", arg=start)
    assert status(page).startswith(words[field]["en"] + ": at most ") and not table(page) and not errors
    page.close()
