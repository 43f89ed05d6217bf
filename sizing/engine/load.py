"""One copy of a model under load: the prompts its users bring slow their answers, and their first tokens queue.

A copy runs decode steps; with chunked prefill each step also carries chunks of the prompts waiting. For requests
arriving at ``λ`` per second, each a prompt that takes ``S_p`` seconds of the copy's time read alone:

* **prompt share** ``ρ_p = λ × S_p``: the share of the copy's time spent on prompts. The decode step stretches to
  ``D(u) / (1 − ρ_p)`` (``D``: the step of ``u`` streams with no prompt in it), so each answer slows as prompts
  take more of the copy;
* **the prompt line**: each step has a budget of ``B`` batched tokens, one taken by each decoding stream; the rest
  carries prompt tokens, so the line reads a prompt of ``P`` tokens in ``S_line = S_p + P / (B − u) × D(u − 1)``
  of the copy's time (its share of the steps it rides on). Prompts wait in line for each other: ``ρ_q = λ ×
  S_line`` is the line's utilization, and with independent arrivals at a steady rate (Poisson) the mean wait is
  the M/D/1 queue's ``ρ_q × S_line / (2(1 − ρ_q))``, which grows without bound as ``ρ_q`` nears one; beyond it
  there is no steady state (``saturated``);
* **first token** = the server's cost per request + the prompt's own time (``S_p`` and its ``⌈P / (B − u)⌉``
  steps, each at least the step's fixed cost) + the wait; "at most" (the slow tail) takes the ``TAIL_PERCENTILE``
  of the wait (an atom at zero, an exponential beyond it: ``P(W > x) = ρ_q e^(−x/m)`` with ``m = S_line /
  (2(1 − ρ_q))``) and the typical prompt times a factor that published runs stay under.

Two ways requests arrive (a burst, all at once, is read step by step: ``sizing.engine.burst``):

* ``closed``: ``u`` users, each asking again as soon as an answer ends (a chat's concurrency, a benchmark's
  ``--max-concurrency``). Their rate is a fixed point: ``λ × (first token + O × step) = u``; a user's prompt never
  waits behind their own, so the line and the prompt share count the other ``u − 1`` users' requests;
* ``poisson``: requests at a steady rate ``λ`` (``requests per minute``), each decoding ``O`` tokens; the streams
  decoding at once follow by Little's law.

Plain numbers in (a ``CopyTimes`` built by the caller), a frozen ``Load`` out. Units are in the names."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

ArrivalKind = Literal["closed", "poisson"]
TAIL_PERCENTILE = 0.9
SOLVER_STEPS = 32
SOLVER_TOLERANCE = 1e-12  # a closed loop's rate is found once a step moves it by less than this share of it


@dataclass(frozen=True)
class CopyTimes:
    """What the load model needs of one copy at one request shape: the decode step of ``u`` streams with no prompt
    in it, a prompt of ``prompt_tokens`` read alone (no step costs), the fixed cost of one step, the tokens one step
    batches, the server's cost per request, and the factor the typical prompt is multiplied by in the slow tail."""

    decode_step_seconds: Callable[[float], float]
    prompt_tokens: int
    prompt_seconds: float
    chunk_seconds: float
    batch_tokens: int
    request_seconds: float
    prompt_tail_factor: float


@dataclass(frozen=True)
class Arrival:
    """How requests arrive (see the module): ``closed`` with ``users``, ``poisson`` at ``requests_per_s``."""

    kind: ArrivalKind
    users: int = 1
    requests_per_s: float = 0.0


@dataclass(frozen=True)
class Load:
    """One copy at a load: requests per second, the streams decoding at once, the prompt share of its time and
    the prompt line's utilization, the decode step with prompts inside it, and the first token typically and at
    most (infinite when ``saturated``: prompts arrive faster than the line reads them)."""

    requests_per_s: float
    streams: float
    prompt_share: float
    line_share: float
    step_seconds: float
    ttft_seconds: float
    ttft_at_most_seconds: float
    saturated: bool

    @property
    def tokens_per_s_per_stream(self) -> float:
        return 0.0 if self.saturated else 1 / self.step_seconds


SATURATED = Load(math.inf, math.inf, 1.0, 1.0, math.inf, math.inf, math.inf, True)


# --- the pieces ---------------------------------------------------------------------------------------------------
def free_batch_tokens(times: CopyTimes, streams: float) -> float:
    """The tokens of a step left to prompts once each of the other streams decodes one (none: the line stops)."""
    return times.batch_tokens - max(streams - 1, 0.0)


def others_step_seconds(times: CopyTimes, streams: float) -> float:
    """The step a prompt's chunks ride on: the other streams' decode step, at least the step's fixed cost."""
    return max(times.decode_step_seconds(streams - 1), times.chunk_seconds) if streams > 1 else times.chunk_seconds


