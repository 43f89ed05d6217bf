"""The shape of every file in data/, as pydantic models. Units are in the field names."""
from __future__ import annotations

import datetime
from typing import Annotated, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
Text = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]
Sources = Annotated[list[Text], Field(min_length=1)]
Positive = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]
Fraction = Annotated[float, Field(gt=0, le=1)]
Architecture = Literal["ampere", "ada", "hopper", "blackwell"]
ModelKind = Literal["llm", "diffusion"]


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- gpus.yml -------------------------------------------------------------------------------------
class Gpu(Record):
    id: Id
    name: Text
    short_name: Text
    architecture: Architecture
    form_factor: Literal["pcie", "sxm"]
    memory_gb: Positive
    memory_type: Text
    memory_bandwidth_gbps: Positive
    pcie_generation: Literal[4, 5]
    bf16_dense_tflops: Positive
    verified: Literal["sourced", "partly-sourced", "datasheet-unverified"]
    sources: Sources


class GpusFile(Record):
    gpus: Annotated[list[Gpu], Field(min_length=1)]


# --- interconnects.yml ----------------------------------------------------------------------------
class Interconnect(Record):
    id: Id
    name: Text
    family: Literal["pcie", "nvlink"]
    generation: PositiveInt
    per_direction_gbps: Positive
    both_directions_gbps: Positive
    sources: Sources

    @model_validator(mode="after")
    def _both_directions_is_twice_one(self) -> Interconnect:
        if abs(self.both_directions_gbps - 2 * self.per_direction_gbps) > 1e-9:
            raise ValueError(
                f"both_directions_gbps ({self.both_directions_gbps}) must be twice per_direction_gbps "
                f"({self.per_direction_gbps}): a link carries the same rate each way"
            )
        return self


class InterconnectsFile(Record):
    interconnects: Annotated[list[Interconnect], Field(min_length=1)]


# --- nodes.yml ------------------------------------------------------------------------------------
Topology = Literal["host", "bridged-pairs", "mesh", "nvswitch"]


class NodeLink(Record):
    interconnect: Id
    topology: Topology
    topo_label: Annotated[str, StringConstraints(pattern=r"^NV[0-9]+$")] | None = None
    peer_per_direction_gbps: Positive | None = None


class Price(Record):
    amount: Positive
    currency: Literal["USD"]


class Node(Record):
    id: Id
    gpu: Id
    cards: Annotated[int, Field(ge=1, le=8)]
    link: NodeLink
    price_per_month: Price


class NodesFile(Record):
    prices_as_of: datetime.date
    nodes: Annotated[list[Node], Field(min_length=1)]


# --- precisions.yml -------------------------------------------------------------------------------
class Precision(Record):
    id: Id
    name: Text
    bits_per_weight: Annotated[float, Field(gt=0, le=32)]
    keeps_embeddings_16bit: bool
    native_on: list[Architecture]
    applies_to: Annotated[list[ModelKind], Field(min_length=1)]
    sources: Sources


class PrecisionsFile(Record):
    precisions: Annotated[list[Precision], Field(min_length=1)]


# --- models.yml -----------------------------------------------------------------------------------
class MlaAttention(Record):
    type: Literal["mla"]
    kv_lora_rank: PositiveInt
    qk_rope_head_dim: PositiveInt


class SlidingAttention(Record):
    type: Literal["sliding"]
    window_tokens: PositiveInt
    global_layers: PositiveInt


