"""The label symmetry declared as an orbitope (strategy LabelOrbitope): it reaches SCIP as a
constraint of SCIP's orbitope handler, the answer verifies, and a MIP backend that cannot
declare it refuses the model in one line instead of solving without it."""

from __future__ import annotations

import importlib.util

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends import solve as mip_solve  # the one door, for a PuLP problem
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.mip_model import orbitopes
from ilp_pyramid.puzzles.bel.model import build_model
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE as BEL
from ilp_pyramid.puzzles.bel.strategies import satisfied
from tests.test_strategies import labels_of

needs_scip = pytest.mark.skipif(importlib.util.find_spec("pyscipopt") is None,
                                reason="pyscipopt not installed (extra: scip)")


def test_the_model_declares_the_lines_by_labels_matrix_and_adds_no_row():
    plain, declared = build_model(2), build_model(2, strategies=["LabelOrbitope"])
    assert declared.problem.numConstraints() == plain.problem.numConstraints()
    [orbitope] = orbitopes(declared.problem)
    geo = declared.pyramid
    assert orbitope.kind == "partitioning"
    assert [[var.name for var in row] for row in orbitope.rows] == [
        [declared.line_vars[line, label].name for label in range(geo.num_labels)]
        for line in range(len(geo.lines))]
    assert orbitopes(plain.problem) == []


@needs_scip
def test_scip_gets_the_orbitope_constraint_and_the_answer_verifies():
    model = build_model(2, strategies=["LabelOrbitope"])
    result = mip_solve(model.problem, "scip", SolveOptions(time_limit=60, seed=0))
    assert result.status is Status.SOLVED
    handlers = [cons.getConshdlrName() for cons in model.problem.solverModel.getConss()]
    assert handlers.count("orbitope_pp") == 1
    solution = model.decode(result.values)
    assert BEL.verify(2, solution) == []
    assert satisfied(2, ["LabelOrbitope"], labels_of(solution))


@needs_scip
def test_solve_with_the_orbitope_through_the_protocol():
    result = protocol.solve(BEL, 2, "scip", SolveOptions(time_limit=60), strategies=[
        "LabelOrbitope"])
    assert result.status is Status.SOLVED and BEL.verify(2, result.solution) == []


def test_a_mip_backend_that_cannot_declare_it_refuses_in_one_line(cli):
    with pytest.raises(InputError, match="highs cannot take the orbitope"):
        protocol.solve(BEL, 2, "highs", SolveOptions(time_limit=60),
                       strategies=["LabelOrbitope"])
    result = cli("solve", 2, "--solver", "highs", "--strategy", "LabelOrbitope")
    assert result.code == 2
    assert "cannot take the orbitope" in result.err and len(result.err.strip().splitlines()) == 1


def test_sat_gets_the_same_symmetry_as_precedence_clauses():
    result = protocol.solve(BEL, 3, "cadical195", SolveOptions(time_limit=60),
                            strategies=["LabelOrbitope"])
    assert result.status is Status.SOLVED
    assert satisfied(3, ["LabelOrbitope"], labels_of(result.solution))
