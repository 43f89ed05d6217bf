"""Macros of the sizing guides: image and video cards, quantization formats, mixture-of-experts nodes,
reading times and guide cards (``guides`` counts the minutes)."""
from __future__ import annotations

from markupsafe import Markup, escape

from sizing.choices import card_choices, effective_bits_per_parameter, nodes_that_hold, one_card_choices
from sizing.fit import Verdict, card_budget
from sizing.memory import component_bytes, kv_bytes_per_token, kv_cache_bytes, weight_bytes
from sizing.schema import DiffusionModel
from sizing.units import GB, GIB

from .errors import MacroError
from .guides import guide_front_matter, guide_pages, reading_time_placeholder
from .library import Macros, macro
from .strings import text
from .tables import block, table
from .translations import DOCS_DIR, SOURCE_LANGUAGE


def _t(m: Macros, key: str, **values: object) -> str:
    return text("guides", key, m.lang, **values)


def _gb(m: Macros, value_bytes: float) -> str:
    gb = value_bytes / GB
    return m.f.unit("gb", m.f.number(gb) if gb >= 10 else m.f.number(gb, 1))


def _gib(m: Macros, value_bytes: float) -> str:
    return m.f.unit("gib", m.f.number(value_bytes / GIB, 1))


def _diffusion(m: Macros, model_id: str) -> DiffusionModel:
    model = m._model(model_id)
    if not isinstance(model, DiffusionModel):
        raise MacroError(f"'{model_id}' is a language model; this macro needs an image or video model")
    return model


def _workload(m: Macros, model: DiffusionModel) -> str:
    w = model.workload
    return text("configurator", f"workload_{w.kind}", m.lang, width=w.width_px, height=w.height_px, frames=w.frames)


# --- image and video -----------------------------------------------------------------------------------
@macro
def diffusion_memory_table(self: Macros, precision: str) -> str:
    """What every image and video model needs: denoiser, text encoders, VAE, working memory, total."""
    prec = self._precision(precision)
    rows = []
    for model in self.catalog.models.values():
        if not isinstance(model, DiffusionModel):
            continue
        def part(role: str) -> float:
            return sum(component_bytes(c.role, c.params, prec) for c in model.components if c.role == role)
        working = model.activation_reserve_gib * GIB
        rows.append([model.name, _workload(self, model), _gb(self, part("denoiser")), _gb(self, part("text_encoder")),
                     _gb(self, part("vae")), _gb(self, working), _gb(self, weight_bytes(model, prec) + working)])
    headers = [_t(self, k) for k in ("model", "workload", "denoiser", "text_encoders", "vae", "working", "total")]
    return table(_t(self, "memory_caption", precision=prec.name), headers, rows)


def _holds(m: Macros, verdict: Verdict, cards: int) -> str:
    if verdict is Verdict.ONE_CARD:
        return _t(m, "alone")
    return _t(m, "with_encoders_apart", cards=m.f.unit("cards", m.f.number(cards)))


@macro
def card_table(self: Macros, model: str, precision: str) -> str:
    """Every catalog card that holds the model, cheapest first: memory, how it holds it, price per
    GPU-hour, BF16 TFLOPS and TFLOPS per dollar (a speed-per-price proxy)."""
    chosen, prec = self._model(model), self._precision(precision)
    self._cell(model, precision, next(iter(self.catalog.nodes)))  # validates the pair
    rows = [[c.gpu.short_name, self._gb(c.gpu.memory_gb), _holds(self, c.fit.verdict, c.fit.cards),
             self.f.money(c.price_per_gpu_hour, "USD", digits=2), self.f.number(c.gpu.bf16_dense_tflops),
             self.f.number(c.tflops_per_dollar)] for c in card_choices(self.catalog, chosen, precision)]
    headers = [_t(self, k) for k in ("card", "card_memory", "holds", "per_gpu_hour", "tflops", "tflops_per_dollar")]
    return table(_t(self, "cards_caption", model=chosen.name, precision=prec.name), headers, rows)


def _one_card(m: Macros, model: str, precision: str) -> list:
    choices = one_card_choices(m.catalog, m._model(model), precision)
    if not choices:
        raise MacroError(f"no card of the catalog holds '{model}' in {precision} on its own")
    return choices


@macro
def cheapest_card(self: Macros, model: str, precision: str) -> str:
    """The card with the lowest price per GPU-hour that holds the model on its own."""
    return _one_card(self, model, precision)[0].gpu.short_name


