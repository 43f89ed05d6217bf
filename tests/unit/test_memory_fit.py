"""The server engine's reserve figures (data/engines.yml) against their fit (bench/fit_memory_model.py)."""

import pytest

from sizing.views.memory_fit import FIGURES, ReserveFigures, fit_reserve, memory_fitted_on


@pytest.fixture(scope="module")
def fit(catalog):
    return fit_reserve(catalog)


def test_each_fitted_figure_names_the_start_ups_its_fit_reads(catalog):
    server = catalog.server_engine
    for name, ids in memory_fitted_on(catalog).items():
        assert getattr(server, name).fitted_on == ids, (
            f"{name}: fitted_on differs from what the fit reads; run bench/fit_memory_model.py --fitted-on"
        )


def test_the_fit_reads_the_current_release_s_start_ups_and_each_figure_those_it_moves(catalog):
    fitted_on = memory_fitted_on(catalog)
    by_id = {m.id: m for m in catalog.memory_measurements}
    # releases before 0.11 are judged by their own figures, which the fit does not move: none of llm-d's 2025 runs
    # but its 0.11.0 one, all of llm-d's planner runs of 0.19.0 that started or ran out of memory after reporting
    assert "llmd-llama31-8b-h100-1x" not in fitted_on["sampler_bytes_per_vocab_entry"]
    assert {by_id[r].engine.split(" (")[0] for r in fitted_on["sampler_bytes_per_vocab_entry"]} == {
        "vLLM v0.19.0",
        "vLLM 0.11.0",
        "vLLM 0.19.0",
    }
    assert fitted_on["activation_base_gib"] == fitted_on["sampler_bytes_per_vocab_entry"]
    # a mixture of experts: gpt-oss-20b (4), Mixtral, Qwen3 30B-A3B, Llama 4 Scout, DeepSeek V2 Lite
    assert len(fitted_on["activation_moe_extra_gib"]) == 8
    # NVSwitch buffers: the splits across the NVSwitch board of H100 SXM cards, never one card
    assert {by_id[r].gpu for r in fitted_on["nvswitch_buffers_gib"]} == {"h100-sxm5-80gb"}
    assert all(by_id[r].cards > 1 for r in fitted_on["nvswitch_buffers_gib"])


DIFFERS = {  # engines.yml keeps a hand-picked figure the least-absolute fit does not give: for the lead to settle
    "activation_moe_extra_gib": "engines.yml 0.7 GiB, the fit 0.4 (Llama 4 Scout then +12.1 %, outside 10 %)",
    "nvswitch_buffers_gib": "engines.yml 1.6 GiB, the fit 1.5",
}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFERS[n])) if n in DIFFERS else n for n in FIGURES],
)
def test_each_figure_is_what_the_fit_gives_at_the_precision_engines_yml_writes(catalog, fit, name):
    figures, records = fit
    assert len(records) == 20
    assert getattr(figures, name) == getattr(ReserveFigures.of(catalog.server_engine), name)
