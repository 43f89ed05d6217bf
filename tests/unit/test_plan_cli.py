"""`python -m sizing.plan REQUIREMENTS.yml [--json]`: one answer per requirement in order, in the shape issue 25
gives; the same figures as `python -m sizing.estimate` for the node; a bad file is one error line per problem
at its file:line, exit status 2."""

import json
import subprocess
import sys
from pathlib import Path

from sitebuild import ROOT

from sizing.estimate import main as estimate_main
from sizing.plan import main

REQUIREMENTS = """\
- id: chat-8b
  model: llama-3.1-8b
  precision: bf16
  prompt_tokens: 2000
  output_tokens: 400
  users: 100
  min_tokens_per_s_per_user: 30
  max_ttft_s: 1
- id: impossible
  model: llama-3.1-405b
  precision: any
  prompt_tokens: 30000
  output_tokens: 500
  users: 10
  min_tokens_per_s_per_user: 40
  max_ttft_s: 0.5
"""
OPTION_KEYS = {
    "configuration",
    "precision",
    "cards_per_copy",
    "nodes",
    "price_per_month_usd",
    "usd_per_million_tokens",
    "users_per_node",
    "tokens_per_s_per_user",
    "ttft_s",
    "prompt_peak_share",
    "binding",
}


def run(tmp_path: Path, text: str, *flags: str, capsys) -> tuple[int, str, str]:
    path = tmp_path / "requirements.yml"
    path.write_text(text, encoding="utf-8")
    code = main([str(path), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_answer_per_requirement_in_the_issues_shape(tmp_path, capsys):
    code, out, err = run(tmp_path, REQUIREMENTS, "--json", capsys=capsys)
    assert code == 0 and err == ""
    answers = json.loads(out)
    assert [a["id"] for a in answers] == ["chat-8b", "impossible"]
    chat, impossible = answers
    assert set(chat) == {"id", "options", "closest", "relax"}
    assert chat["options"] and chat["closest"] == [] and chat["relax"] is None
    for option in chat["options"]:
        assert set(option) - {"kv_cache_dtype"} == OPTION_KEYS
        assert set(option["tokens_per_s_per_user"]) == {"typical", "floor"}
        assert set(option["ttft_s"]) == {"typical", "at_most"} and option["ttft_s"]["at_most"] <= 1
        assert option["tokens_per_s_per_user"]["floor"] >= 30  # the plan holds the speed at its floor
    prices = [o["price_per_month_usd"] for o in chat["options"]]
    assert prices == sorted(prices)
    assert impossible["options"] == [] and impossible["closest"] and "time to first token" in impossible["relax"]


def test_a_plan_pinned_to_one_configuration_answers_for_it_alone(tmp_path, capsys):
    code, out, err = run(tmp_path, REQUIREMENTS, "--json", "--configuration", "8x-h100-sxm5-80gb", capsys=capsys)
    assert code == 0 and err == ""
    chat, _ = json.loads(out)
    assert [o["configuration"] for o in chat["options"]] == ["8x-h100-sxm5-80gb"]
    code, out, err = run(tmp_path, REQUIREMENTS, "--configuration", "8x-h100-sxm5", capsys=capsys)
    assert code == 2 and out == ""
    assert err.startswith(
        "error: --configuration: unknown configuration '8x-h100-sxm5'; did you mean '8x-h100-sxm5-80gb'"
    )


def test_one_user_alone_gets_the_estimators_speed(tmp_path, capsys):
    """With one user no other prompt shares the steps: the plan's speed is the estimator's for one stream at the
    context the answers decode at on average (prompt + half the answer), up to the 4 digits the figures keep."""
    one = "- {model: llama-3.1-8b, precision: bf16, prompt_tokens: 3072, output_tokens: 2048, users: 1, "
    one += "min_tokens_per_s_per_user: 1}\n"
    _, out, _ = run(tmp_path, one, "--json", "--configuration", "1x-a100-pcie-80gb", capsys=capsys)
    option = json.loads(out)[0]["options"][0]
    path = tmp_path / "scenarios.yml"
    path.write_text("- {gpu: a100-pcie-80gb, model: llama-3.1-8b, precision: bf16, context_tokens: 4096}\n")
    assert estimate_main([str(path), "--json"]) == 0
    estimated = json.loads(capsys.readouterr()[0])[0]
    assert estimated["tokens_per_s_per_stream"]["typical"] == option["tokens_per_s_per_user"]["typical"]


def test_the_table_names_the_cheapest_first_and_what_to_relax(tmp_path, capsys):
    code, out, _ = run(tmp_path, REQUIREMENTS, capsys=capsys)
    assert code == 0
    assert "chat-8b: options, cheapest first" in out
    assert "impossible: nothing meets it" in out and "to meet it:" in out


def test_a_request_longer_than_the_models_window_is_refused_at_its_line(tmp_path, capsys):
    text = (
        "- model: qwen3-32b\n  prompt_tokens: 30000\n  output_tokens: 4000\n  users: 2\n"
        "  min_tokens_per_s_per_user: 5\n"
    )
    code, out, err = run(tmp_path, text, capsys=capsys)
    assert code == 2 and out == ""
    assert f"{tmp_path / 'requirements.yml'}:2: requirement 1: a prompt of 30,000 and an answer of 4,000" in err
    assert "exceed qwen3-32b's window of 32,768 tokens" in err


def test_every_problem_is_one_line_at_its_file_and_line(tmp_path, capsys):
    bad = """\
- id: typo
  model: llama-3.3-07b
  prompt_tokens: 4000
  output_tokens: 500
  users: 40
  min_tokens_per_s_per_user: 15
- id: wrong
  model: llama-3.1-8b
  prompt_tokens: -3
  output_tokens: 500
  users: 40
  min_tokens_per_s_per_user: 15
  colour: red
- id: both
  model: llama-3.1-8b
  precision: fp16
  prompt_tokens: 300
  output_tokens: 500
  users: 40
  min_tokens_per_s_per_user: 15
- id: neither
  model: llama-3.1-8b
  prompt_tokens: 300
  output_tokens: 500
  min_tokens_per_s_per_user: 15
"""
    code, out, err = run(tmp_path, bad, capsys=capsys)
    assert code == 2 and out == ""
    lines = err.splitlines()
    path = tmp_path / "requirements.yml"
    assert lines[0] == (
        f"error: {path}:2: requirement 1 ('typo'): unknown model 'llama-3.3-07b' (models.yml); "
        "did you mean 'llama-3.3-70b' or 'llama-3.1-405b' or 'llama-3.1-8b'?"
    )
    assert f"{path}:9: requirement 2 ('wrong'): prompt_tokens: Input should be greater than 0 (found -3)" in err
    assert f"{path}:13: requirement 2 ('wrong'): unknown key 'colour'" in err
    assert f"{path}:16: requirement 3 ('both'): unknown precision 'fp16' for llama-3.1-8b" in err
    assert "requirement 4 ('neither'): give users (concurrent users) or requests_per_minute, exactly one" in err
    assert "Traceback" not in err


def test_the_module_runs_from_the_command_line(tmp_path):
    path = tmp_path / "requirements.yml"
    path.write_text(REQUIREMENTS.split("- id: impossible", maxsplit=1)[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "sizing.plan", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["id"] == "chat-8b"


def test_a_file_that_is_not_a_requirements_list_is_one_line(tmp_path, capsys):
    path = tmp_path / "requirements.yml"
    path.write_bytes(b"- id: \xff\xfe\n")
    assert main([str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}")
    path.write_text("- id: x\n  model: " + "[" * 60 + "]" * 60 + "\n", encoding="utf-8")
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested more than 50 levels deep" in err
    path.write_text("model: llama-3.1-8b\n", encoding="utf-8")
    assert main([str(path)]) == 2
    assert "expected a YAML list of requirements, found a mapping" in capsys.readouterr().err


def test_a_model_given_by_its_shape_is_planned_in_the_format_it_names(tmp_path, capsys):
    shape = (
        "{id: my-32b, params_b: 32.8, layers: 64, hidden_size: 5120, attention_heads: 64, kv_heads: 8, head_dim: 128,"
        " vocab_size: 151936, max_context_tokens: 32768, source: my config.json}"
    )
    text = f"- model: {shape}\n  precision: fp8\n  prompt_tokens: 2000\n  output_tokens: 400\n  users: 20\n"
    text += "  min_tokens_per_s_per_user: 15\n"
    code, out, err = run(tmp_path, text, "--json", "--configuration", "8x-h100-sxm5-80gb", capsys=capsys)
    assert code == 0 and err == ""
    (option,) = json.loads(out)[0]["options"]
    assert option["configuration"] == "8x-h100-sxm5-80gb" and option["precision"] == "fp8"
    code, out, err = run(tmp_path, text.replace("  precision: fp8\n", ""), capsys=capsys)
    assert code == 2 and out == "" and "no precision for a model given by its shape; name one of bf16" in err