def own_seconds(times: CopyTimes, streams: float, shared_step: float) -> float:
    """A prompt's own time once its turn comes: read alone, in steps of the budget the others leave, each the
    ``shared_step`` (``others_step_seconds``)."""
    return times.prompt_seconds + math.ceil(times.prompt_tokens / free_batch_tokens(times, streams)) * shared_step


def line_seconds(times: CopyTimes, streams: float, shared_step: float) -> float:
    """The copy's time a prompt takes in line: read alone, and its share of the ``shared_step`` steps it rides on
    (infinite when the others leave no budget)."""
    free = free_batch_tokens(times, streams)
    if free <= 0:
        return math.inf
    return times.prompt_seconds + times.prompt_tokens / free * shared_step


def mean_wait_seconds(line_share: float, service_seconds: float) -> float:
    """M/D/1: the mean wait of a prompt in line, ``ρ S / (2(1 − ρ))``; infinite from ``ρ = 1``."""
    if line_share >= 1:
        return math.inf
    return line_share * service_seconds / (2 * (1 - line_share))


def tail_wait_seconds(line_share: float, service_seconds: float, percentile: float = TAIL_PERCENTILE) -> float:
    """The wait a share ``percentile`` of prompts stay under: none while the line is busy less often than the
    tail's share, else ``m × ln(ρ / (1 − percentile))`` with ``m = S / (2(1 − ρ))``."""
    if line_share >= 1:
        return math.inf
    beyond = 1 - percentile
    if line_share <= beyond:
        return 0.0
    return service_seconds / (2 * (1 - line_share)) * math.log(line_share / beyond)


def load_at(times: CopyTimes, requests_per_s: float, streams: float, others_share: float) -> Load:
    """The copy with requests at ``requests_per_s`` of which a share ``others_share`` come before a given one
    (the others' requests: ``(u − 1) / u`` in a closed loop, all of them for steady arrivals), ``streams``
    decoding at once."""
    return LoadByRate.of(times, streams, others_share).load(requests_per_s)


@dataclass(frozen=True)
class LoadByRate:
    """``load_at`` as a function of the rate alone, for a solver that tries many rates at the same streams: what
    does not depend on the rate (the time a prompt takes in line and alone, the decode step) is worked out once,
    the same arithmetic in the same order. ``line_seconds`` is infinite when the others leave prompts no room in a
    step."""

    times: CopyTimes
    streams: float
    others_share: float
    line_seconds: float
    decode_step_seconds: float
    alone_seconds: float

    @classmethod
    def of(cls, times: CopyTimes, streams: float, others_share: float) -> LoadByRate:
        shared_step = others_step_seconds(times, streams)
        line = line_seconds(times, streams, shared_step)
        alone = math.inf if math.isinf(line) else times.request_seconds + own_seconds(times, streams, shared_step)
        return cls(times, streams, others_share, line, times.decode_step_seconds(streams), alone)

    def shares(self, requests_per_s: float) -> tuple[float, float]:
        """The prompt share of the copy's time and the line's utilization; either at one or more: saturated."""
        others = requests_per_s * self.others_share
        if math.isinf(self.line_seconds):
            return 0.0, math.inf
        return others * self.times.prompt_seconds, others * self.line_seconds

    def cycle_seconds(self, requests_per_s: float, output_tokens: int) -> float:
        """``cycle_seconds`` of the load at this rate (infinite when saturated), without the rest of it."""
        prompt_share, line_share = self.shares(requests_per_s)
        if prompt_share >= 1 or line_share >= 1:
            return math.inf
        typical = self.alone_seconds + mean_wait_seconds(line_share, self.line_seconds)
        return typical + output_tokens * (self.decode_step_seconds / (1 - prompt_share))

    def cycle_slope(self, requests_per_s: float, output_tokens: int) -> float:
        """How fast ``cycle_seconds`` grows with the rate below saturation: the wait in line ``q L / (2(1 − q))``
        with ``q = λ s L`` by ``s L² / (2(1 − q)²)``, the answer ``O D / (1 − p)`` with ``p = λ s S_p`` by
        ``O D s S_p / (1 − p)²``."""
        prompt_share, line_share = self.shares(requests_per_s)
        idle, free = 1 - line_share, 1 - prompt_share
        wait = self.others_share * self.line_seconds * self.line_seconds / (2 * idle * idle)
        answer = output_tokens * self.decode_step_seconds * self.others_share * self.times.prompt_seconds
        return wait + answer / (free * free)

    def load(self, requests_per_s: float) -> Load:
        prompt_share, line_share = self.shares(requests_per_s)
        if prompt_share >= 1 or line_share >= 1:
            return SATURATED
        step = self.decode_step_seconds / (1 - prompt_share)
        typical = self.alone_seconds + mean_wait_seconds(line_share, self.line_seconds)
        at_most = self.alone_seconds * self.times.prompt_tail_factor + tail_wait_seconds(line_share, self.line_seconds)
        return Load(requests_per_s, self.streams, prompt_share, line_share, step, typical, at_most, False)


