"""The shape of every file in data/, as pydantic models. Units are in the field names."""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)


def _one_line(text: str) -> str:
    """Text from data/ reaches readers as text: one line, no control character."""
    for character in text:
        if character < " " or character == "\x7f":
            raise ValueError(
                f"text without line breaks or control characters (this one holds U+{ord(character):04X}): "
                "write it on one line"
            )
    return text


def _brackets_closed(text: str) -> str:
    """A bracket opened in a text is closed: YAML ends an unquoted value at `` #`` (a comment), so
    ``engine: llama.cpp (after PR #15157)`` reads as ``llama.cpp (after PR``."""
    if text.count("(") > text.count(")"):
        raise ValueError(
            "text whose brackets close (this one opens more than it closes): an unquoted ' #' starts a YAML comment "
            "and cuts the text there; put the whole text in quotes"
        )
    return text


def within(low: float, high: float, what: str) -> AfterValidator:
    """A figure is plausible or refused: from ``low`` to ``high`` (``what`` says of what, with its unit), so
    that a typo of a few orders of magnitude stops the build naming the range instead of printing nonsense."""

    def check(value: float) -> float:
        if not low <= value <= high:
            raise ValueError(f"{what} from {low:,g} to {high:,g}")
        return value

    return AfterValidator(check)


def _recent(date: datetime.date) -> datetime.date:
    """A date of the catalog lies within a few years of today: not year 1, not a typo of the century."""
    today = datetime.date.today()
    earliest, latest = today.replace(year=today.year - RECENT_YEARS), today.replace(year=today.year + 1)
    if not earliest <= date <= latest:
        raise ValueError(f"a date from {earliest.isoformat()} to {latest.isoformat()} (within {RECENT_YEARS} years)")
    return date


RECENT_YEARS = 5
Id = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=100)]
Text = Annotated[
    str,
    StringConstraints(min_length=1, max_length=2000, strip_whitespace=True),
    AfterValidator(_one_line),
    AfterValidator(_brackets_closed),
]
Sources = Annotated[list[Text], Field(min_length=1)]
Positive = Annotated[float, Field(gt=0)]
NonNegative = Annotated[float, Field(ge=0)]
PositiveInt = Annotated[int, Field(gt=0)]
Fraction = Annotated[float, Field(gt=0, le=1)]
Architecture = Literal["ampere", "ada", "hopper", "blackwell"]
RecentDate = Annotated[datetime.date, AfterValidator(_recent)]
# Plausible ranges, wide around today's hardware and models (a card of 4 GB to 1 TB, a link of 1 GB/s to 2 TB/s
# each way, a model of 100 million to 10 trillion parameters): what falls outside is a typo
GigaBytes = Annotated[Positive, within(4, 1024, "GB of card memory")]
MemoryBandwidth = Annotated[Positive, within(100, 20_000, "GB/s of memory bandwidth")]
Teraflops = Annotated[Positive, within(10, 40_000, "dense TFLOPS")]
MebiBytes = Annotated[PositiveInt, within(4 * 1024, 1024 * 1024, "MiB of card memory")]
LinkGbps = Annotated[Positive, within(1, 2_000, "GB/s each way (PCIe 3 x4 to NVLink 5 and beyond)")]
LatencyUs = Annotated[Positive, within(1, 10_000, "microseconds")]
Parameters = Annotated[PositiveInt, within(100_000_000, 10_000_000_000_000, "parameters")]
Dimension = Annotated[PositiveInt, within(1, 1_000_000, "a model dimension")]
ContextTokens = Annotated[PositiveInt, within(512, 100_000_000, "tokens of context")]
Gib = Annotated[NonNegative, within(0, 1024, "GiB")]
PerMonthUsd = Annotated[Positive, within(1, 10_000_000, "a monthly price")]
ModelKind = Literal["llm", "diffusion"]


class Record(BaseModel):
    # no infinity or NaN in a figure; no true/false where a number is expected (YAML reads yes/no as booleans)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)


# --- gpus.yml -------------------------------------------------------------------------------------
class Gpu(Record):
    id: Id
    name: Text
    short_name: Text
    architecture: Architecture
    form_factor: Literal["pcie", "sxm"]
    memory_gb: GigaBytes
    memory_type: Text
    memory_bandwidth_gbps: MemoryBandwidth
    pcie_generation: Literal[4, 5]
    bf16_dense_tflops: Teraflops
    fp8_dense_tflops: Teraflops | None
    peer_to_peer: bool
    nvidia_smi_memory_mib: MebiBytes
    runtime_visible_memory_mib: MebiBytes
    runtime_visible_memory_basis: Literal["measured", "inferred"]
    verified: Literal["sourced", "partly-sourced", "datasheet-unverified"]
    sources: Sources

    @model_validator(mode="after")
    def _fp8_units_match_the_architecture(self) -> Gpu:
        if (self.architecture == "ampere") != (self.fp8_dense_tflops is None):
            raise ValueError(
                "fp8_dense_tflops is null exactly for ampere cards (no FP8 tensor cores); "
                f"found {self.fp8_dense_tflops!r} on {self.architecture}"
            )
        return self

    @model_validator(mode="after")
    def _visible_memory_below_nominal(self) -> Gpu:
        nominal_mib = self.memory_gb * 1024
        if not self.runtime_visible_memory_mib < self.nvidia_smi_memory_mib <= nominal_mib:
            raise ValueError(
                f"expected runtime_visible_memory_mib ({self.runtime_visible_memory_mib}) < "
                f"nvidia_smi_memory_mib ({self.nvidia_smi_memory_mib}) <= memory_gb x 1024 ({nominal_mib:g}): "
                "CUDA sees less than nvidia-smi, which shows at most the vendor figure"
            )
        if self.runtime_visible_memory_mib < 0.85 * nominal_mib:
            raise ValueError(
                f"runtime_visible_memory_mib ({self.runtime_visible_memory_mib}) is below 0.85 of "
                f"memory_gb x 1024 ({nominal_mib:g}): give it in MiB (2^20 bytes)"
            )
        return self


class GpusFile(Record):
    gpus: Annotated[list[Gpu], Field(min_length=1)]


# --- interconnects.yml ----------------------------------------------------------------------------
Topology = Literal["host", "bridged-pairs", "mesh", "nvswitch"]


