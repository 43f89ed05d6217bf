"""`python -m sizing.estimate SCENARIOS.yml [--json]`: one result per scenario in order; a bad key or id is one
error line naming it, exit status 2, no traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sitebuild import ROOT

from sizing.catalog.schema import DecodeScenario
from sizing.engine.fit import tight_setting
from sizing.estimate import main
from sizing.views.estimates import cell_setting, run_of
from sizing.views.matrix import VerdictMatrix

SCENARIOS = """\
- id: llama-70b-on-4-a100
  gpu: a100-sxm4-80gb
  cards: 4
  link: nvlink
  parallelism: tensor
  model: llama-3.3-70b
  precision: bf16
  concurrency: 1
  context_tokens: 8192
- id: inline-card-and-model
  gpu: {memory_gb: 48, memory_bandwidth_gbps: 864, bf16_dense_tflops: 181}
  model: {params_b: 8, layers: 32, hidden_size: 4096, kv_heads: 8, head_dim: 128}
  precision: bf16
- id: inline-moe
  gpu: h100-sxm5-80gb
  model: {params_b: 30.5, active_params_b: 3.3, layers: 48, hidden_size: 2048, kv_heads: 4, head_dim: 128}
  precision: fp8
- id: too-big
  gpu: l4
  model: llama-3.1-405b
  precision: bf16
