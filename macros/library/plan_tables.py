"""Worked plans (``sizing.views.plan``, what ``python -m sizing.plan`` answers): a requirement written out, the
configurations that meet it cheapest first, and the cheapest one in a sentence."""

from __future__ import annotations

import json
from dataclasses import dataclass

from babel.numbers import get_decimal_symbol, get_group_symbol, get_minus_sign_symbol
from markupsafe import Markup

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.formatting import Formatter
from macros.output.html import TEMPLATES, block, table
from macros.output.strings import strings
from macros.site.site_data import SiteData
from sizing.catalog.schema import PLAN_MAXIMA, Llm
from sizing.views.plan import Option, Requirement, closest, plan_for
from sizing.views.plan_figures import PlanFigures
from sizing.views.plan_tabulate import every_model_figures, plan_figures


def plan_figures_of(data: SiteData) -> PlanFigures:
    """The plan's figures of every language model, computed once for this state of the data (the worked plans and
    the API's documents read the same)."""
    return data.remembered("plan figures", lambda: plan_figures(data.catalog, every_model_figures(data.catalog)))


def _requirement(
    ctx: MacroContext,
    model: str,
    prompt_tokens: int,
    output_tokens: int,
    users: int,
    min_tokens_per_s: int,
    max_ttft_s: float | None,
    precision: str | None,
) -> Requirement:
    if model not in ctx.catalog.models:
        raise MacroError(f"unknown model '{model}' (not in models.yml)")
    if precision is not None and precision not in ctx.catalog.precisions:
        raise MacroError(f"unknown precision '{precision}' (not in precisions.yml)")
    return Requirement(model, prompt_tokens, output_tokens, users, min_tokens_per_s, precision, max_ttft_s)


@dataclass(frozen=True)
class Shape:
    """A common requirement but its users: the prompt and answer of a request, the slowest speed per user, the
    longest wait for the first token (None: no limit). The worked plans of docs/*/plan.md and the pages of common
    requirements (``plan_pages``) name these by id."""

    id: str
    prompt_tokens: int
    output_tokens: int
    min_tokens_per_s: int
    max_ttft_s: int | None

    def requirement(self, model: str, users: int) -> Requirement:
        """This requirement for ``users`` users of ``model``, in any format it is offered in."""
        return Requirement(
            model, self.prompt_tokens, self.output_tokens, users, self.min_tokens_per_s, max_ttft_s=self.max_ttft_s
        )


SHAPES = {
    shape.id: shape
    for shape in (
        Shape("chat", 4000, 500, 15, 2),
        Shape("retrieval", 16000, 300, 15, 5),
        Shape("batch", 8000, 500, 5, None),
        Shape("coding", 8000, 800, 30, 3),
    )
}


def shape_of(shape: str) -> Shape:
    """The common requirement a call names by id."""
    if shape not in SHAPES:
        raise MacroError(f"unknown shape '{shape}'; use one of {', '.join(SHAPES)}")
    return SHAPES[shape]


def _shape_requirement(ctx: MacroContext, model: str, shape: str, users: int) -> Requirement:
    ctx.llm(model)
    return shape_of(shape).requirement(model, users)


def options_of(ctx: MacroContext, requirement: Requirement) -> list[Option]:
    """The requirement's plan, made once for this state of the data: every language's page reads the same."""
    return ctx.data.remembered(f"plan {requirement}", lambda: plan_for(plan_figures_of(ctx.data), requirement))


def _seconds(ctx: MacroContext, seconds: float) -> str:
    if seconds >= 1:
        return ctx.f.unit("seconds", ctx.f.significant(seconds))
    return ctx.f.unit("milliseconds", ctx.f.significant(seconds * 1e3))


def _configuration(ctx: MacroContext, option: Option) -> str:
    return ctx.node_label(ctx.catalog.configurations[option.configuration].cheapest)


