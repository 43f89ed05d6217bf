"""Figures of a model in each weight format: parameters, weight bytes, bits per parameter, KV cache, what a
token reads, the formats each card runs natively, and the quantization table."""

from __future__ import annotations

import itertools
import math

from macros.base.errors import MacroError
from macros.library.claims import claim
from macros.library.context import MacroContext, section_text
from macros.library.registry import macro
from macros.output.html import table
from sizing.catalog.schema import Node
from sizing.catalog.units import GIB
from sizing.engine.deployment import Layout
from sizing.engine.memory import (
    embedding_params,
    kv_bytes_per_token,
    kv_cache_bytes,
    model_weight_bytes,
    weight_bytes_read_per_step,
)
from sizing.engine.specs import checkpoint_precision, llm_shape
from sizing.views.comparisons import effective_bits_per_parameter, kv_cache_bytes_in

_t = section_text("guides")


@macro
def params(ctx: MacroContext, model: str) -> str:
    """A model's total parameters, in words: "671 billion", « 671 milliards », "6710 亿"."""
    return ctx.f.billions_in_words(ctx.model(model).params)


@macro
def active_params(ctx: MacroContext, model: str) -> str:
    """Parameters a mixture-of-experts model reads for each token, in words: "37.6 billion"."""
    llm = ctx.llm(model)
    if llm.active_params is None:
        raise MacroError(f"'{model}' is a dense model: every parameter is active; use params()")
    return ctx.f.billions_in_words(llm.active_params)


@macro
def weights_size(ctx: MacroContext, model: str, precision: str) -> str:
    """A model's weights in a format, in GiB like every need they are compared with (all experts of a
    mixture-of-experts model)."""
    chosen, prec = ctx.model(model), ctx.precision(precision)
    ctx.check_pair(model, precision)
    return ctx.f.gib_from_bytes(model_weight_bytes(chosen, prec))


@macro
def effective_bits(ctx: MacroContext, model: str, precision: str, digits: int = 1) -> str:
    """Bits per parameter over the whole model, embeddings and output head included."""
    ctx.precision(precision)
    return ctx.f.number(effective_bits_per_parameter(ctx.llm(model), ctx.catalog, precision), digits)


@macro
def bits_per_weight(ctx: MacroContext, precision: str) -> str:
    """A format's bits per weight of the large matrices, its group scales included (two decimals)."""
    return ctx.f.number(ctx.precision(precision).bits_per_weight, 2)


@macro
def scale_bits(ctx: MacroContext, precision: str) -> str:
    """Bits per weight a grouped format's scales and zero points add to its whole-number width (INT4 AWQ/GPTQ:
    4.156 − 4), two decimals."""
    bits = ctx.precision(precision).bits_per_weight
    if bits.is_integer():
        raise MacroError(f"'{precision}' stores no group scales: {bits:g} bits per weight exactly")
    return ctx.f.number(bits - math.floor(bits), 2)


@macro
def embedding_bits(ctx: MacroContext, model: str, precision: str) -> str:
    """Bits per parameter the 16-bit embeddings and output head add, over the whole model, to a format's bits
    per weight (two decimals)."""
    prec = ctx.precision(precision)
    if not prec.keeps_embeddings_16bit:
        raise MacroError(f"'{precision}' quantizes the embeddings too: they add nothing; use another format")
    added = effective_bits_per_parameter(ctx.llm(model), ctx.catalog, precision) - prec.bits_per_weight
    return ctx.f.number(added, 2)


@macro
def kv_per_token(ctx: MacroContext, model: str) -> str:
    """KV-cache bytes one token adds (16-bit cache), in KiB."""
    per_token = kv_bytes_per_token(ctx.llm_shape(model), ctx.catalog.assumptions.kv_cache_bytes_per_element.value)
    return _t(ctx, "kib", value=ctx.f.number(per_token / 1024, 1))


@macro
def kv_cache(ctx: MacroContext, model: str, context: int) -> str:
    """KV cache of one sequence of ``context`` tokens, in GiB (the same in every weight format)."""
    bytes_per_element = ctx.catalog.assumptions.kv_cache_bytes_per_element.value
    return ctx.f.gib_from_bytes(kv_cache_bytes(ctx.llm_shape(model), context, 1, bytes_per_element))


@macro
def kv_cache_in(ctx: MacroContext, model: str, context: int, precision: str) -> str:
    """KV cache of one sequence of ``context`` tokens stored in another format (``"fp8"``: one byte per
    element, as vLLM's ``--kv-cache-dtype fp8`` keeps it), in GiB."""
    return ctx.f.gib_from_bytes(kv_cache_bytes_in(ctx.llm(model), context, ctx.precision(precision)))


@macro
def kv_cache_saved(ctx: MacroContext, model: str, context: int, precision: str) -> str:
    """What storing the KV cache of one sequence in ``precision`` instead of 16 bits frees, in GiB."""
    llm, bytes_per_element = ctx.llm(model), ctx.catalog.assumptions.kv_cache_bytes_per_element.value
    sixteen_bit = kv_cache_bytes(llm_shape(llm), context, 1, bytes_per_element)
    saved = sixteen_bit - kv_cache_bytes_in(llm, context, ctx.precision(precision))
    if saved <= 0:
        raise MacroError(f"a KV cache in {precision} is no smaller than the 16-bit one; name a smaller format")
    return ctx.f.gib_from_bytes(saved)


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
    small, large = model_weight_bytes(llm, a), model_weight_bytes(llm, b)
    return claim(
        small < large,
        f"'{model}' is smaller in {precision} than in {than}",
        f"{small / GIB:.2f} GiB against {large / GIB:.2f} GiB",
    )