@dataclass(frozen=True)
class TtftTerms:
    """The typical first token, term by term (the bench prints them): the server's cost per request, the prompt
    read alone, its steps (their fixed costs, or the others' decode steps it rides on), the wait in line."""

    request: float
    prompt: float
    steps: float
    wait: float


def ttft_terms(times: CopyTimes, load: Load) -> TtftTerms:
    if load.saturated:
        return TtftTerms(times.request_seconds, times.prompt_seconds, math.inf, math.inf)
    streams = load.streams if load.requests_per_s else 1
    own = own_seconds(times, streams, others_step_seconds(times, streams))
    steps = own - times.prompt_seconds
    return TtftTerms(
        times.request_seconds, times.prompt_seconds, steps, load.ttft_seconds - times.request_seconds - own
    )


# --- the three arrivals -----------------------------------------------------------------------------------------
def closed_loop(times: CopyTimes, users: int, output_tokens: int) -> Load:
    """``users`` each asking again when an answer ends: the rate at which ``rate × (first token + answer)`` is
    ``users``, between no requests and the rate that saturates the line. ``rate × cycle`` grows with the rate
    (both the first token and the step do), faster and faster: Newton's steps (``cycle_slope``) find that rate in
    a few, each kept inside the bracket known so far (halving it where a step would leave it), until a step
    moves the rate by less than ``SOLVER_TOLERANCE`` of it (at most ``SOLVER_STEPS``)."""
    if users <= 1:
        alone = load_at(times, 0.0, 1, 0.0)
        return replace(alone, requests_per_s=1 / cycle_seconds(alone, output_tokens))
    share = (users - 1) / users
    line = line_seconds(times, users, others_step_seconds(times, users))
    if math.isinf(line):
        return SATURATED
    by_rate = LoadByRate.of(times, users, share)
    low, high, rate = 0.0, 1 / (share * line), 0.0
    for _ in range(SOLVER_STEPS):
        cycle = by_rate.cycle_seconds(rate, output_tokens)
        excess = rate * cycle - users
        if excess < 0:
            low = rate
        else:
            high = rate
        following = rate - excess / (cycle + rate * by_rate.cycle_slope(rate, output_tokens))
        if abs(following - rate) <= rate * SOLVER_TOLERANCE:
            break
        rate = following if low < following < high else (low + high) / 2
    return by_rate.load(rate)


def cycle_seconds(load: Load, output_tokens: int) -> float:
    """One request of a user: its first token, then the rest of its answer at the step's pace."""
    return load.ttft_seconds + output_tokens * load.step_seconds


def steady_rate(times: CopyTimes, requests_per_s: float, output_tokens: int, most_streams: int) -> Load:
    """Requests at a steady rate: the streams decoding at once are ``rate × O × step`` (Little's law), the step
    depending on them: the fixed point, found by bisection up to ``most_streams`` (the copy saturates beyond)."""

    def decoding(streams: float) -> float:
        at = load_at(times, requests_per_s, max(streams, 1.0), 1.0)
        return math.inf if at.saturated else requests_per_s * output_tokens * at.step_seconds

    if decoding(most_streams) > most_streams:
        return SATURATED
    low, high = 0.0, float(most_streams)
    for _ in range(SOLVER_STEPS):
        middle = (low + high) / 2
        if decoding(middle) > middle:
            low = middle
        else:
            high = middle
    return load_at(times, requests_per_s, max(high, 1.0), 1.0)


def queued_beyond(times: CopyTimes, users: int, output_tokens: int, most_streams: int) -> Load:
    """``users`` in a closed loop on a copy that runs at most ``most_streams`` of them at once (the engine's cap,
    or the KV cache it has room for): the others wait in the engine's queue for a running one to end. By Little's
    law, each waits ``(users − most) / most`` of a running user's whole request before its own starts."""
    running = closed_loop(times, most_streams, output_tokens)
    wait = (users - most_streams) / most_streams * cycle_seconds(running, output_tokens)
    return replace(
        running, ttft_seconds=running.ttft_seconds + wait, ttft_at_most_seconds=running.ttft_at_most_seconds + wait
    )


def load_of(times: CopyTimes, arrival: Arrival, output_tokens: int, most_streams: int) -> Load:
    """The copy's load for an arrival (see the module); users beyond the streams it runs wait in its queue."""
    if arrival.kind == "closed":
        if 0 < most_streams < arrival.users:
            return queued_beyond(times, arrival.users, output_tokens, most_streams)
        return closed_loop(times, arrival.users, output_tokens)
    return steady_rate(times, arrival.requests_per_s, output_tokens, most_streams)
