"""Monotonicity: more memory never worsens a verdict; more bandwidth never lowers throughput."""
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from sizing.fit import Verdict, fit
from sizing.throughput import llm_decode_floor

RANK = {Verdict.ONE_CARD: 0, Verdict.SPLIT: 1, Verdict.NO_FIT: 2}


def _ids(catalog):
    return sorted(catalog.models), sorted(catalog.nodes)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), extra_gb=st.floats(min_value=0.5, max_value=200))
def test_more_card_memory_never_makes_a_verdict_worse(catalog, data, extra_gb):
    models, nodes = _ids(catalog)
    model = catalog.models[data.draw(st.sampled_from(models))]
    precision = data.draw(st.sampled_from(catalog.precisions_for(model)))
    node = catalog.nodes[data.draw(st.sampled_from(nodes))]
    context = data.draw(st.sampled_from([1024, 8192, 32768]))
    gpu = catalog.gpu_of(node)
    bigger = catalog.gpus | {gpu.id: gpu.model_copy(update={"memory_gb": gpu.memory_gb + extra_gb})}
    roomier = replace(catalog, gpus=bigger)
    before = fit(catalog, model, precision, node, context)
    after = fit(roomier, model, precision, node, context)
    assert RANK[after.verdict] <= RANK[before.verdict]
    if before.fits:
        assert after.cards <= before.cards


@settings(max_examples=300, deadline=None)
@given(data=st.data(), factor=st.floats(min_value=1.0, max_value=10.0))
def test_more_bandwidth_never_lowers_throughput(catalog, data, factor):
    llms = sorted(m.id for m in catalog.models.values() if m.kind == "llm")
    model = catalog.models[data.draw(st.sampled_from(llms))]
    precision = data.draw(st.sampled_from(catalog.precisions_for(model)))
    gpu = catalog.gpus[data.draw(st.sampled_from(sorted(catalog.gpus)))]
    cards = data.draw(st.sampled_from([1, 2, 4, 8]))
    faster = gpu.model_copy(update={"memory_bandwidth_gbps": gpu.memory_bandwidth_gbps * factor})
    assert (llm_decode_floor(catalog, model, precision, faster, cards)
            >= llm_decode_floor(catalog, model, precision, gpu, cards))
