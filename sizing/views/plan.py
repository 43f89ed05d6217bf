"""A plan for a requirement: from a model, its users (or requests per minute), a speed per user and a time to first
token to every node configuration that serves it, cheapest first.

Each candidate is a configuration of nodes.yml, a format, a number of cards per copy of the model and a KV-cache
precision; a node runs ``cards // cards_per_copy`` copies side by side, and a plan rents as many nodes of the
configuration as the load needs, each serving its own copies (no link between nodes). Every figure comes from the
plan's published figures (``sizing.views.plan_figures``, computed by ``sizing.views.plan_tabulate`` from the same
engine as ``python -m sizing.estimate``), read as the Plan page's script reads them, and the load from
``sizing.engine.load``: the prompts of a copy's users slow their answers (chunked prefill's mixed steps) and their
first tokens wait in line.

A copy serves the most users (or requests a second) for which every stream's KV cache fits, the speed per user
holds *at its floor* (the slow steps, not only the typical ones), the time to first token holds *at most* (the
slow tail: ``load.TAIL_PERCENTILE`` of the wait) and its prompts take at most ``max_prompt_peak_share`` of the
copy's dense peak. ``users``: each user asks again as soon as an answer ends (a closed loop); ``requests_per_minute``:
requests arrive independently at a steady rate. A copy that runs only with layers in host memory or at a shorter
context is not a candidate. When nothing meets the requirement, the closest plans say what to relax."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from sizing.engine.load import Arrival, CopyTimes, load_of
from sizing.views.plan_figures import (
    Candidate,
    CopyAt,
    KvCache,
    ModelFigures,
    PlanFigures,
    copy_at,
    most_streams,
    prompt_peak_share,
    prompt_seconds,
    step_reader,
    streams_that_fit,
)

Binding = Literal["memory", "speed", "ttft", "prompts", "engine_cap", "users"]
PriceKey = tuple[float, bool, float, str]  # price, KV cache in FP8, minus the speed, configuration: options' order
RATE_STEPS = 20


@dataclass(frozen=True)
class Requirement:
    """What a service needs. ``users``: concurrent users, or ``requests_per_minute`` arriving at a steady rate
    (``users`` is then ignored); ``max_ttft_s`` None: no limit on the time to first token; ``precision`` None: any
    format offered for the model; ``configuration`` None: every node configuration."""

    model: str
    prompt_tokens: int
    output_tokens: int
    users: int
    min_tokens_per_s_per_user: float
    precision: str | None = None
    max_ttft_s: float | None = None
    requests_per_minute: float | None = None
    configuration: str | None = None

    @property
    def context_tokens(self) -> int:
        """The context a stream's KV cache must hold: the prompt and the whole answer."""
        return self.prompt_tokens + self.output_tokens

    @property
    def decode_context_tokens(self) -> int:
        """The context a decode step reads on average: the prompt and half the answer."""
        return self.prompt_tokens + self.output_tokens // 2


@dataclass(frozen=True)
class Load:
    """One copy at a load: its users (streams decoding at once, for steady requests), the requests a second, the
    streams its memory holds, the speed per user typically and at its floor, the first token typically and at
    most, the share of the copy's dense peak its prompts take, and the KV cache it keeps."""

    users: float
    requests_per_s: float
    fits: bool
    streams_that_fit: int
    typical: float
    floor: float
    ttft: float
    ttft_at_most: float
    prompt_peak_share: float
    kv_cache_dtype: KvCache
    saturated: bool = False


@dataclass(frozen=True)
class Option:
    """A plan: ``nodes`` nodes of one configuration, the users (or requests a second) on each, the figures of a
    user on the busiest copy, the price of the whole plan, and what stops a copy from serving more."""

    candidate: Candidate
    nodes: int
    users_per_node: int
    load: Load
    price_per_month_usd: float
    usd_per_million_tokens: float
    binding: Binding
    users: int
    meets: bool = True

    @property
    def configuration(self) -> str:
        return self.candidate.configuration

    @property
    def precision(self) -> str:
        return self.candidate.precision