class AllreduceRun(Record):
    """One published nccl-tests all_reduce_perf result: large-message bus bandwidth on ``cards`` of ``gpu``."""

    gpu: Id
    cards: Annotated[int, Field(ge=2, le=8)]
    busbw_gbps: LinkGbps
    source: Text


class HealthyAllreduce(Record):
    """What a healthy node of one family (link, topology, peer-to-peer) reaches in all_reduce_perf: the range
    of its published runs."""

    topology: Topology
    peer_to_peer: bool = True  # false: GeForce cards, whose collectives are staged through host memory
    runs: Annotated[list[AllreduceRun], Field(min_length=1)]

    @property
    def low_gbps(self) -> float:
        return min(run.busbw_gbps for run in self.runs)

    @property
    def high_gbps(self) -> float:
        return max(run.busbw_gbps for run in self.runs)


class FigureOrigin(Record):
    """Where a link figure comes from: ``measured`` on this link (``reference``: the run), ``copied`` from
    another link's figure (``from_link``) or from a published model (``reference``), or ``derived`` from another
    link's figures (``from_link``) by the rule its sources state."""

    basis: Literal["measured", "derived", "copied"]
    reference: Annotated[str, StringConstraints(pattern=r"^[\w.-]+/[\w.-]+(?: PR)? ?#\d+$")] | None = None
    from_link: Id | None = None

    @model_validator(mode="after")
    def _says_where(self) -> FigureOrigin:
        if self.basis == "measured" and self.reference is None:
            raise ValueError("a measured figure names its run: reference (owner/repo#number)")
        if self.basis != "measured" and self.from_link is None and self.reference is None:
            raise ValueError(f"a {self.basis} figure names where it comes from: from_link or reference")
        return self


class FigureOrigins(Record):
    """The origin of each all-reduce figure of a link (the speed page shows them)."""

    allreduce_latency_us: FigureOrigin
    allreduce_busbw_gbps: FigureOrigin


class Interconnect(Record):
    id: Id
    name: Text
    family: Literal["pcie", "nvlink"]
    generation: Annotated[PositiveInt, within(1, 8, "a link generation")]
    per_direction_gbps: LinkGbps
    both_directions_gbps: Annotated[Positive, within(2, 4_000, "GB/s both ways")]
    allreduce_latency_us: LatencyUs
    allreduce_busbw_gbps: LinkGbps
    host_staged_allreduce_latency_us: LatencyUs | None = None
    host_staged_allreduce_busbw_gbps: LinkGbps | None = None
    healthy_allreduce: list[HealthyAllreduce] = []
    figure_origins: FigureOrigins
    sources: Sources

    @field_validator("per_direction_gbps")
    @classmethod
    def _rate_of_its_family(cls, rate: float, info: ValidationInfo) -> float:
        family = str(info.data.get("family"))
        low, high = LINK_RATES_GBPS.get(family, (0.0, float("inf")))
        if not low <= rate <= high:
            raise ValueError(f"GB/s each way of a {family} link from {low:g} to {high:g}")
        return rate

    @model_validator(mode="after")
    def _both_directions_is_twice_one(self) -> Interconnect:
        if abs(self.both_directions_gbps - 2 * self.per_direction_gbps) > 1e-9:
            raise ValueError(
                f"both_directions_gbps ({self.both_directions_gbps}) must be twice per_direction_gbps "
                f"({self.per_direction_gbps}): a link carries the same rate each way"
            )
        if self.allreduce_busbw_gbps > self.per_direction_gbps:
            raise ValueError(
                f"allreduce_busbw_gbps ({self.allreduce_busbw_gbps}) cannot exceed the line rate "
                f"per_direction_gbps ({self.per_direction_gbps})"
            )
        host_staged = (self.host_staged_allreduce_latency_us, self.host_staged_allreduce_busbw_gbps)
        staged_wrong = None in host_staged if self.family == "pcie" else host_staged != (None, None)
        if staged_wrong:
            raise ValueError(
                "host_staged_allreduce_latency_us and host_staged_allreduce_busbw_gbps are given "
                "together, for pcie links only (cards without peer-to-peer copy through the host)"
            )
        return self

    @model_validator(mode="after")
    def _one_healthy_range_per_family(self) -> Interconnect:
        families = [(h.topology, h.peer_to_peer) for h in self.healthy_allreduce]
        if len(set(families)) != len(families):
            raise ValueError("healthy_allreduce gives one entry per topology and peer_to_peer: merge the runs")
        if self.family == "nvlink" and not all(peer for _, peer in families):
            raise ValueError("healthy_allreduce with peer_to_peer: false is for pcie links only")
        return self


# What a link of each family carries each way: PCIe Gen3 x4 to Gen7 x16; an NVLink bridge of one link to NVLink 5
# and beyond
LINK_RATES_GBPS = {"pcie": (3.0, 256.0), "nvlink": (20.0, 2_000.0)}


class InterconnectsFile(Record):
    interconnects: Annotated[list[Interconnect], Field(min_length=1)]


# --- nodes.yml ------------------------------------------------------------------------------------


class NodeLink(Record):
    interconnect: Id
    topology: Topology
    topo_label: Annotated[str, StringConstraints(pattern=r"^NV[0-9]+$")] | None = None
    topo_label_inferred: bool = False  # expected, not yet seen in a `nvidia-smi topo -m` of this hardware
    topo_label_note: Text | None = None  # why it is expected (required when inferred)
    peer_per_direction_gbps: LinkGbps | None = None

    @model_validator(mode="after")
    def _inferred_label_says_why(self) -> NodeLink:
        if self.topo_label_inferred and (self.topo_label is None or self.topo_label_note is None):
            raise ValueError("an inferred topo_label needs the label and a topo_label_note saying why it is expected")
        if self.topo_label_note is not None and not self.topo_label_inferred:
            raise ValueError("topo_label_note is for an inferred topo_label (topo_label_inferred: true)")
        return self


class Price(Record):
    amount: PerMonthUsd
    currency: Literal["USD"]


class Node(Record):
    id: Id
    gpu: Id
    cards: Annotated[int, Field(ge=1, le=8)]
    link: NodeLink
    price_per_month: Price


class NodesFile(Record):
    prices_as_of: RecentDate
    nodes: Annotated[list[Node], Field(min_length=1)]


