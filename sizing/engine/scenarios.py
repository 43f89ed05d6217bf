"""Decode scenarios: catalog ids or inline figures resolved into the engine's specs (``sizing.engine.specs``)."""

from __future__ import annotations

from dataclasses import replace

from sizing.catalog.errors import SizingError, did_you_mean
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import (
    LINK_KINDS,
    DecodeScenario,
    EngineClass,
    Gpu,
    InlineGpu,
    InlineLink,
    InlineLlm,
    InlinePrecision,
    Llm,
)
from sizing.engine.decode import DecodeConstants, DecodeSetup
from sizing.engine.deployment import NodeCards
from sizing.engine.fit import Engine, FitQuery, card_nvswitch_splits, kv_element_bytes, step_batch_tokens
from sizing.engine.links import link_spec, node_bus_link
from sizing.engine.specs import (
    Checkpoint,
    HostLayers,
    LinkSpec,
    LlmShape,
    PrecisionSpec,
    checkpoint_precision,
    gpu_spec,
    llm_shape,
    precision_spec,
)

NVLINK_TOPOLOGIES = {"nvlink": ("nvswitch", "mesh"), "nvlink-bridge": ("bridged-pairs",)}


class ScenarioError(SizingError):
    """A scenario names something the catalog lacks, or asks what the model cannot answer."""


def _unknown(field: str, value: str, table: str, choices: object) -> ScenarioError:
    return ScenarioError(f"unknown {field} '{value}' (not in {table}); {did_you_mean(value, choices)}")  # type: ignore[arg-type]


def gpu_record(catalog: Catalog, gpu: str | InlineGpu) -> Gpu | InlineGpu:
    if isinstance(gpu, InlineGpu):
        return gpu
    if gpu not in catalog.gpus:
        raise _unknown("gpu", gpu, "gpus.yml", catalog.gpus)
    return catalog.gpus[gpu]


def resolve_link(catalog: Catalog, link: str | InlineLink, gpu: Gpu | InlineGpu, cards: int) -> LinkSpec | None:
    """``none``/``pcie``/``nvlink``/``nvlink-bridge`` against the GPU's nodes, an interconnect id, or inline."""
    if isinstance(link, InlineLink):
        return LinkSpec(link.allreduce_latency_us, link.allreduce_busbw_gbps)
    if link == "none":
        if cards > 1:
            raise ScenarioError(
                f"link 'none' with {cards} cards: a split needs a link "
                f"({', '.join(k for k in LINK_KINDS if k != 'none')} or an interconnect id)"
            )
        return None
    if cards == 1:
        return None
    if link in catalog.interconnects:
        return link_spec(catalog.interconnects[link], gpu.peer_to_peer)
    if link not in LINK_KINDS:
        raise _unknown(
            "link", link, f"{', '.join(LINK_KINDS)} or interconnects.yml", [*LINK_KINDS, *catalog.interconnects]
        )
    if isinstance(gpu, InlineGpu):
        raise ScenarioError(
            f"link '{link}' on an inline gpu: name the interconnect instead, one of {', '.join(catalog.interconnects)}"
        )
    if link == "pcie":
        return link_spec(catalog.host_pcie_of(gpu), gpu.peer_to_peer)
    for topology in NVLINK_TOPOLOGIES[link]:
        joined = [n for n in catalog.nodes_of_gpu.get(gpu.id, ()) if n.link.topology == topology]
        if joined:
            largest = max(joined, key=lambda n: n.cards)
            if cards > largest.cards and topology != "bridged-pairs":  # pairs beyond two meet over PCIe
                raise ScenarioError(
                    f"link '{link}' joins at most {largest.cards} {gpu.id} cards in nodes.yml ({largest.id}); "
                    f"for {cards} cards name an interconnect id or give the link inline"
                )
            return link_spec(node_bus_link(catalog, largest, cards), gpu.peer_to_peer)
    offered = sorted(
        {
            k
            for k, tops in NVLINK_TOPOLOGIES.items()
            for n in catalog.nodes_of_gpu.get(gpu.id, ())
            if n.link.topology in tops
        }
    )
    raise ScenarioError(
        f"link '{link}': no {gpu.id} node in nodes.yml has it; use "
        f"{', '.join(['pcie', *offered])} or an interconnect id"
    )


