"""A plan for a requirement: from a model, users, a speed per user and a time to first token to every node
configuration that serves it, cheapest first.

Each candidate is a configuration of nodes.yml, a format and a number of cards per copy of the model; a node
runs ``cards // cards_per_copy`` copies side by side, and a plan rents as many nodes of the configuration as
the users need, each serving its own copies (no link between nodes). A copy serves the most users for which,
by the estimator's own figures (``python -m sizing.estimate`` on the same node at that many streams and a
context of prompt + output tokens), every stream's KV cache fits, the typical speed per user meets the target
and the typical time to first token (``sizing.engine.prefill``) stays within the limit. A copy that runs only with
layers in host memory (llama.cpp's ``--n-gpu-layers``) is not a candidate: it serves one stream at a time and its
first token is not modelled. When nothing meets the requirement, the closest plans say what to relax."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from sizing.catalog.configurations import Configuration
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import KvCacheDtype, Llm, Node, Precision
from sizing.engine.decode import DecodeSetup, price_per_million_tokens, step_seconds
from sizing.engine.deployment import decode_setup, layout_of, setting_class, stream_cap
from sizing.engine.fit import Fit, engine_splits, fit_split, llm_query, nvswitch_splits
from sizing.engine.prefill import PrefillConstants, PrefillEstimate, estimate_ttft
from sizing.engine.specs import llm_shape
from sizing.views.estimates import CardMemoryPlan, card_plan
from sizing.views.matrix import node_cards

Binding = Literal["memory", "speed", "ttft", "engine_cap", "users"]
CARDS_PER_COPY = (1, 2, 4, 8)
RATE_ITERATIONS = 8


@dataclass(frozen=True)
class Requirement:
    """What a service needs. ``users``: concurrent users, or ``requests_per_minute`` turned into users on each
    configuration with its own time per request (``users`` is then ignored); ``max_ttft_s`` None: no limit on
    the time to first token; ``precision`` None: any format offered for the model."""

    model: str
    prompt_tokens: int
    output_tokens: int
    users: int
    min_tokens_per_s_per_user: float
    precision: str | None = None
    max_ttft_s: float | None = None
    requests_per_minute: float | None = None

    @property
    def context_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens


@dataclass(frozen=True)
class Load:
    """The estimator's figures for one copy of the model serving ``streams`` users."""

    streams: int
    fits: bool
    streams_that_fit: int
    typical: float  # tokens/s per user
    floor: float
    ttft: PrefillEstimate
    kv_cache_dtype: KvCacheDtype = "bf16"


@dataclass(frozen=True)
class Candidate:
    """A configuration, a format and the cards one copy uses."""

    configuration: Configuration
    precision: Precision
    cards_per_copy: int
    kv_cache_dtype: KvCacheDtype = "bf16"

    @property
    def node(self) -> Node:
        return self.configuration.cheapest

    @property
    def copies_per_node(self) -> int:
        return self.node.cards // self.cards_per_copy


@dataclass(frozen=True)
class Option:
    """A plan: ``nodes`` nodes of one configuration, ``users_per_node`` users on each (the busiest), the figures
    of a user on the busiest copy, the price of the whole plan, and what stops a copy from serving more users."""

    candidate: Candidate
    nodes: int
    users_per_node: int
    load: Load
    price_per_month_usd: float
    usd_per_million_tokens: float
    binding: Binding
    users: int
    meets: bool = True


# --- one copy ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Copy:
    """One copy of the model on a candidate's cards at a context, as ``sizing.engine.deployment`` lays it out at
    the setting those cards need (``fit.fit_split``): its decode setup, the streams whose KV cache fits beside the
    weights and the engine's reserve (0 when not one does, or only at a shorter context or with layers in host
    memory), the most streams its engine runs, and the KV cache it keeps (FP8 where the setting needs it)."""

    setup: DecodeSetup
    streams_that_fit: int
    most_streams: int
    prefill: PrefillConstants
    kv_cache_dtype: KvCacheDtype


