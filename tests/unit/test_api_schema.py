"""The API cannot drift from its reference: each document has a JSON Schema written from the same code, every file
the build writes validates against it, and the reference page lists every field of the schema in three languages."""

import copy
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from mkdocs.utils.meta import get_data

from macros.library.api_reference import DOCUMENTS, all_schemas, field_problems, schema_fields, unit_of
from macros.output.html import id_code
from macros.page.pipeline import render_page
from macros.page.source import PageSource
from macros.site.site_data import site_data
from sizing.catalog.schema import Llm
from sizing.engine.fit import Verdict
from sizing.views.api import api_schemas, cell_without_empty_tail

ROOT = Path(__file__).resolve().parent.parent.parent


def schema_of(path: str) -> dict:
    names = {
        "api/catalog.json": "catalog",
        "api/fit.json": "fit",
        "api/fit-kv-fp8.json": "fit",
        "api/plan.json": "plan",
    }
    if path.startswith("api/plan/"):
        return all_schemas()["api/plan-model.schema.json"]
    return all_schemas()[f"api/{names.get(path, 'fit-model')}.schema.json"]


def problems(document: object, path: str) -> list[str]:
    return [error.message for error in Draft202012Validator(schema_of(path)).iter_errors(document)]


def test_the_build_writes_each_schema_beside_the_documents(api_documents):
    assert {"api/catalog.schema.json", "api/fit.schema.json", "api/fit-model.schema.json"} <= api_documents.keys()
    assert {"api/plan.schema.json", "api/plan-model.schema.json"} <= api_documents.keys()
    for schema in all_schemas().values():
        Draft202012Validator.check_schema(schema)


def test_the_reference_names_each_schema_and_the_files_the_build_writes_for_it(api_documents, catalog):
    """The field tables' captions once named api/plan-model.json, a file the build never wrote."""
    model = next(m.id for m in catalog.models.values() if isinstance(m, Llm))
    for schema, described in DOCUMENTS.values():
        assert schema in api_documents and described.replace("<model>", model) in api_documents, (schema, described)


def test_every_api_file_validates_against_its_schema(api_documents):
    documents = [p for p in api_documents if not p.endswith(".schema.json")]
    models = site_data().catalog.models
    llms = [m for m in models.values() if isinstance(m, Llm)]
    assert len(documents) == 4 + len(models) + len(llms)  # catalog, fit, fit-kv-fp8, plan; fit and plan per model
    for path in documents:
        assert not problems(api_documents[path], path), path


def test_a_field_the_schema_does_not_know_is_drift(api_documents):
    catalog = copy.deepcopy(api_documents["api/catalog.json"])
    catalog["nodes"][0]["discount"] = 0.1
    assert any("'discount' was unexpected" in p for p in problems(catalog, "api/catalog.json"))
    fit = copy.deepcopy(api_documents["api/fit.json"])
    model = next(iter(fit["models"].values()))
    cell = next(iter(next(iter(model["fits"].values())).values()))[0]
    cell.extend([None] * (len(fit["cell"]) - len(cell)) + ["a fifteenth field"])
    assert any("Expected at most 14 items" in p for p in problems(fit, "api/fit.json"))


def test_a_cell_ends_at_its_last_field_that_holds_something():
    empty_tail: list[object] = [None, None, None, None, None, None, None, None, []]
    assert cell_without_empty_tail(["no-fit", 8, 45.1, *empty_tail]) == ["no-fit", 8, 45.1]
    fits = ["one-card", 1, 9.6, 1, None, None, None, None, None, None, None, ["fp8-not-native"]]
    assert cell_without_empty_tail(fits) == fits  # a warning keeps the nulls before it
    served = ["split", 2, 30.2, None, 36, 22, 40, 910, 1.57, None, None, []]
    assert cell_without_empty_tail(served) == served[:9]
    assert cell_without_empty_tail(["one-card", 1, 0.0]) == ["one-card", 1, 0.0]  # never shorter than three


def test_a_cell_may_end_early_but_never_before_its_need(api_documents):
    fit = copy.deepcopy(api_documents["api/fit.json"])
    cells = [
        cell
        for model in fit["models"].values()
        for contexts in model["fits"].values()
        for cells_of_context in contexts.values()
        for cell in cells_of_context
    ]
    assert min(len(cell) for cell in cells) == 3 and max(len(cell) for cell in cells) == len(fit["cell"])
    del cells[0][2:]
    assert any("is too short" in p for p in problems(fit, "api/fit.json"))


def test_a_cell_lists_every_verdict_including_tight():
    verdict = api_schemas()["api/fit.schema.json"]["$defs"]["cell"]["prefixItems"][0]
    assert verdict["title"] == "verdict"
    assert verdict["enum"] == [v.value for v in Verdict] and "tight" in verdict["enum"]


@pytest.mark.parametrize("document", ["catalog", "fit", "plan"])
def test_every_field_of_the_schema_is_described_in_three_languages(document):
    assert field_problems(document) == []


def test_a_field_is_written_as_a_path_and_its_unit_comes_from_its_name():
    fields = dict(schema_fields(api_schemas()["api/catalog.schema.json"]))
    assert "nodes[].link.topo_label_inferred" in fields and "gpus[].fp8_dense_tflops" in fields
    assert unit_of("interconnects[].per_direction_gbps", "fr") == "Go/s"
    assert unit_of("cell.need_gib_per_card", "en") == "GiB"
    assert unit_of("interconnects[].allreduce_latency_us", "zh") == "微秒"
    assert unit_of("nodes[].gpu", "en") == ""


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_the_reference_page_lists_every_field_verdict_and_unit(lang):
    path = f"docs/{lang}/reference/api.md"
    source = (ROOT / path).read_text(encoding="utf-8")
    markdown, _ = get_data(source)
    html = render_page(PageSource(path, lang, source, markdown), ROOT / "docs", site_data()).whole
    for document in ("catalog", "fit", "plan", "plan-model"):
        for field, _ in schema_fields(all_schemas()[f"api/{document}.schema.json"]):
            assert id_code(field) in html, field
    for value in ("one-card", "split", "tight", "no-fit", "fp8-not-native", "split-over-pcie"):
        assert f"&#34;{value}&#34;" in html, value
    assert {"en": "GB/s", "fr": "Go/s", "zh": "GB/s"}[lang] in html


def test_a_plan_copy_holds_what_the_estimator_computes(api_documents):
    """api/plan.json gives, for one candidate at a context of its ladder, the streams that fit and the decode step
    of 8 streams that python -m sizing.estimate gives for the same card, context and streams."""
    from sizing.catalog.schema import DecodeScenario
    from sizing.views.estimates import answer

    catalog = site_data().catalog
    plan = api_documents["api/plan.json"]
    model = api_documents["api/" + plan["models"]["llama-3.1-8b"]["figures"]]
    row = next(c for c in model["candidates"] if c[:4] == ["1x-a100-pcie-80gb", "bf16", 1, "bf16"])
    kv_room, fp8_contexts, step_ms, *_ = model["copies"][row[4]]
    context = model["contexts"][2]
    scenario = DecodeScenario(
        gpu="a100-pcie-80gb", model="llama-3.1-8b", precision="bf16", concurrency=8, context_tokens=context
    )
    said = answer(catalog, scenario)
    assert said.at_concurrency is not None
    room, stream, most = next(point[1:] for point in kv_room if point[0] == context)
    assert min(room // stream, most) == said.streams_that_fit and fp8_contexts == []
    assert step_ms[2][model["streams"].index(8)] == pytest.approx(
        1e3 / said.at_concurrency.per_stream_typical, rel=1e-3
    )
