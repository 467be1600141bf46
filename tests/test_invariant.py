"""Prescribed symmetry (puzzles/bel/invariant.py): the group, the counts, and SAT agreeing."""

from __future__ import annotations

import pytest

from ilp_pyramid.backends.sat import SatSession
from ilp_pyramid.backends.solvers import solver
from ilp_pyramid.puzzles.bel import invariant
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.symmetry import group_order
from ilp_pyramid.verify.bel import verify_solution


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_closure_of_the_generators_is_the_group_and_its_classes_partition_it(n):
    elements = invariant.group_elements(n)
    assert len(elements) == group_order(n)
    assert len({e.tobytes() for e in elements}) == len(elements)
    classes = invariant.conjugacy_classes(n)
    assert sum(len(c) for c in classes) == group_order(n)
    assert len({e.tobytes() for c in classes for e in c}) == group_order(n)


def test_a_permutation_of_each_cycle_type():
    assert sorted(invariant.partitions(4)) == [(1, 1, 1, 1), (2, 1, 1), (2, 2), (3, 1), (4,)]
    for parts in invariant.partitions(7):
        assert invariant.cycle_type(list(invariant.permutation_of_type(parts))) == parts


def _solve(n, cnf, pair, seconds=30):
    session = SatSession(cnf.formula.clauses + invariant.invariant_clauses(n, cnf, pair),
                         solver("cadical195"), one_shot=True)
    try:
        return session.solve((), seconds)
    finally:
        session.close()


def _sound(n):
    """Every pair the counts rule out is UNSAT; what passes them at N<=3 has an invariant
    solution, which the independent checker accepts."""
    cnf = build_cnf(n)
    passed = []
    for pair in invariant.pairs(n):
        if not pair.fixed_cells_ok:
            answer = _solve(n, cnf, pair)
            assert str(answer.status) == "infeasible", invariant.describe(n, pair)
            continue
        passed.append(pair)
        if n <= 3:
            answer = _solve(n, cnf, pair)
            assert answer.has_solution
            solution = cnf.decode(answer.model)
            assert verify_solution(solution).valid
            true = {v for v in answer.model if v > 0}
            lines = len(pyramid(n).lines)
            labels = [next(a for a in range(len(pair.sigma)) if cnf.line_var(i, a) in true)
                      for i in range(lines)]
            # the labelling is invariant: label(g(l)) = sigma(label(l))
            assert all(pair.sigma[labels[i]] == labels[int(pair.g[i])] for i in range(lines))
    return passed


def test_at_n3_the_counts_leave_only_the_top_swap_and_it_has_an_invariant_solution():
    passed = _sound(3)
    assert [invariant.describe(3, p)["g_moves"] for p in passed] == [{"X": 1, "Y": 1}]
    assert passed[0].cycle_type == (1,) * 5


def test_at_n4_every_pair_the_counts_rule_out_is_unsat():
    passed = _sound(4)
    assert len(passed) == 3