# --- one copy at a load ------------------------------------------------------------------------------------------
def copy_times(plan: PlanFigures, model: ModelFigures, copy: CopyAt, requirement: Requirement) -> CopyTimes:
    """What the load model needs of the copy, read from its figures. Its decode step is read once per count of
    streams: the load model's solver asks for the same two counts on each of its steps (the same figures, in less
    than half the time)."""
    figures, step = copy.figures, step_reader(model, copy, requirement.decode_context_tokens)
    steps: dict[float, float] = {}

    def decode_step_seconds(streams: float) -> float:
        if streams not in steps:
            steps[streams] = step(max(streams, 1.0))
        return steps[streams]

    return CopyTimes(
        decode_step_seconds=decode_step_seconds,
        prompt_tokens=requirement.prompt_tokens,
        prompt_seconds=prompt_seconds(plan, model, copy, requirement.prompt_tokens),
        chunk_seconds=figures.chunk_ms / 1e3,
        batch_tokens=figures.batch_tokens,
        request_seconds=figures.request_ms / 1e3,
        prompt_tail_factor=plan.prompt_tail_factor,
    )


def arrival_of(requirement: Requirement, users: float, requests_per_s: float) -> Arrival:
    if requirement.requests_per_minute is None:
        return Arrival("closed", users=math.ceil(users))
    return Arrival("poisson", requests_per_s=requests_per_s)


@dataclass(frozen=True)
class Serving:
    """One copy of a candidate at a requirement, read from its figures once for every load tried on it: its figures
    at the requirement's context, what the load model needs of it, the most streams its engine runs and the streams
    whose KV cache fits."""

    candidate: Candidate
    copy: CopyAt
    times: CopyTimes
    most_streams: int
    streams_that_fit: int


def serving_of(plan: PlanFigures, model: ModelFigures, candidate: Candidate, requirement: Requirement) -> Serving:
    copy = copy_at(model, candidate, requirement.context_tokens)
    return Serving(
        candidate,
        copy,
        copy_times(plan, model, copy, requirement),
        most_streams(copy, requirement.context_tokens),
        streams_that_fit(copy, requirement.context_tokens),
    )


def load_on(
    plan: PlanFigures, model: ModelFigures, serving: Serving, requirement: Requirement, arrival: Arrival
) -> Load:
    """What one copy reaches under the arrival's load."""
    copy, fitting = serving.copy, serving.streams_that_fit
    found = load_of(serving.times, arrival, requirement.output_tokens, serving.most_streams)
    users = arrival.users if arrival.kind == "closed" else found.streams
    typical = found.tokens_per_s_per_stream
    peak = prompt_peak_share(plan, model, copy, requirement.prompt_tokens, found.requests_per_s)
    return Load(
        users=users,
        requests_per_s=found.requests_per_s,
        fits=not found.saturated and fitting >= math.ceil(users),
        streams_that_fit=fitting,
        typical=typical,
        floor=typical * plan.floor_factor,
        ttft=found.ttft_seconds,
        ttft_at_most=found.ttft_at_most_seconds,
        prompt_peak_share=peak if not found.saturated else math.inf,
        kv_cache_dtype=copy.kv_cache_dtype,
        saturated=found.saturated,
    )


def failed_constraint(plan: PlanFigures, load: Load, requirement: Requirement) -> Binding | None:
    """The first requirement one copy at this load misses: memory, then the speed at its floor, then the first
    token at most, then the share of the peak its prompts take."""
    if not load.fits and not load.saturated:
        return "memory"
    if load.saturated or load.floor < requirement.min_tokens_per_s_per_user:
        return "speed"
    if requirement.max_ttft_s is not None and load.ttft_at_most > requirement.max_ttft_s:
        return "ttft"
    if load.prompt_peak_share > plan.max_prompt_peak_share:
        return "prompts"
    return None


