"""SAT backends: names, answers, and a time limit kept by killing the child process."""

import os
import signal

import pytest

from ilp_pyramid import backends
from ilp_pyramid.backends import sat, solvers
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.solvers import solver as entry
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from tests.proctools import live_children


def test_names_and_aliases():
    names = solvers.names("sat", installed=True)
    for name in ("kissat", "cadical", "kissat404", "cadical195", "cadical153", "glucose4",
                 "maplechrono", "lingeling", "minisat22"):
        assert name in names and backends.kind(name) == "sat"
    assert entry("kissat").plugin == "kissat404"
    assert entry("cadical").plugin.startswith("cadical")
    assert backends.kind("highs") == "mip" and "highs" not in names
    with pytest.raises(InputError, match="unknown solver 'zchaff'"):
        entry("zchaff")
    with pytest.raises(SolverError, match="no python-sat solver"):
        sat.solve([[1]], entry("highs"))


@pytest.mark.parametrize("solver", ["kissat", "cadical", "cadical153", "glucose4", "minisat22"])
def test_sat_and_unsat_answers(solver):
    found = sat.solve([[1, 2], [-1], [2, 3]], entry(solver))
    assert found.status == Status.SOLVED and found.has_solution
    assert -1 in found.model and 2 in found.model
    refused = sat.solve([[1], [-1, 2], [-2]], entry(solver))
    assert refused.status == Status.INFEASIBLE and not refused.has_solution


def test_shuffled_clauses_keep_the_formula():
    clauses = build_cnf(2).formula.clauses
    again = sat.shuffled(clauses, 3)
    assert again is not clauses and again != clauses
    assert sorted(sorted(c) for c in again) == sorted(sorted(c) for c in clauses)
    assert sat.shuffled(clauses, None) is clauses and sat.shuffled(clauses, 0) is clauses
    result = sat.solve(clauses, entry("cadical"), SolveOptions(seed=5))
    assert result.status == Status.SOLVED


def test_time_limit_kills_the_solver():
    """cadical153 cannot be interrupted in-process; the child process is killed instead."""
    clauses = build_cnf(4).formula.clauses  # cadical153 needs ~10 s for N=4
    # Earlier tests may have left long-lived helpers (multiprocessing's resource tracker):
    # only children that appear during this solve count.
    before = live_children(os.getpid())
    result = sat.solve(clauses, entry("cadical153"), SolveOptions(time_limit=0.3))
    assert result.status == Status.TIMEOUT and not result.model
    assert "0.3 s" in result.message  # stopped by the limit, not after the solve
    assert not live_children(os.getpid()) - before


def _die(name, clauses, seed, send):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_solver_is_an_error_not_an_answer(monkeypatch):
    monkeypatch.setattr(sat, "_search", _die)
    result = sat.solve([[1]], entry("kissat"))
    assert result.status == Status.ERROR and not result.has_solution
    assert "killed by SIGKILL" in result.message


def test_cpsat_solves_or_says_what_to_install():
    """CP-SAT is optional (ilp-pyramid[cpsat]); either it answers or the user hears why not."""
    assert backends.kind("cpsat") == "cp" and backends.accepts("cnf", "cpsat")
    if not backends.solver_of("cpsat").installed:
        with pytest.raises(InputError, match=r"ilp-pyramid\[cpsat\]"):
            backends.solve([[1]], "cpsat")
        return
    cnf = build_cnf(2)
    result = backends.solve(cnf.formula.clauses, "cpsat",
                            SolveOptions(time_limit=60, threads=1, seed=1))
    assert result.status == Status.SOLVED
    from ilp_pyramid.verify.bel import verify_solution

    assert verify_solution(cnf.decode(result.model)).valid
