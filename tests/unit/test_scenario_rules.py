"""A scenario is held to the catalog's own rules: a model shape models.yml would refuse, figures outside what
cards, links and models are, and more cards than a link kind joins are refused, each naming the field."""

import re

import pytest
from pydantic import ValidationError

from sizing.catalog.errors import shown_value
from sizing.catalog.schema import DecodeScenario
from sizing.engine.scenarios import ScenarioError, measured_setup

EIGHT_B = {"params_b": 8, "layers": 32, "hidden_size": 4096, "kv_heads": 8, "head_dim": 128}


def scenario(**fields: object) -> DecodeScenario:
    return DecodeScenario.model_validate({"gpu": "h100-sxm5-80gb", "model": "llama-3.1-8b", **fields})


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ({**EIGHT_B, "attention_heads": 7}, "attention_heads (7) must be a multiple of kv_heads (8)"),
        (
            {**EIGHT_B, "attention": {"type": "sliding", "window_tokens": 4096, "global_layers": 40}},
            "attention.global_layers (40) exceeds layers (32)",
        ),
        ({**EIGHT_B, "attention": {"type": "hybrid", "kv_layers": 33}}, "attention.kv_layers (33) exceeds layers (32)"),
        ({**EIGHT_B, "hidden_size": 64}, "gives no attention head"),
        (
            {**EIGHT_B, "active_params_b": 2, "routed_expert_params_b": 6},
            "routed_expert_params_b needs experts and experts_per_token",
        ),
        (
            {**EIGHT_B, "active_params_b": 2, "experts": 8, "experts_per_token": 2, "routed_expert_params_b": 8},
            "routed_expert_params_b (8.0) must be below the model's parameters (8.0)",
        ),
    ],
)
def test_an_inline_model_the_catalog_would_refuse_is_refused(model, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        scenario(model=model)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"cards": 1_000_000, "link": "nvlink"}, "cards"),
        ({"concurrency": 10**400}, "concurrency"),
        ({"context_tokens": 10**9}, "context_tokens"),
        ({"gpu": {"memory_gb": 80, "memory_bandwidth_gbps": 0.001, "bf16_dense_tflops": 989}}, "memory_bandwidth_gbps"),
        ({"gpu": {"memory_gb": 1e300, "memory_bandwidth_gbps": 3350, "bf16_dense_tflops": 989}}, "memory_gb"),
        ({"link": {"allreduce_latency_us": 8, "allreduce_busbw_gbps": 1e-9}, "cards": 2}, "allreduce_busbw_gbps"),
    ],
)
def test_figures_outside_what_exists_are_refused(fields, field):
    with pytest.raises(ValidationError) as refused:
        scenario(**fields)
    assert field in str(refused.value)


def test_a_link_kind_joins_no_more_cards_than_the_catalogs_largest_node_of_it(catalog):
    with pytest.raises(ScenarioError, match="link 'nvlink' joins at most 8 h100-sxm5-80gb cards"):
        measured_setup(catalog, scenario(cards=16, link="nvlink"))
    # bridged pairs beyond two cards meet over the host's PCIe: four bridged RTX A6000 are a known setup
    four = measured_setup(
        catalog,
        DecodeScenario.model_validate(
            {"gpu": "rtx-a6000", "cards": 4, "link": "nvlink-bridge", "model": "llama-3.1-8b"}
        ),
    )
    assert four.link is not None


def test_a_message_quotes_a_huge_input_by_its_size():
    assert shown_value(10**400) == "a whole number of 401 digits"
    assert shown_value("x" * 10_000) == "'" + "x" * 79 + "…"
    assert shown_value({"a": 1, "b": 2}) == "a mapping of 2 entries"