# --- how much a copy serves ---------------------------------------------------------------------------------------
def users_per_copy(
    plan: PlanFigures, model: ModelFigures, serving: Serving, requirement: Requirement
) -> tuple[int, Binding]:
    """The most users one copy serves within the requirement (0 when not even one), and the constraint that stops it
    at that number. More users never make a user faster or a first token sooner (``sizing.engine.load``): the
    largest passing count is found by bisection, up to the engine's cap and the streams whose cache fits (more fail
    on memory), trying that count first (a copy that serves every user it holds needs no more)."""
    cap = serving.most_streams

    def failed(users: int) -> Binding | None:
        load = load_on(plan, model, serving, requirement, Arrival("closed", users=users))
        return failed_constraint(plan, load, requirement)

    first = failed(1)
    if first is not None:
        return 0, first
    if requirement.users <= 1:
        return 1, "users"
    low, high = 1, min(cap, requirement.users, max(serving.streams_that_fit, 1))
    if high > low and failed(high) is None:
        low = high
    high -= 1
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if failed(middle) is None else (low, middle - 1)
    if low >= requirement.users:
        return low, "users"
    if low >= cap:
        return low, "engine_cap"
    stopped = failed(low + 1)
    assert stopped is not None
    return low, stopped


def rate_per_copy(
    plan: PlanFigures, model: ModelFigures, serving: Serving, requirement: Requirement
) -> tuple[float, Binding]:
    """The most requests a second one copy serves within the requirement at a steady rate (0 when even a trickle
    fails), and the constraint that stops it there: by bisection between no requests and the rate at which its
    prompts alone would take all of its time."""
    ceiling = 1 / serving.times.prompt_seconds
    total = (requirement.requests_per_minute or 0.0) / 60

    def failed(rate: float) -> Binding | None:
        load = load_on(plan, model, serving, requirement, Arrival("poisson", requests_per_s=rate))
        return failed_constraint(plan, load, requirement)

    trickle = min(total, ceiling) * 1e-6
    first = failed(trickle)
    if first is not None:
        return 0.0, first
    if failed(total) is None:
        return total, "users"
    low, high = trickle, min(total, ceiling)
    for _ in range(RATE_STEPS):
        middle = (low + high) / 2
        low, high = (middle, high) if failed(middle) is None else (low, middle)
    stopped = failed(high)
    return low, "speed" if stopped is None else stopped


# --- a plan on one candidate ------------------------------------------------------------------------------------
def option_for(plan: PlanFigures, model: ModelFigures, candidate: Candidate, requirement: Requirement) -> Option | None:
    """The cheapest plan on this candidate, None when one copy cannot serve even one user (or a trickle of
    requests)."""
    configuration = plan.configurations[candidate.configuration]
    copies_per_node = configuration.cards // candidate.cards_per_copy
    serving = serving_of(plan, model, candidate, requirement)
    if requirement.requests_per_minute is None:
        per_copy, binding = users_per_copy(plan, model, serving, requirement)
        if per_copy == 0:
            return None
        nodes = math.ceil(requirement.users / (per_copy * copies_per_node))
        if nodes == 1:
            binding = "users"  # one node serves them all: nothing limits it
        users_per_node = math.ceil(requirement.users / nodes)
        busiest = math.ceil(users_per_node / copies_per_node)
        load = load_on(plan, model, serving, requirement, Arrival("closed", users=busiest))
        tokens_per_s = requirement.users * requirement.output_tokens / request_seconds(load, requirement)
        users = requirement.users
    else:
        rate, binding = rate_per_copy(plan, model, serving, requirement)
        if rate == 0:
            return None
        total = requirement.requests_per_minute / 60
        nodes = math.ceil(total / (rate * copies_per_node) - 1e-9)
        if nodes == 1:
            binding = "users"
        per_copy_rate = total / (nodes * copies_per_node)
        load = load_on(plan, model, serving, requirement, Arrival("poisson", requests_per_s=per_copy_rate))
        users_per_node = math.ceil(load.users * copies_per_node)
        tokens_per_s = total * requirement.output_tokens
        users = math.ceil(load.users * copies_per_node * nodes)
    monthly = nodes * configuration.price_per_month_usd
    return Option(
        candidate=candidate,
        nodes=nodes,
        users_per_node=users_per_node,
        load=load,
        price_per_month_usd=monthly,
        usd_per_million_tokens=monthly / (plan.hours_per_month * 3600 * tokens_per_s) * 1e6,
        binding=binding,
        users=users,
    )