def scenario_shape(catalog: Catalog, model: str | InlineLlm) -> LlmShape:
    if isinstance(model, InlineLlm):
        return LlmShape(
            params=model.params_b * 1e9,
            layers=model.layers,
            hidden_size=model.hidden_size,
            attention_heads=model.attention_heads or model.hidden_size // model.head_dim,
            kv_heads=model.kv_heads,
            head_dim=model.head_dim,
            vocab_size=model.vocab_size or 0,
            tie_word_embeddings=model.tie_word_embeddings,
            active_params=None if model.active_params_b is None else model.active_params_b * 1e9,
            routed_expert_params=None if model.routed_expert_params_b is None else model.routed_expert_params_b * 1e9,
            experts=model.experts,
            experts_per_token=model.experts_per_token,
            moe_layers=model.moe_layers,
            attention=model.attention,
        )
    llm = catalog.models.get(model)
    if llm is None:
        raise _unknown("model", model, "models.yml", catalog.models)
    if not isinstance(llm, Llm):
        raise ScenarioError(
            f"model '{model}' is an image or video model; decode speed is for language models: "
            f"{', '.join(m for m, v in catalog.models.items() if isinstance(v, Llm))}"
        )
    return llm_shape(llm)


def scenario_precision(
    catalog: Catalog, precision: str | InlinePrecision | None, model: str | InlineLlm
) -> PrecisionSpec:
    if isinstance(precision, InlinePrecision):
        return PrecisionSpec(
            precision.bits_per_weight,
            precision.keeps_embeddings_16bit,
            precision.expert_bits_per_weight,
            precision.compute_format,
        )
    if precision is None:
        precision = catalog.models[model].default_precision if isinstance(model, str) else "bf16"
    record = catalog.precisions.get(precision)
    if record is None or "llm" not in record.applies_to:
        valid = [p for p, r in catalog.precisions.items() if "llm" in r.applies_to]
        raise _unknown("precision", precision, "precisions.yml for language models", valid)
    known = catalog.models.get(model) if isinstance(model, str) else None
    return checkpoint_precision(known, record) if isinstance(known, Llm) else precision_spec(record)


def scenario_checkpoint(catalog: Catalog, scenario: DecodeScenario) -> Checkpoint:
    """The model in its format, with the longest context its makers advertise where known."""
    shape = scenario_shape(catalog, scenario.model)
    precision = scenario_precision(catalog, scenario.precision, scenario.model)
    model = catalog.models[scenario.model] if isinstance(scenario.model, str) else scenario.model
    assert isinstance(model, Llm | InlineLlm)  # scenario_shape refuses an image or video model
    return Checkpoint(shape, precision, model.max_context_tokens)


def engine_of_class(catalog: Catalog, engine_class: EngineClass) -> Engine:
    """The engines.yml profile a scenario's ``engine_class`` sizes memory with (its budget and reserve, as the
    fit verdicts do)."""
    return next(e for e in catalog.engines.values() if e.kind == engine_class)


def host_layers_asked(catalog: Catalog, scenario: DecodeScenario, model: LlmShape) -> HostLayers | None:
    """The layers a llama.cpp scenario keeps on its cards (``gpu_layers``; every layer and the output head when
    not given) and those whose routed experts it keeps in host memory (``cpu_moe_layers``), the rest read from
    host memory at ``host_memory_bandwidth_gbps`` (assumptions.yml's when not given); None when it names neither,
    or leaves nothing in host memory."""
    named = (scenario.gpu_layers, scenario.cpu_moe_layers, scenario.host_memory_bandwidth_gbps)
    if all(value is None for value in named):
        return None
    if scenario.engine_class != "llama.cpp":
        raise ScenarioError(
            "gpu_layers, cpu_moe_layers and host_memory_bandwidth_gbps describe llama.cpp's layers in host memory "
            "(--n-gpu-layers, --n-cpu-moe): give a GGUF precision or engine_class: llama.cpp"
        )
    if scenario.cpu_moe_layers is not None and not model.is_moe:
        raise ScenarioError(
            "cpu_moe_layers keeps the experts of a mixture-of-experts model in host memory (--n-cpu-moe); "
            "this model has none: use gpu_layers"
        )
    gpu_layers = model.layers + 1 if scenario.gpu_layers is None else scenario.gpu_layers
    cpu_moe_layers = scenario.cpu_moe_layers or 0
    if gpu_layers > model.layers and cpu_moe_layers == 0:
        return None
    return HostLayers(gpu_layers, host_bandwidth_gbps(catalog, scenario), cpu_moe_layers)


def host_bandwidth_gbps(catalog: Catalog, scenario: DecodeScenario) -> float:
    """The host's memory bandwidth the scenario gives, else that of a node's host (assumptions.yml)."""
    given = scenario.host_memory_bandwidth_gbps
    return catalog.assumptions.host_memory_bandwidth_gbps.value if given is None else given


