"""The cheapest nodes for a list of requirements, from the command line.

    python -m sizing.plan REQUIREMENTS.yml [--json] [--configuration ID]

REQUIREMENTS.yml is a YAML list; each requirement (sizing/catalog/schema.py ``PlanRequirement``):

    - id: team-chat                   # echoed back
      model: llama-3.3-70b            # models.yml id (a language model), or a shape as sizing.estimate takes
                                      #   it: {params_b, layers, hidden_size, kv_heads, head_dim, ...}
      precision: fp8                  # precisions.yml id; any (or absent): every format offered for the model
                                      #   (a model given by its shape needs one)
      prompt_tokens: 4000             # tokens of a request's prompt
      output_tokens: 500              # tokens of its answer
      users: 40                       # concurrent users; or requests_per_minute: 120 (exactly one of the two)
      min_tokens_per_s_per_user: 15   # the slowest acceptable speed of one answer
      max_ttft_s: 2                   # optional: the longest acceptable time to first token

Prints a JSON list (``--json``) or tables, one entry per requirement in order::

    {"id": "team-chat",
     "options": [{"configuration": "2x-h100-nvl-94gb", "precision": "fp8", "nodes": 1,
                  "price_per_month_usd": 3980, "usd_per_million_tokens": 1.1, "users_per_node": 40,
                  "tokens_per_s_per_user": {"typical": 38.9, "floor": 21.4}, "ttft_s": {"typical": 1.79},
                  "binding": "users"}, ...],
     "closest": [], "relax": null}

Options come cheapest first, one per node configuration (sizing/views/plan.py says how a plan is found).
Speeds and memory are those ``python -m sizing.estimate`` gives for the same node at ``users_per_node`` streams
and a context of prompt + output tokens. ``binding`` says what stops a node from serving more users: memory,
speed, ttft, engine_cap (the engine's running batch) or users (it already serves them all). When no option meets
the requirement, ``closest`` holds the nearest plans (loosened just enough) and ``relax`` what to loosen. An
option whose KV cache is kept in FP8 says ``"kv_cache_dtype": "fp8"``. A bad file is one error line per
problem on stderr, ``file:line:`` first, exit status 2. A file holds at most MAX_REQUIREMENTS (10) requirements,
so that a run stays under a minute: split a longer one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sizing.catalog.errors import CatalogError, did_you_mean, terminal_text
from sizing.catalog.loader import Catalog, current_catalog
from sizing.catalog.record_lists import RecordListError, read_records, record_label
from sizing.catalog.schema import InlineLlm, Llm, PlanRequirement
from sizing.command_line import JSON_ERRORS, print_answer, print_errors
from sizing.views.plan import Option, Relax, Requirement, closest, plan_for, relax
from sizing.views.plan_figures import ModelFigures, PlanFigures
from sizing.views.plan_tabulate import inline_model, model_figures, plan_figures, planned_model

ANY_PRECISION = "any"
INLINE_ID = "inline-model"  # a model given by its shape without an id
NOUN = "requirement"
MAX_REQUIREMENTS = 10  # one run's budget: the slowest requirements take 1.8 s each (18 s in all on 2 busy cores)


def _catalog_lines(catalog: Catalog, path: Path, index: int, raw: dict[str, Any], r: PlanRequirement) -> list[str]:
    """An unknown model or format, each at its line, with the nearest valid ids."""
    if isinstance(r.model, InlineLlm):
        return _inline_lines(catalog, path, index, raw, r)
    llms = [m for m, v in catalog.models.items() if isinstance(v, Llm)]
    model = catalog.models.get(r.model)
    if not isinstance(model, Llm):
        what = "unknown model" if model is None else "not a language model:"
        label = record_label(path, NOUN, index, raw, "model")
        return [f"{label}: {what} '{r.model}' (models.yml); {did_you_mean(r.model, llms)}"]
    offered = [p.id for p in catalog.precisions_for(model)]
    if r.prompt_tokens + r.output_tokens > model.max_context_tokens:
        label = record_label(path, NOUN, index, raw, "prompt_tokens")
        return [
            f"{label}: a prompt of {r.prompt_tokens:,} and an answer of {r.output_tokens:,} tokens exceed {r.model}'s "
            f"window of {model.max_context_tokens:,} tokens (models.yml max_context_tokens): shorten them"
        ]
    if r.precision is not None and r.precision not in (ANY_PRECISION, *offered):
        return [
            f"{record_label(path, NOUN, index, raw, 'precision')}: unknown precision '{r.precision}' for {r.model}; "
            f"one of {', '.join([ANY_PRECISION, *offered])}; {did_you_mean(r.precision, offered)}"
        ]
    return []


def _inline_lines(catalog: Catalog, path: Path, index: int, raw: dict[str, Any], r: PlanRequirement) -> list[str]:
    """A model given by its shape is planned in one format of precisions.yml for language models, named."""
    formats = [p for p, v in catalog.precisions.items() if "llm" in v.applies_to]
    if r.precision is None or r.precision not in formats:
        label = record_label(path, NOUN, index, raw, "precision" if r.precision is not None else "model")
        asked = "no precision" if r.precision is None else f"unknown precision '{r.precision}'"
        return [f"{label}: {asked} for a model given by its shape; name one of {', '.join(formats)}"]
    return []


def read_requirements(path: Path, catalog: Catalog) -> list[PlanRequirement]:
    """Parse and validate the file against the catalog; RecordListError lists every problem."""
    return read_records(
        path,
        NOUN,
        PlanRequirement,
        lambda index, raw, r: _catalog_lines(catalog, path, index, raw, r),
        MAX_REQUIREMENTS,
    )


def requirement_of(r: PlanRequirement) -> Requirement:
    return Requirement(
        model=r.model if isinstance(r.model, str) else r.model.id or INLINE_ID,
        prompt_tokens=r.prompt_tokens,
        output_tokens=r.output_tokens,
        users=r.users or 0,
        min_tokens_per_s_per_user=r.min_tokens_per_s_per_user,
        precision=None if r.precision == ANY_PRECISION else r.precision,
        max_ttft_s=r.max_ttft_s,
        requests_per_minute=r.requests_per_minute,
    )


def option_json(option: Option) -> dict[str, Any]:
    """One option as the JSON answer gives it (speeds to 0.1 token/s, times to 0.01 s, cost to 0.001 USD, shares
    to 0.001)."""
    load = option.load
    out: dict[str, Any] = {
        "configuration": option.configuration,
        "precision": option.precision,
        "cards_per_copy": option.candidate.cards_per_copy,
        "nodes": option.nodes,
        "price_per_month_usd": option.price_per_month_usd,
        "usd_per_million_tokens": round(option.usd_per_million_tokens, 3),
        "users_per_node": option.users_per_node,
        "tokens_per_s_per_user": {"typical": round(load.typical, 1), "floor": round(load.floor, 1)},
        "ttft_s": {"typical": round(load.ttft, 2), "at_most": round(load.ttft_at_most, 2)},
        "prompt_peak_share": round(load.prompt_peak_share, 3),
        "binding": option.binding,
    }
    if load.kv_cache_dtype == "fp8":
        out["kv_cache_dtype"] = "fp8"
    return out


def relax_text(parts: list[Relax], requirement: Requirement, formats: list[str]) -> str:
    """What to loosen, in words."""
    said = []
    for part in parts:
        if part.kind == "no_fit":
            said.append(
                f"no node holds {requirement.model} ({', '.join(formats)}) with the KV cache of one user at "
                f"{requirement.context_tokens:,} tokens: try a lighter format or a shorter prompt"
            )
        elif part.kind == "speed":
            said.append(
                f"the fastest is {part.value:.1f} tokens/s per user at its floor ({part.configuration}, "
                f"{part.precision}): ask for at most that, or use a lighter format"
            )
        elif part.kind == "ttft":
            said.append(
                f"the shortest time to first token is {part.value:.2f} s at most ({part.configuration}): allow "
                "that, or shorten the prompt"
            )
        else:
            said.append("no single configuration meets both limits at once: loosen the speed or the first token")
    return "; ".join(said)


class Figures:
    """The plan's figures of each catalog model asked about (of one configuration where the run names one), each
    computed once in a run; a model given by its shape, for its requirement alone."""

    def __init__(self, catalog: Catalog, configuration: str | None) -> None:
        self.catalog, self.configuration = catalog, configuration
        self.models: dict[str, ModelFigures] = {}

    def of(self, r: PlanRequirement) -> PlanFigures:
        c = self.catalog
        if isinstance(r.model, InlineLlm):
            assert r.precision is not None  # _inline_lines
            planned = inline_model(c, r.model, c.precisions[r.precision], r.prompt_tokens + r.output_tokens)
            figures = model_figures(c, replace(planned, id=requirement_of(r).model), self.configuration)
            return plan_figures(c, {figures.model: figures})
        if r.model not in self.models:
            llm = c.models[r.model]
            assert isinstance(llm, Llm)
            self.models[r.model] = model_figures(c, planned_model(c, llm), self.configuration)
        return plan_figures(c, {r.model: self.models[r.model]})


def answer(catalog: Catalog, figures: Figures, r: PlanRequirement) -> dict[str, Any]:
    requirement = requirement_of(r)
    plan = figures.of(r)
    options = plan_for(plan, requirement)
    formats = list(plan.models[requirement.model].precisions)
    return {
        "id": r.id,
        "options": [option_json(o) for o in options],
        "closest": [] if options else [option_json(o) for o in closest(plan, requirement)],
        "relax": None if options else relax_text(relax(plan, requirement), requirement, formats),
    }


def table(entry: dict[str, Any]) -> str:
    header: tuple[str, ...] = ("configuration", "precision", "nodes", "users/node", "typical tok/s", "floor tok/s")
    header += ("ttft s", "at most s", "USD/month", "USD/M tokens", "binding")
    rows = entry["options"] or entry["closest"]
    body = [
        (
            o["configuration"] + (" (kv fp8)" if o.get("kv_cache_dtype") else ""),
            o["precision"],
            str(o["nodes"]),
            str(o["users_per_node"]),
            str(o["tokens_per_s_per_user"]["typical"]),
            str(o["tokens_per_s_per_user"]["floor"]),
            str(o["ttft_s"]["typical"]),
            str(o["ttft_s"]["at_most"]),
            f"{o['price_per_month_usd']:,.0f}",
            str(o["usd_per_million_tokens"]),
            o["binding"],
        )
        for o in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(
            text.ljust(w) if i in (0, 1, 10) else text.rjust(w)
            for i, (text, w) in enumerate(zip(line, widths, strict=True))
        )
        for line in [header, *body]
    ]
    title = f"{terminal_text(entry['id'] or 'requirement')}: " + (
        "options, cheapest first" if entry["options"] else "nothing meets it"
    )
    out = [title, lines[0], "  ".join("-" * w for w in widths), *lines[1:]]
    if entry["relax"]:
        out.append(f"closest plans above; to meet it: {entry['relax']}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sizing.plan", description=__doc__.split("\n\n")[0])
    parser.add_argument("requirements", type=Path, help="YAML list of requirements")
    parser.add_argument("--json", action="store_true", help=f"print a JSON list instead of tables ({JSON_ERRORS})")
    parser.add_argument(
        "--configuration", metavar="ID", help="plan on this node configuration only (an id of the catalog's)"
    )
    args = parser.parse_args(argv)
    try:
        catalog = current_catalog()
        if args.configuration is not None and args.configuration not in catalog.configurations:
            asked, known = args.configuration, list(catalog.configurations)
            return print_errors([f"--configuration: unknown configuration '{asked}'; {did_you_mean(asked, known)}"])
        figures = Figures(catalog, args.configuration)
        entries = [answer(catalog, figures, r) for r in read_requirements(args.requirements, catalog)]
    except RecordListError as exc:
        return print_errors(exc.lines)
    except CatalogError as exc:
        return print_errors(f"the catalog in data/ is invalid: {problem}" for problem in exc.problems)
    return print_answer(json.dumps(entries, indent=2) if args.json else "\n\n".join(table(e) for e in entries))


if __name__ == "__main__":
    sys.exit(main())
