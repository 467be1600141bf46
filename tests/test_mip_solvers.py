"""SCIP and Gurobi as MIP backends: verified solutions, stdout kept for the package, their
settings passed through, a missing extra or an over-size model as bad input (exit 2).

SIGINT/SIGTERM on a long SCIP solve: tests/test_backend_interrupts.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pulp
import pytest

from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.verify.bel import verify_solution
from tests.proctools import signal_and_time

ROOT = Path(__file__).resolve().parents[1]
HAVE_SCIP = importlib.util.find_spec("pyscipopt") is not None
HAVE_GUROBI = importlib.util.find_spec("gurobipy") is not None
needs_scip = pytest.mark.skipif(not HAVE_SCIP, reason="pyscipopt not installed (extra: scip)")
needs_gurobi = pytest.mark.skipif(not HAVE_GUROBI,
                                  reason="gurobipy not installed (extra: gurobi)")


def run_solve(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", "solve", *args],
                          capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)


def verified(data: dict) -> bool:
    solution = parse_json(json.dumps(data))
    return solution.n == data["n"] and verify_solution(solution).valid


@needs_scip
@pytest.mark.parametrize("n", [2, 3])
def test_scip_solves_and_the_solution_verifies(cli, n):
    result = cli("solve", n, "--solver", "scip", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solver"] == "scip" and data["status"] == "solved" and verified(data)


@needs_scip
def test_scip_json_is_one_object_on_stdout_of_a_real_process():
    """SCIP writes through C stdio; nothing of it may reach fd 1 next to the JSON."""
    done = run_solve("2", "--solver", "scip", "--json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["status"] == "solved"
    assert done.stderr == ""


@needs_scip
def test_scip_verbose_log_goes_to_stderr():
    done = run_solve("2", "--solver", "scip", "--verbose")
    assert done.returncode == 0, done.stderr
    assert "presolving" in done.stderr and "SCIP Status" in done.stderr
    assert "presolving" not in done.stdout and "SCIP" not in done.stdout
    assert "verified" in done.stdout


@needs_scip
def test_scip_time_limit_without_a_solution_exits_3(cli):
    result = cli("solve", 4, "--solver", "scip", "--time-limit", "0.5", "--json")
    assert result.code == 3, result.err
    assert json.loads(result.out)["status"] == "timeout"


@needs_scip
def test_scip_gets_seed_time_limit_and_parameters():
    from ilp_pyramid.backends import scip

    problem = pulp.LpProblem("tiny", pulp.LpMinimize)
    x = problem.add_variable("x", cat=pulp.LpBinary)
    problem += x
    problem += x >= 1
    backend = scip.solver(SolveOptions(time_limit=7.5, seed=3, extra={
        "misc/usesymmetry": 0, "emphasis": "feasibility"}))
    problem.solve(backend)
    model = problem.solverModel
    assert model.getParam("randomization/randomseedshift") == 3
    assert model.getParam("limits/time") == 7.5
    assert model.getParam("misc/usesymmetry") == 0
    assert model.getParam("misc/catchctrlc") is False
    assert x.varValue == 1.0
    # The measured default (docs/mip.md): SCIP's CP emphasis, the LP off.
    problem.solve(scip.solver(SolveOptions()))
    assert problem.solverModel.getParam("lp/solvefreq") == -1
    # SCIP's "default" emphasis resets every parameter: the limit, seed and signal setting
    # must survive it.
    problem.solve(scip.solver(SolveOptions(time_limit=7.5, seed=3,
                                           extra={"emphasis": "default"})))
    model = problem.solverModel
    assert model.getParam("lp/solvefreq") == 1 and model.getParam("limits/time") == 7.5
    assert model.getParam("randomization/randomseedshift") == 3
    assert model.getParam("misc/catchctrlc") is False


@needs_scip
def test_scip_runs_its_measured_strategy_unless_told(cli):
    default = json.loads(cli("solve", 2, "--solver", "scip", "--json").out)
    assert default["strategies"] == ["LabelPermutationImportance"]
    plain = json.loads(cli("solve", 2, "--solver", "scip", "--strategy", "none", "--json").out)
    assert plain["strategies"] == [] and plain["status"] == "solved"


@needs_scip
@pytest.mark.parametrize("option", ["no/such/parameter=1", "emphasis=nonsense",
                                    "misc/usesymmetry"])
def test_a_bad_solver_option_is_bad_input(cli, option):
    result = cli("solve", 2, "--solver", "scip", "--solver-option", option)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err


@pytest.mark.parametrize("solver", ["scip", "gurobi"])
def test_a_missing_extra_is_bad_input_naming_it(cli, monkeypatch, solver):
    module = {"scip": "pyscipopt", "gurobi": "gurobipy"}[solver]
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    result = cli("solve", 2, "--solver", solver, "--json")
    assert result.code == 2 and result.out == ""
    assert f"pip install 'ilp-pyramid[{solver}]'" in result.err
    assert len(result.err.strip().splitlines()) == 1


@needs_gurobi
def test_gurobi_solves_n2_silently():
    done = run_solve("2", "--solver", "gurobi", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()  # no licence banner, no log
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["solver"] == "gurobi" and verified(data)


@needs_gurobi
def test_gurobi_over_the_size_limited_licence_is_bad_input():
    """N=4 has 7,624 variables: more than the pip package's licence takes (2,000)."""
    done = run_solve("4", "--solver", "gurobi", "--json")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "size-limited licence" in done.stderr and "7624 variables" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_help_lists_every_registered_mip_solver(cli):
    text = " ".join(cli("solve", "--help").out.split())
    assert " | ".join(solvers.names("mip")) in text


@needs_gurobi
def test_sigint_stops_gurobi_with_exit_130_and_one_line():
    """Gurobi catches SIGINT itself while it optimizes and prints on fd 1; the backend turns
    its "interrupted" into ours and keeps the print off stdout. N=3 takes Gurobi 2.5-3.6 s
    (seeds 0-2); the signal comes 1 s after the header."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", "solve", "3", "--solver",
                              "gurobi", "--seed", "2"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    try:
        assert b"Bel's Pyramid N=3" in child.stdout.readline()
        time.sleep(1.0)
        assert child.poll() is None, "the solve ended before the signal"
        code, took = signal_and_time(child, signal.SIGINT)
    finally:
        if child.poll() is None:
            child.kill()
    out, err = child.stdout.read().decode(), child.stderr.read().decode()
    assert code == 130 and took < 2.0, (code, took, err)
    assert out == "" and err.strip() == "error: interrupted"