def copy_at(
    catalog: Catalog, candidate: Candidate, model: str, context_tokens: int
) -> tuple[Copy, Fit, CardMemoryPlan]:
    """The candidate's copy at ``context_tokens``, the fit of its cards there and one card's memory at that fit."""
    llm = catalog.models[model]
    assert isinstance(llm, Llm)
    node = candidate.node
    splits = nvswitch_splits(catalog, node)
    gpu, dtype = catalog.gpu_of(node), candidate.kv_cache_dtype
    query = llm_query(catalog, llm, candidate.precision, gpu, context_tokens, dtype, splits)
    fit = fit_split(query, candidate.cards_per_copy)
    layout = layout_of(query, node_cards(catalog, node), fit) if fit.fits else None
    prefill = PrefillConstants.from_assumptions(catalog.assumptions)
    plan = card_plan(query, fit)
    if layout is None or setting_class(fit)[0] > 1:  # a shorter context, or layers in host memory: no user fits
        setup = replace(decode_setup(query, node_cards(catalog, node), fit), context_tokens=context_tokens)
        return Copy(setup, 0, stream_cap(catalog, query, fit), prefill, fit.kv_cache_dtype), fit, plan
    copy = Copy(layout.setup, layout.streams_per_copy, layout.most_streams, prefill, fit.kv_cache_dtype)
    return copy, fit, plan


def copy_of(catalog: Catalog, candidate: Candidate, requirement: Requirement) -> Copy:
    """One copy of the candidate at the requirement's context (prompt + output tokens)."""
    return copy_at(catalog, candidate, requirement.model, requirement.context_tokens)[0]


def ttft_on(copy: Copy, requirement_tokens: tuple[int, int], streams: int) -> PrefillEstimate:
    """The time to first token of a prompt among ``streams`` streams of one copy."""
    prompt_tokens, output_tokens = requirement_tokens
    return estimate_ttft(
        copy.setup, copy.prefill, prompt_tokens=prompt_tokens, output_tokens=output_tokens, concurrency=streams
    )


def speed_of(copy: Copy, streams: int) -> float:
    """The typical tokens/s per stream with ``streams`` streams (the decode step)."""
    return 1 / step_seconds(copy.setup, streams).total


def load_of(copy: Copy, requirement: Requirement, streams: int) -> Load:
    """The speeds with ``streams`` streams (typical and floor) and the time to first token among them."""
    typical = speed_of(copy, streams)
    ttft = ttft_on(copy, (requirement.prompt_tokens, requirement.output_tokens), streams)
    fits = copy.streams_that_fit >= streams
    floor = typical * copy.setup.constants.floor_factor
    return Load(streams, fits, copy.streams_that_fit, typical, floor, ttft, copy.kv_cache_dtype)


def load_on(catalog: Catalog, candidate: Candidate, requirement: Requirement, streams: int) -> Load:
    """What one copy serving ``streams`` users of the requirement reaches."""
    return load_of(copy_of(catalog, candidate, requirement), requirement, streams)


def failed_constraint(load: Load, requirement: Requirement) -> Binding | None:
    """The first requirement one copy at this load misses: memory, then speed, then time to first token."""
    if not load.fits:
        return "memory"
    if load.typical < requirement.min_tokens_per_s_per_user:
        return "speed"
    if requirement.max_ttft_s is not None and load.ttft.typical_seconds > requirement.max_ttft_s:
        return "ttft"
    return None


# --- how many users a copy serves ---------------------------------------------------------------------------
def users_per_copy(catalog: Catalog, candidate: Candidate, requirement: Requirement) -> tuple[int, Binding]:
    """The most users one copy serves within the requirement (0 when not even one), and the constraint that
    stops it at that number. Speed falls and the time to first token grows with users, memory runs out: the
    largest passing count is found by bisection up to the engine's cap."""
    copy = copy_of(catalog, candidate, requirement)
    cap = copy.most_streams
    first = failed_constraint(load_of(copy, requirement, 1), requirement)
    if first is not None:
        return 0, first
    if requirement.users <= 1:
        return 1, "users"
    low, high = 1, min(cap, requirement.users)
    while low < high:
        middle = (low + high + 1) // 2
        if failed_constraint(load_of(copy, requirement, middle), requirement) is None:
            low = middle
        else:
            high = middle - 1
    if low >= requirement.users:
        return low, "users"
    if low >= cap:
        return low, "engine_cap"
    stopped = failed_constraint(load_of(copy, requirement, low + 1), requirement)
    assert stopped is not None
    return low, stopped


