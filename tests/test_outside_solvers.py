"""Outside solvers (--solver-command, backends/external.py): real programs run as children,
their answers read, decoded and checked like every built-in answer, and scored beside the
rest by the bench. The programs are Debian's (picosat, cadical, glpsol, cbc) and a fake
solver that lies or fails (tests/fixtures/outside/fake_solver.py); a missing Debian program
skips its test here and fails it in CI (CI=true), where .ci/run installs them."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ilp_pyramid
from ilp_pyramid import backends
from ilp_pyramid.backends import external, outside, solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.bench.scores import score_report
from ilp_pyramid.errors import InputError
from tests.proctools import alive, interrupted, signal_and_time

FAKE = Path(__file__).parent / "fixtures" / "outside" / "fake_solver.py"
PYTHON = shlex.quote(sys.executable)


def fake(mode: str, *args: str) -> str:
    """The fake solver's command in `mode`, the instance last."""
    return " ".join([PYTHON, shlex.quote(str(FAKE)), mode, *args, "{file}"])


def need(program: str) -> str:
    """The program's path; skip where it is missing, but fail in CI, which installs it."""
    path = shutil.which(program)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{program} is missing in CI (.ci/run installs it from Debian)")
        pytest.skip(f"{program} is not installed (Debian package: see .ci/run)")
    return path


@pytest.fixture(autouse=True)
def own_table(monkeypatch):
    """Each test's outside solvers leave the table as it was (the in-process CLI too)."""
    monkeypatch.setattr(solvers, "SOLVERS", list(solvers.SOLVERS))
    monkeypatch.setattr(solvers, "_BY_NAME", dict(solvers._BY_NAME))


BEL = ilp_pyramid.puzzle("bel")


# --- the definition -----------------------------------------------------------------------


@pytest.mark.parametrize("spec, reason", [
    ("picosat", "expected NAME=FORMAT:COMMAND"),
    ("picosat=sat:picosat {file}", "format 'sat' is none of cnf, wcnf, mps"),
    ("picosat=cnf:picosat", "has no {file}"),
    ("glpk=mps:glpsol --freemps {file}", "has no {solution}"),
    ("p=cnf:prog {file} {time}", "unknown placeholder {time}"),
    ("p=cnf:prog {file} {solution}", "unknown placeholder {solution}"),
    ("kissat=cnf:kissat {file}", "one of the package's own solvers"),
    ("highs=mps:x {file} {solution}", "one of the package's own solvers"),
    ("9lives=cnf:x {file}", "a letter, then"),
    ("p=cnf:'unclosed {file}", "No closing quotation"),
    ("p=cnf:   ", "no command"),
])
def test_a_bad_definition_is_refused_in_one_line(spec, reason):
    with pytest.raises(InputError, match=reason.replace("{", r"\{").replace("(", r"\(")):
        outside.parse_spec(spec)


def test_a_definition_is_a_line_of_the_one_table():
    entry = ilp_pyramid.register_solver("Pico", "CNF", " picosat {file} ")
    assert solvers.solver("pico") is entry
    assert (entry.family, entry.forms, entry.spec) == ("sat", ("cnf", "exact_cover"),
                                                       "pico=cnf:picosat {file}")
    assert "pico" in solvers.names("sat")
    assert outside.spec_of("pico") == entry.spec and outside.spec_of("kissat") is None
    # defined again: replaced, not doubled
    ilp_pyramid.register_solver("pico", "cnf", "picosat -v {file}")
    assert solvers.names().count("pico") == 1
    assert solvers.solver("pico").command == "picosat -v {file}"
    with pytest.raises(InputError, match="one of the package's own"):
        solvers.register(dataclasses.replace(entry, name="highs"))


def test_a_program_not_on_the_path_is_refused_before_any_model_is_built():
    ilp_pyramid.register_solver("ghost", "cnf", "no-such-solver-here {file}")
    with pytest.raises(InputError, match="'no-such-solver-here' is not an executable"):
        ilp_pyramid.solve(BEL, BEL.instance(2), solver="ghost")


