"""backends.solve: one door for every form, the registry, CP-SAT's form, progress callbacks."""

from __future__ import annotations

import json

import pulp
import pytest

from ilp_pyramid import backends
from ilp_pyramid.backends import cbc, cpsat, highs, lowering, mip, process, sat, solvers
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.solvers import solver as entry
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from ilp_pyramid.puzzles.bel.model import build_model

# Knuth's exact-cover example: rows 0, 3 and 4 (numbered from 0) are its one solution.
KNUTH = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]


def test_one_door_dispatches_on_the_form():
    problem = pulp.LpProblem("tiny", pulp.LpMinimize)
    x = problem.add_variable("x", cat=pulp.LpBinary)
    problem += x
    problem += x >= 1
    assert backends.solve(problem, "highs").values == {"x": 1.0}
    assert backends.solve([[1, 2], [-1]], "kissat").model[:2] == [-1, 2]
    assert backends.solve(build_cnf(1).formula, "cadical").status == Status.SOLVED
    cover = backends.solve(backends.ExactCoverForm(KNUTH, 7), "dlx")
    assert cover.status == Status.SOLVED and sorted(cover.rows) == [0, 3, 4]
    none = backends.solve(backends.ExactCoverForm([[0], [0, 1]], 3), "dlx")
    assert none.status == Status.INFEASIBLE and not none.has_solution


@pytest.mark.parametrize(("form", "solver"), [
    ([[1]], "highs"), ([[1]], "dlx"), (cpsat.BoolModel(1, [[1]]), "kissat"),
    ("not a model", "highs")])
def test_a_form_the_solver_cannot_take_is_bad_input(form, solver):
    with pytest.raises(InputError):
        backends.solve(form, solver)


def test_the_solver_table_is_the_only_list_of_mip_solvers():
    assert solvers.names("mip") == ["highs", "cbc", "scip", "gurobi"]
    for name in solvers.names("mip"):
        line = backends.solver_of(name)
        assert backends.kind(name) == "mip" and backends.accepts("mip", name)
        assert line.plugin.rsplit(".", 1)[1] == name and line.backend == mip.__name__
    assert isinstance(highs.solver(SolveOptions()), highs.InterruptibleHiGHS)
    assert isinstance(cbc.solver(SolveOptions(seed=0)), cbc.OwnProcessCBC)


def test_status_is_one_vocabulary_that_prints_as_its_word():
    assert [str(s) for s in Status] == ["solved", "feasible", "infeasible", "timeout",
                                        "interrupted", "error"]
    assert json.dumps({"status": Status.INFEASIBLE}) == '{"status": "infeasible"}'


def test_bool_model_form():
    model = lowering.to_bool(backends.ExactCoverForm(KNUTH, 6, 1))
    assert model.num_vars == 6 and len(model.exactly_one) == 6
    assert model.linear == [([2, 5, 6], [1, 1, 1], "<=", 1)]  # item 6 is secondary
    named = cpsat.BoolModel()
    assert named.new_var("a") == 1 and named.new_var() == 2 and named.names == {1: "a"}
    with pytest.raises(ValueError):
        named.add_linear([1, 2], [1], "<=", 1)
    data = json.loads(json.dumps(model.to_json()))
    assert data["exactly_one"][0] == [2, 4]


def test_cpsat_answers_or_is_bad_input(cli):
    """Without OR-Tools, --solver cpsat is bad input (exit 2) naming the extra."""
    result = cli("solve", "2", "--solver", "cpsat", "--json")
    if not cpsat.available():
        assert result.code == 2 and "ilp-pyramid[cpsat]" in result.err
        with pytest.raises(InputError):
            backends.solve(cpsat.BoolModel(1, [[1]]), "cpsat")
        return
    assert result.code == 0 and json.loads(result.out)["status"] == "solved"
    found = backends.solve(backends.ExactCoverForm(KNUTH, 7), "cpsat")
    assert sorted(found.rows) == [0, 3, 4]


def test_in_process_sat_with_assumptions_and_phases():
    clauses = [[1, 2], [-1, -2]]
    kissat, cadical = entry("kissat"), entry("cadical")
    assert not kissat.assumptions and cadical.assumptions  # Kissat's as unit clauses
    for solver in (kissat, cadical):
        assert sat.solve_in_process(clauses, solver, assumptions=[1]).model[:2] == [1, -2]
        assert sat.solve_in_process(clauses, solver, assumptions=[1, 2]).status == \
            Status.INFEASIBLE
    assert sat.solve_in_process(clauses, cadical, phases=[-1, 2]).model[:2] == [-1, 2]


def _collect(monkeypatch, module) -> list[dict]:
    monkeypatch.setattr(module, "_PROGRESS_EVERY", 0.0)
    return []


def test_highs_reports_progress(monkeypatch):
    seen = _collect(monkeypatch, highs)
    result = mip.solve(build_model(3).problem, entry("highs"),  # a report every 0.1 s slice
                       SolveOptions(time_limit=0.4, threads=1, progress=seen.append))
    assert result.status in (Status.TIMEOUT, Status.SOLVED)
    assert seen and set(seen[-1]) == {"elapsed", "incumbent", "bound", "nodes"}
    assert seen[-1]["elapsed"] >= seen[0]["elapsed"] >= 0


def test_cbc_reports_progress_from_its_log(monkeypatch):
    seen = _collect(monkeypatch, cbc)
    mip.solve(build_model(3).problem, entry("cbc"),
              SolveOptions(time_limit=2.0, threads=1, progress=seen.append))
    assert seen and set(seen[-1]) == {"elapsed", "incumbent", "bound", "nodes"}


def test_sat_reports_elapsed(monkeypatch):
    seen: list[dict] = []
    # the wait on a solver child is the one in process.py (sat.py and maxsat.py share it)
    monkeypatch.setattr(process, "PROGRESS_EVERY", 0.1)
    sat.solve(build_cnf(4).formula.clauses, entry("cadical153"),
              SolveOptions(time_limit=0.5, progress=seen.append))
    assert len(seen) >= 2 and all(set(p) == {"elapsed"} for p in seen)


def test_the_status_document_lists_every_status_once():
    # backends/base.py cites docs/status.md for the vocabulary: the table must be Status.
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "status.md").read_text()
    assert re.findall(r"^\| `(\w+)`", text, re.MULTILINE) == [s.value for s in Status]
