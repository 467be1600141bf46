"""puzzles/bel/decompose.py: the decomposition by line family with clause feedback solves small
pyramids (verified by ilp_pyramid.verify), refutes a hypothesis set that leaves no solution
and names it, and every clause it starts from or learns holds in known solutions."""

from __future__ import annotations

import numpy as np
import pytest

from ilp_pyramid.backends import sat, solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from ilp_pyramid.puzzles.bel.decompose import (
    SOLVER,
    decompose,
    label_precedence,
    master_clauses,
    refutation_core,
)
from ilp_pyramid.puzzles.bel.lns.arrays import (
    FAMILY_CODE,
    arrays,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.lns.repair import repair
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution

KNOWN = {3: "n3-example.txt", 4: "n4-published.txt"}


def known(fixtures, n: int) -> np.ndarray:
    labels = solution_to_labels(parse_drawing((fixtures / "bel" / KNOWN[n]).read_text()))
    assert verify_solution(labels_to_solution(n, labels)).valid
    return labels


def xy_lines(n: int) -> list[int]:
    return [int(i) for i in np.flatnonzero(arrays(n).family != FAMILY_CODE["Z"])]


def renamed_by_first_use(labels: np.ndarray, order: list[int]) -> np.ndarray:
    """The labelling with its labels renamed 0, 1, ... in the order they first appear."""
    rank: dict[int, int] = {}
    for line in order:
        rank.setdefault(int(labels[line]), len(rank))
    for label in range(int(labels.max()) + 1):
        rank.setdefault(label, len(rank))
    return np.array([rank[int(v)] for v in labels], dtype=np.int32)


def satisfiable_with(clauses, assumptions) -> bool:
    with sat.SatSession(clauses, solvers.solver(SOLVER)) as session:
        return session.solve(assumptions).status == Status.SOLVED


@pytest.mark.parametrize("n,seed", [(1, 0), (2, 0), (2, 3), (3, 0), (3, 1), (3, 2)])
def test_small_pyramids_are_solved_and_verified(n, seed):
    result = decompose(n, seed=seed, cpu_limit=60)
    assert result.status == Status.SOLVED
    assert verify_solution(labels_to_solution(n, result.labels)).valid
    assert result.rounds == result.learnt + 1


@pytest.mark.parametrize("n", [3, 4])
def test_the_master_clauses_hold_in_a_known_solution(fixtures, n):
    labels = known(fixtures, n)
    cnf, xy = build_cnf(n), xy_lines(n)
    holds = [cnf.line_var(line, int(labels[line])) for line in xy]
    assert satisfiable_with(master_clauses(cnf, xy), holds)
    # the label order is broken for a renamed twin of the solution, not the solution itself
    twin = renamed_by_first_use(labels, xy)
    assert verify_solution(labels_to_solution(n, twin)).valid
    with_order = master_clauses(cnf, xy) + label_precedence(cnf, xy)
    assert satisfiable_with(with_order, [cnf.line_var(line, int(twin[line])) for line in xy])
    if not np.array_equal(twin, labels):
        assert not satisfiable_with(with_order, holds)


def test_learnt_clauses_hold_in_a_known_solution(fixtures):
    """Cores from random X-Y labellings with no Z cover: each is refuted, is a part of the
    labelling, and the clause it gives is true in the known solution and its renamings."""
    n = 3
    labels, a, xy = known(fixtures, n), arrays(n), xy_lines(n)
    cnf = build_cnf(n)
    rng = np.random.default_rng(7)
    images = [labels] + [rng.permutation(a.num_labels)[labels] for _ in range(20)]
    checked = 0
    with sat.SatSession(cnf.formula.clauses, solvers.solver(SOLVER)) as refuter:
        for _ in range(60):
            trial = labels.copy()
            trial[xy] = rng.integers(0, a.num_labels, size=len(xy))
            if repair(n, trial, "Z", "sat").status != Status.INFEASIBLE:
                continue
            assumed = [cnf.line_var(line, int(trial[line])) for line in xy]
            core = refutation_core(refuter, assumed)
            assert core and set(core) <= set(assumed)
            assert not satisfiable_with(cnf.formula.clauses, core)
            for image in images:
                shown = {cnf.line_var(line, int(image[line])) for line in xy}
                assert not set(core) <= shown  # the clause "not all of the core" holds
            checked += 1
    assert checked >= 20


def test_a_hypothesis_set_without_solution_is_refuted_and_named():
    n, a = 2, arrays(2)
    x_lines = [int(i) for i in np.flatnonzero(a.family == FAMILY_CODE["X"])]
    # every X line labelled 0: no cell can show the cube {1, 1, 1}
    result = decompose(n, hypotheses={line: 0 for line in x_lines}, cpu_limit=60)
    assert result.status == Status.INFEASIBLE and result.labels is None
    assert result.hypotheses_used and set(result.hypotheses_used) <= set(x_lines)


def test_a_hypothesis_set_with_a_solution_keeps_it(fixtures):
    n = 3
    labels, xy = known(fixtures, n), xy_lines(n)
    held = {line: int(labels[line]) for line in xy[:6]}
    result = decompose(n, hypotheses=held, cpu_limit=60)
    assert result.status == Status.SOLVED
    assert verify_solution(labels_to_solution(n, result.labels)).valid
    assert all(result.labels[line] == label for line, label in held.items())


def test_z_lines_are_no_hypothesis():
    z_line = int(np.flatnonzero(arrays(2).family == FAMILY_CODE["Z"])[0])
    with pytest.raises(ValueError, match="X and Y lines only"):
        decompose(2, hypotheses={z_line: 0})


def test_a_cpu_limit_stops_it_with_a_timeout():
    result = decompose(4, seed=1, cpu_limit=0.0)
    assert result.status == Status.TIMEOUT and result.labels is None