@macro
def best_value_card(self: Macros, model: str, precision: str) -> str:
    """The card that holds the model on its own with the most BF16 TFLOPS per dollar of GPU-hour."""
    return max(_one_card(self, model, precision), key=lambda c: c.tflops_per_dollar).gpu.short_name


@macro
def value_ratio(self: Macros, model: str, precision: str) -> str:
    """How many times more compute per dollar the best-value card gives than the cheapest card."""
    choices = _one_card(self, model, precision)
    best = max(choices, key=lambda c: c.tflops_per_dollar)
    return self._times(best.tflops_per_dollar / choices[0].tflops_per_dollar)


@macro
def card_price(self: Macros, gpu: str) -> str:
    """The lowest price of one card per GPU-hour across the nodes of that GPU."""
    from sizing.choices import cheapest_per_gpu_hour
    return self.f.money(cheapest_per_gpu_hour(self.catalog, self._gpu(gpu)), "USD", digits=2)


@macro
def headroom(self: Macros, model: str, precision: str, gpu: str) -> str:
    """Memory left on one card of a GPU once the model is loaded (negative if it does not fit)."""
    card = self._gpu(gpu)
    node = min(self.catalog.nodes_of_gpu[card.id], key=lambda n: n.cards)
    cell = self._cell(model, precision, node.id)
    if cell.fit.verdict is not Verdict.ONE_CARD:
        raise MacroError(f"'{model}' in {precision} does not fit on one {card.short_name}: no headroom to show")
    return _gib(self, card_budget(self.catalog, card) - cell.fit.need.total)


@macro
def claim_cheapest_is_not_best_value(self: Macros, model: str, precision: str) -> str:
    """Fails the build if the cheapest card that holds the model is also the best compute per dollar."""
    choices = _one_card(self, model, precision)
    best = max(choices, key=lambda c: c.tflops_per_dollar)
    return self._claim(best.gpu.id != choices[0].gpu.id,
                       f"the cheapest card for '{model}' in {precision} is not its best compute per dollar",
                       f"{choices[0].gpu.short_name} is both")


# --- language models: weights, formats ----------------------------------------------------------------
@macro
def params(self: Macros, model: str) -> str:
    """A model's total parameters, in billions."""
    return _billions(self, self._model(model).params)


@macro
def active_params(self: Macros, model: str) -> str:
    """Parameters a mixture-of-experts model reads for each token, in billions."""
    llm = self._llm(model)
    if llm.active_params is None:
        raise MacroError(f"'{model}' is a dense model: every parameter is active; use params()")
    return _billions(self, llm.active_params)


def _billions(m: Macros, count: int) -> str:
    value = count / 1e9
    return m.f.unit("params_billions", m.f.number(value) if value >= 100 else m.f.number(value, 1))


@macro
def weights_size(self: Macros, model: str, precision: str) -> str:
    """Bytes of a model's weights in a format (all experts of a mixture-of-experts model)."""
    chosen, prec = self._model(model), self._precision(precision)
    self._cell(model, precision, next(iter(self.catalog.nodes)))
    return _gb(self, weight_bytes(chosen, prec))


@macro
def effective_bits(self: Macros, model: str, precision: str) -> str:
    """Bits per parameter over the whole model, embeddings and output head included."""
    self._precision(precision)
    return self.f.number(effective_bits_per_parameter(self._llm(model), self.catalog, precision), 1)


@macro
def kv_per_token(self: Macros, model: str) -> str:
    """KV-cache bytes one token adds (16-bit cache), in KiB."""
    per_token = kv_bytes_per_token(self._llm(model), self.catalog.assumptions.kv_cache_bytes_per_element.value)
    return _t(self, "kib", value=self.f.number(per_token / 1024, 1))


@macro
def kv_cache(self: Macros, model: str, context: int) -> str:
    """KV cache of one sequence of ``context`` tokens, in GiB (the same in every weight format)."""
    llm = self._llm(model)
    return _gib(self, kv_cache_bytes(llm, context, 1, self.catalog.assumptions.kv_cache_bytes_per_element.value))


@macro
def native_gpus(self: Macros, precision: str) -> str:
    """The catalog's cards with tensor cores for a format."""
    prec = self._precision(precision)
    return self.f.join([g.short_name for g in self.catalog.gpus.values() if g.architecture in prec.native_on])


