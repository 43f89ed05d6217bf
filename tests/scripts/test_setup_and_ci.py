"""Set-up says what it needs and installs only that; CI stays current and quick: the locks, the Makefile's
targets, the workflow and Dependabot's configuration, read as files (no install, no network)."""

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
STAND_IN_ADDRESS = "https://example.org/guides"  # what a pull request builds for: it may come from a fork without Pages
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


def test_make_test_says_what_it_installs_and_lints_before_the_tests():
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
        "-m pytest\n",
    ]
    positions = [commands.find(step) for step in steps]
    assert all(p >= 0 for p in positions), dict(zip(steps, positions, strict=True))
    assert positions == sorted(positions), dict(zip(steps, positions, strict=True))
    assert commands.count('echo "==>') >= 5  # each install, the lint and the tests, said before it happens


def workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text())


ON_MAIN = "github.event_name == 'push' && github.ref == 'refs/heads/main'"  # the workflow's one publishing condition


WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_the_workflows_and_the_dependabot_configuration_are_valid():
    checks = [("vendor.github-workflows", workflow) for workflow in WORKFLOWS]
    for schema, path in [*checks, ("vendor.dependabot", ROOT / ".github" / "dependabot.yml")]:
        result = subprocess.run(
            [str(Path(sys.executable).parent / "check-jsonschema"), "--builtin-schema", schema, str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflow_builds_once_for_the_pages_address_and_deploys_what_it_checked():
    steps = workflow()["jobs"]["build"]["steps"]
    runs = [step.get("run") for step in steps]
    assert runs.count("make build") == 1 and "make check" in runs and "make test" in runs
    assert runs.index("make build") < runs.index("make check") < runs.index("make test")
    by_run = {step.get("run"): step for step in steps}
    pages = next(step for step in steps if "configure-pages" in step.get("uses", ""))
    address = {by_run[run]["env"]["SITE_URL"] for run in ("make build", "make check", "make test")}
    assert address == {"${{ steps." + pages["id"] + ".outputs.base_url || '" + STAND_IN_ADDRESS + "' }}/"}
    assert by_run["make test"]["env"]["BUILT_SITE"] == "site"
    upload = next(step for step in steps if "upload-pages-artifact" in step.get("uses", ""))
    assert upload["with"]["path"] == "site"


def test_a_pull_request_from_a_fork_runs_no_pages_step_and_only_main_publishes():
    """A fork has no Pages site: configure-pages would fail before any test ran. Every step and job that reads or
    writes Pages runs on a push to main only, and every other step runs on a pull request too."""
    config = workflow()
    steps = config["jobs"]["build"]["steps"]
    pages_steps = [step for step in steps if "-pages" in step.get("uses", "")]
    assert len(pages_steps) == 2  # configure-pages, upload-pages-artifact
    assert all(step["if"] == ON_MAIN for step in pages_steps)
    assert all("if" not in step for step in steps if step not in pages_steps)
    assert config["jobs"]["publish"]["if"] == ON_MAIN and config["jobs"]["publish"]["needs"] == "build"
    triggers = config[True]  # `on:`, which YAML 1.1 reads as true
    assert set(triggers) == {"pull_request", "push"} and triggers["push"]["branches"] == ["main"]


def ci_run_commands() -> list[str]:
    """The commands .ci/run runs, in order."""
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]


def test_ci_run_runs_the_workflows_steps_and_tests_against_the_site_it_built():
    """`.ci/run` on any machine runs what the workflow runs on a pull request: the same make targets in the same
    order, for the same stand-in address, the tests reading the site it built and checked."""
    steps = workflow()["jobs"]["build"]["steps"]
    workflow_runs = [step["run"] for step in steps if "run" in step]
    commands = ci_run_commands()
    assert commands[0] == f"export SITE_URL={STAND_IN_ADDRESS}/"
    assert [command.split("=site ")[-1] for command in commands[1:]] == workflow_runs
    assert commands[-1] == "BUILT_SITE=site make test"


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


def test_every_action_is_pinned_to_a_commit_and_dependabot_keeps_it_current():
    """A tag can be moved to other code; a commit cannot. Which release is current is Dependabot's to say (a
    weekly pull request that moves the pin and its comment), not a test's."""
    assert WORKFLOWS
    for path in WORKFLOWS:
        text = path.read_text()
        used = re.findall(r"uses:\s*(\S+)", text)
        pinned = re.findall(r"uses: ([\w.-]+/[\w.-]+@[0-9a-f]{40}) # v\d+\.\d+\.\d+\n", text)
        assert used and pinned == used, f"{path.name}: not pinned with their release: {set(used) - set(pinned)}"
    assert "github-actions" in {update["package-ecosystem"] for update in dependabot()["updates"]}


def dependabot() -> dict:
    return yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())


def test_dependabot_watches_every_lock_after_a_cooldown():
    """Every folder with a lock file is watched by its ecosystem, and no release is proposed before it is a few
    days old."""
    updates = dependabot()["updates"]
    watched = {(update["package-ecosystem"], update["directory"]) for update in updates}
    locks = {("pip", "/")} | {
        ("npm", "/" + lock.parent.relative_to(ROOT).as_posix().removeprefix("."))
        for lock in ROOT.glob("**/package-lock.json")
        if "node_modules" not in lock.parts
    }
    assert (
        watched
        == {("github-actions", "/")} | locks
        == {
            ("github-actions", "/"),
            ("pip", "/"),
            ("npm", "/"),
            ("npm", "/bench"),
        }
    )
    assert all(update["cooldown"]["default-days"] >= 3 for update in updates)
