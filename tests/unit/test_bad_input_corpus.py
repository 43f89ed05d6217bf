"""A corpus of broken inputs across data/, mkdocs.yml and pages, each refused by the function the build hands
it to, in-process: data by ``site_data`` (what the hook's on_config loads), the nav and the language folders by
the checks of on_config and on_files, a page by ``render_page`` (what on_page_markdown runs). Each message
names the file with its line or key, and the problem. tests/site/test_bad_inputs.py shows, with real builds,
that the build stops on such a refusal, prints it and leaves the published site as it was."""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from mkdocs.utils.meta import get_data
from mkdocs.utils.yaml import get_yaml_loader
from sitebuild import ROOT, edit

from macros.base.errors import PageError
from macros.page.nav import empty_language_folders, missing_nav_pages
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.site_data import SiteData, site_data
from sizing.catalog.errors import CatalogError


def replace(old: str, new: str) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return apply


def truncate(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2] + "\n  - id: [unclosed\n", encoding="utf-8")


# (data file to break, how, fragments the message must hold: the file with its line or key, and the problem)
DATA_CORPUS = {
    "truncated data YAML": ("nodes.yml", truncate, ["nodes.yml:", "invalid YAML"]),
    "tab in data YAML": (
        "gpus.yml",
        replace("    memory_gb: 80\n", "\tmemory_gb: 80\n"),
        ["gpus.yml:", "invalid YAML"],
    ),
    "wrong type": (
        "gpus.yml",
        replace("memory_gb: 141", "memory_gb: lots"),
        ["gpus.yml:", "record 'h200-sxm-141gb'", "memory_gb", "found: 'lots'"],
    ),
    "unknown GPU in a node": (
        "nodes.yml",
        replace("gpu: l40s", "gpu: l40"),
        ["nodes.yml:", "record '1x-l40s'", "unknown gpu 'l40'"],
    ),
    "unknown GPU in a node, with the closest id": (
        "nodes.yml",
        replace("gpu: b200", "gpu: b300"),
        ["nodes.yml:", "record '8x-b200'", "did you mean 'b200'"],
    ),
    "unknown interconnect": (
        "nodes.yml",
        replace("interconnect: nvlink4, topology: nvswitch", "interconnect: nvlink9, topology: nvswitch"),
        ["nodes.yml:", "unknown interconnect 'nvlink9'"],
    ),
    "duplicate node id": (
        "nodes.yml",
        replace("  - id: 2x-rtx-4090", "  - id: 1x-rtx-4090"),
        ["nodes.yml:", "record '1x-rtx-4090'", "duplicate id"],
    ),
    "price of zero": (
        "nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: 0, currency: USD}"),
        ["nodes.yml:", "record '4x-a100-sxm4-80gb'", "amount", "greater than 0"],
    ),
    "price without currency": (
        "nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: 4395}"),
        ["nodes.yml:", "currency", "missing"],
    ),
    "negative bandwidth": (
        "interconnects.yml",
        replace("per_direction_gbps: 450", "per_direction_gbps: -450"),
        ["interconnects.yml:", "record 'nvlink4'", "greater than 0"],
    ),
    "directions that disagree": (
        "interconnects.yml",
        replace("both_directions_gbps: 900\n", "both_directions_gbps: 1800\n"),
        ["interconnects.yml:", "must be twice per_direction_gbps"],
    ),
    "no sources": (
        "precisions.yml",
        replace('      - "2 bytes per parameter (shared/facts/sizing.md)"\n', ""),
        ["precisions.yml:", "record 'bf16'", "sources"],
    ),
    "misspelt field": (
        "models.yml",
        replace(
            "    kv_heads: 8\n    head_dim: 128\n    vocab_size: 128256",
            "    kv_head: 8\n    head_dim: 128\n    vocab_size: 128256",
        ),
        ["models.yml:", "kv_head", "unknown field"],
    ),
    "fraction above one": (
        "assumptions.yml",
        replace("value: 0.90", "value: 1.5"),
        ["assumptions.yml:", "usable_memory_fraction", "less than or equal to 1"],
    ),
    "empty node list": (
        "nodes.yml",
        lambda p: p.write_text("prices_as_of: 2026-11-01\nnodes: []\n"),
        ["nodes.yml:", "nodes", "at least 1"],
    ),
    "missing data file": ("precisions.yml", Path.unlink, ["precisions.yml: file is missing"]),
    "unknown default precision": (
        "models.yml",
        replace("default_precision: fp8", "default_precision: fp4"),
        ["models.yml:", "record 'deepseek-v3'", "default_precision", "fp4"],
    ),
    # data that is not a figure, not a date, not text, or not YAML one can read
    "infinite price": (
        "nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: .inf, currency: USD}"),
        ["nodes.yml:", "record '4x-a100-sxm4-80gb'", "amount", "finite number"],
    ),
    "infinite bandwidth": (
        "gpus.yml",
        replace("memory_bandwidth_gbps: 4800", "memory_bandwidth_gbps: .inf"),
        ["gpus.yml:", "memory_bandwidth_gbps", "finite number"],
    ),
    "a date that does not exist": (
        "nodes.yml",
        replace("prices_as_of: 2026-11-01", "prices_as_of: 2026-11-31"),
        ["nodes.yml:", "'2026-11-31' is not a date", "YYYY-MM-DD"],
    ),
    "a Latin-1 byte": (
        "gpus.yml",
        lambda p: p.write_bytes(p.read_bytes().replace(b"NVIDIA A100 80GB PCIe", b"NVIDIA A100 80GB PCIe \xe9", 1)),
        ["gpus.yml:", "byte 0xe9 is not UTF-8", "save the file as UTF-8"],
    ),
    "20,000 nested brackets": (
        "gpus.yml",
        lambda p: p.write_text(p.read_text() + "x: " + "[" * 20000 + "]" * 20000),
        ["gpus.yml:", "nested more than"],
    ),
    "a data file that is a folder": (
        "precisions.yml",
        lambda p: (p.unlink(), p.mkdir()),
        ["precisions.yml:", "is a folder"],
    ),
    "a boolean for a card count": (
        "nodes.yml",
        replace("cards: 4", "cards: true"),
        ["nodes.yml:", "cards", "valid integer", "boolean"],
    ),
    "an id YAML reads as false": (
        "nodes.yml",
        replace("  - id: 1x-l40s", "  - id: no"),
        ["nodes.yml:", "id", "valid string", "quote the text"],
    ),
    "a line break in a name": (
        "models.yml",
        replace("name: Llama 3.3 70B", 'name: "Llama 3.3 70B\\n# Pwned"'),
        ["models.yml:", "record 'llama-3.3-70b'", "name", "line breaks"],
    ),
    "an alias bomb": (
        "gpus.yml",
        lambda p: p.write_text(
            p.read_text()
            + "a: &a [x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
        ),
        ["gpus.yml:", "expand to more than"],
    ),
    "a data file too large": (
        "nodes.yml",
        lambda p: p.write_text(p.read_text() + "#" + "x" * 5_000_000 + "\n"),
        ["nodes.yml:", "more than the 4,000,000"],
    ),
}


