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
from sizing.catalog.schema import DecodeScenario, KvCacheDtype, Llm, Node, Precision
from sizing.engine.decode import price_per_million_tokens, step_seconds
from sizing.engine.fit import engine_splits
from sizing.engine.links import node_bus_link
from sizing.engine.prefill import Hardware, PrefillConstants, PrefillEstimate, estimate_ttft
from sizing.engine.scenarios import ResolvedScenario, resolve
from sizing.engine.specs import llm_shape
from sizing.views.estimates import answer

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


# --- the estimator's figures for one copy ------------------------------------------------------------------
def node_scenario(
    catalog: Catalog,
    node: Node,
    cards: int,
    *,
    model: str,
    precision: Precision,
    streams: int,
    context_tokens: int,
    kv_cache_dtype: KvCacheDtype = "bf16",
) -> DecodeScenario:
    """The ``python -m sizing.estimate`` scenario of one copy on ``cards`` cards of ``node``: its GPU, the link
    those cards cross (``links.node_bus_link``), the engine of the format, the KV cache's precision."""
    engine = catalog.engine_of(precision)
    return DecodeScenario(
        gpu=node.gpu,
        cards=cards,
        link="none" if cards == 1 else node_bus_link(catalog, node, cards).id,
        parallelism=engine.parallelism,
        model=model,
        precision=precision.id,
        concurrency=streams,
        context_tokens=context_tokens,
        engine_class=engine.kind,
        kv_cache_dtype=kv_cache_dtype,
    )


def ttft_on(
    resolved: ResolvedScenario, prefill: PrefillConstants, requirement_tokens: tuple[int, int], streams: int
) -> PrefillEstimate:
    """The time to first token of a prompt among ``streams`` streams on a resolved scenario's hardware."""
    prompt_tokens, output_tokens = requirement_tokens
    return estimate_ttft(
        model=resolved.model,
        precision=resolved.precision,
        hardware=Hardware(resolved.gpu, resolved.link, resolved.cards, resolved.parallelism, resolved.engine_class),
        prompt_tokens=prompt_tokens,
        output_tokens=output_tokens,
        concurrency=streams,
        decode=resolved.constants,
        prefill=prefill,
    )


def ttft_of(catalog: Catalog, scenario: DecodeScenario, prompt_tokens: int, output_tokens: int) -> PrefillEstimate:
    """The time to first token of a prompt among the scenario's streams, on the scenario's hardware."""
    prefill = PrefillConstants.from_assumptions(catalog.assumptions)
    return ttft_on(resolve(catalog, scenario), prefill, (prompt_tokens, output_tokens), scenario.concurrency)


@dataclass(frozen=True)
class Copy:
    """One copy of the model on a candidate's cards at the requirement's context, as the estimator answers it:
    the scenario it resolves (with the KV-cache precision it keeps, FP8 where the verdict needs it), the streams
    whose KV cache fits beside the weights and the engine's reserve (0 when not even the weights fit)."""

    resolved: ResolvedScenario
    streams_that_fit: int
    prefill: PrefillConstants
    kv_cache_dtype: KvCacheDtype


def copy_of(catalog: Catalog, candidate: Candidate, requirement: Requirement) -> Copy:
    """What ``python -m sizing.estimate`` answers for one copy of the candidate at the requirement's context."""
    scenario = node_scenario(
        catalog,
        candidate.node,
        candidate.cards_per_copy,
        model=requirement.model,
        precision=candidate.precision,
        streams=1,
        context_tokens=requirement.context_tokens,
        kv_cache_dtype=candidate.kv_cache_dtype,
    )
    said = answer(catalog, scenario)
    # layers in host memory serve one stream at a time at the host's speed, their first token is not modelled:
    # the plan serves its users from the cards
    on_cards = said.at_concurrency is not None and said.gpu_layers is None
    fitting = said.streams_that_fit if on_cards else 0
    resolved = resolve(catalog, scenario.model_copy(update={"kv_cache_dtype": said.kv_cache_dtype}))
    prefill = PrefillConstants.from_assumptions(catalog.assumptions)
    return Copy(resolved, fitting, prefill, said.kv_cache_dtype)


def speed_of(copy: Copy, streams: int) -> float:
    """The estimator's typical tokens/s per stream with ``streams`` streams (its decode step)."""
    return 1 / step_seconds(**(copy.resolved.setup() | {"concurrency": streams})).total  # type: ignore[arg-type]


def load_of(copy: Copy, requirement: Requirement, streams: int) -> Load:
    """The estimator's speeds with ``streams`` streams (typical and floor) and the time to first token among
    them."""
    resolved = copy.resolved
    typical = speed_of(copy, streams)
    ttft = ttft_on(resolved, copy.prefill, (requirement.prompt_tokens, requirement.output_tokens), streams)
    fits = copy.streams_that_fit >= streams
    floor = typical * resolved.constants.floor_factor
    return Load(streams, fits, copy.streams_that_fit, typical, floor, ttft, copy.kv_cache_dtype)


def load_on(catalog: Catalog, candidate: Candidate, requirement: Requirement, streams: int) -> Load:
    """What the estimator says of one copy serving ``streams`` users of the requirement."""
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
    cap = catalog.assumptions.max_running_streams.value
    copy = copy_of(catalog, candidate, requirement)
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
