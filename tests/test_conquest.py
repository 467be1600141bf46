"""`conquer N --strategy A+B --record DIR`: the whole puzzle cube-and-conquered under named
hypotheses: the cubes against the plain solve, the record a rerun goes on from, a real Dask
scheduler with two workers, and refutations checked by drat-trim or, without it, by the own
DRUP checker (a corrupted proof must be rejected)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from ilp_pyramid.backends import drat
from ilp_pyramid.puzzles.bel.hunt.conquer import (
    SAT,
    SPLIT,
    UNSAT,
    Conqueror,
    Hypotheses,
    Record,
    chosen_for_proof,
    settle_cube,
)
from ilp_pyramid.puzzles.bel.hunt.state import SOLUTION_FILE
from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.puzzles.bel.strategies import satisfied
from ilp_pyramid.verify.bel import verify_solution
from tests.conftest import SHARED_DASK
from tests.proctools import command, left_alive, record_lines, signal_at_work

# Found by trying: ConstructiveDiagonal with XStep leaves N=3 no solution (CaDiCaL refutes it
# at once; split by propagation alone, it is a tree of some 70 cubes); LabelPermutation alone
# keeps one (a symmetry strategy).
NO_SOLUTION = ("ConstructiveDiagonal", "XStep")
HAS_SOLUTION = ("LabelPermutation",)


@pytest.fixture(params=["drat-trim", drat.OWN_CHECKER])
def proof_checker(request) -> str:
    """Each checker in turn: drat-trim where it is built, the own one with drat-trim hidden."""
    if request.param == "drat-trim":
        if drat.checker() is None:
            pytest.skip("drat-trim is not installed (docs/frontier.md)")
    else:
        request.getfixturevalue("no_drat_trim")
    return request.param


def conquer_command(*args: object) -> subprocess.CompletedProcess:
    """A real process: the Dask cluster's start sets thread variables in its client's
    environment, which must not leak into the test process."""
    return command("conquer", *args)


def settle_all(problem: Hypotheses, record: Record, cube_time: float,
               stop_after: int | None = None, proofs: float = 0.0) -> str:
    done = 0
    while (left := record.open_cubes()) and (stop_after is None or done < stop_after):
        row = settle_cube(problem, left[0], cube_time, chosen_for_proof(left[0], proofs))
        record.add(row)
        done += 1
        if row["status"] == SAT:
            return SAT
    return UNSAT if not record.open_cubes() else "open"


def plain_solve(n: int, strategies: tuple[str, ...]) -> bool:
    from ilp_pyramid.backends import solvers
    from ilp_pyramid.backends.sat import SatSession
    from ilp_pyramid.puzzles.bel.cnf import build_cnf

    cnf = build_cnf(n, strategies=strategies)
    with SatSession(cnf.formula.clauses, solvers.solver("cadical195")) as session:
        return session.solve().status.value == "solved"


def test_both_hypothesis_sets_of_the_tests_answer_as_they_claim():
    assert not plain_solve(3, NO_SOLUTION) and plain_solve(3, HAS_SOLUTION)


def test_a_cube_found_sat_is_a_solution_under_the_strategies(tmp_path):
    problem = Hypotheses(3, HAS_SOLUTION)
    record = Record.open(tmp_path, problem)
    assert settle_all(problem, record, 0.05) == SAT
    labels = record.solution()
    assert verify_solution(labels_to_solution(3, labels)).valid
    assert satisfied(3, list(HAS_SOLUTION), [int(x) for x in labels])


def test_split_to_the_bottom_every_cube_is_refuted_and_a_rerun_goes_on_from_the_record(
        tmp_path):
    """Cube time 0: every cube splits, so the lookahead's refutations and the record decide,
    and must agree with the plain solve; a rerun settles no cube twice."""
    problem = Hypotheses(3, NO_SOLUTION)
    first = Record.open(tmp_path, problem)
    assert settle_all(problem, first, 0.0, stop_after=3) == "open"
    settled = set(first.settled)
    again = Record.open(tmp_path, problem)
    assert set(again.settled) == settled and again.open_cubes() == first.open_cubes()
    assert not set(again.open_cubes()) & settled
    assert settle_all(problem, again, 0.0) == UNSAT
    assert all(row["status"] == SPLIT for row in again.settled.values())
    assert len(again.settled) > 3
    assert 0.0 < first.refuted_measure() < again.refuted_measure() == pytest.approx(1.0)
    lines = again.path.read_text().splitlines()
    assert len(lines) == 1 + len(again.settled)  # the problem, then each cube once


def test_proof_sampling_is_decided_by_the_cube_alone():
    cubes = [((line, label),) for line in range(20) for label in range(5)]
    some = [cube for cube in cubes if chosen_for_proof(cube, 0.5)]
    assert 0 < len(some) < len(cubes)
    assert some == [cube for cube in cubes if chosen_for_proof(cube, 0.5)]
    assert all(chosen_for_proof(cube, 1.0) for cube in cubes)
    assert not any(chosen_for_proof(cube, 0.0) for cube in cubes)


def test_a_refuted_cubes_proof_is_verified_and_a_corrupted_one_rejected(proof_checker):
    problem = Hypotheses(3, NO_SOLUTION)
    conqueror = Conqueror(problem)
    try:
        row = conqueror.settle((), None, proof=True)
    finally:
        conqueror.close()
    assert row["status"] == UNSAT
    assert row["proof"]["checker"] == proof_checker and row["proof"]["verdict"] == drat.VERIFIED
    clauses = conqueror.form.clauses
    proof = drat.refutation(clauses, [])
    assert proof and drat.check(clauses, [], proof) == drat.VERIFIED
    # the proof without its last lemmas (the empty clause among them) proves nothing
    assert drat.check(clauses, [], proof[: len(proof) // 2]).startswith(drat.REJECTED)
    # a satisfiable formula has no refutation to check
    assert drat.refutation(Conqueror(Hypotheses(3, HAS_SOLUTION)).form.clauses, []) is None


def test_conquer_command_refutes_every_cube_naming_the_hypotheses(tmp_path, no_drat_trim):
    # the command as on a machine without drat-trim: the own checker judges every proof
    result = conquer_command(3, "--strategy", "+".join(NO_SOLUTION), "--record", tmp_path,
                             "--cube-time", 5, "--check-proofs", 1, "--jobs", 1, "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "unsat" and report["open_cubes"] == 0
    assert report["verdict"] == ("no solution under ConstructiveDiagonal+XStep: every cube "
                                 "refuted")
    assert report["proofs_checked"] >= 1
    assert report["proofs_verified"] == report["proofs_checked"]
    rows = [json.loads(line) for line in Path(report["record"]).read_text().splitlines()[1:]]
    checked = [row for row in rows if "proof" in row]
    assert len(checked) == report["proofs_checked"]
    assert all(row["status"] == UNSAT and row["proof"]["verdict"] == "verified"
               and row["proof"]["checker"] == drat.OWN_CHECKER for row in checked)
    assert "cube(s) settled" in result.stderr and "CPU hours" in result.stderr


def test_conquer_command_solves_saves_and_draws_then_a_rerun_reads_the_record(tmp_path):
    out = tmp_path / "drawing.txt"
    result = conquer_command(3, "--strategy", "+".join(HAS_SOLUTION), "--record", tmp_path,
                             "--cube-time", 1, "--jobs", 1, "-o", out)
    assert result.returncode == 0, result.stderr
    assert "solved under LabelPermutation: verified" in result.stdout
    saved = (tmp_path / SOLUTION_FILE).read_text()
    assert verify_solution(parse_drawing(saved)).valid and out.read_text() == saved
    assert saved in result.stdout
    again = conquer_command(3, "--strategy", "+".join(HAS_SOLUTION), "--record", tmp_path,
                            "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["cubes_this_run"] == 0


def seeded_record(record_dir: Path, problem: Hypotheses, cubes: int = 3) -> Record:
    """A record with `cubes` cubes settled here (cube time 0: each split by propagation):
    the state a run stopped at its limit leaves, made without a race against a clock."""
    record = Record.open(record_dir, problem)
    assert settle_all(problem, record, 0.0, stop_after=cubes) == "open"
    return record


def kept_once_and_grown_from(record_dir: Path, problem: Hypotheses, before: dict,
                             open_before: list) -> Record:
    """The record after a run: every cube settled before kept as it was, each new one at or
    under a cube that was open (a rerun goes on, never starts over), every cube on one line."""
    record = Record.open(record_dir, problem)
    assert all(record.settled[cube] == row for cube, row in before.items())
    assert all(any(cube[:len(root)] == root for root in open_before)
               for cube in set(record.settled) - set(before))
    assert len(record.path.read_text().splitlines()) == 1 + len(record.settled)
    return record


def test_conquer_command_at_the_time_limit_exits_3_and_a_rerun_goes_on(tmp_path):
    """A run goes on from the record and stops at its limit with cubes open (N=4's tree
    outlasts it). How many cubes a second of wall time settles is up to the machine's load
    (none, when the cluster's start takes it all), so the run is checked by the state it read
    and left, not by a count of its progress."""
    problem = Hypotheses(4, NO_SOLUTION)
    record = seeded_record(tmp_path, problem)
    before, open_before = dict(record.settled), record.open_cubes()
    run = conquer_command(4, "--strategy", problem.name, "--record", tmp_path,
                          "--cube-time", 0, "--jobs", 1, "--time-limit", 1, "--json")
    assert run.returncode == 3, run.stderr
    report = json.loads(run.stdout)
    assert report["status"] == "timeout" and report["open_cubes"] > 0
    progress = [line for line in run.stderr.splitlines() if "cube(s) settled" in line]
    assert progress[0].startswith(f"{len(before)} cube(s) settled"), run.stderr
    assert f" {len(open_before)} open, " in progress[0] and "CPU hours" in progress[-1]
    record = kept_once_and_grown_from(tmp_path, problem, before, open_before)
    assert len(record.settled) == len(before) + report["cubes_this_run"]
    assert report["open_cubes"] == len(record.open_cubes())


def test_conquer_command_goes_on_from_a_record_to_the_end(tmp_path):
    """The rerun's progress without a clock: from a record left with cubes open, a run
    without a limit settles exactly the rest."""
    problem = Hypotheses(3, NO_SOLUTION)
    seeded = seeded_record(tmp_path, problem)
    before, open_before = dict(seeded.settled), seeded.open_cubes()
    run = conquer_command(3, "--strategy", problem.name, "--record", tmp_path,
                          "--cube-time", 5, "--jobs", 1, "--json")
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["status"] == "unsat" and report["open_cubes"] == 0
    record = kept_once_and_grown_from(tmp_path, problem, before, open_before)
    assert report["cubes_this_run"] == len(record.settled) - len(before) >= len(open_before)
    assert record.refuted_measure() == pytest.approx(1.0)


def test_conquer_command_input_errors(cli, tmp_path):
    bad = cli("conquer", 3, "--strategy", "NoSuchThing", "--record", tmp_path)
    assert bad.code == 2 and "unknown strategy" in bad.err
    afile = tmp_path / "file"
    afile.write_text("x")
    notdir = cli("conquer", 3, "--record", afile)
    assert notdir.code == 2 and "not a directory" in notdir.err


def on_a_real_scheduler(n: int, strategies: str, cube_time: float, record: Path,
                       scheduler: str) -> subprocess.CompletedProcess:
    """`conquer` as a client of a scheduler with two worker processes started apart."""
    result = conquer_command(n, "--strategy", strategies, "--record", record,
                             "--cube-time", cube_time, "--scheduler", scheduler, "--json")
    assert f"2 worker(s) on {scheduler}" in result.stderr, result.stderr
    return result


@SHARED_DASK
def test_conquer_on_a_real_scheduler_with_two_workers_refutes_every_cube(tmp_path,
                                                                          dask_scheduler):
    result = on_a_real_scheduler(3, "+".join(NO_SOLUTION), 0, tmp_path, dask_scheduler)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "unsat" and report["cubes_this_run"] > 2


@pytest.mark.slow
@SHARED_DASK
def test_conquer_at_n4_on_a_real_scheduler_with_two_workers_solves(tmp_path, dask_scheduler):
    # A cube time that lets a worker settle a cube of N=4 outright: at 2 s, on a slower
    # machine, cubes split into a tree the test's 240 s did not see through.
    result = on_a_real_scheduler(4, "+".join(HAS_SOLUTION), 30, tmp_path, dask_scheduler)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "solved"
    assert verify_solution(parse_drawing(report["solution"])).valid


def test_conquer_ctrl_c_stops_within_two_seconds_leaves_no_child_and_keeps_the_record(
        tmp_path):
    stopped = signal_at_work(["conquer", 4, "--strategy", "+".join(NO_SOLUTION), "--record",
                              tmp_path, "--cube-time", 0, "--jobs", 1], signal.SIGINT,
                             lambda _: record_lines(tmp_path) >= 2, within=120)
    assert stopped.code == 130 and stopped.seconds < 2.0, (stopped.code, stopped.seconds)
    assert not left_alive(stopped.children)
    assert record_lines(tmp_path) >= 2
