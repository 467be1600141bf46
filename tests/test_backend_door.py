"""The backends' one door: capabilities on the table's lines, a line added at run time, the
lowering with its inverse, and the one forked child with its answer mapping (process.py)."""

from __future__ import annotations

import dataclasses
import os
import time

import pytest

from ilp_pyramid import backends
from ilp_pyramid.backends import lowering, process, sat, solvers
from ilp_pyramid.backends.base import CAPABILITIES, SolveOptions, Solver, Status
from ilp_pyramid.errors import InputError, SolverError

KNUTH = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]


def test_every_capability_is_a_yes_or_no_field_of_every_line():
    fields = {field.name for field in dataclasses.fields(Solver)}
    assert set(CAPABILITIES) <= fields and "seeds" in CAPABILITIES
    for entry in solvers.SOLVERS:
        assert all(isinstance(getattr(entry, name), bool) for name in CAPABILITIES)
    # what the callers ask instead of a family: threads, parameters by name, a budget
    assert set(solvers.names(can="threads")) == {"highs", "cbc", "gurobi", "cpsat"}
    assert solvers.names(can="parameters") == solvers.names("mip")
    assert "kissat404" not in solvers.names(can="budget") and "minisat22" in solvers.names(
        can="budget")
    assert solvers.names(can="orbitopes") == ["scip"]
    with pytest.raises(ValueError, match="no capability"):
        solvers.names(can="speed")


def test_a_line_says_what_python_sat_can_do_with_it():
    kissat, cadical3, cadical195 = (solvers.solver(n) for n in ("kissat", "cadical", "cadical195"))
    assert not (kissat.budget or kissat.sessions or kissat.assumptions or kissat.reuse)
    assert cadical3.budget and not cadical3.sessions  # its budget holds on one solve only
    assert cadical195.budget and cadical195.sessions and cadical195.reuse
    with pytest.raises(SolverError, match="conflict budget"):
        sat.SatSession([[1]], cadical3)
    with sat.SatSession([[1, 2], [-1]], cadical3, one_shot=True) as session:
        assert session.solve().status is Status.SOLVED


@pytest.fixture
def scratch_table(monkeypatch):
    """The table as it is, restored after the test (a registered line stays in it)."""
    monkeypatch.setattr(solvers, "SOLVERS", list(solvers.SOLVERS))
    monkeypatch.setattr(solvers, "_BY_NAME", dict(solvers._BY_NAME))


def test_a_line_registered_at_run_time_is_resolved_and_solves(scratch_table):
    line = solvers.register(Solver("mini", "sat", ("cnf",), "ilp_pyramid.backends.sat",
                                   plugin="minisat22", aliases=("m22",), budget=True))
    assert solvers.solver("mini") is line and solvers.solver("m22").name == "m22"
    assert "mini" in solvers.names("sat") and line.forms == ("cnf", "exact_cover")
    found = backends.solve([[1, 2], [-1]], "mini")
    assert found.solver == "mini" and found.model[:2] == [-1, 2]
    cover = backends.solve(backends.ExactCoverForm(KNUTH, 7), "m22")  # lowered to CNF
    assert cover.status is Status.SOLVED and sorted(cover.rows) == [0, 3, 4]
    with pytest.raises(InputError, match="does not take a wcnf"):
        backends.solve(lowering.to_wcnf(backends.ExactCoverForm(KNUTH, 7)), "mini")
    again = solvers.register(dataclasses.replace(line, aliases=(), plugin="glucose4"))
    assert solvers.solver("mini") is again and [s.name for s in solvers.SOLVERS].count("mini") == 1
    with pytest.raises(InputError, match="package's own"):
        solvers.register(dataclasses.replace(line, name="kissat", aliases=()))
    with pytest.raises(InputError, match="unknown family"):
        solvers.register(Solver("odd", "quantum", ("cnf",), "ilp_pyramid.backends.sat"))


@pytest.mark.parametrize("kind", lowering.TARGETS)
def test_each_lowering_has_an_inverse_back_to_rows(kind):
    form = backends.ExactCoverForm(KNUTH, 6, 1)
    lowered = lowering.lower(form, kind)
    assert lowered.kind == kind and backends.form_kind(lowered.form) == kind
    answer = backends.Result("any", Status.SOLVED, 0.0, model=[1, -2, -3, 4, 5, -6],
                             values={"x_0": 1.0, "x_3": 1.0, "x_4": 1.0})
    assert lowered.invert(answer).rows == [0, 3, 4]
    nothing = lowered.invert(backends.Result("any", Status.INFEASIBLE, 0.0))
    assert nothing.rows == []
    with pytest.raises(InputError):
        lowering.lower(form, "exact_cover")


def _send_then_wait(outcomes, seconds, send):
    for outcome in outcomes:
        send(outcome)
    time.sleep(seconds)


def _fail(send):
    raise RuntimeError("no such clause")


def _exit(send):
    os._exit(3)


@pytest.mark.parametrize(("work", "args", "status", "message"), [
    (_send_then_wait, ([(process.SOLVED, ([1, -2], 4))], 0), Status.SOLVED, ""),
    (_send_then_wait, ([(process.UNSAT, "no model")], 0), Status.INFEASIBLE, "no model"),
    (_send_then_wait, ([(process.MODEL, ([1], 5)), (process.MODEL, ([-1], 2))], 30),
     Status.FEASIBLE, "objective 2 found, optimality not proved within 0.5 s"),
    (_send_then_wait, ([], 30), Status.TIMEOUT, "no answer within 0.5 s; solver stopped"),
    (_fail, (), Status.ERROR, "RuntimeError: no such clause"),
    (_exit, (), Status.ERROR, "exited with code 3 without an answer"),
])
def test_the_forked_child_answers_as_one_result(work, args, status, message):
    start = time.perf_counter()
    result = process.solve_forked(work, args, "probe", SolveOptions(time_limit=0.5))
    # a child that sleeps on (30 s) is killed at the limit, not waited for
    assert time.perf_counter() - start < 30
    assert result.solver == "probe" and result.status is status and message in result.message
    if status is Status.FEASIBLE:
        assert result.model == [-1] and result.objective == 2  # the last, best model
    if status is Status.SOLVED:
        assert result.model == [1, -2] and result.objective == 4