def _format(ctx: MacroContext, option: Option) -> str:
    """The weights' format, and the KV cache's when it is kept in FP8."""
    name = ctx.catalog.precisions[option.precision].name
    return ctx.text("plan", "kv_fp8", format=name) if option.load.kv_cache_dtype == "fp8" else name


def _row(ctx: MacroContext, option: Option) -> list[str]:
    load = option.load
    return [
        _configuration(ctx, option),
        _format(ctx, option),
        ctx.f.number(option.nodes),
        ctx.f.number(option.users_per_node),
        ctx.f.speed(load.typical, load.floor, in_a_cell=True),
        ctx.text("plan", "ttft_cell", typical=_seconds(ctx, load.ttft), at_most=_seconds(ctx, load.ttft_at_most)),
        ctx.f.money(option.price_per_month_usd, "USD"),
        ctx.f.money(option.usd_per_million_tokens, "USD", 2),
        ctx.text("plan", f"binding_{option.binding}"),
    ]


def _caption(ctx: MacroContext, requirement: Requirement, met: bool) -> str:
    ttft = (
        ""
        if requirement.max_ttft_s is None
        else ctx.text("plan", "caption_ttft", seconds=_seconds(ctx, requirement.max_ttft_s))
    )
    return ctx.text(
        "plan",
        "caption" if met else "caption_closest",
        model=ctx.catalog.models[requirement.model].name,
        users=ctx.f.number(requirement.users),
        prompt=ctx.f.number(requirement.prompt_tokens),
        output=ctx.f.number(requirement.output_tokens),
        speed=ctx.text("plan", "speed", value=ctx.f.significant(requirement.min_tokens_per_s_per_user)),
        ttft=ttft,
    )


@macro
def plan_table(
    ctx: MacroContext,
    model: str,
    prompt_tokens: int,
    output_tokens: int,
    users: int,
    min_tokens_per_s: int,
    max_ttft_s: int | None = None,
    precision: str | None = None,
    rows: int = 6,
) -> str:
    """The cheapest configurations that serve ``users`` users at once, each reading at least
    ``min_tokens_per_s`` with a prompt of ``prompt_tokens`` and answers of ``output_tokens`` (and the first
    token within ``max_ttft_s``), as ``python -m sizing.plan`` answers; the closest plans when none does."""
    requirement = _requirement(ctx, model, prompt_tokens, output_tokens, users, min_tokens_per_s, max_ttft_s, precision)
    return plan_table_of(ctx, requirement, rows)


@macro
def shape_plan_table(ctx: MacroContext, model: str, shape: str, users: int, rows: int = 6) -> str:
    """``plan_table`` for a common requirement named by its id (``chat``, ``retrieval``, ``batch``, ``coding``: its
    prompt, answer, speed per user and first token) at ``users`` users: the worked plans of the Plan page."""
    return plan_table_of(ctx, _shape_requirement(ctx, model, shape, users), rows)


def plan_table_of(ctx: MacroContext, requirement: Requirement, rows: int, label: str | None = None) -> Markup:
    """The first ``rows`` options of the requirement's plan, or its closest plans when none meets it: on a phone, a
    card each (``table``'s ``cards``), as the Plan page's script writes its own; ``label`` (a key of ``plan_form``)
    names the table's region."""
    options = options_of(ctx, requirement)
    shown = options[:rows] or closest(plan_figures_of(ctx.data), requirement)
    headers = [
        ctx.text("plan", key)
        for key in (
            "col_configuration",
            "col_format",
            "col_nodes",
            "col_users",
            "col_speed",
            "col_ttft",
            "col_month",
            "col_million",
            "col_binding",
        )
    ]
    caption = _caption(ctx, requirement, bool(options))
    region = None if label is None else ctx.text("plan_form", label, caption=caption)
    return table(caption, headers, [_row(ctx, o) for o in shown], label=region, cards=True)


@macro
def plan_prompt_share(ctx: MacroContext) -> str:
    """The largest share of its cards' dense peak a plan lets its users' prompts take ("50 %")."""
    share = ctx.catalog.assumptions.max_prompt_peak_share.value
    return ctx.text("guides", "percent", value=ctx.f.number(100 * share))