def test_cli_bad_definition_exits_2_with_one_line(cli):
    result = cli("solve", "2", "--solver-command", "pico=sat:picosat {file}", "--solver",
                 "pico")
    assert result.code == 2 and result.out == ""
    assert len(result.err.strip().splitlines()) == 1
    assert "format 'sat' is none of cnf, wcnf, mps" in result.err
    result = cli("bench", "--solver-command", "kissat=cnf:kissat {file}", "--n", "2")
    assert result.code == 2 and "one of the package's own solvers" in result.err


# --- Debian's solvers -------------------------------------------------------------------


# Debian's CaDiCaL and CBC under names of their own: the package's cadical and cbc are others.
@pytest.mark.parametrize("name, program, command", [
    ("picosat", "picosat", "picosat {file}"),
    ("debian-cadical", "cadical", "cadical -q {file}"),
])
def test_a_cnf_solver_from_debian_solves_and_is_checked(name, program, command):
    need(program)
    ilp_pyramid.register_solver(name, "cnf", command)
    result = ilp_pyramid.solve(BEL, BEL.instance(3), solver=name)
    assert result.status is Status.SOLVED and result.form == "cnf"
    assert BEL.verify(result.instance, result.solution) == []
    usage = result.backend.usage
    assert usage["exit_code"] == 10 and usage["stopped_by_time_limit"] is False  # SAT's 10
    assert usage["cpu_seconds"] >= 0 and usage["wall_seconds"] > 0
    assert result.to_json()["solver_usage"] == usage


MPS_SOLVERS = [("glpk", "glpsol", "glpsol --freemps {file} -w {solution}"),
               ("debian-cbc", "cbc", "cbc {file} -solve -solu {solution}")]


@pytest.mark.parametrize("name, program, command", MPS_SOLVERS)
def test_an_mps_solver_from_debian_solves_under_the_models_names(name, program, command):
    need(program)
    ilp_pyramid.register_solver(name, "mps", command)
    result = ilp_pyramid.solve(BEL, BEL.instance(2), solver=name)
    assert result.status is Status.SOLVED and result.form == "mip"
    assert BEL.verify(result.instance, result.solution) == []
    names = {v.name for v in result.model.form.variables()}
    assert set(result.backend.values) == names  # the model's own names, not X0000001


def test_an_infeasible_mps_model_is_infeasible_for_both_readers():
    import pulp

    for name, program, command in MPS_SOLVERS:
        need(program)
        problem = pulp.LpProblem("none", pulp.LpMinimize)
        x = problem.add_variable("x", cat=pulp.LpBinary)
        y = problem.add_variable("y", cat=pulp.LpBinary)
        problem += x + y
        problem += x + y >= 3
        entry = ilp_pyramid.register_solver(name, "mps", command)
        assert backends.solve(problem, entry).status is Status.INFEASIBLE


def test_an_exact_cover_goes_to_an_outside_solver_in_its_format():
    need("picosat")
    form = backends.ExactCoverForm([[0, 1], [1, 2], [2], [0]], num_primary=3)
    entry = ilp_pyramid.register_solver("picosat", "cnf", "picosat {file}")
    result = backends.solve(form, entry)
    chosen = [form.rows[r] for r in result.rows]
    assert result.status is Status.SOLVED
    assert sorted(item for row in chosen for item in row) == [0, 1, 2]


def test_a_wcnf_solver_answers_in_either_v_form_with_its_cost():
    """python-sat's RC2 command line (the old `v 1 -2` form, which it prints with -vv) and
    the fake solver's RC2 in the 2022 bit-string form give the optimum RC2 gives here."""
    views = ilp_pyramid.puzzle("views")
    expected = ilp_pyramid.solve(views, None, solver="rc2")
    for name, command in (("rc2cli", f"{PYTHON} -m pysat.examples.rc2 -vv {{file}}"),
                          ("rc2bits", fake("maxsat-bits"))):
        ilp_pyramid.register_solver(name, "wcnf", command)
        result = ilp_pyramid.solve(views, None, solver=name)
        assert result.status is Status.SOLVED and result.form == "wcnf"
        assert result.backend.objective == expected.backend.objective


# --- lies, failures, limits ---------------------------------------------------------------


