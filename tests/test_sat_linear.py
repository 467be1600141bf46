"""The SAT solvers on a weighted CNF (backends/linear.py): the SAT-UNSAT linear search proves
the brute-force optimum, answers `feasible` with its last model at the time limit, keeps the
signals and the child, and on the views proves the optimum of HiGHS and RC2."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys

import pytest

from ilp_pyramid import backends, protocol
from ilp_pyramid.backends import linear
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.views.puzzle import PUZZLE as VIEWS
from tests.proctools import descendants, interrupted, left_alive
from tests.test_maxsat import brute_force, pigeonhole, wcnf

SAT_SOLVERS = ("kissat", "cadical", "cadical195", "glucose4")


def holds(model, clause) -> bool:
    true = {lit for lit in model if lit > 0}
    return any((lit > 0) == (abs(lit) in true) for lit in clause)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("solver", SAT_SOLVERS)
def test_the_linear_search_finds_the_brute_force_optimum(solver, seed):
    rng = random.Random(seed)
    nv = 8

    def clause(size):
        return [rng.choice((-1, 1)) * v for v in rng.sample(range(1, nv + 1), size)]

    hard = [clause(3) for _ in range(rng.randint(4, 14))]
    soft = [clause(rng.randint(1, 2)) for _ in range(12)]  # units and longer clauses
    weight = 1 + seed % 3  # equal weights, not only 1
    weights = [weight] * len(soft)
    expected = brute_force(hard, soft, weights, nv)
    result = backends.solve(wcnf(hard, soft, weights), solver)
    if expected is None:
        assert result.status is Status.INFEASIBLE and not result.has_solution
        return
    assert result.status is Status.SOLVED and result.objective == expected
    assert all(holds(result.model, c) for c in hard)
    assert weight * sum(not holds(result.model, c) for c in soft) == expected
    assert max(abs(lit) for lit in result.model) <= nv  # no relaxation or totalizer variable


def test_unsatisfiable_hard_clauses_are_infeasible_and_no_soft_clause_costs_nothing():
    assert backends.solve(wcnf(pigeonhole(3), [[1]]), "kissat").status is Status.INFEASIBLE
    free = backends.solve(wcnf([[1, 2]], [[-1]]), "cadical")
    assert free.status is Status.SOLVED and free.objective == 0 and -1 in free.model
    none = backends.solve(wcnf([[1, 2]]), "kissat")
    assert none.status is Status.SOLVED and none.objective == 0


def test_unequal_weights_are_refused_in_one_line():
    with pytest.raises(InputError, match="equal weights") as caught:
        backends.solve(wcnf([[1, 2]], [[-1], [-2]], [1, 2]), "kissat")
    assert "\n" not in str(caught.value)
    assert linear.unit_weight([]) == 1 and linear.unit_weight([4, 4]) == 4


@pytest.mark.parametrize("solver", ["kissat", "cadical"])
def test_at_the_time_limit_the_last_model_is_feasible_with_its_broken_weight(solver):
    views = VIEWS.generate(10, seed=0)  # minutes for the linear search, a model at once
    model = VIEWS.model(views, "wcnf")
    before = descendants(os.getpid())
    result = backends.solve(model.form, solver, SolveOptions(time_limit=0.5))
    assert not left_alive(descendants(os.getpid()) - before)
    assert result.status is Status.FEASIBLE and "not proved" in result.message
    assert result.objective == sum(not holds(result.model, c) for c in model.form.soft)
    placement = model.decode(result)
    assert VIEWS.verify(views, placement) == []
    assert int(placement.sum()) == result.objective


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_search_and_its_child(signum):
    code, took, left = interrupted(
        lambda: backends.solve(wcnf(pigeonhole(11), [[1]]), "cadical195",
                               SolveOptions(time_limit=60)), signum)
    assert code == 128 + signum
    assert took < 2.0  # from the signal
    assert not left


@pytest.mark.parametrize("number", (157, 347177, 91))
def test_kissat_and_cadical_prove_the_optimum_of_highs_and_rc2(number):
    views = VIEWS.instance(number=number)
    counts = {}
    for solver in ("kissat", "cadical", "highs", "rc2"):
        result = protocol.solve(VIEWS, views, solver, after={"check": False})
        assert result.status is Status.SOLVED, (solver, result.detail)
        assert VIEWS.verify(views, result.solution) == []
        counts[solver] = int(result.solution.sum())
    assert len(set(counts.values())) == 1, counts


def test_unsolvable_views_are_infeasible_for_a_sat_solver_and_their_model_too():
    views = VIEWS.instance(number=0)
    result = protocol.solve(VIEWS, views, "kissat")
    assert result.status is Status.INFEASIBLE and result.detail.startswith("unsolvable views")
    cover = VIEWS.model(views, "wcnf", infeasible=True)
    assert backends.solve(cover.form, "cadical").status is Status.INFEASIBLE


def test_an_unproved_views_optimum_is_a_timeout_not_an_answer():
    result = protocol.solve(VIEWS, VIEWS.generate(10, seed=0), "cadical",
                            {"time_limit": 0.5})
    assert result.status is Status.TIMEOUT and result.solution is None
    assert result.detail.startswith("best found")


def test_views_solve_with_kissat_exits_0_with_one_json_object():
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "views", "solve", "--number",
                           "157", "--solver", "kissat", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    by_highs = protocol.solve(VIEWS, VIEWS.instance(number=157), "highs",
                              after={"check": False})
    assert data["status"] == "solved" and data["form"] == "wcnf"
    assert data["solver"] == "kissat" and data["proved_by"] == "maxsat"
    assert data["cubes"] == int(by_highs.solution.sum())