@macro
def non_native_gpus(self: Macros, precision: str) -> str:
    """The catalog's cards without tensor cores for a format (it runs there weight-only)."""
    prec = self._precision(precision)
    return self.f.join([g.short_name for g in self.catalog.gpus.values() if g.architecture not in prec.native_on])


@macro
def claim_smaller(self: Macros, model: str, precision: str, than: str) -> str:
    """Fails the build unless the model's weights are smaller in ``precision`` than in ``than``."""
    llm, a, b = self._model(model), self._precision(precision), self._precision(than)
    small, large = weight_bytes(llm, a), weight_bytes(llm, b)
    return self._claim(small < large, f"'{model}' is smaller in {precision} than in {than}",
                       f"{small / GB:.2f} GB against {large / GB:.2f} GB")


@macro
def quantization_table(self: Macros, model: str, gpu_node: str, split_node: str) -> str:
    """Every format of a model: bits, weights, share of BF16, KV cache, verdict and floor on a one-card
    node and on a larger node."""
    llm = self._llm(model)
    one, big = self._node(gpu_node), self._node(split_node)
    context = self.catalog.assumptions.default_context_tokens.value
    kv = kv_cache_bytes(llm, context, 1, self.catalog.assumptions.kv_cache_bytes_per_element.value)
    bf16 = weight_bytes(llm, self.catalog.precisions["bf16"])
    rows = []
    for prec in self.catalog.precisions_for(llm):
        size = weight_bytes(llm, prec)
        cells = [self._cell(model, prec.id, n.id) for n in (one, big)]
        rows.append([prec.name, self.f.number(prec.bits_per_weight, 2),
                     self.f.number(effective_bits_per_parameter(llm, self.catalog, prec.id), 2), _gb(self, size),
                     _t(self, "percent", value=self.f.number(100 * size / bf16)), _gib(self, kv),
                     self._verdict_text(cells[0].fit), _floor_on_cards(self, cells[1])])
    headers = [_t(self, "format"), _t(self, "bits_linear"), _t(self, "bits_effective"), _t(self, "weights"),
               _t(self, "of_bf16"), _t(self, "kv_cache", context=self.f.number(context)),
               _t(self, "verdict_on", node=self._node_label(one)), _t(self, "floor_on", node=self._node_label(big))]
    return table(_t(self, "quant_caption", model=llm.name, gpu=self.catalog.gpu_of(one).short_name,
                    node=self._node_label(big)), headers, rows)


def _floor_on_cards(m: Macros, cell) -> str:  # noqa: ANN001 - sizing.matrix.Cell
    if cell.tokens_per_s is None:
        return m._verdict_text(cell.fit)
    cards = m.f.unit("one_card", "") if cell.fit.cards == 1 else m.f.unit("cards", m.f.number(cell.fit.cards))
    return _t(m, "floor_cards", floor=m._tokens(cell.tokens_per_s), cards=cards)


# --- which nodes hold a model --------------------------------------------------------------------------
@macro
def fits_table(self: Macros, model: str, precision: str) -> str:
    """Every node that holds the model, cheapest first: verdict, memory per card, floor, price."""
    llm, prec = self._llm(model), self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    if not nodes:
        return _t(self, "none_hold", model=llm.name, precision=prec.name)
    rows = []
    for node in nodes:
        cell = self._cell(model, precision, node.id)
        rows.append([self._node_label(node), self._verdict_text(cell.fit), _gib(self, cell.fit.need.total),
                     self._tokens(cell.tokens_per_s), self.price(node.id)])
    headers = [text("configurator", k, self.lang) for k in ("col_node", "col_verdict")] + [
        _t(self, "need_per_card"), text("configurator", "col_speed", self.lang),
        text("configurator", "col_month", self.lang)]
    return table(_t(self, "nodes_caption", model=llm.name, precision=prec.name), headers, rows)


@macro
def cheapest_node(self: Macros, model: str, precision: str) -> str:
    """The cheapest node that holds the model (one card or split)."""
    self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    if not nodes:
        raise MacroError(f"no node of the catalog holds '{model}' in {precision}")
    return self._node_label(nodes[0])


@macro
def claim_no_node_holds(self: Macros, model: str, precision: str) -> str:
    """Fails the build if some node of the catalog holds the model in this format."""
    self._precision(precision)
    nodes = nodes_that_hold(self.catalog, self.matrix, model, precision)
    return self._claim(not nodes, f"no node holds '{model}' in {precision}",
                       f"{nodes[0].id} holds it" if nodes else "")


