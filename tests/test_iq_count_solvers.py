"""`iq count --solver S`: the other solver families count the fillings Dancing Links counts.

CP-SAT by its own enumeration, python-sat's solvers by blocking clauses (`backends.
count_models`); the same fillings as DLX's, each verified; the CLI contract of `iq count`
(one JSON object, exit 3 with a partial count, exit 2 for a solver that cannot count,
signals within 2 s, no child left).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import signal

import pytest

from ilp_pyramid import backends
from ilp_pyramid.backends import ExactCoverForm, SolveOptions, Status, solvers
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.count import count_by_solver, count_solutions
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE
from tests.proctools import command, left_alive, live_children, signal_at_work

# One line of each family that enumerates outside Dancing Links: CP-SAT's own enumeration and
# a SAT solver blocking each filling (every line that says it counts: the small cover below).
FAMILY_SOLVERS = ["cpsat", "cadical195"]


def _enumerating() -> list[str]:
    return [name for name in solvers.names(installed=True, can="counts", aliases=False)
            if not solvers.solver(name).reads(solvers.EXACT_COVER)]


@pytest.fixture(scope="module")
def pyramid4_by_dlx() -> tuple[object, bytes]:
    instance = PUZZLE.instance("pyramid4")
    written = io.BytesIO()
    return count_solutions(instance, output=written), written.getvalue()


@pytest.mark.parametrize("solver", FAMILY_SOLVERS)
def test_a_family_counts_the_fillings_dlx_counts_the_same_ones(solver, pyramid4_by_dlx):
    dlx, dlx_lines = pyramid4_by_dlx
    written = io.BytesIO()
    report = count_by_solver(PUZZLE.instance("pyramid4"), solver, output=written)
    assert report.complete and report.solutions == dlx.solutions > 0
    assert report.distinct_up_to_symmetry == dlx.distinct_up_to_symmetry
    assert report.symmetric_solutions == dlx.symmetric_solutions
    assert report.division_exact == dlx.division_exact
    # Not only as many: the very same fillings, each once.
    lines = written.getvalue().splitlines()
    assert len(lines) == len(set(lines)) == report.solutions
    assert set(lines) == set(dlx_lines.splitlines())


def _brute_force(clauses: list[list[int]], num_vars: int, projection: int) -> set[tuple]:
    found = set()
    for values in itertools.product((False, True), repeat=num_vars):
        if all(any(values[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            found.add(values[:projection])
    return found


def test_blocking_clauses_count_models_projected_on_the_first_variables():
    # Variable 4 is free in two of the models of 1..3: projected, each of those counts once.
    clauses = [[1, 2, 3], [-1, -2], [-3, 4, 1], [-4, 2, 3]]
    expected = _brute_force(clauses, 4, 3)
    seen: list[tuple] = []
    result = backends.count_models(
        clauses, "cadical195", SolveOptions(),
        lambda true: seen.append(tuple(v in true for v in (1, 2, 3))), projection=3)
    assert result.complete and result.count == len(expected) == len(seen)
    assert set(seen) == expected


@pytest.mark.parametrize("solver", _enumerating())
def test_every_line_that_says_it_counts_counts_a_small_cover(solver):
    form = ExactCoverForm([[0, 1], [2], [0], [1, 2], [1], [0, 2]], num_primary=3)
    covers = set()
    for chosen in itertools.product((0, 1), repeat=len(form.rows)):
        items = sorted(i for r, on in enumerate(chosen) if on for i in form.rows[r])
        if items == [0, 1, 2]:
            covers.add(tuple(r for r, on in enumerate(chosen) if on))
    got: list[tuple] = []
    result = backends.count_covers(form, solver, SolveOptions(time_limit=60),
                                      lambda rows: got.append(tuple(sorted(rows))))
    assert result.status == Status.SOLVED and result.count == len(covers) == len(got)
    assert set(got) == covers


def test_dlx_and_a_one_solve_sat_line_do_not_enumerate_here():
    for name in ("dlx", "kissat"):
        with pytest.raises(InputError, match="does not enumerate"):
            backends.counting(name)
    with pytest.raises(InputError, match="whole assignments"):
        backends.count_models([[1, 2]], "cpsat", SolveOptions(), print, projection=1)


def test_cpsat_count_prints_one_json_object_from_a_real_process():
    run = command("iq", "count", "pyramid4", "--solver", "cpsat", "--json", timeout=120)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)  # the whole of stdout: one object, nothing a solver printed
    dlx = count_solutions(PUZZLE.instance("pyramid4"))
    assert data["solver"] == "cpsat" and data["status"] == "counted" and data["complete"]
    assert data["solutions"] == dlx.solutions
    assert data["distinct_up_to_symmetry"] == dlx.distinct_up_to_symmetry


@pytest.mark.parametrize("solver", ["cpsat", "cadical195"])
def test_time_limit_gives_exit_3_and_a_partial_count(cli, tmp_path, solver):
    out = tmp_path / "r.txt"
    result = cli("iq", "count", "triangle", "--solver", solver, "--time-limit", "0.5",
                 "-o", str(out), "--json")
    assert result.code == 3, result.err
    data = json.loads(result.out)
    assert data["status"] == "timeout" and data["complete"] is False
    assert data["solver"] == solver and data["solutions"] is None
    assert isinstance(data["partial_solutions"], int)
    assert list(tmp_path.iterdir()) == []  # neither the output nor its temp file
    text = cli("iq", "count", "triangle", "--solver", solver, "--time-limit", "0.3")
    assert text.code == 3 and "not the answer" in text.out and f"found by {solver}" in text.out


@pytest.mark.parametrize("args", [["--solver", "nosuch"], ["--solver", "kissat"],
                                  ["--solver", "highs"], ["--solver", "cpsat", "--jobs", "2"],
                                  ["--solver", "cadical", "--depth", "2"]])
def test_a_solver_that_cannot_count_is_bad_input_in_one_line(cli, args):
    if "--jobs" in args and (os.cpu_count() or 1) < 2:
        pytest.skip("--jobs is capped to the cores: 2 needs two")
    result = cli("iq", "count", "pyramid4", *args)
    assert result.code == 2
    assert result.err.startswith("error:") and len(result.err.strip().splitlines()) == 1
    assert result.out == ""


@pytest.mark.parametrize("solver, sig, code", [("cpsat", signal.SIGTERM, 143),
                                               ("cadical195", signal.SIGINT, 130)])
def test_a_signal_stops_a_solver_count_within_2_s_and_leaves_no_child(solver, sig, code):
    stopped = signal_at_work(["iq", "count", "triangle", "--solver", solver], sig,
                             lambda pid: bool(live_children(pid)), settle=0.3)
    assert stopped.code == code, stopped.err
    assert stopped.seconds < 2.0
    err = stopped.err.strip()
    assert err.startswith("error:") and len(err.splitlines()) == 1
    assert not left_alive(stopped.children)


@pytest.mark.parametrize("challenge", ["triangle_five_given.txt", "triangle_isolated.txt"])
@pytest.mark.parametrize("solver", FAMILY_SOLVERS)
def test_a_challenge_counts_as_dlx_counts_it_none_included(fixtures, solver, challenge):
    given = (fixtures / "iq" / challenge).read_text()
    instance = PUZZLE.instance("triangle", given)
    dlx = count_solutions(instance)
    report = count_by_solver(instance, solver)
    assert report.complete
    assert (report.solutions, report.distinct_up_to_symmetry, report.symmetries) == (
        dlx.solutions, dlx.distinct_up_to_symmetry, dlx.symmetries)
