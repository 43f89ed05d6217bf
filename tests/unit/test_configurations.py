"""Hardware configurations: nodes that share a GPU, a card count and a link are one row of the configurator
and one set of cells in the API, shown at the cheapest node's price with the number of offers."""

import re
from pathlib import Path

import pytest
from rendering import render
from sitebuild import edit

from macros.site.site_data import site_data
from sizing.catalog.configurations import group_configurations
from sizing.views.api import catalog_document, fit_document

A100_SXM4 = """  - id: 4x-a100-sxm4-80gb
    gpu: a100-sxm4-80gb
    cards: 4
"""


def test_today_every_configuration_is_one_node_and_keeps_its_id(catalog):
    assert len(catalog.configurations) == len(catalog.nodes) == 41
    assert all(c.id == c.cheapest.id and len(c.nodes) == 1 for c in catalog.configurations.values())


def test_nodes_differing_only_in_price_are_one_configuration_cheapest_first(catalog):
    node = catalog.nodes["4x-a100-sxm4-80gb"]
    dearer = node.model_copy(
        update={
            "id": "4x-a100-sxm4-80gb-eu",
            "price_per_month": node.price_per_month.model_copy(update={"amount": 4_600}),
        }
    )
    cheaper = node.model_copy(
        update={
            "id": "4x-a100-sxm4-80gb-us",
            "price_per_month": node.price_per_month.model_copy(update={"amount": 4_200}),
        }
    )
    other_link = catalog.nodes["4x-a100-pcie-80gb"]
    grouped = group_configurations([node, dearer, other_link, cheaper])
    assert list(grouped) == ["4x-a100-sxm4-80gb", "4x-a100-pcie-80gb"]  # id of the first node listed
    assert [n.id for n in grouped["4x-a100-sxm4-80gb"].nodes] == [
        "4x-a100-sxm4-80gb-us",
        "4x-a100-sxm4-80gb",
        "4x-a100-sxm4-80gb-eu",
    ]


@pytest.fixture
def resold(data_copy: Path):
    """The catalog with the 4 × A100 SXM4 hardware offered twice more: once cheaper than any node that holds
    Llama 3.3 70B in BF16 (the 4 × A40 at $2,060), once dearer."""
    nodes = data_copy / "nodes.yml"
    text = nodes.read_text(encoding="utf-8")
    record = re.search(r"  - id: 4x-a100-sxm4-80gb\n(?:    .*\n)+", text).group(0)
    extra = record.replace("id: 4x-a100-sxm4-80gb", "id: 4x-a100-sxm4-80gb-b").replace("4395", "2000") + record.replace(
        "id: 4x-a100-sxm4-80gb", "id: 4x-a100-sxm4-80gb-c"
    ).replace("4395", "4990")
    edit(nodes, record, record + extra)
    return site_data(data_copy)


def test_the_configurator_shows_one_row_per_configuration_from_its_cheapest_price(resold):
    assert len(resold.catalog.nodes) == 43
    # at 128K, where 4 cards of an A100 class are the cheapest that hold the model at the default setting
    html = render(resold, '{{ configurator("llama-3.3-70b", "bf16", 131072) }}', "en", "docs/en/configurator/x.md")
    rows = re.findall(r'<tr class="cfg-[a-z-]+" data-configuration="([^"]+)"[^>]*>(.*?)</tr>', html)
    assert len(rows) == 41
    row = dict(rows)["4x-a100-sxm4-80gb"]
    assert "4\xa0×\xa0A100 80GB SXM4 (3 offers)" in row and "from $2,000/month" in row
    # the summary names the cheapest node itself, at its own price
    assert "Cheapest node that runs it: 4\xa0×\xa0A100 80GB SXM4, $2,000/month, split across its 4 cards." in html
    fr = render(resold, '{{ configurator("llama-3.3-70b") }}', "fr", "docs/fr/configurator/x.md")
    assert "4\xa0×\xa0A100 80GB SXM4 (3 offres)" in fr
    assert "à partir de 2\u202f000\u00a0$US/mois" in fr


def test_the_api_publishes_one_cell_per_configuration_and_maps_every_node_to_it(resold):
    catalog = catalog_document(resold.catalog)
    assert {n["id"]: n["configuration"] for n in catalog["nodes"]}["4x-a100-sxm4-80gb-c"] == "4x-a100-sxm4-80gb"
    grouped = next(c for c in catalog["configurations"] if c["id"] == "4x-a100-sxm4-80gb")
    assert grouped["nodes"] == ["4x-a100-sxm4-80gb-b", "4x-a100-sxm4-80gb", "4x-a100-sxm4-80gb-c"]
    fit = fit_document(resold.catalog, resold.matrix)
    cells = fit["models"]["llama-3.3-70b"]["fits"]["bf16"]["8192"]
    assert len(cells) == len(fit["configurations"]) == 41 and "4x-a100-sxm4-80gb-b" not in fit["configurations"]
    assert cells[fit["configurations"].index("4x-a100-sxm4-80gb")][:2] == ["split", 2]


def test_the_writers_id_reference_lists_each_configuration_once_with_its_number_of_offers(resold):
    html = {
        lang: render(resold, "{{ id_reference() }}", lang, f"docs/{lang}/reference/macros.md")
        for lang in ("en", "fr", "zh")
    }
    assert (
        "<code>4x-a100-sxm4-80gb</code> (the first of 3 offers of this hardware, all in data/nodes.yml)" in html["en"]
    )
    assert "<code>4x-a100-sxm4-80gb</code> (la première des 3 offres de ce matériel" in html["fr"]
    assert "<code>4x-a100-sxm4-80gb</code> （同一硬件共 3\xa0个\u2060报\u2060价中的第一个" in html["zh"]
    assert "4x-a100-sxm4-80gb-b" not in html["en"]
    assert html["en"].count("<code>") == 41 + sum(
        len(getattr(resold.catalog, kind)) for kind in ("gpus", "models", "precisions", "interconnects")
    )
