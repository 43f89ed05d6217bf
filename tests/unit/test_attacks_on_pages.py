"""The attack run of issue 36 on pages and the site's address, in-process: a page's text, front matter and HTML,
and $SITE_URL, never become script. Each table below is the corpus of one kind of attack, the input and what its
message must say: a new attack of a known kind is one more line."""

from __future__ import annotations

import re
import time

import pytest
from mkdocs.utils.meta import get_data
from sitebuild import ROOT

from hooks import page_macros
from macros.base.errors import PageError
from macros.base.front_matter import check_front_matter, theme_text
from macros.base.site_address import SiteAddressError, published_address
from macros.page.markup import check_page_html
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.site_data import SiteData
from sizing.catalog.errors import terminal_text

# --- pages never become script -----------------------------------------------------------------------------------

# (text put after the heading of an English page, the message's words, the line of the text it names)
PAGE_ATTACKS = {
    "a script": ("<script>alert(document.cookie)</script>", "raw HTML '<script>'", 1),
    "an image with onerror": ("<img src=x onerror=alert(document.domain)>", "raw HTML '<img src=x onerror", 1),
    "an HTML comment": ("<!-- hidden -->", "raw HTML '<!-- hidden -->'", 1),
    "a block of Material's": ("<div markdown>text</div>", "raw HTML '<div markdown>'", 1),
    "a javascript: link": ("[x](javascript:alert(document.cookie))", "a link to 'javascript:alert(document.cookie'", 1),
    "an entity-encoded scheme": ("[x](java&#115;cript&colon;alert(document.cookie))", "(javascript:)", 1),
    "a scheme cut by a line break": ("[x](java\nscript:alert(document.cookie))", "(javascript:)", 1),
    "a link in angle brackets": ("[x](<javascript:alert(document.cookie)>)", "raw HTML '<javascript:", 1),
    "a data: image": ("![x](data:text/html,hello)", "(data:)", 1),
    "a reference definition": ("[x]\n\n[x]: vbscript:msgbox", "(vbscript:)", 3),
    "an event handler in an attribute list": ("Text\n{: onclick=alert(document.cookie) }", "sets 'onclick'", 2),
    "an href in an attribute list": ('[x](https://example.org){: href="javascript:alert(1)" }', "sets 'href'", 1),
    "an attribute list closed twice": ("Text\n{: onclick=alert(document.cookie) }}", "a '}}' without its '{{'", 2),
    "a script inside an unclosed fence": ("```\n<script>alert(document.cookie)</script>", "raw HTML '<script>'", 2),
    # lines the checks would scan once per brace or bracket: minutes, before pages were bounded
    "a line of 100,000 braces": ("{" * 100_000, "a line of 100,000 characters, more than 1,000; break it", 1),
    "a line of 50,000 links that never close": ("](" * 50_000, "a line of 100,000 characters, more than 1,000", 1),
}


def page_refusal(data: SiteData, text: str) -> tuple[int, str]:
    """(line of ``text``, message) of the English home page with ``text`` after its heading, as render_page
    refuses it."""
    source = (ROOT / "docs/en/index.md").read_text(encoding="utf-8")
    heading = source.index("\n", source.index("\n# ")) + 1
    page = source[:heading] + "\n" + text + "\n" + source[heading:]
    markdown, _ = get_data(page)
    with pytest.raises(PageError) as caught:
        render_page(PageSource("docs/en/index.md", "en", page, markdown), ROOT / "docs", data)
    return page[:heading].count("\n") + 2, str(caught.value)


@pytest.mark.parametrize("case", PAGE_ATTACKS)
def test_markup_that_could_run_script_is_refused_at_its_line_for_what_it_is(data: SiteData, case: str):
    text, words, line = PAGE_ATTACKS[case]
    start, message = page_refusal(data, text)
    assert message.startswith(f"docs/en/index.md:{start + line - 1}: ") and words in message, message


def test_a_stray_closing_brace_is_refused_on_a_page_without_macros(data: SiteData):
    page = "# Page {#page}\n\nText\n{: onclick=alert(document.cookie) }}\n"  # attr_list would read 'onclick'
    with pytest.raises(PageError, match=r"^docs/en/index.md:4: a '}}' without its '{{'"):
        render_page(PageSource("docs/en/index.md", "en", page, page), ROOT / "docs", data)


def test_a_page_too_long_to_check_is_refused_at_once(data: SiteData):
    started = time.perf_counter()
    _, message = page_refusal(data, ("{{ a " * 199 + "\n") * 300)  # 298,800 characters of unclosed calls, and the page
    assert re.fullmatch(
        r"docs/en/index.md: a page of 29\d,\d{3} characters, more than 200,000; split it in pages", message
    )
    assert time.perf_counter() - started < 2


def test_markup_shown_as_code_and_links_of_the_site_pass(data: SiteData):
    source = (ROOT / "docs/en/index.md").read_text(encoding="utf-8")
    extra = (
        "\n`<script>` and ``<img onerror>`` are shown as written, so is this:\n\n```html\n<script>x</script>\n```\n\n"
        "See [the guides](guides/index.md), [a site](https://example.org/a?b=c), <https://example.org/> and "
        "[mail](mailto:guides@example.org).\n"
    )
    page = source + extra
    markdown, _ = get_data(page)
    render_page(PageSource("docs/en/index.md", "en", page, markdown), ROOT / "docs", data)


