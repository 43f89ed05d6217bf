"""The macros writers call from Markdown pages. Each returns text for the page's language.

A macro takes ids from data/ (node, GPU, model, precision, interconnect ids) and returns a figure,
formatted for the language, or a table. ``claim_*`` macros return nothing and fail the build when the
sentence they stand in stops being true for the data.
"""
from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from sizing.api import speed_for_display
from sizing.errors import closest
from sizing.collectives import (
    allreduces_per_token, gradient_bytes, link_ratio, node_allreduce_seconds,
)
from sizing.configurations import Configuration
from sizing.fit import Fit, Verdict
from sizing.matrix import Cell
from sizing.schema import DiffusionModel, Gpu, Interconnect, Llm, Node, Precision
from sizing.units import GB, GIB
from sizing.yaml_lines import safe_load

from .context import BuildData
from .errors import MacroError
from .formatting import formatter
from .links import PageLinks
from .strings import text
from .tables import code, table

MACROS: dict[str, Callable[..., str]] = {}


def macro(function: Callable[..., str]) -> Callable[..., str]:
    """Register a method of ``Macros`` as callable from pages."""
    MACROS[function.__name__] = function
    return function


def _check_type(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_check_type(value, h) for h in typing.get_args(hint))
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_check_type(v, item) for v in value)
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    return {str: "an id in quotes", int: "a whole number", list[str]: "a list of ids in quotes, like [\"a\", \"b\"]",
            str | None: "an id in quotes", int | None: "a whole number", bool: "true or false"}.get(hint, str(hint))


# A macro's output depends only on the catalog, its arguments, the language and (for some) the page's
# position: computed once per build and data state. Those that read other pages of docs/ are never cached
# here (macros.incremental keys the pages that call them by what they read).
READS_OTHER_PAGES = frozenset({"guide_cards", "reading_time", "translation_status_table"})
LINK_DEPENDENT = {"configurator"}
_results: dict[str, dict[tuple[Any, ...], str]] = {}


def forget_results(fingerprint: str) -> None:
    """Drop the macro results computed from a data state that changed (mkdocs serve after an edit)."""
    _results.pop(fingerprint, None)


