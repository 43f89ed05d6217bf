"""Plans for common requirements: each language model's plan for a chat assistant, a retrieval service with long
prompts, a batch summarizer and a coding assistant (the worked plans of the Plan page) at a few counts of users, each
on a page of its own (``macros/generated.py`` writes them), linked from the Plan page and from each other: a reader
without JavaScript gets answers, not a form. Each plan is made once for every language (``plan_tables``)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext, section_text
from macros.library.plan_tables import SHAPES, cheapest_text, options_of, plan_table_of, shape_of
from macros.library.registry import macro
from macros.output.html import TEMPLATES, block, table
from sizing.catalog.loader import Catalog
from sizing.catalog.schema import Llm
from sizing.views.plan import Requirement

USERS = (10, 100)  # a team, a service: each model's plans at these counts of users at once

_t = section_text("plan_pages")


@dataclass(frozen=True)
class CommonPlan:
    """One page: a model, a shape, a count of users."""

    model: str
    shape: str
    users: int

    @property
    def path(self) -> str:
        """Where its page stands below the language's root: ``plan/<model>/<shape>-<users>/``."""
        return f"plan/{self.model}/{self.shape}-{self.users}/"

    def same_need(self, other: CommonPlan) -> bool:
        """The same requirement, whatever the model."""
        return (self.shape, self.users) == (other.shape, other.users)

    def requirement(self) -> Requirement:
        return SHAPES[self.shape].requirement(self.model, self.users)


def common_plans(catalog: Catalog) -> list[CommonPlan]:
    """Every page, in the catalog's order of models, then shapes, then users: each language model's plan for each
    shape whose prompt and answer its window holds."""
    return [
        CommonPlan(model.id, shape.id, users)
        for model in catalog.models.values()
        if isinstance(model, Llm)
        for shape in SHAPES.values()
        if shape.prompt_tokens + shape.output_tokens <= model.max_context_tokens
        for users in USERS
    ]


def _common_plan(ctx: MacroContext, model: str, shape: str, users: int) -> CommonPlan:
    """The page a call names, checked against the pages there are."""
    ctx.llm(model)
    shape_of(shape)
    plan = CommonPlan(model, shape, users)
    if plan not in common_plans(ctx.catalog):
        counts = " or ".join(ctx.f.number(u) for u in USERS)
        raise MacroError(f"no common plan of '{model}' for '{shape}' at {users:,} users; users are {counts}")
    return plan


def _users(ctx: MacroContext, users: int) -> str:
    return _t(ctx, "users", users=ctx.f.number(users))


def title_text(ctx: MacroContext, plan: CommonPlan) -> str:
    """A page's title: "Plan: Llama 3.3 70B for a chat assistant, 10 users at once"."""
    name = ctx.catalog.models[plan.model].name
    return _t(ctx, "title", model=name, shape=_t(ctx, f"{plan.shape}_for"), users=ctx.f.number(plan.users))


@macro
def common_plan_title(ctx: MacroContext, model: str, shape: str, users: int) -> str:
    """The heading of a page of a common requirement: "Plan: Llama 3.3 70B for a chat assistant, 10 users at
    once"."""
    return title_text(ctx, _common_plan(ctx, model, shape, users))


def _link(ctx: MacroContext, plan: CommonPlan, label: str, current: CommonPlan | None = None) -> Markup:
    mark = Markup(' aria-current="page"') if plan == current else Markup("")
    return Markup('<a href="{}"{}>{}</a>').format(ctx.links.lang_root + plan.path, mark, label)


def _form_address(ctx: MacroContext, requirement: Requirement) -> str:
    """The Plan page with this requirement in its address, as its script writes it: its form opens on it."""
    query = {
        "model": requirement.model,
        "precision": "",
        "prompt": requirement.prompt_tokens,
        "output": requirement.output_tokens,
        "users": requirement.users,
        "rpm": "",
        "speed": requirement.min_tokens_per_s_per_user,
        "ttft": "" if requirement.max_ttft_s is None else requirement.max_ttft_s,
    }
    return f"{ctx.links.lang_root}plan/?{urlencode(query)}"


@macro
def common_plan(ctx: MacroContext, model: str, shape: str, users: int) -> str:
    """The page of a common requirement: what it is, every configuration that meets it cheapest first (the closest
    plans when none does), the cheapest in a sentence, the Plan page's form opened on it, and links to the model's
    other common plans and to the same requirement for every other model."""
    plan = _common_plan(ctx, model, shape, users)
    requirement = plan.requirement()
    options = options_of(ctx, requirement)
    every = common_plans(ctx.catalog)
    name = ctx.catalog.models[model].name
    form = Markup('<a href="{}">{}</a>').format(_form_address(ctx, requirement), _t(ctx, "form_link"))
    of_model = [_link(ctx, p, _shape_users(ctx, p), plan) for p in every if p.model == model]
    of_shape = [_link(ctx, p, ctx.catalog.models[p.model].name, plan) for p in every if p.same_need(plan)]
    html = TEMPLATES.get_template("common_plan.html").render(
        intro=_t(ctx, "intro", model=name, users=ctx.f.number(users), shape=_t(ctx, f"{shape}_for")),
        why=_t(ctx, f"{shape}_why"),
        table=plan_table_of(ctx, requirement, len(options)),
        cheapest=_t(ctx, "cheapest", cheapest=cheapest_text(ctx, options[0])) if options else "",
        change=Markup(_t(ctx, "change", link=form)),
        label=_t(ctx, "other_plans"),
        separator=Markup(_t(ctx, "separator")),
        rows=[
            (_t(ctx, "of_model", model=name), of_model),
            (_t(ctx, "of_shape", shape=_t(ctx, f"{shape}_name"), users=_users(ctx, users)), of_shape),
        ],
    )
    return block(html)


def _shape_users(ctx: MacroContext, plan: CommonPlan) -> str:
    """ "Chat assistant, 10 users"."""
    return _t(ctx, "shape_users", shape=_t(ctx, f"{plan.shape}_name"), users=_users(ctx, plan.users))


@macro
def common_plans_table(ctx: MacroContext) -> str:
    """Every language model with a link to each of its plans for common requirements: a chat assistant, a
    retrieval service with long prompts, a batch summarizer and a coding assistant, at each count of users."""
    every = common_plans(ctx.catalog)
    shapes = list(SHAPES)
    headers = [_t(ctx, "col_model"), *(_t(ctx, f"{shape}_name") for shape in shapes)]
    rows: list[list[str | Markup]] = []
    for model in ctx.catalog.models.values():
        mine = [p for p in every if p.model == model.id]
        if not mine:
            continue
        cells: list[str | Markup] = [
            Markup(_t(ctx, "separator")).join(_link(ctx, p, _users(ctx, p.users)) for p in mine if p.shape == shape)
            or _t(ctx, "none")
            for shape in shapes
        ]
        rows.append([model.name, *cells])
    return table(_t(ctx, "caption"), headers, rows, cards=True)
