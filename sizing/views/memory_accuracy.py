"""How well the engine's memory rules predict what engines reported at start-up (data/measurements.yml ``memory``
and ``memory_held_out``): per record the KV-cache memory and the weights an engine printed against what the rules
give, and whether a start that failed for lack of memory would fail by the rules too. vLLM gives its KV cache what
its utilization leaves after the weights and its reserve (``sizing.engine.reserve``); SGLang what its static memory
fraction leaves after the weights; llama.cpp allocates the KV cache of its context exactly, beside a compute buffer.
Records flagged ``unreliable`` are shown but kept out of the statistics."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from sizing.catalog.errors import SizingError
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import (
    EarlierRelease,
    Gpu,
    HybridAttention,
    InlineGpu,
    LlamaCppEngine,
    MemoryMeasurement,
    ServerEngine,
)
from sizing.catalog.units import GIB, MIB
from sizing.engine.fit import card_nvswitch_splits, kv_element_bytes, visible_memory
from sizing.engine.memory import kv_cache_bytes, weight_bytes_per_card
from sizing.engine.reserve import (
    BatchBudget,
    as_released,
    kv_cache_room_bytes,
    llama_cpp_reserve,
    release_of,
    server_batch_budget,
    server_reserve,
    sglang_kv_pool_bytes,
    sglang_leaves_room_for_activations,
)
from sizing.engine.scenarios import gpu_record, scenario_precision, scenario_shape

MAX_KV_CACHE_ERROR = 0.10
MAX_WEIGHTS_ERROR = 0.10


class MemoryAccuracyError(SizingError):
    """A memory record the rules cannot judge."""


@dataclass(frozen=True)
class MemoryCheck:
    """One start-up record against the rules (GiB, per card): the KV-cache memory and the weights reported and
    predicted, what the prediction is made of, and whether the start's KV cache holds one sequence of its
    ``max_model_len`` by the rules, and SGLang's activations fit outside its static share (``predicted_starts``),
    against what happened (``outcome``)."""

    id: str
    engine_kind: str
    outcome: str
    measured_kv_gib: float | None
    predicted_kv_gib: float
    measured_weights_gib: float | None
    predicted_weights_gib: float
    budget_gib: float
    reserve_gib: float
    one_sequence_gib: float
    batch: BatchBudget | None
    unreliable: str | None
    activations_fit: bool = True

    @property
    def kv_error(self) -> float | None:
        """predicted / measured - 1, where the engine printed a positive KV cache."""
        if self.measured_kv_gib is None or self.measured_kv_gib <= 0:
            return None
        return self.predicted_kv_gib / self.measured_kv_gib - 1

    @property
    def weights_error(self) -> float | None:
        if self.measured_weights_gib is None:
            return None
        return self.predicted_weights_gib / self.measured_weights_gib - 1

    @property
    def predicted_starts(self) -> bool:
        """Whether the rules leave the KV cache of one sequence of ``max_model_len`` tokens, and room for the
        activations where the engine keeps them apart (SGLang)."""
        return self.predicted_kv_gib >= self.one_sequence_gib and self.activations_fit


def device_name(gpu: Gpu | InlineGpu) -> str:
    """What vLLM's card-class test reads: the card's id and name."""
    return " ".join(part for part in (gpu.id, getattr(gpu, "name", None)) if part)


def record_batch_budget(
    engine: ServerEngine, record: MemoryMeasurement, visible: float, name: str, release: EarlierRelease | None = None
) -> BatchBudget:
    """The card's default batch, with the record's own ``--max-num-seqs`` / ``--max-num-batched-tokens``; a release
    without chunked prefill batches the whole context."""
    default = server_batch_budget(engine, visible, name)
    tokens = record.max_num_batched_tokens or default.tokens
    whole = None if release is None else release.whole_context_batch_up_to
    if whole is not None and record.max_model_len <= whole:
        tokens = max(tokens, record.max_model_len)
    return BatchBudget(tokens, record.max_num_seqs or default.sequences)


def check_memory_record(catalog: Catalog, record: MemoryMeasurement) -> MemoryCheck:
    """The KV-cache memory and weights the engine's rules predict for one start-up record."""
    gpu = gpu_record(catalog, record.gpu)
    model = scenario_shape(catalog, record.model)
    precision = scenario_precision(catalog, record.precision, record.model)
    visible = visible_memory(catalog, gpu)
    weights = weight_bytes_per_card(model, precision, record.cards, gpu.architecture)
    element = kv_element_bytes(catalog, record.kv_cache_dtype)
    parallelism = "layers" if record.engine_kind == "llama.cpp" else "tensor"
    one_sequence = kv_cache_bytes(
        model, record.max_model_len, 1, element, record.cards if parallelism == "tensor" else 1
    )
    if parallelism == "layers":
        one_sequence /= record.cards
    batch = None
    activations_fit = True
    if record.engine_kind == "llama.cpp":
        engine = next(e for e in catalog.engines.values() if isinstance(e, LlamaCppEngine))
        slots = record.parallel_slots or engine.parallel_slots.value
        reserve = llama_cpp_reserve(engine, model, record.max_model_len, slots, record.flash_attention is not False)
        budget = visible
        room = one_sequence  # llama.cpp allocates the cache of its context (every slot's, unified), no more
    else:
        server = catalog.server_engine
        release = release_of(server, record.engine) if record.engine_kind == "vllm" else None
        server = as_released(server, release)
        batch = record_batch_budget(server, record, visible, device_name(gpu), release)
        graphs = record.cuda_graphs_in_budget and not record.enforce_eager and record.engine_kind == "vllm"
        switched = record.cards in card_nvswitch_splits(catalog, gpu, record.cards)
        reserve = server_reserve(server, model, record.cards, batch, graphs, switched)
        if record.engine_kind == "sglang":
            if record.mem_fraction_static is None:
                raise MemoryAccuracyError(f"memory record '{record.id}': an SGLang record needs mem_fraction_static")
            budget = visible * record.mem_fraction_static
            hybrid = isinstance(model.attention, HybridAttention)
            ratio = server.sglang_mamba_full_memory_ratio.value if hybrid else None
            room = sglang_kv_pool_bytes(budget, weights, reserve, ratio)
            activations_fit = sglang_leaves_room_for_activations(visible, budget, reserve)
        else:
            if record.gpu_memory_utilization is None:
                raise MemoryAccuracyError(f"memory record '{record.id}': a vLLM record needs gpu_memory_utilization")
            budget = record.gpu_memory_utilization * visible
            room = kv_cache_room_bytes(budget, weights, reserve)
    return MemoryCheck(
        record.id,
        record.engine_kind,
        record.outcome,
        record.kv_cache_gib,
        room / GIB,
        record.weights_gib,
        weights / GIB,
        budget / GIB,
        reserve.total / GIB,
        one_sequence / GIB,
        batch,
        record.unreliable,
        activations_fit,
    )


