"""Load data/ into a validated, cross-referenced Catalog, or fail naming file, line, record and field."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from sizing.catalog.configurations import Configuration, group_configurations
from sizing.catalog.errors import CatalogError, Problem, closest, did_you_mean, shown_value
from sizing.catalog.fingerprint import DATA_DIR, data_fingerprint
from sizing.catalog.schema import (
    LINK_KINDS,
    UNION_TAGS,
    Assumptions,
    AssumptionsFile,
    DecodeMeasurement,
    DiffusionModel,
    EnginesFile,
    FittedAssumption,
    FittedFigure,
    Gpu,
    GpusFile,
    Interconnect,
    InterconnectsFile,
    LlamaCppEngine,
    Llm,
    MeasurementsFile,
    MemoryMeasurement,
    ModelsFile,
    Node,
    NodesFile,
    Precision,
    PrecisionsFile,
    PrefillMeasurement,
    ServerEngine,
    SwitchBuffers,
)
from sizing.catalog.yaml_lines import DataFileError, line_of, load_yaml
from sizing.catalog.yaml_traps import field_names_at, trap_hint

FILES: dict[str, tuple[str, type[BaseModel]]] = {
    "gpus": ("gpus.yml", GpusFile),
    "interconnects": ("interconnects.yml", InterconnectsFile),
    "nodes": ("nodes.yml", NodesFile),
    "precisions": ("precisions.yml", PrecisionsFile),
    "models": ("models.yml", ModelsFile),
    "assumptions": ("assumptions.yml", AssumptionsFile),
    "measurements": ("measurements.yml", MeasurementsFile),
    "engines": ("engines.yml", EnginesFile),
}
Model = Llm | DiffusionModel


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


IdRecord = TypeVar("IdRecord", bound=_Identified)  # a record with an id


@dataclass(frozen=True)
class Catalog:
    """Every record of data/, validated and indexed by id (in file order)."""

    gpus: Mapping[str, Gpu]
    interconnects: Mapping[str, Interconnect]
    nodes: Mapping[str, Node]
    prices_as_of: datetime.date
    precisions: Mapping[str, Precision]
    models: Mapping[str, Model]
    assumptions: Assumptions
    measurements: tuple[DecodeMeasurement, ...]
    held_out_measurements: tuple[DecodeMeasurement, ...]
    memory_measurements: tuple[MemoryMeasurement, ...]
    engines: Mapping[str, ServerEngine | LlamaCppEngine]
    prefill_measurements: tuple[PrefillMeasurement, ...] = ()
    held_out_prefill_measurements: tuple[PrefillMeasurement, ...] = ()
    held_out_memory_measurements: tuple[MemoryMeasurement, ...] = ()

    def engine_of(self, precision: Precision) -> ServerEngine | LlamaCppEngine:
        """The engine that runs a language model in ``precision`` (engines.yml ``precisions``)."""
        return self._engine_ids[precision.id]

    @cached_property
    def _engine_ids(self) -> dict[str, ServerEngine | LlamaCppEngine]:
        return {p: e for e in self.engines.values() for p in e.precisions}

    @cached_property
    def server_engine(self) -> ServerEngine:
        """The server engine (vLLM, SGLang): what a card's budget means when no precision is named."""
        return next(e for e in self.engines.values() if isinstance(e, ServerEngine))

    @cached_property
    def configurations(self) -> dict[str, Configuration]:
        """Nodes grouped by hardware (see ``sizing.catalog.configurations``), in catalog order."""
        return group_configurations(list(self.nodes.values()))

    @cached_property
    def nodes_of_gpu(self) -> dict[str, tuple[Node, ...]]:
        """Every node of each GPU model, in catalog order."""
        found: dict[str, list[Node]] = {}
        for node in self.nodes.values():
            found.setdefault(node.gpu, []).append(node)
        return {gpu: tuple(nodes) for gpu, nodes in found.items()}

    @cached_property
    def largest_node_of(self) -> dict[str, Node]:
        """For each GPU model, its node with the most cards (the first listed among equals)."""
        return {gpu: max(nodes, key=lambda n: n.cards) for gpu, nodes in self.nodes_of_gpu.items()}

    @cached_property
    def cheapest_per_card_of(self) -> dict[str, Node]:
        """For each GPU model, its node with the lowest monthly price per card."""
        return {
            gpu: min(nodes, key=lambda n: (n.price_per_month.amount / n.cards, n.id))
            for gpu, nodes in self.nodes_of_gpu.items()
        }

    def configuration_of(self, node: Node) -> Configuration:
        return self.configurations[self._configuration_ids[node.id]]

    @cached_property
    def _configuration_ids(self) -> dict[str, str]:
        return {n.id: c.id for c in self.configurations.values() for n in c.nodes}

    def gpu_of(self, node: Node) -> Gpu:
        return self.gpus[node.gpu]

    def interconnect_of(self, node: Node) -> Interconnect:
        return self.interconnects[node.link.interconnect]

    def host_pcie_of(self, gpu: Gpu) -> Interconnect:
        """The PCIe link a card sits on (what bridged pairs and single cards talk over)."""
        for link in self.interconnects.values():
            if link.family == "pcie" and link.generation == gpu.pcie_generation:
                return link
        raise KeyError(f"no PCIe Gen{gpu.pcie_generation} interconnect in interconnects.yml")

    def precisions_for(self, model: Model) -> list[Precision]:
        """The formats offered for a model: those that apply to its kind, made for it (a format published for some
        models only) and among its own (a model published in some formats only)."""
        own = getattr(model, "precisions", None)
        return [
            p
            for p in self.precisions.values()
            if model.kind in p.applies_to
            and (p.models is None or model.id in p.models)
            and (own is None or p.id in own)
        ]


