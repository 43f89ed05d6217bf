"""On a host that serves only the root 404.html for any miss (GitHub Pages), a miss under a language's folder
turns into that language's own 404 page: its site name, navigation and search in that language, at the address
the reader asked for, still a 404."""

import functools
import http.server
import threading
from pathlib import Path

import pytest
from conftest import RootNotFoundHandler
from sitebuild import BASE_PATH

pytestmark = pytest.mark.browser
SITE_NAMES = {"fr": "Guides des nœuds GPU", "zh": "GPU 节点指南"}
HOME_IN_NAV = {"fr": "Accueil", "zh": "首页"}


@pytest.fixture(scope="module")
def pages_host(site: Path):
    handler = functools.partial(RootNotFoundHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{BASE_PATH}"
    httpd.shutdown()


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_a_miss_under_a_language_folder_gets_that_languages_whole_404_page(tab, pages_host, lang):
    page = tab()
    response = page.goto(f"{pages_host}{lang}/no/such/page/")
    assert response.status == 404
    page.wait_for_function(f"document.querySelector('.md-header__topic') && document.documentElement.lang === '{lang}'")
    page.wait_for_function(
        "name => document.querySelector('.md-header__topic').textContent.includes(name)", arg=SITE_NAMES[lang]
    )
    nav = page.eval_on_selector_all(".md-nav--primary a", "as => as.map(a => [a.textContent.trim(), a.pathname])")
    assert any(text == HOME_IN_NAV[lang] for text, _ in nav), nav
    assert all(path.startswith(f"{BASE_PATH}{lang}/") for _, path in nav if path != BASE_PATH), nav
    assert page.url.endswith(f"{lang}/no/such/page/")