@macro
def plan_cheapest(
    ctx: MacroContext,
    model: str,
    prompt_tokens: int,
    output_tokens: int,
    users: int,
    min_tokens_per_s: int,
    max_ttft_s: int | None = None,
    precision: str | None = None,
) -> str:
    """The cheapest plan for the requirement in a sentence: nodes, configuration, format and monthly price."""
    requirement = _requirement(ctx, model, prompt_tokens, output_tokens, users, min_tokens_per_s, max_ttft_s, precision)
    return _cheapest_sentence(ctx, requirement)


@macro
def shape_plan_cheapest(ctx: MacroContext, model: str, shape: str, users: int) -> str:
    """``plan_cheapest`` for a common requirement named by its id, as ``shape_plan_table`` names it."""
    return _cheapest_sentence(ctx, _shape_requirement(ctx, model, shape, users))


def _cheapest_sentence(ctx: MacroContext, requirement: Requirement) -> str:
    options = options_of(ctx, requirement)
    if not options:
        raise MacroError(f"no configuration meets {requirement}; use plan_table to show the closest plans")
    return cheapest_text(ctx, options[0])


def cheapest_text(ctx: MacroContext, best: Option) -> str:
    """ "4 × H100 NVL in FP8, 1 node, $9,890 a month"."""
    return ctx.text(
        "plan",
        "cheapest",
        nodes=ctx.text("plan", "nodes_one" if best.nodes == 1 else "nodes_other", count=ctx.f.number(best.nodes)),
        configuration=_configuration(ctx, best),
        format=_format(ctx, best),
        price=ctx.f.money(best.price_per_month_usd, "USD"),
    )


# --- the interactive plan ------------------------------------------------------------------------------------------
FORM_WORDS = (
    "model", "precision", "any_precision", "prompt", "output", "users", "rate", "speed", "ttft", "submit",
)  # fmt: skip
COMMON_PLANS = "#common"  # the section of the form's page that links to the plans for common requirements
SCRIPT_WORDS = (
    "loading", "load_error", "invalid", "found_one", "found_other", "none", "relax_speed", "relax_ttft", "relax_both",
    "relax_no_fit", "relax_separator", "region", "too_large", "no_answer", "field_prompt", "field_output",
    "field_users", "field_rpm", "field_speed", "field_ttft",
)  # fmt: skip
# The form's fields and the requirement's: the script refuses a value above the planner's bound (PLAN_MAXIMA)
FORM_FIELDS = {
    "prompt": "prompt_tokens",
    "output": "output_tokens",
    "users": "users",
    "rpm": "requests_per_minute",
    "speed": "min_tokens_per_s_per_user",
    "ttft": "max_ttft_s",
}
TABLE_WORDS = (
    "caption", "caption_closest", "caption_ttft", "cheapest", "kv_fp8", "speed", "nodes_one", "nodes_other",
    "col_configuration", "col_format", "col_nodes", "col_users", "col_speed", "col_ttft", "col_month", "col_million",
    "col_binding", "binding_memory", "binding_speed", "binding_ttft", "binding_prompts", "binding_engine_cap",
    "binding_users", "ttft_cell",
)  # fmt: skip
UNIT_WORDS = ("seconds", "milliseconds", "speed_cell")


def _templates(ctx: MacroContext, group: str, keys: tuple[str, ...]) -> dict[str, str]:
    """Strings of ``strings.yml`` in the page's language with their ``{fields}`` left for the script to fill."""
    return {key: strings()[group][key][ctx.lang] for key in keys}