# --- precisions.yml -------------------------------------------------------------------------------
class Precision(Record):
    """A weight format. ``expert_bits_per_weight``: the routed experts' bits where they differ from the rest (MXFP4);
    ``expert_intermediate_multiple``: by the card's architecture (the kernel the engine runs there), the multiple each
    card's share of an expert's intermediate size is padded up to; ``models``: the only models published in this
    format (None: every model it applies to)."""

    id: Id
    name: Text
    bits_per_weight: Annotated[Positive, within(1, 32, "bits per weight")]
    expert_bits_per_weight: Annotated[Positive, within(1, 32, "bits per weight")] | None = None
    expert_intermediate_multiple: dict[Architecture, Annotated[PositiveInt, within(1, 4_096, "a width multiple")]] = {}
    keeps_embeddings_16bit: bool
    compute_format: Literal["bf16", "fp8"] = "bf16"
    native_on: list[Architecture]
    applies_to: Annotated[list[ModelKind], Field(min_length=1)]
    models: Annotated[list[Id], Field(min_length=1)] | None = None
    sources: Sources


class PrecisionsFile(Record):
    precisions: Annotated[list[Precision], Field(min_length=1)]


# --- models.yml -----------------------------------------------------------------------------------
class MlaAttention(Record):
    type: Literal["mla"]
    kv_lora_rank: Dimension
    qk_rope_head_dim: Dimension


class SlidingAttention(Record):
    type: Literal["sliding"]
    window_tokens: Dimension
    global_layers: Dimension


class HybridAttention(Record):
    """Mamba-hybrid (Nemotron-H): each layer is one mixer (Mamba, attention or MoE); ``kv_layers`` hold a KV cache."""

    type: Literal["hybrid"]
    kv_layers: PositiveInt


def routed_expert_params_problem(routed: float | None, params: float, experts: int | None, field: str) -> str | None:
    """What makes a model card's count of routed-expert parameters unusable: it needs the experts it counts and
    must leave room for the rest of the model (attention, embeddings)."""
    if routed is None:
        return None
    if experts is None:
        return f"{field} needs experts and experts_per_token (a moe model)"
    if routed >= params:
        return f"{field} ({routed}) must be below the model's parameters ({params})"
    return None


def shape_problems(
    layers: int,
    attention_heads: int,
    kv_heads: int,
    attention: MlaAttention | SlidingAttention | HybridAttention | None,
    moe_layers: int | None,
) -> list[str]:
    """What makes a language model's shape impossible; one rule for models.yml and for a scenario's inline
    model, so the estimator never sizes a model the catalog would refuse."""
    found = []
    if attention_heads % kv_heads:
        found.append(f"attention_heads ({attention_heads}) must be a multiple of kv_heads ({kv_heads})")
    if isinstance(attention, SlidingAttention) and attention.global_layers > layers:
        found.append(f"attention.global_layers ({attention.global_layers}) exceeds layers ({layers})")
    if isinstance(attention, HybridAttention) and attention.kv_layers > layers:
        found.append(f"attention.kv_layers ({attention.kv_layers}) exceeds layers ({layers})")
    if moe_layers is not None and moe_layers > layers:
        found.append(f"moe_layers ({moe_layers}) exceeds layers ({layers})")
    return found


class KeptIn16Bit(Record):
    """Parameters of a model's checkpoint in some format that its makers left in 16 bits beyond the embeddings and
    the output head (Meta's Llama 3.1 405B FP8 keeps its attention and its first and last layers in BF16)."""

    params: Parameters
    source: Text


class Llm(Record):
    id: Id
    name: Text
    family: Text | None = None
    hf: Text
    architecture: Literal["dense", "moe"]
    params: Parameters
    params_note: Text | None = None
    active_params: Parameters | None = None
    routed_expert_params: Parameters | None = None
    experts: Dimension | None = None
    experts_per_token: Dimension | None = None
    expert_intermediate_size: Dimension | None = None  # one expert's MLP width (config.json), where a format pads it
    moe_layers: Dimension | None = None
    layers: Annotated[PositiveInt, within(1, 2_000, "layers")]
    hidden_size: Dimension
    attention_heads: Dimension
    kv_heads: Dimension
    head_dim: Annotated[PositiveInt, within(8, 4_096, "a head dimension")]
    vocab_size: Annotated[PositiveInt, within(1_000, 10_000_000, "vocabulary entries")]
    tie_word_embeddings: bool
    max_context_tokens: ContextTokens
    attention: Annotated[MlaAttention | SlidingAttention, Field(discriminator="type")] | None = None
    default_precision: Id = "bf16"
    precisions: Annotated[list[Id], Field(min_length=1)] | None = None  # published only in these formats
    kept_16bit: dict[Id, KeptIn16Bit] = {}  # by format: parameters its checkpoint leaves in 16 bits
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
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) exceeds experts ({self.experts})")
        if self.moe_layers is not None and self.architecture != "moe":
            raise ValueError("moe_layers is for moe models only")
        if self.expert_intermediate_size is not None and self.architecture != "moe":
            raise ValueError("expert_intermediate_size is for moe models only")
        routed_problem = routed_expert_params_problem(
            self.routed_expert_params, self.params, self.experts, "routed_expert_params"
        )
        if routed_problem:
            raise ValueError(routed_problem)
        problems = shape_problems(self.layers, self.attention_heads, self.kv_heads, self.attention, self.moe_layers)
        if problems:
            raise ValueError("; ".join(problems))
        return self


class Component(Record):
    role: Literal["denoiser", "text_encoder", "vae"]
    name: Text
    params: Annotated[PositiveInt, within(1_000_000, 10_000_000_000_000, "parameters")]


Pixels = Annotated[PositiveInt, within(64, 16_384, "pixels")]


class Workload(Record):
    kind: Literal["image", "video"]
    width_px: Pixels
    height_px: Pixels
    frames: Annotated[PositiveInt, within(1, 100_000, "frames")] | None = None


class DiffusionModel(Record):
    id: Id
    name: Text
    family: Text | None = None
    hf: Text
    workload: Workload
    activation_reserve_gib: Annotated[Positive, within(0.01, 1024, "GiB")]
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


class FittedAssumption(Assumption[T], Generic[T]):
    """A constant fitted on decode measurements: ``fitted_on`` lists the ids in measurements.yml it was fitted on."""

    fitted_on: Annotated[list[Id], Field(min_length=1)]


