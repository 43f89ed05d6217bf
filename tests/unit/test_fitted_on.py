"""What a fitted constant is fitted on: the records whose estimate it moves, written by the fit into the data file."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from sizing.catalog.fitted_on import FittedOnError, records_moved_by, write_fitted_on, write_values


@dataclass(frozen=True)
class Run:
    id: str
    tokens: float
    experts: bool


@dataclass(frozen=True)
class Costs:
    per_token: float
    per_expert: float
    fixed: float


def seconds(runs: list[Run], costs: Costs) -> list[float]:
    # every run pays per token and a fixed cost; only a mixture of experts pays per expert
    return [r.tokens * costs.per_token + (costs.per_expert if r.experts else 0.0) + costs.fixed for r in runs]


RUNS = [Run("dense", 10, False), Run("moe", 20, True), Run("moe-small", 5, True)]


def test_a_constant_is_fitted_on_the_records_whose_estimate_it_moves():
    costs = Costs(per_token=0.5, per_expert=2.0, fixed=0.0)  # a constant at zero is moved too (to a thousandth)
    moved = records_moved_by(RUNS, lambda c: seconds(RUNS, c), costs, ["per_token", "per_expert", "fixed"])
    assert moved == {
        "per_token": ["dense", "moe", "moe-small"],
        "per_expert": ["moe", "moe-small"],
        "fixed": ["dense", "moe", "moe-small"],
    }


@dataclass(frozen=True)
class WithFloor:
    per_token: float
    floor_factor: float


def test_an_estimate_of_two_figures_moves_when_either_does():
    # a typical time and a floor, the time times a factor: the factor moves no time but every floor
    def typical_and_floor(c: WithFloor) -> list[tuple[float, float]]:
        return [(r.tokens * c.per_token, r.tokens * c.per_token * c.floor_factor) for r in RUNS]

    moved = records_moved_by(RUNS, typical_and_floor, WithFloor(0.5, 0.6), ["floor_factor"])
    assert moved == {"floor_factor": ["dense", "moe", "moe-small"]}


YAML = """\
# constants
constants:
  per_token:
    value: 0.5
    reason: >-
      Fitted.
    fitted_on:
      - dense
      - gone
  per_expert:
    value: 2.0
    reason: Fitted, and its list not written yet.

  fixed:
    value: 0  # a comment stays
"""


def test_the_fit_writes_each_list_beside_its_constant_and_keeps_the_rest(tmp_path: Path):
    path = tmp_path / "constants.yml"
    path.write_text(YAML, encoding="utf-8")
    write_fitted_on(path, {"per_token": ["dense", "moe"], "per_expert": ["moe"]})
    assert path.read_text(encoding="utf-8") == YAML.replace(
        "      - dense\n      - gone\n", "      - dense\n      - moe\n"
    ).replace(
        "    reason: Fitted, and its list not written yet.\n",
        "    reason: Fitted, and its list not written yet.\n    fitted_on:\n      - moe\n",
    )
    write_fitted_on(path, {"per_token": ["dense", "moe"], "per_expert": ["moe"]})  # written twice, the same
    assert path.read_text(encoding="utf-8").count("fitted_on:") == 2


def test_a_constant_the_file_does_not_hold_once_is_refused(tmp_path: Path):
    path = tmp_path / "constants.yml"
    path.write_text(YAML, encoding="utf-8")
    with pytest.raises(FittedOnError, match="0 blocks 'missing:'"):
        write_fitted_on(path, {"missing": ["dense"]})


def test_the_fit_writes_a_moved_value_on_its_value_line(tmp_path: Path):
    path = tmp_path / "constants.yml"
    path.write_text(YAML, encoding="utf-8")
    write_values(path, {"per_token": 0.45, "fixed": 4e-05})  # YAML 1.1 would read 4e-05 as text: 4.0e-05
    text = path.read_text(encoding="utf-8")
    assert "  per_token:\n    value: 0.45\n" in text and "  fixed:\n    value: 4.0e-05\n" in text
    with pytest.raises(FittedOnError, match="0 blocks 'missing:' opening with a value line"):
        write_values(path, {"missing": 1.0})