@pytest.mark.parametrize("case", DATA_CORPUS, ids=list(DATA_CORPUS))
def test_broken_data_is_refused_naming_file_record_and_problem(data_copy: Path, case: str):
    name, breaks, fragments = DATA_CORPUS[case]
    breaks(data_copy / name)
    with pytest.raises(CatalogError) as caught:
        site_data(data_copy)
    for fragment in fragments:
        assert fragment in str(caught.value), f"{case}: {fragment!r} not in:\n{caught.value}"


def nav_of(mkdocs_yml: str) -> object:

    return yaml.load(mkdocs_yml, Loader=get_yaml_loader())["nav"]


def test_the_nav_naming_a_page_that_does_not_exist_is_refused_with_its_key():
    mkdocs_yml = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert missing_nav_pages(nav_of(mkdocs_yml), ROOT / "docs") == []
    broken = mkdocs_yml.replace("      - guides/quantization.md", "      - guides/quantisation.md", 1)
    (message,) = missing_nav_pages(nav_of(broken), ROOT / "docs")
    assert message.startswith("mkdocs.yml: nav > ")
    assert "'guides/quantisation.md' is not a page of docs/en/; fix the path or add the page" in message


def test_a_language_folder_without_a_page_is_refused_with_the_fix(tmp_path: Path):
    docs = tmp_path / "docs"
    for lang in ("en", "fr", "zh"):
        (docs / lang).mkdir(parents=True)
    (docs / "en" / "index.md").write_text("# Home {#home}\n")
    (docs / "fr" / "index.md").write_text("# Accueil {#home}\n")
    assert empty_language_folders(docs, ["en", "fr", "zh"]) == [
        "docs/zh/ holds no page: a language folder must hold at least its home page (index.md); add pages, "
        "or remove 'zh' from plugins.i18n.languages in mkdocs.yml"
    ]


