"""How `make check` reads a page (scripts/check_site.py, ``_Page.of``): the links and ids of its tags, and its text
outside code, where template syntax left by a build would show. Each case is HTML a browser reads the same way."""

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
