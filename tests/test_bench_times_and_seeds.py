"""A run's time in its parts (the solver's own seconds beside the process's), the solver's own
random seed apart from the instance's, and results files that fail plainly."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ilp_pyramid.bench import scores
from ilp_pyramid.bench.records import SCHEMA, read_results
from ilp_pyramid.bench.timesplit import run_parts, time_split

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


# --- results files that fail plainly ---------------------------------------------------------


@pytest.mark.parametrize("command", [["report"], ["report", "--score", "par2"],
                                     ["plot", "-o", "never.png"]])
def test_a_corrupt_results_file_is_one_line_with_the_count_and_the_first_bad_line(
        tmp_path, command):
    path = tmp_path / "r.jsonl"
    path.write_bytes(random.Random(70).randbytes(100_000))
    lines = sum(1 for line in path.read_bytes().decode("utf-8", "replace").splitlines()
                if line.strip())
    run = _run("bench", command[0], path, *command[1:])
    assert run.returncode == 2 and run.stdout == "", run
    (line,) = run.stderr.splitlines()
    assert line.startswith("error: no records to report: ") and str(path) in line
    assert f"{lines:,} bad lines, the first at line 1: " in line
    assert not (tmp_path / "never.png").exists()


def test_bad_lines_among_good_records_are_one_warning_and_the_report_goes_on(tmp_path):
    good = {"key": "a", "schema": SCHEMA, "status": "solved", "solver": "highs",
            "time_limit": 10, "wall_seconds": 1.0, "solve_seconds": 0.5, "puzzle": "bel",
            "params": {"n": 2}}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(good) + "\n" + "not json\n" * 40 + '{"key": "b"}\n'
                    + json.dumps({**good, "key": "c"}) + "\n")
    run = _run("bench", "report", path, "--score", "par2")
    assert run.returncode == 0, run.stderr
    (warning,) = run.stderr.splitlines()
    assert warning == f"warning: {path}: 41 bad lines, the first at line 2: torn or " \
                      "malformed line skipped"
    assert "bel: 1 instance" in run.stdout


# --- the solver's seconds beside the process's -----------------------------------------------


def test_a_run_records_the_solvers_seconds_and_the_seed_it_gave_the_solver(cli, tmp_path):
    """A real bench run: every record keeps the solver's own seconds beside the process's
    wall and CPU seconds, in order solver <= solve path <= wall; --solver-seeds runs one
    instance once per solver seed, and the scores take its repeats as one instance."""
    results = tmp_path / "r.jsonl"
    run = cli("bench", "--puzzle", "insanity", "--n", "5", "--solver", "cadical",
              "--solver-seeds", "2", "--time-limit", "60", "--results", results, "--json")
    assert run.code == 0, run.err
    records = read_results(results)
    assert len(records) == 4  # planted and random, two solver seeds each
    for record in records:
        assert record["status"] in ("solved", "infeasible")
        assert 0 <= record["solve_seconds"] <= record["run_seconds"] <= record["wall_seconds"]
        assert record["build_seconds"] <= record["run_seconds"]
        assert record["cpu_seconds"] > 0
        assert record["argv"][-7:] == ["--seed", "0", "--solver-seed",
                                       str(record["solver_seed"]), "--time-limit", "60",
                                       "--json"]
    assert sorted((r["params"]["instance"], r["solver_seed"]) for r in records) == \
        [("planted", 0), ("planted", 1), ("random", 0), ("random", 1)]
    (family,) = scores.families(records)
    assert len(family.instances) == 2  # the seed picked the instance, not the solver seed
    assert all(family.outcome(i, "cadical").runs == 2 for i in family.instances)
    assert family.seeds() == [0, 1]
    (split,) = time_split(records)
    assert split["split_runs"] == 4
    assert sum(split["shares"].values()) == pytest.approx(1)


def test_run_parts_add_up_to_the_wall_time_and_read_records_from_before():
    record = {"status": "solved", "wall_seconds": 1.0, "solve_seconds": 0.25,
              "build_seconds": 0.125, "run_seconds": 0.5}
    assert run_parts(record) == {"solver": 0.25, "build": 0.125, "check": 0.125,
                                 "startup": 0.5}
    # a record from before the fields: the parts from the run's --json kept in `result`
    legacy = {"status": "solved", "wall_seconds": 2.0,
              "result": {"seconds": 1.5, "solve_seconds": 1.0, "build_seconds": 0.25}}
    assert run_parts(legacy) == {"solver": 1.0, "build": 0.25, "check": 0.25, "startup": 0.5}
    assert run_parts({"status": "solved", "wall_seconds": 2.0, "seconds": 1.0}) is None
    rows = time_split([record, legacy, {"status": "timeout", "wall_seconds": 9.0}])
    (row,) = rows
    assert (row["runs"], row["split_runs"], row["wall_seconds"]) == (2, 2, 3.0)
    assert row["shares"]["solver"] == pytest.approx(1.25 / 3)
    assert row["shares"]["startup"] == pytest.approx(1.0 / 3)
    assert row["median_outside_solver"] == pytest.approx((0.75 + 0.5) / 2)


def test_the_time_split_table_renders_from_a_marker(cli, tmp_path):
    runs = [{"key": str(i), "schema": SCHEMA, "puzzle": p, "status": "solved",
             "wall_seconds": 1.0, "solve_seconds": s, "build_seconds": 0.0, "run_seconds": s}
            for i, (p, s) in enumerate([("bel", 0.75), ("views", 0.25)])]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    page = tmp_path / "p.md"
    page.write_text("<!-- bench:r.jsonl:table=time-split -->\n<!-- /bench -->\n")
    assert cli("bench", "render", page).code == 0
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in page.read_text().splitlines() if line.startswith("| bel")
            or line.startswith("| views")]
    assert rows == [["bel", "1", "1", "1.0", "75%", "0%", "0%", "25%", "25%"],
                    ["views", "1", "1", "1.0", "25%", "0%", "0%", "75%", "75%"]]


# --- the solver's own seed --------------------------------------------------------------------


def _seeded(solver, n, seed, status, seconds):
    return {"key": f"{solver} {n} {seed}", "schema": SCHEMA, "puzzle": "bel",
            "params": {"n": n}, "solver": solver, "repeat": seed + 1, "seed": 0,
            "solver_seed": seed, "time_limit": 10.0, "status": status,
            "solve_seconds": seconds, "wall_seconds": seconds + 0.25}


def test_a_family_whose_winner_changes_with_the_seed_says_so(cli, tmp_path):
    # seed 0: highs 1 s against kissat 2 s; seed 1: kissat 1 s, highs timed out
    runs = [_seeded("highs", 3, 0, "solved", 1.0), _seeded("kissat", 3, 0, "solved", 2.0),
            _seeded("highs", 3, 1, "timeout", 10.0), _seeded("kissat", 3, 1, "solved", 1.0)]
    report = scores.score_report(runs)
    (family,) = report["families"]
    assert family["winner_by_seed"] == {"0": "highs", "1": "kissat"}
    assert family["winner_changes_with_seed"]
    rows = {row["solver"]: row for row in family["solvers"]}
    assert rows["highs"]["score_range"] == [1.0, 20.0]
    assert rows["kissat"]["score_range"] == [1.0, 2.0]
    # the spread of each instance's repeats: fastest and slowest (null: unsolved)
    assert family["per_instance"][0]["spread"] == {"highs": [1.0, None],
                                                   "kissat": [1.0, 2.0]}
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    text = cli("bench", "report", path, "--score", "par2")
    assert "the winner changes with the solver's seed (seed 0: highs, seed 1: kissat)" \
        in text.out
    steady = [r for r in runs if r["solver"] == "kissat"] + [
        _seeded("highs", 3, 0, "solved", 3.0), _seeded("highs", 3, 1, "solved", 4.0)]
    assert not scores.score_report(steady)["families"][0]["winner_changes_with_seed"]


def test_a_step_run_with_one_seed_counts_for_every_seed_of_the_others():
    """A study runs its hard steps with one solver seed, its easy ones with two: the seeds
    are still compared, the one-seed runs counting the same for each."""
    easy = [_seeded("highs", 3, 0, "solved", 1.0), _seeded("kissat", 3, 0, "solved", 2.0),
            _seeded("highs", 3, 1, "solved", 3.0), _seeded("kissat", 3, 1, "solved", 1.0)]
    hard = [_seeded("highs", 5, 0, "timeout", 10.0), _seeded("kissat", 5, 0, "solved", 6.0)]
    (family,) = scores.families(easy + hard)
    assert family.seeds() == [0, 1]
    by_seed = family.scores_by_seed(2)
    # seed 0: highs (1 + 20) / 2 against kissat (2 + 6) / 2; seed 1: highs (3 + 20) / 2
    assert by_seed == {0: {"highs": 10.5, "kissat": 4.0}, 1: {"highs": 11.5, "kissat": 3.5}}
    row = {r["solver"]: r for r in scores.score_report(easy + hard)["families"][0]["solvers"]}
    assert row["kissat"]["score_range"] == [3.5, 4.0]


def test_a_generated_instance_per_seed_has_no_seed_spread():
    """Where --seed picked the instance and seeded the solver too, the seeds are instances,
    not repeats: no score is compared seed by seed."""
    runs = [{**_seeded(s, 8, seed, "solved", 1.0 + seed), "seeded_instance": True,
             "seed": seed, "solver_seed": None} for s in ("highs", "kissat") for seed in (0, 1)]
    (family,) = scores.families(runs)
    assert len(family.instances) == 2 and family.seeds() == []
    assert all(row["score_range"] is None
               for row in scores.score_report(runs)["families"][0]["solvers"])


def test_the_solver_seed_is_its_own_option_and_reaches_highs():
    import pulp

    from ilp_pyramid import backends
    from ilp_pyramid.cli.options import solve_options

    assert solve_options(None, None, 1).seed == 1  # --seed alone seeds the solver too
    assert solve_options(None, None, 1, solver_seed=5).seed == 5
    assert solve_options(None, None, None, solver_seed=0).seed == 0
    problem = pulp.LpProblem("seeded", pulp.LpMaximize)
    x, y = (problem.add_variable(name, cat=pulp.LpBinary) for name in "xy")
    problem += x + y
    problem += x + y <= 1
    result = backends.solve(problem, "highs", solve_options(10, 1, 1, solver_seed=5))
    assert result.status == "solved"
    assert problem.solverModel.getOptionValue("random_seed")[1] == 5


def test_cadical_gets_its_own_seed_before_any_clause():
    from pysat.solvers import Solver

    from ilp_pyramid.backends.sat import seeded_engine
    from ilp_pyramid.backends.solvers import solver

    calls = []

    class Recorder:
        def __init__(self, **kwargs):
            calls.append(("new", kwargs))

        def configure(self, options):
            calls.append(("configure", options))

        def append_formula(self, clauses):
            calls.append(("clauses", clauses))

    seeded_engine(Recorder, solver("cadical195"), [[1]], 7)
    assert calls == [("new", {"name": "cadical195"}), ("configure", {"seed": 7}),
                     ("clauses", [[1]])]
    calls.clear()
    seeded_engine(Recorder, solver("kissat404"), [[1]], 7)  # Kissat takes no seed here
    seeded_engine(Recorder, solver("cadical195"), [[1]], 0)  # 0: the solver's default
    assert [kind for kind, _ in calls] == ["new", "new"]
    with seeded_engine(Solver, solver("cadical195"), [[1, 2], [-1], [-2, 3]], 7) as engine:
        assert engine.solve() and engine.get_model() == [-1, 2, 3]


def test_the_bench_gives_each_repeat_every_solver_seed():
    from ilp_pyramid import protocol
    from ilp_pyramid.bench.grid import puzzle_grid
    from ilp_pyramid.errors import InputError

    case = protocol.BenchCase(("insanity", "solve", "--generate", "8"), {"n": 8}, seeded=True)
    runs = puzzle_grid("insanity", [case], ["highs"], [], 10.0, 2, solver_seeds=3)
    assert [(r.seed, r.solver_seed) for r in runs] == \
        [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert runs[1].argv()[-7:] == ["--seed", "0", "--solver-seed", "1", "--time-limit", "10",
                                   "--json"]
    assert len({r.key() for r in runs}) == 6
    assert runs[1].fields()["solver_seed"] == 1
    plain = puzzle_grid("insanity", [case], ["highs"], [], 10.0, 1)
    assert "--solver-seed" not in plain[0].argv() and "solver_seed" not in plain[0].fields()
    with pytest.raises(InputError, match="--solver-seeds"):
        puzzle_grid("insanity", [case], ["highs"], [], 10.0, 1, solver_seeds=10_000)


def test_the_solver_seed_option_is_one_spelling_everywhere(cli):
    for command in (["solve"], ["insanity", "solve"], ["views", "solve"], ["iq", "solve"],
                    ["sudoku-cube", "solve"]):
        page = cli(*command, "--help")
        assert page.code == 0 and re.search(r"--solver-seed\b", page.out), command
    assert "--solver-seeds" in cli("bench", "--help").out


def test_a_status_outside_the_vocabulary_is_read_from_the_exit_code(cli, tmp_path):
    """`iq count --json` says "counted": a template run of it is solved by its exit 0 (and a
    timeout by its exit 3), not an error."""
    program = tmp_path / "count.sh"
    program.write_text('#!/bin/sh\necho \'{"status": "counted", "count": 184}\'\nexit "$1"\n')
    program.chmod(0o755)
    results = tmp_path / "r.jsonl"
    run = cli("bench", "--n", "0,3", "--external", f"c={program} {{n}}", "--results", results,
              "--time-limit", "10", "--json")
    assert run.code == 0, run.err
    assert [(r["n"], r["status"]) for r in read_results(results)] == \
        [(0, "solved"), (3, "timeout")]
