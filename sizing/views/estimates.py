"""What ``python -m sizing.estimate`` answers for one scenario, with the rules the site applies: the streams
that run at the scenario's concurrency and how many wait, speeds at that concurrency and at full load, the
configurator's verdict and setting for the same hardware, and, when it does not fit, why and what would. A GGUF
model whose weights exceed its cards runs, as llama.cpp runs it, with the layers that do not fit in host memory
(``--n-gpu-layers``), one stream at a time, when the host's memory holds them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sizing.catalog.loader import Catalog
from sizing.catalog.schema import DecodeScenario, Gpu, InlineGpu, InlinePrecision, KvCacheDtype, LlamaCppEngine, Llm
from sizing.engine.decode import step_seconds, streams_that_fit
from sizing.engine.fit import (
    Fit,
    Verdict,
    batch_budget_on,
    card_budget,
    engine_reserve_bytes,
    engine_splits,
    fit_llm_on,
    host_memory_bytes,
    kv_element_bytes,
    tight_setting,
    with_max_num_seqs,
)
from sizing.engine.host_layers import layers_on_cards
from sizing.engine.memory import kv_cache_bytes_per_card, model_weight_bytes, weight_bytes
from sizing.engine.scenarios import (
    ResolvedScenario,
    engine_of_class,
    gpu_record,
    host_bandwidth_gbps,
    resolve,
    resolve_link,
    scenario_precision,
    scenario_shape,
)
from sizing.engine.specs import HostLayers
from sizing.engine.speeds import host_layers_of

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
    every stream's KV cache at this context). Speeds are None only when the weights do not fit. ``gpu_layers``: the
    layers on the cards when llama.cpp leaves the others in host memory."""

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
    verdict: str | None
    setting: str | None
    gpu_layers: int | None = None  # llama.cpp with layers in host memory: the layers on the cards


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
    """A GGUF format runs on llama.cpp, its cards taking turns, unless the scenario says otherwise."""
    if "engine_class" in scenario.model_fields_set or not runs_on_llama_cpp(catalog, scenario.precision):
        return scenario
    update: dict[str, str] = {"engine_class": "llama.cpp"}
    if "parallelism" not in scenario.model_fields_set:
        update["parallelism"] = "layers"
    return scenario.model_copy(update=update)


def with_kv_cache_dtype(catalog: Catalog, resolved: ResolvedScenario, dtype: KvCacheDtype) -> ResolvedScenario:
    """The resolved scenario with its KV cache kept in ``dtype``."""
    constants = replace(resolved.constants, kv_cache_bytes_per_element=kv_element_bytes(catalog, dtype))
    return replace(resolved, constants=constants)


# --- the configurator's cell ----------------------------------------------------------------------------------
def cell_fit(catalog: Catalog, scenario: DecodeScenario, context_tokens: int) -> Fit | None:
    """The verdict the configurator shows for this GPU, card count, model, format and context; None when the
    scenario gives inline figures (no cell shows them)."""
    if not isinstance(scenario.gpu, str) or not isinstance(scenario.model, str):
        return None
    model = catalog.models[scenario.model]
    if not isinstance(model, Llm) or isinstance(scenario.precision, InlinePrecision):
        return None
    precision = catalog.precisions[scenario.precision or model.default_precision]
    gpu = catalog.gpus[scenario.gpu]
    return fit_llm_on(
        catalog, model, precision, gpu, scenario.cards, context_tokens, kv_cache_dtype=scenario.kv_cache_dtype
    )


def scenario_budget(catalog: Catalog, gpu: Gpu | InlineGpu, scenario: DecodeScenario, fit: Fit | None) -> float:
    """What the engine may use per card: the default, or the tight setting where the verdict needs it."""
    engine = engine_of_class(catalog, scenario.engine_class)
    if fit is not None and fit.verdict is Verdict.TIGHT and fit.memory_utilization is not None:
        return card_budget(catalog, gpu, engine, fit.memory_utilization)
    return card_budget(catalog, gpu, engine)


