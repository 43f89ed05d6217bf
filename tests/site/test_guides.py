"""The sizing guides in every language: their tables, claims and reading times come from the data."""
import re
from pathlib import Path

import pytest

from conftest import edit
from macros.output.typography import typeset
from macros.reading import plain_text, reading_minutes, reading_rates, reading_units
from macros.site_data import site_data
from rendering import render
from sitebuild import LANGUAGES, ROOT, build, copy_project, page, visible_text

GUIDES = ["guides/nvlink-or-pcie", "guides/image-and-video", "guides/quantization", "guides/mixture-of-experts",
          "guides/what-we-dont-offer"]


def table_rows(html: str, caption_fragment: str) -> dict[str, list[str]]:
    """Rows of the table whose caption contains ``caption_fragment``, by their first cell."""
    for table in re.findall(r"<table.*?</table>", html, re.S):
        caption = re.search(r"<caption>(.*?)</caption>", table, re.S)
        if caption and caption_fragment in caption.group(1):
            rows = {}
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)[1:]:
                cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                rows[cells[0]] = cells[1:]
            return rows
    raise AssertionError(f"no table captioned {caption_fragment!r}")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("guide", GUIDES + ["guides"])
def test_every_guide_exists_in_every_language(site: Path, lang: str, guide: str):
    assert f'<html lang="{lang}"' in page(site, lang, guide)


def test_flux_cards_hold_it_where_the_arithmetic_says(site: Path):
    html = page(site, "en", "guides/image-and-video")
    bf16 = table_rows(html, "FLUX.1 [dev] in BF16")
    # BF16 pipeline: 34.0 GB of weights = 31.67 GiB + 2 GiB + 0.15 = 33.8 GiB; a 48 GB card offers
    # 0.9 × 0.99 × 48 = 42.8 GiB, a 24 GB card 21.4 GiB (not even the 22.2 GiB transformer fits)
    assert bf16["L40S"][1] == "on one card" and bf16["A40"][1] == "on one card"
    assert "RTX 4090" not in bf16 and "L4" not in bf16
    # a 32 GB card (28.5 GiB) holds the transformer with working memory, the T5 encoder goes next door
    assert bf16["RTX 5090"][1] == "with the text encoders on 2 cards"
    # FP8: 17.1 GB = 15.9 GiB + 2 + 0.15 = 18.1 GiB fits a 24 GB card
    assert table_rows(html, "FLUX.1 [dev] in FP8")["RTX 4090"][1] == "on one card"
    # the cheapest per GPU-hour comes first: A40 at $2,060 / (4 × 730 h) = $0.71
    assert list(bf16)[0] == "A40" and bf16["A40"][2] == "$0.71"


def test_wan_14b_needs_an_80_gb_card_to_run_alone(site: Path):
    rows = table_rows(page(site, "en", "guides/image-and-video"), "Wan 2.1 14B in BF16")
    # 28 + 11.36 + 0.25 GB = 36.9 GiB of weights + 8 GiB + 0.15 = 45.0 GiB: above 42.8 GiB (48 GB cards)
    assert rows["A100 80GB PCIe"][1] == "on one card"
    assert rows["L40S"][1] == "with the text encoders on 2 cards"


def test_deepseek_v3_in_fp8_is_held_by_the_largest_nodes_with_96_gb_or_more_per_card(site: Path):
    rows = table_rows(page(site, "en", "guides/mixture-of-experts"), "DeepSeek V3 in FP8")
    # per card: weights 84.11e9 B (672.9 GB / 8) = 78.33 GiB + KV at 8K 0.54 + activation peak 5.20 (vocabulary
    # 129,280) + CUDA context, graphs and NCCL 1.05 = 85.1 GiB: within 0.90 of what CUDA shows on an RTX PRO 6000
    # (85.6 GiB), an H200 (125.9) and a B200 (160.5); above it on the 80 GB cards (71.3)
    assert list(rows) == ["8 × RTX PRO 6000", "8 × H200 SXM", "8 × B200"]
    assert rows["8 × H200 SXM"][0] == "split across 8 cards" and rows["8 × H200 SXM"][1] == "85.1 GiB"


