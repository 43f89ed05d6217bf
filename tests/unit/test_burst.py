"""A burst read step by step (sizing.engine.burst), on a toy copy whose every step is checked by hand."""

import pytest

from sizing.engine.burst import BurstTimes, benchmark_run, burst
from sizing.engine.load import CopyTimes, closed_loop


def toy(output_tokens: int = 1, frontend_seconds: float = 0.0) -> BurstTimes:
    """Prompts of 1,000 tokens; a decode step of 20 ms + 0.5 ms a stream, at least 10 ms; a budget of 2,048 tokens
    a step; 40 ms a request; the slow tail's prompt 1.5 times the typical one. Reading tokens together costs 5 ms of
    weights once and 10 µs a token (a prompt alone: 15 ms)."""
    copy = CopyTimes(lambda u: 0.02 + 0.0005 * u, 1000, 0.015, 0.01, 2048, 0.04, 1.5)
    return BurstTimes(copy, lambda tokens: 0.005 + tokens * 1e-5, output_tokens, frontend_seconds)


def test_prompts_share_each_step_and_its_weights():
    load = burst(toy(), 3, 256)
    # step 1: prompts 1 and 2 whole and 48 tokens of the third: 10 ms + 5 ms + 20.48 ms = 35.48 ms, first tokens at
    # 75.48 ms; step 2: the third's 952 tokens, 10 + 5 + 9.52 = 24.52 ms: its first token at 60 + 40 = 100 ms
    assert load.ttft_seconds == pytest.approx((2 * 0.07548 + 0.100) / 3)
    # the last, its own 40 + 15 ms stretched by half again: 100 + 27.5 ms
    assert load.ttft_at_most_seconds == pytest.approx(0.1275)


def test_the_streams_already_answering_share_the_steps_and_their_budget():
    load = burst(toy(output_tokens=3), 3, 256)
    # step 2 also decodes the two streams read in step 1: their step of 21 ms, then the third's 952 tokens
    # (14.52 ms) on the 2,046 tokens they leave: 35.48 + 35.52 = 71 ms, first token at 111 ms
    assert load.ttft_seconds == pytest.approx((2 * 0.07548 + 0.111) / 3)


def test_the_front_end_hands_the_requests_over_one_after_another():
    load = burst(toy(frontend_seconds=0.03), 3, 256)
    # each prompt reaches the engine 30 ms after the one before, and is read alone in 10 + 5 + 10 = 25 ms:
    # first tokens at 30 + 25 + 40 = 95 ms, 125 ms and 155 ms
    assert load.ttft_seconds == pytest.approx(0.125)


def test_a_request_beyond_the_engines_cap_waits_for_a_stream_to_end():
    load = burst(toy(output_tokens=3), 2, 1)
    # the first is read in 25 ms (first token at 65 ms) and decodes its 2 other tokens in two steps of 20.5 ms;
    # the second is read once it ends, 25 ms more: 25 + 41 + 25 = 91 ms, first token at 131 ms
    assert load.ttft_seconds == pytest.approx((0.065 + 0.131) / 2)


@pytest.mark.parametrize("frontend_seconds", [0.0, 0.005, 0.05])
def test_more_requests_or_a_slower_front_end_never_make_the_first_token_sooner(frontend_seconds):
    means = [burst(toy(50, frontend_seconds), b, 64).ttft_seconds for b in (1, 2, 5, 20, 100, 400)]
    assert means == sorted(means)
    slower = burst(toy(50, frontend_seconds + 0.01), 100, 64).ttft_seconds
    assert slower >= burst(toy(50, frontend_seconds), 100, 64).ttft_seconds


def test_a_benchmark_starts_with_a_burst_of_its_clients_then_runs_as_a_closed_loop():
    times = toy(output_tokens=100)
    assert benchmark_run(times, 8, 8) == burst(times, 8, 8)
    run = benchmark_run(times, 8, 32)  # a quarter of the requests in the first wave
    wave, steady = burst(times, 8, 8), closed_loop(times.copy, 8, 100)
    assert run.ttft_seconds == pytest.approx(0.25 * wave.ttft_seconds + 0.75 * steady.ttft_seconds)
