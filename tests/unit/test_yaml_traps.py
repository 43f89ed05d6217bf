"""Data errors show the fix for the ways YAML reads a value other than the writer meant, and the field a wrong
name was probably meant to be."""

from pathlib import Path

import pytest
from sitebuild import edit

from sizing.catalog.errors import CatalogError
from sizing.catalog.loader import load_catalog
from sizing.catalog.schema import NodesFile
from sizing.catalog.yaml_traps import field_names_at, split_number, trap_hint

PRICE_4X_PCIE = "price_per_month: {amount: 4157, currency: USD}"


def error_of(data: Path) -> str:
    with pytest.raises(CatalogError) as caught:
        load_catalog(data)
    return str(caught.value)


def test_a_thousands_comma_in_braces_is_named_as_the_number_the_writer_typed(data_copy: Path):
    edit(data_copy / "nodes.yml", PRICE_4X_PCIE, "price_per_month: {amount: 15,600, currency: USD}")
    message = error_of(data_copy)
    assert "nodes.yml:" in message and "record '4x-a100-pcie-80gb'" in message
    assert "YAML read the number 15,600 as two entries, 15 and a key 600: write 15600" in message


def test_a_thousands_comma_outside_braces_says_how_to_write_the_number(data_copy: Path):
    edit(data_copy / "nodes.yml", PRICE_4X_PCIE, "price_per_month:\n      amount: 15,600\n      currency: USD")
    assert "found: '15,600' (write 15600, without a thousands comma)" in error_of(data_copy)


@pytest.mark.parametrize(
    "found, parent, hint",
    [
        ("1e-5", None, "YAML reads 1e-5 as text, not a number: write 1.0e-5, with a dot and a signed exponent"),
        ("2E+3", None, "write 2.0e+3"),
        ("1.5e5", None, "write 1.5e+5"),
        (False, None, "YAML reads an unquoted yes, no, on, off, true or false as a boolean"),
        ("1,250,000", None, "write 1250000, without a thousands comma"),
        (600, {"amount": 15, 600: None, "currency": "USD"}, "15,600 as two entries"),
        (7, {"amount": 7, 5: None}, "write 7005"),  # 7,005: the key keeps its zeros in the hint
        ("H100", None, None),
        (1.5e-5, None, None),  # written 1.5e-5: YAML read a number
        (1500, {"amount": 1500}, None),
    ],
)
def test_each_trap_gets_its_hint(found, parent, hint):
    told = trap_hint(found, parent)
    assert (told is None) if hint is None else (told is not None and hint in told), told


def test_a_split_number_is_the_value_before_a_number_key_without_value():
    assert split_number({"amount": 15, 600: None}) == (15, 600)
    assert split_number({"amount": 15, "currency": None}) is None


def test_a_wrong_field_name_gets_the_nearest_valid_one(data_copy: Path):
    edit(data_copy / "nodes.yml", PRICE_4X_PCIE, PRICE_4X_PCIE.replace("price_per_month", "prise_per_month"))
    message = error_of(data_copy)
    assert "field 'nodes.prise_per_month': unknown field" in message
    assert "did you mean 'price_per_month'?" in message


def test_a_nested_wrong_field_name_gets_the_nearest_field_of_its_own_record(data_copy: Path):
    edit(data_copy / "nodes.yml", PRICE_4X_PCIE, "price_per_month: {amount: 4157, curency: USD}")
    assert "did you mean 'currency'?" in error_of(data_copy)


def test_the_field_names_of_a_record_are_read_from_the_schema():
    assert "price_per_month" in field_names_at(NodesFile, ("nodes", 0))
    assert set(field_names_at(NodesFile, ("nodes", 0, "price_per_month"))) >= {"amount", "currency"}
    assert field_names_at(NodesFile, ("nodes", 0, "cards")) == []  # a number has no fields


def test_a_text_cut_by_a_yaml_comment_is_refused_with_the_fix(data_copy: Path):
    quoted = "engine: 'llama.cpp (Mar 2024, PR #6017)'"
    edit(data_copy / "measurements.yml", quoted, "engine: llama.cpp (Mar 2024, PR #6017)")
    message = error_of(data_copy)
    assert "measurements.yml:" in message and "an unquoted ' #' starts a YAML comment" in message
    assert "put the whole text in quotes" in message