@pytest.mark.parametrize("mode, reason", [
    ("sat-part", "the solver's answer fails the check: cube "),
    ("sat-false", "the solver's answer does not decode"),
    ("garbage", "unknown status 's MAYBE'"),
    ("crash", "no 's' answer on stdout (exit code 3): boom"),
])
def test_a_wrong_or_malformed_answer_is_an_error_never_a_solution(mode, reason):
    ilp_pyramid.register_solver("liar", "cnf", fake(mode))
    result = ilp_pyramid.solve(BEL, BEL.instance(3), solver="liar")
    assert result.status is Status.ERROR and result.solution is None
    assert reason in result.detail


def test_a_false_mps_solution_and_a_false_maxsat_cost_are_errors():
    ilp_pyramid.register_solver("liar", "mps", fake("mps-zero", "{solution}"))
    result = ilp_pyramid.solve(BEL, BEL.instance(2), solver="liar")
    assert result.status is Status.ERROR and result.solution is None
    ilp_pyramid.register_solver("liar", "wcnf", fake("maxsat-lie"))
    result = ilp_pyramid.solve(ilp_pyramid.puzzle("views"), None, solver="liar")
    assert result.status is Status.ERROR and result.solution is None


def test_the_time_limit_stops_the_child_and_its_group(tmp_path):
    """A child that ignores SIGTERM gets SIGKILL after TERM_GRACE; the grandchild it started
    goes with it."""
    pidfile = tmp_path / "grandchild"
    ilp_pyramid.register_solver("hang", "cnf", fake("hang", str(pidfile)))
    start = time.perf_counter()
    result = ilp_pyramid.solve(BEL, BEL.instance(2), solver="hang",
                               options={"time_limit": 0.5})
    spent = time.perf_counter() - start
    assert result.status is Status.TIMEOUT
    assert result.backend.usage["stopped_by_time_limit"] is True
    assert result.backend.usage["peak_rss_mb"] > 0  # sampled while it ran
    # ended by the kill, not by the child, which sleeps 600 s; and not before the limit
    assert 0.5 <= spent < 600
    grandchild = int(pidfile.read_text())
    assert not alive({grandchild})


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_stops_the_child_and_its_group(tmp_path, signum):
    pidfile = tmp_path / "grandchild"
    ilp_pyramid.register_solver("hang", "cnf", fake("hang", str(pidfile)))
    # signalled once the solver's grandchild is up: the whole tree is there to stop
    code, took, left = interrupted(
        lambda: ilp_pyramid.solve(BEL, BEL.instance(2), solver="hang"), signum,
        when=lambda: pidfile.exists() and pidfile.read_text().strip() != "")
    assert code == 128 + signum and took < 2.0 and not left
    assert not alive({int(pidfile.read_text())})


