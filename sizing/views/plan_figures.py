"""The figures a plan is made of, and how a plan reads them between their steps.

Every plan, in Python (``sizing.views.plan``) and in the Plan page's script (``plan-model.js``), is made from the
same published figures (``api/plan.json``, ``api/plan/<model>.json``): for each candidate copy of a model (a
format on so many cards of a GPU over a link, with a KV-cache precision), the room its cards leave the KV cache
and one stream's cache at a ladder of contexts, the decode step at a ladder of streams × contexts, a prompt read
alone at a ladder of prompt lengths, and its fixed costs. ``sizing.views.plan_tabulate`` computes them from the
catalog; this module holds them and reads them: straight between two steps of a ladder, or as a power of the
prompt (its compute grows with its square). The script reads them with the same functions, line for line.

Units are in the names; times in the figures are in milliseconds, as the documents give them."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

KvCache = Literal["bf16", "fp8"]


@dataclass(frozen=True)
class KvPoint:
    """At ``context_tokens``: the bytes each card leaves the KV cache (negative when none), one stream's cache per
    card, and the most streams the engine runs there."""

    context_tokens: int
    room_bytes: float
    stream_bytes: float
    most_streams: int


@dataclass(frozen=True)
class CopyFigures:
    """One copy: its KV points (``kv_room``), the contexts at which the estimator keeps its 16-bit cache in FP8
    instead (``[first, last]`` or empty), the decode step's milliseconds at each context of the model's ladder
    and each count of streams of its ladder (a row stops a step beyond the streams that fit), the index of its
    prompt row, one step's fixed cost, the server's cost per request, the tokens one step batches, and the dense
    tensor throughput of its cards in its format."""

    kv_room: tuple[KvPoint, ...]
    fp8_contexts: tuple[int, ...]
    step_ms: tuple[tuple[float, ...], ...]
    prompt_row: int
    chunk_ms: float
    request_ms: float
    batch_tokens: int
    peak_tflops: float


@dataclass(frozen=True)
class Candidate:
    """What a plan tries: a configuration, a format, the cards one copy uses, the KV-cache precision, and the
    index of its copy's figures."""

    configuration: str
    precision: str
    cards_per_copy: int
    kv_cache_dtype: KvCache
    copy: int


@dataclass(frozen=True)
class ModelFigures:
    """One language model's figures: its ladders of contexts and streams, the candidates a plan tries (in order),
    their copies, the prompt rows (milliseconds at the shared prompt ladder) and the GFLOP a prompt takes there."""

    model: str
    max_context_tokens: int
    precisions: tuple[str, ...]
    contexts: tuple[int, ...]
    streams: tuple[int, ...]
    candidates: tuple[Candidate, ...]
    copies: tuple[CopyFigures, ...]
    prompt_ms: tuple[tuple[float, ...], ...]
    prompt_gflop: tuple[float, ...]


@dataclass(frozen=True)
class Configuration:
    price_per_month_usd: float
    cards: int


@dataclass(frozen=True)
class PlanFigures:
    """What every plan shares: the date of the prices, hours in a month, the decode floor's factor, the slow
    tail's factor on a prompt, the largest share of a copy's dense peak its prompts may take, the prompt ladder,
    the configurations' prices and cards, and each model's figures (those loaded)."""

    prices_as_of: str
    hours_per_month: float
    floor_factor: float
    prompt_tail_factor: float
    max_prompt_peak_share: float
    prompt_tokens: tuple[int, ...]
    configurations: dict[str, Configuration]
    models: dict[str, ModelFigures]


# --- reading between the steps ------------------------------------------------------------------------------------
def segment(xs: tuple[int, ...] | list[int], x: float) -> int:
    """The index of the step at or before ``x`` of which the next one is the other end (the last two beyond)."""
    i = 0
    while i < len(xs) - 2 and x > xs[i + 1]:
        i += 1
    return i


def linear(xs: tuple[int, ...] | list[int], ys: tuple[float, ...] | list[float], x: float) -> float:
    """Straight between the two steps of the ladder around ``x`` (beyond its ends, the nearest two carried on)."""
    if len(ys) == 1:
        return ys[0]
    i = segment(xs, x)
    return ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])


