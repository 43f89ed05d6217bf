"""Figures of a model in each weight format: parameters, weight bytes, bits per parameter, KV cache, what a
token reads, the formats each card runs natively, and the quantization table."""
from __future__ import annotations

from sizing.choices import effective_bits_per_parameter
from sizing.matrix import Cell
from sizing.memory import (
    embedding_params, kv_bytes_per_token, kv_cache_bytes, weight_bytes, weight_bytes_read_per_token,
)
from sizing.units import GB

from ..errors import MacroError
from ..output.html import table
from ..output.strings import text
from .claims import claim
from .context import MacroContext
from .registry import macro


def _t(ctx: MacroContext, key: str, **values: object) -> str:
    return text("guides", key, ctx.lang, **values)


@macro
def params(ctx: MacroContext, model: str) -> str:
    """A model's total parameters, in billions."""
    return ctx.f.billions(ctx.model(model).params)


@macro
def active_params(ctx: MacroContext, model: str) -> str:
    """Parameters a mixture-of-experts model reads for each token, in billions."""
    llm = ctx.llm(model)
    if llm.active_params is None:
        raise MacroError(f"'{model}' is a dense model: every parameter is active; use params()")
    return ctx.f.billions(llm.active_params)


@macro
def weights_size(ctx: MacroContext, model: str, precision: str) -> str:
    """Bytes of a model's weights in a format (all experts of a mixture-of-experts model)."""
    chosen, prec = ctx.model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    return ctx.f.gb_from_bytes(weight_bytes(chosen, prec))


@macro
def effective_bits(ctx: MacroContext, model: str, precision: str) -> str:
    """Bits per parameter over the whole model, embeddings and output head included."""
    ctx.precision(precision)
    return ctx.f.number(effective_bits_per_parameter(ctx.llm(model), ctx.catalog, precision), 1)


@macro
def kv_per_token(ctx: MacroContext, model: str) -> str:
    """KV-cache bytes one token adds (16-bit cache), in KiB."""
    per_token = kv_bytes_per_token(ctx.llm(model), ctx.catalog.assumptions.kv_cache_bytes_per_element.value)
    return _t(ctx, "kib", value=ctx.f.number(per_token / 1024, 1))


@macro
def kv_cache(ctx: MacroContext, model: str, context: int) -> str:
    """KV cache of one sequence of ``context`` tokens, in GiB (the same in every weight format)."""
    llm = ctx.llm(model)
    bytes_per_element = ctx.catalog.assumptions.kv_cache_bytes_per_element.value
    return ctx.f.gib_from_bytes(kv_cache_bytes(llm, context, 1, bytes_per_element))


@macro
def native_gpus(ctx: MacroContext, precision: str) -> str:
    """The catalog's cards with tensor cores for a format."""
    prec = ctx.precision(precision)
    return ctx.f.join([g.short_name for g in ctx.catalog.gpus.values() if g.architecture in prec.native_on])


@macro
def non_native_gpus(ctx: MacroContext, precision: str) -> str:
    """The catalog's cards without tensor cores for a format (it runs there weight-only)."""
    prec = ctx.precision(precision)
    return ctx.f.join([g.short_name for g in ctx.catalog.gpus.values() if g.architecture not in prec.native_on])


@macro
def claim_smaller(ctx: MacroContext, model: str, precision: str, than: str) -> str:
    """Fails the build unless the model's weights are smaller in ``precision`` than in ``than``."""
    llm, a, b = ctx.model(model), ctx.precision(precision), ctx.precision(than)
    small, large = weight_bytes(llm, a), weight_bytes(llm, b)
    return claim(small < large, f"'{model}' is smaller in {precision} than in {than}",
                 f"{small / GB:.2f} GB against {large / GB:.2f} GB")


@macro
def quantization_table(ctx: MacroContext, model: str, gpu_node: str, split_node: str) -> str:
    """Every format of a model: bits, weights, share of BF16, KV cache, verdict and floor on a one-card
    node and on a larger node."""
    llm = ctx.llm(model)
    one, big = ctx.node(gpu_node), ctx.node(split_node)
    context = ctx.catalog.assumptions.default_context_tokens.value
    kv = kv_cache_bytes(llm, context, 1, ctx.catalog.assumptions.kv_cache_bytes_per_element.value)
    bf16 = weight_bytes(llm, ctx.catalog.precisions["bf16"])
    rows = []
    for prec in ctx.catalog.precisions_for(llm):
        size = weight_bytes(llm, prec)
        cells = [ctx.cell(model, prec.id, n.id) for n in (one, big)]
        rows.append([prec.name, ctx.f.number(prec.bits_per_weight, 2),
                     ctx.f.number(effective_bits_per_parameter(llm, ctx.catalog, prec.id), 2),
                     ctx.f.gb_from_bytes(size),
                     _t(ctx, "percent", value=ctx.f.number(100 * size / bf16)), ctx.f.gib_from_bytes(kv),
                     ctx.verdict_text(cells[0].fit), _floor_on_cards(ctx, cells[1])])
    headers = [_t(ctx, "format"), _t(ctx, "bits_linear"), _t(ctx, "bits_effective"), _t(ctx, "weights"),
               _t(ctx, "of_bf16"), _t(ctx, "kv_cache", context=ctx.f.context(context)),
               _t(ctx, "verdict_on", node=ctx.node_label(one)), _t(ctx, "floor_on", node=ctx.node_label(big))]
    return table(_t(ctx, "quant_caption", model=llm.name, gpu=ctx.catalog.gpu_of(one).short_name,
                    node=ctx.node_label(big)), headers, rows)


def _floor_on_cards(ctx: MacroContext, cell: Cell) -> str:
    if cell.speed is None:
        return ctx.verdict_text(cell.fit)
    speed = ctx.f.speed(cell.speed.typical, cell.speed.floor, in_a_cell=True)
    return _t(ctx, "floor_cards", floor=speed, cards=ctx.f.cards(cell.fit.cards))


@macro
def embedding_share(ctx: MacroContext, model: str) -> str:
    """Share of a model's parameters in its embeddings and output head (which quantized formats keep 16-bit)."""
    llm = ctx.llm(model)
    return _t(ctx, "percent", value=ctx.f.number(100 * embedding_params(llm) / llm.params))


@macro
def read_per_token(ctx: MacroContext, model: str, precision: str) -> str:
    """Bytes of weights one generated token reads: all of them for a dense model, the active ones for MoE."""
    ctx.precision(precision)
    return ctx.f.gb_from_bytes(weight_bytes_read_per_token(ctx.llm(model), ctx.catalog.precisions[precision]))


@macro
def read_ratio(ctx: MacroContext, model: str, precision: str) -> str:
    """How many times less a mixture-of-experts model reads per token than it holds in memory."""
    llm, prec = ctx.llm(model), ctx.precision(precision)
    return ctx.f.times(weight_bytes(llm, prec) / weight_bytes_read_per_token(llm, prec))


@macro
def kv_heads(ctx: MacroContext, model: str) -> str:
    """How many key-value heads a model has (a split beyond them holds each one on several cards)."""
    return ctx.f.number(ctx.llm(model).kv_heads)
