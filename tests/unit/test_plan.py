"""The plan for a requirement: one plan checked by hand, then the rules every plan keeps (each option meets the
requirement by the estimator's own figures, none cheaper is missing, more users never cost less, a looser
target never removes an option)."""

import math

import pytest

from sizing.catalog.schema import DecodeScenario
from sizing.views.estimates import answer
from sizing.views.plan import (
    Candidate,
    Requirement,
    candidates,
    closest,
    load_on,
    option_for,
    plan,
    relax,
    users_per_copy,
)

# 100 people chatting with Llama 3.1 8B in BF16: 2,000-token prompts, 400-token answers, 30 tokens/s each, the
# first token within a second
CHAT_8B = Requirement("llama-3.1-8b", 2000, 400, 100, 30, "bf16", 1.0)


@pytest.fixture(scope="module")
def one_a100(catalog) -> Candidate:
    return Candidate(catalog.configurations["1x-a100-pcie-80gb"], catalog.precisions["bf16"], 1)


def test_one_plan_by_hand(catalog, one_a100):
    # 94 users on the card keep 30.2 tokens/s each, the 95th brings them to 29.9: speed binds at 94 per node.
    # 100 users / 94 per node -> 2 nodes, 50 users each; 2 x $1,060 = $2,120 a month.
    assert users_per_copy(catalog, one_a100, CHAT_8B) == (94, "speed")
    assert load_on(catalog, one_a100, CHAT_8B, 94).typical >= 30 > load_on(catalog, one_a100, CHAT_8B, 95).typical
    option = option_for(catalog, one_a100, CHAT_8B)
    assert option is not None
    assert (option.nodes, option.users_per_node, option.price_per_month_usd) == (2, 50, 2120)
    # at 50 users a node: 43.54 tokens/s each, first token in 0.404 s; a request takes 0.404 + 400 / 43.54 =
    # 9.591 s, so 100 users generate 100 x 400 / 9.591 = 4,170.5 tokens/s, 730 h x 3,600 s x 4,170.5 =
    # 1.0960e10 tokens a month: $2,120 / 10,960 million = $0.1934 per million
    assert option.load.typical == pytest.approx(43.54, abs=0.01)
    assert option.load.ttft.typical_seconds == pytest.approx(0.404, abs=0.001)
    assert option.usd_per_million_tokens == pytest.approx(0.1934, abs=0.0001)


def test_a_node_holds_as_many_users_as_the_estimator_says(catalog, one_a100):
    """The plan's figures are those of python -m sizing.estimate for the same node, streams and context."""
    scenario = DecodeScenario(
        gpu="a100-pcie-80gb", model="llama-3.1-8b", precision="bf16", concurrency=50, context_tokens=2400
    )
    said = answer(catalog, scenario)
    assert said.at_concurrency is not None
    load = load_on(catalog, one_a100, CHAT_8B, 50)
    assert (load.typical, load.floor, load.streams_that_fit) == (
        said.at_concurrency.per_stream_typical,
        said.at_concurrency.per_stream_floor,
        said.streams_that_fit,
    )


def test_requests_per_minute_become_the_users_a_request_keeps_busy(catalog, one_a100):
    # 600 requests a minute = 10 a second; each takes 0.403 + 400 / 43.98 = 9.50 s: about 95 users at once
    rated = Requirement("llama-3.1-8b", 2000, 400, 0, 30, "bf16", 1.0, requests_per_minute=600)
    option = option_for(catalog, one_a100, rated)
    assert option is not None
    seconds = option.load.ttft.typical_seconds + 400 / option.load.typical
    assert option.users >= math.ceil(10 * seconds)
    assert option.nodes == 2


@pytest.fixture(scope="module")
def chat_plan(catalog):
    return plan(catalog, CHAT_8B)


def test_every_option_meets_the_requirement_by_the_estimators_figures(chat_plan):
    assert chat_plan
    for option in chat_plan:
        assert option.load.fits
        assert option.load.typical >= CHAT_8B.min_tokens_per_s_per_user
        assert option.load.ttft.typical_seconds <= CHAT_8B.max_ttft_s
        assert option.nodes * option.users_per_node >= CHAT_8B.users