HostBandwidthGbps = Annotated[Positive, within(5, 2_000, "GB/s (one DDR4 channel to 24 DDR5 channels)")]
CardShare = Annotated[Fraction, within(0.5, 1, "a share of the card")]
VisibleShare = Annotated[Fraction, within(0.8, 1, "a share of the card")]
BandwidthShare = Annotated[Fraction, within(0.1, 1, "a share of the memory bandwidth")]
ComputeShare = Annotated[Fraction, within(0.05, 1, "a share of the compute")]
FloorShare = Annotated[Fraction, within(0.2, 1, "a share of the typical speed")]


StepSeconds = Annotated[NonNegative, within(0, 0.01, "seconds")]


class Assumptions(Record):
    usable_memory_fraction: Assumption[CardShare]
    runtime_visible_memory_fraction: Assumption[VisibleShare]
    tight_min_context_tokens: Assumption[ContextTokens]
    runtime_overhead_single_card_gib: Assumption[Annotated[Positive, within(0.01, 64, "GiB")]]
    runtime_overhead_split_gib: Assumption[Annotated[Positive, within(0.01, 64, "GiB")]]
    pipeline_offload_setting: Assumption[Annotated[str, Field(min_length=1, max_length=80)]]
    pipeline_partial_load_setting: Assumption[Annotated[str, Field(min_length=1, max_length=80)]]
    kv_cache_bytes_per_element: Assumption[Annotated[Positive, within(0.5, 4, "bytes per element")]]
    default_context_tokens: Assumption[ContextTokens]
    default_batch: Assumption[Annotated[PositiveInt, within(1, 4_096, "streams")]]
    hours_per_month: Assumption[Annotated[PositiveInt, within(672, 744, "hours in a month")]]
    allreduces_per_layer: Assumption[Annotated[PositiveInt, within(1, 8, "all-reduces per layer")]]
    context_presets_tokens: Assumption[Annotated[list[ContextTokens], Field(min_length=1, max_length=16)]]
    decode_bandwidth_fraction_server: FittedAssumption[BandwidthShare]
    decode_bandwidth_fraction_llama_cpp: FittedAssumption[BandwidthShare]
    decode_compute_fraction: Assumption[ComputeShare]
    decode_combine_exponent: FittedAssumption[Annotated[Positive, within(1, 16, "an exponent")]]
    decode_sublayer_seconds: FittedAssumption[StepSeconds]
    decode_sublayer_seconds_llama_cpp: FittedAssumption[StepSeconds]
    decode_moe_sublayer_extra_seconds: FittedAssumption[StepSeconds]
    decode_mla_sublayer_extra_seconds: FittedAssumption[StepSeconds]
    decode_step_host_seconds_server: FittedAssumption[Annotated[NonNegative, within(0, 1, "seconds")]]
    decode_step_host_seconds_llama_cpp: FittedAssumption[Annotated[NonNegative, within(0, 1, "seconds")]]
    decode_floor_factor: FittedAssumption[FloorShare]
    decode_bandwidth_fraction_host: FittedAssumption[BandwidthShare]
    decode_host_crossing_seconds: FittedAssumption[StepSeconds]
    host_memory_per_card_memory: Assumption[Annotated[Positive, within(0.5, 16, "times the cards' memory")]]
    host_memory_reserved_gib: Assumption[Gib]
    host_memory_bandwidth_gbps: Assumption[HostBandwidthGbps]
    layout_tie_share: Assumption[Annotated[Fraction, within(0, 0.5, "a share of the tokens per second")]]
    prefill_compute_fraction: FittedAssumption[ComputeShare]
    prefill_compute_fraction_llama_cpp: FittedAssumption[ComputeShare]
    prefill_request_seconds_server: FittedAssumption[Annotated[NonNegative, within(0, 1, "seconds")]]
    prefill_frontend_seconds_server: FittedAssumption[Annotated[NonNegative, within(0, 1, "seconds")]]
    prefill_attention_score_bytes_llama_cpp: FittedAssumption[Annotated[NonNegative, within(0, 64, "bytes")]]
    max_prompt_peak_share: Assumption[Annotated[Fraction, within(0.05, 1, "a share of the peak")]]
    ttft_ceiling_factor: FittedAssumption[Annotated[Positive, within(1, 10, "a factor")]]


class AssumptionsFile(Record):
    assumptions: Assumptions


# --- engines.yml ----------------------------------------------------------------------------------
class Figure(Record, Generic[T]):
    """A figure of an engine profile with where it comes from."""

    value: T
    source: Text


class FittedFigure(Figure[T], Generic[T]):
    """A figure fitted on start-ups: ``fitted_on`` lists the ids of measurements.yml ``memory`` records its fit reads
    (written by bench/fit_memory_model.py)."""

    fitted_on: Annotated[list[Id], Field(min_length=1)]


class BatchDefaults(Record):
    tokens: Annotated[PositiveInt, within(1, 1_000_000, "tokens")]
    sequences: Annotated[PositiveInt, within(1, 65_536, "sequences")]


class BatchBudgetRule(Record):
    """vLLM's default batch by card class (``EngineArgs.get_batch_defaults``, ``vllm serve``): the larger one on
    cards of at least ``large_card_min_gib`` whose name contains none of ``large_card_excluded_names``."""

    large_card_min_gib: Annotated[Positive, within(1, 1024, "GiB")]
    large_card_excluded_names: list[Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]+$")]]
    large_card: BatchDefaults
    other_cards: BatchDefaults
    source: Text


class SourcedFlag(Record):
    """An engine option as typed, with why the site may name it."""

    flag: Text
    source: Text


VersionText = Annotated[str, StringConstraints(pattern=r"^[0-9]+\.[0-9]+$")]


class SwitchBuffers(Record):
    """What a split across an NVSwitch board keeps on each card beside the NCCL buffers, on cards of
    ``architectures`` (NCCL's NVLink SHARP needs Hopper or later)."""

    value: Gib
    architectures: Annotated[list[Architecture], Field(min_length=1)]
    source: Text
    fitted_on: Annotated[list[Id], Field(min_length=1)]


