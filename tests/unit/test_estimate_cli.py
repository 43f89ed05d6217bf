"""`python -m sizing.estimate SCENARIOS.yml [--json]`: one result per scenario in order; a bad key or id is one
error line naming it, exit status 2, no traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sitebuild import ROOT

from sizing.estimate import main

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


def test_json_has_one_result_per_scenario_in_order(tmp_path, capsys):
    code, out, err = run(tmp_path, SCENARIOS, "--json", capsys=capsys)
    assert code == 0 and err == ""
    results = json.loads(out)
    assert [r["id"] for r in results] == ["llama-70b-on-4-a100", "inline-card-and-model", "inline-moe", "too-big"]
    for r in results:
        assert set(r) == {"id", "fits", "streams_that_fit", "tokens_per_s_per_stream", "tokens_per_s_total"}
        assert set(r["tokens_per_s_per_stream"]) == {"typical", "floor"} and set(r["tokens_per_s_total"]) == {"typical"}
    first = results[0]
    # the hand-checked case of tests/unit/test_decode.py: 52 streams of 8k on 4 x A100 80GB
    assert first["fits"] is True and first["streams_that_fit"] == 52
    assert first["tokens_per_s_per_stream"]["floor"] < first["tokens_per_s_per_stream"]["typical"]
    assert first["tokens_per_s_total"]["typical"] > first["tokens_per_s_per_stream"]["typical"]
    assert results[3] == {
        "id": "too-big",
        "fits": False,
        "streams_that_fit": 0,
        "tokens_per_s_per_stream": {"typical": None, "floor": None},
        "tokens_per_s_total": {"typical": None},
    }


def test_without_json_a_table(tmp_path, capsys):
    code, out, _ = run(tmp_path, SCENARIOS, capsys=capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["id", "fits", "streams"]
    assert lines[2].startswith("llama-70b-on-4-a100") and " 52 " in lines[2]


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
        "precision, concurrency, context_tokens, engine_class, prompt_tokens_per_output_token"
    ]
