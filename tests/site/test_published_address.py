"""The site as CI publishes it to a project site: built for an address with a path (https://example.org/guides/),
the day a writer added a macro call to an English page and nobody has updated its translations yet (the session's
altered_site, see conftest.altered_project, whose data is edited too: test_translations.py reads its banners,
test_publishing.py what the data edits do)."""

import shutil
import sys

import pytest
from conftest import PUBLISHED_ADDRESS as ADDRESS
from conftest import WRITERS_GUIDE as GUIDE
from sitebuild import ROOT, page, visible_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import Address, check_site, site_address

TEMPLATED_NAME = "Qwen3 32B {{ 7*7 }}"  # a model's name in the altered data (conftest.DATA_EDITS)
TEMPLATE_LEFT = ": template syntax left in the page"


def test_make_check_finds_every_link_canonical_sitemap_entry_and_hreflang_under_the_address(altered_site):
    project, site = altered_site
    assert site_address(site).url == ADDRESS  # read from the home page's canonical link
    problems = check_site(site, project / "docs" / "en")
    # but for the model name DATA_EDITS write with template code on purpose, shown as text on every page that
    # names the model (tests/site/test_publishing.py): the check sees it there, and nothing else
    assert [problem for problem in problems if not problem.endswith(TEMPLATE_LEFT)] == []
    pages = [problem.removesuffix(TEMPLATE_LEFT) for problem in problems]
    named = [(site / page).read_text().replace("\xa0", " ") for page in pages]  # Chinese keeps a name on one line
    assert len(pages) > 1000 and all(TEMPLATED_NAME in html for html in named)


def test_the_checks_see_an_address_outside_the_site(altered_site, tmp_path):
    """The home page, the 404 pages and the sitemap, checked under an address the site was not built for."""
    project, site = altered_site
    for name in ("index.html", "404.html", "fr/404.html", "zh/404.html", "sitemap.xml"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(site / name, tmp_path / name)
    problems = check_site(tmp_path, project / "docs" / "en", Address("https://example.org/other/"))
    assert any("canonical link" in p and "expected ['https://example.org/other/" in p for p in problems)
    assert any(p.startswith("sitemap.xml: sitemap entry to 'https://example.org/guides/") for p in problems)
    assert any("leaves the site's path /other/" in p for p in problems)  # the 404 pages' links


@pytest.mark.parametrize("lang, prefix", [("en", ""), ("fr", "fr/"), ("zh", "zh/")])
def test_each_404_page_links_from_the_host_under_the_sites_path(altered_site, lang, prefix):
    _, site = altered_site
    html = (site / prefix / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    assert f'href="/guides/{prefix}"' in html and f'href="/guides/{prefix}configurator/"' in html
    assert 'href="/fr/' not in html and 'href="/zh/' not in html and "guides/guides/fr" not in html


def test_hreflang_alternates_keep_the_sites_path_once(altered_site):
    _, site = altered_site
    home = (site / "fr" / "index.html").read_text(encoding="utf-8")
    for lang, prefix in (("en", ""), ("fr", "fr/"), ("zh", "zh/")):
        assert f'<link rel="alternate" href="{ADDRESS}{prefix}" hreflang="{lang}">' in home


def test_an_english_macro_call_builds_and_its_translations_say_they_are_behind(altered_site):
    _, site = altered_site
    assert "configurations" in visible_text(page(site, "en", GUIDE))
    assert "translation-banner" not in page(site, "en", GUIDE)
    assert "Cette traduction n’est peut-être plus à jour" in page(site, "fr", GUIDE)
    assert "本译文可能已过时" in page(site, "zh", GUIDE)
