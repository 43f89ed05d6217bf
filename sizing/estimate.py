"""Decode speed for a list of scenarios, from the command line.

    python -m sizing.estimate SCENARIOS.yml [--json]

SCENARIOS.yml is a YAML list; each scenario (sizing/catalog/schema.py ``DecodeScenario``):

    - id: llama-70b-4xa100            # echoed back
      gpu: a100-sxm4-80gb             # gpus.yml id, or {memory_gb, memory_bandwidth_gbps, bf16_dense_tflops}
      cards: 4                        # default 1
      link: nvlink                    # none (default) | pcie | nvlink | nvlink-bridge | an interconnects.yml id
      parallelism: tensor             # tensor (default) | layers
      model: llama-3.3-70b            # models.yml id, or {params_b, active_params_b (MoE only), layers,
                                      #   hidden_size, kv_heads, head_dim}
      precision: bf16                 # precisions.yml id; default the model's default precision
      concurrency: 32                 # streams decoding together; default 1
      context_tokens: 8192            # default assumptions.yml default_context_tokens
      engine_class: server            # server | llama.cpp; default llama.cpp for a GGUF format, else server
      kv_cache_dtype: bf16            # bf16 (default) | fp8 (vLLM --kv-cache-dtype fp8)
      prompt_tokens_per_output_token: 0   # steady serving: other requests' prompts share the steps; default 0
      prompt_tokens: 4000             # or a request's prompt and answer: the time to first token among the
      output_tokens: 500              #   concurrency's streams, their prompts inside the steps (sizing.engine.load)
      gpu_layers: 42                  # llama.cpp only: layers on the cards (--n-gpu-layers), the rest in host memory
      cpu_moe_layers: 36              # llama.cpp, a MoE model: the first layers' experts in host memory (--n-cpu-moe)
      host_memory_bandwidth_gbps: 204.8   # llama.cpp only: the host's memory bandwidth; default assumptions.yml

Prints a JSON list (``--json``) or a table, one entry per scenario in order::

    {"id": ..., "fits": true, "reason": null, "to_fit": [], "engine_class": "server", "kv_cache_dtype": "bf16",
     "verdict": "split", "setting": null, "gpu_layers": null, "streams_that_fit": 52, "streams_running": 32,
     "streams_waiting": 0,
     "note": null, "tokens_per_s_per_stream": {"typical": 30.1, "floor": 16.6},
     "tokens_per_s_total": {"typical": 963.2, "floor": 531.2}, "ttft_s": null,
     "full_load": {"streams": 52, "tokens_per_s_per_stream": {...}, "tokens_per_s_total": {...}}}

``fits``: the weights and ``concurrency`` streams of ``context_tokens`` fit in memory. When they do not, ``reason``
says what is short (``weights``, ``reserve``: the engine's own memory beside them, ``kv_cache``) and ``to_fit``
what would make it fit; the streams that fit still run (``streams_running``), the others wait
(``streams_waiting``), and the speeds are theirs; they are null only when the weights themselves do not fit.
``tokens_per_s_*`` are at the streams running; ``full_load`` at every stream that fits. A scenario that gives a
request (``prompt_tokens``, ``output_tokens``) gets ``ttft_s``, its time to first token typically and at most among
the streams running, each asking again as its answer ends, and speeds at that concurrency with their prompts inside
the steps (``sizing.engine.load``); null otherwise. A GGUF model whose weights
exceed its cards runs with the layers that do not fit in host memory when the host's memory holds them, as llama.cpp
runs it (``gpu_layers``: the layers on the cards; one stream at a time unless the scenario names its layers).
``verdict`` and ``setting`` are the configurator's for the same GPU, cards, model, format and context (null for
inline figures); the figures use the setting the verdict names. Every problem of the file (unknown key, unknown id,
wrong value) is one error line on stderr with its file:line, all at once; exit status 2. A file holds at most
MAX_SCENARIOS (1,000) scenarios, so that a run takes seconds: split a longer one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sizing.catalog.errors import CatalogError, terminal_text
from sizing.catalog.loader import Catalog, current_catalog
from sizing.catalog.record_lists import RecordListError, read_records, record_label
from sizing.catalog.schema import DecodeScenario
from sizing.command_line import JSON_ERRORS, print_answer, print_errors
from sizing.engine.scenarios import ScenarioError
from sizing.views.estimates import Answer, Speeds, answer, check_id

NOUN = "scenario"
MAX_SCENARIOS = 1_000  # one run's budget: the slowest scenarios take 2.5 ms each (about 3 s in all on 2 busy cores)


def _id_problems(catalog: Catalog, path: Path, index: int, raw: dict[str, Any], scenario: DecodeScenario) -> list[str]:
    """Each id the scenario names that the catalog lacks, at its line; then what else resolving refuses."""
    lines = []
    for field in ("gpu", "model", "precision", "link"):
        try:
            check_id(catalog, scenario, field)
        except ScenarioError as exc:
            lines.append(f"{record_label(path, NOUN, index, raw, field)}: {exc}")
    if not lines:
        try:
            answer(catalog, scenario)
        except ScenarioError as exc:
            lines.append(f"{record_label(path, NOUN, index, raw)}: {exc}")
    return lines


def read_scenarios(path: Path, catalog: Catalog | None = None) -> list[DecodeScenario]:
    """Parse and validate the file against the schema and the catalog; RecordListError lists every problem
    of every scenario at once, each at its file:line."""
    known = current_catalog() if catalog is None else catalog
    return read_records(
        path,
        NOUN,
        DecodeScenario,
        lambda index, raw, scenario: _id_problems(known, path, index, raw, scenario),
        MAX_SCENARIOS,
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _speeds(speeds: Speeds | None) -> dict[str, Any]:
    """Per-stream and total figures with the streams they are for (all None when nothing runs)."""
    if speeds is None:
        return {
            "streams": None,
            "tokens_per_s_per_stream": {"typical": None, "floor": None},
            "tokens_per_s_total": {"typical": None, "floor": None},
        }
    return {
        "streams": speeds.streams,
        "tokens_per_s_per_stream": {
            "typical": _rounded(speeds.per_stream_typical),
            "floor": _rounded(speeds.per_stream_floor),
        },
        "tokens_per_s_total": {"typical": _rounded(speeds.total_typical), "floor": _rounded(speeds.total_floor)},
    }


def result_of(a: Answer) -> dict[str, Any]:
    """One scenario's JSON: the figures at its concurrency at the top level, those at full load apart."""
    at_concurrency = _speeds(a.at_concurrency)
    return {
        "id": a.id,
        "fits": a.fits,
        "reason": a.reason,
        "to_fit": a.to_fit,
        "engine_class": a.engine_class,
        "kv_cache_dtype": a.kv_cache_dtype,
        "verdict": a.verdict,
        "setting": a.setting,
        "gpu_layers": a.gpu_layers,
        "streams_that_fit": a.streams_that_fit,
        "streams_running": a.streams_running,
        "streams_waiting": a.streams_waiting,
        "note": a.note,
        "tokens_per_s_per_stream": at_concurrency["tokens_per_s_per_stream"],
        "tokens_per_s_total": at_concurrency["tokens_per_s_total"],
        "ttft_s": None
        if a.first_token is None
        else {
            "typical": round(a.first_token.typical_seconds, 3),
            "at_most": round(a.first_token.at_most_seconds, 3),
        },
        "full_load": _speeds(a.at_full_load),
    }


