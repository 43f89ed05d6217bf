"""How a macro's table lets its cells wrap: ids break at their separators, a long build id breaks where it must,
a Chinese phrase breaks between characters while a figure stays whole, a stacked table stays a table to
assistive technology, and a table of cards names each cell by its column."""

from __future__ import annotations

from markupsafe import Markup

from macros.output.html import id_code, table, with_long_tokens_breakable


def test_an_id_breaks_after_its_hyphens_dots_and_underscores_never_inside_a_word():
    assert id_code("llama33-70b-fp8") == "<code>llama33-<wbr>70b-<wbr>fp8</code>"
    assert id_code("nodes[].link.topology") == "<code>nodes[].<wbr>link.<wbr>topology</code>"
    assert id_code("schema_version") == "<code>schema_<wbr>version</code>"
    assert id_code("0.95") == "<code>0.95</code>"  # a number keeps its decimal point
    assert id_code("<b>") == "<code>&lt;b&gt;</code>"  # still escaped


def test_only_a_long_token_of_a_cell_gets_break_points():
    assert with_long_tokens_breakable("vLLM 0.13.0rc2.dev178+g676c2e9") == (
        "vLLM 0.<wbr>13.<wbr>0rc2.<wbr>dev178+<wbr>g676c2e9"
    )
    assert with_long_tokens_breakable("SGLang 0.4.1, 8 × H200") == "SGLang 0.4.1, 8 × H200"
    assert with_long_tokens_breakable("--gpu-memory-utilization") == "--gpu-<wbr>memory-<wbr>utilization"
    assert with_long_tokens_breakable("a & b") == "a &amp; b"


def test_a_chinese_phrase_may_break_between_characters_a_figure_may_not():
    html = table(
        "表", ["节点", "备注"], [["1 × L4", "约 46 token/秒"], ["8 × H100", "经 PCIe 切分：每一层都要经过这条链路"]]
    )
    assert "<td>约 46 token/秒</td>" in html  # four Chinese characters: a figure with its unit, kept whole
    assert '<td class="words">经 PCIe 切分：每一层都要经过这条链路</td>' in html


def test_a_cell_wider_than_forty_latin_letters_makes_its_column_prose_a_chinese_character_counting_two():
    sentence = "这一行的说明足够长，在手机上应当占据一整行的宽度"  # 24 characters, 48 columns
    html = table("表", ["节点", "备注"], [["A", sentence], ["B", "短"]])
    assert f'<td class="prose">{sentence}</td>' in html and '<td class="prose">短</td>' in html


def test_a_stacked_table_keeps_its_table_roles_and_marks_the_cells_that_take_a_line_of_their_own():
    html = table("Fields", ["Field", "Type", "What it holds"], [["a.b", "number", "x" * 41]], stacked=True)
    assert '<table class="data-table stacked" role="table">' in html
    assert '<th scope="row" role="rowheader">a.b</th><td role="cell">number</td>' in html
    assert f'<td role="cell" class="prose long">{"x" * 41}</td>' in html
    assert 'role="columnheader"' in html and 'role="row"' in html
    plain = table("Fields", ["Field"], [[Markup("<code>a</code>")]])
    assert 'role="table"' not in plain and 'role="cell"' not in plain


def test_a_table_of_cards_names_each_cell_by_its_column_for_a_phone_to_write_before_it():
    html = table(
        "Plans", ["Node", Markup("<code>Per</code> month"), "Limit"], [["1 × L4", "$390", "memory"]], cards=True
    )
    assert '<table class="data-table card-table">' in html
    assert '<th scope="row">1 × L4</th><td data-label="Per month">$390</td><td data-label="Limit">memory</td>' in html
    assert "data-label" not in table("Plans", ["Node", "Limit"], [["1 × L4", "memory"]])