def test_the_quantization_table_shows_whole_model_bits(site: Path):
    rows = table_rows(page(site, "fr", "guides/quantization"), "Llama 3.1 8B")
    # INT4: (8.03e9 − 1.05e9) × 4.156 + 1.05e9 × 16 bits over 8.03e9 params = 5.71 bits; Q4_K_M: 4.89
    assert rows["INT4 AWQ/GPTQ"][1] == "5,71" and rows["GGUF Q4_K_M"][1] == "4,89"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_reading_time_on_every_card_matches_the_formula_on_the_pages_own_text(site: Path, lang: str):
    data = site_data()
    catalog = data.catalog
    unit = {"en": "min", "fr": "min", "zh": "分钟"}[lang]
    cards = visible_text(page(site, lang, "guides"))
    for guide in GUIDES:
        source = (ROOT / "docs" / lang / f"{guide}.md").read_text(encoding="utf-8")
        body = re.sub(r"\{\{\s*guide_cards\([^}]*\)\s*\}\}", "", source.split("---\n", 2)[2])
        text = plain_text(render(data, body, lang, guide))
        rate = {"en": catalog.assumptions.reading_words_per_minute_en,
                "fr": catalog.assumptions.reading_words_per_minute_fr,
                "zh": catalog.assumptions.reading_characters_per_minute_zh}[lang].value
        minutes = -(-reading_units(text, lang) // rate)  # ceil
        assert minutes == reading_minutes(text, lang, reading_rates(catalog)) >= 1
        title = re.search(r'^title: "?(.*?)"?$', source, re.M).group(1)
        assert re.search(rf"· {minutes} {unit}\s+{re.escape(typeset(title, lang))}", cards), (guide, minutes)


def test_reading_units_count_words_or_characters():
    assert reading_units("Tensor parallelism pays the link at every layer.", "en") == 8
    assert reading_units("L’all-reduce attend la carte la plus lente.", "fr") == 7
    assert reading_units("张量并行每一层都要同步 NVLink", "zh") == 11 + 1  # 11 characters, 1 Latin word


@pytest.fixture(scope="module")
def changed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("changed") / "project")
    gpus = project / "data" / "gpus.yml"
    before, ada, after = re.split(r"(  - id: rtx-6000-ada\n(?:    .*\n|      .*\n)+)", gpus.read_text(encoding="utf-8"))
    doubled = (ada.replace("memory_gb: 48", "memory_gb: 96").replace("nvidia_smi_memory_mib: 46068", "nvidia_smi_memory_mib: 92136")
               .replace("runtime_visible_memory_mib: 45599", "runtime_visible_memory_mib: 91198"))  # RTX 6000 Ada
    gpus.write_text(before + doubled + after, encoding="utf-8")
    edit(project / "data" / "models.yml", "params: 2567460000", "params: 5134920000")   # SDXL UNet doubled
    result = build(project, project / "site")
    assert result.returncode == 0, result.stderr
    return project / "site"


def test_a_data_change_reaches_the_guide_tables(changed_site: Path):
    html = page(changed_site, "zh", "guides/image-and-video")
    assert table_rows(html, "FLUX.1 [dev]（BF16）")["RTX 6000 Ada"][0] == "96 GB"
    memory = table_rows(page(changed_site, "en", "guides/image-and-video"), "needs in BF16")
    assert memory["SDXL 1.0"][1] == "10 GB"  # 5,134,920,000 × 2 B


def test_falsifying_a_claim_of_a_guide_fails_the_build_with_page_and_line(tmp_path: Path):
    project = copy_project(tmp_path / "project")
    # a DeepSeek V3 of 500B parameters would fit 8 × B200 in BF16: "fits on no node" becomes false
    edit(project / "data" / "models.yml", "params: 671026419200", "params: 500000000000")
    result = build(project, tmp_path / "site")
    assert result.returncode != 0
    assert "claim no longer true: no node holds 'deepseek-v3' in bf16" in result.stderr
    assert re.search(r"docs/en/guides/(mixture-of-experts|what-we-dont-offer)\.md:\d+: claim", result.stderr)