# --- speeds ---------------------------------------------------------------------------------------------------
def speeds_at(resolved: ResolvedScenario, streams: int) -> Speeds:
    setup = resolved.setup() | {"concurrency": streams}
    typical = 1 / step_seconds(**setup).total  # type: ignore[arg-type]
    return Speeds(streams, typical, typical * resolved.constants.floor_factor)


# --- why it does not fit, and what would ----------------------------------------------------------------------
@dataclass(frozen=True)
class CardMemoryPlan:
    """Per card: the budget, the weights, the engine's reserve and one stream's KV cache at the context."""

    budget: float
    weights: float
    reserve: float
    kv_per_stream: float

    @property
    def room_for_kv(self) -> float:
        return self.budget - self.weights - self.reserve


def card_plan(
    catalog: Catalog,
    resolved: ResolvedScenario,
    gpu: Gpu | InlineGpu,
    budget: float,
    cards: int,
    max_num_seqs: int | None = None,
    cuda_graphs: bool = True,
) -> CardMemoryPlan:
    """The plan of one card of ``gpu`` when the model is spread over ``cards`` cards, the engine running at most
    ``max_num_seqs`` streams, and without CUDA graphs, where the verdict's setting says so."""
    engine = engine_of_class(catalog, resolved.engine_class)
    batch = catalog.assumptions.default_batch.value
    profiled = with_max_num_seqs(batch_budget_on(engine, gpu, catalog), max_num_seqs)
    reserve = sum(
        engine_reserve_bytes(engine, resolved.model, resolved.context_tokens, batch, cards, profiled, cuda_graphs)
    )
    kv = kv_cache_bytes_per_card(
        resolved.model,
        resolved.context_tokens,
        1,
        resolved.constants.kv_cache_bytes_per_element,
        cards,
        resolved.parallelism,
    )
    return CardMemoryPlan(budget, weight_bytes(resolved.model, resolved.precision) / cards, reserve, kv)


def reason_not_fitting(plan: CardMemoryPlan, fitting: int, concurrency: int) -> str | None:
    if plan.weights > plan.budget:
        return "weights"
    if plan.room_for_kv <= 0:
        return "reserve"
    return "kv_cache" if fitting < concurrency else None


def cards_that_hold_one_stream(
    catalog: Catalog, resolved: ResolvedScenario, gpu: Gpu | InlineGpu, budget: float
) -> int | None:
    """The fewest cards the engine can split the model over that hold one stream of the context; None beyond
    ``MAX_CARDS_SUGGESTED``."""
    engine = engine_of_class(catalog, resolved.engine_class)
    for cards in (k for k in engine_splits(engine, resolved.model, MAX_CARDS_SUGGESTED) if k > resolved.cards):
        plan = card_plan(catalog, resolved, gpu, budget, cards)
        if plan.room_for_kv >= plan.kv_per_stream:
            return cards
    return None


def longest_context_for(resolved: ResolvedScenario, room: float, streams: int) -> int:
    """The longest context at which ``streams`` streams' KV caches fit in ``room`` bytes per card (0 if none)."""

    def kv(tokens: int) -> float:
        return streams * kv_cache_bytes_per_card(
            resolved.model,
            tokens,
            1,
            resolved.constants.kv_cache_bytes_per_element,
            resolved.cards,
            resolved.parallelism,
        )

    low, high = 0, resolved.context_tokens
    while low < high:  # KV grows with the context: the last that fits, by bisection
        middle = (low + high + 1) // 2
        low, high = (middle, high) if kv(middle) <= room else (low, middle - 1)
    return low


def smaller_formats(catalog: Catalog, scenario: DecodeScenario, plan: CardMemoryPlan, cards: int) -> list[str]:
    """The formats of precisions.yml, run by the same engine, whose weights leave room for one stream of the
    context on these cards (a catalog model only)."""
    if not isinstance(scenario.model, str) or not isinstance(scenario.precision, (str, type(None))):
        return []
    model = catalog.models[scenario.model]
    chosen = scenario.precision or model.default_precision
    engine = catalog.engine_of(catalog.precisions[chosen])
    room = plan.budget - plan.reserve - plan.kv_per_stream
    return [
        p.id
        for p in catalog.precisions_for(model)
        if p.id != chosen and catalog.engine_of(p) is engine and model_weight_bytes(model, p) / cards <= room
    ]


