"""Bad data never passes: each error names the file, the line, the record, the field and the fix."""

from pathlib import Path

import pytest
from sitebuild import edit

from sizing.catalog.errors import CatalogError
from sizing.catalog.loader import DATA_DIR, load_catalog

NODE_4X_PCIE = "  - id: 4x-a100-pcie-80gb\n    gpu: a100-pcie-80gb\n"
NVLINK3_SOURCES = "".join(  # every source line of the nvlink3 record
    line + "\n"
    for line in (DATA_DIR / "interconnects.yml")
    .read_text()
    .split("  - id: nvlink3\n")[1]
    .split("  - id:")[0]
    .splitlines()
    if line.startswith('      - "')
)


def error_of(data: Path) -> str:
    with pytest.raises(CatalogError) as caught:
        load_catalog(data)
    return str(caught.value)


def line_of_text(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(needle)


CASES = {
    "unknown gpu in a node, with suggestion": (
        "nodes.yml",
        NODE_4X_PCIE,
        "  - id: 4x-a100-pcie-80gb\n    gpu: a100-pcie-80g\n",
        [
            "nodes.yml:",
            "record '4x-a100-pcie-80gb'",
            "field 'gpu'",
            "unknown gpu 'a100-pcie-80g'",
            "did you mean 'a100-pcie-80gb'",
        ],
    ),
    "unknown interconnect": (
        "nodes.yml",
        "{interconnect: nvlink5, topology: nvswitch",
        "{interconnect: nvlink6, topology: nvswitch",
        ["record '8x-b200'", "field 'link.interconnect'", "unknown interconnect 'nvlink6'", "did you mean"],
    ),
    "zero price": (
        "nodes.yml",
        "{amount: 4157, currency: USD}",
        "{amount: 0, currency: USD}",
        ["record '4x-a100-pcie-80gb'", "field 'nodes.price_per_month.amount'", "greater than 0", "found: 0"],
    ),
    "negative memory": (
        "gpus.yml",
        "memory_gb: 141\n",
        "memory_gb: -141\n",
        ["gpus.yml:", "record 'h200-sxm-141gb'", "field 'gpus.memory_gb'", "greater than 0", "found: -141"],
    ),
    "price without currency": (
        "nodes.yml",
        "{amount: 4157, currency: USD}",
        "{amount: 4157}",
        ["record '4x-a100-pcie-80gb'", "field 'nodes.price_per_month.currency'", "required field is missing"],
    ),
    "currency we do not sell in": (
        "nodes.yml",
        "{amount: 4157, currency: USD}",
        "{amount: 4157, currency: EUR}",
        ["field 'nodes.price_per_month.currency'", "'USD'", "found: 'EUR'"],
    ),
    "duplicate id": ("gpus.yml", "  - id: l4\n", "  - id: l40s\n", ["gpus.yml:", "record 'l40s'", "duplicate id"]),
    "missing sources": (
        "interconnects.yml",
        "    sources:\n" + NVLINK3_SOURCES,
        "    sources:\n",
        ["interconnects.yml:", "record 'nvlink3'", "field 'interconnects.sources'"],
    ),
    "wrong type": (
        "models.yml",
        '    layers: 80\n    hidden_size: 8192\n    attention_heads: 64\n    kv_heads: 8\n    head_dim: 128\n    vocab_size: 128256\n    tie_word_embeddings: false\n    max_context_tokens: 131072\n    sources:\n      - "https://huggingface.co/meta-llama/Llama-3.3',
        '    layers: eighty\n    hidden_size: 8192\n    attention_heads: 64\n    kv_heads: 8\n    head_dim: 128\n    vocab_size: 128256\n    tie_word_embeddings: false\n    max_context_tokens: 131072\n    sources:\n      - "https://huggingface.co/meta-llama/Llama-3.3',
        ["models.yml:", "record 'llama-3.3-70b'", "field 'llms.layers'", "valid integer", "found: 'eighty'"],
    ),
    "misspelt field": (
        "gpus.yml",
        "    memory_bandwidth_gbps: 2039\n",
        "    memory_bandwith_gbps: 2039\n",
        ["record 'a100-sxm4-80gb'", "memory_bandwith_gbps", "unknown field"],
    ),
    "truncated YAML": (
        "precisions.yml",
        "    applies_to: [llm, diffusion]\n",
        "    applies_to: [llm, diffusion\n",
        ["precisions.yml:", "invalid YAML"],
    ),
    "PCIe generation that contradicts the card": (
        "nodes.yml",
        NODE_4X_PCIE + "    cards: 4\n    link: {interconnect: pcie-gen4-x16",
        NODE_4X_PCIE + "    cards: 4\n    link: {interconnect: pcie-gen5-x16",
        ["record '4x-a100-pcie-80gb'", "field 'link.interconnect'", "PCIe Gen4", "found 'pcie-gen5-x16'"],
    ),
    "more than 8 cards": (
        "nodes.yml",
        "  - id: 8x-b200\n    gpu: b200\n    cards: 8\n",
        "  - id: 8x-b200\n    gpu: b200\n    cards: 16\n",
        ["record '8x-b200'", "field 'nodes.cards'", "less than or equal to 8", "found: 16"],
    ),
    "NVLink node without its topo label": (
        "nodes.yml",
        "topology: nvswitch, topo_label: NV12}",
        "topology: nvswitch}",
        ["record '8x-a100-sxm4-80gb'", "field 'link.topo_label'", "nvidia-smi topo -m"],
    ),
    "moe model without active parameters": (
        "models.yml",
        "    active_params: 12879925248\n",
        "",
        ["record 'mixtral-8x7b'", "active_params"],
    ),
    "duplicate key in a record": (
        "gpus.yml",
        "    memory_gb: 24\n    memory_type: GDDR6X\n",
        "    memory_gb: 24\n    memory_gb: 23\n    memory_type: GDDR6X\n",
        ["gpus.yml:", "duplicate key 'memory_gb'"],
    ),
    "assumption without a reason": (
        "assumptions.yml",
        "    reason: vLLM's default gpu_memory_utilization (determine_available_memory).\n",
        "",
        ["assumptions.yml:", "field 'assumptions.usable_memory_fraction.reason'", "missing"],
    ),
    "measurement naming an unknown model": (
        "measurements.yml",
        "    model: llama-3.3-70b\n",
        "    model: llama-3.3-7b\n",
        [
            "measurements.yml:",
            "record 'llama33-70b-fp8-h100-2x-nim-5000in'",
            "field 'model'",
            "unknown model 'llama-3.3-7b'",
            "did you mean 'llama-3.3-70b'",
        ],
    ),
    "measurement naming an unknown gpu": (
        "measurements.yml",
        "    gpu: h100-sxm5-80gb\n",
        "    gpu: h100-sxm-80gb\n",
        [
            "measurements.yml:",
            "record 'qwen3-8b-h100sxm-1x-vllm-c1'",
            "field 'gpu'",
            "unknown gpu 'h100-sxm-80gb'",
            "did you mean 'h100-sxm5-80gb'",
        ],
    ),
    "measurement naming an unknown precision": (
        "measurements.yml",
        "    precision: fp8\n",
        "    precision: fp-8\n",
        ["measurements.yml:", "field 'precision'", "unknown precision 'fp-8'", "did you mean 'fp8'"],
    ),
    "measurement naming an unknown link": (
        "measurements.yml",
        "    link: nvlink\n",
        "    link: nvlnk\n",
        ["measurements.yml:", "field 'link'", "unknown link 'nvlnk'", "did you mean 'nvlink'"],
    ),
    "inline gpu of a measurement without its source": (
        "measurements.yml",
        "      peer_to_peer: true\n      source: 'NVIDIA H20",
        "      peer_to_peer: true\n      sourc: 'NVIDIA H20",
        ["measurements.yml:", "decode.gpu.sourc", "unknown field"],
    ),
    "constant fitted on an unknown record": (
        "assumptions.yml",
        "      - qwen3-8b-h100sxm-1x-vllm-c1\n",
        "      - qwen3-8b-h100sxm-1x-vllm-c9\n",
        [
            "assumptions.yml:",
            "record 'decode_bandwidth_fraction_server'",
            "field 'fitted_on'",
            "unknown measurement 'qwen3-8b-h100sxm-1x-vllm-c9'",
        ],
    ),
    "constant fitted on an unreliable record": (
        "assumptions.yml",
        "      - qwen3-8b-h100sxm-1x-vllm-c1\n",
        "      - dsv32-fp8-h20-8x-vllm\n",
        ["assumptions.yml:", "field 'fitted_on'", "'dsv32-fp8-h20-8x-vllm' is flagged unreliable"],
    ),
    "constant fitted on a held-out record": (
        "assumptions.yml",
        "      - qwen3-8b-h100sxm-1x-vllm-c1\n",
        "      - llama2-7b-q4-4090-mlc-aug23\n",
        [
            "assumptions.yml:",
            "field 'fitted_on'",
            "'llama2-7b-q4-4090-mlc-aug23' is held out",
            "remove it from fitted_on or move it to decode",
        ],
    ),
    "held-out run from the table of fitted runs": (
        "measurements.yml",
        "  source_table: cambriantech.continuum/pr-1627\n",
        "  source_table: pavlokhmel.com/llm-throughput-13-gpus\n",
        [
            "measurements.yml:",
            "record 'lcpp26-qwen3-8b-q4km-5090-continuum'",
            "field 'source_table'",
            "its table 'pavlokhmel.com/llm-throughput-13-gpus' also gives fitted records (lcpp26-gpt-oss-20b-a100sxm-khmel,",
            "move it to decode, or them to held_out",
        ],
    ),
    "held-out start-up from the table of fitted start-ups": (
        "measurements.yml",
        "    source_table: yuy4o.llm/inference-logs\n",
        "    source_table: llm-d-incubation.llm-d-planner/accuracy-v0.19.0\n",
        [
            "record 'yuy4o-qwen3-14b-a100-40gb-1x'",
            "field 'source_table'",
            "move it to memory, or them to memory_held_out",
        ],
    ),
    "reserve figure fitted on a held-out start-up": (
        "engines.yml",
        "        - myoceane-gpt-oss-20b-a100-1x\n",
        "        - yuy4o-qwen3-14b-a100-40gb-1x\n",
        [
            "engines.yml:",
            "record 'sampler_bytes_per_vocab_entry'",
            "field 'fitted_on'",
            "'yuy4o-qwen3-14b-a100-40gb-1x' is held out (measurements.yml memory_held_out)",
            "move it to memory",
        ],
    ),
    "run whose note names no engine": (
        "measurements.yml",
        "    engine: vLLM v0.11.0\n",
        "    engine: v0.11.0 of vLLM\n",
        [
            "record 'qwen3-8b-h100sxm-1x-vllm-c1'",
            "field 'decode.engine'",
            "starts with the engine's name, one of vLLM,",
        ],
    ),
    "run left out without the kind of its reason": (
        "measurements.yml",
        "    unreliable: 'note: speculative decoding (MTP, 3 draft layers) inflates tokens per step'\n",
        "    unreliable: 'speculative decoding (MTP, 3 draft layers) inflates tokens per step'\n",
        ["record 'dsr1-fp8-h200-8x-trtllm-mtp'", "field 'decode.unreliable'", "starts with 'note:'"],
    ),
    "measurement without the table it was read from": (
        "measurements.yml",
        "    source_table: gpustack.gpustack/qwen3-8b-h100-latency\n",
        "    source_table: gpustack qwen3-8b\n",
        ["record 'qwen3-8b-h100sxm-1x-vllm-c1'", "field 'decode.source_table'", "should match pattern"],
    ),
    "held-out record naming an unknown gpu": (
        "measurements.yml",
        "- id: llama7b-f16-4090-llamacpp-jan24\n  gpu: rtx-4090\n",
        "- id: llama7b-f16-4090-llamacpp-jan24\n  gpu: rtx-4900\n",
        [
            "measurements.yml:",
            "record 'llama7b-f16-4090-llamacpp-jan24'",
            "unknown gpu 'rtx-4900'",
            "did you mean 'rtx-4090'",
        ],
    ),
    "constant fitted on a held-out prefill record": (
        "assumptions.yml",
        "      - ttft-llama33-70b-fp8-h100-2x-nim-500in-c1\n",
        "      - ttft-llama33-70b-fp8-h100-2x-nim150-5000in-c1\n",
        [
            "assumptions.yml:",
            "record 'prefill_compute_fraction'",
            "'ttft-llama33-70b-fp8-h100-2x-nim150-5000in-c1' is held out",
        ],
    ),
    "prefill record naming an unknown model": (
        "measurements.yml",
        "  - id: ttft-llama33-70b-fp8-h100-2x-nim-5000in-c5\n    source_table: nvidia.nim-benchmarking/llama-3.3-70b-v1.8.0\n"
        "    gpu: h100-sxm5-80gb\n    cards: 2\n    link: nvlink\n    model: llama-3.3-70b\n",
        "  - id: ttft-llama33-70b-fp8-h100-2x-nim-5000in-c5\n    source_table: nvidia.nim-benchmarking/llama-3.3-70b-v1.8.0\n"
        "    gpu: h100-sxm5-80gb\n    cards: 2\n    link: nvlink\n    model: llama-3.3-07b\n",
        [
            "measurements.yml:",
            "record 'ttft-llama33-70b-fp8-h100-2x-nim-5000in-c5'",
            "unknown model 'llama-3.3-07b'",
        ],
    ),
    "prefill record without its time": (
        "measurements.yml",
        "    ttft_ms: 546.7\n",
        "",
        ["measurements.yml:", "ttft_ms", "missing"],
    ),
    "a model in a padding format without its experts' width": (
        "models.yml",
        "    experts_per_token: 4\n    expert_intermediate_size: 2880\n    layers: 36\n",
        "    experts_per_token: 4\n    layers: 36\n",
        [
            "models.yml:",
            "record 'gpt-oss-120b'",
            "field 'expert_intermediate_size'",
            "'mxfp4' pads each card's share of an expert's intermediate size",
            "config.json",
        ],
    ),
    "fp8 figure on an ampere card": (
        "gpus.yml",
        "    bf16_dense_tflops: 312\n    fp8_dense_tflops: null\n",
        "    bf16_dense_tflops: 312\n    fp8_dense_tflops: 624\n",
        ["gpus.yml:", "record 'a100-pcie-80gb'", "fp8_dense_tflops is null exactly for ampere cards"],
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_malformed_data_fails_with_a_precise_message(data_copy: Path, case: str):
    file, old, new, expected = CASES[case]
    edit(data_copy / file, old, new)
    message = error_of(data_copy)
    for fragment in expected:
        assert fragment in message, f"{fragment!r} missing from:\n{message}"


def test_a_memory_record_naming_an_unknown_card_is_refused_at_its_line(data_copy: Path):
    measurements = data_copy / "measurements.yml"
    edit(measurements, "  - id: myoceane-gpt-oss-20b-a100-1x\n    engine: vLLM v0.19.0\n    gpu: a100-sxm4-80gb\n",
         "  - id: myoceane-gpt-oss-20b-a100-1x\n    engine: vLLM v0.19.0\n    gpu: a100-sxm4-80g\n")  # fmt: skip
    message = error_of(data_copy)
    record_line = line_of_text(measurements, "  - id: myoceane-gpt-oss-20b-a100-1x")
    assert f"measurements.yml:{record_line + 2}:" in message  # the gpu line of the record
    assert "unknown gpu 'a100-sxm4-80g'" in message and "did you mean 'a100-sxm4-80gb'" in message
    assert "myoceane-gpt-oss-20b-a100-1x" in message


def test_a_link_figure_copied_from_an_unknown_link_is_refused(data_copy: Path):
    edit(data_copy / "interconnects.yml", "allreduce_busbw_gbps: {basis: derived, from_link: nvlink4}",
         "allreduce_busbw_gbps: {basis: derived, from_link: nvlink9}")  # fmt: skip
    assert "from_link 'nvlink9' is not in interconnects.yml" in error_of(data_copy)


def test_the_error_points_at_the_offending_line(data_copy: Path):
    nodes = data_copy / "nodes.yml"
    edit(nodes, "{amount: 4157, currency: USD}", "{amount: -4157, currency: USD}")
    assert f"nodes.yml:{line_of_text(nodes, 'amount: -4157')}:" in error_of(data_copy)


def test_a_missing_file_is_named(data_copy: Path):
    (data_copy / "assumptions.yml").unlink()
    assert "assumptions.yml: file is missing" in error_of(data_copy)


def test_every_problem_is_reported_at_once(data_copy: Path):
    edit(data_copy / "nodes.yml", "gpu: b200", "gpu: b300")
    edit(data_copy / "nodes.yml", "gpu: l4\n", "gpu: l5\n")
    message = error_of(data_copy)
    assert "'b300'" in message and "'l5'" in message
