"""Publishing the real site: reproducible builds, checks on the built site, a build that makes no network
request, what an edit of data/ does to the built site. How publish and rollback switch releases is tested on
small sites in tests/scripts/test_build_and_publish_safety.py, the CI workflow in tests/scripts/test_setup_and_ci.py."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_MODELS
from sitebuild import ROOT, BuiltSite, copy_project, edit, page, visible_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import check_site


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_of_the_same_commit_are_byte_identical(site_build: BuiltSite, sample_rebuilt: BuiltSite):
    # the shared build ran with hash seed 1, this one with 3: two seeds that iterate a set of the catalog's link
    # ids in different orders (checked), so output that follows a set's order differs between them on every run.
    # The second build has the configurator pages of SAMPLE_MODELS only (every kind of generated page): every
    # file it writes but the sitemap, which lists the pages built, is the shared build's byte for byte. Both
    # builds are this session's, dated by SOURCE_DATE_EPOCH: CI's own build ($BUILT_SITE) is not read.
    assert sample_rebuilt.result.returncode == 0, sample_rebuilt.result.stderr
    a, b = tree(site_build.path), tree(sample_rebuilt.path)
    listing = {"sitemap.xml", "sitemap.xml.gz"}
    assert b.keys() - listing <= a.keys()
    differing = [name for name in b.keys() - listing if a[name] != b[name]]
    assert not differing, differing
    sampled = [name for name in b if re.match(r"((fr|zh)/)?configurator/[^/]+/", name)]
    assert {name.split("configurator/")[1].split("/")[0] for name in sampled} == set(SAMPLE_MODELS.split(","))
    assert any(name.endswith("/kv-fp8/index.html") for name in sampled)
    entries = [re.findall(r"<url>.*?</url>", files["sitemap.xml"].decode(), re.S) for files in (a, b)]
    assert set(entries[1]) <= set(entries[0])
    assert "<lastmod>2020-01-01</lastmod>" in entries[1][0]  # dates come from SOURCE_DATE_EPOCH
    assert {"api/catalog.json", "api/fit.json", "search/search_index.en.json"} <= b.keys()


def test_the_built_site_passes_its_checks(site: Path):
    assert check_site(site) == []


def test_the_checks_find_broken_links_missing_pages_and_leftover_templates(sample_rebuilt: BuiltSite, tmp_path: Path):
    # a copy of the site with few configurator pages (SAMPLE_MODELS): links to the others lead to no file too
    broken = tmp_path / "site"
    shutil.copytree(sample_rebuilt.path, broken)
    shutil.rmtree(broken / "zh" / "guides" / "quantization")
    page = broken / "fr" / "guides" / "nvlink-or-pcie" / "index.html"
    html = page.read_text().replace('id="what-to-buy"', 'id="what-to-bye"').replace("<p>", "<p>{{ price() }} ", 1)
    page.write_text(html)
    problems = "\n".join(check_site(broken))
    assert "zh/guides/quantization/index.html: missing" in problems
    assert re.search(r"^zh/guides/index\.html: link to '[^']*quantization/' leads to no file$", problems, re.M)
    assert "fr/guides/nvlink-or-pcie/index.html: link to '#what-to-buy' has no anchor" in problems
    assert "fr/guides/nvlink-or-pcie/index.html: template syntax left in the page" in problems


def test_every_dependency_is_pinned_with_a_hash():
    lines = (ROOT / "requirements.txt").read_text().replace("\\\n", " ").splitlines()
    packages = [line for line in lines if line and not line.startswith(("#", " "))]
    assert len(packages) > 20
    for line in packages:
        assert re.match(r"^[\w.-]+==[\w.+-]+ ", line) and "--hash=sha256:" in line, line


def test_the_build_makes_no_network_request(site_build: BuiltSite, offline_env: dict[str, str]):
    assert site_build.result.returncode == 0  # the shared build runs offline
    assert "network access" not in site_build.result.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', 9))"],
        capture_output=True,
        text=True,
        env={**os.environ, **offline_env},
        check=False,
    )
    assert "network access during the build" in probe.stderr  # the blocker really is in force


def test_a_price_change_in_data_reaches_the_guide_in_every_language(altered_site: tuple[Path, Path]):
    _, site = altered_site
    assert "$4,321/month" in visible_text(page(site, "en", "guides/nvlink-or-pcie"))
    assert "4\u202f321\xa0$US/mois" in visible_text(page(site, "fr", "guides/nvlink-or-pcie"))
    assert "US$4,321/\u2060月" in visible_text(page(site, "zh", "guides/nvlink-or-pcie"))
    for lang in ("en", "fr", "zh"):
        assert "4,157" not in visible_text(page(site, lang, "guides/nvlink-or-pcie"))


def test_hostile_text_in_data_is_escaped_everywhere_it_lands(altered_site: tuple[Path, Path]):
    _, site = altered_site
    for built in site.rglob("*.html"):
        html = built.read_text(encoding="utf-8")
        assert "<script>alert(1)" not in html and "<img src=x" not in html, built
    guide = (site / "guides" / "nvlink-or-pcie" / "index.html").read_text()
    assert "Llama &lt;script&gt;alert(1)&lt;/script&gt;" in guide
    configurator = (site / "configurator" / "index.html").read_text()
    assert "Llama \\u003cscript>alert(1)\\u003c/script>" in configurator  # inside the page's JSON data


def test_markdown_and_template_code_in_data_reach_the_reader_as_text(altered_site: tuple[Path, Path]):
    """A link, a heading or a template expression written into data/ is shown as the characters it is."""
    _, site = altered_site
    for built in site.rglob("*.html"):
        html = built.read_text(encoding="utf-8")
        assert 'href="javascript:' not in html and "32B 49" not in html and 'onclick="x"' not in html, built
    assert "A40 [clickme](javascript:alert(12))" in visible_text(
        (site / "configurator" / "index.html").read_text(encoding="utf-8")
    )
    heading = re.search(
        r"<h1[^>]*>(.*?)</h1>",
        (site / "fr" / "configurator" / "qwen3-32b" / "index.html").read_text(encoding="utf-8"),
        re.S,
    ).group(1)
    assert "Qwen3 32B {{ 7*7 }} {: onclick=x }" in visible_text(heading)


def test_builds_in_one_process_show_each_edit_of_the_data_and_of_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`mkdocs serve` rebuilds in the same process, which keeps the catalog and the macros' results for as
    long as data/ is unchanged: an edit of the data or of a page shows on the next build, and a failed build
    does not stop the next. The French site alone is built, as `make serve-fr` does, with the configurator pages
    of SAMPLE_MODELS only."""
    import logging

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    project, site = copy_project(tmp_path / "project"), tmp_path / "site"
    monkeypatch.setenv("BUILD_ONLY_LOCALE", "fr")
    monkeypatch.setenv("MODEL_PAGES", SAMPLE_MODELS)

    def build_in_process() -> str:
        mkdocs_build(load_config(str(project / "mkdocs.yml"), site_dir=str(site)))
        return (site / "guides" / "nvlink-or-pcie" / "index.html").read_text(encoding="utf-8")  # at the root

    logging.disable(logging.WARNING)
    try:
        assert "4\u202f157\xa0$US/mois" in build_in_process()
        edit(project / "data" / "nodes.yml", "amount: 4157", "amount: 3999")
        edit(project / "docs" / "fr" / "guides" / "nvlink-or-pcie.md", "# ", '{{ price("no-such-node") }}\n\n# ')
        with pytest.raises(Abort):  # MkDocs' answer to the hook's error about the unknown node
            build_in_process()
        edit(project / "docs" / "fr" / "guides" / "nvlink-or-pcie.md", '{{ price("no-such-node") }}\n\n# ', "# ")
        assert "3\u202f999\xa0$US/mois" in build_in_process()
    finally:
        logging.disable(logging.NOTSET)
