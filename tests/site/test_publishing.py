"""Publishing: reproducible builds, checks on the built site, atomic publish and rollback, the CI workflow,
and a build that makes no network request."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import edit
from sitebuild import ROOT, build, copy_project, visible_text

sys.path.insert(0, str(ROOT / "scripts"))
from check_site import check_site
from publish import PublishError, current_release, publish, rollback

EPOCH_2020 = "1577836800"  # 2020-01-01T00:00:00Z


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_of_the_same_commit_are_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH_2020)
    first, second = tmp_path / "first", tmp_path / "second"
    # two hash seeds that iterate a set of the catalog's link ids in different orders (checked): output that
    # follows a set's order differs between them, on every run, not one run in two
    monkeypatch.setenv("PYTHONHASHSEED", "1")
    assert build(ROOT, first).returncode == 0
    monkeypatch.setenv("PYTHONHASHSEED", "3")
    assert build(ROOT, second).returncode == 0
    a, b = tree(first), tree(second)
    assert a.keys() == b.keys()
    differing = [name for name in a if a[name] != b[name]]
    assert not differing, differing
    assert "<lastmod>2020-01-01</lastmod>" in a["sitemap.xml"].decode()  # dates come from SOURCE_DATE_EPOCH
    assert {"api/catalog.json", "api/fit.json", "search/search_index.json"} <= a.keys()


def test_the_built_site_passes_its_checks(site: Path):
    assert check_site(site) == []


def test_the_checks_find_broken_links_missing_pages_and_leftover_templates(site: Path, tmp_path: Path):
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    shutil.rmtree(broken / "zh" / "guides" / "quantization")
    page = broken / "fr" / "guides" / "nvlink-or-pcie" / "index.html"
    html = page.read_text().replace('id="what-to-buy"', 'id="what-to-bye"').replace("<p>", "<p>{{ price() }} ", 1)
    page.write_text(html)
    problems = "\n".join(check_site(broken))
    assert "zh/guides/quantization/index.html: missing" in problems
    assert "leads to no file" in problems
    assert "fr/guides/nvlink-or-pcie/index.html: link to '#what-to-buy' has no anchor" in problems
    assert "fr/guides/nvlink-or-pcie/index.html: template syntax left in the page" in problems


def test_publish_switches_atomically_and_rollback_restores(site: Path, tmp_path: Path):
    target = tmp_path / "host"
    first = publish(site, target, name="0001")
    assert (target / "current").is_symlink() and current_release(target) == first
    assert (target / "current" / "fr" / "guides" / "nvlink-or-pcie" / "index.html").exists()
    changed = tmp_path / "changed"
    shutil.copytree(site, changed)
    (changed / "index.html").write_text(
        (changed / "index.html").read_text().replace("</body>", "<!-- release-two-marker --></body>")
    )
    second = publish(changed, target, name="0002")
    assert current_release(target) == second and "release-two-marker" in (target / "current" / "index.html").read_text()
    assert rollback(target) == first
    assert "release-two-marker" not in (target / "current" / "index.html").read_text()
    with pytest.raises(PublishError, match="no release before"):
        rollback(target)


def test_a_site_failing_its_checks_is_not_published(site: Path, tmp_path: Path):
    target = tmp_path / "host"
    live = publish(site, target, name="0001")
    bad = tmp_path / "bad"
    shutil.copytree(site, bad)
    shutil.rmtree(bad / "fr" / "configurator")
    with pytest.raises(PublishError, match="fails its checks, nothing was published"):
        publish(bad, target, name="0002")
    assert current_release(target) == live and not (target / "releases" / "0002").exists()


def test_a_build_that_fails_half_way_leaves_the_live_site_as_it_was(site: Path, tmp_path: Path):
    target = tmp_path / "host"
    live = publish(site, target, name="0001")
    before = tree(target / "current")
    project = copy_project(tmp_path / "project")
    edit(project / "docs" / "zh" / "guides" / "quantization.md", "{{ kv_cache(", "{{ kv_cahce(")  # late page
    staging = tmp_path / "site"
    assert build(project, staging).returncode != 0  # the pipeline stops here: nothing to publish
    assert not staging.exists()
    assert current_release(target) == live and tree(target / "current") == before


def test_a_half_copied_release_is_never_served(site: Path, tmp_path: Path):
    target = tmp_path / "host"
    (target / "releases" / "0000.partial").mkdir(parents=True)
    release = publish(site, target, name="0001")
    assert current_release(target) == release
    with pytest.raises(PublishError):
        rollback(target)  # the partial copy is not a release to go back to


def test_the_ci_workflow_is_valid_and_pins_every_action_to_a_commit():
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, workflows),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for workflow in workflows:
        for action in re.findall(r"uses:\s*(\S+)", workflow.read_text()):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), f"{workflow.name}: {action} is not pinned"
    steps = workflows[0].read_text()
    assert "make test" in steps and "make build" in steps and "make check" in steps


def test_every_dependency_is_pinned_with_a_hash():
    lines = (ROOT / "requirements.txt").read_text().replace("\\\n", " ").splitlines()
    packages = [line for line in lines if line and not line.startswith(("#", " "))]
    assert len(packages) > 20
    for line in packages:
        assert re.match(r"^[\w.-]+==[\w.+-]+ ", line) and "--hash=sha256:" in line, line


def test_the_build_makes_no_network_request(tmp_path: Path):
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import socket\n"
        "def _refuse(*args, **kwargs):\n"
        "    raise RuntimeError(f'network access during the build: {args!r}')\n"
        "socket.socket.connect = _refuse\nsocket.socket.connect_ex = _refuse\nsocket.getaddrinfo = _refuse\n"
        "socket.create_connection = _refuse\n"
    )
    env = {**os.environ, "PYTHONPATH": str(blocker), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path / "site"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "network access" not in result.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('127.0.0.1', 9))"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert "network access during the build" in probe.stderr  # the blocker really is in force


def test_hostile_text_in_data_is_escaped_everywhere_it_lands(tmp_path: Path):
    project = copy_project(tmp_path / "project")
    edit(project / "data" / "models.yml", "name: Llama 3.3 70B", "name: Llama <script>alert(1)</script>")
    edit(project / "data" / "gpus.yml", "short_name: L40S", "short_name: L40S <img src=x onerror=alert(2)>")
    site = tmp_path / "site"
    result = build(project, site)
    assert result.returncode == 0, result.stderr
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert(1)" not in html and "<img src=x" not in html, page
    guide = (site / "guides" / "nvlink-or-pcie" / "index.html").read_text()
    assert "Llama &lt;script&gt;alert(1)&lt;/script&gt;" in guide
    configurator = (site / "configurator" / "index.html").read_text()
    assert "Llama \\u003cscript>alert(1)\\u003c/script>" in configurator  # inside the page's JSON data


def test_markdown_and_template_code_in_data_reach_the_reader_as_text(tmp_path: Path):
    """A link, a heading or a template expression written into data/ is shown as the characters it is."""
    project = copy_project(tmp_path / "project")
    edit(project / "data" / "gpus.yml", "short_name: L40S", "short_name: 'L40S [clickme](javascript:alert(12))'")
    edit(project / "data" / "models.yml", "name: Llama 3.3 70B", "name: 'Llama 3.3 70B {{ 7*7 }} {: onclick=x }'")
    site = tmp_path / "site"
    result = build(project, site)
    assert result.returncode == 0, result.stderr
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'href="javascript:' not in html and "70B 49" not in html and 'onclick="x"' not in html, page
    assert "L40S [clickme](javascript:alert(12))" in visible_text(
        (site / "configurator" / "index.html").read_text(encoding="utf-8")
    )
    heading = re.search(
        r"<h1[^>]*>(.*?)</h1>",
        (site / "fr" / "configurator" / "llama-3.3-70b" / "index.html").read_text(encoding="utf-8"),
        re.S,
    ).group(1)
    assert "Llama 3.3 70B {{ 7*7 }} {: onclick=x }" in visible_text(heading)


def test_builds_in_one_process_show_each_edit_of_the_data_and_of_a_page(tmp_path: Path):
    """`mkdocs serve` rebuilds in the same process, which keeps the catalog and the macros' results for as
    long as data/ is unchanged: an edit shows on the next build, and a failed build does not stop the next."""
    import logging

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    project, site = copy_project(tmp_path / "project"), tmp_path / "site"

    def build_in_process() -> str:
        mkdocs_build(load_config(str(project / "mkdocs.yml"), site_dir=str(site)))
        return (site / "fr" / "guides" / "nvlink-or-pcie" / "index.html").read_text(encoding="utf-8")

    logging.disable(logging.WARNING)
    try:
        assert "4\u202f157\xa0$US/mois" in build_in_process()
        edit(project / "data" / "nodes.yml", "amount: 4157", "amount: 3999")
        assert "3\u202f999\xa0$US/mois" in build_in_process()
        edit(project / "docs" / "fr" / "guides" / "nvlink-or-pcie.md", "# ", '{{ price("no-such-node") }}\n\n# ')
        with pytest.raises(Abort):  # MkDocs' answer to the hook's error about the unknown node
            build_in_process()
        edit(project / "docs" / "fr" / "guides" / "nvlink-or-pcie.md", '{{ price("no-such-node") }}\n\n# ', "# ")
        assert "3\u202f999\xa0$US/mois" in build_in_process()
    finally:
        logging.disable(logging.NOTSET)
