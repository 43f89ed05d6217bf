"""Typography of Chinese and French text (macros/output/typography.py), as specifications: each test names a
rule, with the text before and after."""

import pytest

from macros.output.typography import (
    french_spaces,
    held_name,
    join_chinese_soft_breaks,
    no_break_before_units,
    no_break_in_counts,
    space_between_chinese_and_latin,
    typeset,
    typeset_metadata,
)

NNBSP = "\u202f"
NBSP = "\u00a0"


# --- join_chinese_soft_breaks -----------------------------------------------------------------------------
class TestJoinChineseSoftBreaks:
    def test_a_break_between_two_chinese_characters_in_a_paragraph_disappears(self):
        assert join_chinese_soft_breaks("因此指南\n始终以目录为准。") == "因此指南始终以目录为准。"

    def test_full_width_punctuation_counts_as_chinese(self):
        assert join_chinese_soft_breaks("起价 US$238，\n更大的节点") == "起价 US$238，更大的节点"

    def test_every_break_of_a_long_paragraph_is_joined_and_leading_spaces_of_the_next_line_go(self):
        assert join_chinese_soft_breaks("第一行\n  第二行\n第三行") == "第一行第二行第三行"

    def test_a_break_next_to_latin_text_or_a_macro_call_stays_a_space(self):
        text = '选择 NVLink\n节点\n{{ price("4x-a100-pcie-80gb") }}\n每月'
        assert join_chinese_soft_breaks(text) == '选择 NVLink\n节点\n{{ price("4x-a100-pcie-80gb") }}\n每月'

    def test_a_break_beside_full_width_punctuation_joins_whatever_is_across_it(self):
        assert join_chinese_soft_breaks("中位误差为 16%，\n100% 相差不到两倍") == "中位误差为 16%，100% 相差不到两倍"
        assert join_chinese_soft_breaks("搜集的实测：\nGeForce 显卡") == "搜集的实测：GeForce 显卡"
        assert join_chinese_soft_breaks("使用 vLLM\n（或 SGLang）") == "使用 vLLM（或 SGLang）"

    def test_two_latin_words_across_a_break_keep_their_space(self):
        assert join_chinese_soft_breaks("支持 vLLM\nSGLang 等引擎") == "支持 vLLM\nSGLang 等引擎"

    def test_paragraphs_stay_apart(self):
        assert join_chinese_soft_breaks("第一段\n\n第二段") == "第一段\n\n第二段"

    def test_a_hard_break_stays(self):
        assert join_chinese_soft_breaks("第一行  \n第二行") == "第一行  \n第二行"
        assert join_chinese_soft_breaks("第一行\\\n第二行") == "第一行\\\n第二行"

    @pytest.mark.parametrize(
        "block",
        [
            "```text\n中文\n代码\n```",
            "~~~\n中文\n代码\n~~~",
            "| 节点 | 价格 |\n|---|---|\n| 四卡 | 每月 |",
            "## 标题\n正文",
            "1. 第一步\n2. 第二步",
            "> 引用\n> 续行",
            "<div>\n中文\n</div>",
            '!!! note "注意"\n    提示内容\n    续行',
        ],
    )
    def test_code_fences_tables_headings_list_items_quotes_html_and_admonitions_are_left_as_written(self, block):
        assert join_chinese_soft_breaks(block) == block

    def test_a_list_items_text_joins_across_its_indented_lines_but_items_stay_apart(self):
        assert join_chinese_soft_breaks("- 第一项\n  续行\n- 第二项") == "- 第一项续行\n- 第二项"

    def test_after_a_list_ends_paragraphs_are_joined_again(self):
        text = "- 列表项\n  续行\n\n段落\n继续"
        assert join_chinese_soft_breaks(text) == "- 列表项续行\n\n段落继续"

    def test_after_a_code_fence_closes_paragraphs_are_joined_again(self):
        assert join_chinese_soft_breaks("```\n代码\n行\n```\n段落\n继续") == "```\n代码\n行\n```\n段落继续"

    def test_english_and_french_text_is_unchanged(self):
        text = "A line\nand the next.\n\nUne ligne\net la suivante."
        assert join_chinese_soft_breaks(text) == text


