"""The README is a landing page: short, every link of it resolving, and its quick start the
commands that work: the first line installs and solves, the second is the test command CI's
first stage runs, word for word. The documentation site builds with every warning an error."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
MAX_LINES = 250


def quick_start() -> list[str]:
    """The command lines of the README's first ```sh block under "## Quick start"."""
    text = README.read_text()
    section = text.split("\n## Quick start\n", 1)
    assert len(section) == 2, "the README has no '## Quick start' section"
    block = re.search(r"^```sh\n(.*?)^```", section[1], re.S | re.M)
    assert block, "the quick start has no ```sh block"
    return [line.strip() for line in block[1].splitlines() if line.strip()]


def ci_stage(number: int) -> list[list[str]]:
    """The commands of one stage of .ci/run (from its `echo "== N/` line to the next), each
    split into words, comments left out."""
    commands, inside = [], False
    for line in CI.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith('echo "== '):
            inside = stripped.startswith(f'echo "== {number}/')
            continue
        if inside and stripped and not stripped.startswith("#"):
            commands.append(shlex.split(stripped, comments=True))
    assert commands, f".ci/run has no stage {number}"
    return commands


def pinned(constraints: Path) -> set[str]:
    """The names a constraints file pins (`name==version`), normalised as pip does."""
    return {re.sub(r"[-_.]+", "-", line.split("==")[0]).lower()
            for line in constraints.read_text().splitlines()
            if "==" in line and not line.startswith("#")}


def quiet(words: list[str]) -> list[str]:
    """A pip command as the user types it: CI adds -q only to keep its log short."""
    return [word for word in words if word != "-q"]


def test_the_readme_is_a_landing_page_of_at_most_250_lines():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES})"


def test_the_quick_start_installs_and_solves_then_installs_and_tests():
    first, second = quick_start()
    install, solve = (part.strip() for part in first.split("&&"))
    assert shlex.split(install)[:2] == ["pip", "install"] and shlex.split(install)[-1] in (
        ".", "-e .")
    assert shlex.split(solve)[:2] == ["ilp-pyramid", "solve"]
    with open(ROOT / "pyproject.toml", "rb") as file:
        scripts = tomllib.load(file)["project"]["scripts"]
    assert "ilp-pyramid" in scripts, "the quick start's command is not a console script"
    install, test = (part.strip() for part in second.split("&&"))
    assert shlex.split(install)[:3] == ["pip", "install", "-e"]
    assert shlex.split(test)[:3] == ["python", "-m", "pytest"]


def test_ci_runs_the_readme_test_command_exactly():
    """Stage 1 of .ci/run installs as the README says (with -q at most) and then runs the
    README's test command, word for word, nothing added: what a user runs is what CI runs."""
    install, test = (shlex.split(part) for part in quick_start()[1].split("&&"))
    commands = ci_stage(1)
    assert install in [quiet(command) for command in commands], (
        f".ci/run stage 1 does not run the README's install {shlex.join(install)!r}")
    assert test in commands, f".ci/run stage 1 does not run {shlex.join(test)!r} exactly"
    assert [quiet(c) for c in commands].index(install) < commands.index(test)


def test_ci_builds_the_site_strictly_with_the_locked_docs_extra():
    stages = re.findall(r'^echo "== (\d+)/', CI.read_text(), re.M)
    site = [n for n in stages if any(c[:2] == ["mkdocs", "build"] for c in ci_stage(int(n)))]
    assert site, ".ci/run never runs `mkdocs build`"
    commands = ci_stage(int(site[0]))
    assert ["pip", "install", "-e", ".[docs]", "-c", "constraints.txt"] in [
        quiet(c) for c in commands]
    build = next(c for c in commands if c[:2] == ["mkdocs", "build"])
    assert "--strict" in build


