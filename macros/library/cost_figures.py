"""What the guides compare nodes by when they compare cost: the price of a million output tokens at full load;
and the published runs a guide holds its speeds against (``sizing.views.accuracy`` on data/measurements.yml)."""

from __future__ import annotations

from collections.abc import Mapping

from macros.base.errors import MacroError
from macros.library.claims import claim
from macros.library.context import MacroContext
from macros.library.registry import macro
from sizing.catalog.errors import closest
from sizing.catalog.schema import DecodeMeasurement, Node
from sizing.views import comparisons
from sizing.views.accuracy import RecordCheck, check_records
from sizing.views.comparisons import nodes_that_hold

WITHIN_FACTOR = 2.0  # a guide's speeds must agree with every published run of the model to this factor


def _lowest(ctx: MacroContext, model: str, precision: str) -> tuple[Node, float]:
    ctx.check_pair(model, precision)
    held = nodes_that_hold(ctx.catalog, ctx.matrix, model, precision)
    found = comparisons.lowest_cost_node(ctx.catalog, ctx.matrix, held, model, precision)
    if found is None:
        raise MacroError(f"no node of the catalog serves '{model}' in {precision}: no cost per token to compare")
    return found


@macro
def lowest_cost_node(ctx: MacroContext, model: str, precision: str) -> str:
    """The node whose million output tokens cost least when it is kept at full load (its monthly price over the
    tokens it serves in a month), of those that hold the model."""
    return ctx.node_label(_lowest(ctx, model, precision)[0])


@macro
def lowest_cost_per_million(ctx: MacroContext, model: str, precision: str) -> str:
    """What a million output tokens cost on the node ``lowest_cost_node`` names, at full load."""
    return ctx.f.per_million_tokens(_lowest(ctx, model, precision)[1])


# --- published runs ----------------------------------------------------------------------------------------
def _records(ctx: MacroContext) -> dict[str, tuple[DecodeMeasurement, RecordCheck]]:
    return ctx.data.remembered(
        "guide speed checks",
        lambda: {
            m.id: (m, check) for m, check in zip(ctx.catalog.measurements, check_records(ctx.catalog), strict=True)
        },
    )


def _record(ctx: MacroContext, record: str) -> tuple[DecodeMeasurement, RecordCheck]:
    records = _records(ctx)
    if record not in records:
        near = " or ".join(f"'{n}'" for n in closest(record, records))
        raise MacroError(
            f"unknown measurement id '{record}' (the ids of data/measurements.yml)"
            + (f"; did you mean {near}?" if near else "")
        )
    return records[record]


def _named(ref: object, table: Mapping[str, object], attribute: str) -> str:
    """A catalog record's name for a catalog id, or the id an inline record gives itself."""
    if isinstance(ref, str):
        return getattr(table[ref], attribute) if ref in table else ref
    return getattr(ref, "id", None) or "?"


def _gpu_named(ref: object, table: Mapping[str, object]) -> str:
    """A GPU's short name; an inline card has only an id, written in capitals as cards are named ("H20-96GB")."""
    return _named(ref, table, "short_name") if isinstance(ref, str) else _named(ref, table, "short_name").upper()


@macro
def measured_run(ctx: MacroContext, record: str) -> str:
    """A published run of data/measurements.yml in words: cards, GPU, model, format, streams, engine."""
    m, _ = _record(ctx, record)
    c = ctx.catalog
    precision = _named(m.precision, c.precisions, "name") if m.precision is not None else ""
    return ctx.text(
        "speed",
        "setup",
        cards=m.cards,
        gpu=_gpu_named(m.gpu, c.gpus),
        model=_named(m.model, c.models, "name"),
        precision=precision,
        streams=ctx.f.number(m.concurrency),
        engine=m.engine,
    )


@macro
def measured_speed(ctx: MacroContext, record: str) -> str:
    """The speed of one stream a published run measured."""
    return ctx.f.tokens_per_s(_record(ctx, record)[1].measured)


@macro
def estimated_speed(ctx: MacroContext, record: str) -> str:
    """The typical speed of one stream the speed model gives the same run."""
    return ctx.f.tokens_per_s(_record(ctx, record)[1].typical)


@macro
def claim_matches_published_runs(ctx: MacroContext, model: str) -> str:
    """Fails the build unless the speed model is within a factor of two of every published run of the model
    that is not left out (data/measurements.yml), and there is at least one. Prints nothing."""
    ctx.llm(model)
    checks = [check for m, check in _records(ctx).values() if m.model == model and check.unreliable is None]
    if not checks:
        raise MacroError(f"data/measurements.yml holds no usable run of '{model}' to hold the guide's speeds against")
    off = [c for c in checks if not 1 / WITHIN_FACTOR <= c.ratio <= WITHIN_FACTOR]
    return claim(
        not off,
        f"the speeds of '{model}' are within {WITHIN_FACTOR:g}× of its published runs",
        "; ".join(f"{c.id}: estimated {c.typical:.1f} against {c.measured:.1f} tok/s measured" for c in off),
    )


@macro
def published_runs_agreement(ctx: MacroContext, model: str) -> str:
    """How the speed model compares with a model's published runs (data/measurements.yml), counted from them:
    within a factor of two of each run it counts (the build fails otherwise: ``claim_matches_published_runs``),
    and how far it lies from the runs left out: "for DeepSeek V3, within a factor of 2 of each of the 6
    published runs we count, while for the 7 we leave out our estimate is 0.22× to 7.26× the measured speed"."""
    claim_matches_published_runs(ctx, model)
    checks = [check for m, check in _records(ctx).values() if m.model == model]
    counted = [c for c in checks if c.unreliable is None]
    ratios = sorted(c.ratio for c in checks if c.unreliable is not None)
    values = {"model": ctx.llm(model).name, "factor": ctx.f.number(WITHIN_FACTOR), "count": ctx.f.number(len(counted))}
    said = ctx.text("speed", "runs_counted_one" if len(counted) == 1 else "runs_counted", **values)
    if not ratios:
        return said
    low, high = (ctx.text("speed", "ratio", value=ctx.f.number(r, 2)) for r in (ratios[0], ratios[-1]))
    key = "runs_left_out_one" if len(ratios) == 1 else "runs_left_out"
    return said + ctx.text("speed", key, count=ctx.f.number(len(ratios)), low=low, high=high)
