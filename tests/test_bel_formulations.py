"""The counts variants measured in docs/mip.md: multiplicity rows on the y side (counts-mult)
keep every solution and cut what the counts link lets through; SOS1 declarations
(counts-sos1) reach SCIP as SOS1 constraints."""

from __future__ import annotations

import importlib.util
import json

import pulp
import pytest

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.model import build_model, line_var_name
from ilp_pyramid.puzzles.bel.solution import parse_drawing, parse_json
from ilp_pyramid.verify.bel import verify_solution


def assign(model, solution) -> None:
    """Set every x and y of `model` to the values of a known solution."""
    geo = pyramid(solution.n)
    labels = [solution.label(line.family, line.a, line.b) for line in geo.lines]
    values = {v.name: 0.0 for v in model.problem.variables()}
    for i, line in enumerate(geo.lines):
        values[line_var_name(line.name, labels[i])] = 1.0
    for c, lines in enumerate(geo.cell_lines):
        cube = tuple(sorted(labels[i] for i in lines))
        values[f"y_c{c}_k{geo.cube_index[cube]}"] = 1.0
    for var in model.problem.variables():
        var.varValue = values[var.name]


@pytest.mark.parametrize("name", ["n3-example.txt", "n4-published.txt"])
def test_multiplicity_rows_keep_known_solutions(fixtures, name):
    solution = parse_drawing((fixtures / "bel" / name).read_text())
    model = build_model(solution.n, "counts-mult")
    assign(model, solution)
    geo = pyramid(solution.n)
    mult = [c for c in model.problem.constraints() if c.name.startswith("mult_")]
    assert len(mult) == 4 * len(geo.cells) * geo.num_labels
    assert model.problem.valid()


def test_multiplicity_rows_cut_a_point_the_counts_link_allows():
    """Cell 0 with label 0 on its X and Y lines and, fractionally, 2/3 of cube (0,0,0) and
    1/3 of a cube without 0: the link row for label 0 holds (2 = 3 * 2/3); the XY row
    needs a cube with 0 at least twice at weight 1."""
    geo = pyramid(2)
    counts, mult = build_model(2, "counts"), build_model(2, "counts-mult")
    x_line, y_line, z_line = geo.cell_lines[0]
    triple, other = geo.cube_index[(0, 0, 0)], geo.cube_index[(1, 1, 2)]
    point = {line_var_name(geo.lines[x_line].name, 0): 1.0,
             line_var_name(geo.lines[y_line].name, 0): 1.0,
             line_var_name(geo.lines[z_line].name, 1): 1.0,
             f"y_c0_k{triple}": 2 / 3, f"y_c0_k{other}": 1 / 3}
    for model in (counts, mult):
        for var in model.problem.variables():
            var.varValue = point.get(var.name, 0.0)
    def violated(model, prefix):
        return [row.name for row in model.problem.constraints()
                if row.name.startswith(prefix) and not row.valid(1e-9)]
    assert not violated(counts, "link_c0_l0") and not violated(mult, "link_c0_l0")
    assert violated(mult, "mult_c0_l0_XY")


def test_sos1_groups_are_the_one_of_k_rows():
    model = build_model(2, "counts-sos1")
    geo = pyramid(2)
    assert len(model.problem.sos1) == len(geo.lines) + len(geo.cells) + len(geo.cubes)
    assert all(len(group) in (geo.num_labels, len(geo.cubes), len(geo.cells))
               for group in model.problem.sos1.values())


@pytest.mark.skipif(importlib.util.find_spec("pyscipopt") is None,
                    reason="pyscipopt not installed (extra: scip)")
def test_scip_gets_the_sos1_sets(cli):
    from ilp_pyramid import backends

    model = build_model(2, "counts-sos1")
    assert backends.solve(model.problem, "scip").status == "solved"
    kinds = [c.getConshdlrName() for c in model.problem.solverModel.getConss(False)]
    assert kinds.count("SOS1") == len(model.problem.sos1)
    result = cli("solve", 2, "--solver", "scip", "--formulation", "counts-sos1", "--json")
    assert result.code == 0 and json.loads(result.out)["formulation"] == "counts-sos1"


def test_highs_solves_counts_mult(cli):
    result = cli("solve", 2, "--formulation", "counts-mult", "--json")
    assert result.code == 0 and json.loads(result.out)["status"] == "solved"
    assert isinstance(build_model(1, "counts-mult").problem, pulp.LpProblem)


@pytest.mark.parametrize("n", [2, 3])
def test_the_uniform_point_satisfies_every_row(n):
    """Why the LP says nothing (docs/mip.md): x = 1/L on every line and y = 1/C on every
    cell-cube pair satisfy every row of counts and of counts-mult, so the root LP of a
    feasibility model has its optimum (0) at a point that decides nothing."""
    geo = pyramid(n)
    for formulation in ("counts", "counts-mult"):
        model = build_model(n, formulation)
        for var in model.problem.variables():
            var.varValue = 1 / geo.num_labels if var.name.startswith("x_") \
                else 1 / len(geo.cubes) if var.name.startswith("y_") else 0.0
        assert all(row.valid(1e-9) for row in model.problem.constraints()), formulation


@pytest.mark.skipif(importlib.util.find_spec("pyscipopt") is None,
                    reason="pyscipopt not installed (extra: scip)")
def test_scip_repairs_in_the_hybrid_search(cli):
    result = cli("solve", 3, "--method", "lns", "--repair", "scip", "--seed", 0, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solver"] == "lns+scip" and data["status"] == "solved"
    solution = parse_json(result.out)
    assert verify_solution(solution).valid