@cache
def _signature(name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    function = MACROS[name]
    return inspect.signature(function), typing.get_type_hints(function)


def signature_of(name: str) -> str:
    params = list(inspect.signature(MACROS[name]).parameters.values())[1:]
    return f"{name}({', '.join(p.name if p.default is p.empty else f'{p.name}={p.default!r}' for p in params)})"


class Macros:
    """The macros bound to one build's data, one language and one page's position in the site."""

    def __init__(self, data: BuildData, lang: str, links: PageLinks = PageLinks()):
        self.data = data
        self.catalog = data.catalog
        self.matrix = data.matrix
        self.fingerprint = data.fingerprint
        self.lang = lang
        self.links = links
        self.f = formatter(lang)

    def as_globals(self) -> dict[str, Callable[..., str]]:
        """The callables a page sees, each checking its arguments before it runs."""
        return {name: self._checked(name) for name in MACROS}

    def _checked(self, name: str) -> Callable[..., str]:
        function = MACROS[name]
        sig, hints = _signature(name)

        def call(*args: Any, **kwargs: Any) -> str:
            try:
                bound = sig.bind(self, *args, **kwargs)
            except TypeError as exc:
                raise MacroError(f"{name}() was called wrongly ({exc}); it takes {signature_of(name)}") from None
            for param, value in list(bound.arguments.items())[1:]:
                if not _check_type(value, hints[param]):
                    raise MacroError(f"argument '{param}' of {name}() must be {_describe(hints[param])}, "
                                     f"found {value!r}; it takes {signature_of(name)}")
            key = None if name in READS_OTHER_PAGES else (
                name, repr(bound.args[1:]), repr(sorted(bound.kwargs.items())), self.lang,
                self.links if name in LINK_DEPENDENT else None)
            cache = _results.setdefault(self.fingerprint, {})
            if key is not None and key in cache:
                return cache[key]
            result = function(*bound.args, **bound.kwargs)
            # Text from data/ lands in Markdown, where HTML passes through: escape it. Tables and other
            # deliberate markup are built escaped already and come back as Markup.
            text_out = str(result if isinstance(result, Markup) else escape(result))
            if key is not None:
                cache[key] = text_out
            return text_out

        call.__name__ = name
        return call

    # --- lookups ------------------------------------------------------------------------------------
    def _lookup(self, kind: str, table: typing.Mapping[str, Any], key: str) -> Any:
        if key in table:
            return table[key]
        near = closest(key, table)
        hint = ("did you mean " + " or ".join(f"'{n}'" for n in near) + "?") if near else \
            f"valid {kind} ids are listed in the writer's reference"
        raise MacroError(f"unknown {kind} id '{key}'; {hint}")

    def _node(self, node_id: str) -> Node:
        return self._lookup("node", self.catalog.nodes, node_id)

    def _gpu(self, gpu_or_node: str) -> Gpu:
        if gpu_or_node in self.catalog.nodes:
            return self.catalog.gpu_of(self.catalog.nodes[gpu_or_node])
        return self._lookup("GPU", self.catalog.gpus, gpu_or_node)

    def _model(self, model_id: str) -> Llm | DiffusionModel:
        return self._lookup("model", self.catalog.models, model_id)

    def _llm(self, model_id: str) -> Llm:
        model = self._model(model_id)
        if not isinstance(model, Llm):
            raise MacroError(f"'{model_id}' is an image or video model; this macro needs a language model")
        return model

    def _precision(self, precision_id: str) -> Precision:
        return self._lookup("precision", self.catalog.precisions, precision_id)

    def _interconnect(self, link_id: str) -> Interconnect:
        return self._lookup("interconnect", self.catalog.interconnects, link_id)

    def _cell(self, model_id: str, precision_id: str, node_id: str, context: int | None = None) -> Cell:
        model, precision = self._model(model_id), self._precision(precision_id)
        self._node(node_id)
        if model.kind not in precision.applies_to:
            raise MacroError(f"precision '{precision_id}' does not apply to '{model_id}'; use one of "
                             + ", ".join(f"'{p.id}'" for p in self.catalog.precisions_for(model)))
        return self.matrix.cell(model_id, precision_id, node_id, context)

    # --- formatting helpers -------------------------------------------------------------------------
    def _gb(self, value_gb: float) -> str:
        return self.f.unit("gb", self.f.number(value_gb))

    def _gbps(self, value: float) -> str:
        digits = 0 if float(value).is_integer() else (1 if float(value * 10).is_integer() else 2)
        return self.f.unit("gb_per_s", self.f.number(value, digits))

    def _times(self, ratio: float) -> str:
        return self.f.unit("times", self.f.number(ratio) if ratio >= 3 else self.f.number(ratio, 1))

    def _money(self, node: Node) -> str:
        return self.f.money(node.price_per_month.amount, node.price_per_month.currency)

    def _tokens(self, value: float) -> str:
        shown = speed_for_display(value)
        return self.f.unit("tokens_per_s", self.f.number(shown) if shown >= 10 else self.f.number(shown, 1))

    def _verdict_text(self, fit: Fit) -> str:
        return text("verdicts", fit.verdict.value, self.lang, cards=self.f.number(fit.cards))

    def _node_label(self, node: Node, full: bool = False) -> str:
        gpu = self.catalog.gpu_of(node)
        return text("units", "node_name", self.lang, cards=node.cards, gpu=gpu.name if full else gpu.short_name)

    def _configuration_ids(self, configuration: Configuration) -> Markup:
        """A configuration's id (its first node's), and how many offers share its hardware."""
        if len(configuration.nodes) == 1:
            return code(configuration.id)
        return Markup("{} {}").format(code(configuration.id), text(
            "reference", "offers_of_hardware", self.lang, count=self.f.number(len(configuration.nodes))))

    def _link_label(self, link: Interconnect, topology: str) -> str:
        qualifier = text("topology_short", topology, self.lang)
        return text("tables", "link_qualified", self.lang, link=link.name, qualifier=qualifier) if qualifier \
            else link.name

    # --- catalog figures ----------------------------------------------------------------------------
    @macro
    def node_count(self) -> str:
        """How many node configurations the catalog offers."""
        return self.f.number(len(self.catalog.nodes))

    @macro
    def max_cards(self) -> str:
        """The most cards any node has."""
        return self.f.number(max(n.cards for n in self.catalog.nodes.values()))

    @macro
    def cards(self, node: str) -> str:
        """How many cards a node has."""
        return self.f.number(self._node(node).cards)

    @macro
    def node_name(self, node: str) -> str:
        """A node's name: its card count and GPU."""
        return self._node_label(self._node(node))

    @macro
    def gpu_name(self, gpu: str) -> str:
        """A GPU's short name (a GPU id, or a node id for its GPU)."""
        return self._gpu(gpu).short_name

    @macro
    def model_name(self, model: str) -> str:
        """A model's name."""
        return self._model(model).name

    @macro
    def layers(self, model: str) -> str:
        """How many transformer layers a language model has."""
        return self.f.number(self._llm(model).layers)

    @macro
    def price(self, node: str) -> str:
        """A node's monthly price."""
        return self.f.unit("per_month", self._money(self._node(node)))

    @macro
    def price_gap(self, node: str, other: str) -> str:
        """How much more one node costs than another per month (absolute difference)."""
        a, b = self._node(node), self._node(other)
        return self.f.money(abs(a.price_per_month.amount - b.price_per_month.amount), a.price_per_month.currency)

    @macro
    def prices_as_of(self) -> str:
        """The date the catalog's prices were set."""
        return self.f.date(self.catalog.prices_as_of)

    @macro
    def card_memory(self, gpu: str) -> str:
        """Memory of one card (a GPU id, or a node id for its GPU)."""
        return self._gb(self._gpu(gpu).memory_gb)

    @macro
    def total_memory(self, node: str) -> str:
        """Memory of all the cards of a node together."""
        n = self._node(node)
        return self._gb(n.cards * self.catalog.gpu_of(n).memory_gb)

    @macro
    def memory_bandwidth(self, gpu: str) -> str:
        """Memory bandwidth of one card (a GPU id, or a node id for its GPU)."""
        return self._gbps(self._gpu(gpu).memory_bandwidth_gbps)

    @macro
    def link_bandwidth(self, link: str, both_ways: bool = False) -> str:
        """A link's bandwidth per card, one direction (both_ways=true adds the two directions)."""
        ic = self._interconnect(link)
        return self._gbps(ic.both_directions_gbps if both_ways else ic.per_direction_gbps)

    @macro
    def link_ratio(self, faster: str, slower: str) -> str:
        """How many times faster one link is than another, one direction against one direction."""
        return self._times(link_ratio(self._interconnect(faster), self._interconnect(slower)))

    # --- calculations -------------------------------------------------------------------------------
    @macro
    def allreduces_per_token(self, model: str) -> str:
        """All-reduces per generated token under tensor parallelism (two per layer)."""
        return self.f.number(allreduces_per_token(self.catalog, self._llm(model)))

    @macro
    def gradient_volume(self, model: str) -> str:
        """Bytes of gradients a data-parallel training step all-reduces (BF16 gradients)."""
        m = self._model(model)
        return self._gb(gradient_bytes(self.catalog, m) / GB)

    @macro
    def allreduce_time(self, model: str, node: str) -> str:
        """Pure transfer time of one gradient all-reduce (ring) over every card of a node."""
        seconds = node_allreduce_seconds(self.catalog, self._node(node), gradient_bytes(self.catalog, self._model(model)))
        return self.f.unit("seconds", self.f.significant(seconds))

    @macro
    def allreduce_speedup(self, model: str, slow_node: str, fast_node: str) -> str:
        """How many times faster the gradient all-reduce runs on one node than on another."""
        volume = gradient_bytes(self.catalog, self._model(model))
        slow = node_allreduce_seconds(self.catalog, self._node(slow_node), volume)
        fast = node_allreduce_seconds(self.catalog, self._node(fast_node), volume)
        if fast <= 0 or slow <= 0:
            raise MacroError("allreduce_speedup() needs two nodes of at least two cards")
        return self._times(slow / fast)

    @macro
    def verdict(self, model: str, precision: str, node: str, context: int | None = None) -> str:
        """Whether a model fits on one card of a node, must be split (and across how many), or does not fit."""
        return self._verdict_text(self._cell(model, precision, node, context).fit)

    @macro
    def throughput(self, model: str, precision: str, node: str, context: int | None = None) -> str:
        """Single-stream decode floor in tokens per second, on the cards the verdict uses."""
        cell = self._cell(model, precision, node, context)
        if cell.tokens_per_s is None:
            raise MacroError(f"'{model}' in {precision} {self._verdict_text(cell.fit)} on '{node}': no throughput")
        return self._tokens(cell.tokens_per_s)

    # --- tables -------------------------------------------------------------------------------------
    @macro
    def link_table(self) -> str:
        """Every link between the cards of our nodes: where to get it, bandwidth each way and both ways."""
        groups: dict[tuple[str, str], dict[str, set[int]]] = {}
        hardware = [c.cheapest for c in self.catalog.configurations.values()]  # each kind of node once
        for node in hardware:
            if node.cards > 1:
                offers = groups.setdefault((node.link.interconnect, node.link.topology), {})
                offers.setdefault(node.gpu, set()).add(node.cards)
        order = sorted(groups, key=lambda k: (-self.catalog.interconnects[k[0]].per_direction_gbps, k[0], k[1]))
        rows = []
        for link_id, topology in order:
            link = self.catalog.interconnects[link_id]
            where = self.f.join([
                text("tables", "offer", self.lang, gpu=self.catalog.gpus[gpu].short_name,
                     counts=self._card_counts(sorted(counts)))
                for gpu, counts in groups[(link_id, topology)].items()])
            peer = next((n.link.peer_per_direction_gbps for n in hardware
                         if n.link.interconnect == link_id and n.link.topology == topology
                         and n.link.peer_per_direction_gbps), None)
            shape = text("topologies", topology, self.lang, peer=self._gbps(peer) if peer else "")
            rows.append([self._link_label(link, topology), where, self._gbps(link.per_direction_gbps),
                         self._gbps(link.both_directions_gbps), shape])
        headers = [text("tables", k, self.lang) for k in ("link", "where", "each_way", "both_ways", "topology")]
        return table(text("tables", "link_caption", self.lang), headers, rows)

    def _card_counts(self, counts: list[int]) -> str:
        numbers = [self.f.number(c) for c in sorted(counts)]
        return self.f.unit("card_counts", self.f.join(numbers, "or"))

    @macro
    def node_comparison(self, nodes: list[str], model: str, precision: str) -> str:
        """Nodes side by side: link, total memory, bandwidth per card, the model's throughput floor, price."""
        picked = [self._node(n) for n in nodes]
        llm, prec = self._llm(model), self._precision(precision)
        rows: list[list[str | Markup]] = [
            [text("tables", "link_between", self.lang), *[self._node_link(n) for n in picked]],
            [text("tables", "total_memory", self.lang), *[self.total_memory(n.id) for n in picked]],
            [text("tables", "bandwidth_per_card", self.lang), *[self.memory_bandwidth(n.id) for n in picked]],
        ]
        cells = [self._cell(model, precision, n.id) for n in picked]
        same_verdict = len({(c.fit.verdict, c.fit.cards) for c in cells}) == 1
        label = (text("tables", "floor_row", self.lang, model=llm.name, precision=prec.name,
                      verdict=self._verdict_text(cells[0].fit)) if same_verdict else
                 text("tables", "floor_row_plain", self.lang, model=llm.name, precision=prec.name))
        rows.append([label, *[self._tokens(c.tokens_per_s) if c.tokens_per_s is not None
                              else self._verdict_text(c.fit) for c in cells]])
        rows.append([text("tables", "price", self.lang), *[self.price(n.id) for n in picked]])
        headers = [text("tables", "node", self.lang), *[self._node_label(n, full=True) for n in picked]]
        return table(text("tables", "compare_caption", self.lang), headers, rows)

    def _node_link(self, node: Node) -> str:
        link = self.catalog.interconnect_of(node)
        if node.cards == 1:
            return text("tables", "no_link", self.lang)
        each_way = self._gbps(link.per_direction_gbps)
        if node.link.peer_per_direction_gbps:
            return text("tables", "via_mesh", self.lang, link=link.name, each_way=each_way,
                        peer=self._gbps(node.link.peer_per_direction_gbps))
        return text("tables", "via_link", self.lang, link=self._link_label(link, node.link.topology),
                    each_way=each_way)

    @macro
    def topo_table(self) -> str:
        """For every NVLink configuration: what `nvidia-smi topo -m` should show and the `-g` of
        all_reduce_perf."""
        rows = []
        for configuration in self.catalog.configurations.values():
            node = configuration.cheapest
            if node.link.topo_label is None:
                continue
            key = "pairs_only" if node.link.topology == "bridged-pairs" else "every_pair"
            rows.append([self._node_label(node), text("topo", key, self.lang, label=node.link.topo_label),
                         self.f.number(node.cards)])
        headers = [text("tables", "node", self.lang), code_header(text("tables", "topo_between", self.lang)),
                   code_header(text("tables", "topo_cards", self.lang))]
        return table(text("tables", "topo_caption", self.lang), headers, rows)

    # --- claims -------------------------------------------------------------------------------------
    def _claim(self, holds: bool, claim: str, actual: str) -> str:
        if not holds:
            raise MacroError(f"claim no longer true: {claim}; the data says {actual}. "
                             "Rewrite the sentence, or fix data/ if the data is wrong")
        return ""

    def _explain(self, cell: Cell) -> str:
        need, budget = cell.fit.need.total / GIB, cell.fit.budget / GIB
        return (f"{text('verdicts', cell.fit.verdict.value, 'en', cards=cell.fit.cards)} "
                f"(needs {need:.1f} GiB per card on {cell.fit.cards}, budget {budget:.1f} GiB)")

    @macro
    def claim_fits_one_card(self, model: str, precision: str, node: str) -> str:
        """Fails the build unless the model fits on one card of the node. Prints nothing."""
        cell = self._cell(model, precision, node)
        return self._claim(cell.fit.verdict is Verdict.ONE_CARD,
                           f"'{model}' in {precision} fits on one card of '{node}'", self._explain(cell))

    @macro
    def claim_split(self, model: str, precision: str, node: str) -> str:
        """Fails the build unless the model is too big for one card but fits split across the node."""
        cell = self._cell(model, precision, node)
        return self._claim(cell.fit.verdict is Verdict.SPLIT,
                           f"'{model}' in {precision} must be split across the cards of '{node}'",
                           self._explain(cell))

    @macro
    def claim_no_fit_one_card(self, model: str, precision: str, node: str) -> str:
        """Fails the build if the model fits on one card of the node. Prints nothing."""
        cell = self._cell(model, precision, node)
        return self._claim(cell.fit.verdict is not Verdict.ONE_CARD,
                           f"'{model}' in {precision} does not fit on one card of '{node}'", self._explain(cell))

    @macro
    def claim_same_total_memory(self, node: str, other: str) -> str:
        """Fails the build unless both nodes have the same total memory and card count."""
        a, b = self._node(node), self._node(other)
        memory = [n.cards * self.catalog.gpu_of(n).memory_gb for n in (a, b)]
        return self._claim(memory[0] == memory[1] and a.cards == b.cards,
                           f"'{node}' and '{other}' have the same cards and total memory",
                           f"{a.cards} cards / {memory[0]:g} GB against {b.cards} cards / {memory[1]:g} GB")

    @macro
    def claim_faster(self, model: str, precision: str, node: str, than: str) -> str:
        """Fails the build unless the model's throughput floor on ``node`` is at least that on ``than``."""
        fast, slow = self._cell(model, precision, node), self._cell(model, precision, than)
        ok = fast.tokens_per_s is not None and (slow.tokens_per_s is None or fast.tokens_per_s >= slow.tokens_per_s)
        return self._claim(ok, f"'{model}' in {precision} runs at least as fast on '{node}' as on '{than}'",
                           f"{fast.tokens_per_s} against {slow.tokens_per_s} tok/s")


def code_header(label: str) -> Markup:
    """A header whose `backticked` parts are code."""
    parts = label.split("`")
    return Markup("").join(code(p) if i % 2 else p for i, p in enumerate(parts))


REFERENCE_FILE = Path(__file__).resolve().parent / "reference.yml"


@cache
def reference_entries() -> dict[str, dict[str, Any]]:
    """The writer's reference entries, checked to cover every macro in every language."""
    entries = safe_load(REFERENCE_FILE.read_text(encoding="utf-8"))
    missing = sorted(set(MACROS) - set(entries))
    unknown = sorted(set(entries) - set(MACROS))
    incomplete = [name for name, e in entries.items() if not (e.get("fr") and e.get("zh") and "args" in e)]
    if missing or unknown or incomplete:
        raise ValueError(f"{REFERENCE_FILE}: undocumented macros {missing}, unknown entries {unknown}, "
                         f"entries missing fr, zh or args {incomplete}")
    return entries


def _call_text(name: str, args: list[Any]) -> str:
    def show(value: Any) -> str:
        return "[" + ", ".join(show(v) for v in value) + "]" if isinstance(value, list) else json.dumps(value)
    return f"{name}({', '.join(show(a) for a in args)})"


@macro
def macro_reference(self: Macros) -> str:
    """This table: every macro, what it gives, and an example computed live."""
    rows = []
    calls = self.as_globals()
    for name, entry in reference_entries().items():  # in the reference's order: the same in every process
        description = inspect.getdoc(MACROS[name]) if self.lang == "en" else entry[self.lang]
        if entry["output"] == "table":
            output = text("reference", "table_output", self.lang)
        elif entry["output"] == "nothing":
            calls[name](*entry["args"])
            output = text("reference", "nothing_output", self.lang)
        else:
            output = Markup(calls[name](*entry["args"]))  # what a page gets: escaped already
        rows.append([code(signature_of(name)), description, code(_call_text(name, entry["args"])), output])
    headers = [text("reference", k, self.lang) for k in ("macro", "description", "example", "output")]
    return table(text("reference", "caption", self.lang), headers, rows)


@macro
def id_reference(self: Macros) -> str:
    """Every valid id: nodes (the first of each hardware configuration, with the number of offers of that
    hardware when there are several, all listed in data/nodes.yml), GPUs, models, precisions, links."""
    c = self.catalog
    groups = {"gpus": c.gpus, "models": c.models, "precisions": c.precisions, "interconnects": c.interconnects}
    rows = [[text("reference", "nodes", self.lang),
             Markup(", ").join(self._configuration_ids(configuration) for configuration in c.configurations.values())]]
    rows += [[text("reference", kind, self.lang), Markup(", ").join(code(i) for i in ids)]
             for kind, ids in groups.items()]
    headers = [text("reference", "kind", self.lang), text("reference", "ids", self.lang)]
    return table(text("reference", "ids_caption", self.lang), headers, rows)
