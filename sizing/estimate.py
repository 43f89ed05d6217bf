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
      concurrency: 1                  # streams decoding together; default 1
      context_tokens: 8192            # default assumptions.yml default_context_tokens
      engine_class: server            # server (default) | llama.cpp
      prompt_tokens_per_output_token: 0   # steady serving: other requests' prompts share the steps; default 0

Prints a JSON list (``--json``) or a table, one entry per scenario in order::

    {"id": ..., "fits": true, "streams_that_fit": 12,
     "tokens_per_s_per_stream": {"typical": 37.1, "floor": 25.0}, "tokens_per_s_total": {"typical": 310.0}}

``fits``: the weights and ``concurrency`` streams of ``context_tokens`` fit in memory; when they do not, the speeds
are null. ``tokens_per_s_total`` is the total with ``streams_that_fit`` streams running. A bad scenario (unknown
key, unknown id, wrong value) is one error line each on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sizing.catalog.errors import CatalogError, shown_value
from sizing.catalog.loader import load_catalog
from sizing.catalog.schema import UNION_TAGS, DecodeScenario
from sizing.catalog.yaml_lines import line_of, load_yaml
from sizing.engine.scenarios import ScenarioError, estimate


class ScenarioFileError(Exception):
    """The scenarios file cannot be used; ``lines`` are the messages, one per problem."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("\n".join(lines))


def _label(index: int, raw: Any, path: Path | None = None, key: str | None = None) -> str:
    name = raw.get("id") if isinstance(raw, dict) else None
    line = line_of(raw, key) if path is not None else None
    where = f"{path}:{line}: " if line else ""
    return where + f"scenario {index + 1}" + (f" ('{name}')" if name is not None else "")


def _validation_lines(path: Path, index: int, raw: dict[str, Any], error: ValidationError) -> list[str]:
    lines = []
    for e in error.errors():
        loc = [k for k in e["loc"] if k not in UNION_TAGS]
        label = _label(index, raw, path, loc[0] if loc and isinstance(loc[0], str) else None)
        field = ".".join(str(k) for k in loc)
        if e["type"] == "extra_forbidden":
            valid = ", ".join(DecodeScenario.model_fields) if len(loc) == 1 else None
            lines.append(f"{label}: unknown key '{field}'" + (f"; valid keys: {valid}" if valid else ""))
        elif e["type"] == "missing":
            lines.append(f"{label}: missing key '{field}'")
        else:
            message = e["msg"].removeprefix("Value error, ")
            found = "" if e["type"] == "value_error" else f" (found {shown_value(e.get('input'))})"
            lines.append(f"{label}: {field}: {message}{found}")
    return lines


def read_scenarios(path: Path) -> list[DecodeScenario]:
    """Parse and validate the file; ScenarioFileError lists every problem."""
    try:
        raw = load_yaml(path)  # a key given twice is an error, not silently the last one
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise ScenarioFileError([f"{where}: invalid YAML: {getattr(exc, 'problem', None) or exc}"]) from None
    except OSError as exc:
        raise ScenarioFileError([f"{path}: cannot be read: {exc.strerror}"]) from None
    except ValueError as exc:  # not YAML text at all (yaml_lines.DataFileError, undecodable bytes)
        raise ScenarioFileError([f"{path}: cannot be read: {exc}"]) from None
    if not isinstance(raw, list):
        raise ScenarioFileError([f"{path}: expected a YAML list of scenarios, found {type(raw).__name__}"])
    scenarios, problems = [], []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            problems.append(f"{_label(index, item)}: expected a mapping of keys, found {type(item).__name__}")
            continue
        try:
            scenarios.append(DecodeScenario.model_validate(dict(item)))
        except ValidationError as exc:
            problems += _validation_lines(path, index, item, exc)
    if problems:
        raise ScenarioFileError(problems)
    return scenarios


def _rounded(value: float) -> float:
    return round(value, 1)


def results(scenarios: Sequence[DecodeScenario]) -> list[dict[str, Any]]:
    """One JSON-ready result per scenario; ScenarioFileError lists every scenario naming an unknown id."""
    catalog = load_catalog()
    out, problems = [], []
    for index, scenario in enumerate(scenarios):
        try:
            e = estimate(catalog, scenario)
        except ScenarioError as exc:
            problems.append(f"{_label(index, {'id': scenario.id})}: {exc}")
            continue
        fits = e.streams_that_fit >= scenario.concurrency
        out.append(
            {
                "id": scenario.id,
                "fits": fits,
                "streams_that_fit": e.streams_that_fit,
                "tokens_per_s_per_stream": {
                    "typical": _rounded(e.typical_tokens_per_s_per_stream) if fits else None,
                    "floor": _rounded(e.floor_tokens_per_s_per_stream) if fits else None,
                },
                "tokens_per_s_total": {"typical": _rounded(e.typical_tokens_per_s_total) if fits else None},
            }
        )
    if problems:
        raise ScenarioFileError(problems)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        return "-" if value is None else str(value)

    header = ("id", "fits", "streams", "typical tok/s", "floor tok/s", "total tok/s")
    body = [
        (
            cell(r["id"]),
            "yes" if r["fits"] else "no",
            str(r["streams_that_fit"]),
            cell(r["tokens_per_s_per_stream"]["typical"]),
            cell(r["tokens_per_s_per_stream"]["floor"]),
            cell(r["tokens_per_s_total"]["typical"]),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(text.ljust(w) if i == 0 else text.rjust(w) for i, (text, w) in enumerate(zip(line, widths)))
        for line in [header, *body]
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sizing.estimate", description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", type=Path, help="YAML list of scenarios")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    args = parser.parse_args(argv)
    try:
        rows = results(read_scenarios(args.scenarios))
    except ScenarioFileError as exc:
        for line in exc.lines:
            print(f"error: {line}", file=sys.stderr)
        return 2
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(rows, indent=2) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