class EarlierRelease(Record):
    """Figures of a server engine's reserve that earlier releases had: those before ``before`` (a vLLM version,
    "0.11"), or vLLM's V0 engine (``v0``: its own default batch on every card). A memory record of such a release
    is judged by them; the site sizes the current release."""

    name: Text
    before: VersionText | None = None
    v0: bool = False
    sampler_bytes_per_vocab_entry: Annotated[Positive, within(1, 256, "bytes")]
    activation_base_gib: Gib
    activation_moe_extra_gib: Gib
    nccl_buffers_gib: Gib
    nvswitch_buffers_gib: Gib
    batch_budget: BatchBudgetRule | None = None
    # without chunked prefill, the whole context is one batch: profiled whole up to this many tokens
    whole_context_batch_up_to: Annotated[PositiveInt, within(1, 10_000_000, "tokens")] | None = None
    source: Text

    @model_validator(mode="after")
    def _names_which_releases(self) -> EarlierRelease:
        if (self.before is None) == (not self.v0):
            raise ValueError("an earlier release is either the releases before a version (before) or V0 (v0: true)")
        return self


class ServerEngine(Record):
    """vLLM, SGLang: a utilization cap (assumptions.yml usable_memory_fraction by default), an activation peak
    profiled on one batch of the card's class (not shrinking with tensor parallelism), memory outside PyTorch,
    NCCL buffers when split, CUDA graphs (sizing.engine.reserve)."""

    id: Id
    kind: Literal["server"]
    name: Text
    parallelism: Literal["tensor"]
    utilization_flag: Text
    kv_cache_dtype_flag: Text
    max_num_seqs_flag: Text
    context_flag: Text
    precisions: Annotated[list[Id], Field(min_length=1)]
    also_runs: list[Id] = []
    tight_memory_utilization: Figure[CardShare]
    tight_min_card_gib: Figure[Annotated[Positive, within(1, 1024, "GiB")]]
    tight_max_num_seqs: Figure[Annotated[PositiveInt, within(1, 256, "sequences")]]
    tight_without_cuda_graphs: SourcedFlag
    batch_budget: BatchBudgetRule
    sampler_bytes_per_vocab_entry: FittedFigure[Annotated[Positive, within(1, 256, "bytes")]]
    activation_base_gib: FittedFigure[Gib]
    activation_moe_extra_gib: FittedFigure[Gib]
    cuda_context_gib: Figure[Gib]
    nccl_buffers_gib: Figure[Gib]
    nvswitch_buffers_gib: SwitchBuffers
    cuda_graphs_gib: Figure[Gib]
    sglang_mamba_full_memory_ratio: Figure[Annotated[Positive, within(0.01, 100, "a ratio")]]
    earlier_releases: list[EarlierRelease] = []


class LlamaCppEngine(Record):
    """llama.cpp: no utilization cap, layers split across cards, a compute buffer growing with context and ubatch."""

    id: Id
    kind: Literal["llama.cpp"]
    name: Text
    parallelism: Literal["layers"]
    context_flag: Text
    precisions: Annotated[list[Id], Field(min_length=1)]
    also_runs: list[Id] = []
    parallel_slots: Figure[Annotated[PositiveInt, within(1, 4_096, "server slots")]]
    gpu_layers_flag: SourcedFlag
    cpu_moe_flag: SourcedFlag
    cuda_context_gib: Figure[Gib]
    ubatch_tokens: Figure[Annotated[PositiveInt, within(1, 1_000_000, "tokens")]]
    flash_attention: Figure[bool]
    attention_scores_bytes: Figure[Annotated[Positive, within(1, 8, "bytes")]]
    logits_bytes_per_vocab_entry: Figure[Annotated[Positive, within(1, 8, "bytes")]]


Engine = Annotated[ServerEngine | LlamaCppEngine, Field(discriminator="kind")]


class EnginesFile(Record):
    engines: Annotated[list[Engine], Field(min_length=1)]


# --- measurements.yml and decode scenarios (sizing.estimate) -------------------------------------------
# What an inline figure of a scenario may be: the range of cards, links and models that exist, with room to grow.
# A figure outside it is a typo (a unit off by 1,000) or an attack, and the estimate would be nonsense.
CardMemoryGb = Annotated[float, Field(ge=1, le=2048)]  # 1 GB to twice the largest card announced (B300: 288 GB)
CardBandwidthGbps = Annotated[float, Field(ge=10, le=100_000)]  # an old GDDR card to ten times HBM3e's 8 TB/s
CardTflops = Annotated[float, Field(ge=0.1, le=100_000)]  # dense tensor throughput: 0.1 to ten times a B200's FP8


class InlineGpu(Record):
    """A card given by its figures instead of a gpus.yml id."""

    id: Id | None = None
    memory_gb: CardMemoryGb
    memory_bandwidth_gbps: CardBandwidthGbps
    bf16_dense_tflops: CardTflops
    fp8_dense_tflops: CardTflops | None = None
    peer_to_peer: bool = True
    architecture: Text | None = None
    source: Text | None = None


class InlineLink(Record):
    """A fabric given by its measured all-reduce figures instead of an interconnects.yml id."""

    id: Id | None = None
    allreduce_latency_us: Annotated[float, Field(ge=0.5, le=10_000)]  # NVLink's few µs to a slow host path
    allreduce_busbw_gbps: Annotated[float, Field(ge=0.1, le=10_000)]  # nccl-tests busbw, far above NVLink 5
    source: Text | None = None


