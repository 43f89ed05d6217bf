"""The site as CI publishes it to a project site: built for an address with a path (https://example.org/guides/),
the day a writer added a macro call to an English page and nobody has updated its translations yet."""

import sys
from pathlib import Path

import pytest
from conftest import edit
from sitebuild import ROOT, build, copy_project, page, visible_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import Address, check_site, site_address

ADDRESS = "https://example.org/guides/"
GUIDE = "guides/nvlink-or-pcie"
EDIT = (
    'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones.',
    'on a {{ node_name("4x-a100-pcie-80gb") }} node alone, and more on larger ones: we rent '
    "{{ node_count() }} configurations.",
)


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    project = copy_project(tmp_path_factory.mktemp("published") / "project")
    edit(project / "docs" / "en" / f"{GUIDE}.md", *EDIT)
    site = project / "site"
    result = build(project, site, url=ADDRESS)
    assert result.returncode == 0, result.stderr
    return project, site


def test_make_check_finds_every_link_canonical_sitemap_entry_and_hreflang_under_the_address(published):
    project, site = published
    assert site_address(site).url == ADDRESS  # read from the home page's canonical link
    assert check_site(site, project / "docs" / "en") == []


def test_the_checks_see_an_address_outside_the_site(published):
    project, site = published
    problems = check_site(site, project / "docs" / "en", Address("https://example.org/other/"))
    assert any("canonical link" in p and "expected ['https://example.org/other/" in p for p in problems)
    assert any(p.startswith("sitemap.xml: sitemap entry to 'https://example.org/guides/") for p in problems)
    assert any("leaves the site's path /other/" in p for p in problems)  # the 404 pages' links


@pytest.mark.parametrize("lang, prefix", [("en", ""), ("fr", "fr/"), ("zh", "zh/")])
def test_each_404_page_links_from_the_host_under_the_sites_path(published, lang, prefix):
    _, site = published
    html = (site / prefix / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    assert f'href="/guides/{prefix}"' in html and f'href="/guides/{prefix}configurator/"' in html
    assert 'href="/fr/' not in html and 'href="/zh/' not in html and "guides/guides/fr" not in html


def test_hreflang_alternates_keep_the_sites_path_once(published):
    _, site = published
    home = (site / "fr" / "index.html").read_text(encoding="utf-8")
    for lang, prefix in (("en", ""), ("fr", "fr/"), ("zh", "zh/")):
        assert f'<link rel="alternate" href="{ADDRESS}{prefix}" hreflang="{lang}">' in home


def test_an_english_macro_call_builds_and_its_translations_say_they_are_behind(published):
    _, site = published
    assert "configurations" in visible_text(page(site, "en", GUIDE))
    assert "translation-banner" not in page(site, "en", GUIDE)
    assert "Cette traduction n’est peut-être plus à jour" in page(site, "fr", GUIDE)
    assert "本译文可能已过时" in page(site, "zh", GUIDE)
