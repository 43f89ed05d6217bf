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
    "tab in data YAML": ("data/gpus.yml", replace("    memory_gb: 80\n", "\tmemory_gb: 80\n"),
                         ["gpus.yml:", "invalid YAML"]),
    "wrong type": ("data/gpus.yml", replace("memory_gb: 141", "memory_gb: lots"),
                   ["gpus.yml:", "record 'h200-sxm-141gb'", "memory_gb", "found: 'lots'"]),
    "unknown GPU in a node": ("data/nodes.yml", replace("gpu: l40s", "gpu: l40"),
                              ["nodes.yml:", "record '1x-l40s'", "unknown gpu 'l40'"]),
    "unknown interconnect": ("data/nodes.yml", replace("interconnect: nvlink4, topology: nvswitch",
                                                       "interconnect: nvlink9, topology: nvswitch"),
                             ["nodes.yml:", "unknown interconnect 'nvlink9'"]),
    "duplicate node id": ("data/nodes.yml", replace("  - id: 2x-rtx-4090", "  - id: 1x-rtx-4090"),
                          ["nodes.yml:", "record '1x-rtx-4090'", "duplicate id"]),
    "price of zero": ("data/nodes.yml", replace("{amount: 4395, currency: USD}", "{amount: 0, currency: USD}"),
                      ["nodes.yml:", "record '4x-a100-sxm4-80gb'", "amount", "greater than 0"]),
    "price without currency": ("data/nodes.yml", replace("{amount: 4395, currency: USD}", "{amount: 4395}"),
                               ["nodes.yml:", "currency", "missing"]),
    "negative bandwidth": ("data/interconnects.yml", replace("per_direction_gbps: 450", "per_direction_gbps: -450"),
                           ["interconnects.yml:", "record 'nvlink4'", "greater than 0"]),
    "directions that disagree": ("data/interconnects.yml", replace("both_directions_gbps: 900\n",
                                                                   "both_directions_gbps: 1800\n"),
                                 ["interconnects.yml:", "must be twice per_direction_gbps"]),
    "no sources": ("data/precisions.yml", replace('      - "2 bytes per parameter (shared/facts/sizing.md)"\n', ""),
                   ["precisions.yml:", "record 'bf16'", "sources"]),
    "misspelt field": ("data/models.yml", replace("    kv_heads: 8\n    head_dim: 128\n    vocab_size: 128256",
                                                  "    kv_head: 8\n    head_dim: 128\n    vocab_size: 128256"),
                       ["models.yml:", "kv_head", "unknown field"]),
    "fraction above one": ("data/assumptions.yml", replace("value: 0.90", "value: 1.5"),
                           ["assumptions.yml:", "usable_memory_fraction", "less than or equal to 1"]),
    "empty node list": ("data/nodes.yml", lambda p: p.write_text("prices_as_of: 2026-11-01\nnodes: []\n"),
                        ["nodes.yml:", "nodes", "at least 1"]),
    "missing data file": ("data/precisions.yml", remove, ["precisions.yml: file is missing"]),
    "unknown default precision": ("data/models.yml", replace("default_precision: fp8", "default_precision: fp4"),
                                  ["models.yml:", "record 'deepseek-v3'", "default_precision", "fp4"]),
    "invalid mkdocs.yml": ("mkdocs.yml", replace("strict: true", "strict: [true"), ["mkdocs.yml", "line"]),
    "nav to a missing page": ("mkdocs.yml", replace("      - guides/quantization.md", "      - guides/quantisation.md"),
                              ["guides/quantisation.md", "nav"]),
    "empty language folder": ("docs/zh", empty_folder, ["docs/zh/ holds no page", "plugins.i18n.languages"]),
    "unclosed macro": ("docs/fr/guides/quantization.md", replace('{{ kv_cache("llama-3.3-70b", 131072) }}',
                                                                 '{{ kv_cache("llama-3.3-70b", 131072) '),
                       ["docs/fr/guides/quantization.md:", "without its '}}'"]),
    "unknown macro": ("docs/en/guides/quantization.md", replace("{{ embedding_share(", "{{ embeddings_share("),
                      ["docs/en/guides/quantization.md:", "unknown macro 'embeddings_share'"]),
    "unknown model id": ("docs/zh/guides/mixture-of-experts.md", replace('params("deepseek-v3")', 'params("deepseek-v4")'),
                         ["docs/zh/guides/mixture-of-experts.md:", "unknown model id 'deepseek-v4'"]),
    "argument of the wrong type": ("docs/en/guides/quantization.md",
                                   replace('kv_cache("llama-3.3-70b", 131072)', 'kv_cache("llama-3.3-70b", "long")'),
                                   ["docs/en/guides/quantization.md:", "argument 'context' of kv_cache() must be a whole number"]),
    "broken front matter": ("docs/en/guides/index.md", replace("title: Guides", "title: Guides: all of them"),
                            ["docs/en/guides/index.md:2:", "front matter is not valid YAML"]),
    "heading without an id": ("docs/en/guides/what-we-dont-offer.md", replace("## Jobs across several nodes {#multi-node}",
                                                                             "## Jobs across several nodes"),
                              ["docs/en/guides/what-we-dont-offer.md:", "heading without a pinned id"]),
    "link to no page": ("docs/en/index.md", replace("(configurator/index.md)", "(configurateur/index.md)"),
                        ["docs/en/index.md:", "links to 'configurateur/index.md'"]),
    "figure typed by hand": ("docs/zh/guides/what-we-dont-offer.md", replace("我们宁愿现在就告诉您", "我们有 41 种配置。我们宁愿现在就告诉您"),
                             ["docs/zh/guides/what-we-dont-offer.md:", "figures typed by hand", "41"]),
    "translation out of step": ("docs/fr/guides/mixture-of-experts.md", replace('{{ kv_heads("qwen3-235b-a22b") }}', "quatre"),
                                ["docs/fr/guides/mixture-of-experts.md:", 'is missing kv_heads("qwen3-235b-a22b")']),
    "python internals": ("docs/en/index.md", replace("# GPU node guides {#gpu-node-guides}",
                                                     "# GPU node guides {#gpu-node-guides}\n\n{{ price.__globals__ }}"),
                         ["docs/en/index.md:", "not allowed"]),
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
    assert len(CORPUS) >= 25
