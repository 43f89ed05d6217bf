"""A corpus of broken inputs across data/, mkdocs.yml and pages. Each one stops the real build with a
message naming the file and the line or key, and leaves the published site exactly as it was."""

import shutil
from pathlib import Path

import pytest
from sitebuild import build, copy_project


def replace(old: str, new: str):
    def apply(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return apply


def truncate(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2] + "\n  - id: [unclosed\n", encoding="utf-8")


def remove(path: Path) -> None:
    path.unlink()


def empty_folder(path: Path) -> None:
    shutil.rmtree(path)
    path.mkdir()


# (file to break, how, fragments the message must hold: the file with its line or key, and the problem)
CORPUS = {
    "truncated data YAML": ("data/nodes.yml", truncate, ["nodes.yml:", "invalid YAML"]),
    "tab in data YAML": (
        "data/gpus.yml",
        replace("    memory_gb: 80\n", "\tmemory_gb: 80\n"),
        ["gpus.yml:", "invalid YAML"],
    ),
    "wrong type": (
        "data/gpus.yml",
        replace("memory_gb: 141", "memory_gb: lots"),
        ["gpus.yml:", "record 'h200-sxm-141gb'", "memory_gb", "found: 'lots'"],
    ),
    "unknown GPU in a node": (
        "data/nodes.yml",
        replace("gpu: l40s", "gpu: l40"),
        ["nodes.yml:", "record '1x-l40s'", "unknown gpu 'l40'"],
    ),
    "unknown interconnect": (
        "data/nodes.yml",
        replace("interconnect: nvlink4, topology: nvswitch", "interconnect: nvlink9, topology: nvswitch"),
        ["nodes.yml:", "unknown interconnect 'nvlink9'"],
    ),
    "duplicate node id": (
        "data/nodes.yml",
        replace("  - id: 2x-rtx-4090", "  - id: 1x-rtx-4090"),
        ["nodes.yml:", "record '1x-rtx-4090'", "duplicate id"],
    ),
    "price of zero": (
        "data/nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: 0, currency: USD}"),
        ["nodes.yml:", "record '4x-a100-sxm4-80gb'", "amount", "greater than 0"],
    ),
    "price without currency": (
        "data/nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: 4395}"),
        ["nodes.yml:", "currency", "missing"],
    ),
    "negative bandwidth": (
        "data/interconnects.yml",
        replace("per_direction_gbps: 450", "per_direction_gbps: -450"),
        ["interconnects.yml:", "record 'nvlink4'", "greater than 0"],
    ),
    "directions that disagree": (
        "data/interconnects.yml",
        replace("both_directions_gbps: 900\n", "both_directions_gbps: 1800\n"),
        ["interconnects.yml:", "must be twice per_direction_gbps"],
    ),
    "no sources": (
        "data/precisions.yml",
        replace('      - "2 bytes per parameter (shared/facts/sizing.md)"\n', ""),
        ["precisions.yml:", "record 'bf16'", "sources"],
    ),
    "misspelt field": (
        "data/models.yml",
        replace(
            "    kv_heads: 8\n    head_dim: 128\n    vocab_size: 128256",
            "    kv_head: 8\n    head_dim: 128\n    vocab_size: 128256",
        ),
        ["models.yml:", "kv_head", "unknown field"],
    ),
    "fraction above one": (
        "data/assumptions.yml",
        replace("value: 0.90", "value: 1.5"),
        ["assumptions.yml:", "usable_memory_fraction", "less than or equal to 1"],
    ),
    "empty node list": (
        "data/nodes.yml",
        lambda p: p.write_text("prices_as_of: 2026-11-01\nnodes: []\n"),
        ["nodes.yml:", "nodes", "at least 1"],
    ),
    "missing data file": ("data/precisions.yml", remove, ["precisions.yml: file is missing"]),
    "unknown default precision": (
        "data/models.yml",
        replace("default_precision: fp8", "default_precision: fp4"),
        ["models.yml:", "record 'deepseek-v3'", "default_precision", "fp4"],
    ),
    "invalid mkdocs.yml": ("mkdocs.yml", replace("strict: true", "strict: [true"), ["mkdocs.yml", "line"]),
    "nav to a missing page": (
        "mkdocs.yml",
        replace("      - guides/quantization.md", "      - guides/quantisation.md"),
        ["guides/quantisation.md", "nav"],
    ),
    "empty language folder": ("docs/zh", empty_folder, ["docs/zh/ holds no page", "plugins.i18n.languages"]),
    "unclosed macro": (
        "docs/fr/guides/quantization.md",
        replace('{{ kv_cache("llama-3.3-70b", 131072) }}', '{{ kv_cache("llama-3.3-70b", 131072) '),
        ["docs/fr/guides/quantization.md:", "without its '}}'"],
    ),
    "unknown macro": (
        "docs/en/guides/quantization.md",
        replace("{{ embedding_share(", "{{ embeddings_share("),
        ["docs/en/guides/quantization.md:", "unknown macro 'embeddings_share'"],
    ),
    "unknown model id": (
        "docs/zh/guides/mixture-of-experts.md",
        replace('params("deepseek-v3")', 'params("deepseek-v4")'),
        ["docs/zh/guides/mixture-of-experts.md:", "unknown model id 'deepseek-v4'"],
    ),
    "argument of the wrong type": (
        "docs/en/guides/quantization.md",
        replace('kv_cache("llama-3.3-70b", 131072)', 'kv_cache("llama-3.3-70b", "long")'),
        ["docs/en/guides/quantization.md:", "argument 'context' of kv_cache() must be a whole number"],
    ),
    "broken front matter": (
        "docs/en/guides/index.md",
        replace("title: Guides", "title: Guides: all of them"),
        ["docs/en/guides/index.md:2:", "front matter is not valid YAML"],
    ),
    "heading without an id": (
        "docs/en/guides/what-we-dont-offer.md",
        replace("## Jobs across several nodes {#multi-node}", "## Jobs across several nodes"),
        ["docs/en/guides/what-we-dont-offer.md:", "heading without a pinned id"],
    ),
    "link to no page": (
        "docs/en/index.md",
        replace("(configurator/index.md)", "(configurateur/index.md)"),
        ["docs/en/index.md:", "links to 'configurateur/index.md'"],
    ),
    "figure typed by hand": (
        "docs/zh/guides/what-we-dont-offer.md",
        replace("替代方案：把任务压进一个节点。", "我们有 41 种配置。替代方案：把任务压进一个节点。"),
        ["docs/zh/guides/what-we-dont-offer.md:", "figures typed by hand", "41"],
    ),
    "translation out of step": (
        "docs/fr/guides/mixture-of-experts.md",
        replace('{{ kv_heads("qwen3-235b-a22b") }}', "quatre"),
        ["docs/fr/guides/mixture-of-experts.md:", 'is missing kv_heads("qwen3-235b-a22b")'],
    ),
    "python internals": (
        "docs/en/index.md",
        replace(
            "# GPU node guides {#gpu-node-guides}", "# GPU node guides {#gpu-node-guides}\n\n{{ price.__globals__ }}"
        ),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    # data that is not a figure, not a date, not text, or not YAML one can read
    "infinite price": (
        "data/nodes.yml",
        replace("{amount: 4395, currency: USD}", "{amount: .inf, currency: USD}"),
        ["nodes.yml:", "record '4x-a100-sxm4-80gb'", "amount", "finite number"],
    ),
    "infinite bandwidth": (
        "data/gpus.yml",
        replace("memory_bandwidth_gbps: 4800", "memory_bandwidth_gbps: .inf"),
        ["gpus.yml:", "memory_bandwidth_gbps", "finite number"],
    ),
    "a date that does not exist": (
        "data/nodes.yml",
        replace("prices_as_of: 2026-11-01", "prices_as_of: 2026-11-31"),
        ["nodes.yml:", "'2026-11-31' is not a date", "YYYY-MM-DD"],
    ),
    "a Latin-1 byte": (
        "data/gpus.yml",
        lambda p: p.write_bytes(p.read_bytes().replace(b"NVIDIA A100 80GB PCIe", b"NVIDIA A100 80GB PCIe \xe9", 1)),
        ["gpus.yml:", "byte 0xe9 is not UTF-8", "save the file as UTF-8"],
    ),
    "20,000 nested brackets": (
        "data/gpus.yml",
        lambda p: p.write_text(p.read_text() + "x: " + "[" * 20000 + "]" * 20000),
        ["gpus.yml:", "nested more than"],
    ),
    "a data file that is a folder": (
        "data/precisions.yml",
        lambda p: (p.unlink(), p.mkdir()),
        ["precisions.yml:", "is a folder"],
    ),
    "a boolean for a card count": (
        "data/nodes.yml",
        replace("cards: 4", "cards: true"),
        ["nodes.yml:", "cards", "valid integer", "boolean"],
    ),
    "an id YAML reads as false": (
        "data/nodes.yml",
        replace("  - id: 1x-l40s", "  - id: no"),
        ["nodes.yml:", "id", "valid string", "quote the text"],
    ),
    "a line break in a name": (
        "data/models.yml",
        replace("name: Llama 3.3 70B", 'name: "Llama 3.3 70B\\n# Pwned"'),
        ["models.yml:", "record 'llama-3.3-70b'", "name", "line breaks"],
    ),
    "an alias bomb": (
        "data/gpus.yml",
        lambda p: p.write_text(
            p.read_text()
            + "a: &a [x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
        ),
        ["gpus.yml:", "expand to more than"],
    ),
    "a data file too large": (
        "data/nodes.yml",
        lambda p: p.write_text(p.read_text() + "#" + "x" * 5_000_000 + "\n"),
        ["nodes.yml:", "more than the 4,000,000"],
    ),
    # pages hold text and macro calls, nothing else
    "a figure typed inside braces": (
        "docs/fr/index.md",
        replace("\n# ", '\n{{ "4 157 $US" }}\n\n# '),
        ["docs/fr/index.md:", "is not a macro call"],
    ),
    "a bare number in braces": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ 41 }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a macro's output edited": (
        "docs/en/index.md",
        replace("\n# ", '\n{{ price("4x-a100-pcie-80gb").replace("4,157", "3,999") }}\n\n# '),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a macro named without a call": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ price }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "the template itself": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ self }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a random filter": (
        "docs/en/index.md",
        replace("\n# ", '\n{{ ["a", "b"]|random }}\n\n# '),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a division by zero": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ 1/0 }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a gigabyte string": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ 'a' * 10**9 }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "a power tower": (
        "docs/en/index.md",
        replace("\n# ", "\n{{ 9**(9**9) }}\n\n# "),
        ["docs/en/index.md:", "is not a macro call"],
    ),
    "full-width braces": (
        "docs/zh/index.md",
        replace("\n# ", '\n｛｛ price("4x-a100-pcie-80gb") ｝｝\n\n# '),
        ["docs/zh/index.md:", "full-width braces"],
    ),
    "a Chinese numeral": (
        "docs/zh/guides/what-we-dont-offer.md",
        replace("替代方案：把任务压进一个节点。", "我们有四十一种配置。替代方案：把任务压进一个节点。"),
        ["docs/zh/guides/what-we-dont-offer.md:", "figures typed by hand", "四十一"],
    ),
    "a number in words beside a currency": (
        "docs/en/guides/what-we-dont-offer.md",
        replace("Each limit comes with", "It costs two thousand dollars. Each limit comes with"),
        ["docs/en/guides/what-we-dont-offer.md:", "figures typed by hand", "two thousand dollars"],
    ),
    "digits in an attribute list": (
        "docs/en/index.md",
        replace("\n# ", '\nText.\n{: data-nodes="41" }\n\n# '),
        ["docs/en/index.md:", "figures typed by hand", "41"],
    ),
    # pages the site should not publish
    "a translation with no English page": (
        "docs/fr/guides",
        lambda p: (p / "orphan.md").write_text("# Orphelin {#orphan}\n"),
        ["docs/fr/guides/orphan.md", "translates no page", "docs/en/guides/orphan.md"],
    ),
    "a heading id given twice": (
        "docs/en/guides/what-we-dont-offer.md",
        replace(
            "## Jobs across several nodes {#multi-node}",
            "## Jobs across several nodes {#multi-node}\n\n## Again {#multi-node}",
        ),
        ["docs/en/guides/what-we-dont-offer.md:", "{#multi-node} is given twice"],
    ),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("corpus") / "project")


@pytest.mark.parametrize("case", CORPUS, ids=list(CORPUS))
def test_broken_input_stops_the_build_and_publishes_nothing(template: Path, tmp_path: Path, case: str):
    target, breaks, fragments = CORPUS[case]
    project = tmp_path / "project"
    shutil.copytree(template, project, symlinks=True)
    breaks(project / target)
    published = tmp_path / "site"
    published.mkdir()
    (published / "index.html").write_text("the live site")
    result = build(project, published)
    message = result.stdout + result.stderr
    assert result.returncode != 0, f"{case}: the build succeeded"
    for fragment in fragments:
        assert fragment in message, f"{case}: {fragment!r} not in:\n{message[-2000:]}"
    assert [p.name for p in published.iterdir()] == ["index.html"]
    assert (published / "index.html").read_text() == "the live site"
    assert not published.with_name("site.new").exists()


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 55
