"""The exact-cover form on every solver: one lowering (backends/lowering.py), one answer."""

from __future__ import annotations

import itertools

import pytest

from ilp_pyramid import backends
from ilp_pyramid.backends import cpsat, lowering, solvers
from ilp_pyramid.backends.base import SolveOptions, Status

# Items 0-3 primary, 4-6 secondary. Without the secondary items {0, 1}, {1, 3, 4} and
# {2, 3, 4} would be covers too; with them {0, 2} is the only one.
ROWS = [[0, 1, 4], [2, 3, 4, 6], [2, 3, 5], [0, 5, 6], [1]]
FEASIBLE = backends.ExactCoverForm(ROWS, num_primary=4, num_secondary=3)
# Without row 2 every primary item is still in some row, but no cover is left.
INFEASIBLE = backends.ExactCoverForm([r for i, r in enumerate(ROWS) if i != 2], 4, 3)
# Item 1 is in no row at all.
UNCOVERED = backends.ExactCoverForm([[0], [0, 2]], num_primary=2, num_secondary=1)


def _installed(solver: str) -> bool:
    if solver == "cpsat":
        return cpsat.available()
    if solver in solvers.names("mip"):
        try:
            backends.require(solver)
        except Exception:  # noqa: BLE001 - an optional extra (scip, gurobi) not installed
            return False
    return True


SOLVERS = [pytest.param(s, marks=pytest.mark.skipif(not _installed(s), reason=f"{s} missing"))
           for s in ("highs", "cbc", "scip", "kissat", "cadical", "cpsat", "dlx")]


def covers(form: backends.ExactCoverForm) -> list[tuple[int, ...]]:
    """Every exact cover, by brute force over all subsets of rows."""
    return [chosen for k in range(len(form.rows) + 1)
            for chosen in itertools.combinations(range(len(form.rows)), k)
            if is_cover(form, chosen)]


def is_cover(form: backends.ExactCoverForm, chosen) -> bool:
    count = [0] * form.num_items
    for r in chosen:
        for item in form.rows[r]:
            count[item] += 1
    return all(c == 1 for c in count[:form.num_primary]) and all(
        c <= 1 for c in count[form.num_primary:])


def test_the_forms_have_the_covers_the_tests_say():
    assert covers(FEASIBLE) == [(0, 2)]
    assert covers(INFEASIBLE) == covers(UNCOVERED) == []
    assert not INFEASIBLE.uncovered() and UNCOVERED.uncovered() == [1]


@pytest.mark.parametrize("solver", SOLVERS)
def test_every_solver_takes_the_exact_cover_form_and_gives_rows(solver):
    assert "exact_cover" in backends.forms_for(solver)
    found = backends.solve(FEASIBLE, solver, SolveOptions(time_limit=60))
    assert found.status == Status.SOLVED, found.message
    assert tuple(sorted(found.rows)) == (0, 2) and is_cover(FEASIBLE, found.rows)
    for form in (INFEASIBLE, UNCOVERED):
        none = backends.solve(form, solver, SolveOptions(time_limit=60))
        assert none.status == Status.INFEASIBLE and none.rows == [], (form, none.message)


def test_exact_cover_comes_after_each_solvers_native_form():
    assert backends.forms_for("highs") == ("mip", "exact_cover")
    assert backends.forms_for("kissat") == ("cnf", "wcnf", "exact_cover")
    assert backends.forms_for("cpsat")[-1] == "exact_cover"
    assert backends.forms_for("dlx") == ("exact_cover",)
    for solver in ("highs", "cbc", "kissat", "cadical", "cpsat", "dlx"):
        for form in ("mip", "cnf", "exact_cover", "bool"):
            assert backends.accepts(form, solver) == (form in backends.forms_for(solver))


@pytest.mark.parametrize("form", [FEASIBLE, INFEASIBLE, UNCOVERED])
def test_the_cnf_holds_exactly_the_covers(form):
    """For every choice of rows, the clauses (auxiliary variables free) are satisfiable
    exactly when the choice is a cover."""
    from pysat.solvers import Solver

    clauses = lowering.to_cnf(form)
    n = len(form.rows)
    with Solver(name="cadical195", bootstrap_with=clauses) as engine:
        for bits in itertools.product((False, True), repeat=n):
            chosen = [r for r in range(n) if bits[r]]
            assumed = [r + 1 if bits[r] else -(r + 1) for r in range(n)]
            assert engine.solve(assumptions=assumed) == is_cover(form, chosen), chosen


def test_the_mip_keeps_the_names_it_is_given():
    named = backends.ExactCoverForm(ROWS, 4, 3, row_names=[f"row_{c}" for c in "abcde"],
                                    item_names=[f"it_{i}" for i in range(7)], name="tiny")
    lowered = lowering.to_mip(named)
    assert lowered.problem.name == "tiny"
    assert [v.name for v in lowered.variables] == ["row_a", "row_b", "row_c", "row_d", "row_e"]
    assert lowered.problem.numConstraints() == 7
    senses = [lowered.problem.get_constraint_by_name(f"it_{i}").sense for i in range(7)]
    assert senses == [0, 0, 0, 0, -1, -1, -1]  # == 1 per primary item, <= 1 per secondary
    assert lowered.rows({"row_a": 1.0, "row_c": 1.0, "row_b": 0.0}) == [0, 2]
    plain = lowering.to_mip(FEASIBLE)
    assert [v.name for v in plain.variables][:2] == ["x_0", "x_1"]


def test_first_form_is_the_solvers_first_form_the_model_has():
    from ilp_pyramid.errors import InputError

    assert backends.first_form("cpsat", ("mip", "cnf")) == "cnf"
    assert backends.first_form("highs", ("exact_cover", "mip")) == "mip"
    assert backends.first_form("kissat", ("exact_cover",)) == "exact_cover"
    for solver in ("dlx", "xpress"):
        with pytest.raises(InputError):
            backends.first_form(solver, ("mip", "cnf"))


def test_no_puzzle_asks_which_family_a_solver_belongs_to():
    """Puzzles pick a form (forms_for, first_form, pick_form); the family questions are the
    bench's and the backends' own."""
    import ast
    from pathlib import Path

    import ilp_pyramid.puzzles

    asked = []
    for path in sorted(Path(ilp_pyramid.puzzles.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("backends", "sat"):
                names = [node.attr]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "ilp_pyramid.backends"):
                names = [alias.name for alias in node.names]
            asked += [f"{path.name}:{node.lineno} {name}" for name in names
                      if name in ("kind", "accepts", "is_sat_solver")]
    assert asked == []