def ways_to_fit(
    catalog: Catalog,
    scenario: DecodeScenario,
    resolved: ResolvedScenario,
    gpu: Gpu | InlineGpu,
    plan: CardMemoryPlan,
    fitting: int,
) -> list[str]:
    """What would make every stream fit, each with its figure."""
    concurrency, context = resolved.concurrency, resolved.context_tokens
    ways = []
    if plan.room_for_kv < plan.kv_per_stream:
        cards = cards_that_hold_one_stream(catalog, resolved, gpu, plan.budget)
        if cards is not None:
            ways.append(f"{cards} cards of this GPU hold the weights and one stream of {context:,} tokens")
        formats = smaller_formats(catalog, scenario, plan, resolved.cards)
        if formats:
            ways.append(f"a smaller format on these cards: {', '.join(formats)}")
    if plan.room_for_kv > 0:
        if fitting >= 1:
            ways.append(f"at most {fitting} streams of {context:,} tokens at once")
        longest = longest_context_for(resolved, plan.room_for_kv, concurrency)
        if longest > 0:
            ways.append(f"{concurrency} streams fit at a context of at most {longest:,} tokens")
        if scenario.kv_cache_dtype == "bf16" and resolved.engine_class == "server":
            half, flag = plan.kv_per_stream / 2, catalog.server_engine.kv_cache_dtype_flag
            ways.append(
                f"{flag} fp8: {int(plan.room_for_kv // half)} streams of {context:,} tokens fit "
                "(the KV cache in 8 bits, at some cost in quality)"
            )
    return ways


def notes(running: int, concurrency: int, room_for_kv: float, setting: str | None) -> str | None:
    """What the figures assume beyond the scenario: the setting the verdict needs, and the streams that wait."""
    said = []
    if setting is not None:
        said.append(f"with {setting}, the setting the configurator names for this fit")
    if room_for_kv <= 0:
        said.append("the weights fit but not the engine's reserve beside them: figures are for one stream")
    elif running < concurrency:
        said.append(
            f"{running} of the {concurrency} streams fit and run at once; the other {concurrency - running} wait "
            f"in the engine's queue, so the figures are those of {running} streams"
        )
    return "; ".join(said) or None


# --- layers in host memory -----------------------------------------------------------------------------------
def with_host_layers(
    catalog: Catalog,
    scenario: DecodeScenario,
    resolved: ResolvedScenario,
    gpu: Gpu | InlineGpu,
    fit: Fit | None,
    plan: CardMemoryPlan,
) -> ResolvedScenario:
    """The scenario with the layers llama.cpp leaves in host memory: those it gives (``gpu_layers``), else those
    of the configurator's verdict, else (inline figures) as many on the cards as fit when one stream does not,
    if the host's memory holds the rest; unchanged otherwise."""
    if resolved.host_layers is not None or resolved.engine_class != "llama.cpp":
        return resolved
    bandwidth = host_bandwidth_gbps(catalog, scenario)
    if fit is not None:
        return replace(resolved, host_layers=host_layers_of(fit, bandwidth))
    if plan.room_for_kv >= plan.kv_per_stream:
        return resolved
    kv_bytes_per_element = resolved.constants.kv_cache_bytes_per_element
    room = plan.budget - plan.reserve
    found = layers_on_cards(
        resolved.model, resolved.precision, resolved.cards, room, resolved.context_tokens, 1, kv_bytes_per_element
    )
    if found is None or found.host_bytes > host_memory_bytes(catalog, gpu, resolved.cards):
        return resolved
    return replace(resolved, host_layers=HostLayers(found.gpu_layers, bandwidth))