def request_seconds(load: Load, requirement: Requirement) -> float:
    """One request of a user: the first token, then the answer at the typical speed."""
    return load.ttft + requirement.output_tokens / load.typical


# --- every option --------------------------------------------------------------------------------------------------
def candidates(model: ModelFigures, requirement: Requirement) -> list[Candidate]:
    """The model's candidates in the format and configuration asked for (every one where not asked)."""
    return [
        c
        for c in model.candidates
        if (requirement.precision is None or c.precision == requirement.precision)
        and (requirement.configuration is None or c.configuration == requirement.configuration)
    ]


def price_key(option: Option) -> PriceKey:
    """Cheapest first; at the same price a 16-bit KV cache (no quality cost), then the faster; then by
    configuration id, so the order is stable."""
    fp8_cache = option.load.kv_cache_dtype == "fp8"
    return (option.price_per_month_usd, fp8_cache, -option.load.typical, option.candidate.configuration)


def best_per_configuration(options: Iterable[Option]) -> list[Option]:
    """One option per configuration (its cheapest format and split), cheapest first."""
    best: dict[str, Option] = {}
    for option in sorted(options, key=price_key):
        best.setdefault(option.candidate.configuration, option)
    return sorted(best.values(), key=price_key)


def model_of(plan: PlanFigures, requirement: Requirement) -> ModelFigures:
    if requirement.model not in plan.models:
        raise KeyError(requirement.model)
    return plan.models[requirement.model]


def fewest_nodes(plan: PlanFigures, model: ModelFigures, candidate: Candidate, requirement: Requirement) -> int:
    """The fewest nodes the candidate could need, before any load is worked out: each copy serving at most the
    streams its memory and its engine hold (users), or its prompts taking all of its time (requests)."""
    copies = plan.configurations[candidate.configuration].cards // candidate.cards_per_copy
    copy = copy_at(model, candidate, requirement.context_tokens)
    if requirement.requests_per_minute is None:
        most = min(streams_that_fit(copy, requirement.context_tokens), requirement.users)
        return math.ceil(requirement.users / (max(most, 1) * copies))
    total = requirement.requests_per_minute / 60
    return math.ceil(total * prompt_seconds(plan, model, copy, requirement.prompt_tokens) / copies - 1e-9)


def least_key(plan: PlanFigures, model: ModelFigures, candidate: Candidate, requirement: Requirement) -> PriceKey:
    """The lowest ``price_key`` an option of the candidate could have, before its load is worked out: the price of
    its fewest nodes, its KV cache, and (for users) the speed of a user on the busiest copy of that many nodes with
    no prompt in its steps (prompts only ever stretch a step), so its option's key is at or after it."""
    copy = copy_at(model, candidate, requirement.context_tokens)
    nodes = fewest_nodes(plan, model, candidate, requirement)
    configuration = plan.configurations[candidate.configuration]
    fastest = math.inf
    if requirement.requests_per_minute is None:
        copies = configuration.cards // candidate.cards_per_copy
        busiest = math.ceil(math.ceil(requirement.users / nodes) / copies)
        most = most_streams(copy, requirement.context_tokens)
        running = most if 0 < most < busiest else busiest  # the others wait in the engine's queue
        fastest = 1 / copy_times(plan, model, copy, requirement).decode_step_seconds(running)
    return (nodes * configuration.price_per_month_usd, copy.kv_cache_dtype == "fp8", -fastest, candidate.configuration)


def plan_for(plan: PlanFigures, requirement: Requirement) -> list[Option]:
    """Every configuration that meets the requirement, cheapest first, each with its cheapest way. Candidates are
    worked out in the order of the lowest key their option could have (``least_key``), and one whose option could
    not come before the best found on its configuration is not: the plan is the same, in a fraction of the time."""
    model = model_of(plan, requirement)
    found: list[Option] = []
    best: dict[str, PriceKey] = {}
    for key, c in sorted_candidates(plan, model, requirement):
        if c.configuration in best and key >= best[c.configuration]:
            continue
        option = option_for(plan, model, c, requirement)
        if option is not None:
            found.append(option)
            best[c.configuration] = min(best.get(c.configuration, price_key(option)), price_key(option))
    return best_per_configuration(found)


