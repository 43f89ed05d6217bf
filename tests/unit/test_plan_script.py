"""The Plan page's script (docs/en/assets/plan-model.js) plans from the published figures (api/plan.json,
api/plan/<model>.json) line for line as ``python -m sizing.plan`` plans from the same figures: on hand-picked
requirements (every edge: impossible ones, a binding that changes, rates, a cache that goes to FP8) and on a
seeded random grid of 500 more, each pinned to a format and a configuration, the same options in the same order
with the same figures, the same closest plans and the same advice. The page (plan-page.js) refuses, in its
language, a requirement beyond the command line's bounds, and never writes a figure its rounding would make up."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from sizing.engine.load import SOLVER_STEPS, SOLVER_TOLERANCE
from sizing.views.plan import RATE_STEPS, Option, Requirement, candidates, closest, plan_for, relax
from sizing.views.plan_api import documents_of
from sizing.views.plan_figures import PlanFigures

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "docs/en/assets/plan-model.js"
RELATIVE = 1e-6  # the same arithmetic in the same order; the solvers stop within 2^-32 of their range
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

# (model, precision, prompt, output, users, tokens/s per user, TTFT limit, requests per minute, configuration)
GRID = [
    ("llama-3.3-70b", None, 4000, 500, 40, 15, 2.0, None, None),
    ("llama-3.3-70b", "fp8", 8000, 200, 200, 10, None, None, None),  # prompts bind: a retrieval service
    ("llama-3.1-8b", None, 2000, 400, 10, 20, None, 90.0, None),  # requests per minute
    ("qwen3-30b-a3b", None, 6000, 700, 30, 20, 3.0, None, None),  # a mixture of experts
    ("gemma-3-27b", "bf16", 50000, 2000, 3, 10, 20.0, None, None),  # sliding windows, a long context
    ("qwen2.5-72b", "gguf-q4_k_m", 10000, 1200, 8, 5, None, None, None),  # llama.cpp
    ("llama-3.3-70b", "int4-awq-gptq", 3500, 500, 3, 10, None, None, None),  # tight settings on small cards
    ("qwen2.5-72b", "fp8", 24000, 2000, 2, 5, None, None, None),  # the cache goes to FP8 between two contexts
    ("gpt-oss-120b", None, 3000, 1000, 64, 25, 2.0, 600.0, None),  # MXFP4 experts, requests per minute
    ("llama-3.3-70b", None, 4000, 500, 40, 500, None, None, None),  # no node is that fast
    ("qwen3-32b", None, 30000, 2000, 5, 10, 0.2, None, None),  # nor reads that prompt that soon
    ("llama-3.1-405b", "bf16", 1000, 200, 1, 1, None, None, "1x-l4"),  # no node of it holds the model
]
RANDOM_REQUIREMENTS = 500


def requirement_of(row: tuple[Any, ...]) -> Requirement:
    model, precision, prompt, output, users, speed, ttft, rate, configuration = row
    return Requirement(model, prompt, output, users, speed, precision, ttft, rate, configuration)


def random_grid(plan: PlanFigures, count: int, seed: int = 35) -> list[Requirement]:
    """``count`` requirements drawn with a fixed seed, each pinned to one format and one configuration the model has
    a candidate on: prompts and answers anywhere in its window, users or requests per minute, speeds and limits from
    easy to impossible."""
    draw = random.Random(seed)
    found: list[Requirement] = []
    models = sorted(plan.models)
    while len(found) < count:
        model = plan.models[draw.choice(models)]
        candidate = draw.choice(model.candidates)
        window = model.max_context_tokens
        prompt = int(math.exp(draw.uniform(math.log(16), math.log(window * 0.8))))
        output = min(int(math.exp(draw.uniform(math.log(8), math.log(4096)))), window - prompt)
        users = int(math.exp(draw.uniform(0, math.log(2000))))
        rate = round(math.exp(draw.uniform(math.log(0.5), math.log(5000))), 2) if draw.random() < 0.25 else None
        speed = round(math.exp(draw.uniform(math.log(1), math.log(200))), 1)
        ttft = round(math.exp(draw.uniform(math.log(0.05), math.log(60))), 2) if draw.random() < 0.6 else None
        found.append(
            Requirement(
                model.model, prompt, output, users, speed, candidate.precision, ttft, rate, candidate.configuration
            )
        )
    return found


@pytest.fixture(scope="module")
def answers(plan_figures, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Requirement, dict[str, Any]]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    folder = tmp_path_factory.mktemp("plan")
    (folder / "plan.json").write_text(json.dumps(documents_of(plan_figures)), encoding="utf-8")
    requirements = [requirement_of(row) for row in GRID] + random_grid(plan_figures, RANDOM_REQUIREMENTS)
    (folder / "requirements.json").write_text(json.dumps([asdict(r) for r in requirements]), encoding="utf-8")
    out = subprocess.run(
        [node, "-e", RUNNER, str(SCRIPT), str(folder / "plan.json"), str(folder / "requirements.json")],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return list(zip(requirements, json.loads(out.stdout), strict=True))


def python_option(option: Option) -> dict[str, Any]:
    """An option as the script names its figures."""
    load = option.load
    return {
        "configuration": option.configuration,
        "precision": option.precision,
        "cardsPerCopy": option.candidate.cards_per_copy,
        "candidateKvCacheDtype": option.candidate.kv_cache_dtype,
        "kvCacheDtype": load.kv_cache_dtype,
        "nodes": option.nodes,
        "usersPerNode": option.users_per_node,
        "users": option.users,
        "binding": option.binding,
        "meets": option.meets,
        "pricePerMonthUsd": option.price_per_month_usd,
        "usdPerMillionTokens": option.usd_per_million_tokens,
        "typical": load.typical,
        "floor": load.floor,
        "ttft": load.ttft,
        "ttftAtMost": load.ttft_at_most,
        "promptPeakShare": load.prompt_peak_share,
    }


def script_option(option: dict[str, Any]) -> dict[str, Any]:
    load = option["load"]
    keys: tuple[str, ...] = ("configuration", "precision", "cardsPerCopy", "candidateKvCacheDtype", "kvCacheDtype")
    keys += ("nodes", "usersPerNode", "users", "binding", "meets", "pricePerMonthUsd", "usdPerMillionTokens")
    return {k: option[k] for k in keys} | {
        k: load[k] for k in ("typical", "floor", "ttft", "ttftAtMost", "promptPeakShare")
    }


def differences(python: list[dict[str, Any]], script: list[dict[str, Any]]) -> list[str]:
    """Where two lists of options differ: their ways, their order, or a figure beyond the last bits."""
    ways = [(o["configuration"], o["precision"], o["cardsPerCopy"], o["candidateKvCacheDtype"]) for o in python]
    theirs = [(o["configuration"], o["precision"], o["cardsPerCopy"], o["candidateKvCacheDtype"]) for o in script]
    if ways != theirs:
        return [f"ways {ways} != {theirs}"]
    found = []
    for mine, got in zip(python, script, strict=True):
        for key, value in mine.items():
            other = got[key]
            if isinstance(value, float) and isinstance(other, (int, float)):
                if not math.isclose(value, other, rel_tol=RELATIVE, abs_tol=1e-12):
                    found.append(f"{mine['configuration']} {key}: {value!r} != {other!r}")
            elif value != other:
                found.append(f"{mine['configuration']} {key}: {value!r} != {other!r}")
    return found


def python_relax(plan: PlanFigures, requirement: Requirement) -> list[dict[str, Any]]:
    return [asdict(part) for part in relax(plan, requirement)]


def test_the_script_plans_as_the_command_line(plan_figures, answers):
    problems = []
    empty = 0
    for requirement, got in answers:
        options = plan_for(plan_figures, requirement)
        found = differences([python_option(o) for o in options], [script_option(o) for o in got["options"]])
        if not options:
            empty += 1
            near = closest(plan_figures, requirement)
            found += differences([python_option(o) for o in near], [script_option(o) for o in got["closest"]])
            mine, theirs = python_relax(plan_figures, requirement), got["relax"]
            if len(mine) != len(theirs) or any(
                a["kind"] != b["kind"]
                or a["configuration"] != b["configuration"]
                or not math.isclose(a["value"], b["value"], rel_tol=RELATIVE, abs_tol=1e-12)
                for a, b in zip(mine, theirs, strict=False)
            ):
                found.append(f"relax {mine} != {theirs}")
        problems += [f"{requirement}: {d}" for d in found]
    assert not problems, "\n".join(problems[:20])
    assert 0 < empty < len(answers)  # the grid holds requirements met and not met


def test_the_plan_comes_in_steps_of_one_way_to_run_the_model(plan_figures, answers):
    """``planSteps``, which the page runs a few steps a turn, yields once per candidate of the model's figures
    (configuration, format, cards per copy, KV cache) in the requirement's format and configuration: no step plans
    more than one, so none blocks the page for long."""
    for requirement, answer in answers:
        assert answer["steps"] == len(candidates(plan_figures.models[requirement.model], requirement)), requirement


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


def test_the_script_solves_as_far_as_python():
    """The solvers take as many steps at most and end a closed loop's at the same tolerance: the script's figures
    are Python's, not finer ones."""
    script = SCRIPT.read_text(encoding="utf-8")
    pattern = r"const (SOLVER_STEPS|RATE_STEPS|SOLVER_TOLERANCE) = ([\d.e-]+);"
    found = {name: float(value) for name, value in re.findall(pattern, script)}
    assert found == {"SOLVER_STEPS": SOLVER_STEPS, "RATE_STEPS": RATE_STEPS, "SOLVER_TOLERANCE": SOLVER_TOLERANCE}
