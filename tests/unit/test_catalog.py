"""The catalog in data/: what the company sells and publishes."""

from collections import defaultdict

import pytest
from sitebuild import edit

from sizing.catalog.errors import CatalogError
from sizing.catalog.loader import Catalog, current_catalog


def test_the_catalog_has_41_configurations_of_1_to_8_cards(catalog: Catalog):
    assert len(catalog.nodes) == 41
    assert {n.cards for n in catalog.nodes.values()} <= set(range(1, 9))
    assert max(n.cards for n in catalog.nodes.values()) == 8


def test_the_two_published_prices_are_exact(catalog: Catalog):
    assert catalog.nodes["4x-a100-pcie-80gb"].price_per_month.amount == 4157
    assert catalog.nodes["4x-a100-sxm4-80gb"].price_per_month.amount == 4395
    assert all(n.price_per_month.currency == "USD" for n in catalog.nodes.values())


def test_price_grows_with_card_count_for_every_gpu(catalog: Catalog):
    by_gpu = defaultdict(list)
    for node in catalog.nodes.values():
        by_gpu[node.gpu].append((node.cards, node.price_per_month.amount))
    for gpu, offers in by_gpu.items():
        prices = [price for _, price in sorted(offers)]
        assert prices == sorted(prices) and len(set(prices)) == len(prices), gpu


def test_sxm_costs_more_than_pcie_of_the_same_chip_and_card_count(catalog: Catalog):
    for cards in (4, 8):
        pcie = catalog.nodes[f"{cards}x-a100-pcie-80gb"].price_per_month.amount
        sxm = catalog.nodes[f"{cards}x-a100-sxm4-80gb"].price_per_month.amount
        assert sxm > pcie


def test_the_a100_is_pcie_gen4_and_pcie_nodes_use_their_cards_generation(catalog: Catalog):
    assert catalog.interconnect_of(catalog.nodes["4x-a100-pcie-80gb"]).id == "pcie-gen4-x16"
    for node in catalog.nodes.values():
        if node.link.topology == "host":
            assert catalog.interconnect_of(node).generation == catalog.gpu_of(node).pcie_generation


def test_topo_labels_are_those_nvidia_smi_shows(catalog: Catalog):
    assert catalog.nodes["8x-a100-sxm4-80gb"].link.topo_label == "NV12"
    assert catalog.nodes["4x-a100-sxm4-80gb"].link.topo_label == "NV4"
    for node_id in ("8x-h100-sxm5-80gb", "8x-h200-sxm-141gb", "8x-b200"):
        assert catalog.nodes[node_id].link.topo_label == "NV18"
        assert catalog.nodes[node_id].link.topology == "nvswitch"


def test_every_record_carries_its_source_and_every_assumption_its_reason(catalog: Catalog):
    for record in [
        *catalog.gpus.values(),
        *catalog.interconnects.values(),
        *catalog.precisions.values(),
        *catalog.models.values(),
    ]:
        assert record.sources, record.id
    for name, assumption in catalog.assumptions:
        assert assumption.reason, name
    assert all(m.source for m in catalog.measurements)


def test_models_cover_dense_moe_and_image_video(catalog: Catalog):
    ids = set(catalog.models)
    assert {"llama-3.3-70b", "deepseek-v3", "qwen3-235b-a22b", "mixtral-8x7b"} <= ids
    assert {"flux.1-dev", "sdxl-base-1.0", "sd-3.5-large", "wan2.1-t2v-14b", "wan2.1-t2v-1.3b"} <= ids


def test_the_current_catalog_is_read_once_per_state_of_the_data(data_copy):
    """What the command lines and the site's macros read: the same catalog while data/ is unchanged, the new one
    after an edit, an error while the edit is wrong, and the edit again once it is fixed."""
    first = current_catalog(data_copy)
    assert current_catalog(data_copy) is first
    nodes = data_copy / "nodes.yml"
    edit(nodes, "{amount: 4157, currency: USD}", "{amount: 3999, currency: USD}")
    edited = current_catalog(data_copy)
    assert edited is not first and edited.nodes["4x-a100-pcie-80gb"].price_per_month.amount == 3999
    edit(nodes, "{amount: 3999, currency: USD}", "{amount: -5, currency: USD}")
    with pytest.raises(CatalogError):
        current_catalog(data_copy)
    edit(nodes, "{amount: -5, currency: USD}", "{amount: 3999, currency: USD}")
    assert current_catalog(data_copy).nodes["4x-a100-pcie-80gb"].price_per_month.amount == 3999