def results(scenarios: Sequence[DecodeScenario], catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """One JSON-ready result per scenario, in order."""
    catalog = current_catalog() if catalog is None else catalog
    return [result_of(answer(catalog, scenario)) for scenario in scenarios]


def table(rows: list[dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        return "-" if value is None else str(value)

    header = ("id", "fits", "streams", "waiting", "typical tok/s", "floor tok/s", "total tok/s", "full-load tok/s")
    body = [
        (
            cell(None if r["id"] is None else terminal_text(r["id"])),
            "yes" if r["fits"] else f"no ({r['reason']})",
            str(r["streams_that_fit"]),
            str(r["streams_waiting"]),
            cell(r["tokens_per_s_per_stream"]["typical"]),
            cell(r["tokens_per_s_per_stream"]["floor"]),
            cell(r["tokens_per_s_total"]["typical"]),
            cell(r["full_load"]["tokens_per_s_total"]["typical"]),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(
            text.ljust(w) if i == 0 else text.rjust(w) for i, (text, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in [header, *body]
    ]
    notes = [f"{terminal_text(r['id'] or 'scenario')}: {r['note']}" for r in rows if r["note"]]
    notes += [f"{terminal_text(r['id'] or 'scenario')}: to fit: {'; '.join(r['to_fit'])}" for r in rows if r["to_fit"]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:], *notes])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sizing.estimate", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", type=Path, help="YAML list of scenarios")
    parser.add_argument("--json", action="store_true", help=f"print a JSON list instead of a table ({JSON_ERRORS})")
    args = parser.parse_args(argv)
    try:
        catalog = current_catalog()
        rows = results(read_scenarios(args.scenarios, catalog), catalog)
    except RecordListError as exc:
        return print_errors(exc.lines)
    except CatalogError as exc:
        return print_errors(f"the catalog in data/ is invalid: {problem}" for problem in exc.problems)
    return print_answer(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    sys.exit(main())
