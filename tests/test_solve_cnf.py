"""`solve-cnf`: any DIMACS file through the SAT door, read strictly and the model checked."""

from __future__ import annotations

import json

import pytest
from pysat.solvers import Solver

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import read_dimacs
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from ilp_pyramid.verify.cnf import unsatisfied

SMALL = "c three variables\np cnf 3 4\n1 2 0\n-1 3 0\n-2 -3\n0\n2 3 0\n"


def test_read_dimacs_takes_clauses_across_lines():
    cnf = read_dimacs(SMALL)
    assert cnf.num_variables == 3
    assert cnf.clauses == [[1, 2], [-1, 3], [-2, -3], [2, 3]]


@pytest.mark.parametrize("text, words", [
    ("1 2 0\n", "header"),
    ("1 0\np cnf 1 1\n", "before the 'p cnf' header"),
    ("p cnf 2 1\n1 3 0\n", "outside the header's 2 variables"),
    ("p cnf 2 2\n1 2 0\n", "declares 2 clauses, the file has 1"),
    ("p cnf 2 1\n1 2\n", "not ended by 0"),
    ("p cnf 2 1\n1 \u0662 0\n", "is not a literal"),   # an Arabic-Indic two: int() takes it
    ("p cnf 2 1\n1_0 0\n", "'1_0' is not a literal"),  # so does int("1_0")
    ("p cnf 2 1\n1 \xa0 0\n", r"'\\xa0' is not a literal"),  # a blank split() takes
    ("p cnf 2 1\n1 --2 0\n", "'--2' is not a literal"),
    ("p cnf x 1\n1 0\n", "not a variable count"),
    ("p cnf 2 1\np cnf 2 1\n1 0\n", "second 'p' header"),
])
def test_read_dimacs_names_what_is_wrong(text, words):
    with pytest.raises(InputError, match=words):
        read_dimacs(text)


def test_unsatisfied_finds_the_clause_a_model_breaks():
    clauses = [[1, 2], [-1, 3], [-2, -3]]
    assert unsatisfied(clauses, [1, -2, 3]) == []
    assert unsatisfied(clauses, [1, 2, 3]) == [2]
    assert unsatisfied(clauses, [-1]) == [0]  # 2 and 3 left out: false
    with pytest.raises(ValueError, match="both"):
        unsatisfied(clauses, [1, -1])


def test_solve_cnf_solves_an_exported_bel_cnf_and_the_certificate_reads_back(cli, tmp_path):
    cnf, cert = tmp_path / "b3.cnf", tmp_path / "b3.cert"
    assert cli("export", "3", "-o", cnf, "--strategy", "YStep").code == 0
    result = cli("solve-cnf", cnf, "--seed", "2", "--json", "-o", cert)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "solved" and data["seed"] == 2 and data["clauses"] > 1000
    assert cli("read-solution", cnf, cert).code == 0  # decoded and verified as a pyramid


def test_solve_cnf_exit_codes(cli, tmp_path):
    unsat = tmp_path / "u.cnf"
    unsat.write_text("p cnf 1 2\n1 0\n-1 0\n")
    result = cli("solve-cnf", unsat)
    assert result.code == 1 and result.out.startswith("s UNSATISFIABLE")
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 1 1\n2 0\n")
    result = cli("solve-cnf", bad)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1
    assert "outside" in result.err
    assert cli("solve-cnf", unsat, "--solver", "nosuch").code == 2


def test_counts_cnf_prunes_cells_by_unit_propagation():
    """A line fixed to label b rules out, by propagation alone, every cube without b at every
    cell of that line: what makes hinted instances (YStep) fast."""
    cnf = build_cnf(3)
    geo = cnf.pyramid
    line = geo.family_lines("Y")[2]
    label = 4
    with Solver(name="minisat22", bootstrap_with=cnf.formula.clauses) as engine:
        ok, implied = engine.propagate(assumptions=[cnf.line_var(line, label)])
    assert ok
    implied = set(implied)
    cells = [c for c, lines in enumerate(geo.cell_lines) if line in lines]
    ruled_out = [(c, k) for c in cells for k, cube in enumerate(geo.cubes) if label not in cube]
    assert cells and ruled_out
    assert all(-cnf.cell_var(c, k) in implied for c, k in ruled_out)
