"""The same Bel model from every door: `ilp-pyramid solve N --solver S` (a real process), the
Python API, the bench's run of that grid point and the workbench's engine for that solver
build one model for the same arguments, the solver's defaults (the puzzle's
`solver_defaults`) applied in `protocol.solve`; and the API without a solver runs the engine
`solve N` picks (auto.py's table), the hybrid search included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import ilp_pyramid
from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.bench.grid import puzzle_runs
from ilp_pyramid.puzzles.bel import auto
from ilp_pyramid.puzzles.bel.puzzle import SOLVER_DEFAULTS, model_options

N = 3
LIMIT = 0.2  # the model is built before the solve starts: its size needs no solution
# What a door's answer says of the model it built.
SHAPE = ("form", "variables", "constraints", "model_options", "strategies")
ENTRY_POINT = str(Path(sys.executable).parent / "ilp-pyramid")


def shape(data: dict) -> dict:
    return {key: data[key] for key in SHAPE}


def workbench_argv(solver: str) -> list[str]:
    pytest.importorskip("starlette")
    from ilp_pyramid.ui.pages.bel import solve_args

    return solve_args({"n": N, "engine": f"exact:{solver}", "time_limit": LIMIT})


def run_json(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def answer(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=120)
    assert process.returncode in (0, 3), err  # solved, or the time limit before a solution
    return json.loads(out)


@pytest.mark.parametrize("solver", [
    "highs", pytest.param("scip", marks=pytest.mark.skipif(
        not solvers.solver("scip").installed, reason="the scip extra is not installed"))])
def test_cli_api_bench_and_workbench_build_the_same_model(solver):
    doors = {
        "cli": [ENTRY_POINT, "solve", str(N), "--solver", solver, "--time-limit", f"{LIMIT:g}",
                "--json"],
        "bench": puzzle_runs("bel", [N], [solver], [], LIMIT, 1)[0].command(),
        "workbench": [sys.executable, "-m", "ilp_pyramid", *workbench_argv(solver)],
    }
    running = {door: run_json(argv) for door, argv in doors.items()}  # side by side
    api = ilp_pyramid.solve("bel", N, solver, {"time_limit": LIMIT, "seed": 0})
    built = {door: shape(answer(process)) for door, process in running.items()}
    built["api"] = shape(api.to_json())
    assert built["cli"] == built["bench"] == built["workbench"] == built["api"], built
    # ... and it is the model of the solver's defaults, not a plain one by chance.
    defaults = list(SOLVER_DEFAULTS[solver]["strategies"])
    assert built["api"]["strategies"] == defaults
    assert built["api"]["model_options"] == model_options("counts", defaults)
    plain = ilp_pyramid.puzzle("bel").model(N, "mip")
    assert built["api"]["constraints"] > plain.constraints


def test_given_options_override_the_solver_defaults_and_none_keeps_them():
    bel = ilp_pyramid.puzzle("bel")
    highs, kissat = solvers.solver("highs"), solvers.solver("kissat")
    defaults = dict(SOLVER_DEFAULTS["highs"])
    assert protocol.with_defaults(bel, highs, {}) == defaults
    assert protocol.with_defaults(bel, highs, {"strategies": None}) == defaults
    assert protocol.with_defaults(bel, highs, {"strategies": []}) == {"strategies": []}
    assert protocol.with_defaults(bel, highs, {"formulation": "rotations"}) == \
        {**defaults, "formulation": "rotations"}
    assert protocol.with_defaults(bel, kissat, {"card": None}) == {"card": None}
    plain = ilp_pyramid.solve(bel, 2, "highs", strategies=[])
    assert plain.solved and plain.model_options["strategy"] == "none"
    # The model itself, asked directly, has no solver: None is no strategy, as [] is.
    assert bel.model(2, "mip", strategies=None).options == bel.model(2, "mip").options


@pytest.mark.parametrize("n", [3, 4])
def test_the_api_without_a_solver_runs_the_engine_solve_n_picks(n):
    done = subprocess.run([ENTRY_POINT, "solve", str(n), "--json"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    for result in (ilp_pyramid.solve("bel", n), ilp_pyramid.solve("bel", n, "auto")):
        assert result.solved and ilp_pyramid.puzzle("bel").verify(n, result.solution) == []
        data = result.to_json()
        assert data["engine"] == cli["engine"] == auto.choose(n).name
        assert data["method"] == cli["method"] == "auto"
        assert shape(data) == shape(cli)
        assert isinstance(result.render("text"), str)


def test_a_model_option_without_a_solver_means_one_exact_solver_as_on_the_command_line():
    result = ilp_pyramid.solve("bel", 2, formulation="counts")
    assert result.solved and result.solver == protocol.DEFAULT_SOLVER
    assert "engine" not in result.to_json()


def test_the_api_hands_over_to_the_hybrid_search_as_solve_does(monkeypatch):
    # An engine under hypotheses that leave no labelling at N=3 (XStep + YStep, the spec):
    # its "infeasible" is no answer, and the table's hybrid search answers instead.
    monkeypatch.setitem(auto.CHOICES, N, "exact:kissat:XStep+YStep")
    monkeypatch.setitem(auto.FALLBACKS, N, "lns+dlx")
    result = ilp_pyramid.solve("bel", N, options={"seed": 0, "time_limit": 60})
    assert result.solved and ilp_pyramid.puzzle("bel").verify(N, result.solution) == []
    data = result.to_json()
    assert (data["solver"], data["form"], data["engine"]) == ("lns+dlx", "lns", "lns+dlx")
    assert data["ruled_out"] == {"engine": "exact:kissat:XStep+YStep",
                                 "hypotheses": ["XStep", "YStep"]}
    assert isinstance(result.render("text"), str)
