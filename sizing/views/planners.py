"""The site's plan held against published planners (data/capacity_plans.yml): for each published answer, the
plan for the same requirement on the node configuration closest to the planner's GPUs, and the GPUs each rents."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sizing.catalog.errors import did_you_mean
from sizing.catalog.loader import DATA_DIR, Catalog
from sizing.catalog.record_lists import read_records
from sizing.catalog.schema import CapacityPlan, Llm
from sizing.views.plan import Option, Requirement, candidates, option_for, plan_for, price_key
from sizing.views.plan_tabulate import model_figures, plan_figures, planned_model

PLANS_FILE = DATA_DIR / "capacity_plans.yml"
MOST_PLANS = 100
ANY_SPEED = 0.1  # tokens/s per user where a planner set no speed: any copy that answers at all


@dataclass(frozen=True)
class Comparison:
    """A published answer, the site's cheapest plan for its requirement and its plan with copies as large as the
    planner's (``alike``), None when no plan meets it, on nodes of ``cards_per_node`` cards."""

    published: CapacityPlan
    option: Option | None
    alike: Option | None
    cards_per_node: int

    def gpus(self, option: Option | None) -> int | None:
        """The GPUs a plan of the site rents: its nodes times their cards."""
        return None if option is None else option.nodes * self.cards_per_node

    def ratio(self, option: Option | None) -> float | None:
        """A plan's GPUs over the planner's."""
        found = self.gpus(option)
        return None if found is None else found / self.published.gpus


def read_plans(catalog: Catalog, path: Path = PLANS_FILE) -> list[CapacityPlan]:
    """The published answers, each naming a language model, a format offered for it and a configuration of the
    catalog (RecordListError names the file, the line and the fix otherwise)."""

    def problems(index: int, raw: dict[str, Any], plan: CapacityPlan) -> list[str]:
        found = []
        model = catalog.models.get(plan.model)
        if not isinstance(model, Llm):
            known = did_you_mean(plan.model, catalog.models)
            found.append(f"{path}: plan {index + 1}: unknown language model '{plan.model}'; {known}")
        elif plan.precision not in [p.id for p in catalog.precisions_for(model)]:
            found.append(f"{path}: plan {index + 1}: '{plan.precision}' is not a format of {plan.model}")
        if plan.configuration not in catalog.configurations:
            found.append(
                f"{path}: plan {index + 1}: unknown configuration '{plan.configuration}'; "
                f"{did_you_mean(plan.configuration, catalog.configurations)}"
            )
        return found

    return read_records(path, "plan", CapacityPlan, problems, MOST_PLANS)


def requirement_of(plan: CapacityPlan, floor_factor: float) -> Requirement:
    """The published requirement as the site plans it. A planner's speed is a mean (its TPOT), the site holds its
    floor: the floor that typical speed keeps is asked for."""
    speed = ANY_SPEED if plan.min_tokens_per_s_per_user is None else plan.min_tokens_per_s_per_user * floor_factor
    return Requirement(
        model=plan.model,
        prompt_tokens=plan.prompt_tokens,
        output_tokens=plan.output_tokens,
        users=plan.users or 0,
        min_tokens_per_s_per_user=speed,
        precision=plan.precision,
        max_ttft_s=plan.max_ttft_s,
        requests_per_minute=plan.requests_per_minute,
        configuration=plan.configuration,
    )


def compare(catalog: Catalog, published: CapacityPlan) -> Comparison:
    """The site's cheapest plan for the published requirement on its configuration, and its cheapest plan with
    copies of the planner's size."""
    model = catalog.models[published.model]
    assert isinstance(model, Llm)
    planned = planned_model(catalog, model)
    figures = plan_figures(catalog, {model.id: model_figures(catalog, planned, published.configuration)})
    requirement = requirement_of(published, figures.floor_factor)
    options = plan_for(figures, requirement)
    alike = [
        option
        for c in candidates(figures.models[model.id], requirement)
        if c.cards_per_copy == published.cards_per_copy
        and (option := option_for(figures, figures.models[model.id], c, requirement)) is not None
    ]
    cards = catalog.configurations[published.configuration].cheapest.cards
    cheapest_alike = min(alike, key=price_key) if alike else None
    return Comparison(published, options[0] if options else None, cheapest_alike, cards)