def test_cli_interrupted_leaves_no_solver_behind(tmp_path):
    """`solve` with an outside solver, stopped by SIGTERM: exit 143 within 2 s, and the
    solver's grandchild is gone too."""
    pidfile = tmp_path / "grandchild"
    child = subprocess.Popen(
        [sys.executable, "-m", "ilp_pyramid", "solve", "2", "--solver-command",
         f"hang=cnf:{fake('hang', str(pidfile))}", "--solver", "hang", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert child.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    code, took = signal_and_time(child, signal.SIGTERM)
    assert code == 143 and took < 2.0
    assert child.stdout.read() == b""  # nothing the solver printed reaches stdout
    assert not alive({int(pidfile.read_text())})


def test_the_maxsat_and_mip_readers_refuse_what_they_cannot_read():
    with pytest.raises(InputError, match="unknown status"):
        external.parse_maxsat_output("s PERHAPS\n")
    with pytest.raises(InputError, match="no 'v' line"):
        external.parse_maxsat_output("o 3\ns OPTIMUM FOUND\n")
    with pytest.raises(InputError, match="is not a cost"):
        external.parse_maxsat_output("o -1\n")
    assert external.parse_maxsat_output("o 2\ns SATISFIABLE\nv 101\n") == (
        "SATISFIABLE", [1, -2, 3], 2)
    assert external.parse_maxsat_output("s OPTIMUM FOUND\nv 1 -2\nv 3 0\n")[1] == [1, -2, 3]
    with pytest.raises(InputError, match="no 'name value' line"):
        external.parse_mip_solution("hello\n", ["X0000000"])
    with pytest.raises(InputError, match="GLPK column 3 is not one of the model's 2"):
        external.parse_mip_solution("s mip 1 2 o 0\nj 3 1\n", ["X0000000", "X0000001"])
    assert external.parse_mip_solution("=obj= 1\nX0000001 1\n", ["X0000000", "X0000001"]
                                       ) == (None, {"X0000001": 1.0})


# --- the bench ----------------------------------------------------------------------------


def _bench(tmp_path: Path, *args: str) -> list[dict]:
    results = tmp_path / "runs.jsonl"
    subprocess.run([sys.executable, "-m", "ilp_pyramid", "bench", *args, "--results",
                    str(results), "--json"], check=True, capture_output=True, timeout=240)
    return [json.loads(line) for line in results.read_text().splitlines()]


def _solved(report: dict) -> dict[str, int]:
    (family,) = report["families"]
    return {row["solver"]: row["solved"] for row in family["solvers"]}


def test_bench_scores_picosat_beside_kissat(tmp_path):
    need("picosat")
    records = _bench(tmp_path, "--solver-command", "picosat=cnf:picosat {file}", "--solver",
                     "kissat,picosat", "--n", "2..3", "--time-limit", "60")
    outside = [r for r in records if r["solver"] == "picosat"]
    assert len(outside) == 2 and all(r["solver_command"] == "picosat=cnf:picosat {file}"
                                     for r in outside)
    assert all(r["status"] == "solved" for r in records)
    solved = _solved(score_report(records))
    assert solved == {"kissat": 2, "picosat": 2}


@pytest.mark.parametrize(("puzzle", "n"), [("insanity", "8"), ("iq", "4"),
                                         ("sudoku-cube", "1")])
def test_every_puzzles_bench_takes_an_outside_solver(tmp_path, puzzle, n):
    """Each puzzle's bench case (the Sudoku Cube's is a command of its own, `bench-one`)
    passes the outside solver's definition on to the run."""
    need("picosat")
    records = _bench(tmp_path, "--puzzle", puzzle, "--solver-command",
                     "picosat=cnf:picosat {file}", "--solver", "picosat", "--n", n,
                     "--time-limit", "60")
    assert records and all(r["status"] in ("solved", "infeasible") for r in records), \
        [r.get("message", "")[-200:] for r in records]


def test_run_bench_takes_a_solver_registered_in_python(tmp_path):
    need("picosat")
    ilp_pyramid.register_solver("picosat", "cnf", "picosat {file}")
    rows = ilp_pyramid.run_bench("bel", [2], ["picosat"], time_limit=60)
    assert [(r["solver"], r["status"], r["solver_command"]) for r in rows] == [
        ("picosat", "solved", "picosat=cnf:picosat {file}")]


def test_bench_scores_an_mps_solver_beside_highs(tmp_path):
    name, program, command = MPS_SOLVERS[0] if shutil.which("glpsol") else MPS_SOLVERS[1]
    need(program)
    records = _bench(tmp_path, "--solver-command", f"{name}=mps:{command}",
                     "--solver", f"highs,{name}", "--n", "2", "--time-limit", "60")
    assert _solved(score_report(records)) == {"highs": 1, name: 1}


def test_bench_never_counts_a_liar_as_solved(tmp_path):
    """A wrong assignment is an error run; UNSAT on a satisfiable instance a disagreement."""
    records = _bench(tmp_path, "--solver-command", f"wrong=cnf:{fake('sat-part')}",
                     "--solver-command", f"nope=cnf:{fake('unsat')}",
                     "--solver", "kissat,wrong,nope", "--n", "2", "--time-limit", "60")
    status = {r["solver"]: r["status"] for r in records}
    assert status == {"kissat": "solved", "wrong": "error", "nope": "infeasible"}
    assert "fails the check" in next(r for r in records if r["solver"] == "wrong")["message"]
    report = score_report(records)
    assert _solved(report) == {"kissat": 1, "wrong": 0, "nope": 0}
    (disagreement,) = report["families"][0]["disagreements"]
    assert disagreement.startswith("n=2")