def request_seconds(load: Load, output_tokens: int) -> float:
    """One request of a user: the time to first token, then the answer at the typical speed."""
    return load.ttft.typical_seconds + output_tokens / load.typical


def option_for(catalog: Catalog, candidate: Candidate, requirement: Requirement) -> Option | None:
    """The cheapest plan on this candidate, None when one copy cannot serve even one user. Requests per minute
    become users by Little's law, ``rate × time per request``, the time per request that of the plan itself:
    repeated until the users stop growing."""
    if requirement.requests_per_minute is None:
        return option_for_users(catalog, candidate, requirement)
    users, option = 1, None
    for _ in range(RATE_ITERATIONS):
        option = option_for_users(catalog, candidate, replace(requirement, users=users))
        if option is None:
            return None
        needed = math.ceil(
            requirement.requests_per_minute / 60 * request_seconds(option.load, requirement.output_tokens)
        )
        if needed <= users:
            return option
        users = needed
    return option_for_users(catalog, candidate, replace(requirement, users=users))


def option_for_users(catalog: Catalog, candidate: Candidate, requirement: Requirement) -> Option | None:
    """The cheapest plan on this candidate for ``requirement.users`` users at once."""
    per_copy, binding = users_per_copy(catalog, candidate, requirement)
    if per_copy == 0:
        return None
    per_node = per_copy * candidate.copies_per_node
    nodes = math.ceil(requirement.users / per_node)
    users_per_node = math.ceil(requirement.users / nodes)
    busiest_copy = math.ceil(users_per_node / candidate.copies_per_node)
    load = load_on(catalog, candidate, requirement, busiest_copy)
    monthly = nodes * candidate.node.price_per_month.amount
    return Option(
        candidate=candidate,
        nodes=nodes,
        users_per_node=users_per_node,
        load=load,
        price_per_month_usd=monthly,
        usd_per_million_tokens=usd_per_million(catalog, monthly, requirement, load),
        binding=binding,
        users=requirement.users,
    )


def usd_per_million(catalog: Catalog, monthly_usd: float, requirement: Requirement, load: Load) -> float:
    """A million generated tokens at this load: every user asks again as soon as an answer ends (the
    requirement's concurrency), so the plan generates ``users × output / (ttft + output / speed)`` tokens/s."""
    tokens_per_s = requirement.users * requirement.output_tokens / request_seconds(load, requirement.output_tokens)
    return price_per_million_tokens(monthly_usd, catalog.assumptions.hours_per_month.value, tokens_per_s)


# --- every option ------------------------------------------------------------------------------------------------
def precisions_of(catalog: Catalog, requirement: Requirement) -> list[Precision]:
    model = catalog.models[requirement.model]
    if requirement.precision is not None:
        return [catalog.precisions[requirement.precision]]
    return catalog.precisions_for(model)


def candidates(catalog: Catalog, requirement: Requirement) -> Iterable[Candidate]:
    """Every configuration × format × cards per copy (a power of two that divides the node's cards and that the
    format's engine can split the model over, ``fit.engine_splits``) × KV-cache precision (FP8 as a choice of
    server engines, ``--kv-cache-dtype fp8``)."""
    shape = llm_shape(catalog.models[requirement.model])  # type: ignore[arg-type]
    for configuration in catalog.configurations.values():
        node = configuration.cheapest
        for precision in precisions_of(catalog, requirement):
            engine = catalog.engine_of(precision)
            splits = engine_splits(engine, shape, node.cards)
            dtypes: tuple[KvCacheDtype, ...] = ("bf16", "fp8") if engine.kind == "server" else ("bf16",)
            for cards in CARDS_PER_COPY:
                if cards in splits and node.cards % cards == 0:
                    yield from (Candidate(configuration, precision, cards, dtype) for dtype in dtypes)


def price_key(option: Option) -> tuple[float, bool, float, str]:
    """Cheapest first; at the same price a 16-bit KV cache (no quality cost), then the faster; then by
    configuration id, so the order is stable."""
    fp8_cache = option.load.kv_cache_dtype == "fp8"
    return (option.price_per_month_usd, fp8_cache, -option.load.typical, option.candidate.configuration.id)


