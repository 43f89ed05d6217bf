"""Translators' workflow: status, banners, macro parity, and the mistakes translators really make."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import UNTRANSLATED_GUIDE
from sitebuild import ROOT, page, visible_text

from macros.base.errors import PageError
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.translations import State, source_hash, stamp, translation_status

GUIDE = "docs/fr/guides/nvlink-or-pcie.md"


# --- status -----------------------------------------------------------------------------------------
@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """en: a, b, c; fr: a current, b outdated, d orphaned (c missing); zh: nothing."""
    root = tmp_path / "docs"
    for name in "abc":
        (root / "en").mkdir(parents=True, exist_ok=True)
        (root / "en" / f"{name}.md").write_text(f"# Page {name.upper()} {{#p}}\n")
    (root / "fr").mkdir()
    for name in "ab":
        (root / "fr" / f"{name}.md").write_text(f"---\ntitle: x\n---\n\n# Page {name} {{#p}}\n")
        stamp(root / "fr" / f"{name}.md", root)
    (root / "en" / "b.md").write_text("# Page B, rewritten {#p}\n")
    (root / "fr" / "d.md").write_text("# Orpheline {#p}\n")
    return root


def test_each_page_gets_its_state(docs: Path):
    states = {(s.lang, s.page): s.state for s in translation_status(docs)}
    assert states[("fr", "a.md")] is State.CURRENT
    assert states[("fr", "b.md")] is State.OUTDATED
    assert states[("fr", "c.md")] is State.MISSING
    assert states[("fr", "d.md")] is State.ORPHANED
    assert states[("zh", "a.md")] is State.MISSING


def test_stamping_records_the_english_hash_and_makes_the_page_current(docs: Path):
    value = stamp(docs / "fr" / "b.md", docs)
    assert value == source_hash((docs / "en" / "b.md").read_text())
    assert f"source_hash: {value}" in (docs / "fr" / "b.md").read_text()
    assert {(s.lang, s.page): s.state for s in translation_status(docs)}[("fr", "b.md")] is State.CURRENT


def run_status(docs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "translations.py"), "--docs", str(docs), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_command_prints_the_table_and_check_fails_on_an_orphan(docs: Path):
    result = run_status(docs, "--check")
    assert result.returncode == 1
    assert "fr  d.md  orphaned" in result.stdout and "fr  b.md  outdated" in result.stdout
    (docs / "fr" / "d.md").unlink()
    assert run_status(docs, "--check").returncode == 0


def test_every_translation_of_the_real_site_is_current():
    stale = [
        f"{s.lang}/{s.page}: {s.state.value}" for s in translation_status(ROOT / "docs") if s.state is not State.CURRENT
    ]
    assert not stale, "run scripts/translations.py: " + ", ".join(stale)


# --- banners, in a real build -----------------------------------------------------------------------
# The session's altered_site (conftest.altered_project), which test_published_address.py reads too: the zh
# mixture-of-experts guide and the fr home removed; the English API page changed after its translations (and the
# English NVLink guide given a macro call: its translations are outdated).
def test_a_missing_translation_is_served_in_english_with_a_banner_in_the_readers_language(altered_site):
    project, site = altered_site
    html = page(site, "zh", UNTRANSLATED_GUIDE)
    assert '<html lang="zh"' in html
    assert "本页尚未翻译" in html and "帮助我们翻译" in html
    assert '<div lang="en">' in html
    assert "Running a mixture-of-experts model" in visible_text(html)
    home = (site / "fr" / "index.html").read_text()
    assert "Cette page n’est pas encore traduite" in home and "Aidez-nous à la traduire" in home
    states = {(s.lang, s.page): s.state for s in translation_status(project / "docs")}
    assert states[("zh", f"{UNTRANSLATED_GUIDE}.md")] is State.MISSING


def test_an_outdated_translation_says_so_in_its_language(altered_site):
    _, site = altered_site
    assert "Cette traduction n’est peut-être plus à jour" in page(site, "fr", "reference/api")
    assert "本译文可能已过时" in page(site, "zh", "reference/api")
    assert "translation-banner" not in page(site, "en", "reference/api")
    assert "translation-banner" not in page(site, "fr", UNTRANSLATED_GUIDE)  # translated, and current


# --- parity and the mistakes a translator makes -------------------------------------------------------
def translate(data, source: str, path: str = GUIDE) -> str:
    lang = path.split("/")[1]
    from mkdocs.utils.meta import get_data

    markdown, _ = get_data(source)  # what MkDocs hands the hook
    return render_page(PageSource(path, lang, source, markdown), ROOT / "docs", data).whole


def mistake(data, old: str, new: str, path: str = GUIDE) -> tuple[str, int | None]:
    source = (ROOT / path).read_text(encoding="utf-8")
    assert old in source, old
    broken = source.replace(old, new, 1)
    with pytest.raises(PageError) as caught:
        translate(data, broken, path)
    line = next((n for n, text in enumerate(broken.splitlines(), 1) if new and new.splitlines()[0] in text), None)
    return str(caught.value), line


def test_the_real_translations_pass(data):
    for path in sorted((ROOT / "docs").glob("[fz][rh]/**/*.md")):
        translate(data, path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


MISTAKES = {
    "typo in a node id": (
        'price_gap("4x-a100-sxm4-80gb"',
        'price_gap("4x-a100-sxm4-80g"',
        ["unknown node id '4x-a100-sxm4-80g'", "did you mean '4x-a100-sxm4-80gb'"],
    ),
    "typo in a model id": (
        '{{ layers("llama-3.3-70b") }}',
        '{{ layers("llama-3.3-7b") }}',
        ["unknown model id 'llama-3.3-7b'", "did you mean 'llama-3.3-70b'"],
    ),
    "typo in a precision id": (
        '"llama-3.3-70b", "bf16", "4x-a100-pcie-80gb") }}){{ claim_split',
        '"llama-3.3-70b", "bf61", "4x-a100-pcie-80gb") }}){{ claim_split',
        ["unknown precision id 'bf61'", "did you mean 'bf16'"],
    ),
    "unclosed braces": ('{{ layers("llama-3.3-70b") }}', '{{ layers("llama-3.3-70b") }', ["a '{{' without its '}}'"]),
    "jinja syntax error inside a call": (
        '{{ layers("llama-3.3-70b") }}',
        '{{ layers("llama-3.3-70b",) ) }}',
        ["template syntax error"],
    ),
    "unclosed quote": (
        '{{ layers("llama-3.3-70b") }}',
        '{{ layers("llama-3.3-70b) }}',
        ["a '{{' without its '}}' on the same line, or a quote left open"],
    ),
    "missing opening brace": (
        '{{ layers("llama-3.3-70b") }}',
        '{ layers("llama-3.3-70b") }}',
        ["a '}}' without its '{{'"],
    ),
    "macro name translated": (
        "{{ max_cards() }} cartes ?",
        "{{ cartes_max() }} cartes ?",
        ["unknown macro 'cartes_max'"],
    ),
    "missing argument": (
        '{{ layers("llama-3.3-70b") }}',
        "{{ layers() }}",
        ["layers() was called wrongly", "missing a required argument: 'model'", "it takes layers(model)"],
    ),
    "extra argument": (
        '{{ layers("llama-3.3-70b") }}',
        '{{ layers("llama-3.3-70b", "bf16") }}',
        ["too many positional arguments", "it takes layers(model)"],
    ),
    "number instead of an id": (
        '{{ cards("8x-h100-sxm5-80gb") }}',
        "{{ cards(8) }}",
        ["argument 'node' of cards() must be an id in quotes, found 8"],
    ),
    "one id instead of a list": (
        'node_comparison(["4x-a100-pcie-80gb", "4x-a100-sxm4-80gb"]',
        'node_comparison("4x-a100-pcie-80gb"',
        ["argument 'nodes' of node_comparison() must be a list of ids"],
    ),
    "front matter with an unquoted colon": (
        'title: "NVLink ou PCIe : lequel choisir pour votre tâche"',
        "title: NVLink ou PCIe : lequel choisir pour votre tâche: vraiment",
        ["front matter is not valid YAML", "quote a value"],
    ),
    "front matter key translated": (
        "description: La liaison",
        "résumé: La liaison",
        ["unknown front matter key 'résumé'"],
    ),
    "front matter never closed": (
        "\n---\n\n# NVLink ou PCIe",
        "\n\n# NVLink ou PCIe",
        ["front matter opened with '---' is never closed"],
    ),
    "heading id translated": (
        "## En bref {#short-answer}",
        "## En bref {#en-bref}",
        ["heading id {#en-bref} does not match the English page", "{#short-answer}"],
    ),
    "heading id dropped": (
        "## En bref {#short-answer}",
        "## En bref",
        ["heading without its id", "{#short-answer}"],
    ),
    "link to a page that does not exist": (
        "[configurateur](../configurator/index.md)",
        "[configurateur](../configurateur/index.md)",
        ["links to '../configurateur/index.md', a page that exists in no language"],
    ),
    "dropped macro call": (
        '{{ claim_same_total_memory("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb") }}',
        "",
        [
            'is missing claim_same_total_memory("4x-a100-pcie-80gb", "4x-a100-sxm4-80gb")',
            "docs/en/guides/nvlink-or-pcie.md:",
        ],
    ),
    "added macro call": (
        "Un seul cas,",
        "{{ node_count() }} cas possibles, un seul,",
        ["calls node_count(), which docs/en/guides/nvlink-or-pcie.md does not; remove it"],
    ),
    "changed argument": (
        '{{ cards("8x-h100-sxm5-80gb") }}',
        '{{ cards("8x-b200") }}',
        ['calls cards("8x-b200") where docs/en/guides/nvlink-or-pcie.md:', 'calls cards("8x-h100-sxm5-80gb")'],
    ),
    "glossary term written the forbidden way": (
        "Chacune d’elles attend",
        "Chaque noeud attend",
        ["'noeud' is not how this site writes 'node' in fr", "'nœud'"],
    ),
    "figure typed by hand": (
        "Un seul cas,",
        "Le nœud coûte 4 157 $ par mois. Un seul cas,",
        ["figures typed by hand", "Le nœud coûte 4 157 $"],
    ),
}


@pytest.mark.parametrize("case", MISTAKES, ids=list(MISTAKES))
def test_a_translator_mistake_stops_the_build_with_file_line_and_fix(data, case):
    old, new, fragments = MISTAKES[case]
    message, line = mistake(data, old, new)
    assert message.startswith(f"{GUIDE}:"), message
    if line and case not in ("dropped macro call", "front matter never closed"):
        assert message.startswith(f"{GUIDE}:{line}:"), (line, message)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