class Llm(Record):
    id: Id
    name: Text
    family: Text | None = None
    hf: Text
    architecture: Literal["dense", "moe"]
    params: PositiveInt
    params_note: Text | None = None
    active_params: PositiveInt | None = None
    experts: PositiveInt | None = None
    experts_per_token: PositiveInt | None = None
    layers: PositiveInt
    hidden_size: PositiveInt
    attention_heads: PositiveInt
    kv_heads: PositiveInt
    head_dim: PositiveInt
    vocab_size: PositiveInt
    tie_word_embeddings: bool
    max_context_tokens: PositiveInt
    attention: Annotated[MlaAttention | SlidingAttention, Field(discriminator="type")] | None = None
    default_precision: Id = "bf16"
    sources: Sources

    @property
    def kind(self) -> ModelKind:
        return "llm"

    @property
    def is_moe(self) -> bool:
        return self.architecture == "moe"

    @property
    def params_read_per_token(self) -> int:
        """Parameters a decode step reads: all of them for a dense model, the active ones for MoE."""
        return self.active_params if self.active_params is not None else self.params

    @model_validator(mode="after")
    def _consistent(self) -> Llm:
        moe_fields = (self.active_params, self.experts, self.experts_per_token)
        if self.architecture == "moe" and None in moe_fields:
            raise ValueError("a moe model needs active_params, experts and experts_per_token")
        if self.architecture == "dense" and any(v is not None for v in moe_fields):
            raise ValueError("a dense model has no active_params, experts or experts_per_token")
        if self.active_params is not None and self.active_params >= self.params:
            raise ValueError(f"active_params ({self.active_params}) must be below params ({self.params})")
        if self.attention_heads % self.kv_heads:
            raise ValueError(
                f"attention_heads ({self.attention_heads}) must be a multiple of kv_heads ({self.kv_heads})"
            )
        if isinstance(self.attention, SlidingAttention) and self.attention.global_layers > self.layers:
            raise ValueError(f"attention.global_layers exceeds layers ({self.layers})")
        return self


class Component(Record):
    role: Literal["denoiser", "text_encoder", "vae"]
    name: Text
    params: PositiveInt


class Workload(Record):
    kind: Literal["image", "video"]
    width_px: PositiveInt
    height_px: PositiveInt
    frames: PositiveInt | None = None


class DiffusionModel(Record):
    id: Id
    name: Text
    family: Text | None = None
    hf: Text
    workload: Workload
    activation_reserve_gib: Positive
    activation_reason: Text
    components: Annotated[list[Component], Field(min_length=1)]
    default_precision: Id = "bf16"
    sources: Sources

    @property
    def kind(self) -> ModelKind:
        return "diffusion"

    @property
    def params(self) -> int:
        return sum(c.params for c in self.components)

    @model_validator(mode="after")
    def _one_denoiser(self) -> DiffusionModel:
        if [c.role for c in self.components].count("denoiser") != 1:
            raise ValueError("components must hold exactly one denoiser")
        return self


class ModelsFile(Record):
    llms: list[Llm]
    diffusion: list[DiffusionModel]


# --- assumptions.yml ------------------------------------------------------------------------------
T = TypeVar("T")


class Assumption(Record, Generic[T]):
    value: T
    reason: Text


class Assumptions(Record):
    decode_bandwidth_efficiency: Assumption[Fraction]
    usable_memory_fraction: Assumption[Fraction]
    runtime_visible_memory_fraction: Assumption[Fraction]
    activation_reserve_dense_gib: Assumption[Positive]
    activation_reserve_moe_gib: Assumption[Positive]
    runtime_overhead_single_card_gib: Assumption[Positive]
    runtime_overhead_split_gib: Assumption[Positive]
    kv_cache_bytes_per_element: Assumption[Positive]
    default_context_tokens: Assumption[PositiveInt]
    default_batch: Assumption[PositiveInt]
    hours_per_month: Assumption[PositiveInt]
    gradient_bytes_per_parameter: Assumption[Positive]
    allreduces_per_layer: Assumption[PositiveInt]
    context_presets_tokens: Assumption[Annotated[list[PositiveInt], Field(min_length=1)]]
    reading_words_per_minute_en: Assumption[PositiveInt]
    reading_words_per_minute_fr: Assumption[PositiveInt]
    reading_characters_per_minute_zh: Assumption[PositiveInt]


class AssumptionsFile(Record):
    assumptions: Assumptions


# --- measurements.yml -----------------------------------------------------------------------------
class DecodeMeasurement(Record):
    setup: Text
    cards: PositiveInt
    gpu: Id | None = None
    memory_bandwidth_gbps: Positive | None = None
    model: Id | None = None
    precision: Id | None = None
    weights_gb: Positive | None = None
    model_note: Text | None = None
    engine: Text
    tokens_per_s: Positive
    source: Text

    @model_validator(mode="after")
    def _enough_to_compute_a_floor(self) -> DecodeMeasurement:
        if self.gpu is None and self.memory_bandwidth_gbps is None:
            raise ValueError("name a catalog gpu or give memory_bandwidth_gbps")
        if self.weights_gb is None and (self.model is None or self.precision is None):
            raise ValueError("name a catalog model and precision, or give weights_gb")
        return self


class MeasurementsFile(Record):
    decode: Annotated[list[DecodeMeasurement], Field(min_length=1)]