@macro
def quantization_table(ctx: MacroContext, model: str, gpu_node: str, split_node: str) -> str:
    """Every format of a model: bits, weights, share of BF16, KV cache, verdict on a one-card node, and the speed of
    one stream as a larger node runs each format (``sizing.engine.deployment``), with how it lays it out."""
    llm = ctx.llm(model)
    one, big = ctx.node(gpu_node), ctx.node(split_node)
    context = ctx.catalog.assumptions.default_context_tokens.value
    kv = kv_cache_bytes(llm_shape(llm), context, 1, ctx.catalog.assumptions.kv_cache_bytes_per_element.value)
    bf16 = model_weight_bytes(llm, ctx.catalog.precisions["bf16"])
    rows = []
    for prec in ctx.catalog.precisions_for(llm):
        size = model_weight_bytes(llm, prec)
        rows.append(
            [
                prec.name,
                ctx.f.number(prec.bits_per_weight, 2),
                ctx.f.number(effective_bits_per_parameter(llm, ctx.catalog, prec.id), 2),
                ctx.f.gib_from_bytes(size),
                _t(ctx, "percent", value=ctx.f.number(100 * size / bf16)),
                ctx.f.gib_from_bytes(kv),
                ctx.verdict_text(ctx.cell(model, prec.id, one.id).fit),
                _speed_cell(ctx, ctx.cell(model, prec.id, big.id).layout, big),
            ]
        )
    headers = [
        _t(ctx, "format"),
        _t(ctx, "bits_linear"),
        _t(ctx, "bits_effective"),
        _t(ctx, "weights"),
        _t(ctx, "of_bf16"),
        _t(ctx, "kv_cache", context=ctx.f.context(context)),
        _t(ctx, "verdict_on", node=ctx.node_label(one)),
        _t(ctx, "floor_on", node=ctx.node_label(big)),
    ]
    return table(
        ctx.text(
            "comparisons",
            "quant_caption",
            model=llm.name,
            gpu=ctx.catalog.gpu_of(one).short_name,
            node=ctx.node_label(big),
        ),
        headers,
        rows,
    )


@macro
def claim_fewer_bytes_faster(ctx: MacroContext, model: str, node: str) -> str:
    """Fails the build unless, on the same cards of ``node`` (every card count two formats of one engine are both
    laid out on), the engine runs the format with lighter weights faster."""
    llm, chosen = ctx.llm(model), ctx.node(node)
    by_engine_cards: dict[tuple[str, int], list[tuple[float, float, str]]] = {}
    for prec in ctx.catalog.precisions_for(llm):
        deployment = ctx.cell(model, prec.id, chosen.id).deployment
        for layout in () if deployment is None else deployment.layouts:
            key = (ctx.catalog.engine_of(prec).id, layout.cards)
            by_engine_cards.setdefault(key, []).append((model_weight_bytes(llm, prec), layout.typical, prec.id))
    slower = [
        (a[2], b[2], cards)
        for (_, cards), runs in by_engine_cards.items()
        for a, b in itertools.pairwise(sorted(runs))
        if a[1] <= b[1]
    ]
    return claim(
        not slower,
        f"on the same cards of '{node}', '{model}' runs faster in lighter formats of one engine",
        "; ".join(f"{light} is not faster than {heavy} on {cards} cards" for light, heavy, cards in slower),
    )


def _speed_cell(ctx: MacroContext, layout: Layout | None, node: Node) -> str:
    if layout is None:
        return ctx.text("comparisons", "no_fit_on_cards")
    speed = ctx.f.speed(layout.typical, layout.floor, in_a_cell=True)
    if node.cards == 1:
        return speed
    return ctx.text("comparisons", "speed_as", speed=speed, how=ctx.layout_text(layout, node))


@macro
def embedding_share(ctx: MacroContext, model: str) -> str:
    """Share of a model's parameters in its embeddings and output head (which quantized formats keep 16-bit)."""
    llm = ctx.llm(model)
    return _t(ctx, "percent", value=ctx.f.number(100 * embedding_params(llm_shape(llm)) / llm.params))


@macro
def read_per_token(ctx: MacroContext, model: str, precision: str) -> str:
    """Weights one decode step of one stream reads, in GiB: all of them for a dense model, the active ones for
    MoE; not the input embedding (one row per token), as the speed model counts it."""
    return ctx.f.gib_from_bytes(_read_per_token_bytes(ctx, model, precision))


def _read_per_token_bytes(ctx: MacroContext, model: str, precision: str) -> float:
    ctx.check_pair(model, precision)
    held = checkpoint_precision(ctx.llm(model), ctx.precision(precision))
    return weight_bytes_read_per_step(ctx.llm_shape(model), held, 1)


@macro
def read_ratio(ctx: MacroContext, model: str, precision: str) -> str:
    """How many times less a mixture-of-experts model reads per token than it holds in memory, worded for
    prose: "17×" (less), « 17 fois » (moins), "1/17" in Chinese."""
    held = model_weight_bytes(ctx.llm(model), ctx.precision(precision))
    return ctx.f.times_less(held / _read_per_token_bytes(ctx, model, precision))


@macro
def kv_heads(ctx: MacroContext, model: str) -> str:
    """How many key-value heads a model has (a split beyond them holds each one on several cards)."""
    return ctx.f.number(ctx.llm(model).kv_heads)
