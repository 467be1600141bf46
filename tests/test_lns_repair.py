"""Whole-family repairs: each back-end re-labels a scrambled family of a known solution."""

from __future__ import annotations

import numpy as np
import pytest

from ilp_pyramid.backends import lowering, sat
from ilp_pyramid.backends.base import Result, Status
from ilp_pyramid.puzzles.bel.lns.arrays import (
    FAMILY_CODE,
    arrays,
    conflicts_of,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.lns.repair import (
    INFEASIBLE,
    REPAIRS,
    SOLVED,
    cover_problem,
    repair,
)
from ilp_pyramid.puzzles.bel.lns.search import random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution

SOLUTIONS = {4: "n4-published.txt", 5: "n5-lns.txt"}


def known(fixtures, n: int) -> np.ndarray:
    solution = parse_drawing((fixtures / "bel" / SOLUTIONS[n]).read_text())
    labels = solution_to_labels(solution)
    assert conflicts_of(n, labels) == 0
    return labels


def scrambled(n: int, labels: np.ndarray, family: str, count: int, seed: int) -> np.ndarray:
    """The solution with `count` lines of `family` given other labels: a near-solution."""
    a = arrays(n)
    rng = np.random.default_rng(seed)
    out = labels.copy()
    lines = rng.choice(np.flatnonzero(a.family == FAMILY_CODE[family]), count, replace=False)
    for line in lines:
        out[line] = (out[line] + 1 + rng.integers(a.num_labels - 1)) % a.num_labels
    assert conflicts_of(n, out) > 0
    return out


# HiGHS takes about 2 s on any N=5 cover (SCIP a tenth of that): N=5 with HiGHS, the same
# lowering as N=4 with HiGHS and N=5 with SCIP, is under `slow`.
@pytest.mark.parametrize(("n", "method"), [
    pytest.param(n, method, marks=[pytest.mark.slow] if (n, method) == (5, "mip") else [])
    for n in (4, 5) for method in REPAIRS])
def test_z_repair_returns_a_verified_solution(fixtures, n, method):
    near = scrambled(n, known(fixtures, n), "Z", count=8, seed=n)
    result = repair(n, near, "Z", method, time_limit=60)
    assert result.status == SOLVED, result.message
    solution = labels_to_solution(n, result.labels)
    assert verify_solution(solution).valid
    # only Z lines were touched
    a = arrays(n)
    keep = a.family != FAMILY_CODE["Z"]
    assert np.array_equal(result.labels[keep], near[keep])


@pytest.mark.parametrize("method", REPAIRS)
@pytest.mark.parametrize("family", ["X", "Y"])
def test_x_and_y_repairs(fixtures, family, method):
    near = scrambled(4, known(fixtures, 4), family, count=4, seed=11)
    result = repair(4, near, family, method, time_limit=60)
    assert result.status == SOLVED
    assert verify_solution(labels_to_solution(4, result.labels)).valid


def test_backends_agree_when_no_repair_exists():
    # random X and Y lines at N=4: no Z labelling completes them (all three must prove it)
    labels = random_labels(4, np.random.default_rng(5))
    statuses = {method: repair(4, labels, "Z", method, time_limit=60).status
                for method in REPAIRS}
    assert set(statuses.values()) == {INFEASIBLE}, statuses


def test_cover_problem_has_one_option_per_line_and_allowed_label(fixtures):
    labels = known(fixtures, 4)
    problem = cover_problem(4, labels, "Z")
    a = arrays(4)
    assert len(problem.free_lines) == int(np.sum(a.family == FAMILY_CODE["Z"])) == 49
    assert problem.num_cubes == 84
    for (pos, label), row in zip(problem.options, problem.rows, strict=True):
        line = problem.free_lines[pos]
        assert row[-1] == problem.num_cubes + pos
        assert len(row) == a.line_len[line] + 1
        assert len(set(row)) == len(row)
        assert 0 <= label < 7
    # the known solution's own Z labels are among the options
    chosen = {(problem.free_lines[pos], label) for pos, label in problem.options}
    assert all((line, labels[line]) in chosen for line in problem.free_lines)


def test_models_have_the_expected_size(fixtures):
    problem = cover_problem(4, known(fixtures, 4), "Z")
    lowered = lowering.to_mip(problem.form())
    assert len(lowered.variables) == len(problem.rows)
    assert lowered.problem.numConstraints() == problem.num_items
    assert lowered.variables[0].name.startswith("o_Z_")
    clauses = lowering.to_cnf(problem.form())
    assert all(clause for clause in clauses)


def test_a_solver_error_is_an_error_not_an_infeasible_cover(fixtures, monkeypatch):
    """A SAT solver that fails makes the repair `error` with the solver's message: the cover
    was not proved infeasible."""
    def broken(self, *args, **kwargs):
        return Result("minisat22", Status.ERROR, 0.0, message="the solver gave no answer")

    monkeypatch.setattr(sat.SatSession, "solve", broken)
    near = scrambled(4, known(fixtures, 4), "Z", count=8, seed=4)
    result = repair(4, near, "Z", "sat", time_limit=60)
    assert result.status == Status.ERROR and result.labels is None
    assert "no answer" in result.message


def test_a_sat_repair_keeps_its_time_limit(fixtures):
    """The SAT repair runs in this process, sliced: with no time left it answers `timeout`
    (never `infeasible`, which would be a proof)."""
    near = scrambled(4, known(fixtures, 4), "Z", count=8, seed=4)
    result = repair(4, near, "Z", "sat", time_limit=0.0)
    assert result.status == Status.TIMEOUT and result.labels is None
    assert repair(4, near, "Z", "sat", time_limit=60).status == Status.SOLVED
