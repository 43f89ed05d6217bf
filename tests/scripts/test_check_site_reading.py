"""How `make check` reads a page (scripts/check_site.py, ``_Page.of``): the links and ids of its tags, and its text
outside code, where template syntax left by a build would show. It reads them as Python's HTML parser does (the
check read pages with it before), which is how a browser reads the HTML MkDocs writes; where the two differ, on
malformed raw HTML, as a browser does."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from check_site import _Page  # noqa: E402


def test_links_come_from_the_tags_that_link_with_their_kind_and_entities_decoded():
    page = _Page.of(
        '<link rel="canonical" href="https://example.org/guides/"><link rel=alternate hreflang=fr href="/fr/">'
        '<A HREF="?model=a&amp;precision=fp8" title="a > b">x</A><img src=\'i.png\'><span href="not-a-link">'
        '<script src="s.js"/><p>after</p>'
    )
    assert page.links == [
        ("canonical link", "https://example.org/guides/"),
        ("hreflang fr link", "/fr/"),
        ("link", "?model=a&precision=fp8"),
        ("link", "i.png"),
        ("link", "s.js"),
    ]
    assert "".join(page.text_outside_code) == "xafter"


def test_ids_are_every_elements_id_and_the_name_of_an_anchor():
    page = _Page.of('<h2 id="what-to-buy">W</h2><a name="top"></a><div ID = "upper"></div><div data-id="no">')
    assert page.ids == {"what-to-buy", "top", "upper"}


def test_text_inside_code_pre_script_and_comments_is_not_the_pages_text():
    page = _Page.of(
        "<p>{{ price() }}</p><code>{{ shown }}</code><pre><code>{% raw %}</code> still code</pre>"
        "<script>const link = \"<a href='in-a-script'>\"; if (a < b) {{}}</script><!-- {{ comment }} -->"
        "<p>&#123;&#123; escaped &amp; shown</p>"
    )
    assert "".join(page.text_outside_code) == "{{ price() }}{{ escaped & shown"
    assert page.links == []


def test_a_quote_in_an_unquoted_value_or_a_cdata_section_hides_no_tag_and_invents_none():
    page = _Page.of(
        '<p><img alt=5" src="a.png"> <a href="b.html">b</a></p><div title=Don\'t id=x></div>'
        '<svg><text><![CDATA[ a > b <a href="not-a-link">c</a> ]]></text></svg>'
    )
    assert page.links == [("link", "a.png"), ("link", "b.html")]
    assert page.ids == {"x"}
    assert "".join(page.text_outside_code) == " b"
