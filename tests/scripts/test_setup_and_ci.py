"""Set-up says what it needs and installs only that; CI stays current and quick: the locks, the Makefile's
targets, the workflow and Dependabot's configuration, read as files (no install, no network)."""

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
TEST_ONLY = ("pytest", "hypothesis", "playwright", "check-jsonschema", "ruff", "mypy", "types-pyyaml", "jsonschema")


def pins(lock: str) -> dict[str, str]:
    """name → version of every package of a lock file, each checked to carry hashes."""
    lines = (ROOT / lock).read_text().replace("\\\n", " ").splitlines()
    found = {}
    for line in (line for line in lines if line and not line.startswith(("#", " "))):
        pinned = re.match(r"^([\w.-]+)==([\w.+-]+) ", line)
        assert pinned and "--hash=sha256:" in line, f"{lock}: {line[:80]}"
        found[pinned.group(1)] = pinned.group(2)
    return found


def test_building_needs_no_test_package_and_tests_get_the_same_versions():
    build, test = pins("requirements.txt"), pins("requirements-test.txt")
    assert "mkdocs-material" in build and not set(TEST_ONLY) & set(build)
    assert set(TEST_ONLY) <= set(test)
    assert {name: test[name] for name in build} == build


def test_the_linters_are_pinned_in_the_test_lock():
    test = pins("requirements-test.txt")
    assert test["ruff"] == "0.17.5" and test["mypy"] == "2.4.1" and test["types-pyyaml"]


def dry_run(target: str) -> str:
    """The commands `make <target>` would run on a machine without the virtual environment (nor axe-core: its
    lock file taken as new)."""
    result = subprocess.run(
        ["make", "-n", "-W", "package-lock.json", target, "VENV=/nonexistent/venv", "CJK_FONT=/nonexistent/font.ttc"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def test_make_serve_installs_what_serving_needs_and_nothing_else():
    commands = dry_run("serve")
    assert "-r requirements.txt" in commands and "mkdocs serve" in commands
    assert "requirements-test.txt" not in commands and "apt-get" not in commands and "npm" not in commands


def test_make_test_says_what_it_installs_lints_then_counts_its_tests():
    commands = dry_run("test")
    steps = [
        "-r requirements.txt",
        "-r requirements-test.txt",
        "fonts-noto-cjk",
        "tests/chromium.py",
        "npm ci",
        "ruff check .",
        "ruff format --check .",
        "/mypy\n",
        "pytest --collect-only -q",
        "-m pytest\n",
    ]
    positions = [commands.find(step) for step in steps]
    assert all(p >= 0 for p in positions), dict(zip(steps, positions, strict=True))
    assert positions == sorted(positions), dict(zip(steps, positions, strict=True))
    assert commands.count('echo "==>') >= 5  # each install and the test count, said before it happens


def workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text())


def test_the_workflow_builds_once_for_the_pages_address_and_deploys_what_it_checked():
    steps = workflow()["jobs"]["build"]["steps"]
    runs = [step.get("run") for step in steps]
    assert runs.count("make build") == 1 and "make check" in runs and "make test" in runs
    assert runs.index("make build") < runs.index("make check") < runs.index("make test")
    by_run = {step.get("run"): step for step in steps}
    pages = next(step for step in steps if "configure-pages" in step.get("uses", ""))
    pages_url = "${{ steps." + pages["id"] + ".outputs.base_url }}/"
    assert by_run["make build"]["env"]["SITE_URL"] == by_run["make check"]["env"]["SITE_URL"] == pages_url
    assert by_run["make test"]["env"]["BUILT_SITE"] == "site"
    upload = next(step for step in steps if "upload-pages-artifact" in step.get("uses", ""))
    assert upload["with"]["path"] == "site"


def test_the_workflow_caches_pip_and_the_browser_and_has_time_to_spare():
    job = workflow()["jobs"]["build"]
    steps = job["steps"]
    setup = next(step for step in steps if "setup-python" in step.get("uses", ""))
    assert setup["with"]["cache"] == "pip" and "requirements-test.txt" in setup["with"]["cache-dependency-path"]
    cache = next(step for step in steps if "actions/cache" in step.get("uses", ""))
    assert "ms-playwright" in cache["with"]["path"] and "requirements-test.txt" in cache["with"]["key"]
    assert job["env"]["CHROMIUM"] == "playwright"
    assert job["timeout-minutes"] >= 40  # a run takes about 15 minutes
    checkout = next(step for step in steps if "checkout" in step.get("uses", ""))
    assert "fetch-depth" not in checkout.get("with", {})


def test_the_actions_are_on_their_current_majors():
    text = (ROOT / ".github" / "workflows" / "site.yml").read_text()
    majors = dict(re.findall(r"uses: actions/([\w-]+)@[0-9a-f]{40} # v(\d+)", text))
    assert majors == {
        "checkout": "7",
        "setup-python": "7",
        "configure-pages": "6",
        "cache": "5",
        "upload-pages-artifact": "5",
        "deploy-pages": "5",
    }


def test_dependabot_keeps_the_actions_and_the_pip_locks_current():
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())
    assert {update["package-ecosystem"] for update in config["updates"]} == {"github-actions", "pip"}
