"""The decode floor reproduces the company's published figures and never beats a measurement."""
import pytest

from sizing.fit import fit
from sizing.memory import weight_bytes, weight_bytes_read_per_token
from sizing.throughput import decode_floor, llm_decode_floor


def test_floor_formula(catalog):
    # η × k × BW / bytes: 0.5 × 2 × 1,000 GB/s / 10 GB = 100 tok/s
    assert decode_floor(0.5, 2, 1000, 10e9) == pytest.approx(100)


@pytest.mark.parametrize("node, published", [("4x-a100-pcie-80gb", 18), ("4x-a100-sxm4-80gb", 19)])
def test_llama_70b_bf16_on_four_a100_reproduces_the_published_figures(catalog, node, published):
    # PCIe: per card 141.107e9/4 + 327,680 × 8,192 / 4 = 35.948e9 B; 0.33 × 1,935e9 / 35.948e9 = 17.76 -> 18
    # SXM4: 0.33 × 2,039e9 / 35.948e9 = 18.72 -> 19
    model, precision = catalog.models["llama-3.3-70b"], catalog.precisions["bf16"]
    node = catalog.nodes[node]
    cards = fit(catalog, model, precision, node).cards
    assert round(llm_decode_floor(catalog, model, precision, catalog.gpu_of(node), cards)) == published


def test_moe_speed_reads_only_active_parameters(catalog):
    qwen, bf16 = catalog.models["qwen3-235b-a22b"], catalog.precisions["bf16"]
    # read per token: active 22,190,763,520 params, memory: all 235,093,634,560
    assert weight_bytes_read_per_token(qwen, bf16) == 22_190_763_520 * 2
    assert weight_bytes(qwen, bf16) == 235_093_634_560 * 2


def test_the_floor_never_exceeds_a_published_measurement(catalog):
    eta = catalog.assumptions.decode_bandwidth_efficiency.value
    for m in catalog.measurements:
        bandwidth = m.memory_bandwidth_gbps or catalog.gpus[m.gpu].memory_bandwidth_gbps
        if m.weights_gb is not None:
            read = m.weights_gb * 1e9
        else:
            read = weight_bytes_read_per_token(catalog.models[m.model], catalog.precisions[m.precision])
        # KV left out: that gives the highest floor, the strictest comparison
        floor = decode_floor(eta, m.cards, bandwidth, read)
        assert floor <= m.tokens_per_s, f"{m.setup}: floor {floor:.1f} > measured {m.tokens_per_s}"