def number_signs(f: Formatter) -> dict[str, str]:
    """How ``f``'s language writes a figure, for the Plan page's script to write its figures as Babel writes the
    worked plans' (it uses no Intl: the page's first Intl number format blocks it 30-80 ms on load): the signs
    between groups of three digits, before the decimals and before a negative number, and a price in dollars
    around its number, ``{value}``."""
    price = f.money(0, "USD")
    if price.count("0") != 1:
        raise MacroError(
            f"a price of 0 USD in '{f.lang}' reads '{price}': the Plan page's script writes its prices around the one 0"
            " of this price; check the Babel locale of the language (macros/output/formatting.py)"
        )
    return {
        "group": get_group_symbol(f.locale),
        "decimal": get_decimal_symbol(f.locale),
        "minus": get_minus_sign_symbol(f.locale),
        "money": price.replace("0", "{value}"),
    }


def _form_data(ctx: MacroContext) -> str:
    """What the page's script needs beside the form: where api/plan.json stands, how the page's language writes
    figures, and every word it writes, from strings.yml (the script holds none of its own)."""
    llms = [m for m in ctx.catalog.models.values() if isinstance(m, Llm)]
    data = {
        "api": f"{ctx.links.root}api/plan.json",
        "model_script": f"{ctx.links.root}assets/plan-model.js",
        "numbers": number_signs(ctx.f),
        "words": _templates(ctx, "plan_form", SCRIPT_WORDS)
        | _templates(ctx, "plan", TABLE_WORDS)
        | _templates(ctx, "units", UNIT_WORDS),
        "maxima": {field: PLAN_MAXIMA[key] for field, key in FORM_FIELDS.items()},
        "models": {m.id: m.name for m in llms},
        "precisions": {p.id: p.name for p in ctx.catalog.precisions.values()},
        "offered": {m.id: [p.id for p in ctx.catalog.precisions_for(m)] for m in llms},
        "configurations": {c.id: ctx.node_label(c.cheapest) for c in ctx.catalog.configurations.values()},
    }
    # </script> cannot appear: JSON escapes "<" as \u003c below.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


@macro
def plan_form(ctx: MacroContext, model: str, shape: str, users: int) -> str:
    """The interactive plan: a form whose inputs live in the page's address (the model and the common requirement
    named here by id, at ``users`` users, fill it when the address holds none) and the plan of its requirement: for
    these values, written here as ``plan_table`` writes it (so the page needs no script to show it); for others,
    made by the page's script from
    api/plan.json, as ``python -m sizing.plan`` would. Without JavaScript, the form and its plan stay hidden and a
    sentence in the page's language points to the plans for common requirements (the page's section ``common``,
    ``common_plans_table``) and the worked plans."""
    asked = shape_of(shape)
    requirement = _shape_requirement(ctx, model, shape, users)
    options = options_of(ctx, requirement)
    if not options:
        raise MacroError(f"no configuration meets the form's default requirement {requirement}: choose one that is met")
    found = "found_one" if len(options) == 1 else "found_other"
    written = plan_table_of(ctx, requirement, len(options), label="region")  # every row, labelled as the script does
    common = Markup('<a href="{}">{}</a>').format(COMMON_PLANS, ctx.text("plan_form", "noscript_link"))
    llms = [m for m in ctx.catalog.models.values() if isinstance(m, Llm)]
    html = TEMPLATES.get_template("plan_form.html").render(
        data_json=Markup(_form_data(ctx)),
        scripts=[f"{ctx.links.root}assets/plan-page.js"],  # it loads plan-model.js when a plan is first asked for
        status=ctx.text("plan_form", found, count=ctx.f.number(len(options)), cheapest=cheapest_text(ctx, options[0])),
        result=Markup(str(written).strip()),
        labels={key: ctx.text("plan_form", key) for key in FORM_WORDS},
        noscript=Markup(ctx.text("plan_form", "noscript", link=common)),
        models=llms,
        precisions=list(ctx.catalog.precisions.values()),
        defaults={
            "model": model,
            "prompt": asked.prompt_tokens,
            "output": asked.output_tokens,
            "users": users,
            "speed": asked.min_tokens_per_s,
            "ttft": "" if asked.max_ttft_s is None else asked.max_ttft_s,
        },
    )
    return block(html)
