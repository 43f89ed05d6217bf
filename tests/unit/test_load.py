"""A copy under load: prompts slow the answers, first tokens queue, the line saturates (sizing.engine.load)."""

import itertools
import math

import pytest

from sizing.engine.load import (
    Arrival,
    CopyTimes,
    LoadByRate,
    closed_loop,
    line_seconds,
    load_of,
    mean_wait_seconds,
    others_step_seconds,
    steady_rate,
    tail_wait_seconds,
)


def toy(prompt_seconds: float = 0.1) -> CopyTimes:
    """A decode step of 20 ms + 0.5 ms a stream; a prompt of 3,000 tokens read alone in 100 ms, steps of 2,048
    batched tokens, each at least 10 ms; 40 ms a request; the slow tail's prompt 1.5 times the typical one."""
    return CopyTimes(lambda u: 0.02 + 0.0005 * u, 3000, prompt_seconds, 0.01, 2048, 0.04, 1.5)


def test_one_user_alone_waits_for_no_other_prompt():
    load = closed_loop(toy(), 1, 100)
    # 40 ms + 100 ms + 2 chunks of the 10 ms step = 160 ms; the step of one stream 20.5 ms
    assert load.ttft_seconds == pytest.approx(0.16) and load.step_seconds == pytest.approx(0.0205)
    # one request every 160 ms + 100 × 20.5 ms = 2.21 s
    assert load.requests_per_s == pytest.approx(1 / 2.21) and load.prompt_share == 0
    assert load.ttft_at_most_seconds == pytest.approx(0.16 * 1.5)


def test_the_m_d_1_wait_and_its_tail():
    # half busy, prompts of 0.2 s: 0.5 × 0.2 / (2 × 0.5) = 0.1 s on average
    assert mean_wait_seconds(0.5, 0.2) == pytest.approx(0.1)
    # 90 % wait less than 0.2 / (2 × 0.5) × ln(0.5 / 0.1) = 0.2 × 1.6094 = 0.3219 s
    assert tail_wait_seconds(0.5, 0.2) == pytest.approx(0.2 * math.log(5))
    assert tail_wait_seconds(0.05, 0.2) == 0  # busy less often than the tail's 10 %: no wait in the tail
    assert mean_wait_seconds(1.0, 0.2) == math.inf and tail_wait_seconds(1.0, 0.2) == math.inf


def test_steady_requests_slow_the_answers_by_the_prompt_share():
    load = steady_rate(toy(), 2.0, 100, 256)
    # prompt share 2 × 0.1 = 0.2: step (20 + 0.5 s) ms / 0.8; decoding s = 2 × 100 × step = 5 + 0.125 s → 5.714
    streams = 5 / 0.875
    assert load.prompt_share == pytest.approx(0.2) and load.streams == pytest.approx(streams, rel=1e-6)
    assert load.step_seconds == pytest.approx((0.02 + 0.0005 * streams) / 0.8, rel=1e-6)
    # the others' step 0.02 + 0.0005 × 4.714 = 22.36 ms; the line reads a prompt in 0.1 + 3,000 / (2,048 − 4.714)
    # of it = 0.13282 s: busy 0.26565 of the time; waits 0.26565 × 0.13282 / (2 × 0.73435) = 0.02402 s; its own
    # time 0.1 + 2 steps of 22.36 ms: 0.04 + 0.14471 + 0.02402 = 0.20874 s
    others_step = 0.02 + 0.0005 * (streams - 1)
    line = 0.1 + 3000 / (2048 - (streams - 1)) * others_step
    assert load.line_share == pytest.approx(2 * line, rel=1e-6)
    wait = 2 * line * line / (2 * (1 - 2 * line))
    assert load.ttft_seconds == pytest.approx(0.04 + 0.1 + 2 * others_step + wait, rel=1e-6)


def test_prompts_faster_than_the_line_reads_them_saturate_it():
    assert steady_rate(toy(), 10.0, 100, 256).saturated  # 10 × 0.1 s: all of the copy's time
    # 7.5 × 0.1 s: a quarter of the time left to decode, steps 4 times longer: more streams pile up than finish
    assert load_of(toy(), Arrival("poisson", requests_per_s=7.5), 100, 256).saturated


@pytest.mark.parametrize("prompt_seconds", [0.01, 0.1, 0.5])
def test_more_users_never_make_the_first_token_sooner_or_an_answer_faster(prompt_seconds):
    loads = [closed_loop(toy(prompt_seconds), u, 200) for u in (1, 2, 4, 8, 16, 32, 64, 128, 512)]
    for fewer, more in itertools.pairwise(loads):
        assert more.ttft_seconds >= fewer.ttft_seconds and more.step_seconds >= fewer.step_seconds
    assert all(not x.saturated and math.isfinite(x.ttft_seconds) for x in loads)  # a closed loop never saturates
    assert loads[-1].line_share > 0.9  # but its line fills up


@pytest.mark.parametrize("users", [1, 4, 32])
def test_longer_prompts_never_make_the_first_token_sooner_or_an_answer_faster(users):
    loads = [closed_loop(toy(p), users, 200) for p in (0.01, 0.05, 0.1, 0.2, 0.4)]
    for shorter, longer in itertools.pairwise(loads):
        assert longer.ttft_seconds > shorter.ttft_seconds and longer.step_seconds >= shorter.step_seconds


def test_a_closed_loop_keeps_its_users_busy_as_littles_law_says():
    load = closed_loop(toy(), 32, 200)
    assert load.requests_per_s * (load.ttft_seconds + 200 * load.step_seconds) == pytest.approx(32, rel=1e-6)


def test_the_line_carries_each_prompt_on_the_budget_the_others_leave():
    times = toy()
    assert others_step_seconds(times, 1) == 0.01 and others_step_seconds(times, 11) == pytest.approx(0.025)
    assert line_seconds(times, 1, 0.01) == pytest.approx(0.1 + 3000 / 2048 * 0.01)  # alone: steps of their own 10 ms
    assert line_seconds(times, 11, 0.025) == pytest.approx(0.1 + 3000 / 2038 * 0.025)  # on the 10 others' steps
    assert line_seconds(times, 2049, 1.0) == math.inf  # 2,048 others take the whole budget


def test_the_closed_loops_slope_is_how_fast_its_cycle_grows_with_the_rate():
    """Newton's steps read it (``closed_loop``): a wrong slope would still converge, slowly, or not at all."""
    by_rate = LoadByRate.of(toy(), 2, 0.5)
    # 2 users: the other's step 20.5 ms, so the line reads a prompt in 0.1 + 3,000 / 2,047 × 0.0205 s; with no
    # request yet the wait grows by s L² / 2 and the answer (200 steps of 21 ms) by 200 × 0.021 × s × 0.1
    line = 0.1 + 3000 / 2047 * 0.0205
    assert by_rate.cycle_slope(0.0, 200) == pytest.approx(0.5 * line * line / 2 + 200 * 0.021 * 0.5 * 0.1)
    for rate in (0.5, 2.0, 6.0):  # up to 0.39 of the line's time
        step = rate * 1e-6
        growth = (by_rate.cycle_seconds(rate + step, 200) - by_rate.cycle_seconds(rate - step, 200)) / (2 * step)
        assert by_rate.cycle_slope(rate, 200) == pytest.approx(growth, rel=1e-6)
