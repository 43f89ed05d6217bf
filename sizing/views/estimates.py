"""What ``python -m sizing.estimate`` answers for one scenario: the run on exactly its cards, at the setting those
cards need (``fit.fit_split``), the streams that run at the scenario's concurrency and how many wait, speeds at
that concurrency and at full load, the verdict the configurator gives the same hardware, and, when it does not
fit, why and what would. A GGUF model whose weights exceed its cards runs, as llama.cpp runs it, with the layers
that do not fit in host memory (``--n-gpu-layers``), one stream at a time, when the host's memory holds them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DecodeScenario, InlinePrecision, KvCacheDtype, LlamaCppEngine
from sizing.engine.decode import DecodeSetup, step_seconds, streams_that_fit
from sizing.engine.deployment import NodeCards, decode_setup, stream_cap
from sizing.engine.fit import (
    Fit,
    FitQuery,
    Verdict,
    fit_llm_on,
    fit_split,
    kv_element_bytes,
    tight_setting,
)
from sizing.engine.load import Arrival
from sizing.engine.memory import kv_cache_bytes_per_card, longest_context_within, weight_bytes_per_card
from sizing.engine.prefill import PrefillConstants, estimate_ttft
from sizing.engine.scenarios import (
    ScenarioError,
    gpu_record,
    measured_setup,
    resolve_link,
    scenario_node,
    scenario_precision,
    scenario_query,
    scenario_shape,
)

MAX_CARDS_SUGGESTED = 64


@dataclass(frozen=True)
class Speeds:
    """Typical and floor tokens/s with ``streams`` streams decoding together: per stream and in total."""

    streams: int
    per_stream_typical: float
    per_stream_floor: float

    @property
    def total_typical(self) -> float:
        return self.streams * self.per_stream_typical

    @property
    def total_floor(self) -> float:
        return self.streams * self.per_stream_floor


@dataclass(frozen=True)
class Answer:
    """``fits``: the weights and the scenario's ``concurrency`` streams fit. ``reason`` when not: ``weights``
    (not even the weights), ``reserve`` (the weights, but not beside the engine's reserve), ``kv_cache`` (not
    every stream's KV cache at this context). Speeds are None when not one stream runs. ``verdict``: the
    configurator's for the same GPU, cards, model, format and context; ``setting``: what this run needs on its
    cards. ``gpu_layers``: the layers on the cards when llama.cpp leaves the others in host memory.
    ``first_token``: for a scenario that gives a request (``prompt_tokens``, ``output_tokens``), its time to first
    token among the streams running, which also slow its speeds at that concurrency (their prompts share the
    steps)."""

    id: str | None
    engine_class: str
    kv_cache_dtype: KvCacheDtype
    fits: bool
    reason: str | None
    to_fit: list[str]
    streams_that_fit: int
    streams_running: int
    streams_waiting: int
    note: str | None
    at_concurrency: Speeds | None
    at_full_load: Speeds | None
    verdict: str
    setting: str | None
    gpu_layers: int | None = None
    first_token: FirstToken | None = None


@dataclass(frozen=True)
class FirstToken:
    """The time to first token of the scenario's request among its streams: typically and at most (its slow tail)."""

    typical_seconds: float
    at_most_seconds: float


# --- ids ------------------------------------------------------------------------------------------------------
def check_id(catalog: Catalog, scenario: DecodeScenario, field: str) -> None:
    """Raises ScenarioError when ``field`` (gpu, model, precision, link) names what the catalog lacks. A link is
    checked against a known GPU only, a precision against a known model only."""
    if field == "gpu":
        gpu_record(catalog, scenario.gpu)
    elif field == "model":
        scenario_shape(catalog, scenario.model)
    elif field == "precision" and (not isinstance(scenario.model, str) or scenario.model in catalog.models):
        scenario_precision(catalog, scenario.precision, scenario.model)
    elif field == "link" and (not isinstance(scenario.gpu, str) or scenario.gpu in catalog.gpus):
        resolve_link(catalog, scenario.link, gpu_record(catalog, scenario.gpu), scenario.cards)


# --- the engine a scenario implies ----------------------------------------------------------------------------
def runs_on_llama_cpp(catalog: Catalog, precision: str | InlinePrecision | None) -> bool:
    """A GGUF format: a precisions.yml id that llama.cpp runs, or an inline precision whose id starts ``gguf``."""
    if isinstance(precision, InlinePrecision):
        return (precision.id or "").startswith("gguf")
    if precision is None or precision not in catalog.precisions:
        return False
    return catalog.engine_of(catalog.precisions[precision]).kind == "llama.cpp"


def with_implied_engine(catalog: Catalog, scenario: DecodeScenario) -> DecodeScenario:
    """A GGUF format runs on llama.cpp unless the scenario says otherwise."""
    if "engine_class" in scenario.model_fields_set or not runs_on_llama_cpp(catalog, scenario.precision):
        return scenario
    return scenario.model_copy(update={"engine_class": "llama.cpp"})


# --- one card's memory ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CardMemoryPlan:
    """Per card at a fit's setting: the budget, the weights, the engine's reserve and one stream's KV cache at the
    context asked."""

    budget: float
    weights: float
    reserve: float
    kv_per_stream: float

    @property
    def room_for_kv(self) -> float:
        return self.budget - self.weights - self.reserve


def card_plan(query: FitQuery, fit: Fit) -> CardMemoryPlan:
    """One card of ``fit.cards`` at the fit's setting (its budget, its lean reserve where it names one; every layer
    on the cards, where the fit leaves some in host memory), one stream's KV cache in the fit's precision at the
    context asked."""
    held = fit.need if fit.tight_by == "gpu_layers" else fit.tight_need or fit.need
    element = kv_element_bytes(query.catalog, fit.kv_cache_dtype)
    kv = kv_cache_bytes_per_card(
        query.checkpoint.model, query.context_tokens, 1, element, fit.cards, query.engine.parallelism
    )
    return CardMemoryPlan(fit.budget, held.weights, held.activations + held.overhead, kv)


def reason_not_fitting(plan: CardMemoryPlan, fitting: int, concurrency: int) -> str | None:
    if plan.weights > plan.budget:
        return "weights"
    if plan.room_for_kv <= 0:
        return "reserve"
    return "kv_cache" if fitting < concurrency else None


# --- what would make it fit -----------------------------------------------------------------------------------
def cards_that_hold_one_stream(query: FitQuery, cards: int) -> int | None:
    """The fewest cards beyond ``cards`` the engine can split the model over that hold one stream of the context
    at the default setting; None beyond ``MAX_CARDS_SUGGESTED``."""
    for k in (k for k in query.splits(MAX_CARDS_SUGGESTED) if k > cards):
        if query.need(k).total <= query.budget():
            return k
    return None


def longest_context_for(query: FitQuery, fit: Fit, room: float, streams: int) -> int:
    """The longest context at which ``streams`` streams' KV caches fit in ``room`` bytes per card (0 if none), at
    most the one asked."""
    element = kv_element_bytes(query.catalog, fit.kv_cache_dtype)
    model, parallelism = query.checkpoint.model, query.engine.parallelism
    return min(query.context_tokens, longest_context_within(model, room, streams, element, fit.cards, parallelism))


def smaller_formats(
    catalog: Catalog, scenario: DecodeScenario, plan: CardMemoryPlan, cards: int, architecture: str | None
) -> list[str]:
    """The formats of precisions.yml, run by the same engine, whose weights leave room for one stream of the
    context on these cards (a catalog model only)."""
    if not isinstance(scenario.model, str) or not isinstance(scenario.precision, (str, type(None))):
        return []
    model = catalog.models[scenario.model]
    chosen = scenario.precision or model.default_precision
    engine = catalog.engine_of(catalog.precisions[chosen])
    room = plan.budget - plan.reserve - plan.kv_per_stream
    shape = scenario_shape(catalog, scenario.model)
    return [
        p.id
        for p in catalog.precisions_for(model)
        if p.id != chosen
        and catalog.engine_of(p) is engine
        and weight_bytes_per_card(shape, scenario_precision(catalog, p.id, scenario.model), cards, architecture) <= room
    ]


def ways_to_fit(
    catalog: Catalog, scenario: DecodeScenario, query: FitQuery, fit: Fit, plan: CardMemoryPlan, fitting: int
) -> list[str]:
    """What would make every stream fit, each with its figure: more cards, a smaller format, fewer streams, a
    shorter context (``--max-model-len``, at least ``tight_min_context_tokens``), the KV cache in FP8."""
    concurrency, context = scenario.concurrency, query.context_tokens
    ways = []
    if plan.room_for_kv < plan.kv_per_stream:
        cards = cards_that_hold_one_stream(query, fit.cards)
        if cards is not None:
            ways.append(f"{cards} cards of this GPU hold the weights and one stream of {context:,} tokens")
        formats = smaller_formats(catalog, scenario, plan, fit.cards, query.gpu.architecture)
        if formats:
            ways.append(f"a smaller format on these cards: {', '.join(formats)}")
    if plan.room_for_kv > 0:
        if fitting >= 1:
            ways.append(f"at most {fitting} streams of {context:,} tokens at once")
        longest = longest_context_for(query, fit, plan.room_for_kv, concurrency)
        if longest >= catalog.assumptions.tight_min_context_tokens.value:
            flag = getattr(query.engine, "context_flag", None)
            at_most = f"{flag} {longest}: " if flag else ""
            ways.append(f"{at_most}{concurrency} streams fit at a context of at most {longest:,} tokens")
        if fit.kv_cache_dtype == "bf16" and query.engine.kind == "server":
            half, flag = plan.kv_per_stream / 2, catalog.server_engine.kv_cache_dtype_flag
            ways.append(
                f"{flag} fp8: {int(plan.room_for_kv // half)} streams of {context:,} tokens fit "
                "(the KV cache in 8 bits, at some cost in quality)"
            )
    return ways


def notes(running: int, concurrency: int, room_for_kv: float, setting: str | None) -> str | None:
    """What the figures assume beyond the scenario: the setting the run needs, and the streams that wait."""
    said = []
    if setting is not None:
        said.append(f"with {setting}, the setting these cards need")
    if room_for_kv <= 0:
        said.append("the weights fit but not the engine's reserve beside them")
    elif running < concurrency:
        said.append(
            f"{running} of the {concurrency} streams fit and run at once; the other {concurrency - running} wait "
            f"in the engine's queue, so the figures are those of {running} streams"
        )
    return "; ".join(said) or None


# --- speeds ---------------------------------------------------------------------------------------------------
def speeds_at(setup: DecodeSetup, streams: int) -> Speeds:
    typical = 1 / step_seconds(setup, streams).total
    return Speeds(streams, typical, typical * setup.constants.floor_factor)


# --- layers in host memory -----------------------------------------------------------------------------------
def answer_with_host_layers(
    catalog: Catalog, scenario: DecodeScenario, setup: DecodeSetup, verdict: Fit, setting: str | None
) -> Answer:
    """A llama.cpp run with layers in host memory: the streams it gives run when it names its layers
    (``gpu_layers``, ``cpu_moe_layers``); one at a time when the verdict chose them (the cards are full of
    layers)."""
    layers = setup.host_layers
    assert layers is not None
    named = scenario.gpu_layers is not None or scenario.cpu_moe_layers is not None
    running = scenario.concurrency if named else 1
    engine = next(e for e in catalog.engines.values() if isinstance(e, LlamaCppEngine))
    total = setup.model.layers
    where = [f"{min(layers.gpu_layers, total)} of the {total} layers on the cards"]
    if layers.cpu_moe_layers:
        first = min(layers.cpu_moe_layers, total)
        where.append(f"the routed experts of the first {first} in host memory ({engine.cpu_moe_flag.flag} {first})")
    said = [
        f"with {engine.gpu_layers_flag.flag} {layers.gpu_layers}: {', '.join(where)}; the rest read from host "
        f"memory at {layers.bandwidth_gbps:g} GB/s"
    ]
    if running < scenario.concurrency:
        said.append(f"one stream runs at a time; the other {scenario.concurrency - running} wait in the engine's queue")
    speeds = speeds_at(setup, running)
    return Answer(
        id=scenario.id,
        engine_class=scenario.engine_class,
        kv_cache_dtype=scenario.kv_cache_dtype,
        fits=True,
        reason=None,
        to_fit=[],
        streams_that_fit=running,
        streams_running=running,
        streams_waiting=scenario.concurrency - running,
        note="; ".join(said),
        at_concurrency=speeds,
        at_full_load=speeds,
        verdict=verdict.verdict.value,
        setting=setting,
        gpu_layers=layers.gpu_layers,
    )


# --- the answer -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """A scenario as the estimator runs it: its question, its cards as a node, the fit of exactly its cards (the
    setting they need) and the configurator's verdict for the same hardware."""

    scenario: DecodeScenario
    query: FitQuery
    node: NodeCards
    fit: Fit
    verdict: Fit

    @property
    def setup(self) -> DecodeSetup:
        """One decode step of the run at the context asked, at the fit's setting (its KV cache, its layers in host
        memory), with the scenario's prompt share; the layers the scenario names where it names them."""
        setup = replace(
            decode_setup(self.query, self.node, self.fit),
            context_tokens=self.query.context_tokens,
            prompt_tokens_per_output_token=self.scenario.prompt_tokens_per_output_token,
        )
        named = measured_setup(self.query.catalog, self.scenario).host_layers
        return setup if named is None else replace(setup, host_layers=named)


