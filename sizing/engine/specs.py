"""The plain records the engine computes on: a card, a link, a language model's shape and a weight format.

A catalog record (``Gpu``, ``Llm``, ``Precision``) becomes one of these through the functions below; a decode
scenario's inline figures through ``sizing.engine.scenarios``. Every formula of ``memory``, ``fit`` and
``decode`` reads these, so a quantity has one formula whatever the model came from. Units are in the names."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from sizing.catalog.schema import Gpu, HybridAttention, InlineGpu, Llm, MlaAttention, Precision, SlidingAttention


@dataclass(frozen=True)
class GpuSpec:
    memory_gb: float
    memory_bandwidth_gbps: float
    bf16_dense_tflops: float
    fp8_dense_tflops: float | None = None


@dataclass(frozen=True)
class LinkSpec:
    """The fabric a collective crosses, as measured: small-message latency and large-message bus bandwidth."""

    allreduce_latency_us: float
    allreduce_busbw_gbps: float


@dataclass(frozen=True)
class LlmShape:
    """A language model's shape. ``active_params`` marks a mixture-of-experts model; without ``experts`` its
    steps read the active parameters only; ``routed_expert_params`` when the model card counts the experts.
    ``vocab_size`` 0: embeddings not told apart from the rest."""

    params: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int = 0
    tie_word_embeddings: bool = False
    active_params: float | None = None
    routed_expert_params: float | None = None
    experts: int | None = None
    experts_per_token: int | None = None
    expert_intermediate_size: int | None = None
    moe_layers: int | None = None
    attention: MlaAttention | SlidingAttention | HybridAttention | None = None

    @property
    def is_moe(self) -> bool:
        return self.active_params is not None


@dataclass(frozen=True)
class PrecisionSpec:
    """Bits per weight of the linear layers (``expert_bits_per_weight`` when routed experts differ, e.g. MXFP4)
    and the tensor-core format the products run in; ``params_16bit``: parameters beyond the embeddings that one
    checkpoint in this format leaves in 16 bits; ``expert_intermediate_multiples``: (architecture, multiple) pairs,
    the multiple each card's share of an expert's intermediate size is padded up to on that architecture."""

    bits_per_weight: float
    keeps_embeddings_16bit: bool
    expert_bits_per_weight: float | None = None
    compute_format: Literal["bf16", "fp8"] = "bf16"
    params_16bit: float = 0.0
    expert_intermediate_multiples: tuple[tuple[str, int], ...] = ()

    def expert_intermediate_multiple(self, architecture: str | None) -> int | None:
        """The multiple the experts' width is padded to on cards of ``architecture`` (None: not padded)."""
        return dict(self.expert_intermediate_multiples).get(architecture or "")


@dataclass(frozen=True)
class Checkpoint:
    """A language model in one weight format, as an engine loads it: the model's shape, the format, and the
    longest context its makers advertise (None for a model given by its shape alone)."""

    model: LlmShape
    precision: PrecisionSpec
    max_context_tokens: int | None = None


@dataclass(frozen=True)
class HostLayers:
    """llama.cpp with ``gpu_layers`` of a model's layers on the cards (``--n-gpu-layers``; above the layer count,
    the output head too) and the routed experts of the first ``cpu_moe_layers`` layers in host memory
    (``--n-cpu-moe``); the rest run on the CPU and are read from host memory at ``bandwidth_gbps``."""

    gpu_layers: int
    bandwidth_gbps: float
    cpu_moe_layers: int = 0


def gpu_spec(gpu: Gpu | InlineGpu) -> GpuSpec:
    return GpuSpec(gpu.memory_gb, gpu.memory_bandwidth_gbps, gpu.bf16_dense_tflops, gpu.fp8_dense_tflops)


def llm_shape(model: Llm) -> LlmShape:
    """The shape of a models.yml language model."""
    return LlmShape(
        params=float(model.params),
        layers=model.layers,
        hidden_size=model.hidden_size,
        attention_heads=model.attention_heads,
        kv_heads=model.kv_heads,
        head_dim=model.head_dim,
        vocab_size=model.vocab_size,
        tie_word_embeddings=model.tie_word_embeddings,
        active_params=None if model.active_params is None else float(model.active_params),
        routed_expert_params=None if model.routed_expert_params is None else float(model.routed_expert_params),
        experts=model.experts,
        experts_per_token=model.experts_per_token,
        expert_intermediate_size=model.expert_intermediate_size,
        moe_layers=model.moe_layers,
        attention=model.attention,
    )


def precision_spec(precision: Precision) -> PrecisionSpec:
    """The spec of a precisions.yml format."""
    return PrecisionSpec(
        precision.bits_per_weight,
        precision.keeps_embeddings_16bit,
        precision.expert_bits_per_weight,
        precision.compute_format,
        expert_intermediate_multiples=tuple(sorted(precision.expert_intermediate_multiple.items())),
    )


def checkpoint_precision(model: Llm, precision: Precision) -> PrecisionSpec:
    """A precisions.yml format as ``model``'s checkpoint in it holds it: with what it leaves in 16 bits."""
    spec = precision_spec(precision)
    kept = model.kept_16bit.get(precision.id)
    return spec if kept is None else replace(spec, params_16bit=float(kept.params))


def checkpoint(model: Llm, precision: Precision) -> Checkpoint:
    """A models.yml language model in a precisions.yml format."""
    return Checkpoint(llm_shape(model), checkpoint_precision(model, precision), model.max_context_tokens)
