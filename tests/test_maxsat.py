"""The maxsat family (python-sat's RC2 on a weighted CNF) and the views puzzle as MaxSAT: the
backend keeps the contract (proved optimum, time limit, signals, quiet stdout), and its
optimum of the views is the MIP's and the branch and bound's."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal

import pytest
from pysat.formula import WCNF

from ilp_pyramid import backends, protocol
from ilp_pyramid.backends import process, solvers
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.puzzles.views.engine import solve_fast
from ilp_pyramid.puzzles.views.puzzle import PUZZLE as VIEWS
from tests.proctools import descendants, interrupted, left_alive

# Battery puzzles: solvable ones of 9 to 18 cubes, and unsolvable ones.
SOLVABLE = (157, 347177, 91, 472, 1126, 2073)
UNSOLVABLE = (0, 1, 2)


def wcnf(hard, soft=(), weights=None) -> WCNF:
    formula = WCNF()
    for clause in hard:
        formula.append(list(clause))
    for clause, weight in zip(soft, weights or [1] * len(soft), strict=True):
        formula.append(list(clause), weight=weight)
    return formula


def pigeonhole(holes: int) -> list[list[int]]:
    """holes + 1 pigeons in `holes` holes: unsatisfiable, and hard for resolution."""
    def var(p: int, h: int) -> int:
        return p * holes + h + 1

    clauses = [[var(p, h) for h in range(holes)] for p in range(holes + 1)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes)
                for p, q in itertools.combinations(range(holes + 1), 2)]
    return clauses


def brute_force(hard, soft, weights, nv) -> int | None:
    """The least broken soft weight over every assignment that keeps the hard clauses."""
    def holds(bits, clause):
        return any(bits[abs(lit) - 1] == (lit > 0) for lit in clause)

    best = None
    for bits in itertools.product((False, True), repeat=nv):
        if all(holds(bits, c) for c in hard):
            cost = sum(w for c, w in zip(soft, weights, strict=True) if not holds(bits, c))
            best = cost if best is None else min(best, cost)
    return best


def test_the_family_is_one_line_of_the_table():
    rc2 = solvers.solver("rc2")
    assert rc2.family == "maxsat" and rc2.family in solvers.FAMILIES
    assert rc2.forms == ("wcnf", "exact_cover") and rc2.installed and rc2.extra is None
    assert solvers.names("maxsat") == ["rc2"]
    assert "wcnf" in protocol.FORMS


def test_a_wcnf_is_its_own_form_kind():
    formula = wcnf([[1, 2]], [[-1]])
    assert backends.form_kind(formula) == "wcnf"
    assert backends.form_kind([[1, 2]]) == "cnf"  # plain clauses stay CNF
    assert backends.accepts("wcnf", "rc2") and not backends.accepts("wcnf", "highs")
    assert backends.accepts("wcnf", "kissat")  # by the SAT backend's linear search
    with pytest.raises(Exception, match="does not take a wcnf"):
        backends.solve(formula, "dlx")
    with pytest.raises(Exception, match="does not take a cnf"):
        backends.solve([[1]], "rc2")


@pytest.mark.parametrize("seed", range(8))
def test_rc2_finds_the_brute_force_optimum(seed):
    rng = random.Random(seed)
    nv = 8
    def clause(size):
        return [rng.choice((-1, 1)) * v for v in rng.sample(range(1, nv + 1), size)]
    hard = [clause(3) for _ in range(rng.randint(4, 14))]
    soft = [clause(rng.randint(1, 2)) for _ in range(12)]
    weights = [rng.randint(1, 5) for _ in soft]
    expected = brute_force(hard, soft, weights, nv)
    result = backends.solve(wcnf(hard, soft, weights), "rc2")
    if expected is None:
        assert result.status is Status.INFEASIBLE and not result.has_solution
        return
    assert result.status is Status.SOLVED and result.objective == expected
    true = {lit for lit in result.model if lit > 0}
    def holds(c):
        return any((lit > 0) == (abs(lit) in true) for lit in c)
    assert all(holds(c) for c in hard)
    assert sum(w for c, w in zip(soft, weights, strict=True) if not holds(c)) == expected


def test_an_exact_cover_through_rc2_answers_with_rows():
    knuth = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]
    found = backends.solve(backends.ExactCoverForm(knuth, 7), "rc2")
    assert found.status is Status.SOLVED and sorted(found.rows) == [0, 3, 4]
    none = backends.solve(backends.ExactCoverForm([[0], [0, 1]], 3), "rc2")
    assert none.status is Status.INFEASIBLE


def test_the_time_limit_stops_the_solve_and_its_child():
    before = descendants(os.getpid())
    result = backends.solve(wcnf(pigeonhole(11)), "rc2", SolveOptions(time_limit=0.5))
    # 12 pigeons in 11 holes: RC2 proves nothing in the half second; stopped, its child gone
    assert result.status is Status.TIMEOUT and not result.has_solution
    assert not left_alive(descendants(os.getpid()) - before)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_solve_and_its_child(signum):
    code, took, left = interrupted(
        lambda: backends.solve(wcnf(pigeonhole(11)), "rc2", SolveOptions(time_limit=60)), signum)
    assert code == 128 + signum
    assert took < 2.0  # from the signal
    assert not left


def test_progress_is_reported_while_it_runs(monkeypatch):
    seen = []
    # the wait on a solver child is the one in process.py (sat.py and maxsat.py share it)
    monkeypatch.setattr(process, "PROGRESS_EVERY", 0.1)
    result = backends.solve(wcnf(pigeonhole(11)), "rc2",
                            SolveOptions(time_limit=0.5, progress=seen.append))
    assert result.status is Status.TIMEOUT and seen and all("elapsed" in s for s in seen)


@pytest.mark.parametrize("verbose", [False, True])
def test_nothing_reaches_stdout(capfd, verbose):
    result = backends.solve(wcnf(pigeonhole(5), [[1], [2]]), "rc2",
                            SolveOptions(verbose=verbose))
    assert result.status is Status.INFEASIBLE
    out, err = capfd.readouterr()
    assert out == ""
    assert ("c " in err) is verbose  # RC2's own log goes to stderr when asked for


def test_the_views_wcnf_is_the_mip_as_clauses():
    views = VIEWS.instance(number=347177)
    mip = VIEWS.model(views, "mip")
    cover = VIEWS.model(views, "wcnf")
    assert cover.kind == "wcnf" and backends.form_kind(cover.form) == "wcnf"
    # one variable per cell the MIP has, one hard clause per covering row, one soft per cell
    assert cover.form.nv == mip.variables == len(cover.form.soft)
    assert len(cover.form.hard) == mip.constraints
    assert set(cover.form.wght) == {1} and all(c == [-(i + 1)]
                                              for i, c in enumerate(cover.form.soft))
    names = {v.name for v in mip.form.variables()}
    rows = {c.name: {v.name for v in c} for c in mip.form.constraints()}
    decoded = cover.decode(backends.base.Result("rc2", Status.SOLVED, 0.0,
                                                model=list(range(1, cover.form.nv + 1))))
    assert int(decoded.sum()) == len(names)  # every cell the MIP may use, decoded back
    assert sorted(len(r) for r in rows.values()) == sorted(len(c) for c in cover.form.hard)


@pytest.mark.parametrize("number", SOLVABLE)
def test_rc2_proves_the_optimum_of_the_mip_and_the_branch_and_bound(number):
    views = VIEWS.instance(number=number)
    by_rc2 = protocol.solve(VIEWS, views, "rc2")  # the after hook cross-checks as well
    by_mip = protocol.solve(VIEWS, views, "highs", after={"check": False})
    fast = solve_fast(views, 500_000)
    assert by_rc2.status is Status.SOLVED and by_rc2.form == "wcnf"
    assert by_rc2.keys["proved_by"] == "maxsat"
    assert by_rc2.backend.objective == int(by_rc2.solution.sum())
    assert fast.proved
    assert int(by_rc2.solution.sum()) == int(by_mip.solution.sum()) == fast.cubes
    assert VIEWS.verify(views, by_rc2.solution) == []


@pytest.mark.parametrize("number", UNSOLVABLE)
def test_unsolvable_views_are_infeasible_for_rc2_and_their_model_too(number):
    views = VIEWS.instance(number=number)
    result = protocol.solve(VIEWS, views, "rc2")
    assert result.status is Status.INFEASIBLE and result.detail.startswith("unsolvable views")
    with pytest.raises(protocol.Infeasible):
        VIEWS.model(views, "wcnf")
    # Asked for, the model of unsolvable views exists, and every solver finds it infeasible.
    cover = VIEWS.model(views, "wcnf", infeasible=True)
    assert backends.solve(cover.form, "rc2").status is Status.INFEASIBLE
    mip = VIEWS.model(views, "mip", infeasible=True)
    assert backends.solve(mip.form, "highs").status is Status.INFEASIBLE


def test_views_solve_with_rc2_on_the_command_line(cli):
    result = cli("views", "solve", "--number", "347177", "--solver", "rc2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert (data["status"], data["form"], data["cubes"], data["proved_by"]) == \
        ("solved", "wcnf", 18, "maxsat")
    text = cli("views", "solve", "--number", "157", "--solver", "rc2")
    assert text.code == 0 and "optimal, proved by MaxSAT (rc2)" in text.out
    unsolvable = cli("views", "solve", "--number", "0", "--solver", "rc2", "--json")
    assert unsolvable.code == 1 and json.loads(unsolvable.out)["status"] == "infeasible"