@pytest.mark.slow  # seconds of mkdocs and mkdocstrings; CI's stage 7 builds the site too
def test_the_site_builds_strictly(tmp_path):
    """A broken link or anchor, a page left out of the navigation, a docstring the API
    reference cannot read: each is a warning (mkdocs.yml's validation), and --strict fails."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                            str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_the_docs_extra_is_locked():
    """`pip install -e ".[docs]" -c constraints.txt` installs the versions the site was built
    with: every package the extra names is pinned in the lock."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        docs = tomllib.load(file)["project"]["optional-dependencies"]["docs"]
    locked = pinned(ROOT / "constraints.txt")
    for requirement in docs:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower()
        assert name in locked, f"{name} (the docs extra) has no pin in constraints.txt"


def test_the_default_suite_runs_a_worker_a_core():
    """The 5-minute budget on 2 cores holds with a worker a core (one worker took 4:43 from a
    fresh clone): pytest-xdist is in the test extra, locked, and its lower bound pinned."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)
    assert "-n auto" in project["tool"]["pytest"]["ini_options"]["addopts"]
    assert any(r.startswith("pytest-xdist>=") and ",<" in r
               for r in project["project"]["optional-dependencies"]["test"])
    assert "pytest-xdist" in pinned(ROOT / "constraints.txt")
    assert "pytest-xdist" in pinned(ROOT / "constraints" / "lowest.txt")


def test_every_run_of_the_suite_names_its_slowest_tests_and_ends_a_hang():
    """Each pytest run of .ci/run prints the 25 slowest tests (where the 4-minute budget goes)
    and fails a test that hangs instead of waiting: both from pyproject's settings, which no
    command of .ci/run overrides; pytest-timeout is in the test extra, locked."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        project = tomllib.load(file)
    settings = project["tool"]["pytest"]["ini_options"]
    assert "--durations=25" in settings["addopts"].split()
    assert float(settings["timeout"]) > 0
    assert any(r.startswith("pytest-timeout>=") and ",<" in r
               for r in project["project"]["optional-dependencies"]["test"])
    assert "pytest-timeout" in pinned(ROOT / "constraints.txt")
    runs = [line for line in CI.read_text().splitlines()
            if "pytest" in line.split("#")[0] and "-m pytest" in line]
    assert runs, ".ci/run runs no pytest"
    for line in runs:
        assert not re.search(r"addopts|--durations|--timeout|-p no:timeout", line), line


def test_the_quick_start_solves(tmp_path):
    """The first line's command, run as the installed script would run it: exit 0, the
    verified drawing on stdout."""
    words = shlex.split(quick_start()[0].split("&&")[1])
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", *words[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "verified" in done.stdout and "+---" in done.stdout


def test_every_relative_link_of_the_readme_resolves():
    text = re.sub(r"^```.*?^```", "", README.read_text(), flags=re.S | re.M)
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and t[0] != "#"]
    assert local, "the README links to no page"
    broken = [t for t in local if not (ROOT / t).exists()]
    assert not broken, f"README.md links to missing files: {broken}"


def ci_slow_checks() -> list[str]:
    """The node ids of the `slow_checks=( ... )` array of .ci/run's last stage."""
    block = re.search(r"^slow_checks=\(\n(.*?)^\)", CI.read_text(), re.S | re.M)
    assert block, ".ci/run has no slow_checks=( ... ) array"
    return [word for line in block[1].splitlines() for word in shlex.split(line, comments=True)]


def test_every_test_ci_names_is_collected():
    """A renamed or removed test that .ci/run still names stops pytest before it runs anything
    (under xdist it says only "no tests ran", exit 5): every id of the slow stage must collect
    at least one slow test, every file pattern of the contract stages must match a file."""
    checks = ci_slow_checks()
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
         "-p", "no:cacheprovider", "-m", "slow", *checks],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    ids = [line for line in collected.stdout.splitlines() if "::" in line]
    empty = [check for check in checks
             if not any(i == check or i.startswith(check + ("::" if "::" not in check
                                                            else "[")) for i in ids)]
    assert not empty, f".ci/run's slow stage names tests that collect no slow test: {empty}"
    patterns = re.search(r'^contract_tests="(.*?)"', CI.read_text(), re.S | re.M)
    assert patterns, ".ci/run has no contract_tests list"
    unmatched = [p for p in patterns[1].split() if not list(ROOT.glob(p))]
    assert not unmatched, f".ci/run's contract stages name no such files: {unmatched}"