def check_memory_records(catalog: Catalog, held_out: bool = False) -> list[MemoryCheck]:
    """Every memory record the reserve was fitted on (``held_out``: every one kept out of it), in order."""
    records = catalog.held_out_memory_measurements if held_out else catalog.memory_measurements
    return [check_memory_record(catalog, r) for r in records]


@dataclass(frozen=True)
class MemoryMetrics:
    """Over the usable records: how many give a KV cache and how many of those the rules predict within
    ``MAX_KV_CACHE_ERROR``; the same for the weights; the starts that failed for lack of memory and how many of
    those the rules also see failing."""

    kv_records: int
    kv_within: int
    kv_median_abs_error: float
    weights_records: int
    weights_within: int
    failed: int
    failed_predicted: int

    @property
    def kv_within_share(self) -> float:
        return self.kv_within / self.kv_records if self.kv_records else 0.0

    @property
    def weights_within_share(self) -> float:
        return self.weights_within / self.weights_records if self.weights_records else 0.0


def memory_metrics(checks: Iterable[MemoryCheck]) -> MemoryMetrics:
    usable = [c for c in checks if c.unreliable is None]
    kv = [abs(e) for c in usable if (e := c.kv_error) is not None]
    weights = [abs(e) for c in usable if (e := c.weights_error) is not None]
    failed = [c for c in usable if c.outcome != "started"]
    return MemoryMetrics(
        kv_records=len(kv),
        kv_within=sum(e <= MAX_KV_CACHE_ERROR for e in kv),
        kv_median_abs_error=statistics.median(kv) if kv else 0.0,
        weights_records=len(weights),
        weights_within=sum(e <= MAX_WEIGHTS_ERROR for e in weights),
        failed=len(failed),
        failed_predicted=sum(not c.predicted_starts for c in failed),
    )


def memory_summary_lines(m: MemoryMetrics) -> list[str]:
    return [
        f"KV cache within {MAX_KV_CACHE_ERROR:.0%}: {m.kv_within} of {m.kv_records} ({m.kv_within_share:.0%}), "
        f"median |predicted/reported - 1| = {m.kv_median_abs_error:.1%}",
        f"weights within {MAX_WEIGHTS_ERROR:.0%}: {m.weights_within} of {m.weights_records} "
        f"({m.weights_within_share:.0%})",
        f"starts that failed for lack of memory: {m.failed}, of which the rules see {m.failed_predicted} failing",
    ]


def compute_buffer_error(catalog: Catalog, record: MemoryMeasurement) -> float | None:
    """llama.cpp: the compute buffer predicted against the one printed (predicted / printed - 1)."""
    if record.engine_kind != "llama.cpp" or record.compute_buffer_mib is None:
        return None
    engine = next(e for e in catalog.engines.values() if isinstance(e, LlamaCppEngine))
    model = scenario_shape(catalog, record.model)
    slots = record.parallel_slots or engine.parallel_slots.value
    buffer = llama_cpp_reserve(engine, model, record.max_model_len, slots, record.flash_attention is not False)
    return buffer.activations / (record.compute_buffer_mib * MIB) - 1