"""


def run(tmp_path: Path, text: str, *flags: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "scenarios.yml"
    path.write_text(text, encoding="utf-8")
    code = main([str(path), *flags])
    out, err = capsys.readouterr()
    return code, out, err


KEYS = {
    "id", "fits", "reason", "to_fit", "engine_class", "kv_cache_dtype", "verdict", "setting", "gpu_layers",
    "streams_that_fit",
    "streams_running", "streams_waiting", "note", "tokens_per_s_per_stream", "tokens_per_s_total", "ttft_s",
    "full_load",
}  # fmt: skip


def test_json_has_one_result_per_scenario_in_order(tmp_path, capsys):
    code, out, err = run(tmp_path, SCENARIOS, "--json", capsys=capsys)
    assert code == 0 and err == ""
    results = json.loads(out)
    assert [r["id"] for r in results] == ["llama-70b-on-4-a100", "inline-card-and-model", "inline-moe", "too-big"]
    for r in results:
        assert set(r) == KEYS
        assert set(r["tokens_per_s_per_stream"]) == {"typical", "floor"}
        assert set(r["tokens_per_s_total"]) == {"typical", "floor"}
    first = results[0]
    # the hand-checked case of tests/unit/test_decode.py: 59 streams of 8k on 4 x A100 80GB
    assert first["fits"] is True and first["streams_that_fit"] == 59 and first["verdict"] == "split"
    assert first["tokens_per_s_per_stream"]["floor"] < first["tokens_per_s_per_stream"]["typical"]
    # one stream asked: the total is that stream's; full load runs the 52 that fit
    assert first["tokens_per_s_total"]["typical"] == first["tokens_per_s_per_stream"]["typical"]
    assert first["full_load"]["streams"] == 59
    assert first["full_load"]["tokens_per_s_total"]["typical"] > first["tokens_per_s_total"]["typical"]
    # a card and a model given by their figures get a verdict as catalog ones do: 8e9 BF16 weights (14.9 GiB) on a
    # 48 GB card, 0.99 x 48 GiB visible x 0.90 = 42.8 GiB
    assert results[1]["verdict"] == "one-card" and results[1]["setting"] is None
    too_big = results[3]
    assert too_big["fits"] is False and too_big["reason"] == "weights" and too_big["streams_running"] == 0
    assert too_big["tokens_per_s_per_stream"] == {"typical": None, "floor": None}
    assert any("cards of this GPU" in way for way in too_big["to_fit"])


def answers(tmp_path, capsys, text: str) -> list[dict]:
    code, out, err = run(tmp_path, text, "--json", capsys=capsys)
    assert code == 0, err
    return json.loads(out)


def test_the_total_is_at_the_scenarios_concurrency(tmp_path, capsys):
    (r,) = answers(tmp_path, capsys, "- gpu: h100-sxm5-80gb\n  model: llama-3.1-8b\n  concurrency: 32\n")
    assert r["fits"] and r["streams_running"] == 32 and r["streams_that_fit"] > 32
    assert r["tokens_per_s_total"]["typical"] == pytest.approx(
        32 * r["tokens_per_s_per_stream"]["typical"], abs=32 * 0.05
    )
    assert r["full_load"]["tokens_per_s_total"]["typical"] > r["tokens_per_s_total"]["typical"]


def test_more_streams_than_fit_run_what_fits_and_queue_the_rest(tmp_path, capsys):
    text = "- gpu: h100-sxm5-80gb\n  cards: 2\n  link: nvlink\n  model: llama-3.3-70b\n  concurrency: 500\n"
    (r,) = answers(tmp_path, capsys, text)
    fitting = r["streams_that_fit"]
    assert not r["fits"] and r["reason"] == "kv_cache" and 0 < fitting < 500
    assert r["streams_running"] == fitting and r["streams_waiting"] == 500 - fitting
    assert r["tokens_per_s_per_stream"]["typical"] is not None and "wait" in r["note"]
    assert any("--kv-cache-dtype fp8" in way for way in r["to_fit"])


def test_weights_too_big_say_how_many_cards_or_which_smaller_format_would_hold_them(tmp_path, capsys):
    # 70B in BF16 is 131.4 GiB: no H100 holds it alone; INT4 (37.0 GiB) does
    (r,) = answers(tmp_path, capsys, "- gpu: h100-sxm5-80gb\n  model: llama-3.3-70b\n  precision: bf16\n")
    assert r["reason"] == "weights" and r["verdict"] == "no-fit" and r["tokens_per_s_per_stream"]["typical"] is None
    # 2 cards need 65.7 + 1.25 + 2.08 (activations) + 1.05 = 70.1 GiB each, within the default 71.3
    assert "2 cards of this GPU hold the weights and one stream of 8,192 tokens" in r["to_fit"]
    assert any(way.startswith("a smaller format on these cards:") and "int4-awq-gptq" in way for way in r["to_fit"])


def test_fp8_kv_cache_holds_about_twice_the_streams(tmp_path, capsys):
    base = "- gpu: h100-sxm5-80gb\n  model: llama-3.1-8b\n  context_tokens: 32768\n"
    bf16, fp8 = answers(tmp_path, capsys, base + base.replace("- gpu", "- kv_cache_dtype: fp8\n  gpu"))
    assert fp8["kv_cache_dtype"] == "fp8"
    assert fp8["streams_that_fit"] in (2 * bf16["streams_that_fit"], 2 * bf16["streams_that_fit"] + 1)


def test_a_gguf_format_runs_on_llama_cpp_unless_told_otherwise(tmp_path, capsys):
    gguf = "- gpu: rtx-4090\n  cards: 2\n  link: pcie\n  model: llama-3.3-70b\n  precision: gguf-q4_k_m\n"
    implied, forced = answers(tmp_path, capsys, gguf + gguf + "  engine_class: server\n")
    assert implied["engine_class"] == "llama.cpp" and implied["fits"]
    assert forced["engine_class"] == "server"


def test_the_estimator_and_the_configurator_apply_the_same_rule(tmp_path, capsys):
    # 70B BF16 on 2 x H100 PCIe at 32K: the site says tight at --gpu-memory-utilization 0.95; so does the estimator
    text = (
        "- gpu: h100-pcie-80gb\n  cards: 2\n  link: pcie\n  model: llama-3.3-70b\n  precision: bf16\n"
        "  context_tokens: 32768\n"
    )
    (r,) = answers(tmp_path, capsys, text)
    assert r["verdict"] == "tight" and r["setting"] == "--gpu-memory-utilization 0.95"
    assert r["fits"] and "--gpu-memory-utilization 0.95" in r["note"]


def scenario_link(node) -> str:
    """How a scenario names the link of a catalog node."""
    if node.cards == 1:
        return "none"
    return {"nvswitch": "nvlink", "mesh": "nvlink", "bridged-pairs": "nvlink-bridge"}.get(node.link.topology, "pcie")


def test_the_estimator_gives_the_configurator_cells_verdict_for_every_cell(catalog):
    """Every language-model cell of the configurator, asked as a scenario: the same verdict and setting."""
    matrix = VerdictMatrix(catalog)
    for (model, precision, context, node_id), cell in matrix.everything.items():
        if context is None:
            continue
        node = catalog.nodes[node_id]
        scenario = DecodeScenario(gpu=node.gpu, cards=node.cards, link=scenario_link(node),
                                  model=model, precision=precision, context_tokens=context)  # fmt: skip
        fit = run_of(catalog, scenario).verdict
        assert fit.verdict is cell.fit.verdict and fit.cards == cell.fit.cards, (model, node_id)
        assert cell_setting(catalog, fit) == tight_setting(catalog, cell.fit), (model, precision, context, node_id)


def test_a_shorter_context_that_fits_is_named_by_the_engines_flag(tmp_path, capsys):
    # Llama 3.1 8B in BF16 on one L4: the weights fit, not one stream of 128K beside them (16 GiB of KV cache)
    text = "- gpu: l4\n  model: llama-3.1-8b\n  precision: bf16\n  context_tokens: 131072\n"
    (r,) = answers(tmp_path, capsys, text)
    assert not r["fits"] and r["reason"] == "kv_cache" and r["streams_running"] == 0
    (shorter,) = [way for way in r["to_fit"] if way.startswith("--max-model-len ")]
    tokens = int(shorter.split()[1].rstrip(":"))
    assert 2048 <= tokens < 131072 and f"at most {tokens:,} tokens" in shorter


def test_no_stream_runs_where_not_one_fits(tmp_path, capsys):
    """Where the weights and the reserve fit but not one stream's KV cache, nothing runs: never "0 fit, 1 runs"."""
    text = "- gpu: h100-pcie-80gb\n  model: qwen3-32b\n  precision: bf16\n  context_tokens: 32768\n  concurrency: 4\n"
    (r,) = answers(tmp_path, capsys, text)
    assert r["streams_running"] <= r["streams_that_fit"]
    assert (r["tokens_per_s_per_stream"]["typical"] is None) == (r["streams_running"] == 0)


