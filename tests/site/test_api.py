"""The JSON API published with the site matches the sizing engine and stays small."""

import gzip
import json
from pathlib import Path

from sizing.catalog.units import GIB
from sizing.views.api import speed_for_display


def load(site: Path, name: str) -> dict:
    return json.loads((site / "api" / name).read_text(encoding="utf-8"))


def test_fit_json_matches_the_engine_for_every_model_precision_context_and_node(site: Path, data):
    catalog, matrix = data.catalog, data.matrix  # the engine's verdicts, computed in this process
    fit = load(site, "fit.json")
    assert set(fit["models"]) == set(catalog.models)
    assert fit["configurations"] == list(catalog.configurations)
    position = {configuration: i for i, configuration in enumerate(fit["configurations"])}
    checked = 0
    for (model, precision, context, node), cell in matrix.everything.items():
        cells = fit["models"][model]["fits"][precision][str(context or 0)]
        assert len(cells) == len(fit["configurations"])
        short = cells[position[catalog.configuration_of(catalog.nodes[node]).id]]
        assert short[-1] not in (None, []) or len(short) == 3  # a cell ends at its last field holding something
        published = short + [None] * (len(fit["cell"]) - len(short))
        assert published[0] == cell.fit.verdict.value
        assert published[1] == cell.fit.cards
        assert published[2] == round(cell.fit.need.total / GIB, 1)
        if catalog.models[model].kind == "llm":
            layout = cell.layout  # how the node runs the model: its cards per copy, speeds and streams
            assert published[4:7] == (
                [None, None, None]
                if layout is None
                else [layout.cards, speed_for_display(layout.typical), speed_for_display(layout.floor)]
            )
            assert published[7] == (None if layout is None else layout.streams)
        checked += 1
    assert checked == len(matrix.everything) > 7000


def test_a_cell_names_its_fields(site: Path):
    assert load(site, "fit.json")["cell"] == [
        "verdict",
        "cards",
        "need_gib_per_card",
        "jobs",
        "cards_per_copy",
        "tokens_per_s_typical",
        "tokens_per_s_floor",
        "streams_that_fit",
        "tokens_per_s_total",
        "usd_per_million_tokens",
        "tight_setting",
        "longest_context_tokens",
        "copy_setting",
        "warnings",
    ]


def test_per_model_files_are_slices_of_fit_json(site: Path):
    fit = load(site, "fit.json")
    for model, document in fit["models"].items():
        sliced = load(site, f"fit/{model}.json")
        assert sliced["fits"] == document["fits"] and sliced["model"] == model


def test_catalog_json_has_every_node_with_its_price(site: Path):
    catalog = load(site, "catalog.json")
    nodes = {n["id"]: n for n in catalog["nodes"]}
    assert len(nodes) == 41
    assert nodes["4x-a100-pcie-80gb"]["price_per_month"] == {"amount": 4157.0, "currency": "USD"}
    assert catalog["prices_as_of"] == "2026-11-01"


def test_the_configurator_page_and_its_data_transfer_small(site: Path):
    # Budgets, compressed: one model's slice under 50 KB; the page with its CSS, JS, the choices' file and a slice
    # under 100 KB
    # (the script now fetches the chosen choice's page, no slice: the slice stands for the data of a switch).
    # The whole matrix is for API users: it was held under 50 KB with five fields a cell, then under 75 KB with the
    # speed, load and cost fields of schema 3; it grows with the catalog (10,455 cells of 15 language models in
    # schema 9, with each copy's cards and setting), so it is held per cell: under 10 B compressed (8.9 today).
    # Since schema 7 a cell ends at its last field that holds something.
    import re

    def gz(path: Path) -> int:
        return len(gzip.compress(path.read_bytes(), 9))

    page = site / "configurator" / "index.html"
    assets = re.findall(r'(?:href|src)="\.\./([^"]+\.(?:css|js))"', page.read_text(encoding="utf-8"))
    assert any("configurator.js" in a for a in assets) and any("bundle" in a for a in assets)
    whole = gz(site / "api" / "fit.json")
    fits = json.loads((site / "api" / "fit.json").read_text(encoding="utf-8"))["models"].values()
    cells = sum(len(row) for model in fits for contexts in model["fits"].values() for row in contexts.values())
    largest_slice = max(gz(p) for p in (site / "api" / "fit").glob("*.json"))
    choices = gz(site / "configurator" / "choices.json")  # where every choice's page stands, fetched once
    total = gz(page) + sum(gz(site / a) for a in assets) + choices + largest_slice
    print(
        f"\nfit.json {whole:,} B gz, {whole / cells:.2f} B a cell; largest per-model slice {largest_slice:,} B gz; "
        f"page with its CSS, JS and data {total:,} B gz"
    )
    assert largest_slice < 50_000
    assert whole / cells < 10
    assert total < 100_000