def sorted_candidates(
    plan: PlanFigures, model: ModelFigures, requirement: Requirement
) -> list[tuple[PriceKey, Candidate]]:
    """The model's candidates with their ``least_key``, lowest first (in the figures' order at the same key)."""
    keyed = [(least_key(plan, model, c, requirement), c) for c in candidates(model, requirement)]
    return sorted(keyed, key=lambda pair: pair[0])


# --- when nothing meets it ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shortfall:
    """One user on one copy of a candidate: the speed it reaches and the time to first token it takes."""

    candidate: Candidate
    load: Load

    def gap(self, requirement: Requirement) -> float:
        """How many times too slow, in speed (at its floor) or in time to first token (at most), whichever is
        worse (1 = meets)."""
        speed = requirement.min_tokens_per_s_per_user / self.load.floor
        ttft = 1.0 if requirement.max_ttft_s is None else self.load.ttft_at_most / requirement.max_ttft_s
        return max(speed, ttft, 1.0)


def shortfalls(plan: PlanFigures, requirement: Requirement) -> list[Shortfall]:
    """One user on one copy of every candidate whose weights and one stream's KV cache fit."""
    model = model_of(plan, requirement)
    alone = Arrival("closed", users=1)
    found = (
        Shortfall(c, load_on(plan, model, serving_of(plan, model, c, requirement), requirement, alone))
        for c in candidates(model, requirement)
    )
    return [s for s in found if s.load.fits]


def relaxed(requirement: Requirement, load: Load) -> Requirement:
    """The requirement loosened just enough for one user on this load to meet it."""
    max_ttft = requirement.max_ttft_s
    if max_ttft is not None:
        max_ttft = max(max_ttft, load.ttft_at_most)
    return replace(
        requirement,
        min_tokens_per_s_per_user=min(requirement.min_tokens_per_s_per_user, load.floor),
        max_ttft_s=max_ttft,
    )


def closest(plan: PlanFigures, requirement: Requirement, count: int = 3) -> list[Option]:
    """The ``count`` configurations nearest to meeting the requirement (smallest gap, then cheapest), each as a
    plan under the requirement loosened just enough for it; ``meets`` False."""
    model = model_of(plan, requirement)
    price = {k: c.price_per_month_usd for k, c in plan.configurations.items()}
    nearest = sorted(
        shortfalls(plan, requirement),
        key=lambda s: (round(s.gap(requirement), 3), price[s.candidate.configuration]),
    )
    options: list[Option] = []
    for s in nearest:
        option = option_for(plan, model, s.candidate, relaxed(requirement, s.load))
        if option is not None and option.configuration not in {o.configuration for o in options}:
            options.append(replace(option, meets=False))
        if len(options) == count:
            break
    return options


@dataclass(frozen=True)
class Relax:
    """What to loosen: ``no_fit`` (no node holds one user: a lighter format or a shorter prompt), ``speed`` (the
    fastest floor any configuration reaches, and where), ``ttft`` (the shortest first token at most, and where),
    ``both`` (no single configuration meets both)."""

    kind: Literal["no_fit", "speed", "ttft", "both"]
    value: float = 0.0
    configuration: str = ""
    precision: str = ""


def relax(plan: PlanFigures, requirement: Requirement) -> list[Relax]:
    """What to loosen, with the figures: the fastest speed per user (at its floor) and the shortest time to first
    token (at most) any configuration reaches with one user per copy, or, when not even one user fits, a lighter
    format or a shorter prompt."""
    found = shortfalls(plan, requirement)
    if not found:
        return [Relax("no_fit")]
    said = []
    fastest = max(found, key=lambda s: s.load.floor)
    if fastest.load.floor < requirement.min_tokens_per_s_per_user:
        c = fastest.candidate
        said.append(Relax("speed", fastest.load.floor, c.configuration, c.precision))
    quickest = min(found, key=lambda s: s.load.ttft_at_most)
    if requirement.max_ttft_s is not None and quickest.load.ttft_at_most > requirement.max_ttft_s:
        c = quickest.candidate
        said.append(Relax("ttft", quickest.load.ttft_at_most, c.configuration, c.precision))
    return said or [Relax("both")]