def best_per_configuration(options: Iterable[Option]) -> list[Option]:
    """One option per configuration (its cheapest format and split), cheapest first."""
    best: dict[str, Option] = {}
    for option in sorted(options, key=price_key):
        best.setdefault(option.candidate.configuration.id, option)
    return sorted(best.values(), key=price_key)


def plan(catalog: Catalog, requirement: Requirement) -> list[Option]:
    """Every configuration that meets the requirement, cheapest first, each with its cheapest way."""
    if not isinstance(catalog.models.get(requirement.model), Llm):
        raise KeyError(requirement.model)
    found = (option_for(catalog, c, requirement) for c in candidates(catalog, requirement))
    return best_per_configuration(o for o in found if o is not None)


# --- when nothing meets it ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shortfall:
    """One user on one copy of a candidate: the speed it reaches and the time to first token it takes."""

    candidate: Candidate
    load: Load

    def gap(self, requirement: Requirement) -> float:
        """How many times too slow, in speed or in time to first token, whichever is worse (1 = meets)."""
        speed = requirement.min_tokens_per_s_per_user / self.load.typical
        ttft = 1.0 if requirement.max_ttft_s is None else self.load.ttft.typical_seconds / requirement.max_ttft_s
        return max(speed, ttft, 1.0)


def shortfalls(catalog: Catalog, requirement: Requirement) -> list[Shortfall]:
    """One user on one copy of every candidate whose weights and one stream's KV cache fit."""
    found = (Shortfall(c, load_on(catalog, c, requirement, 1)) for c in candidates(catalog, requirement))
    return [s for s in found if s.load.fits]


def relaxed(requirement: Requirement, load: Load) -> Requirement:
    """The requirement loosened just enough for one user on this load to meet it."""
    max_ttft = requirement.max_ttft_s
    if max_ttft is not None:
        max_ttft = max(max_ttft, load.ttft.typical_seconds)
    return replace(
        requirement,
        min_tokens_per_s_per_user=min(requirement.min_tokens_per_s_per_user, load.typical),
        max_ttft_s=max_ttft,
    )


def closest(catalog: Catalog, requirement: Requirement, count: int = 3) -> list[Option]:
    """The ``count`` configurations nearest to meeting the requirement (smallest gap, then cheapest), each as a
    plan under the requirement loosened just enough for it; ``meets`` False."""
    nearest = sorted(
        shortfalls(catalog, requirement),
        key=lambda s: (round(s.gap(requirement), 3), s.candidate.node.price_per_month.amount),
    )
    options: list[Option] = []
    for s in nearest:
        option = option_for(catalog, s.candidate, relaxed(requirement, s.load))
        if option is not None and option.candidate.configuration.id not in {
            o.candidate.configuration.id for o in options
        }:
            options.append(replace(option, meets=False))
        if len(options) == count:
            break
    return options


def relax(catalog: Catalog, requirement: Requirement) -> str:
    """What to loosen, with the figures: the fastest speed per user and the shortest time to first token any
    configuration reaches with one user per copy, or, when not even one user fits, a lighter format or a
    shorter prompt."""
    found = shortfalls(catalog, requirement)
    if not found:
        formats = ", ".join(p.id for p in precisions_of(catalog, requirement))
        return (
            f"no node holds {requirement.model} ({formats}) with the KV cache of one user at "
            f"{requirement.context_tokens:,} tokens: try a lighter format or a shorter prompt"
        )
    said = []
    fastest = max(found, key=lambda s: s.load.typical)
    if fastest.load.typical < requirement.min_tokens_per_s_per_user:
        said.append(
            f"the fastest is {fastest.load.typical:.1f} tokens/s per user "
            f"({fastest.candidate.configuration.id}, {fastest.candidate.precision.id}): ask for at most that, "
            "or use a lighter format"
        )
    quickest = min(found, key=lambda s: s.load.ttft.typical_seconds)
    if requirement.max_ttft_s is not None and quickest.load.ttft.typical_seconds > requirement.max_ttft_s:
        said.append(
            f"the shortest time to first token is {quickest.load.ttft.typical_seconds:.2f} s "
            f"({quickest.candidate.configuration.id}): allow that, or shorten the prompt"
        )
    if not said:
        said.append("no single configuration meets both limits at once: loosen the speed or the time to first token")
    return "; ".join(said)