def test_every_problem_of_a_file_is_reported_at_once_at_its_line(tmp_path, capsys):
    text = (
        "- gpu: a100-sxm4-80gb\n  model: llama-3.3-70b\n  precison: bf16\n"  # line 3: unknown key
        "- id: typo\n  gpu: a100-sxm4-80g\n  model: llama-3.3-7b\n"  # lines 5 and 6: unknown ids
    )
    code, out, err = run(tmp_path, text, "--json", capsys=capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 3
    assert "scenarios.yml:3:" in lines[0] and "precison" in lines[0]
    assert "scenarios.yml:5:" in lines[1] and "a100-sxm4-80g'" in lines[1]
    assert "scenarios.yml:6:" in lines[2] and "llama-3.3-7b" in lines[2]


def test_without_json_a_table(tmp_path, capsys):
    code, out, _ = run(tmp_path, SCENARIOS, capsys=capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "fits", "streams"]
    assert lines[2].startswith("llama-70b-on-4-a100") and " 59 " in lines[2]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "- gpu: a100-sxm4-80gb\n  model: llama-3.3-70b\n  precison: bf16\n",
            ["scenarios.yml:3:", "unknown key 'precison'", "valid keys:"],
        ),
        (
            "- id: typo\n  gpu: a100-sxm4-80g\n  model: llama-3.3-70b\n",
            ["scenario 1 ('typo')", "unknown gpu 'a100-sxm4-80g'", "did you mean 'a100-sxm4-80gb'"],
        ),
        (
            "- gpu: a100-sxm4-80gb\n  model: llama-3.3-7b\n",
            ["unknown model 'llama-3.3-7b'", "did you mean 'llama-3.3-70b'"],
        ),
        ("- gpu: a100-sxm4-80gb\n  model: llama-3.3-70b\n  precision: fp9\n", ["unknown precision 'fp9'"]),
        ("- gpu: l4\n  cards: 2\n  link: nvlink9\n  model: llama-3.1-8b\n", ["unknown link 'nvlink9'"]),
        ("- gpu: l4\n  cards: 2\n  link: nvlink\n  model: llama-3.1-8b\n", ["link 'nvlink'", "no l4 node"]),
        (
            "- gpu: {memory_gb: 48, memory_bandwidth: 864, bf16_dense_tflops: 181}\n  model: llama-3.1-8b\n",
            ["unknown key 'gpu.memory_bandwidth'"],
        ),
        ("- gpu: l4\n  model: llama-3.1-8b\n  parallelism: pipeline\n", ["parallelism", "'tensor' or 'layers'"]),
        (
            "- gpu: h100-sxm5-80gb\n  model: llama-3.1-8b\n  context_tokens: 200000\n",
            ["context_tokens 200,000 exceed the model's window of 131,072 tokens"],
        ),
        (
            "- gpu: h100-sxm5-80gb\n  model: llama-3.1-8b\n  precision: fp8\n  engine_class: llama.cpp\n",
            ["precision 'fp8' does not run on llama.cpp", "use engine_class 'server'"],
        ),
        (
            "- gpu: h100-sxm5-80gb\n  model: llama-3.1-8b\n  engine_class: llama.cpp\n  parallelism: tensor\n",
            ["parallelism 'tensor' with engine_class 'llama.cpp'", "leave parallelism out"],
        ),
    ],
)
def test_a_bad_scenario_is_one_error_line_naming_it(tmp_path, capsys, text, expected):
    code, out, err = run(tmp_path, text, "--json", capsys=capsys)
    assert code == 2 and out == ""
    problem_lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(problem_lines) >= 1 and "Traceback" not in err
    assert any(all(fragment in line for fragment in expected) for line in problem_lines), err


