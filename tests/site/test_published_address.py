"""The site as CI publishes it to a project site: built for an address with a path (https://example.org/guides/),
the day a writer added a macro call to an English page and nobody has updated its translations yet (the session's
published_site, see conftest.published_project: test_translations.py reads its banners)."""

import sys

import pytest
from conftest import PUBLISHED_ADDRESS as ADDRESS
from conftest import WRITERS_GUIDE as GUIDE
from sitebuild import ROOT, page, visible_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import Address, check_site, site_address


def test_make_check_finds_every_link_canonical_sitemap_entry_and_hreflang_under_the_address(published_site):
    project, site = published_site
    assert site_address(site).url == ADDRESS  # read from the home page's canonical link
    assert check_site(site, project / "docs" / "en") == []


def test_the_checks_see_an_address_outside_the_site(published_site):
    project, site = published_site
    problems = check_site(site, project / "docs" / "en", Address("https://example.org/other/"))
    assert any("canonical link" in p and "expected ['https://example.org/other/" in p for p in problems)
    assert any(p.startswith("sitemap.xml: sitemap entry to 'https://example.org/guides/") for p in problems)
    assert any("leaves the site's path /other/" in p for p in problems)  # the 404 pages' links


@pytest.mark.parametrize("lang, prefix", [("en", ""), ("fr", "fr/"), ("zh", "zh/")])
def test_each_404_page_links_from_the_host_under_the_sites_path(published_site, lang, prefix):
    _, site = published_site
    html = (site / prefix / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    assert f'href="/guides/{prefix}"' in html and f'href="/guides/{prefix}configurator/"' in html
    assert 'href="/fr/' not in html and 'href="/zh/' not in html and "guides/guides/fr" not in html


def test_hreflang_alternates_keep_the_sites_path_once(published_site):
    _, site = published_site
    home = (site / "fr" / "index.html").read_text(encoding="utf-8")
    for lang, prefix in (("en", ""), ("fr", "fr/"), ("zh", "zh/")):
        assert f'<link rel="alternate" href="{ADDRESS}{prefix}" hreflang="{lang}">' in home


def test_an_english_macro_call_builds_and_its_translations_say_they_are_behind(published_site):
    _, site = published_site
    assert "configurations" in visible_text(page(site, "en", GUIDE))
    assert "translation-banner" not in page(site, "en", GUIDE)
    assert "Cette traduction n’est peut-être plus à jour" in page(site, "fr", GUIDE)
    assert "本译文可能已过时" in page(site, "zh", GUIDE)