# --- space_between_chinese_and_latin ----------------------------------------------------------------------
class TestSpaceBetweenChineseAndLatin:
    @pytest.mark.parametrize(
        "before, after",
        [
            ("和H200", "和 H200"),
            ("H200节点", "H200 节点"),
            ("（2或4 张卡）", "（2 或 4 张卡）"),
            ("需切分到4张卡", "需切分到 4 张卡"),
            ("在GPU上运行", "在 GPU 上运行"),
        ],
    )
    def test_one_ordinary_space_between_a_han_character_and_a_latin_letter_or_digit(self, before, after):
        assert space_between_chinese_and_latin(before) == after

    def test_an_existing_space_is_kept_not_doubled(self):
        assert space_between_chinese_and_latin("和 H200 节点") == "和 H200 节点"

    @pytest.mark.parametrize("text", ["US$4,157/月", "（4 张卡）", "100%的", "显存：80 GB。", "GPU，然后"])
    def test_symbols_and_full_width_punctuation_take_no_space(self, text):
        assert space_between_chinese_and_latin(text) == text

    @pytest.mark.parametrize(
        "before, after",
        [
            ("**模型放得进单卡？** PCIe 就够", "**模型放得进单卡？**PCIe 就够"),
            ("保持 BF16。 AWQ 更小", "保持 BF16。AWQ 更小"),
            ("使用 FP8 （可选）", "使用 FP8（可选）"),
        ],
    )
    def test_no_space_beside_full_width_punctuation(self, before, after):
        assert space_between_chinese_and_latin(before) == after

    @pytest.mark.parametrize("text", ["- （可选）先测带宽", "1. （可选）先测带宽", "| 值 | （注）说明 |"])
    def test_markdown_markers_before_full_width_punctuation_keep_their_space(self, text):
        assert space_between_chinese_and_latin(text) == text

    @pytest.mark.parametrize(
        "text",
        [
            "`中文abc`",
            "[链接](https://example.com/页面abc)",
            '<a title="中文abc">',
            '{{ price("中文abc") }}',
            "{#what-to-buy}",
        ],
    )
    def test_code_urls_html_attributes_and_macro_calls_are_untouched(self, text):
        assert space_between_chinese_and_latin(text) == text

    def test_the_text_around_protected_spans_is_spaced(self):
        assert space_between_chinese_and_latin("见`code`和A100") == "见`code`和 A100"

    def test_idempotent(self):
        once = space_between_chinese_and_latin("和H200（2或4张卡）用NVLink")
        assert space_between_chinese_and_latin(once) == once == "和 H200（2 或 4 张卡）用 NVLink"


# --- french_spaces ----------------------------------------------------------------------------------------
class TestFrenchSpaces:
    @pytest.mark.parametrize("mark", [":", ";", "?", "!"])
    def test_an_ordinary_space_before_a_high_mark_becomes_narrow_and_unbreakable(self, mark):
        assert french_spaces(f"Réponse {mark} oui") == f"Réponse{NNBSP}{mark} oui"

    def test_a_no_break_space_before_a_mark_becomes_narrow(self):
        assert french_spaces("Pourquoi\u00a0?") == f"Pourquoi{NNBSP}?"

    @pytest.mark.parametrize(
        "before, after",
        [
            ("Pourquoi?", f"Pourquoi{NNBSP}?"),
            ("Vraiment!", f"Vraiment{NNBSP}!"),
            ("Note: lire ceci", f"Note{NNBSP}: lire ceci"),
            ("deux cartes; quatre", f"deux cartes{NNBSP}; quatre"),
            ("Vraiment?!", f"Vraiment{NNBSP}?!"),
            ("**Réponse**: oui", f"**Réponse**{NNBSP}: oui"),
        ],
    )
    def test_a_missing_space_is_added(self, before, after):
        assert french_spaces(before) == after

    def test_inside_guillemets(self):
        assert french_spaces("« parallélisme »") == f"«{NNBSP}parallélisme{NNBSP}»"
        assert french_spaces("«tenseur»") == f"«{NNBSP}tenseur{NNBSP}»"

    def test_before_percent(self):
        assert french_spaces("100 % des cartes, 50%") == f"100{NNBSP}% des cartes, 50{NNBSP}%"

    @pytest.mark.parametrize(
        "text",
        [
            "à 10:30",
            "un rapport 3:1",
            "https://guides.example.com/fr/?model=llama:70b",
            "`a ? b : c`",
            "```\nx = a ? b : c\n```",
            '<a title="Quoi ?" href="/x?y=1">',
            '[lien](../page/?model=x "Titre ?")',
            "R&amp;D, A&nbsp;B",
            '{{ price("4x-a100-pcie-80gb") }}',
            "![schéma](img.png)",
            "std::vector",
        ],
    )
    def test_times_ratios_urls_code_html_entities_link_targets_and_macro_calls_are_untouched(self, text):
        assert french_spaces(text) == text

    def test_a_pages_front_matter_is_untouched_and_its_text_is_spaced(self):
        page = "---\ntitle: Guides\nhide: [toc]\n---\n\n# Guides : tous\n"
        assert french_spaces(page) == f"---\ntitle: Guides\nhide: [toc]\n---\n\n# Guides{NNBSP}: tous\n"

    def test_the_text_of_an_html_element_is_spaced_but_not_its_tag(self):
        assert french_spaces('<abbr title="Go : gigaoctet">Go</abbr> : unité') == (
            f'<abbr title="Go : gigaoctet">Go</abbr>{NNBSP}: unité'
        )

    def test_english_style_text_without_these_marks_is_unchanged(self):
        assert french_spaces("Un nœud de 4 cartes, 141 Go.") == "Un nœud de 4 cartes, 141 Go."

    def test_idempotent(self):
        once = french_spaces("Pourquoi ? « Parce que » : 100 %!")
        assert french_spaces(once) == once
        assert once == f"Pourquoi{NNBSP}? «{NNBSP}Parce que{NNBSP}»{NNBSP}: 100{NNBSP}%{NNBSP}!"