class InlineLlm(Record):
    """A language model given by its shape instead of a models.yml id. ``active_params_b`` only for MoE;
    without ``experts``/``experts_per_token`` a MoE step is taken to read the active parameters only;
    ``routed_expert_params_b`` where the model card counts the experts (its active count may leave out the input
    embedding, as gpt-oss's does).
    ``attention_heads`` defaults to hidden_size / head_dim; without ``vocab_size`` embeddings are not split out."""

    id: Id | None = None
    params_b: Annotated[float, Field(gt=0, le=100_000)]  # up to 100 trillion parameters
    active_params_b: Annotated[float, Field(gt=0, le=100_000)] | None = None
    routed_expert_params_b: Annotated[float, Field(gt=0, le=100_000)] | None = None
    experts: Annotated[int, Field(gt=0, le=4096)] | None = None
    experts_per_token: Annotated[int, Field(gt=0, le=4096)] | None = None
    moe_layers: Annotated[int, Field(gt=0, le=1024)] | None = None
    layers: Annotated[int, Field(gt=0, le=1024)]
    hidden_size: Annotated[int, Field(gt=0, le=1 << 20)]
    attention_heads: Annotated[int, Field(gt=0, le=4096)] | None = None
    kv_heads: Annotated[int, Field(gt=0, le=4096)]
    head_dim: Annotated[int, Field(gt=0, le=4096)]
    vocab_size: Annotated[int, Field(gt=0, le=10_000_000)] | None = None
    tie_word_embeddings: bool = False
    attention: Annotated[MlaAttention | SlidingAttention | HybridAttention, Field(discriminator="type")] | None = None
    max_context_tokens: ContextTokens | None = None  # the longest context its makers advertise, where known
    source: Text | None = None

    @model_validator(mode="after")
    def _consistent(self) -> InlineLlm:
        if self.active_params_b is not None and self.active_params_b >= self.params_b:
            raise ValueError(f"active_params_b ({self.active_params_b}) must be below params_b ({self.params_b})")
        moe_only = (self.experts, self.experts_per_token, self.moe_layers)
        if self.active_params_b is None and any(v is not None for v in moe_only):
            raise ValueError("experts, experts_per_token and moe_layers need active_params_b (a moe model)")
        if (self.experts is None) != (self.experts_per_token is None):
            raise ValueError("give experts and experts_per_token together")
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) exceeds experts ({self.experts})")
        routed_problem = routed_expert_params_problem(
            self.routed_expert_params_b, self.params_b, self.experts, "routed_expert_params_b"
        )
        if routed_problem:
            raise ValueError(routed_problem)
        heads = self.attention_heads or self.hidden_size // self.head_dim
        if heads < 1:
            raise ValueError("hidden_size / head_dim gives no attention head; give attention_heads")
        problems = shape_problems(self.layers, heads, self.kv_heads, self.attention, self.moe_layers)
        if problems:
            raise ValueError("; ".join(problems))
        return self


class InlinePrecision(Record):
    """A weight format outside precisions.yml (e.g. MXFP4 experts, int8 weight-only)."""

    id: Id | None = None
    bits_per_weight: Annotated[float, Field(gt=0, le=32)]
    expert_bits_per_weight: Annotated[float, Field(gt=0, le=32)] | None = None
    keeps_embeddings_16bit: bool
    compute_format: Literal["bf16", "fp8"] = "bf16"
    source: Text | None = None


MAX_SCENARIO_CARDS = 72  # the largest single NVLink domain sold (GB200 NVL72)
Parallelism = Literal["tensor", "layers"]
EngineClass = Literal["server", "llama.cpp"]
KvCacheDtype = Literal["bf16", "fp8"]  # what the KV cache is kept in: 16 bits, or 8 (vLLM --kv-cache-dtype fp8)
LINK_KINDS = ("none", "pcie", "nvlink", "nvlink-bridge")
# Tags of the catalog-id-or-inline unions below; catalog error messages leave them out of field paths.
UNION_TAGS = ("catalog-id", "inline")


def _catalog_id_or_inline(value: Any) -> str:
    return "catalog-id" if isinstance(value, str) else "inline"


# A catalog id or an inline record; the callable discriminator gives one error per field, not one per member.
_ID_OR_INLINE = Discriminator(_catalog_id_or_inline)
_CatalogId = Annotated[Id, Tag("catalog-id")]
GpuRef = Annotated[_CatalogId | Annotated[InlineGpu, Tag("inline")], _ID_OR_INLINE]
LinkRef = Annotated[_CatalogId | Annotated[InlineLink, Tag("inline")], _ID_OR_INLINE]
LlmRef = Annotated[_CatalogId | Annotated[InlineLlm, Tag("inline")], _ID_OR_INLINE]
PrecisionRef = Annotated[_CatalogId | Annotated[InlinePrecision, Tag("inline")], _ID_OR_INLINE]


class DecodeScenario(Record):
    """One question to the decode-speed model. ``gpu``, ``model``, ``precision`` and ``link`` are catalog ids
    or inline figures; ``link`` is also one of LINK_KINDS, resolved against the GPU's nodes."""

    id: Text | None = None
    gpu: GpuRef
    cards: Annotated[int, Field(gt=0, le=MAX_SCENARIO_CARDS)] = 1
    link: LinkRef = "none"
    parallelism: Parallelism | None = None  # the engine's own (engines.yml) unless given; must agree with it
    model: LlmRef
    precision: PrecisionRef | None = None
    concurrency: Annotated[int, Field(gt=0, le=65_536)] = 1  # streams decoding together
    context_tokens: Annotated[int, Field(gt=0, le=16_777_216)] | None = None  # up to 16M tokens
    engine_class: EngineClass = "server"
    prompt_tokens_per_output_token: Annotated[float, Field(ge=0, le=100_000)] = 0.0
    # a request's prompt and answer: the estimator gives the time to first token among ``concurrency`` streams
    # asking again as answers end, and the speeds with their prompts inside the steps (sizing.engine.load)
    prompt_tokens: Annotated[int, Field(gt=0, le=16_777_216)] | None = None
    output_tokens: Annotated[int, Field(gt=0, le=16_777_216)] | None = None
    kv_cache_dtype: KvCacheDtype = "bf16"
    # llama.cpp with layers in host memory: the layers on the cards (--n-gpu-layers; default as many as fit
    # when the weights exceed the cards), the layers whose routed experts stay in host memory (--n-cpu-moe; a
    # mixture-of-experts model) and the host's memory bandwidth (default assumptions.yml)
    gpu_layers: Annotated[int, Field(ge=1, le=100_000)] | None = None
    cpu_moe_layers: Annotated[int, Field(ge=1, le=100_000)] | None = None
    host_memory_bandwidth_gbps: HostBandwidthGbps | None = None

    @model_validator(mode="after")
    def _a_request_or_a_prompt_share(self) -> DecodeScenario:
        if (self.prompt_tokens is None) != (self.output_tokens is None):
            raise ValueError("give a request's prompt_tokens and output_tokens together")
        if self.prompt_tokens is not None and self.prompt_tokens_per_output_token:
            raise ValueError(
                "give prompt_tokens and output_tokens (the load they bring is worked out) or "
                "prompt_tokens_per_output_token, not both"
            )
        return self


# The largest requirement the planner takes, field by field: the command line's bounds, and the Plan page's
# (macros/library/plan_tables.py hands them to its script)
PLAN_MAXIMA = {
    "prompt_tokens": 16_777_216,
    "output_tokens": 16_777_216,
    "users": 10_000_000,
    "requests_per_minute": 100_000_000,
    "min_tokens_per_s_per_user": 100_000,
    "max_ttft_s": 3600,
}


