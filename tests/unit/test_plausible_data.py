"""Plausible or refused (issue 26): every figure of data/ has a range, and a figure outside it stops the
catalog naming the file, the line, the field and the range; cross-file rules (a cent per GPU-hour, context
presets a model can use, no model id taking a page's path). A property test mutates data/ at random and
requires a refusal with file:line or only plausible figures."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitebuild import edit

from sizing.catalog.errors import CatalogError
from sizing.catalog.loader import DATA_DIR, FILES, load_catalog
from sizing.views.matrix import deployment_on


def problems_of(data: Path) -> list[str]:
    with pytest.raises(CatalogError) as caught:
        load_catalog(data)
    return [str(p).replace(f"{data}/", "data/") for p in caught.value.problems]


CASES = {
    "hours in a month 10^12": (
        "assumptions.yml",
        "value: 730",
        "value: 1000000000000",
        "field 'assumptions.hours_per_month.value': expected: hours in a month from 672 to 744; found: 1000000000000",
        "value: 1000000000000",
    ),
    "floor factor 1e-300": (
        "assumptions.yml",
        "decode_floor_factor:\n    value: 0.6",
        "decode_floor_factor:\n    value: 1.0e-300",
        "field 'assumptions.decode_floor_factor.value': expected: a share of the typical "
        "speed from 0.2 to 1; found: 1e-300",
        "value: 1.0e-300",
    ),
    "prices as of year 1": (
        "nodes.yml",
        "prices_as_of: 2026-11-01",
        "prices_as_of: 0001-01-01",
        "field 'prices_as_of': expected: a date from ",
        "prices_as_of: 0001-01-01",
    ),
    "4x node with one card": (
        "nodes.yml",
        "  - id: 4x-rtx-4090\n    gpu: rtx-4090\n    cards: 4",
        "  - id: 4x-rtx-4090\n    gpu: rtx-4090\n    cards: 1",
        "record '4x-rtx-4090': field 'cards': expected 4 cards, as the node's id says (or rename the node); found 1",
        "cards: 1",
    ),
    "NVLink 5 at 1 GB/s": (
        "interconnects.yml",
        "per_direction_gbps: 900\n    both_directions_gbps: 1800",
        "per_direction_gbps: 1\n    both_directions_gbps: 2",
        "record 'nvlink5': field 'interconnects.per_direction_gbps': expected: GB/s each "
        "way of a nvlink link from 20 to 2000; found: 1",
        "per_direction_gbps: 1",
    ),
    "card memory 1e300": (
        "gpus.yml",
        "memory_gb: 80",
        "memory_gb: 1.0e+300",
        "record 'a100-pcie-80gb': field 'gpus.memory_gb': expected: GB of card memory from 4 to 1,024; found: 1e+300",
        "memory_gb: 1.0e+300",
    ),
    "price under a cent per GPU-hour": (
        "nodes.yml",
        "amount: 420,",
        "amount: 5,",
        "record '1x-rtx-4090': field 'price_per_month.amount': 5 USD a month for 1 card(s) is "
        "$0.0068 per GPU-hour at 730 hours a month; a price is at least $0.01 per GPU-hour",
        "amount: 5,",
    ),
    "a measurement on 10^20 cards": (
        "measurements.yml",
        "cards: 2",
        "cards: 100000000000000000000",
        "record 'llama33-70b-fp8-h100-2x-nim-5000in': field 'decode.cards': expected: cards from 1 to 64; found: "
        "100000000000000000000",
        "cards: 100000000000000000000",
    ),
    "a whole number of 5,001 digits": (
        "measurements.yml",
        "cards: 2",
        "cards: " + "9" * 5_001,
        "invalid YAML: a whole number of 5,001 digits; no figure needs more than 30",
        "cards: 999",
    ),
    "a model id taking a page's path": (
        "models.yml",
        "id: llama-3.3-70b",
        "id: index",
        "record 'index': field 'id': 'index' is a page of the site already "
        "(docs/<lang>/configurator/index.md is the configurator's own page); choose another id",
        "id: index",
    ),
    "a context preset above every model's window": (
        "assumptions.yml",
        "[4096, 8192, 32768, 131072]",
        "[4096, 8192, 32768, 1310720]",
        "record 'context_presets_tokens': field 'value': preset 1,310,720 tokens is above "
        "every model's max_context_tokens (at most 131,072 in models.yml); a preset from 512 to that",
        "value: [4096, 8192, 32768, 1310720]",
    ),
    "a link generation of 10^9": (
        "interconnects.yml",
        "generation: 4\n",
        "generation: 1000000000\n",
        "record 'pcie-gen4-x16': field 'interconnects.generation': expected: a link "
        "generation from 1 to 8; found: 1000000000",
        "generation: 1000000000",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_an_implausible_figure_is_refused_naming_file_line_field_and_range(data_copy: Path, case: str):
    file, old, new, message, on_the_line = CASES[case]
    edit(data_copy / file, old, new)
    lines = (data_copy / file).read_text(encoding="utf-8").splitlines()
    found = [re.fullmatch(rf"data/{re.escape(file)}:(\d+): (.*)", p, re.S) for p in problems_of(data_copy)]
    named = [(int(f.group(1)), f.group(2)) for f in found if f and f.group(2).startswith(message)]
    assert named, problems_of(data_copy)
    line, _ = named[0]
    assert on_the_line in lines[line - 1]  # the line named holds the figure


def test_a_zero_price_keeps_its_precise_message(data_copy: Path):
    edit(data_copy / "nodes.yml", "amount: 420,", "amount: 0,")
    assert "greater than 0" in problems_of(data_copy)[0]


def test_the_current_data_passes_every_range(catalog):
    hours = catalog.assumptions.hours_per_month.value
    assert all(n.price_per_month.amount / n.cards / hours >= 0.01 for n in catalog.nodes.values())
    assert 0.2 <= catalog.assumptions.decode_floor_factor.value <= 1


# --- the property: random mutations of data/ --------------------------------------------------------------

# a number at the end of a "key: value" line or inside a flow mapping, as data/ writes them
_NUMBER = re.compile(r"(?<=: )-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?=\s*(?:$|[,}\]#]))", re.M)
HOSTILE = st.one_of(
    st.sampled_from(
        ["0", "-1", "1.0e-300", "1.0e+300", "1e400", ".nan", ".inf", "-.inf", "9" * 31, "null", "yes", "'7'", "[]"]
    ),
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["0001-01-01", "9999-12-31"]),
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("mutated") / "data"
    shutil.copytree(DATA_DIR, target)
    return target


def assert_plausible(catalog) -> None:
    """What readers see stays plausible: a price per GPU-hour of at least a cent, finite speeds whose floor is
    above zero and below the typical speed."""
    hours = catalog.assumptions.hours_per_month.value
    for node in catalog.nodes.values():
        per_hour = node.price_per_month.amount / node.cards / hours
        assert 0.01 <= per_hour < 1e6, (node.id, per_hour)
    llms = [m for m in catalog.models.values() if m.kind == "llm"]
    for model in llms[:4]:
        precision = catalog.precisions[model.default_precision]
        for node in list(catalog.nodes.values())[::6]:
            speed = deployment_on(catalog, model, precision, node, 8192).chosen
            if speed is not None:
                assert math.isfinite(speed.typical) and 0 < speed.floor <= speed.typical, (model.id, node.id)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_random_mutation_of_data_is_refused_at_its_line_or_stays_plausible(scratch: Path, data):
    name = data.draw(st.sampled_from(sorted(file for file, _ in FILES.values())))
    path = scratch / name
    original = path.read_text(encoding="utf-8")
    spots = list(_NUMBER.finditer(original)) + list(re.finditer(r"(?<=prices_as_of: )\S+", original))
    if not spots:
        return
    spot = data.draw(st.sampled_from(spots))
    value = data.draw(HOSTILE)
    path.write_text(original[: spot.start()] + value + original[spot.end() :], encoding="utf-8")
    try:
        catalog = load_catalog(scratch)
    except CatalogError as refused:
        for problem in refused.problems:
            assert problem.file.parent == scratch and problem.line is not None, str(problem)
            assert len(problem.message) < 600, problem.message
    else:
        assert_plausible(catalog)
    finally:
        path.write_text(original, encoding="utf-8")