def test_options_come_cheapest_first_one_per_configuration(chat_plan):
    prices = [o.price_per_month_usd for o in chat_plan]
    assert prices == sorted(prices)
    ids = [o.candidate.configuration.id for o in chat_plan]
    assert len(ids) == len(set(ids))


def test_no_configuration_that_meets_it_is_missing(catalog, chat_plan):
    """A configuration left out cannot serve one user within the requirement on any split its engine allows."""
    listed = {o.candidate.configuration.id for o in chat_plan}
    left_out = [c for c in candidates(catalog, CHAT_8B) if c.configuration.id not in listed]
    assert left_out
    for candidate in left_out:
        assert users_per_copy(catalog, candidate, CHAT_8B)[0] == 0, (
            candidate.configuration.id,
            candidate.cards_per_copy,
        )


def test_a_tensor_split_divides_the_heads(catalog):
    """Llama 3.1 8B (32 heads, 8 KV heads) splits over 1, 2, 4 or 8 cards, as fit.engine_splits allows."""
    cards = {c.cards_per_copy for c in candidates(catalog, CHAT_8B)}
    assert cards == {1, 2, 4, 8}


def test_the_most_users_per_copy_is_the_last_count_that_passes(catalog, one_a100):
    """The bisection finds what a scan finds."""
    requirement = Requirement("llama-3.1-8b", 2000, 400, 200, 40, "bf16", None)
    found, _ = users_per_copy(catalog, one_a100, requirement)
    assert load_on(catalog, one_a100, requirement, found).typical >= 40
    assert load_on(catalog, one_a100, requirement, found + 1).typical < 40


def cheapest(catalog, requirement: Requirement) -> float:
    options = plan(catalog, requirement)
    return options[0].price_per_month_usd if options else math.inf


@pytest.mark.parametrize("model, prompt, speed", [("llama-3.1-8b", 1000, 40), ("llama-3.3-70b", 4000, 15)])
def test_more_users_never_make_a_plan_cheaper(catalog, model, prompt, speed):
    prices = [cheapest(catalog, Requirement(model, prompt, 300, users, speed, None, 3.0)) for users in (1, 10, 40, 160)]
    assert prices == sorted(prices)


@pytest.mark.parametrize("model, prompt", [("llama-3.1-8b", 1000), ("llama-3.3-70b", 4000)])
def test_a_looser_speed_target_never_removes_an_option(catalog, model, prompt):
    def configurations(speed: float) -> set[str]:
        return {o.candidate.configuration.id for o in plan(catalog, Requirement(model, prompt, 300, 40, speed))}

    tight, loose = configurations(40), configurations(20)
    assert tight <= loose


def test_an_impossible_requirement_gets_the_closest_plans_and_what_to_relax(catalog):
    impossible = Requirement("llama-3.1-405b", 30_000, 500, 10, 40, None, 0.5)
    assert plan(catalog, impossible) == []
    nearest = closest(catalog, impossible)
    assert nearest
    assert all(not o.meets for o in nearest)
    assert "shortest time to first token" in relax(catalog, impossible)


def test_a_model_that_fits_nowhere_is_told_to_use_a_lighter_format(catalog):
    huge_prompt = Requirement("llama-3.1-405b", 10_000_000, 500, 1, 1, "bf16")
    assert "lighter format or a shorter prompt" in relax(catalog, huge_prompt)


def test_a_copy_with_layers_in_host_memory_is_not_a_candidate(catalog):
    # Llama 3.3 70B in Q4_K_M runs on one RTX 4090 only with some of its layers in host memory (the
    # configurator's --n-gpu-layers verdict): one stream at a time, its first token not modelled, so one user
    # asking 1 token/s is served by nodes that hold every layer, never by that one
    one_user = Requirement("llama-3.3-70b", 500, 200, 1, 1, "gguf-q4_k_m")
    q4 = catalog.precisions["gguf-q4_k_m"]
    scenario = DecodeScenario(gpu="rtx-4090", model="llama-3.3-70b", precision="gguf-q4_k_m", context_tokens=700)
    assert answer(catalog, scenario).gpu_layers is not None  # the estimator runs it so
    assert option_for(catalog, Candidate(catalog.configurations["1x-rtx-4090"], q4, 1), one_user) is None
    chosen = {option.candidate.configuration.id for option in plan(catalog, one_user)}
    assert "1x-rtx-4090" not in chosen and "2x-rtx-4090" in chosen