def test_the_module_runs_from_the_command_line(tmp_path):
    path = tmp_path / "s.yml"
    path.write_text("- gpu: a100-sxm4-80gb\n  model: llama-3.3-70b\n  colour: blue\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "sizing.estimate", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {path}:3: scenario 1: unknown key 'colour'; valid keys: id, gpu, cards, link, parallelism, model, "
        "precision, concurrency, context_tokens, engine_class, prompt_tokens_per_output_token, prompt_tokens, "
        "output_tokens, kv_cache_dtype, gpu_layers, cpu_moe_layers, host_memory_bandwidth_gbps"
    ]


def test_a_file_that_is_not_a_list_says_what_it_is_in_the_readers_words(tmp_path: Path, capsys):
    code, _, err = run(tmp_path, "gpu: h100-sxm5-80gb\n", capsys=capsys)
    assert code == 2 and "expected a YAML list of scenarios, found a mapping" in err
    code, _, err = run(tmp_path, "- 7\n", capsys=capsys)
    assert code == 2 and "expected a mapping of keys, found a number" in err


def test_a_request_gets_its_time_to_first_token_and_the_speeds_its_prompts_leave(tmp_path, capsys):
    """NVIDIA's NIM 1.8.0 table: Llama 3.3 70B FP8 on 2 x H100, 25 users of 5,000-token prompts and 500-token
    answers: 688.69 ms to the first token, 38.75 ms between tokens (25.8 tokens/s)."""
    base = "- gpu: h100-sxm5-80gb\n  cards: 2\n  link: nvlink\n  model: llama-3.3-70b\n  precision: fp8\n"
    base += "  concurrency: 25\n  context_tokens: 5250\n"
    with_prompts, without = answers(tmp_path, capsys, base + "  prompt_tokens: 5000\n  output_tokens: 500\n" + base)
    assert 0.5 * 0.68869 <= with_prompts["ttft_s"]["typical"] <= 2 * 0.68869
    assert with_prompts["ttft_s"]["at_most"] > with_prompts["ttft_s"]["typical"]
    speed = with_prompts["tokens_per_s_per_stream"]["typical"]
    assert 0.5 * 25.8 <= speed < without["tokens_per_s_per_stream"]["typical"]  # the prompts slow every answer
    assert without["ttft_s"] is None


def test_a_request_and_a_prompt_share_are_not_given_together(tmp_path, capsys):
    text = "- gpu: l4\n  model: llama-3.1-8b\n  prompt_tokens: 1000\n  prompt_tokens_per_output_token: 2\n"
    path = tmp_path / "scenarios.yml"
    path.write_text(text, encoding="utf-8")
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert "give a request's prompt_tokens and output_tokens together" in err
