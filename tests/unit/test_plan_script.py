"""The Plan page's script (docs/en/assets/plan-model.js) reads api/plan.json and answers as ``python -m sizing.plan``
does: on a grid of requirements, the same configurations in the same order, and every figure within 2 %. The page
(plan-page.js) refuses, in its language, a requirement beyond the command line's bounds, and never writes a figure
its rounding would make up."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from sizing.catalog.loader import Catalog, load_catalog
from sizing.views.plan import (
    Option,
    Requirement,
    best_per_configuration,
    candidates,
    closest,
    option_for,
    relax,
    shortfalls,
)

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "docs/en/assets/plan-model.js"
TOLERANCE = 0.02
PLAN_DOCUMENT = re.compile(r"api/plan(/[^/]+)?\.json")  # api/plan.json, api/plan/<model>.json: what the page reads
RUNNER = """
const fs = require("fs");
const model = require(process.argv[1]);
const documents = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const requirements = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const answers = requirements.map((r) => {
  const doc = model.withModel(documents["api/plan.json"], documents["api/plan/" + r.model + ".json"]);
  const options = model.plan(doc, r);
  const walk = model.planSteps(doc, r);
  let steps = 0;
  while (!walk.next().done) steps += 1;
  return { options, steps, closest: options.length ? [] : model.closest(doc, r), relax: options.length ? [] : model.relax(doc, r) };
});
process.stdout.write(JSON.stringify(answers));
"""

# (model, precision, prompt, output, users, tokens/s per user, TTFT limit, requests per minute): prompts and outputs
# off the ladders, users 1..200, precisions named and "any", impossible ones at the end
GRID = [
    ("llama-3.3-70b", None, 4000, 500, 40, 15, 2.0, None),
    ("llama-3.3-70b", "fp8", 3000, 700, 120, 20, None, None),
    ("llama-3.3-70b", None, 30000, 1000, 8, 10, 10.0, None),
    ("llama-3.1-8b", None, 8000, 500, 64, 5, None, None),
    ("llama-3.1-8b", "bf16", 700, 300, 200, 40, 1.0, None),
    ("llama-3.1-8b", None, 1500, 250, 1, 60, None, None),
    ("llama-3.1-8b", None, 2000, 400, 10, 20, None, 90.0),
    ("qwen2.5-72b", None, 16000, 300, 20, 15, 5.0, None),
    ("qwen2.5-72b", "int4-awq-gptq", 5000, 900, 33, 12, None, None),
    ("qwen3-32b", None, 8000, 800, 30, 30, 3.0, None),
    ("qwen3-32b", "gguf-q4_k_m", 1200, 600, 5, 20, None, None),
    ("mistral-small-3-24b", None, 2500, 350, 75, 25, 1.5, None),
    ("gemma-3-27b", None, 12000, 600, 17, 18, None, None),
    ("gemma-3-27b", "bf16", 50000, 2000, 3, 10, 20.0, None),
    ("mixtral-8x7b", None, 3500, 450, 90, 20, None, None),
    ("qwen3-235b-a22b", None, 6000, 700, 12, 15, 4.0, None),
    ("llama-3.1-405b", None, 2000, 500, 6, 8, None, None),
    ("deepseek-v3", None, 3000, 600, 4, 10, None, None),
    ("qwen3-32b", None, 900, 150, 200, 10, None, None),
    ("mixtral-8x7b", "fp8", 6000, 800, 25, 30, 2.5, None),
    ("gemma-3-27b", None, 3000, 400, 150, 12, 3.0, None),
    ("qwen2.5-72b", None, 10000, 1200, 60, 8, None, 30.0),
    ("llama-3.3-70b", "int4-awq-gptq", 1500, 350, 200, 20, 1.0, None),
    ("mistral-small-3-24b", "bf16", 20000, 1500, 7, 40, None, None),
    ("deepseek-v3", None, 8000, 1000, 30, 20, 6.0, None),
    ("qwen3-235b-a22b", "fp8", 2500, 300, 64, 25, None, None),
    ("llama-3.1-8b", "gguf-q4_k_m", 3000, 600, 3, 50, 1.0, None),
    ("qwen2.5-72b", "gguf-q4_k_m", 10000, 1200, 60, 8, None, 30.0),  # llama.cpp's buffer grows with the context
    ("llama-3.3-70b", "int4-awq-gptq", 3500, 500, 3, 10, None, None),  # RTX 4090 pairs fit with --max-num-seqs
    ("qwen2.5-72b", "fp8", 24000, 2000, 2, 5, None, None),  # so do RTX 4090 quads, between two contexts of the ladder
    ("llama-3.3-70b", None, 4000, 500, 40, 500, None, None),  # no node is that fast
    ("qwen3-32b", None, 30000, 2000, 5, 10, 0.2, None),  # nor reads that prompt that soon
    ("llama-3.1-8b", None, 20000, 500, 10, 10, 0.05, None),  # no prompt is read that soon
    ("llama-3.1-405b", "bf16", 100000, 20000, 2, 5, None, None),  # no node holds it
]


def requirement_of(row: tuple[Any, ...]) -> Requirement:
    model, precision, prompt, output, users, speed, ttft, rate = row
    return Requirement(model, prompt, output, users, speed, precision, ttft, rate)


def figures(option: Option) -> dict[str, Any]:
    """What a table row shows, from Python, named as the script names it."""
    return {
        "configuration": option.candidate.configuration.id,
        "precision": option.candidate.precision.id,
        "kvCacheDtype": option.load.kv_cache_dtype,
        "nodes": option.nodes,
        "usersPerNode": option.users_per_node,
        "pricePerMonthUsd": option.price_per_month_usd,
        "usdPerMillionTokens": option.usd_per_million_tokens,
        "typical": option.load.typical,
        "floor": option.load.floor,
        "ttft": option.load.ttft.typical_seconds,
    }


def script_figures(option: dict[str, Any]) -> dict[str, Any]:
    load = option["load"]
    keys = ("configuration", "precision", "kvCacheDtype", "nodes", "usersPerNode", "pricePerMonthUsd")
    return {k: option[k] for k in keys} | {
        "usdPerMillionTokens": option["usdPerMillionTokens"],
        "typical": load["typical"],
        "floor": load["floor"],
        "ttft": load["ttft"],
    }


def relax_words(parts: list[dict[str, Any]]) -> str:
    """The script's parts of a relax answer in the words of ``sizing.views.plan.relax``."""
    said = []
    for part in parts:
        if part["kind"] == "no_fit":
            return (
                f"no node holds {part['model']} ({', '.join(part['formats'])}) with the KV cache of one user at "
                f"{part['contextTokens']:,} tokens: try a lighter format or a shorter prompt"
            )
        if part["kind"] == "speed":
            said.append(
                f"the fastest is {part['tokensPerS']:.1f} tokens/s per user ({part['configuration']}, "
                f"{part['precision']}): ask for at most that, or use a lighter format"
            )
        if part["kind"] == "ttft":
            said.append(
                f"the shortest time to first token is {part['seconds']:.2f} s ({part['configuration']}): allow that, "
                "or shorten the prompt"
            )
        if part["kind"] == "both":
            said.append(
                "no single configuration meets both limits at once: loosen the speed or the time to first token"
            )
    return "; ".join(said)