@macro
def max_node_memory(self: Macros) -> str:
    """The most memory any one node has, all its cards together."""
    return self._gb(max(n.cards * self.catalog.gpu_of(n).memory_gb for n in self.catalog.nodes.values()))


@macro
def pcie_only_gpus(self: Macros) -> str:
    """Cards the catalog offers only over PCIe, without NVLink."""
    linked = {c.cheapest.gpu for c in self.catalog.configurations.values()
              if self.catalog.interconnect_of(c.cheapest).family == "nvlink"}
    return self.f.join([g.short_name for g in self.catalog.gpus.values() if g.id not in linked])


# --- guides: reading time and cards --------------------------------------------------------------------
@macro
def reading_time(self: Macros, page: str) -> Markup:
    """Minutes to read a page (path inside a language folder), computed from its own text."""
    if not (DOCS_DIR / SOURCE_LANGUAGE / page).exists():
        raise MacroError(f"no page '{page}' in docs/en/; give a path like 'guides/quantization.md'")
    return reading_time_placeholder(page, self.lang)


@macro
def guide_cards(self: Macros, exclude: str | None = None) -> str:
    """Cards for every guide (but ``exclude``): category, reading time, title, summary, link."""
    items = []
    for page in guide_pages():
        if page == exclude:
            continue
        meta = guide_front_matter(page, self.lang)
        url = self.links.lang_root + page.removesuffix(".md") + "/"
        meta_line = escape(_t(self, "meta", category=meta.get("category", ""), minutes="\0"))
        items.append(Markup(
            '<li><p class="guide-meta">{meta}</p><p class="guide-title"><a href="{url}">{title}</a></p>'
            '<p>{summary}</p><p><a href="{url}" aria-hidden="true" tabindex="-1">{read}</a></p></li>').format(
            meta=meta_line.replace("\0", reading_time_placeholder(page, self.lang)), url=url,
            title=meta.get("title", page), summary=meta.get("description", ""), read=_t(self, "read")))
    return block(Markup('<ul class="guide-cards">{}</ul>').format(Markup("").join(items)))


# --- small figures the guides quote ---------------------------------------------------------------------
@macro
def pipeline_memory(self: Macros, model: str, precision: str) -> str:
    """Everything an image or video pipeline needs on one card: weights of every component plus working
    memory at its usual resolution or clip length."""
    chosen, prec = _diffusion(self, model), self._precision(precision)
    self._cell(model, precision, next(iter(self.catalog.nodes)))
    return _gb(self, weight_bytes(chosen, prec) + chosen.activation_reserve_gib * GIB)


@macro
def cheapest_card_price(self: Macros, model: str, precision: str) -> str:
    """Price per GPU-hour of the cheapest card that holds the model on its own."""
    return self.f.money(_one_card(self, model, precision)[0].price_per_gpu_hour, "USD", digits=2)


@macro
def cheapest_card_headroom(self: Macros, model: str, precision: str) -> str:
    """Memory left on the cheapest card that holds the model on its own."""
    choice = _one_card(self, model, precision)[0]
    return _gib(self, choice.fit.budget - choice.fit.need.total)


@macro
def embedding_share(self: Macros, model: str) -> str:
    """Share of a model's parameters in its embeddings and output head (which quantized formats keep 16-bit)."""
    from sizing.memory import embedding_params
    llm = self._llm(model)
    return _t(self, "percent", value=self.f.number(100 * embedding_params(llm) / llm.params))


@macro
def read_per_token(self: Macros, model: str, precision: str) -> str:
    """Bytes of weights one generated token reads: all of them for a dense model, the active ones for MoE."""
    from sizing.memory import weight_bytes_read_per_token
    self._precision(precision)
    return _gb(self, weight_bytes_read_per_token(self._llm(model), self.catalog.precisions[precision]))


@macro
def read_ratio(self: Macros, model: str, precision: str) -> str:
    """How many times less a mixture-of-experts model reads per token than it holds in memory."""
    from sizing.memory import weight_bytes_read_per_token
    llm, prec = self._llm(model), self._precision(precision)
    return self._times(weight_bytes(llm, prec) / weight_bytes_read_per_token(llm, prec))


@macro
def kv_heads(self: Macros, model: str) -> str:
    """How many key-value heads a model has (a split beyond them holds each one on several cards)."""
    return self.f.number(self._llm(model).kv_heads)