@pytest.mark.parametrize(
    "typed, typeset",
    [
        ("截至 2026年11月1日 的月付价格。", "截至 2026 年 11 月 1 日的月付价格。"),  # beside a macro's output
        ("参见 [我们不提供什么](what-we-dont-offer.md) 。", "参见[我们不提供什么](what-we-dont-offer.md)。"),
        ("US$238， 更大的", "US$238，更大的"),
    ],
)
def test_no_space_is_left_between_two_chinese_characters_or_marks(typed, typeset):
    assert space_between_chinese_and_latin(typed) == typeset


def test_a_heading_ending_in_full_width_punctuation_keeps_the_space_before_its_attribute_list():
    # without it, Markdown prints "{#configurator .cfg-title}" into the heading
    heading = "# 配置工具：FLUX.1 [dev]（BF16） {#configurator .cfg-title}"
    assert space_between_chinese_and_latin(heading) == heading
    assert space_between_chinese_and_latin("（可选） {{ 7 }}") == "（可选）{{ 7 }}"


# --- no_break_before_units --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "typed, typeset_",
    [
        ("~46 tok/s", f"~46{NBSP}tok/s"),
        ("1,646 token/秒", f"1,646{NBSP}token/秒"),
        ("80 GB and 1 440 Go/s", f"80{NBSP}GB and 1 440{NBSP}Go/s"),
        ("2.0 s, 275 ms, 23 µs", f"2.0{NBSP}s, 275{NBSP}ms, 23{NBSP}µs"),
        ("8 张卡，6710 亿", f"8{NBSP}张卡，6710{NBSP}亿"),
        ("约 137 token/秒（下限 66）", f"约{NBSP}137{NBSP}token/秒（下限{NBSP}66）"),  # and the word before it
        ("~{value} tok/s", f"~{{value}}{NBSP}tok/s"),  # a string of strings.yml, before its figure is put in
    ],
)
def test_a_number_and_its_unit_never_break_apart(typed, typeset_):
    assert no_break_before_units(typed) == typeset_


@pytest.mark.parametrize("typed", ["2 streams", "8 seconds", "4 × H100", "see `80 GB` in code", "GB 80"])
def test_a_word_that_only_starts_like_a_unit_code_and_a_unit_before_its_number_keep_their_space(typed):
    assert no_break_before_units(typed) == typed


@pytest.mark.parametrize("lang", ["en", "fr", "zh"])
def test_every_language_holds_a_number_to_its_unit_and_typesetting_twice_changes_nothing(lang):
    once = typeset("~46 tok/s", lang)
    assert once == f"~46{NBSP}tok/s" and typeset(once, lang) == once