def page_error(data: SiteData, path: str, source: str) -> str:
    """What ``render_page`` says of ``source`` as the page at ``path`` (docs/<lang>/...), handed over as MkDocs
    hands it to the hook: without its front matter."""
    markdown, _ = get_data(source)
    with pytest.raises(PageError) as caught:
        render_page(PageSource(path, path.split("/")[1], source, markdown), ROOT / "docs", data)
    return str(caught.value)


def edited(path: str, old: str, new: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


HOME_EN, HOME_ZH, HOME_FR = "docs/en/index.md", "docs/zh/index.md", "docs/fr/index.md"
BEFORE_TITLE = "\n# "

# (page, the text replaced, its replacement, fragments the message must hold)
PAGE_CORPUS = {
    "unclosed macro": (
        "docs/fr/guides/quantization.md",
        '{{ kv_cache("llama-3.3-70b", 131072) }}',
        '{{ kv_cache("llama-3.3-70b", 131072) ',
        ["docs/fr/guides/quantization.md:", "without its '}}'"],
    ),
    "unknown macro": (
        "docs/en/guides/quantization.md",
        "{{ embedding_share(",
        "{{ embeddings_share(",
        ["docs/en/guides/quantization.md:", "unknown macro 'embeddings_share'"],
    ),
    "unknown model id": (
        "docs/zh/guides/mixture-of-experts.md",
        'params("deepseek-v3")',
        'params("deepseek-v4")',
        ["docs/zh/guides/mixture-of-experts.md:", "unknown model id 'deepseek-v4'"],
    ),
    "argument of the wrong type": (
        "docs/en/guides/quantization.md",
        'kv_cache("llama-3.3-70b", 131072)',
        'kv_cache("llama-3.3-70b", "long")',
        ["docs/en/guides/quantization.md:", "argument 'context' of kv_cache() must be a whole number"],
    ),
    "broken front matter": (
        "docs/en/guides/index.md",
        "title: Guides",
        "title: Guides: all of them",
        ["docs/en/guides/index.md:2:", "front matter is not valid YAML"],
    ),
    "heading without an id": (
        "docs/en/guides/what-we-dont-offer.md",
        "## Jobs across several nodes {#multi-node}",
        "## Jobs across several nodes",
        ["docs/en/guides/what-we-dont-offer.md:", "heading without a pinned id"],
    ),
    "link to no page": (
        HOME_EN,
        "(configurator/index.md)",
        "(configurateur/index.md)",
        ["docs/en/index.md:", "links to 'configurateur/index.md'"],
    ),
    "figure typed by hand": (
        "docs/zh/guides/what-we-dont-offer.md",
        "替代方案：把任务压进一个节点。",
        "我们有 41 种配置。替代方案：把任务压进一个节点。",
        ["docs/zh/guides/what-we-dont-offer.md:", "figures typed by hand", "41"],
    ),
    "translation out of step": (
        "docs/fr/guides/mixture-of-experts.md",
        '{{ kv_heads("qwen3-235b-a22b") }}',
        "quatre",
        ["docs/fr/guides/mixture-of-experts.md:", 'is missing kv_heads("qwen3-235b-a22b")'],
    ),
    "python internals": (
        HOME_EN,
        "# GPU node guides {#gpu-node-guides}",
        "# GPU node guides {#gpu-node-guides}\n\n{{ price.__globals__ }}",
        ["docs/en/index.md:", "is not a macro call"],
    ),
    # pages hold text and macro calls, nothing else
    "a figure typed inside braces": (
        HOME_FR,
        BEFORE_TITLE,
        '\n{{ "4 157 $US" }}\n\n# ',
        ["docs/fr/index.md:", "is not a macro call"],
    ),
    "a bare number in braces": (
        HOME_EN,
        BEFORE_TITLE,
        "\n{{ 41 }}\n\n# ",
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a macro's output edited": (
        HOME_EN,
        BEFORE_TITLE,
        '\n{{ price("4x-a100-pcie-80gb").replace("4,157", "3,999") }}\n\n# ',
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a macro named without a call": (
        HOME_EN,
        BEFORE_TITLE,
        "\n{{ price }}\n\n# ",
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "the template itself": (HOME_EN, BEFORE_TITLE, "\n{{ self }}\n\n# ", ["docs/en/index.md:", "is not a macro call"]),
    "a random filter": (
        HOME_EN,
        BEFORE_TITLE,
        '\n{{ ["a", "b"]|random }}\n\n# ',
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a division by zero": (HOME_EN, BEFORE_TITLE, "\n{{ 1/0 }}\n\n# ", ["docs/en/index.md:", "is not a macro call"]),
    "a gigabyte string": (
        HOME_EN,
        BEFORE_TITLE,
        "\n{{ 'a' * 10**9 }}\n\n# ",
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a power tower": (HOME_EN, BEFORE_TITLE, "\n{{ 9**(9**9) }}\n\n# ", ["docs/en/index.md:", "is not a macro call"]),
    "full-width braces": (
        HOME_ZH,
        BEFORE_TITLE,
        '\n｛｛ price("4x-a100-pcie-80gb") ｝｝\n\n# ',
        ["docs/zh/index.md:", "full-width braces"],
    ),
    "a Chinese numeral": (
        "docs/zh/guides/what-we-dont-offer.md",
        "替代方案：把任务压进一个节点。",
        "我们有四十一种配置。替代方案：把任务压进一个节点。",
        ["docs/zh/guides/what-we-dont-offer.md:", "figures typed by hand", "四十一"],
    ),
    "a number in words beside a currency": (
        "docs/en/guides/what-we-dont-offer.md",
        "Each limit comes with",
        "It costs two thousand dollars. Each limit comes with",
        ["docs/en/guides/what-we-dont-offer.md:", "figures typed by hand", "two thousand dollars"],
    ),
    "digits in an attribute list": (  # refused for what it sets, before its digits are
        HOME_EN,
        BEFORE_TITLE,
        '\nText.\n{: data-nodes="41" }\n\n# ',
        ["docs/en/index.md:", "sets 'data-nodes'", "{#id} or a {.class} only"],
    ),
    "a heading id given twice": (
        "docs/en/guides/what-we-dont-offer.md",
        "## Jobs across several nodes {#multi-node}",
        "## Jobs across several nodes {#multi-node}\n\n## Again {#multi-node}",
        ["docs/en/guides/what-we-dont-offer.md:", "{#multi-node} is given twice"],
    ),
}


@pytest.mark.parametrize("case", PAGE_CORPUS, ids=list(PAGE_CORPUS))
def test_a_broken_page_is_refused_naming_page_line_and_problem(data: SiteData, case: str):
    path, old, new, fragments = PAGE_CORPUS[case]
    message = page_error(data, path, edited(path, old, new))
    for fragment in fragments:
        assert fragment in message, f"{case}: {fragment!r} not in:\n{message}"


def test_a_translation_with_no_english_page_is_refused_naming_the_missing_page(data: SiteData):
    message = page_error(data, "docs/fr/guides/orphan.md", "# Orphelin {#orphan}\n")
    assert message.startswith("docs/fr/guides/orphan.md: translates no page: docs/en/guides/orphan.md does not exist")


# The mistakes a writer makes in the NVLink or PCIe guide, with the line of the page they are on.
GUIDE = "docs/{lang}/guides/nvlink-or-pcie.md"


def test_an_unknown_id_names_the_page_the_line_and_the_closest_ids(data: SiteData):
    path = GUIDE.format(lang="fr")
    source = edited(path, 'price_gap("4x-a100-sxm4-80gb"', 'price_gap("4x-a100-sxm4-80g"')
    message = page_error(data, path, source)
    line = line_of(source, '"4x-a100-sxm4-80g"')
    assert f"{path}:{line}: unknown node id '4x-a100-sxm4-80g'" in message
    assert "did you mean '4x-a100-sxm4-80gb'" in message


def test_a_template_syntax_error_names_the_page_and_the_line(data: SiteData):
    path = GUIDE.format(lang="zh")
    source = edited(path, '{{ layers("llama-3.3-70b") }}', '{{ layers("llama-3.3-70b") }')
    message = page_error(data, path, source)
    assert f"{path}:{line_of(source, '{{ layers(')}: a '{{{{' without its '}}}}'" in message


def test_a_wrong_argument_says_what_the_macro_takes(data: SiteData):
    path = GUIDE.format(lang="en")
    source = edited(path, "{{ max_cards() }} cards?", "{{ cards(8) }} cards?")
    message = page_error(data, path, source)
    assert f"{path}:{line_of(source, '{{ cards(8) }}')}: argument 'node' of cards() must be an id in quotes" in message
    assert "it takes cards(node)" in message


def test_reaching_python_internals_is_refused(data: SiteData):
    path = GUIDE.format(lang="en")
    source = edited(path, "One case, and it is", "{{ ''.__class__.__mro__[1].__subclasses__() }} One case, and it is")
    message = page_error(data, path, source)
    assert f"{path}:{line_of(source, '__subclasses__')}:" in message and "is not a macro call" in message


def test_a_figure_typed_by_hand_is_listed_with_its_line(data: SiteData):
    path = GUIDE.format(lang="fr")
    source = edited(path, "Un seul cas, et c’est", "Le nœud coûte 4 157 $ par mois. Un seul cas, et c’est")
    message = page_error(data, path, source)
    assert "figures typed by hand" in message
    assert f"{path}:{line_of(source, '4 157 $')}: Le nœud coûte 4 157 $" in message


# A claim of a guide that an edit of data/ makes false stops the page, naming its line.
def edit_data(data_copy: Path, name: str, old: str, new: str, after: str = "") -> SiteData:
    """``site_data`` of ``data_copy`` once the first ``old`` after ``after`` in ``name`` is ``new``."""
    path = data_copy / name
    text = path.read_text(encoding="utf-8")
    start = text.index(after)
    assert old in text[start:], f"{old!r} not in {name} after {after!r}"
    path.write_text(text[:start] + text[start:].replace(old, new, 1), encoding="utf-8")
    return site_data(data_copy)


def claim_error(data: SiteData, path: str, claim: str) -> str:
    """``page_error`` of the page at ``path`` as it stands, checking that it names the line of ``claim``."""
    source = (ROOT / path).read_text(encoding="utf-8")
    message = page_error(data, path, source)
    assert message.startswith(f"{path}:{line_of(source, claim)}: claim no longer true"), message
    return message


def test_a_model_grown_past_one_card_fails_the_claim_that_it_fits_one(data_copy: Path):
    # Mistral Small grown to 40B parameters: 80 GB of BF16 weights no longer fit one 80 GB card
    data = edit_data(data_copy, "models.yml", "params: 23572403200", "params: 40000000000")
    message = claim_error(data, GUIDE.format(lang="en"), "claim_fits_one_card(")
    assert "'mistral-small-3-24b' in bf16 fits on one card of '4x-a100-pcie-80gb'" in message


@pytest.mark.parametrize("guide", ["mixture-of-experts", "what-we-dont-offer"])
def test_a_model_that_some_node_would_hold_fails_the_claim_that_none_does(data_copy: Path, guide: str):
    # a DeepSeek V3 of 500B parameters would fit 8 × B200 in BF16: "fits on no node" becomes false
    data = edit_data(data_copy, "models.yml", "params: 671026419200", "params: 500000000000")
    message = claim_error(data, f"docs/en/guides/{guide}.md", 'claim_no_node_holds("deepseek-v3", "bf16")')
    assert "claim no longer true: no node holds 'deepseek-v3' in bf16" in message


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_a_model_that_would_fit_for_training_fails_the_claim_that_it_does_not(data_copy: Path, lang: str):
    # RTX PRO 6000 with 160 GB (162,500 MiB = 158.7 GiB visible): Llama 3.3 70B sharded over 8 cards needs
    # 1,051.3 / 8 = 131.4 GiB per card and would fit, so "more than a card of 8 × RTX PRO 6000 holds" is false
    card = "  - id: rtx-pro-6000-blackwell"
    edit(data_copy / "gpus.yml", "nvidia_smi_memory_mib: 97887", "nvidia_smi_memory_mib: 163000")
    edit(data_copy / "gpus.yml", "runtime_visible_memory_mib: 97397", "runtime_visible_memory_mib: 162500")
    data = edit_data(data_copy, "gpus.yml", "memory_gb: 96", "memory_gb: 160", card)
    message = claim_error(data, GUIDE.format(lang=lang), "claim_training_does_not_fit(")
    assert "full-parameter training of 'llama-3.3-70b' with Adam does not fit '8x-rtx-pro-6000-blackwell'" in message
    assert "131.4 GiB of training state per card against 158.7 GiB" in message


def test_a_published_run_the_model_misses_by_more_than_twice_fails_the_moe_guide(data_copy: Path):
    # SGLang, DeepSeek V3 on 8 × H200 at 8 streams: measured 25.79 tok/s, the model about 47.5; at 12 tok/s the
    # model would be 4 times too fast, and the guide's "within a factor of two" false
    run = "id: dsv3-fp8-h200-8x-sglang041-c8"
    data = edit_data(
        data_copy, "measurements.yml", "tokens_per_s_per_stream: 25.79", "tokens_per_s_per_stream: 12.0", run
    )
    message = claim_error(data, "docs/en/guides/mixture-of-experts.md", "published_runs_agreement(")
    assert "claim no longer true: the speeds of 'deepseek-v3' are within 2× of its published runs" in message