def scenario_engine(catalog: Catalog, scenario: DecodeScenario) -> Engine:
    """The engine of the scenario's class; ScenarioError when the scenario's parallelism is not the engine's."""
    engine = engine_of_class(catalog, scenario.engine_class)
    if scenario.parallelism not in (None, engine.parallelism):
        raise ScenarioError(
            f"parallelism '{scenario.parallelism}' with engine_class '{scenario.engine_class}': {engine.name} "
            f"{'splits every layer (tensor)' if engine.parallelism == 'tensor' else 'shares out the layers (layers)'}"
            "; leave parallelism out"
        )
    precision = scenario.precision
    if precision is None and isinstance(scenario.model, str) and scenario.model in catalog.models:
        precision = catalog.models[scenario.model].default_precision
    if isinstance(precision, str) and precision in catalog.precisions:
        runs = [*engine.precisions, *engine.also_runs]
        if precision not in runs:
            raise ScenarioError(
                f"precision '{precision}' does not run on {engine.name} (engines.yml: {', '.join(runs)}); "
                f"use engine_class '{catalog.engine_of(catalog.precisions[precision]).kind}' or another precision"
            )
    elif isinstance(precision, InlinePrecision) and precision.compute_format == "fp8" and engine.kind == "llama.cpp":
        raise ScenarioError(f"{engine.name} has no FP8 kernels: give compute_format bf16 or engine_class 'server'")
    return engine


def scenario_query(catalog: Catalog, scenario: DecodeScenario) -> FitQuery:
    """What the verdict for the scenario's hardware is asked: its checkpoint run by the engine of its class on its
    GPU, at its context (the site's default unless given), the KV cache in its precision."""
    a = catalog.assumptions
    return FitQuery(
        catalog,
        scenario_checkpoint(catalog, scenario),
        scenario_engine(catalog, scenario),
        gpu_record(catalog, scenario.gpu),
        scenario_context_tokens(catalog, scenario),
        a.default_batch.value,
        scenario.kv_cache_dtype,
        scenario_nvswitch_splits(catalog, scenario),
    )


def scenario_context_tokens(catalog: Catalog, scenario: DecodeScenario) -> int:
    """The context each stream holds: as given, else a request's prompt and half its answer, else the site's
    default."""
    if scenario.context_tokens is not None:
        return scenario.context_tokens
    if scenario.prompt_tokens is not None and scenario.output_tokens is not None:
        return scenario.prompt_tokens + scenario.output_tokens // 2
    return catalog.assumptions.default_context_tokens.value


def scenario_nvswitch_splits(catalog: Catalog, scenario: DecodeScenario) -> frozenset[int]:
    """The card counts of the scenario whose split keeps the NVSwitch buffers: over ``nvlink`` or an NVLink
    interconnect, those an NVSwitch node of the catalog makes of its card; none over a bridge, PCIe or a link given
    by its figures."""
    link = scenario.link
    over_nvlink = link == "nvlink" or (
        isinstance(link, str) and link in catalog.interconnects and catalog.interconnects[link].family == "nvlink"
    )
    if not over_nvlink:
        return frozenset()
    return card_nvswitch_splits(catalog, gpu_record(catalog, scenario.gpu), scenario.cards)


def scenario_node(catalog: Catalog, scenario: DecodeScenario) -> NodeCards:
    """The scenario's cards as a node: its GPU, its card count, the link a split over k of them crosses and its
    host's memory bandwidth."""
    gpu = gpu_record(catalog, scenario.gpu)
    links = tuple(None if k < 2 else resolve_link(catalog, scenario.link, gpu, k) for k in range(scenario.cards + 1))
    if scenario.cards > 1 or scenario.link != "none":  # a split's link, or 'none' refused for a split
        resolve_link(catalog, scenario.link, gpu, scenario.cards)
    return NodeCards(gpu, scenario.cards, links, host_bandwidth_gbps(catalog, scenario))


def measured_setup(catalog: Catalog, scenario: DecodeScenario) -> DecodeSetup:
    """The decode setup of a run as it was measured: its own cards, context, KV cache, engine and layers in host
    memory, with no verdict deciding any of them (the accuracy checks compare it with the published speed)."""
    query = scenario_query(catalog, scenario)
    constants = replace(
        DecodeConstants.from_assumptions(catalog.assumptions),
        kv_cache_bytes_per_element=kv_element_bytes(catalog, scenario.kv_cache_dtype),
    )
    return DecodeSetup(
        gpu=gpu_spec(query.gpu),
        link=resolve_link(catalog, scenario.link, query.gpu, scenario.cards),
        model=query.checkpoint.model,
        precision=query.checkpoint.precision,
        cards=scenario.cards,
        parallelism=query.engine.parallelism,
        context_tokens=query.context_tokens,
        constants=constants,
        engine_class=scenario.engine_class,
        prompt_tokens_per_output_token=scenario.prompt_tokens_per_output_token,
        host_layers=host_layers_asked(catalog, scenario, query.checkpoint.model),
        batch_tokens=step_batch_tokens(query.engine, query.gpu, catalog),
    )
