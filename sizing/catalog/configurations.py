"""Hardware configurations: the nodes that share a GPU model, a card count and the link between their cards.

Such nodes get the same verdict, speed and warnings for every model; they differ only in price. The
configurator and the API show one row and one set of figures per configuration, with its cheapest price and
how many offers it has, so their size follows the hardware on offer, not the number of price lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from sizing.catalog.schema import Node


@dataclass(frozen=True)
class Configuration:
    """``id`` is the id of its first node in ``nodes.yml``: stable while that node is offered, and equal
    to the node id where a configuration has one node, as every configuration of today's catalog does."""

    id: str
    nodes: tuple[Node, ...]  # cheapest first, ties by id

    @property
    def cheapest(self) -> Node:
        """The node that stands for the configuration: its hardware, and the lowest price it is rented at."""
        return self.nodes[0]


def hardware_key(node: Node) -> tuple[object, ...]:
    """What decides every verdict, speed and warning of a node: everything but its id and its price."""
    link = node.link
    return (node.gpu, node.cards, link.interconnect, link.topology, link.topo_label, link.peer_per_direction_gbps)


def group_configurations(nodes: list[Node]) -> dict[str, Configuration]:
    """The configurations of ``nodes`` (in catalog order), keyed by configuration id, in catalog order."""
    groups: dict[tuple[object, ...], list[Node]] = {}
    for node in nodes:
        groups.setdefault(hardware_key(node), []).append(node)
    configurations = {}
    for members in groups.values():
        ranked = sorted(members, key=lambda n: (n.price_per_month.amount, n.id))
        configurations[members[0].id] = Configuration(members[0].id, tuple(ranked))
    return configurations
