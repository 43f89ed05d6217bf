"""The sizing guides in every language: their tables, claims and reading times come from the data."""

import re
from pathlib import Path

import pytest
from rendering import render
from sitebuild import LANGUAGES, ROOT, page, visible_text

from macros.output.typography import typeset
from macros.site.reading import plain_text, reading_minutes, reading_rates, reading_units
from macros.site.site_data import site_data

GUIDES = [
    "guides/nvlink-or-pcie",
    "guides/image-and-video",
    "guides/quantization",
    "guides/mixture-of-experts",
    "guides/what-we-dont-offer",
]


def table_rows(html: str, caption_fragment: str) -> dict[str, list[str]]:
    """Rows of the table whose caption contains ``caption_fragment``, by their first cell; the caption and the
    first cells read with their no-break spaces as spaces ("8 × B200", a Chinese page's "FLUX.1 [dev]")."""
    for table in re.findall(r"<table.*?</table>", html, re.S):
        caption = re.search(r"<caption>(.*?)</caption>", table, re.S)
        if caption and caption_fragment in spaced(caption.group(1)):
            rows = {}
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]:
                cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                rows[spaced(cells[0])] = cells[1:]
            return rows
    raise AssertionError(f"no table captioned {caption_fragment!r}")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("guide", [*GUIDES, "guides"])
def test_every_guide_exists_in_every_language(site: Path, lang: str, guide: str):
    assert f'<html lang="{lang}"' in page(site, lang, guide)


def test_flux_cards_hold_it_where_the_arithmetic_says(site: Path):
    html = page(site, "en", "guides/image-and-video")
    bf16 = table_rows(html, "FLUX.1 [dev] in BF16")
    # BF16 pipeline: 34.0 GB of weights = 31.67 GiB + 2 GiB + 0.15 = 33.8 GiB; a 48 GB card offers
    # 0.9 × 0.99 × 48 = 42.8 GiB, a 24 GB card 21.2 GiB: not even the 22.2 GiB transformer fits, so part of it
    # waits in host memory
    assert bf16["L40S"][1] == "on one card" and bf16["A40"][1] == "on one card"
    assert bf16["RTX 4090"][1] == bf16["L4"][1] == "on one card, part of its denoiser in host memory"
    # a 32 GB card (28.5 GiB) holds the transformer with working memory, the T5 encoder goes next door
    assert bf16["RTX 5090"][1] == "with the text encoders on 2 cards"
    # FP8: 17.1 GB = 15.9 GiB + 2 + 0.15 = 18.1 GiB fits a 24 GB card
    assert table_rows(html, "FLUX.1 [dev] in FP8")["RTX 4090"][1] == "on one card"
    # cards that hold it whole come first, the cheapest per GPU-hour first: A40 at $2,060 / (4 × 730 h) = $0.71;
    # a card holding part of it in host memory comes after them, however cheap (the A10 at $0.62)
    assert next(iter(bf16)) == "A40" and bf16["A40"][2] == "$0.71"
    assert list(bf16).index("A10") > list(bf16).index("L40S") and bf16["A10"][2] == "$0.62"


def test_wan_14b_needs_an_80_gb_card_to_run_alone(site: Path):
    rows = table_rows(page(site, "en", "guides/image-and-video"), "Wan 2.1 14B in BF16")
    # 28 + 11.36 + 0.25 GB = 36.9 GiB of weights + 8 GiB + 0.15 = 45.0 GiB: above 42.8 GiB (48 GB cards)
    assert rows["A100 80GB PCIe"][1] == "on one card"
    assert rows["L40S"][1] == "with the text encoders on 2 cards"


def test_deepseek_v3_in_fp8_is_held_by_the_largest_nodes_with_96_gb_or_more_per_card(site: Path):
    rows = table_rows(page(site, "en", "guides/mixture-of-experts"), "DeepSeek V3 in FP8")
    # per card: weights 84.11e9 B (672.9 GB / 8) = 78.33 GiB + KV at 8K 0.54 + activation peak 2.80 (1,024
    # sequences × vocabulary 129,280 × 17 B = 2.10, + 0.7 for experts) + CUDA context, graphs, NCCL and the
    # NVSwitch buffers of a Hopper board 2.65 = 84.3 GiB: within 0.90 of what CUDA shows on an RTX PRO 6000
    # (85.6 GiB), an H200 (125.9) and a B200 (160.5); above it on the 80 GB cards (71.3)
    assert list(rows) == ["8 × RTX PRO 6000", "8 × H200 SXM", "8 × B200"]
    assert rows["8 × H200 SXM"][0] == "split across 8 cards" and rows["8 × H200 SXM"][1] == "84.3\xa0GiB"