def run_of(catalog: Catalog, scenario: DecodeScenario) -> Run:
    """The scenario resolved once: raises ScenarioError for an unknown id or a question the model cannot answer."""
    scenario = with_implied_engine(catalog, scenario)
    query = scenario_query(catalog, scenario)
    window = query.checkpoint.max_context_tokens
    if window is not None and query.context_tokens > window:
        raise ScenarioError(
            f"context_tokens {query.context_tokens:,} exceed the model's window of {window:,} tokens "
            "(models.yml max_context_tokens, or the inline model's): ask for at most that"
        )
    node = scenario_node(catalog, scenario)
    return Run(scenario, query, node, fit_split(query, scenario.cards), fit_llm_on(query, scenario.cards))


def answer(catalog: Catalog, scenario: DecodeScenario) -> Answer:
    """Everything the estimator says about one scenario (raises ScenarioError for an unknown id)."""
    run = run_of(catalog, scenario)
    scenario, fit = run.scenario, run.fit
    setting = tight_setting(catalog, fit)
    setup = run.setup
    if setup.host_layers is not None:
        return answer_with_host_layers(catalog, scenario, setup, run.verdict, setting)
    plan = card_plan(run.query, fit)
    fitting = streams_that_fit(
        plan.budget, plan.weights, plan.reserve, plan.kv_per_stream, stream_cap(run.query, fit.max_num_seqs)
    )
    reason = reason_not_fitting(plan, fitting, scenario.concurrency)
    running = min(scenario.concurrency, fitting)
    at_concurrency = speeds_at(setup, running) if running else None
    first_token = None
    if scenario.prompt_tokens is not None and scenario.output_tokens is not None and running:
        load = estimate_ttft(
            setup,
            PrefillConstants.from_assumptions(catalog.assumptions),
            prompt_tokens=scenario.prompt_tokens,
            output_tokens=scenario.output_tokens,
            arrival=Arrival("closed", users=running),
            most_streams=stream_cap(run.query, fit.max_num_seqs),
        )
        first_token = FirstToken(load.ttft_seconds, load.ttft_at_most_seconds)
        typical = load.tokens_per_s_per_stream
        at_concurrency = Speeds(running, typical, typical * setup.constants.floor_factor)
    return Answer(
        id=scenario.id,
        engine_class=scenario.engine_class,
        kv_cache_dtype=fit.kv_cache_dtype,
        fits=reason is None,
        reason=reason,
        to_fit=[] if reason is None else ways_to_fit(catalog, scenario, run.query, fit, plan, fitting),
        streams_that_fit=fitting,
        streams_running=running,
        streams_waiting=scenario.concurrency - running,
        note=notes(running, scenario.concurrency, plan.room_for_kv, setting),
        at_concurrency=at_concurrency,
        at_full_load=speeds_at(setup, fitting) if fitting else None,
        verdict=run.verdict.verdict.value,
        setting=setting,
        first_token=first_token,
    )


def cell_setting(catalog: Catalog, fit: Fit) -> str | None:
    """The engine option a verdict needs (``--gpu-memory-utilization 0.95``), None at the defaults."""
    return tight_setting(catalog, fit) if fit.verdict is Verdict.TIGHT else None