class CapacityPlan(Record):
    """A published capacity-planning answer (data/capacity_plans.yml): the planner, the catalog model, format and
    node configuration closest to its question, the GPUs of one of its copies (its worker's tensor-parallel size),
    the requirement it was given (``users`` or ``requests_per_minute``), and the GPUs it answered, prefill and
    decode on the same GPUs."""

    id: Id
    planner: Text
    model: Id
    precision: Id
    configuration: Id
    cards_per_copy: Annotated[PositiveInt, within(1, 72, "cards")]
    prompt_tokens: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["prompt_tokens"])]
    output_tokens: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["output_tokens"])]
    users: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["users"])] | None = None
    requests_per_minute: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["requests_per_minute"])] | None = None
    min_tokens_per_s_per_user: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["min_tokens_per_s_per_user"])] | None
    max_ttft_s: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["max_ttft_s"])] | None = None
    gpus: PositiveInt
    source: Text
    quote: Text
    notes: Text

    @model_validator(mode="after")
    def _users_or_a_rate(self) -> CapacityPlan:
        if (self.users is None) == (self.requests_per_minute is None):
            raise ValueError("give users (concurrent users) or requests_per_minute, exactly one")
        return self


class PlanRequirement(Record):
    """One requirement for ``python -m sizing.plan``: a model (models.yml, or given by its shape with a format of
    precisions.yml), a format (precisions.yml, or ``any`` / absent for every format offered), the tokens of a
    request, concurrent ``users`` or ``requests_per_minute`` (exactly one), the slowest acceptable speed per user
    and, optionally, the longest time to first token."""

    id: Text | None = None
    model: LlmRef
    precision: Id | None = None
    prompt_tokens: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["prompt_tokens"])]
    output_tokens: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["output_tokens"])]
    users: Annotated[int, Field(gt=0, le=PLAN_MAXIMA["users"])] | None = None
    requests_per_minute: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["requests_per_minute"])] | None = None
    min_tokens_per_s_per_user: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["min_tokens_per_s_per_user"])]
    max_ttft_s: Annotated[float, Field(gt=0, le=PLAN_MAXIMA["max_ttft_s"])] | None = None

    @model_validator(mode="after")
    def _users_or_rate(self) -> PlanRequirement:
        if (self.users is None) == (self.requests_per_minute is None):
            raise ValueError("give users (concurrent users) or requests_per_minute, exactly one of them")
        return self


# The engine a published decode run names first in its note ("vLLM 0.6.3 (TP2, 'Setting 2')"), or that its source does
# not state it; and the kind of reason a record is left out of the fit and the statistics.
ENGINE_NAMES = (
    "vLLM",
    "SGLang",
    "NVIDIA NIM",
    "TensorRT-LLM",
    "gpt-fast",
    "LMDeploy",
    "MLC LLM",
    "FasterTransformer",
    "ik_llama.cpp",
    "llama.cpp",
    "meta-llama/llama reference code",
)
ENGINE_NOT_STATED = "not stated"
LEFT_OUT_KINDS = {"note:": "flagged by its source or by us", "scope:": "a setup the model does not describe"}
DUPLICATE = "duplicate of "

# Where a measurement was read: "<repository or site>/<table, post or log in it>". Records measured together (one table,
# one harness and build) share it; a held-out record's table gives no fitted record (loader).
SourceTable = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*$", max_length=120)]


class DecodeMeasurement(DecodeScenario):
    """A published decode speed, with the scenario it was measured in. ``unreliable`` (the reason) keeps a
    record out of the accuracy statistics and the fit."""

    id: Id
    # a published run: at most a few nodes, a batch a server runs, a speed a card reaches
    cards: Annotated[PositiveInt, within(1, 64, "cards")] = 1
    concurrency: Annotated[PositiveInt, within(1, 4_096, "streams")] = 1
    context_tokens: Annotated[PositiveInt, within(1, 10_000_000, "tokens")] | None = None
    prompt_tokens_per_output_token: Annotated[NonNegative, within(0, 1_000, "prompt tokens per output token")] = 0.0
    engine: Text
    metric: Text
    value: Annotated[Positive, within(0.01, 1_000_000, "a measured figure")]
    tokens_per_s_per_stream: Annotated[Positive, within(0.01, 100_000, "tokens per second")]
    tokens_per_s_total: Annotated[Positive, within(0.01, 1_000_000, "tokens per second")] | None = None
    derived: Text
    source_table: SourceTable
    source: Text
    quote: Text
    source_file: Text | None = None
    assumed: Text | None = None
    unreliable: Text | None = None
    # false for llama-bench's prompt test at microbatch 1: one token per step, logits for the last one only, so
    # the steps measured skip the output head
    logits_every_step: bool = True

    @field_validator("engine")
    @classmethod
    def _names_its_engine(cls, engine: str) -> str:
        if not engine.startswith((*ENGINE_NAMES, ENGINE_NOT_STATED)):
            raise ValueError(
                f"the note starts with the engine's name, one of {', '.join(ENGINE_NAMES)}, or with "
                f"'{ENGINE_NOT_STATED}' (e.g. 'vLLM 0.6.3 (TP2)'); a new engine goes into schema.py ENGINE_NAMES"
            )
        return engine

    @field_validator("unreliable")
    @classmethod
    def _says_what_kind_of_reason(cls, reason: str | None) -> str | None:
        if reason is not None and not reason.startswith((*LEFT_OUT_KINDS, DUPLICATE)):
            kinds = ", ".join(f"'{k}' ({what})" for k, what in LEFT_OUT_KINDS.items())
            raise ValueError(f"the reason starts with {kinds} or '{DUPLICATE}<id>'")
        return reason

    @property
    def engine_name(self) -> str | None:
        """The engine its note names first (``ENGINE_NAMES``), None where the source does not state it."""
        return next((name for name in ENGINE_NAMES if self.engine.startswith(name)), None)

    @model_validator(mode="after")
    def _inline_figures_have_a_source(self) -> DecodeMeasurement:
        for field in ("gpu", "link", "model", "precision"):
            value = getattr(self, field)
            if not isinstance(value, (str, type(None))) and value.source is None:
                raise ValueError(f"inline {field} needs a source")
        return self


Arrival = Literal["closed", "poisson", "burst"]
MeasuredAt = Literal["server", "engine"]


