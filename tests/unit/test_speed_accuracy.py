"""The decode-speed model holds its accuracy targets on the published measurements of data/measurements.yml."""

import pytest

from sizing.views.accuracy import (
    AccuracyMetrics,
    check_records,
    decode_fitted_on,
    enforce_accuracy,
    metrics,
    missed_targets,
)


def test_the_accuracy_targets_hold_on_the_measurements(catalog):
    m = enforce_accuracy(catalog)  # floor <= measured on >= 90 %, median |typical/measured - 1| <= 25 %
    assert m.records >= 40
    assert m.floor_at_or_below_measured >= 0.90 and m.median_abs_error <= 0.25


def test_every_record_is_checked_and_unreliable_ones_stay_out_of_the_statistics(catalog):
    checks = check_records(catalog)
    assert [c.id for c in checks] == [m.id for m in catalog.measurements]
    assert all(0 < c.floor < c.typical for c in checks)
    usable = [c for c in checks if c.unreliable is None]
    assert metrics(checks).records == len(usable) < len(checks)


def test_a_missed_target_is_named():
    bad = AccuracyMetrics(
        records=10, median_abs_error=0.3, within_2x=0.8, floor_at_or_below_measured=0.85, median_ratio=1.2
    )
    missed = missed_targets(bad)
    assert len(missed) == 2 and "85.0%" in missed[0] and "30.0%" in missed[1]
    good = AccuracyMetrics(
        records=10, median_abs_error=0.1, within_2x=1.0, floor_at_or_below_measured=0.95, median_ratio=1.0
    )
    assert missed_targets(good) == []


def test_held_out_records_are_judged_apart_and_never_fitted(catalog):
    """Public figures kept out of the fit: checked on request, absent from the build's statistics."""
    held_out = check_records(catalog, catalog.held_out_measurements)
    assert len(held_out) >= 10 and {c.id for c in held_out}.isdisjoint(m.id for m in catalog.measurements)
    fitted_on = {rid for _, a in catalog.assumptions for rid in getattr(a, "fitted_on", ())}
    assert fitted_on.isdisjoint(c.id for c in held_out)
    assert metrics(held_out).within_2x >= 0.9  # the model generalizes, it does not memorize its points


def test_a_llama_bench_prompt_run_at_microbatch_1_is_checked_without_the_output_head(catalog):
    # Llama 3 8B BF16 on an RTX 4090: the head is 128,256 x 4,096 x 2 B = 1,050,673,152 B, read at 1,008 GB/s times
    # llama.cpp's bandwidth fraction; a run that computes logits for its last token only never reads it
    run = next(m for m in catalog.measurements if m.id == "lcpp25-llama3-8b-bf16-4090-pr15131")
    assert run.logits_every_step is False
    [without_head] = check_records(catalog, [run])
    [with_head] = check_records(catalog, [run.model_copy(update={"logits_every_step": True})])
    fraction = catalog.assumptions.decode_bandwidth_fraction_llama_cpp.value
    head_seconds = 1_050_673_152 / (1008e9 * fraction)
    assert with_head.step.memory - without_head.step.memory == pytest.approx(head_seconds)


def test_a_2026_llama_cpp_run_on_an_rtx_5090_is_no_longer_at_half_its_speed(catalog):
    # Qwen3 8B Q4_K_M, 221.7 tok/s measured (held out, never fitted); the 2023-24 constants gave 123 tok/s (0.55)
    run = next(m for m in catalog.held_out_measurements if m.id == "lcpp26-qwen3-8b-q4km-5090-continuum")
    [check] = check_records(catalog, [run])
    assert 0.8 <= check.ratio <= 1.25 and check.floor <= check.measured


def test_each_constant_names_the_records_its_fit_reads(catalog):
    """fitted_on is what bench/fit_speed_model.py fits the constant on, written by it: every usable record whose
    estimate the constant moves. A list typed by hand, or left behind when a record comes in, fails here."""
    fit = decode_fitted_on(catalog)
    assert set(fit) == {
        name for name, a in catalog.assumptions if name.startswith("decode_") and hasattr(a, "fitted_on")
    }
    for name, ids in fit.items():
        assert getattr(catalog.assumptions, name).fitted_on == ids, (
            f"{name}: fitted_on differs from what the fit reads; run bench/fit_speed_model.py --fitted-on"
        )


def test_each_engine_s_constants_are_fitted_on_its_own_runs_and_the_shared_ones_on_both(catalog):
    fit = decode_fitted_on(catalog)
    engine = {m.id: m.engine_class for m in catalog.measurements}
    usable = [m.id for m in catalog.measurements if m.unreliable is None]
    assert {engine[r] for r in fit["decode_sublayer_seconds"]} == {"server"}
    assert {engine[r] for r in fit["decode_sublayer_seconds_llama_cpp"]} == {"llama.cpp"}
    # a mixture of experts pays its routing in either engine, latent attention too (ik_llama.cpp's DeepSeek R1)
    assert {engine[r] for r in fit["decode_moe_sublayer_extra_seconds"]} == {"server", "llama.cpp"}
    assert "dsr1-q8-3090-16x-ik-llamacpp" in fit["decode_mla_sublayer_extra_seconds"]
    # every run reads memory and computes, so the overlap of the two is fitted on all; the floor is chosen on all
    assert fit["decode_combine_exponent"] == fit["decode_floor_factor"] == usable
    # the host's share and each pass to the CPU move the same runs: those with layers or experts in host memory
    assert fit["decode_bandwidth_fraction_host"] == fit["decode_host_crossing_seconds"]
