"""Monotonicity: more memory never worsens a verdict; more bandwidth never lowers the speed."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sizing.engine.fit import VERDICT_RANK, fit
from sizing.views.matrix import deployment_on


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
    more = {
        "memory_gb": gpu.memory_gb + extra_gb,  # what the vendor states and what CUDA then shows
        "runtime_visible_memory_mib": gpu.runtime_visible_memory_mib + extra_gb * 1e9 / 2**20,
    }
    bigger = catalog.gpus | {gpu.id: gpu.model_copy(update=more)}
    roomier = replace(catalog, gpus=bigger)
    before = fit(catalog, model, precision, node, context)
    after = fit(roomier, model, precision, node, context)
    assert VERDICT_RANK[after.verdict] <= VERDICT_RANK[before.verdict]
    if before.fits and after.verdict is before.verdict:  # a better verdict may use more cards (split over tight)
        assert after.cards <= before.cards


@pytest.fixture(scope="module")
def llm_fits(catalog) -> list[tuple[str, str, str]]:
    """Every (LLM, precision, node) that fits at 8,192 tokens: the cases that have a speed to compare."""
    llms = sorted((m for m in catalog.models.values() if m.kind == "llm"), key=lambda m: m.id)
    return [
        (model.id, precision.id, node)
        for model in llms
        for precision in catalog.precisions_for(model)
        for node in sorted(catalog.nodes)
        if fit(catalog, model, precision, catalog.nodes[node], 8192).fits
    ]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), factor=st.floats(min_value=1.0, max_value=10.0))
def test_more_bandwidth_never_lowers_the_speed(catalog, llm_fits, data, factor):
    model_id, precision_id, node_id = data.draw(st.sampled_from(llm_fits))
    model, node = catalog.models[model_id], catalog.nodes[node_id]
    precision = next(p for p in catalog.precisions_for(model) if p.id == precision_id)
    gpu = catalog.gpu_of(node)
    faster = replace(
        catalog,
        gpus=catalog.gpus
        | {gpu.id: gpu.model_copy(update={"memory_bandwidth_gbps": gpu.memory_bandwidth_gbps * factor})},
    )
    before = {x.cards: x for x in deployment_on(catalog, model, precision, node, 8192).layouts}
    after = {x.cards: x for x in deployment_on(faster, model, precision, node, 8192).layouts}
    assert before.keys() == after.keys()  # the bandwidth changes no memory
    for cards, layout in after.items():  # each layout is at least as fast
        assert layout.typical >= before[cards].typical and layout.floor <= layout.typical