def power_law(xs: tuple[int, ...], ys: tuple[float, ...], x: float) -> float:
    """Straight on logarithmic scales: a power of ``x`` between the two steps around it."""
    i = segment(xs, x)
    slope = math.log(ys[i + 1] / ys[i]) / math.log(xs[i + 1] / xs[i])
    return ys[i] * math.exp(slope * math.log(x / xs[i]))


# --- one copy at a context ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CopyAt:
    """A candidate's copy as the estimator runs it at a context: its figures and the KV cache it keeps."""

    figures: CopyFigures
    kv_cache_dtype: KvCache


def copy_at(model: ModelFigures, candidate: Candidate, context_tokens: int) -> CopyAt:
    """The candidate at this context: a 16-bit cache the verdict cannot hold goes to FP8 (the sibling candidate's
    copy)."""
    figures = model.copies[candidate.copy]
    span = figures.fp8_contexts
    if candidate.kv_cache_dtype == "fp8" or not span or not span[0] <= context_tokens <= span[1]:
        return CopyAt(figures, candidate.kv_cache_dtype)
    sibling = next(
        c
        for c in model.candidates
        if (c.configuration, c.precision, c.cards_per_copy, c.kv_cache_dtype)
        == (candidate.configuration, candidate.precision, candidate.cards_per_copy, "fp8")
    )
    return CopyAt(model.copies[sibling.copy], "fp8")


def points_around(copy: CopyAt, context_tokens: int) -> tuple[KvPoint, KvPoint]:
    points = copy.figures.kv_room
    if len(points) == 1:
        return points[0], points[0]
    i = segment([p.context_tokens for p in points], context_tokens)
    return points[i], points[i + 1]


def most_streams(copy: CopyAt, context_tokens: int) -> int:
    """The most streams the engine runs at a context: that of the point whose setting the context has."""
    before, after = points_around(copy, context_tokens)
    return after.most_streams if context_tokens >= after.context_tokens else before.most_streams


def streams_that_fit(copy: CopyAt, context_tokens: int) -> int:
    """Streams whose cache fits: within one setting the room and one stream's cache are straight between two
    points (a change of setting has a point on either side); the first over the second, rounded down, up to the
    most streams."""
    before, after = points_around(copy, context_tokens)
    room, stream = before.room_bytes, before.stream_bytes
    if before is not after:
        xs = [before.context_tokens, after.context_tokens]
        room = linear(xs, [before.room_bytes, after.room_bytes], context_tokens)
        stream = linear(xs, [before.stream_bytes, after.stream_bytes], context_tokens)
    if room <= 0:
        return 0
    return max(0, min(math.floor(room / stream + 1e-9), most_streams(copy, context_tokens)))


def step_reader(model: ModelFigures, copy: CopyAt, context_tokens: int) -> Callable[[float], float]:
    """The decode step of ``streams`` streams at this context, no prompt inside it (seconds): straight between two
    steps of the streams ladder on each of the two rows around the context, then straight between the rows."""
    rows = copy.figures.step_ms
    first = rows[0] if len(rows) == 1 else rows[segment(model.contexts, context_tokens)]
    xs = model.streams[: len(first)]
    if len(rows) == 1:
        return lambda streams: linear(xs, first, streams) / 1e3
    i = segment(model.contexts, context_tokens)
    low, high = model.contexts[i], model.contexts[i + 1]
    weight = (context_tokens - low) / (high - low)
    second = rows[i + 1]
    xs_second = model.streams[: len(second)]

    def step(streams: float) -> float:
        before = linear(xs, first, streams)
        return (before + (linear(xs_second, second, streams) - before) * weight) / 1e3

    return step


def prompt_seconds(plan: PlanFigures, model: ModelFigures, copy: CopyAt, prompt_tokens: int) -> float:
    """A prompt read alone on the copy, without its steps' fixed costs."""
    return power_law(plan.prompt_tokens, model.prompt_ms[copy.figures.prompt_row], prompt_tokens) / 1e3


def prompt_peak_share(plan: PlanFigures, model: ModelFigures, copy: CopyAt, prompt_tokens: int, rate: float) -> float:
    """The share of the copy's dense peak its prompts take at ``rate`` requests a second."""
    gflop = power_law(plan.prompt_tokens, model.prompt_gflop, prompt_tokens)
    return rate * gflop / (copy.figures.peak_tflops * 1e3)
