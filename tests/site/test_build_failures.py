"""Changes to data/ reach every language; every bad input stops the build and publishes nothing."""

from pathlib import Path

import pytest
from conftest import edit
from sitebuild import build, copy_project, page, visible_text

GUIDE_SRC = "docs/{lang}/guides/nvlink-or-pcie.md"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A previously published site that a failed build must leave alone."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("previous release")
    return site


def line_number(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def failed_build(project: Path, published: Path) -> str:
    result = build(project, published)
    assert result.returncode != 0, "the build should have failed"
    assert (published / "index.html").read_text() == "previous release"
    assert not published.with_name("site.new").exists()
    return result.stderr


def test_a_price_change_in_data_reaches_the_guide_in_every_language(project: Path, tmp_path: Path):
    edit(project / "data" / "nodes.yml", "{amount: 4157, currency: USD}", "{amount: 4321, currency: USD}")
    site = tmp_path / "out"
    result = build(project, site)
    assert result.returncode == 0, result.stderr
    assert "$4,321/month" in visible_text(page(site, "en", "guides/nvlink-or-pcie"))
    assert "4\u202f321\xa0$US/mois" in visible_text(page(site, "fr", "guides/nvlink-or-pcie"))
    assert "US$4,321/月" in visible_text(page(site, "zh", "guides/nvlink-or-pcie"))
    for lang in ("en", "fr", "zh"):
        assert "4,157" not in visible_text(page(site, lang, "guides/nvlink-or-pcie"))


def test_an_unknown_id_names_the_page_the_line_and_the_closest_ids(project: Path, published: Path):
    source = project / GUIDE_SRC.format(lang="fr")
    edit(source, 'price_gap("4x-a100-sxm4-80gb"', 'price_gap("4x-a100-sxm4-80g"')
    line = line_number(source, '"4x-a100-sxm4-80g"')
    message = failed_build(project, published)
    assert f"docs/fr/guides/nvlink-or-pcie.md:{line}: unknown node id '4x-a100-sxm4-80g'" in message
    assert "did you mean '4x-a100-sxm4-80gb'" in message


def test_a_template_syntax_error_names_the_page_and_the_line(project: Path, published: Path):
    source = project / GUIDE_SRC.format(lang="zh")
    edit(source, '{{ layers("llama-3.3-70b") }}', '{{ layers("llama-3.3-70b") }')
    line = line_number(source, '{{ layers("llama-3.3-70b") }')
    message = failed_build(project, published)
    assert f"docs/zh/guides/nvlink-or-pcie.md:{line}: a '{{{{' without its '}}}}'" in message


def test_a_wrong_argument_says_what_the_macro_takes(project: Path, published: Path):
    source = project / GUIDE_SRC.format(lang="en")
    edit(source, "{{ max_cards() }} cards?", "{{ cards(8) }} cards?")
    line = line_number(source, "{{ cards(8) }}")
    message = failed_build(project, published)
    assert f"docs/en/guides/nvlink-or-pcie.md:{line}: argument 'node' of cards() must be an id in quotes" in message
    assert "it takes cards(node)" in message


def test_reaching_python_internals_fails_the_build(project: Path, published: Path):
    source = project / GUIDE_SRC.format(lang="en")
    edit(source, "One case, and it is", "{{ ''.__class__.__mro__[1].__subclasses__() }} One case, and it is")
    message = failed_build(project, published)
    assert "docs/en/guides/nvlink-or-pcie.md:" in message and "is not a macro call" in message


def test_a_claim_the_data_no_longer_supports_fails_with_page_and_line(project: Path, published: Path):
    # Mistral Small grows to 40B parameters: it no longer fits on one 80 GB card in BF16
    edit(project / "data" / "models.yml", "params: 23572403200", "params: 40000000000")
    source = project / GUIDE_SRC.format(lang="en")
    line = line_number(source, "claim_fits_one_card(")
    message = failed_build(project, published)
    assert f"docs/en/guides/nvlink-or-pcie.md:{line}: claim no longer true" in message
    assert "'mistral-small-3-24b' in bf16 fits on one card of '4x-a100-pcie-80gb'" in message


def test_a_figure_typed_by_hand_is_listed(project: Path, published: Path):
    source = project / GUIDE_SRC.format(lang="fr")
    edit(source, "Un seul cas, et c’est", "Le nœud coûte 4 157 $ par mois. Un seul cas, et c’est")
    line = line_number(source, "4 157 $")
    message = failed_build(project, published)
    assert "figures typed by hand" in message
    assert f"docs/fr/guides/nvlink-or-pcie.md:{line}: Le nœud coûte 4 157 $" in message


def test_malformed_data_stops_the_build_naming_file_and_record(project: Path, published: Path):
    edit(project / "data" / "nodes.yml", "gpu: b200", "gpu: b300")
    message = failed_build(project, published)
    assert "nodes.yml:" in message and "record '8x-b200'" in message and "did you mean 'b200'" in message