# --- reading and schema validation -----------------------------------------------------------------
def _walk(raw: Any, loc: tuple[Any, ...]) -> tuple[int | None, str | None]:
    """Follow a pydantic error location through the raw YAML: the deepest line and the record id."""
    line, record, node = line_of(raw), None, raw
    for key in loc:
        if isinstance(node, Mapping):
            if isinstance(node.get("id"), str):
                record = node["id"]
            line = line_of(node, key if isinstance(key, str) else None) or line
            node = node.get(key) if isinstance(key, str) else None
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
            line = line_of(node) or line
        else:
            break
    if isinstance(node, Mapping) and isinstance(node.get("id"), str):
        record = node["id"]
    return line, record


def _shown(value: Any, limit: int = 80) -> str:
    """A value as a message quotes it (``shown_value``), a date as YYYY-MM-DD."""
    return value.isoformat() if isinstance(value, datetime.date) else shown_value(value, limit)


def _parent_of(raw: Any, loc: tuple[Any, ...]) -> Any:
    """The raw YAML value that holds the one at ``loc`` (the mapping a wrong value or name is in)."""
    node = raw
    for key in loc[:-1]:
        if isinstance(node, Mapping) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return None
    return node


def _unknown_field(found: Any, name: Any, names: list[str]) -> str:
    message = f"unknown field (found {_shown(found)}); remove it or fix its name"
    if isinstance(name, str) and names:
        near = closest(name, names, n=1)
        return message + (f": did you mean '{near[0]}'?" if near else f"; valid fields: {', '.join(names)}")
    return message


