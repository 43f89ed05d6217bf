"""A burst: requests arriving at the same moment (a benchmark releasing all its prompts at once, a morning's first
minute), read step by step.

* **The front end takes them one after another.** A server's front end is one process (vLLM's API server,
  SGLang's tokenizer manager) that parses, tokenizes and hands each request to the engine, and streams the answers
  back: ``frontend_seconds`` a request, so the ``k``-th reaches the engine after ``k`` of them. An engine's own
  benchmark has none.
* **The engine packs the prompts into its steps.** Each step takes, within its batch budget less one token per
  stream decoding and while the streams running stay under the engine's cap, the prompt tokens that have arrived,
  in their order, a long prompt over several steps. The step reads them together, the weights once
  (``tokens_seconds``), beside the decode step of the streams already answering (at least the step's fixed cost).
* **A first token** comes at the end of the step that reads its prompt's last token, plus the server's cost per
  request; the stream then decodes its other ``O − 1`` tokens, one a step.

Its typical first token is the mean over the burst; "at most" is the last one's, with the request's own time
stretched by the slow tail's factor. A benchmark whose clients each ask again when an answer ends starts with such
a burst (``benchmark_run``). Plain numbers in, a frozen ``Load`` out; units are in the names."""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from sizing.engine.load import CopyTimes, Load, closed_loop


@dataclass(frozen=True)
class BurstTimes:
    """What a burst needs of one copy: its ``CopyTimes``; the time to read ``tokens`` prompt tokens together in one
    step, no step costs; the tokens of each answer; the front end's time per request (0: no server)."""

    copy: CopyTimes
    tokens_seconds: Callable[[int], float]
    output_tokens: int
    frontend_seconds: float


@dataclass(frozen=True)
class Burst:
    """``requests`` arriving together."""

    requests: int


def burst(times: BurstTimes, requests: int, most_streams: int) -> Load:
    """``requests`` at once on an idle copy that runs at most ``most_streams`` streams (see the module)."""
    copy, prompt = times.copy, times.copy.prompt_tokens
    most = max(most_streams, 1)

    def arrival(index: int) -> float:
        return (index + 1) * times.frontend_seconds

    decode_steps: dict[int, float] = {}  # the decode step of each count of streams, worked out once

    def decoding_seconds(streams: int) -> float:
        """The decode step of the streams answering, at least the step's fixed cost."""
        if streams not in decode_steps:
            decode_steps[streams] = max(copy.decode_step_seconds(streams), copy.chunk_seconds)
        return decode_steps[streams]

    first_tokens: list[float] = []
    ending: deque[int] = deque()  # the step before which each running stream has its answer, earliest first
    clock, step, read, left = 0.0, 0, 0, prompt  # read: prompts read whole; left: tokens of the next one
    while read < requests:
        while ending and ending[0] <= step:
            ending.popleft()
        running = len(ending)
        if running == 0:
            clock = max(clock, arrival(read))  # idle until the next request reaches the engine
        room = copy.batch_tokens - running if running < most else 0
        taken = finished = 0
        while room > 0 and read + finished < requests and arrival(read + finished) <= clock:
            take = min(room, left)
            taken, room, left = taken + take, room - take, left - take
            if left == 0:
                finished, left = finished + 1, prompt
                if running + finished >= most:
                    break
        decoding = decoding_seconds(running) if running else copy.chunk_seconds
        clock += decoding + (times.tokens_seconds(taken) if taken else 0.0)
        step += 1
        first_tokens.extend([clock + copy.request_seconds] * finished)
        if times.output_tokens > 1:
            ending.extend([step + times.output_tokens - 1] * finished)
        read += finished
    own = copy.request_seconds + copy.prompt_seconds
    return Load(
        requests_per_s=0.0,
        streams=requests,
        prompt_share=0.0,
        line_share=0.0,
        step_seconds=copy.decode_step_seconds(requests),
        ttft_seconds=statistics.fmean(first_tokens),
        ttft_at_most_seconds=first_tokens[-1] + (copy.prompt_tail_factor - 1) * own,
        saturated=False,
    )


def benchmark_run(times: BurstTimes, users: int, requests: int) -> Load:
    """A benchmark's run of ``requests`` requests by ``users`` clients in a closed loop: the first ``users`` arrive
    at once (a burst), the rest as answers end. Its mean first token weighs the two by their requests; so does its
    slow tail."""
    if requests <= users:
        return burst(times, requests, requests)
    wave, steady = burst(times, users, users), closed_loop(times.copy, users, times.output_tokens)
    first = users / requests

    def mean(a: float, b: float) -> float:
        return first * a + (1 - first) * b

    return replace(
        steady,
        ttft_seconds=mean(wave.ttft_seconds, steady.ttft_seconds),
        ttft_at_most_seconds=mean(wave.ttft_at_most_seconds, steady.ttft_at_most_seconds),
    )