@pytest.fixture(scope="module")
def plan_documents(api_documents: dict[str, Any]) -> dict[str, Any]:
    """api/plan.json and each api/plan/<model>.json, as the build writes them."""
    return {path: document for path, document in api_documents.items() if PLAN_DOCUMENT.fullmatch(path)}


@pytest.fixture(scope="module")
def answers(
    tmp_path_factory: pytest.TempPathFactory, plan_documents: dict[str, Any]
) -> list[tuple[Requirement, dict[str, Any]]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    folder = tmp_path_factory.mktemp("plan")
    (folder / "plan.json").write_text(json.dumps(plan_documents), encoding="utf-8")
    requirements = [requirement_of(row) for row in GRID]
    (folder / "requirements.json").write_text(json.dumps([asdict(r) for r in requirements]), encoding="utf-8")
    out = subprocess.run(
        [node, "-e", RUNNER, str(SCRIPT), str(folder / "plan.json"), str(folder / "requirements.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return list(zip(requirements, json.loads(out.stdout), strict=True))


def relative_error(python: float, script: float) -> float:
    return abs(script - python) / abs(python) if python else abs(script)


Key = tuple[str, str, int, str]


def key_of(option: Option) -> Key:
    c = option.candidate
    return (c.configuration.id, c.precision.id, c.cards_per_copy, c.kv_cache_dtype)


def script_key(option: dict[str, Any]) -> Key:
    keys = ("configuration", "precision", "cardsPerCopy", "candidateKvCacheDtype")
    return tuple(option[k] for k in keys)


def ties(option: Option, best: Option) -> bool:
    """Python's order rule cannot tell them apart within 2 %: the same price and cache, speeds within 2 %."""
    return (
        option.price_per_month_usd == best.price_per_month_usd
        and option.load.kv_cache_dtype == best.load.kv_cache_dtype
        and relative_error(best.load.typical, option.load.typical) <= TOLERANCE
    )


def compared(expected: dict[str, Any], got: dict[str, Any], worst: dict[str, float]) -> list[str]:
    """Figures of the script off by more than 2 % (``worst`` keeps each figure's largest relative error)."""
    found = []
    for key, value in expected.items():
        if isinstance(value, str):
            if got[key] != value:
                found.append(f"{expected['configuration']} {key}: {value} != {got[key]}")
            continue
        error = relative_error(value, got[key])
        worst[key] = max(worst.get(key, 0.0), error)
        if error > TOLERANCE:
            found.append(f"{expected['configuration']} {key}: {value:.4g} != {got[key]:.4g}")
    return found


def in_order(options: list[Option]) -> bool:
    """Cheapest first; at one price the 16-bit cache first, then the faster (within 2 %)."""
    for a, b in itertools.pairwise(options):
        if a.price_per_month_usd != b.price_per_month_usd:
            if a.price_per_month_usd > b.price_per_month_usd:
                return False
        elif (a.load.kv_cache_dtype == "fp8") != (b.load.kv_cache_dtype == "fp8"):
            if a.load.kv_cache_dtype == "fp8":
                return False
        elif a.load.typical < b.load.typical * (1 - TOLERANCE):
            return False
    return True


@dataclass(frozen=True)
class PythonPlan:
    """What Python answers to one requirement: its option on every candidate, and its choice per configuration."""

    every: dict[Key, Option]
    best: dict[str, Option]

    @classmethod
    def of(cls, catalog: Catalog, requirement: Requirement) -> PythonPlan:
        found = (option_for(catalog, c, requirement) for c in candidates(catalog, requirement))
        every = {key_of(o): o for o in found if o}
        return cls(every, {o.candidate.configuration.id: o for o in best_per_configuration(every.values())})


def within_limits(requirement: Requirement, factor: float) -> Requirement:
    """The requirement with its limits ``factor`` looser (above one) or tighter (below one)."""
    return replace(
        requirement,
        min_tokens_per_s_per_user=requirement.min_tokens_per_s_per_user / factor,
        max_ttft_s=None if requirement.max_ttft_s is None else requirement.max_ttft_s * factor,
        requests_per_minute=None
        if requirement.requests_per_minute is None
        else requirement.requests_per_minute / factor,
    )


def option_differences(option: dict[str, Any], answer: PythonPlan, worst: dict[str, float]) -> list[str]:
    """How the script's option differs from Python's answer: a way Python does not choose for the configuration
    (unless it ties with Python's choice), or a figure off by more than 2 % from Python's for the same way."""
    python = answer.every.get(script_key(option))
    if python is None or option["configuration"] not in answer.best:
        return [f"{script_key(option)}: Python finds no plan on it"]
    found = [] if ties(python, answer.best[option["configuration"]]) else [f"{script_key(option)} is not chosen"]
    return found + compared(figures(python), script_figures(option), worst)


EDGE_FACTORS = (1.0025, 1 / 1.0025, 1.005, 1 / 1.005, 1.01, 1 / 1.01, 1.02, 1 / 1.02)


class Variants:
    """Python's answers to the requirement with its limits a little looser or tighter, up to 2 %, computed when
    first asked for."""

    def __init__(self, catalog: Catalog, requirement: Requirement) -> None:
        self.catalog, self.requirement = catalog, requirement
        self.found: dict[float, PythonPlan] = {}

    def __getitem__(self, factor: float) -> PythonPlan:
        if factor not in self.found:
            self.found[factor] = PythonPlan.of(self.catalog, within_limits(self.requirement, factor))
        return self.found[factor]

    def matching(self, option: dict[str, Any]) -> PythonPlan | None:
        return next((self[f] for f in EDGE_FACTORS if not option_differences(option, self[f], {})), None)


def plan_differences(
    catalog: Catalog, requirement: Requirement, got: list[dict[str, Any]], worst: dict[str, float]
) -> tuple[list[str], int]:
    """Where the script's plan differs from Python's: another set of configurations, another way (format, split,
    cache) for one, an order Python's rule does not allow, or a figure off by more than 2 %. An option on the edge
    of a limit (a user more or less per copy flips with the last digit of a speed or a time) may instead be
    Python's answer to the requirement with its limits up to 2 % looser or tighter; how many were, is returned."""
    exact = PythonPlan.of(catalog, requirement)
    variants = Variants(catalog, requirement)
    found: list[str] = []
    chosen: list[Option] = []
    edges = 0
    for option in got:
        answer = exact
        differences = option_differences(option, exact, {})
        if differences:
            edge = variants.matching(option)
            if edge is None:
                found += differences
                continue
            answer, edges = edge, edges + 1
        option_differences(option, answer, worst)
        chosen.append(answer.every[script_key(option)])
    shown = {option["configuration"] for option in got}
    if shown != set(exact.best):
        looser, tighter = variants[1.02], variants[1 / 1.02]
        if not set(tighter.best) <= shown <= set(looser.best):
            found.append(f"configurations {sorted(exact.best)} != {sorted(shown)}")
    if not in_order(chosen):
        found.append(f"order {[key_of(o) for o in chosen]}")
    return found, edges


def closest_differences(
    catalog: Catalog, requirement: Requirement, got: list[dict[str, Any]], worst: dict[str, float]
) -> list[str]:
    """The closest plans: Python's, in an order Python's rule allows (nearest first, gaps within 2 % tie)."""
    expected = {key_of(o): o for o in closest(catalog, requirement)}
    if set(expected) != {script_key(g) for g in got}:
        return [f"closest {list(expected)} != {[script_key(g) for g in got]}"]
    gaps = {
        key_of(Option(s.candidate, 1, 1, s.load, 0, 0, "users", 1)): s.gap(requirement)
        for s in shortfalls(catalog, requirement)
    }
    in_script_order = [gaps[script_key(g)] for g in got]
    found = [] if all(b >= a * (1 - TOLERANCE) for a, b in itertools.pairwise(in_script_order)) else ["closest order"]
    for g in got:
        found += compared(figures(expected[script_key(g)]), script_figures(g), worst)
    return found


def test_the_script_plans_as_the_command_line(answers):
    catalog = load_catalog()
    worst: dict[str, float] = {}
    problems = []
    options = edges = 0
    for requirement, answer in answers:
        found, on_edge = plan_differences(catalog, requirement, answer["options"], worst)
        options, edges = options + len(answer["options"]), edges + on_edge
        if not answer["options"]:
            found += closest_differences(catalog, requirement, answer["closest"], worst)
            if relax_words(answer["relax"]) != relax(catalog, requirement):
                found.append(f"{relax_words(answer['relax'])} != {relax(catalog, requirement)}")
        problems += [f"{requirement}: {d}" for d in found]
    print(f"{len(answers)} requirements, {options} options, {edges} on the edge of a limit;")
    print("worst relative error per figure:", {k: f"{v:.2%}" for k, v in sorted(worst.items())})
    assert not problems, "\n".join(problems)
    assert edges <= options // 20  # the edge is the exception


def test_the_plan_comes_in_steps_of_one_way_to_run_the_model(answers, plan_documents):
    """``planSteps``, which the page runs a few steps a turn, yields once per candidate of the model's figures
    (configuration, format, cards per copy, KV cache) in the requirement's format: no step plans more than one,
    so none blocks the page for long."""
    for requirement, answer in answers:
        published = plan_documents[f"api/plan/{requirement.model}.json"]["candidates"]
        assert answer["steps"] == len([c for c in published if requirement.precision in (None, c[1])]), requirement


FORMAT_RUNNER = """
const page = require(process.argv[1]);
const samples = JSON.parse(process.argv[2]);
const out = {};
for (const [lang, s] of Object.entries(samples)) {
  const f = page.formatter(s.numbers, s.words);
  out[lang] = {
    money: s.prices.map((v) => f.money(v)),
    money_cents: s.per_million.map((v) => f.money(v, 2)),
    numbers: s.counts.map((v) => f.number(v)),
    speeds: s.speeds.map(([typical, floor]) => f.speedCell(typical, floor)),
    seconds: s.seconds.map((v) => f.seconds(v)),
  };
}
process.stdout.write(JSON.stringify(out));
"""
PRICES = [1040, 4157, 19650, 123456.7]
PER_MILLION = [0.16, 0.155, 0.125, 160.645, 1234.5]
COUNTS = [1, 60, 4000, 100000, 2.5, 3.5]
SPEEDS = [(5.04, 2.8), (9.96, 5.25), (23.5, 13.1), (150.2, 83.0)]
SECONDS = [0.0345, 0.42, 0.999, 2.04, 37.2, 123.4]


def test_the_script_writes_figures_as_the_site_writes_them():
    """With the signs of the page's data, the script writes prices, counts, speeds and times as Babel does on the
    worked plans, in every language."""
    from macros.base.languages import LANGUAGES
    from macros.library.plan_tables import UNIT_WORDS, number_signs
    from macros.output.formatting import formatter
    from macros.output.strings import strings

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    samples = {
        lang: {
            "numbers": number_signs(formatter(lang)),
            "words": {key: strings()["units"][key][lang] for key in UNIT_WORDS},
            "prices": PRICES,
            "per_million": PER_MILLION,
            "counts": COUNTS,
            "speeds": SPEEDS,
            "seconds": SECONDS,
        }
        for lang in LANGUAGES
    }
    script = str(ROOT / "docs/en/assets/plan-page.js")
    out = subprocess.run(
        [node, "-e", FORMAT_RUNNER, script, json.dumps(samples)], capture_output=True, text=True, timeout=60, check=True
    )
    got = json.loads(out.stdout)
    for lang in LANGUAGES:
        f = formatter(lang)
        expected = {
            "money": [f.money(v, "USD") for v in PRICES],
            "money_cents": [f.money(v, "USD", 2) for v in PER_MILLION],
            "numbers": [f.number(v) for v in COUNTS],
            "speeds": [f.speed(t, floor, in_a_cell=True) for t, floor in SPEEDS],
            "seconds": [
                f.unit("seconds", f.significant(s)) if s >= 1 else f.unit("milliseconds", f.significant(s * 1e3))
                for s in SECONDS
            ],
        }
        assert got[lang] == expected, lang


LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`((?:[^`\\]|\\.)*)`')


@pytest.mark.parametrize("name", ["plan-model.js", "plan-page.js"])
def test_the_scripts_hold_no_word_of_their_own(name):
    """Every word a reader sees comes from strings.yml through the page's data: the scripts' strings are keys,
    selectors and names, never a sentence, in any language."""
    from macros.output.strings import strings

    code = re.sub(r"(^|\s)//[^\n]*", r"\1", (ROOT / "docs/en/assets" / name).read_text(encoding="utf-8"))
    literals = [next(g for g in groups if g is not None) for groups in LITERAL.findall(code)]
    assert literals
    for literal in literals:
        assert literal.isascii() and not re.search(r"[a-z]{2,} [a-z]{2,} [a-z]{2,}", literal), literal
    words = {v for section in ("plan", "plan_form") for entry in strings()[section].values() for v in entry.values()}
    bare = (re.sub(r"\{\w+\}", "", w).strip() for w in words)
    phrases = {w for w in bare if " " in w or not w.isascii()}  # "memory" is also a key the script compares
    assert not [(w, literal) for w in phrases for literal in literals if w in literal]


# --- issue 36: the Plan page bounds its inputs as the command line does, and never writes a figure it made up -----


@pytest.mark.parametrize(
    "key",
    ["prompt_tokens", "output_tokens", "users", "requests_per_minute", "min_tokens_per_s_per_user", "max_ttft_s"],
)
def test_the_command_line_takes_a_requirement_up_to_the_bound_the_plan_page_is_given(key: str):
    from pydantic import ValidationError

    from sizing.catalog.schema import PLAN_MAXIMA, PlanRequirement

    requirement = {"model": "llama-3.1-8b", "prompt_tokens": 100, "output_tokens": 100, "min_tokens_per_s_per_user": 1}
    requirement |= {"requests_per_minute": 1} if key == "requests_per_minute" else {"users": 1}
    PlanRequirement.model_validate({**requirement, key: PLAN_MAXIMA[key]})
    with pytest.raises(ValidationError, match="less than or equal to"):
        PlanRequirement.model_validate({**requirement, key: PLAN_MAXIMA[key] + 1})


PLAN_RUNNER = """
const page = require(process.argv[1]);
const cases = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(cases.map(([data, values]) => {
  const doc = {models: {"llama-3.1-8b": {max_context_tokens: 131072, precisions: ["bf16"]}}};
  return page.refusal(data, doc, page.requirementOf(values));
})));
"""
PLAN_ADDRESSES = {  # an address's values the page refuses, and the field its message names
    "rpm=1e25": ({"rpm": "1e25"}, "rpm"),
    "users=1e21": ({"users": "1e21"}, "users"),
    "users=1e7+1": ({"users": "10000001"}, "users"),
    "prompt=2^24+1": ({"prompt": "16777217"}, "prompt"),
    "speed=1e6": ({"speed": "1000000"}, "speed"),
    "ttft=1e4": ({"ttft": "10000"}, "ttft"),
    "rpm=Infinity": ({"rpm": "Infinity"}, "rpm"),
}


def test_the_plan_page_refuses_an_address_beyond_the_planners_bounds_in_its_language():
    from macros.base.languages import LANGUAGES
    from macros.library.plan_tables import FORM_FIELDS, SCRIPT_WORDS, UNIT_WORDS, number_signs
    from macros.output.formatting import formatter
    from macros.output.strings import strings
    from sizing.catalog.schema import PLAN_MAXIMA

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    base = {
        "model": "llama-3.1-8b",
        "precision": "",
        "prompt": "1000",
        "output": "100",
        "users": "10",
        "rpm": "",
        "speed": "10",
        "ttft": "",
    }
    for lang in LANGUAGES:
        f = formatter(lang)
        data = {
            "numbers": number_signs(f),
            "words": {key: strings()["plan_form"][key][lang] for key in SCRIPT_WORDS}
            | {key: strings()["units"][key][lang] for key in UNIT_WORDS},
            "maxima": {field: PLAN_MAXIMA[key] for field, key in FORM_FIELDS.items()},
        }
        cases = [[data, {**base, **values}] for values, _ in PLAN_ADDRESSES.values()] + [[data, base]]
        out = subprocess.run(
            [node, "-e", PLAN_RUNNER, str(ROOT / "docs/en/assets/plan-page.js"), json.dumps(cases)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        got = json.loads(out.stdout)
        for (_, field), message in zip(PLAN_ADDRESSES.values(), got[:-1], strict=True):
            expected = strings()["plan_form"]["too_large"][lang].format(
                field=strings()["plan_form"][f"field_{field}"][lang], max=f.number(PLAN_MAXIMA[FORM_FIELDS[field]])
            )
            assert message == expected, (lang, field)
        assert got[-1] is None  # a requirement inside the bounds is planned


def test_the_plan_page_never_writes_a_figure_its_rounding_would_make_up():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    runner = """
const page = require(process.argv[1]);
const f = page.formatter({group: ",", decimal: ".", minus: "-", money: "${value}"}, {});
const tried = [3.2e21, 8e24, Infinity, NaN].map((v) => { try { return f.number(v); } catch (e) { return e.name; } });
process.stdout.write(JSON.stringify([f.number(3.2e20), ...tried]));
"""
    out = subprocess.run(
        [node, "-e", runner, str(ROOT / "docs/en/assets/plan-page.js")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(out.stdout) == ["320,000,000,000,000,000,000", *["RangeError"] * 4]