def answer_with_host_layers(
    catalog: Catalog, scenario: DecodeScenario, resolved: ResolvedScenario, fit: Fit | None
) -> Answer:
    """A llama.cpp run with layers in host memory: the streams it gives run when it names its layers
    (``gpu_layers``, ``cpu_moe_layers``); one at a time when the estimator chose them (the cards are full of
    layers)."""
    layers = resolved.host_layers
    assert layers is not None
    named = scenario.gpu_layers is not None or scenario.cpu_moe_layers is not None
    running = scenario.concurrency if named else 1
    engine = next(e for e in catalog.engines.values() if isinstance(e, LlamaCppEngine))
    total = resolved.model.layers
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
    speeds = speeds_at(resolved, running)
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
        verdict=None if fit is None else fit.verdict.value,
        setting=None if fit is None else cell_setting(catalog, fit),
        gpu_layers=layers.gpu_layers,
    )


# --- the answer -----------------------------------------------------------------------------------------------
def memory_of(
    catalog: Catalog, scenario: DecodeScenario, *, keep_kv_cache_dtype: bool = False
) -> tuple[DecodeScenario, ResolvedScenario, Fit | None, CardMemoryPlan]:
    """The scenario as the estimator runs it (the KV cache in FP8 where the verdict needs it, unless
    ``keep_kv_cache_dtype``), resolved, its verdict and the memory plan of one of its cards."""
    scenario = with_implied_engine(catalog, scenario)
    resolved = resolve(catalog, scenario)
    gpu = gpu_record(catalog, scenario.gpu)
    fit = cell_fit(catalog, scenario, resolved.context_tokens)
    if fit is not None and fit.tight_by == "kv_cache_dtype" and not keep_kv_cache_dtype:  # the verdict's setting
        scenario = scenario.model_copy(update={"kv_cache_dtype": "fp8"})
    resolved = with_kv_cache_dtype(catalog, resolved, scenario.kv_cache_dtype)
    few = None if fit is None else fit.max_num_seqs  # the verdict's setting: at most this many streams at once
    graphs = fit is None or fit.cuda_graphs
    plan = card_plan(catalog, resolved, gpu, scenario_budget(catalog, gpu, scenario, fit), resolved.cards, few, graphs)
    return scenario, resolved, fit, plan


def most_streams(resolved: ResolvedScenario, fit: Fit | None) -> int:
    """The most streams the engine runs at once: its cap, or the fewer the verdict's setting allows."""
    cap = resolved.constants.max_running_streams
    return cap if fit is None or fit.max_num_seqs is None else min(cap, fit.max_num_seqs)


def answer(catalog: Catalog, scenario: DecodeScenario) -> Answer:
    """Everything the estimator says about one scenario (raises ScenarioError for an unknown id)."""
    scenario, resolved, fit, plan = memory_of(catalog, scenario)
    gpu = gpu_record(catalog, scenario.gpu)
    resolved = with_host_layers(catalog, scenario, resolved, gpu, fit, plan)
    if resolved.host_layers is not None:
        return answer_with_host_layers(catalog, scenario, resolved, fit)
    fitting = streams_that_fit(plan.budget, plan.weights, plan.reserve, plan.kv_per_stream, most_streams(resolved, fit))
    reason = reason_not_fitting(plan, fitting, scenario.concurrency)
    running = 0 if reason == "weights" else max(1, min(scenario.concurrency, fitting))
    setting = None if fit is None else cell_setting(catalog, fit)
    return Answer(
        id=scenario.id,
        engine_class=scenario.engine_class,
        kv_cache_dtype=scenario.kv_cache_dtype,
        fits=reason is None,
        reason=reason,
        to_fit=[] if reason is None else ways_to_fit(catalog, scenario, resolved, gpu, plan, fitting),
        streams_that_fit=fitting,
        streams_running=running,
        streams_waiting=scenario.concurrency - running if running else 0,
        note=notes(running, scenario.concurrency, plan.room_for_kv, setting) if running else None,
        at_concurrency=speeds_at(resolved, running) if running else None,
        at_full_load=speeds_at(resolved, max(1, fitting)) if running else None,
        verdict=None if fit is None else fit.verdict.value,
        setting=setting,
    )


def cell_setting(catalog: Catalog, fit: Fit) -> str | None:
    """The engine option the verdict needs (``--gpu-memory-utilization 0.95``), None at the defaults."""
    return tight_setting(catalog, fit) if fit.verdict is Verdict.TIGHT else None