class PrefillMeasurement(DecodeScenario):
    """A published time to first token (or prompt-processing speed) with the scenario it was measured in: a prompt
    of ``prompt_tokens`` whose answers run ``output_tokens``, the requests arriving as ``arrival`` says:
    ``closed``, ``concurrency`` clients each sending its next request when its answer ends (1: one request alone),
    ``prompts`` requests in all where the run says (``--num-prompts``: the first ``concurrency`` of them arrive at
    once);
    ``poisson``, independently at ``requests_per_s``; ``burst``, ``burst_requests`` at once. ``measured_at``:
    ``server`` through the engine's HTTP server (its per-request cost counts), ``engine`` inside it (llama-bench,
    an engine's own benchmark). ``batch_tokens``: the run's own batch budget where it set one
    (``--max-num-batched-tokens``, llama.cpp's ``-ub``); ``flash_attention``: llama.cpp's ``-fa`` where the run
    says or its release implies. ``source_table``: one id for the table or page the record comes from (records of
    one table share it). ``ttft_ms`` is what the model is compared against (``derived`` says how, e.g.
    512 / pp512 t/s)."""

    id: Id
    prompt_tokens: Annotated[int, Field(gt=0, le=16_777_216)]
    output_tokens: Annotated[int, Field(gt=0, le=16_777_216)]
    arrival: Arrival = "closed"
    prompts: Annotated[int, Field(gt=0, le=10_000_000)] | None = None
    requests_per_s: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    burst_requests: Annotated[int, Field(gt=0, le=1_000_000)] | None = None
    measured_at: MeasuredAt = "server"
    batch_tokens: Annotated[int, Field(gt=0, le=1_048_576)] | None = None
    flash_attention: bool | None = None
    source_table: SourceTable
    engine: Text
    metric: Text
    value: Positive
    ttft_ms: Positive
    derived: Text
    source: Text
    quote: Text
    assumed: Text | None = None
    unreliable: Text | None = None

    @model_validator(mode="after")
    def _inline_figures_have_a_source(self) -> PrefillMeasurement:
        for field in ("gpu", "link", "model", "precision"):
            value = getattr(self, field)
            if not isinstance(value, (str, type(None))) and value.source is None:
                raise ValueError(f"inline {field} needs a source")
        return self

    @model_validator(mode="after")
    def _arrival_has_its_figure(self) -> PrefillMeasurement:
        if (self.arrival == "poisson") != (self.requests_per_s is not None):
            raise ValueError("requests_per_s is the rate of poisson arrivals, and only theirs")
        if (self.arrival == "burst") != (self.burst_requests is not None):
            raise ValueError("burst_requests is the size of a burst, and only its")
        return self


EngineKind = Literal["vllm", "sglang", "llama.cpp"]
StartupOutcome = Literal["started", "kv_too_small", "out_of_memory"]


class MemoryMeasurement(Record):
    """What an engine reported of its memory at start-up, with the setup it started in: the KV-cache memory it
    gave itself ("Available KV cache memory: N GiB" in vLLM's log, SGLang's K and V sizes, llama.cpp's KV buffer), the
    weights it loaded, or that it failed for lack of memory (``outcome``). vLLM takes ``gpu_memory_utilization``,
    SGLang ``mem_fraction_static`` (its default for the card when None); ``cuda_graphs_in_budget``: the engine charged
    its CUDA graphs inside the budget (vLLM since v0.21) rather than outside it. ``unreliable`` (the reason) keeps a
    record out of the statistics."""

    id: Id
    engine: Text
    engine_kind: EngineKind = "vllm"
    gpu: GpuRef
    cards: PositiveInt = 1
    model: LlmRef
    precision: PrecisionRef | None = None
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)] | None = None
    mem_fraction_static: Annotated[float, Field(gt=0, le=1)] | None = None
    max_model_len: PositiveInt
    max_num_seqs: PositiveInt | None = None
    max_num_batched_tokens: PositiveInt | None = None
    kv_cache_dtype: KvCacheDtype = "bf16"
    enforce_eager: bool = False
    cuda_graphs_in_budget: bool = False
    outcome: StartupOutcome = "started"
    kv_cache_gib: float | None = None  # per card; negative where vLLM printed a shortfall
    kv_cache_tokens: PositiveInt | None = None
    weights_gib: Positive | None = None  # per card, as the engine printed it ("Model loading took")
    compute_buffer_mib: Positive | None = None  # llama.cpp, the busiest card
    flash_attention: bool | None = None  # llama.cpp
    parallel_slots: PositiveInt | None = None  # llama.cpp's --parallel
    source_table: SourceTable
    source: Text
    quote: Text
    assumed: Text | None = None
    unreliable: Text | None = None

    @model_validator(mode="after")
    def _inline_figures_have_a_source(self) -> MemoryMeasurement:
        for field in ("gpu", "model", "precision"):
            value = getattr(self, field)
            if not isinstance(value, (str, type(None))) and value.source is None:
                raise ValueError(f"inline {field} needs a source")
        if self.engine_kind == "vllm" and self.gpu_memory_utilization is None:
            raise ValueError("a vLLM record gives its gpu_memory_utilization (0.9 when the run kept the default)")
        if self.engine_kind == "sglang" and self.mem_fraction_static is None:
            raise ValueError("an SGLang record gives its mem_fraction_static (server_args prints it)")
        if self.outcome == "started" and self.kv_cache_gib is None and self.weights_gib is None:
            raise ValueError("a record of a start gives the KV-cache memory or the weights the engine reported")
        return self


class MeasurementsFile(Record):
    """``decode``: the records the constants are fitted on and the build checks; ``held_out``: records never
    fitted, to judge the model on figures it has not seen, each from a ``source_table`` that gives no fitted record
    (decode and memory records; the loader checks it); ``prefill`` and ``prefill_held_out``: the same for the time
    to first token; ``memory`` and ``memory_held_out``: what engines reported of their memory at start-up, the
    reserve's figures fitted on the first, judged on the second."""

    decode: Annotated[list[DecodeMeasurement], Field(min_length=1)]
    held_out: list[DecodeMeasurement] = []
    prefill: list[PrefillMeasurement] = []
    prefill_held_out: list[PrefillMeasurement] = []
    memory: list[MemoryMeasurement] = []
    memory_held_out: list[MemoryMeasurement] = []
