"""Claims: macros that print nothing and fail the build when the sentence they stand in stops being true
for the data."""

from __future__ import annotations

from macros.base.errors import MacroError
from macros.library.context import MacroContext
from macros.library.registry import macro
from macros.output.strings import text
from sizing.catalog.units import GIB
from sizing.engine.fit import Verdict
from sizing.views.matrix import Cell


def claim(holds: bool, claimed: str, actual: str) -> str:
    """Nothing when the claim holds; a MacroError saying what the data says otherwise."""
    if not holds:
        raise MacroError(
            f"claim no longer true: {claimed}; the data says {actual}. "
            "Rewrite the sentence, or fix data/ if the data is wrong"
        )
    return ""


def explain(cell: Cell) -> str:
    """A verdict with its arithmetic, in English (for the writer's error message)."""
    need, budget = cell.fit.need.total / GIB, cell.fit.budget / GIB
    return (
        f"{text('verdicts', cell.fit.verdict.value, 'en', cards=cell.fit.cards)} "
        f"(needs {need:.1f} GiB per card on {cell.fit.cards}, budget {budget:.1f} GiB)"
    )


@macro
def claim_fits_one_card(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """Fails the build unless the model fits on one card of the node. Prints nothing."""
    cell = ctx.cell(model, precision, node)
    return claim(
        cell.fit.verdict is Verdict.ONE_CARD, f"'{model}' in {precision} fits on one card of '{node}'", explain(cell)
    )


@macro
def claim_split(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """Fails the build unless the model is too big for one card but fits split across the node."""
    cell = ctx.cell(model, precision, node)
    return claim(
        cell.fit.verdict is Verdict.SPLIT,
        f"'{model}' in {precision} must be split across the cards of '{node}'",
        explain(cell),
    )


@macro
def claim_runs_on_cards(
    ctx: MacroContext, model: str, precision: str, node: str, cards: int, context: int | None = None
) -> str:
    """Fails the build unless the node runs the model with copies of ``cards`` cards each (the layout the rule of
    ``sizing.engine.deployment`` picks), as a sentence or a table says it does. Prints nothing."""
    layout = ctx.layout_at(model, precision, node, context)
    return claim(
        layout.cards == cards,
        f"'{node}' runs '{model}' in {precision} with copies of {cards} cards each",
        f"it runs {layout.copies} copies of {layout.cards} cards each",
    )


@macro
def claim_no_fit_one_card(ctx: MacroContext, model: str, precision: str, node: str) -> str:
    """Fails the build if the model fits on one card of the node. Prints nothing."""
    cell = ctx.cell(model, precision, node)
    return claim(
        cell.fit.verdict is not Verdict.ONE_CARD,
        f"'{model}' in {precision} does not fit on one card of '{node}'",
        explain(cell),
    )


@macro
def claim_same_total_memory(ctx: MacroContext, node: str, other: str) -> str:
    """Fails the build unless both nodes have the same total memory and card count."""
    a, b = ctx.node(node), ctx.node(other)
    memory = [n.cards * ctx.catalog.gpu_of(n).memory_gb for n in (a, b)]
    return claim(
        memory[0] == memory[1] and a.cards == b.cards,
        f"'{node}' and '{other}' have the same cards and total memory",
        f"{a.cards} cards / {memory[0]:g} GB against {b.cards} cards / {memory[1]:g} GB",
    )


@macro
def claim_faster(ctx: MacroContext, model: str, precision: str, node: str, than: str) -> str:
    """Fails the build unless the model's typical speed on ``node`` is at least that on ``than``."""
    fast, slow = ctx.cell(model, precision, node).layout, ctx.cell(model, precision, than).layout
    ok = fast is not None and (slow is None or fast.typical >= slow.typical)
    return claim(
        ok,
        f"'{model}' in {precision} runs at least as fast on '{node}' as on '{than}'",
        f"{fast and round(fast.typical, 1)} against {slow and round(slow.typical, 1)} tok/s",
    )