# --- no_break_in_counts -------------------------------------------------------------------------------------
WJ = "\u2060"


@pytest.mark.parametrize(
    "typed, typeset_",
    [
        ("le moins cher : 4 × A40, 2 800 $US", f"le moins cher : 4{NBSP}×{NBSP}A40, 2 800 $US"),  # « 4 × » / « A40, »
        ("{cards} × {gpu}", f"{{cards}}{NBSP}×{NBSP}{{gpu}}"),  # a string of strings.yml
        (f"PCIe（4{NBSP}张卡）", f"PCIe（4{NBSP}张{WJ}卡）"),  # "（4 张" / "卡）" in the NVLink table
        (f"{{count}}{NBSP}个节点", f"{{count}}{NBSP}个{WJ}节{WJ}点"),
    ],
)
def test_a_count_and_what_it_counts_never_break_apart(typed, typeset_):
    assert no_break_in_counts(typed) == typeset_
    assert no_break_in_counts(typeset_) == typeset_


@pytest.mark.parametrize("typed", ["1024×1024", "每张卡", "张卡", "x × y", "`4 × 8`", "8 个"])
def test_a_sign_without_a_count_a_measure_word_without_a_figure_and_code_are_left_alone(typed):
    assert no_break_in_counts(typed) == typed


def test_every_page_and_string_holds_its_counts():
    assert typeset("需切分到4张卡", "zh") == f"需切分到{NBSP}4{NBSP}张{WJ}卡"
    assert typeset("4 × A40", "fr") == f"4{NBSP}×{NBSP}A40"


# --- held_name: a model's name in Chinese ---------------------------------------------------------------------
def test_in_chinese_a_models_name_is_held_on_one_line_wherever_a_string_or_a_macro_writes_it():
    """Chinese may break a line between any two characters, so a name needs no break of its own: "Llama 3.3" once
    ended a phone's line and "70B" began the next."""
    from macros.output.strings import text

    assert held_name("Llama 3.3 70B", "zh") == f"Llama{NBSP}3.3{NBSP}70B"
    assert held_name("Llama 3.3 70B", "en") == held_name("Llama 3.3 70B", "fr") == "Llama 3.3 70B"
    assert text("configurator", "page_title", "zh", model="Llama 3.3 70B") == f"配置工具：Llama{NBSP}3.3{NBSP}70B"
    assert text("configurator", "page_title", "en", model="Llama 3.3 70B") == "Configurator: Llama 3.3 70B"


def test_french_spaces_leave_a_bare_code_identifier_alone():
    """A note quoting a configuration key is code, not prose: no space goes before its colon."""
    assert french_spaces("('model_impl: gpu' reference run)") == "('model_impl: gpu' reference run)"
    assert french_spaces("all_reduce_perf : mesure") == f"all_reduce_perf{NNBSP}: mesure"


# --- typeset_metadata ---------------------------------------------------------------------------------------
def test_a_french_title_and_description_take_the_colon_rule_as_the_heading_does():
    """The <title>, the header, the navigation and the meta description show these: a colon that may wrap alone
    there would read « NVLink ou PCIe⏎: lequel »."""
    meta = {
        "title": "NVLink ou PCIe : lequel choisir pour votre tâche",
        "description": "Deux cas ; trois questions ? Voici « la réponse »",
        "category": "Matériel : cartes",
        "hide": ["toc"],
    }
    assert typeset_metadata(meta, "fr") == {
        "title": f"NVLink ou PCIe{NNBSP}: lequel choisir pour votre tâche",
        "description": f"Deux cas{NNBSP}; trois questions{NNBSP}? Voici «{NNBSP}la réponse{NNBSP}»",
    }  # only the title and the description: other fields are not text a reader sees as such


def test_metadata_in_other_languages_follows_their_rules_and_a_missing_field_stays_missing():
    assert typeset_metadata({"title": "Speed: 46 tok/s"}, "en") == {"title": f"Speed: 46{NBSP}tok/s"}
    assert typeset_metadata({"title": "按需求规划：8张卡"}, "zh") == {"title": f"按需求规划：8{NBSP}张\u2060卡"}
    assert typeset_metadata({"hide": ["toc"]}, "fr") == {}
