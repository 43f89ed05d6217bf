"""The decode floor reproduces the company's published figures and never beats a measurement."""
import pytest

from sizing.fit import card_budget, fit, fit_split, split_needs
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


def test_the_floor_never_exceeds_a_single_stream_measurement_of_a_dense_model_as_the_site_sizes_it(catalog):
    """The batch-1 floor the site still shows (until it switches to sizing.decode) holds on usable single-stream
    records of catalog dense models, on the fewest cards they fit. It does not hold for MoE models split over 8
    cards (DeepSeek: 322 tok/s floor against 26-62 measured) nor for small models split far wider than needed:
    it has no per-layer or all-reduce cost; sizing.decode has (tests/unit/test_speed_accuracy.py)."""
    eta = catalog.assumptions.decode_bandwidth_efficiency.value
    checked = 0
    for m in catalog.measurements:
        if m.unreliable or m.concurrency > 1 or not all(isinstance(v, str) for v in (m.gpu, m.model, m.precision)):
            continue
        model, precision, gpu = catalog.models[m.model], catalog.precisions[m.precision], catalog.gpus[m.gpu]
        if model.is_moe or fit_split(split_needs(catalog, model, precision, 8), 8, card_budget(catalog, gpu)).cards != m.cards:
            continue
        # KV left out: that gives the highest floor, the strictest comparison
        floor = decode_floor(eta, m.cards, gpu.memory_bandwidth_gbps, weight_bytes_read_per_token(model, precision))
        assert floor <= m.tokens_per_s_per_stream, f"{m.id}: floor {floor:.1f} > measured {m.tokens_per_s_per_stream}"
        checked += 1
    assert checked >= 4
