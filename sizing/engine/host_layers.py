"""Layers in host memory: llama.cpp's ``--n-gpu-layers N`` keeps the last ``N`` repeating layers on the cards
(shared out between them) and runs the others on the CPU, from host memory, with the input embeddings and the
output head (which go to a card only when every layer and one more are asked for). A model whose weights
exceed its cards but fit beside them in the host's memory runs so; each step then reads the host's share at
the speed of the host's memory (``sizing.engine.decode``).

Plain numbers in, a plan out: how many layers fit on the cards, what the busiest card holds, what the host
holds, and how often a step passes between the cards and the CPU."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sizing.engine.memory import embedding_bytes, kv_cache_bytes, layer_weight_bytes
from sizing.engine.specs import HostLayers, LlmShape, PrecisionSpec


@dataclass(frozen=True)
class LayersOnCards:
    """A run with ``gpu_layers`` of the model's layers on its cards: the busiest card holds
    ``busiest_card_layers`` of them (weights and KV cache); the host holds the rest of the weights, with the
    embeddings and the output head, and the rest of the KV cache."""

    gpu_layers: int
    busiest_card_layers: int
    layer_weight_bytes: float
    layer_kv_bytes: float
    host_weight_bytes: float
    host_kv_bytes: float

    @property
    def busiest_card_weight_bytes(self) -> float:
        return self.busiest_card_layers * self.layer_weight_bytes

    @property
    def busiest_card_kv_bytes(self) -> float:
        return self.busiest_card_layers * self.layer_kv_bytes

    @property
    def host_bytes(self) -> float:
        return self.host_weight_bytes + self.host_kv_bytes


def layers_on_cards(
    model: LlmShape,
    precision: PrecisionSpec,
    cards: int,
    room_per_card_bytes: float,
    context_tokens: int,
    streams: int,
    kv_bytes_per_element: float,
) -> LayersOnCards | None:
    """The most layers that ``cards`` cards hold with ``room_per_card_bytes`` each
    beside the engine's reserve, a layer's weights and its KV cache of ``streams`` streams of
    ``context_tokens`` each; None when not one layer fits. When every layer fits, the embeddings and the output
    head alone stay in host memory."""
    layer_weights = layer_weight_bytes(model, precision)
    layer_kv = kv_cache_bytes(model, context_tokens, streams, kv_bytes_per_element) / model.layers
    per_card = math.floor(room_per_card_bytes / (layer_weights + layer_kv)) if room_per_card_bytes > 0 else 0
    chosen = min(model.layers, per_card * cards)
    if chosen < 1:
        return None
    host_layers = model.layers - chosen
    return LayersOnCards(
        gpu_layers=chosen,
        busiest_card_layers=math.ceil(chosen / cards),
        layer_weight_bytes=layer_weights,
        layer_kv_bytes=layer_kv,
        host_weight_bytes=host_layers * layer_weights + embedding_bytes(model, precision),
        host_kv_bytes=host_layers * layer_kv,
    )


def crossings_per_step(layers: int, host_layers: HostLayers) -> int:
    """Times one decode step passes between the cards and the CPU: into and out of every layer whose experts
    alone stay in host memory (``--n-cpu-moe``), and once into and out of the layers and output head the CPU runs
    (``--n-gpu-layers`` at most the layer count)."""
    in_host = layers - min(host_layers.gpu_layers, layers)
    experts_alone = max(0, min(host_layers.cpu_moe_layers, layers) - in_host)
    return 2 * experts_alone + (2 if host_layers.gpu_layers <= layers else 0)
