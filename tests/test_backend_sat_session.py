"""backends.sat.SatSession: one incremental solver, assumptions, phases, a kept time limit."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from pysat.examples.genhard import PHP

from ilp_pyramid.backends import sat
from ilp_pyramid.backends.base import Status
from ilp_pyramid.backends.solvers import solver as entry
from ilp_pyramid.errors import SolverError
from tests.proctools import catches


def test_session_answers_under_assumptions_and_keeps_the_solver():
    clauses = [[1, 2], [-1, -2], [2, 3]]
    with sat.SatSession(clauses, entry("cadical195")) as session:
        result = session.solve([1])
        assert result.status == Status.SOLVED and result.model[:3] == [1, -2, 3]
        assert session.solve([1, 2]).status == Status.INFEASIBLE
        # the assumptions held for one call only
        assert session.solve([2], phases=[-3]).status == Status.SOLVED
        session.add_clause([-3])
        assert session.solve([1]).status == Status.INFEASIBLE


def test_core_of_an_infeasible_solve_is_the_assumptions_that_refute():
    clauses = [[-1, -2], [3, 4]]
    with sat.SatSession(clauses, entry("cadical195")) as session:
        assert session.solve([5, 1, -4, 2, 6]).status == Status.INFEASIBLE
        core = session.core()
        # 1 and 2 clash; 5, 6 and -4 have nothing to do with it
        assert sorted(core) == [1, 2]
        assert session.solve([-3, -4, 1]).status == Status.INFEASIBLE
        assert sorted(session.core()) == [-4, -3]


def test_session_keeps_the_time_limit_on_a_hard_instance():
    hard = PHP(10).clauses  # 11 pigeons, 10 holes: far beyond a second for CDCL
    with sat.SatSession(hard, entry("cadical195")) as session:
        start = time.process_time()
        result = session.solve(time_limit=0.3)
        assert result.status == Status.TIMEOUT
        # stopped at the limit, at most a slice later: counted in this process's CPU time,
        # which a loaded machine does not stretch as it does the wall clock
        assert time.process_time() - start < 2.0


def test_session_reads_its_time_limit_on_the_clock_it_is_given():
    # the conquest's cubes get CPU seconds (time.thread_time): a clock that has run past the
    # limit ends the solve after one slice, though the wall clock has hardly moved
    ticks = iter(range(0, 10**6, 1000))
    began = time.process_time()
    with sat.SatSession(PHP(10).clauses, entry("cadical195")) as session:
        result = session.solve(time_limit=30.0, clock=lambda: next(ticks))
    assert result.status == Status.TIMEOUT
    assert time.process_time() - began < 5.0  # CPU seconds: one slice, not the 30 s


def test_session_refuses_solvers_without_a_conflict_budget():
    with pytest.raises(SolverError, match="conflict budget"):
        sat.SatSession([[1]], entry("kissat"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_session_solve_within_two_seconds(signum):
    code = ("import sys\n"
            "from pysat.examples.genhard import PHP\n"
            "from ilp_pyramid.backends.sat import SatSession\n"
            "from ilp_pyramid.backends.solvers import solver\n"
            "from ilp_pyramid.errors import Interrupted\n"
            "session = SatSession(PHP(12).clauses, solver('cadical195'))\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    session.solve()\n"
            "except Interrupted as stop:\n"
            "    sys.exit(128 + stop.signum)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        # inside the solve: its handlers are in place (SIGTERM, which Python leaves alone)
        deadline = time.monotonic() + 60
        while not catches(child.pid, signal.SIGTERM):
            assert time.monotonic() < deadline and child.poll() is None, "never in the solve"
            time.sleep(0.02)
        child.send_signal(signum)
        sent = time.perf_counter()
        assert child.wait(timeout=10) == 128 + signum
        assert time.perf_counter() - sent < 2.0
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize("solver", ["cadical", "cadical195", "minisat22"])
def test_a_small_formula_is_solved_in_process_and_keeps_the_time_limit(solver, monkeypatch):
    """Below IN_PROCESS_CLAUSES `sat.solve` runs no child (a fork would fail here), answers
    as the child does, and a hard one still stops at its time limit."""
    import multiprocessing

    def no_child(*args, **kwargs):
        raise AssertionError("a child process was started")

    monkeypatch.setattr(multiprocessing, "get_context", no_child)
    from ilp_pyramid.backends.base import SolveOptions

    easy = [[1, 2], [-1, -2], [2, 3], [-3]]
    result = sat.solve(easy, entry(solver))
    assert result.status == Status.SOLVED and result.solver == solver
    assert result.model[:3] == [-1, 2, -3]  # the one model
    assert sat.solve(easy + [[1]], entry(solver)).status == Status.INFEASIBLE
    hard = PHP(10).clauses
    assert len(hard) <= sat.IN_PROCESS_CLAUSES
    start = time.process_time()
    seen: list[dict] = []
    result = sat.solve(hard, entry(solver), SolveOptions(time_limit=1.3, progress=seen.append))
    assert result.status == Status.TIMEOUT
    assert time.process_time() - start < 3.0  # in this process: its CPU time, not the wall's
    assert seen and seen[0]["elapsed"] >= 1.0  # the live line's callback, between slices


def test_kissat_keeps_its_child_process(monkeypatch):
    """Kissat cannot be sliced (a second solve on one Kissat aborts the process): even a
    small formula goes to a child."""
    import multiprocessing

    started: list[str] = []
    real = multiprocessing.get_context

    def counted(method):
        started.append(method)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", counted)
    result = sat.solve([[1, 2], [-1]], entry("kissat"))
    assert result.status == Status.SOLVED and started == ["fork"]