def test_the_quantization_table_shows_whole_model_bits(site: Path):
    rows = table_rows(page(site, "fr", "guides/quantization"), "Llama 3.1 8B")
    # INT4: (8.03e9 − 1.05e9) × 4.156 + 1.05e9 × 16 bits over 8.03e9 params = 5.71 bits; Q4_K_M: 4.89
    assert rows["INT4 AWQ/GPTQ"][1] == "5,71" and rows["GGUF Q4_K_M"][1] == "4,89"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reading_time_on_every_card_matches_the_formula_on_the_pages_own_text(site: Path, lang: str):
    data = site_data()
    unit = {"en": "min", "fr": "min", "zh": "分钟"}[lang]
    cards = visible_text(page(site, lang, "guides"))
    for guide in GUIDES:
        source = (ROOT / "docs" / lang / f"{guide}.md").read_text(encoding="utf-8")
        body = re.sub(r"\{\{\s*guide_cards\([^}]*\)\s*\}\}", "", source.split("---\n", 2)[2])
        text = plain_text(render(data, body, lang, guide))
        rate = {"en": 238, "fr": 195, "zh": 255}[lang]  # macros/site/reading.yml
        minutes = -(-reading_units(text, lang) // rate)  # ceil
        assert minutes == reading_minutes(text, lang, reading_rates()) >= 1
        title = re.search(r'^title: "?(.*?)"?$', source, re.M).group(1)
        assert re.search(rf"· {minutes}\u00a0{unit}\s+{re.escape(typeset(title, lang))}", cards), (guide, minutes)


def test_reading_units_count_words_or_characters():
    assert reading_units("Tensor parallelism pays the link at every layer.", "en") == 8
    assert reading_units("L’all-reduce attend la carte la plus lente.", "fr") == 7
    assert reading_units("张量并行每一层都要同步 NVLink", "zh") == 11 + 1  # 11 characters, 1 Latin word


def test_a_data_change_reaches_the_guide_tables(altered_site: tuple[Path, Path]):  # RTX 6000 Ada and SDXL doubled
    _, site = altered_site
    html = page(site, "zh", "guides/image-and-video")
    assert table_rows(html, "FLUX.1 [dev]（BF16）")["RTX 6000 Ada"][0] == "96\xa0GB"
    memory = table_rows(page(site, "en", "guides/image-and-video"), "needs in BF16")
    assert memory["SDXL 1.0"][1] == "9.6\xa0GiB"  # 5,134,920,000 × 2 B = 10.27e9 B / 2^30, in GiB like every need


# The NVLink or PCIe guide: which gap decides, with figures computed from data/, in every language.
# Llama 3.3 70B: 8,192 × 2 B = 16 KiB per all-reduce at one stream; on 4 × A100 PCIe (22 µs, 24 GB/s busbw)
# 22 + 1.5 × 16,384 / 24e9 s = 23 µs; a 2,048-token prompt: 32 MiB, 22 µs + 2,097 µs = 2.1 ms. Adam: 16 B per
# parameter, 70,553,706,496 × 16 B = 1,051.3 GiB. Consumer PCIe without peer-to-peer: 28 (8 × RTX 5090) to 35
# (4 ×) GB/s. NVLink 4 against PCIe Gen5: 450 / 63 = 7 times.
NVLINK_GUIDE_FIGURES = {
    "en": [
        "16 KiB",
        "23 µs",
        "2.1 ms",
        "32 MiB",
        "1,051.3 GiB",
        "28–35 GB/s",
        "about 7× faster",
        "Llama 3.1 8B",
        "expected: NV6 between every pair",
    ],
    "fr": [
        "16 Kio",
        "23 µs",
        "2,1 ms",
        "32 Mio",
        "1 051,3 Gio",
        "28 à 35 Go/s",
        "environ 7 fois plus rapide",
        "Llama 3.1 8B",
        "attendu : NV6",
        "NVLink ou PCIe : lequel choisir pour votre tâche",
        "C’est dès que le mot « réparti » apparaît que ce guide vous concerne",
    ],
    "zh": [
        "16 KiB",
        "23 微秒",
        "2.1 毫秒",
        "32 MiB",
        "1,051.3 GiB",
        "28–35 GB/s",
        "快约 7 倍",
        "Llama 3.1 8B",
        "预期：任意两张卡之间均为 NV6",
        "根复合体（root complex）",
        "提供该链路的节点",
    ],
}


def spaced(text: str) -> str:
    return re.sub(r"[\s\u202f\xa0]+", " ", text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_nvlink_guide_says_which_gap_decides_with_computed_figures(site: Path, lang: str):
    text = spaced(visible_text(page(site, lang, "guides/nvlink-or-pcie")))
    for figure in NVLINK_GUIDE_FIGURES[lang]:
        assert spaced(figure) in text, figure
    assert "anything else is a fault" not in text and "the benefit is zero" not in text


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_the_nvlink_guide_words_ratios_per_language_and_splits_in_chinese_with_qie_fen(site: Path, lang: str):
    text = spaced(visible_text(page(site, lang, "guides/nvlink-or-pcie")))
    assert not re.search(r"\d×", text)  # no bare "7×" ("8 × H100" and "PCIe Gen5 ×16" are names)
    if lang == "zh":
        assert "切分" in text and "拆分" not in text


# The sizing guides (mixture of experts, quantization, image and video): one unit rule, figures worded per language.
def prose(site: Path, lang: str, guide: str) -> str:
    return spaced(visible_text(page(site, lang, guide)))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_units_rule_is_stated_once_and_the_sizing_guides_link_to_it(site: Path, lang: str):
    assert 'id="units"' in page(site, lang, "guides")
    for guide in ("guides/mixture-of-experts", "guides/quantization", "guides/image-and-video"):
        assert 'href="../#units"' in page(site, lang, guide), guide


SIZING_GUIDE_WORDING = {
    ("fr", "guides/mixture-of-experts"): [
        "671 milliards de paramètres, dont 37,6 milliards actifs",
        "s’il est réparti sur davantage de cartes, chaque tête est dupliquée",
        "18 fois moins",
        "626,7 Gio",
    ],
    ("zh", "guides/mixture-of-experts"): ["6710 亿参数", "仅为模型所占显存的 1/18", "每个头都会被复制"],
    ("fr", "guides/image-and-video"): ["est l’A40", "2,0 fois plus de calcul par dollar"],
    ("zh", "guides/image-and-video"): ["计算条件", "主要受限于算力而非显存带宽", "2.0 倍"],
    ("fr", "guides/quantization"): ["une échelle et un point zéro", "au moins"],
    ("en", "guides/quantization"): ["Speed on 8 × H100 SXM5", "about 33 tok/s, at least"],
    ("en", "guides/mixture-of-experts"): ["671 billion parameters", "626.7 GiB", "each head is duplicated"],
}


@pytest.mark.parametrize("lang, guide", sorted(SIZING_GUIDE_WORDING))
def test_the_sizing_guides_read_as_a_native_writer_words_them(site: Path, lang: str, guide: str):
    text = prose(site, lang, guide)
    for expected in SIZING_GUIDE_WORDING[lang, guide]:
        assert expected in text, expected
    if lang != "en":
        assert not re.search(r"\d×(?!\d)", text), "a bare ratio in French or Chinese prose"  # not 1024×1024
    if lang == "zh":
        assert "拆分" not in text


def test_sd_3_5_large_on_two_l4_cards_pays_for_both_in_tflops_per_dollar(site: Path):
    rows = table_rows(page(site, "en", "guides/image-and-video"), "Stable Diffusion 3.5 Large in BF16")
    # 121 TFLOPS / (2 cards × $1,520 / (4 × 730 h)) = 121 / 1.041 = 116
    assert rows["L4"][1] == "with the text encoders on 2 cards" and rows["L4"][4] == "116"


def test_the_moe_tables_carry_the_configurators_warnings(site: Path):
    rows = table_rows(page(site, "en", "guides/mixture-of-experts"), "Qwen3 235B-A22B in FP8")
    assert "FP8 is not native on this card" in rows["4 × A100 80GB PCIe"][-1]
    assert "split over PCIe" in rows["4 × A100 80GB PCIe"][-1]
    assert rows["8 × H100 SXM5"][-1] == ""