def _schema_problem(path: Path, raw: Any, error: Mapping[str, Any], model: type[BaseModel]) -> Problem:
    loc = tuple(
        k
        for k in error["loc"]
        if not (isinstance(k, str) and k in {"Llm", "MlaAttention", "server", "llama.cpp", *UNION_TAGS})
    )
    line, record = _walk(raw, loc)
    field = ".".join(str(k) for k in loc if isinstance(k, str)) or None
    kind, found = error["type"], error.get("input")
    parent = _parent_of(raw, loc) if loc else None
    if kind == "missing":
        message = "this required field is missing; add it"
    elif kind == "extra_forbidden":
        message = _unknown_field(found, loc[-1] if loc else None, field_names_at(model, loc[:-1]))
    else:
        message = f"expected: {error['msg'].removeprefix('Value error, ')}; found: {_shown(found)}"
    hint = trap_hint(found, parent) or (trap_hint(None, found) if isinstance(found, Mapping) else None)
    if hint and kind != "missing":
        message += f" ({hint})"
    return Problem(path, line, record, field, message)


def _read(data_dir: Path, name: str, model: type[BaseModel]) -> tuple[BaseModel | None, Any, list[Problem]]:
    path = data_dir / name
    if not path.exists():
        return None, None, [Problem(path, None, None, None, "file is missing; every catalog file is required")]
    try:
        raw = load_yaml(path)
    except (DataFileError, OSError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) else str(exc)
        return None, None, [Problem(path, None, None, None, f"cannot be read: {problem}")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        reason = getattr(exc, "problem", None) or str(exc)
        return (
            None,
            None,
            [
                Problem(
                    path, line, None, None, f"invalid YAML: {reason}" + ("" if ";" in reason else "; fix the syntax")
                )
            ],
        )
    if not isinstance(raw, Mapping):
        return None, raw, [Problem(path, 1, None, None, "expected a YAML mapping at the top of the file")]
    try:
        return model.model_validate(raw), raw, []
    except ValidationError as exc:
        return None, raw, [_schema_problem(path, raw, e, model) for e in exc.errors()]


# --- cross-file checks -----------------------------------------------------------------------------
def _index(
    records: Iterable[IdRecord], path: Path, raw_list: list[Any], problems: list[Problem]
) -> dict[str, IdRecord]:
    index: dict[str, IdRecord] = {}
    for record, raw in zip(records, raw_list, strict=True):
        rid = record.id
        if rid in index:
            problems.append(Problem(path, line_of(raw), rid, "id", "duplicate id; every id must be unique"))
        index[rid] = record
    return index


def _check_nodes(
    nodes: Iterable[Node],
    raw_nodes: list[Any],
    path: Path,
    gpus: Mapping[str, Gpu],
    links: Mapping[str, Interconnect],
    problems: list[Problem],
) -> None:
    for node, raw in zip(nodes, raw_nodes, strict=True):

        def bad(field: str, message: str, raw: Any = raw, node: Node = node) -> None:
            sub = raw.get("link") if field.startswith("link.") else raw
            problems.append(Problem(path, line_of(sub, field.rsplit(".", maxsplit=1)[-1]), node.id, field, message))

        named = re.match(r"(\d+)x-", node.id)
        if named and int(named.group(1)) != node.cards:
            bad(
                "cards",
                f"expected {named.group(1)} cards, as the node's id says (or rename the node); found {node.cards}",
            )
        gpu, link = gpus.get(node.gpu), links.get(node.link.interconnect)
        if gpu is None:
            bad("gpu", f"unknown gpu '{node.gpu}' (not in gpus.yml); {did_you_mean(node.gpu, gpus)}")
        if link is None:
            bad(
                "link.interconnect",
                f"unknown interconnect '{node.link.interconnect}' (not in interconnects.yml); "
                f"{did_you_mean(node.link.interconnect, links)}",
            )
        if gpu is None or link is None:
            continue
        topology = node.link.topology
        if node.cards == 1 and topology != "host":
            bad("link.topology", f"a single card has no peer: expected 'host', found '{topology}'")
        if topology == "host":
            if link.family != "pcie" or link.generation != gpu.pcie_generation:
                bad(
                    "link.interconnect",
                    f"cards joined over the host must use the card's own PCIe link: "
                    f"{gpu.short_name} is PCIe Gen{gpu.pcie_generation}, found '{link.id}'",
                )
            if node.link.topo_label is not None:
                bad("link.topo_label", "PCIe-only nodes have no NVLink topo label; remove it")
        else:
            if link.family != "nvlink":
                bad("link.interconnect", f"topology '{topology}' needs an NVLink interconnect, found '{link.id}'")
            if node.link.topo_label is None:
                bad("link.topo_label", "NVLink nodes must state what `nvidia-smi topo -m` shows (e.g. NV18)")
        if topology == "bridged-pairs" and node.cards % 2:
            bad("cards", f"bridged pairs need an even card count, found {node.cards}")
        if (topology == "mesh") != (node.link.peer_per_direction_gbps is not None):
            bad("link.peer_per_direction_gbps", "required for a mesh topology and only there")


def _check_default_precisions(
    models: Mapping[str, Model], precisions: Mapping[str, Precision], raw: Any, path: Path, problems: list[Problem]
) -> None:
    """A model's formats (``precisions``) exist and apply to it; its default is one of the formats it is offered
    in; a format made for some models names models of models.yml."""
    raw_models = {r.get("id"): r for r in [*raw["llms"], *raw["diffusion"]] if isinstance(r, Mapping)}

    def offered(model: Model) -> list[str]:
        own = getattr(model, "precisions", None)
        return [
            p.id
            for p in precisions.values()
            if model.kind in p.applies_to
            and (p.models is None or model.id in p.models)
            and (own is None or p.id in own)
        ]

    for model in models.values():
        for pid in getattr(model, "precisions", None) or []:
            found = precisions.get(pid)
            made_for_others = found is not None and found.models is not None and model.id not in found.models
            if found is None or model.kind not in found.applies_to or made_for_others:
                problems.append(
                    Problem(
                        path,
                        line_of(raw_models.get(model.id), "precisions"),
                        model.id,
                        "precisions",
                        f"'{pid}' is not a format for this model (unknown, for another kind of model, or made for "
                        f"other models); {did_you_mean(pid, precisions)}",
                    )
                )
        for pid in getattr(model, "kept_16bit", {}):
            if pid not in offered(model):
                problems.append(
                    Problem(
                        path,
                        line_of(raw_models.get(model.id), "kept_16bit"),
                        model.id,
                        "kept_16bit",
                        f"'{pid}' is not a format this model is offered in; use one of {', '.join(offered(model))}",
                    )
                )
        padded = [pid for pid in offered(model) if precisions[pid].expert_intermediate_multiple]
        if padded and getattr(model, "is_moe", False) and getattr(model, "expert_intermediate_size", None) is None:
            problems.append(
                Problem(
                    path,
                    line_of(raw_models.get(model.id), "experts"),
                    model.id,
                    "expert_intermediate_size",
                    f"missing: '{padded[0]}' pads each card's share of an expert's intermediate size "
                    "(precisions.yml expert_intermediate_multiple); give the experts' width "
                    "(intermediate_size or moe_intermediate_size in the model's config.json)",
                )
            )
        if model.default_precision not in offered(model):
            problems.append(
                Problem(
                    path,
                    line_of(raw_models.get(model.id), "default_precision"),
                    model.id,
                    "default_precision",
                    f"'{model.default_precision}' is not a precision offered for this "
                    f"{model.kind} model; use one of {', '.join(offered(model))}",
                )
            )
    for precision in precisions.values():
        for mid in precision.models or []:
            if mid not in models:
                problems.append(
                    Problem(
                        path.with_name("precisions.yml"),
                        None,
                        precision.id,
                        "models",
                        f"unknown model '{mid}' (not in models.yml); {did_you_mean(mid, models)}",
                    )
                )


def _check_figure_origins(
    records: list[Interconnect], raw_list: list[Any], path: Path, problems: list[Problem]
) -> None:
    """A link figure copied or derived from another link names a link of interconnects.yml."""
    links = {link.id for link in records}
    for link, raw in zip(records, raw_list, strict=True):
        origins = link.figure_origins
        for field in ("allreduce_latency_us", "allreduce_busbw_gbps"):
            source = getattr(origins, field).from_link
            if source is not None and source not in links:
                where = line_of(raw.get("figure_origins"), field) if isinstance(raw, dict) else None
                message = f"from_link '{source}' is not in interconnects.yml; {did_you_mean(source, links)}"
                problems.append(Problem(path, where, link.id, f"figure_origins.{field}", message))


def _check_measurements(
    catalog_parts: dict[str, Mapping[str, Any]],
    measurements: Iterable[DecodeMeasurement | PrefillMeasurement | MemoryMeasurement],
    raw_list: list[Any],
    path: Path,
    problems: list[Problem],
) -> None:
    """Every catalog id a record names exists (a link may also be a kind), the model is a language model, ids are
    unique."""
    seen: set[str] = set()
    for m, raw in zip(measurements, raw_list, strict=True):

        def bad(
            field: str, message: str, raw: Any = raw, m: DecodeMeasurement | PrefillMeasurement | MemoryMeasurement = m
        ) -> None:
            problems.append(Problem(path, line_of(raw, field), m.id, field, message))

        if m.id in seen:
            bad("id", "duplicate id; every id must be unique")
        seen.add(m.id)
        for field, table in (("gpu", "gpus"), ("model", "models"), ("precision", "precisions")):
            value = getattr(m, field)
            if isinstance(value, str) and value not in catalog_parts[table]:
                bad(
                    field,
                    f"unknown {field} '{value}' (not in {table}.yml); {did_you_mean(value, catalog_parts[table])}",
                )
        if (
            isinstance(m.model, str)
            and m.model in catalog_parts["models"]
            and catalog_parts["models"][m.model].kind != "llm"
        ):
            bad("model", f"'{m.model}' is not a language model; speed measurements are for models.yml llms")
        links = catalog_parts["interconnects"]
        if (
            isinstance(m, DecodeMeasurement)
            and isinstance(m.link, str)
            and m.link not in LINK_KINDS
            and m.link not in links
        ):
            bad(
                "link",
                f"unknown link '{m.link}': one of {', '.join(LINK_KINDS)} or an interconnects.yml id; "
                f"{did_you_mean(m.link, [*LINK_KINDS, *links])}",
            )


FittedList = tuple[str, list[str], int | None]  # a fitted figure's name, its fitted_on, the line of that list


def _check_fitted_on(
    fitted: Iterable[FittedList],
    measurements: Iterable[DecodeMeasurement | PrefillMeasurement | MemoryMeasurement],
    held_out: Iterable[DecodeMeasurement | PrefillMeasurement | MemoryMeasurement],
    sets: tuple[str, str],
    path: Path,
    problems: list[Problem],
) -> None:
    """A fitted figure names usable records of measurements.yml (``sets``: the lists it may name, the held-out lists
    it may not), never a held-out one."""
    usable = {m.id: m.unreliable for m in measurements}
    kept_apart = {m.id for m in held_out}
    fitted_sets, held_out_sets = sets
    for name, ids, line in fitted:
        for rid in ids:
            if rid in kept_apart:
                message = (
                    f"measurement '{rid}' is held out (measurements.yml {held_out_sets}) to judge the model on figures "
                    f"it was not fitted on; remove it from fitted_on or move it to {fitted_sets}"
                )
            elif rid not in usable:
                message = f"unknown measurement '{rid}' (not in measurements.yml); {did_you_mean(rid, usable)}"
            elif usable[rid] is not None:
                message = f"measurement '{rid}' is flagged unreliable in measurements.yml; a fit leaves it out"
            else:
                continue
            problems.append(Problem(path, line, name, "fitted_on", message))


def _engine_fitted_lists(engines: Iterable[ServerEngine | LlamaCppEngine], raw_list: list[Any]) -> list[FittedList]:
    """Every engine figure fitted on start-ups, with its fitted_on and the line of that list."""
    found = []
    for engine, raw in zip(engines, raw_list, strict=True):
        for name, figure in engine:
            if isinstance(figure, FittedFigure | SwitchBuffers):
                found.append((name, figure.fitted_on, line_of(raw.get(name), "fitted_on")))
    return found


def _check_held_out_apart(
    fitted: Iterable[DecodeMeasurement | MemoryMeasurement | PrefillMeasurement],
    held_out: Iterable[DecodeMeasurement | MemoryMeasurement | PrefillMeasurement],
    raw_held_out: list[Any],
    sets: tuple[str, str],
    path: Path,
    problems: list[Problem],
) -> None:
    """A held-out record comes from a table that gives no fitted (usable) record: runs measured together, in one
    table with one harness and build, are no test of a fit made on one of them."""
    fitted_in: dict[str, list[str]] = {}
    for m in fitted:
        if m.unreliable is None:
            fitted_in.setdefault(m.source_table, []).append(m.id)
    fitted_set, held_out_set = sets
    for m, raw in zip(held_out, raw_held_out, strict=True):
        if m.source_table in fitted_in:
            message = (
                f"held out, but its table '{m.source_table}' also gives fitted records "
                f"({', '.join(fitted_in[m.source_table])}): a run measured with them is no test of the fit; move it "
                f"to {fitted_set}, or them to {held_out_set}"
            )
            problems.append(Problem(path, line_of(raw, "source_table"), m.id, "source_table", message))


def _check_engines(
    engines: Iterable[ServerEngine | LlamaCppEngine],
    raw_list: list[Any],
    path: Path,
    precisions: Mapping[str, Precision],
    problems: list[Problem],
) -> None:
    """Every precision an engine names (runs by default, or also runs) exists; every language-model precision is run
    by exactly one engine;
    there is one server engine (a card's budget when no precision is named)."""
    runs: dict[str, str] = {}
    for engine, raw in zip(engines, raw_list, strict=True):
        for pid in engine.precisions:
            if pid not in precisions:
                problems.append(
                    Problem(
                        path,
                        line_of(raw, "precisions"),
                        engine.id,
                        "precisions",
                        f"unknown precision '{pid}' (not in precisions.yml); {did_you_mean(pid, precisions)}",
                    )
                )
            elif pid in runs:
                problems.append(
                    Problem(
                        path,
                        line_of(raw, "precisions"),
                        engine.id,
                        "precisions",
                        f"precision '{pid}' is already run by engine '{runs[pid]}'; name it once",
                    )
                )
            runs.setdefault(pid, engine.id)
        for pid in engine.also_runs:
            if pid not in precisions:
                problems.append(
                    Problem(
                        path,
                        line_of(raw, "also_runs"),
                        engine.id,
                        "also_runs",
                        f"unknown precision '{pid}' (not in precisions.yml); {did_you_mean(pid, precisions)}",
                    )
                )
    for pid, precision in precisions.items():
        if "llm" in precision.applies_to and pid not in runs:
            problems.append(
                Problem(
                    path,
                    None,
                    None,
                    "precisions",
                    f"no engine runs language-model precision '{pid}'; add it to one engine's precisions",
                )
            )
    if sum(isinstance(e, ServerEngine) for e in engines) != 1:
        problems.append(Problem(path, None, None, "engines", "expected exactly one engine of kind 'server'"))


MIN_PRICE_PER_GPU_HOUR_USD = 0.01  # a price shown per GPU-hour is at least a cent
# Model ids name pages (docs/<lang>/configurator/<model>.md): an id a page of the site already takes is refused
RESERVED_MODEL_IDS = {"index": "docs/<lang>/configurator/index.md is the configurator's own page"}


def _check_price_per_gpu_hour(
    nodes: Iterable[Node], raw_nodes: list[Any], path: Path, hours_per_month: int, problems: list[Problem]
) -> None:
    """Every node costs at least a cent per GPU-hour (assumptions.yml hours_per_month)."""
    for node, raw in zip(nodes, raw_nodes, strict=True):
        per_hour = node.price_per_month.amount / node.cards / hours_per_month
        if per_hour < MIN_PRICE_PER_GPU_HOUR_USD:
            problems.append(
                Problem(
                    path,
                    line_of(raw, "price_per_month"),
                    node.id,
                    "price_per_month.amount",
                    f"{node.price_per_month.amount:g} USD a month for {node.cards} card(s) is ${per_hour:.4f} per "
                    f"GPU-hour at {hours_per_month} hours a month; a price is at least "
                    f"${MIN_PRICE_PER_GPU_HOUR_USD:.2f} per GPU-hour",
                )
            )


def _check_context_presets(
    assumptions: Assumptions, raw: Any, models: Mapping[str, Model], path: Path
) -> list[Problem]:
    """Every context preset fits the window of at least one language model."""
    windows = [m.max_context_tokens for m in models.values() if isinstance(m, Llm)]
    largest = max(windows, default=0)
    too_long = [c for c in assumptions.context_presets_tokens.value if c > largest]
    if not windows or not too_long:
        return []
    return [
        Problem(
            path,
            line_of(raw.get("context_presets_tokens"), "value"),
            "context_presets_tokens",
            "value",
            f"preset {too_long[0]:,} tokens is above every model's max_context_tokens (at most {largest:,} in "
            "models.yml); a preset from 512 to that",
        )
    ]


def _check_model_ids(models: Mapping[str, Model], raw: Any, path: Path) -> list[Problem]:
    """No model id takes the path of a page of the site (RESERVED_MODEL_IDS)."""
    raw_models = {r.get("id"): r for r in [*raw["llms"], *raw["diffusion"]] if isinstance(r, Mapping)}
    return [
        Problem(
            path,
            line_of(raw_models.get(model_id), "id"),
            model_id,
            "id",
            f"'{model_id}' is a page of the site already ({RESERVED_MODEL_IDS[model_id]}); choose another id",
        )
        for model_id in models
        if model_id in RESERVED_MODEL_IDS
    ]


_current: dict[Path, tuple[str, Catalog]] = {}


def current_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    """``load_catalog(data_dir)``, loaded again only when a data file changed (``data_fingerprint``): a process
    that asks many times (``mkdocs serve``, the site's macros, a test session running the command lines) reads
    and validates each state of the data once."""
    folder = data_dir.resolve()
    fingerprint = data_fingerprint(folder)
    known = _current.get(folder)
    if known is None or known[0] != fingerprint:
        known = _current[folder] = (fingerprint, load_catalog(folder))
    return known[1]


def load_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    """Read and validate every file of ``data_dir``; raise CatalogError listing every problem."""
    parsed: dict[str, Any] = {}
    raws: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, (name, model) in FILES.items():
        parsed[key], raws[key], found = _read(data_dir, name, model)
        problems += found
    if problems:
        raise CatalogError(problems)

    def path(key: str) -> Path:
        return data_dir / FILES[key][0]

    gpus = _index(parsed["gpus"].gpus, path("gpus"), raws["gpus"]["gpus"], problems)
    links = _index(
        parsed["interconnects"].interconnects, path("interconnects"), raws["interconnects"]["interconnects"], problems
    )
    _check_figure_origins(
        parsed["interconnects"].interconnects, raws["interconnects"]["interconnects"], path("interconnects"), problems
    )
    nodes = _index(parsed["nodes"].nodes, path("nodes"), raws["nodes"]["nodes"], problems)
    precisions = _index(parsed["precisions"].precisions, path("precisions"), raws["precisions"]["precisions"], problems)
    models_file: ModelsFile = parsed["models"]
    every_model: list[Llm | DiffusionModel] = [*models_file.llms, *models_file.diffusion]
    models = _index(
        every_model,
        path("models"),
        [*raws["models"]["llms"], *raws["models"]["diffusion"]],
        problems,
    )
    _check_default_precisions(models, precisions, raws["models"], path("models"), problems)
    problems += _check_model_ids(models, raws["models"], path("models"))
    assumptions: Assumptions = parsed["assumptions"].assumptions
    problems += _check_context_presets(assumptions, raws["assumptions"]["assumptions"], models, path("assumptions"))
    _check_price_per_gpu_hour(
        parsed["nodes"].nodes, raws["nodes"]["nodes"], path("nodes"), assumptions.hours_per_month.value, problems
    )
    _check_nodes(parsed["nodes"].nodes, raws["nodes"]["nodes"], path("nodes"), gpus, links, problems)
    engines = _index(parsed["engines"].engines, path("engines"), raws["engines"]["engines"], problems)
    _check_engines(parsed["engines"].engines, raws["engines"]["engines"], path("engines"), precisions, problems)
    measured: MeasurementsFile = parsed["measurements"]
    _check_measurements(
        {"gpus": gpus, "models": models, "precisions": precisions, "interconnects": links},
        [*measured.decode, *measured.held_out, *measured.prefill, *measured.prefill_held_out],
        [
            *raws["measurements"]["decode"],
            *raws["measurements"].get("held_out", []),
            *raws["measurements"].get("prefill", []),
            *raws["measurements"].get("prefill_held_out", []),
        ],
        path("measurements"),
        problems,
    )
    _check_measurements(
        {"gpus": gpus, "models": models, "precisions": precisions, "interconnects": links},
        [*measured.memory, *measured.memory_held_out],
        [*raws["measurements"].get("memory", []), *raws["measurements"].get("memory_held_out", [])],
        path("measurements"),
        problems,
    )
    for fitted, held_out, sets in (
        (measured.decode, measured.held_out, ("decode", "held_out")),
        (measured.memory, measured.memory_held_out, ("memory", "memory_held_out")),
        (measured.prefill, measured.prefill_held_out, ("prefill", "prefill_held_out")),
    ):
        raw_held_out = raws["measurements"].get(sets[1], [])
        _check_held_out_apart(fitted, held_out, raw_held_out, sets, path("measurements"), problems)
    raw_assumptions = raws["assumptions"]["assumptions"]
    _check_fitted_on(
        [
            (name, a.fitted_on, line_of(raw_assumptions.get(name), "fitted_on"))
            for name, a in assumptions
            if isinstance(a, FittedAssumption)
        ],
        [*measured.decode, *measured.prefill],
        [*measured.held_out, *measured.prefill_held_out],
        ("decode (prefill for a time to first token)", "held_out or prefill_held_out"),
        path("assumptions"),
        problems,
    )
    _check_fitted_on(
        _engine_fitted_lists(parsed["engines"].engines, raws["engines"]["engines"]),
        measured.memory,
        measured.memory_held_out,
        ("memory", "memory_held_out"),
        path("engines"),
        problems,
    )
    if problems:
        raise CatalogError(problems)
    return Catalog(
        gpus=gpus,
        interconnects=links,
        nodes=nodes,
        prices_as_of=parsed["nodes"].prices_as_of,
        precisions=precisions,
        models=models,
        assumptions=parsed["assumptions"].assumptions,
        measurements=tuple(measured.decode),
        held_out_measurements=tuple(measured.held_out),
        prefill_measurements=tuple(measured.prefill),
        held_out_prefill_measurements=tuple(measured.prefill_held_out),
        memory_measurements=tuple(measured.memory),
        held_out_memory_measurements=tuple(measured.memory_held_out),
        engines=engines,
    )