# HTML that the checks on a page's text would have refused: the last guard refuses it too, whatever slipped
HTML_ATTACKS = {
    "a script": '<p>x</p><script src="https://evil.example/x.js"></script>',
    "an event handler": '<p><a href="#" onmouseover="alert(1)">x</a></p>',
    "a javascript: address": '<p><a href="javascript:alert(1)">x</a></p>',
    "an address with a line break": '<p><a href="java\nscript:alert(1)">x</a></p>',
    "an entity-encoded address": '<p><a href="javascript&#58;alert(1)">x</a></p>',
    "an SVG": "<p><svg><script>alert(1)</script></svg></p>",
    "an iframe": '<iframe src="https://evil.example/"></iframe>',
}


@pytest.mark.parametrize("case", HTML_ATTACKS)
def test_the_html_of_a_page_is_checked_once_more_before_it_is_published(case: str):
    with pytest.raises(PageError, match=r"^docs/en/x.md: its HTML holds '.*', which could run script"):
        check_page_html(HTML_ATTACKS[case], "docs/en/x.md")


def test_the_html_markdown_writes_passes_the_last_guard():
    check_page_html(
        '<h2 id="a">A<a class="headerlink" href="#a">¶</a></h2><p><a href="../guides/">g</a> '
        '<a href="https://example.org/?a=1&amp;b=2">e</a> <a href="&#109;&#97;ilto:x@example.org">m</a></p>'
        '<table><tr><td style="text-align: right;">1</td></tr></table><span data-reading-time="x" data-lang="en"></span>',
        "docs/en/x.md",
    )


# a front matter's title and description, and what the theme is given of them
TITLES = {
    "a script": ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    "an attribute's end": ('"><img src=x onerror=alert(1)>', '"&gt;&lt;img src=x onerror=alert(1)&gt;'),
    "an ampersand": ("NVLink & PCIe", "NVLink &amp; PCIe"),
    "an apostrophe": ("Writer's reference", "Writer's reference"),
}


@pytest.mark.parametrize("case", TITLES)
def test_a_front_matter_title_reaches_the_theme_as_text(case: str):
    written, given = TITLES[case]
    meta = check_front_matter(f"---\ntitle: {written!r}\ndescription: {written!r}\n---\n", "docs/en/x.md")
    shown = theme_text(meta)
    assert shown["title"] == given
    assert shown["description"] == given.replace('"', "&quot;")


def test_a_title_that_is_not_text_is_refused_at_its_line():
    with pytest.raises(PageError, match=r"^docs/en/x.md:3: front matter 'title' is a list, not text"):
        check_front_matter("---\ndescription: x\ntitle: [a, b]\n---\n", "docs/en/x.md")


# --- the site's address ($SITE_URL) ------------------------------------------------------------------------------

# a $SITE_URL and the words of its refusal (None: it is accepted, as the second value)
SITE_URLS = {
    "markup that ends the attribute": ('https://ex.com/"><script>alert(1)</script>', 'it holds a quote (")'),
    "a javascript: address": ("javascript://x/%0aalert(1)//", "not an absolute http:// or https:// address"),
    "a space": ("https://ex.com/my guides/", "it holds a space or a control character (' ')"),
    "a query with markup": ("https://ex.com/?q=<b>", "it holds an angle bracket (<)"),
    "a query": ("https://ex.com/?q=1", "no query (?…) and no fragment (#…)"),
    "a fragment": ("https://ex.com/#top", "no query (?…) and no fragment (#…)"),
    "ftp": ("ftp://ex.com/", "not an absolute http:// or https:// address"),
    "a user name": ("https://user:pw@ex.com/", "without a user name"),
    "an escape sequence": ("https://ex.com/\x1b[2J", "a control character ('\\x1b')"),
    "a path not percent-encoded": ("https://ex.com/guidés/", "percent-encoded"),
}
ACCEPTED_URLS = {
    "https://guides.example.com/": "https://guides.example.com/",
    "https://owner.github.io/repo": "https://owner.github.io/repo/",
    "https://bücher.example/führer/".replace("führer", "f%C3%BChrer"): "https://xn--bcher-kva.example/f%C3%BChrer/",
    "HTTP://Example.ORG:8080/a/": "http://example.org:8080/a/",
}


@pytest.mark.parametrize("case", SITE_URLS)
def test_a_site_address_that_could_become_script_stops_the_build_naming_the_variable(case: str):
    url, words = SITE_URLS[case]
    with pytest.raises(SiteAddressError) as caught:
        published_address(url)
    message = str(caught.value)
    assert message.startswith(f"SITE_URL={terminal_text(repr(url))}: ") and words in message
    assert message.endswith(
        "set SITE_URL to the address the site is published at, like https://owner.github.io/repo/ "
        "(or leave it unset for a local build)"
    )


@pytest.mark.parametrize("url", ACCEPTED_URLS)
def test_a_site_address_is_kept_with_its_host_in_punycode(url: str):
    assert published_address(url) == ACCEPTED_URLS[url]


def test_the_build_checks_the_address_before_any_plugin_reads_it():
    class Config:
        site_url = 'https://ex.com/"><script>'

    with pytest.raises(page_macros.PluginError, match=r"^SITE_URL="):
        page_macros.check_site_address(Config())  # type: ignore[arg-type]
    Config.site_url = "https://bücher.example/"
    assert page_macros.check_site_address(Config()).site_url == "https://xn--bcher-kva.example/"  # type: ignore[arg-type]
    assert page_macros.on_config.methods[0] is page_macros.check_site_address
    assert page_macros.check_site_address.mkdocs_priority > 0  # type: ignore[attr-defined]  # before the plugins
