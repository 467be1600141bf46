"""`ilp-pyramid bench`: a puzzle's grid through the registry, subprocess runs, JSON lines,
resume after a kill, table = file."""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import ilp_pyramid
from ilp_pyramid.bench import parse_sizes, read_results
from ilp_pyramid.errors import InputError
from tests import bench_puzzles

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def registered(monkeypatch):
    """A toy puzzle the bench never heard of, in the registry for one test."""
    from ilp_pyramid import puzzles

    bench_puzzles.register(puzzles.REGISTRY, monkeypatch.setitem)


def bench_process(*args: str) -> subprocess.Popen:
    """`ilp-pyramid ARGS` as its own process."""
    return subprocess.Popen([sys.executable, "-m", "ilp_pyramid", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def test_parse_sizes():
    assert parse_sizes("2..5") == [2, 3, 4, 5]
    assert parse_sizes("2,4, 3") == [2, 4, 3]
    assert parse_sizes("1..2,2,5") == [1, 2, 5]
    assert parse_sizes("2..99") == list(range(2, 100))  # the puzzle checks its own range
    assert parse_sizes("0,4") == [0, 4]  # IQ: pieces given, 0 the empty board
    with pytest.raises(InputError):
        ilp_pyramid.puzzle("bel").bench_cases(parse_sizes("0"))  # Bel has no N = 0
    for bad in ("5..2", "a..b", "", "-1", "1..10000000000"):
        with pytest.raises(InputError):
            parse_sizes(bad)


def _wait_until_unlocked(lock: Path, within: float = 10.0) -> None:
    """Wait until no process holds the lock file `lock` (if there is one)."""
    deadline = time.monotonic() + within
    while True:
        try:
            fd = os.open(lock, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return
        except BlockingIOError:
            assert time.monotonic() < deadline, f"{lock} still held after {within} s"
        finally:
            os.close(fd)
        time.sleep(0.02)


def _bench_args(results, *extra):
    return ["bench", "--n", "1..2", "--solver", "highs,kissat", "--time-limit", "60",
            "--results", str(results), *extra]


def test_killed_bench_resumes_without_redoing_runs(cli, tmp_path):
    """Kill the bench (and its running child) after its first result line, resume it, and
    check: every run exactly once, the first records untouched, the table = the file."""
    results = tmp_path / "runs.jsonl"
    bench = bench_process(*_bench_args(results))
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and bench.poll() is None:
            if results.exists() and results.read_text().count("\n") >= 1:
                break
            time.sleep(0.02)
    finally:
        os.killpg(bench.pid, signal.SIGKILL)
        bench.wait()
    # The kill often lands as the next run is forked: until that child execs (or its parent's
    # death kills it) it shares the bench's lock, in a session of its own that killpg missed.
    # Moments on an idle machine, longer on a loaded one; the refusal below is the resume's.
    _wait_until_unlocked(Path(f"{results}.lock"))
    before = read_results(results)
    assert 1 <= len(before) < 4, "the bench must be killed half-way for this test to mean much"

    # Without --resume an existing results file is refused, untouched.
    refused = cli(*_bench_args(results))
    assert refused.code == 2 and "--resume" in refused.err
    assert read_results(results) == before

    plot = tmp_path / "plot.png"
    result = cli(*_bench_args(results, "--resume", "--json", "--plot", str(plot)))
    assert result.code == 0, result.err
    summary = json.loads(result.out)
    records = read_results(results)
    keys = Counter(r["key"] for r in records)
    assert len(keys) == 4 and max(keys.values()) == 1, keys
    assert records[:len(before)] == before  # finished runs were not redone
    assert summary["runs"] == 4 and summary["ran_now"] == 4 - len(before)
    assert summary["puzzle"] == "bel"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The table is the file: recompute every group from the JSON lines.
    assert len(summary["groups"]) == 4
    for group in summary["groups"]:
        mine = [r for r in records if r["params"] == {"n": group["n"]}
                and r["solver"] == group["solver"]]
        assert len(mine) == group["runs"] == 1
        record = mine[0]
        assert record["status"] == "solved" and record["puzzle"] == "bel"
        assert record["argv"][3:5] == ["solve", str(group["n"])]
        assert group["solved"] == 1 and group["timeouts"] == 0
        assert group["min_solve_seconds"] == group["median_solve_seconds"] == record["seconds"]
        assert group["median_seconds"] == record["wall_seconds"]
        assert group["variables"] == record["variables"] > 0
        assert group["constraints"] == record["constraints"] > 0
        assert record["peak_rss_mb"] > 1 and record["cpu_seconds"] > 0
        assert group["family"] == ("mip" if group["solver"] == "highs" else "sat")
        # every solved record carries its (verified) solution
        assert len(record["solution"]["Z"]) == 2 * record["params"]["n"] - 1
        # and the options its model was built with, a column each
        assert group["strategy"] == record["model_options"]["strategy"]

    # The text table shows the same rows: N, solver, formulation, strategy, card, runs,
    # solved, wall s ..., solve s
    text = cli(*_bench_args(results, "--resume"))
    assert text.code == 0
    assert "Bel's Pyramid, limit 60 s" in text.out
    table_rows = [line.split() for line in text.out.splitlines()
                  if line.split()[:1] in (["1"], ["2"])]
    assert len(table_rows) == 4
    for row in table_rows:
        n, solver = int(row[0]), row[1]
        record = next(r for r in records if r["params"]["n"] == n and r["solver"] == solver)
        assert row[2:5] == [record["model_options"]["formulation"],
                            record["model_options"]["strategy"],
                            record["model_options"].get("card", "-")]
        assert row[5:7] == ["1", "1"]
        assert float(row[11]) == pytest.approx(record["seconds"], abs=0.006)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(v) for v in handle.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_bench_takes_its_running_solve_with_it(tmp_path):
    """The run in progress has its own session (so the hard limit can kill its whole group);
    when the bench itself is killed, it must not go on as an orphan for its whole limit."""
    bench = bench_process("bench", "--n", "5", "--solver", "kissat", "--time-limit", "60",
                          "--results", str(tmp_path / "r.jsonl"))
    running: list[int] = []
    deadline = time.monotonic() + 60
    try:
        while not running and time.monotonic() < deadline and bench.poll() is None:
            running = _children(bench.pid)
            time.sleep(0.05)
        time.sleep(0.5)  # let the run get going (and fork its solver)
    finally:
        os.killpg(bench.pid, signal.SIGKILL)
        bench.wait()
    assert running, "the bench never started its run"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in running):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in running)


@pytest.mark.slow  # whole processes up to a hard limit, seconds each
def test_hung_run_is_killed_at_the_hard_limit_and_is_a_timeout(cli, tmp_path):
    results = tmp_path / "runs.jsonl"
    start = time.monotonic()
    result = cli("bench", "--n", "5", "--solver", "kissat", "--time-limit", "120",
                 "--kill-after", "3", "--results", str(results), "--json")
    assert time.monotonic() - start < 120  # killed at the hard limit, not at the time limit
    assert result.code == 0, result.err
    (record,) = read_results(results)
    assert record["status"] == "timeout" and record["killed"] is True
    assert "hard wall-clock limit" in record["message"]
    assert record.get("solution") is None
    (group,) = json.loads(result.out)["groups"]
    assert group["solved"] == 0 and group["timeouts"] == 1 and group["median_seconds"] is None


def test_timeouts_and_unknown_solvers(cli, tmp_path):
    bad = cli("bench", "--n", "2", "--solver", "highs,zchaff", "--results",
              str(tmp_path / "x.jsonl"))
    assert bad.code == 2 and "unknown solver" in bad.err
    results = tmp_path / "runs.jsonl"
    result = cli("bench", "--n", "4", "--solver", "highs", "--time-limit", "0.3",
                 "--results", str(results), "--plot", str(tmp_path / "p.png"))
    assert result.code == 0, result.err
    (record,) = read_results(results)
    assert record["status"] == "timeout" and record["exit_code"] == 3
    assert (tmp_path / "p.png").exists()


def test_bel_grid_skips_formulations_a_family_lacks_and_passes_axes_through():
    from ilp_pyramid.bench.grid import puzzle_runs

    runs = puzzle_runs("bel", [2, 3], ["highs", "kissat"],
                       [("formulation", ["counts", "support"]), ("strategy", ["AntiMirror"]),
                        ("card", ["ladder"])], 30, 2)
    pairs = Counter((r.solver, dict(r.params)["formulation"]) for r in runs)
    assert pairs == {("highs", "counts"): 4, ("kissat", "counts"): 4, ("kissat", "support"): 4}
    assert len({r.key() for r in runs}) == len(runs)
    run = next(r for r in runs if r.solver == "kissat" and r.repeat == 2)
    assert dict(run.params) == {"n": 2, "formulation": "counts", "strategy": "AntiMirror",
                                "card": "ladder"}
    command = run.command()
    assert command[1:5] == ["-m", "ilp_pyramid", "solve", "2"]
    for option, value in (("--strategy", "AntiMirror"), ("--card", "ladder"),
                          ("--formulation", "counts"), ("--time-limit", "30"),
                          ("--seed", "1"), ("--solver", "kissat"), ("--json", None)):
        assert option in command
        if value is not None:
            assert command[command.index(option) + 1] == value
    for axes, message in (([("formulation", ["support"])], "fits none"),
                          ([("formulation", ["nope"])], "unknown formulation"),
                          ([("card", ["nope"])], "unknown cardinality"),
                          ([("strategy", ["Nope"])], "unknown strategy")):
        with pytest.raises(InputError, match=message):
            puzzle_runs("bel", [2], ["highs"], axes, 30, 1)
    with pytest.raises(InputError, match="unknown solver"):
        puzzle_runs("bel", [2], ["highs", "zchaff"], [], 30, 1)
    with pytest.raises(InputError, match="out of range"):
        puzzle_runs("bel", [99], ["highs"], [], 30, 1)


def test_strategy_sets_are_a_grid_axis(cli, tmp_path):
    results = tmp_path / "s.jsonl"
    result = cli("bench", "--n", "2", "--solver", "kissat", "--grid", "strategy=none,YStep",
                 "--time-limit", "30", "--results", results, "--json")
    assert result.code == 0, result.err
    records = read_results(results)
    assert sorted(r["params"]["strategy"] for r in records) == ["YStep", "none"]
    assert all(r["status"] == "solved" for r in records)
    assert sorted(tuple(r["result"]["strategies"]) for r in records) == [(), ("YStep",)]
    assert [g["strategy"] for g in json.loads(result.out)["groups"]] == ["none", "YStep"]
    bad = cli("bench", "--n", "2", "--grid", "strategy=Nope", "--results", tmp_path / "x.jsonl")
    assert bad.code == 2 and "unknown strategy" in bad.err


def test_a_record_keeps_the_model_options_of_its_run_and_the_table_shows_them(cli, tmp_path):
    """No axis names the strategy, yet each solver ran its own default: the record keeps
    what the run's --json said shaped its model, and the tables have a column for it."""
    results = tmp_path / "m.jsonl"
    result = cli("bench", "--n", "2", "--solver", "highs,kissat", "--time-limit", "30",
                 "--results", results)
    assert result.code == 0, result.err
    options = {r["solver"]: r["model_options"] for r in read_results(results)}
    assert options == {"highs": {"formulation": "counts",
                                 "strategy": "LabelPermutationImportance"},
                       "kissat": {"formulation": "counts", "strategy": "none",
                                  "card": "seqcounter"}}
    assert "strategy" in result.out and "LabelPermutationImportance" in result.out
    report = cli("bench", "report", results)
    assert report.code == 0, report.err
    header, _, highs, kissat = report.out.splitlines()[:4]
    assert header.startswith("| puzzle | N | solver | formulation | strategy | card |")
    assert highs.startswith("| bel | 2 | highs | counts | LabelPermutationImportance | - |")
    assert kissat.startswith("| bel | 2 | kissat | counts | none | seqcounter |")


@pytest.mark.slow  # whole processes up to a hard limit, seconds each
def test_a_puzzle_the_bench_never_heard_of_runs_in_its_grid(cli, registered, tmp_path):
    """Any registered puzzle: its cases x solvers x repeats, records keep the case's params,
    the table groups by them, --resume runs nothing twice."""
    results = tmp_path / "toy.jsonl"
    args = ["bench", "--puzzle", "toy", "--solver", "kissat,cadical", "--repeat", "2",
            "--time-limit", "30", "--results", results]
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    records = read_results(results)
    assert len(records) == 8 and len({r["key"] for r in records}) == 8
    assert {r["puzzle"] for r in records} == {"toy"}
    for record in records:
        instance = record["params"]["instance"]
        assert record["argv"][3] == "solve-cnf" and record["argv"][4].endswith(f"{instance}.cnf")
        assert record["seed"] == record["repeat"] - 1
        assert record["status"] == ("solved" if instance == "sat" else "infeasible")
    summary = json.loads(result.out)
    assert [(g["instance"], g["solver"], g["runs"], g["solved"]) for g in summary["groups"]] \
        == [("sat", "kissat", 2, 2), ("sat", "cadical", 2, 2), ("unsat", "kissat", 2, 0),
            ("unsat", "cadical", 2, 0)]
    again = cli(*args, "--resume", "--json")
    assert again.code == 0 and json.loads(again.out)["ran_now"] == 0
    report = cli("bench", "report", results, "--where", "instance=unsat")
    assert report.code == 0 and report.out.count("| toy | unsat |") == 2
    # a solver that takes no form the puzzle builds: refused if given, left out by default
    wrong = cli("bench", "--puzzle", "toy", "--solver", "highs", "--results", tmp_path / "w")
    assert wrong.code == 2 and "toy has no model that 'highs' takes" in wrong.err
    default = cli("bench", "--puzzle", "toy", "--time-limit", "30", "--results",
                  tmp_path / "d.jsonl", "--json")
    assert default.code == 0, default.err
    assert {g["solver"] for g in json.loads(default.out)["groups"]} == {"kissat"}
    unknown = cli("bench", "--puzzle", "nope", "--results", tmp_path / "w")
    assert unknown.code == 2 and "unknown puzzle 'nope'" in unknown.err


@pytest.mark.parametrize("args, message", [
    (["--grid", "formulation"], "expected KEY=V1,V2"),
    (["--grid", "seed=1,2"], "a name the bench uses itself"),
    (["--grid", "card=a", "--grid", "card=b"], "given twice"),
    (["--grid", "card="], "nothing given"),
    (["--grid", "card=ladder", "--command", "solve {n}"], "names {card}"),
    (["--command", "solve {n} --formulation {formulation}"], "give --formulation"),
])
def test_bad_grids_are_one_line_exit_2(cli, tmp_path, args, message):
    result = cli("bench", "--n", "2", "--solver", "kissat", *args, "--results", tmp_path / "r")
    assert result.code == 2 and message in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signalled_bench_stops_at_once_kills_the_run_and_keeps_its_records(
        tmp_path, signum, code):
    """SIGINT/SIGTERM on `bench`: exit 130/143 within 2 s, one line on stderr, the running
    command's whole tree killed, every finished record kept in the results file."""
    results = tmp_path / "r.jsonl"
    bench = subprocess.Popen(
        [sys.executable, "-m", "ilp_pyramid", "bench", "--n", "1", "--results", str(results),
         "--external", "quick=/bin/true",
         "--external", "slow=/bin/sh -c 'sleep 60 & sleep 60; wait'"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    tree: list[int] = []
    deadline = time.monotonic() + 60
    try:
        while len(tree) < 3 and time.monotonic() < deadline and bench.poll() is None:
            tree = _descendants(bench.pid)  # sh and its two sleeps
            time.sleep(0.05)
        assert len(tree) >= 3, "the slow run never started"
        os.kill(bench.pid, signum)
        sent = time.monotonic()
        _, err = bench.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
    assert bench.returncode == code and took < 2, (bench.returncode, took)
    lines = err.decode().strip().splitlines()  # the finished run's line, then one error line
    assert lines[-1].startswith("error: interrupted") and lines[0].startswith("quick"), lines
    assert len(lines) == 2, lines
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in tree):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in tree), "a process of the run survived"
    (record,) = read_results(results)
    assert record["label"] == "quick" and record["status"] == "solved"


def test_sizes_repeats_and_results_are_checked_at_the_edge(cli, tmp_path):
    from ilp_pyramid.puzzles.bel.bench_cases import bench_cases
    from ilp_pyramid.puzzles.bel.geometry import MAX_N

    assert [case.params["n"] for case in bench_cases(parse_sizes(f"1..{MAX_N}"))] == \
        list(range(1, MAX_N + 1))
    start = time.monotonic()
    with pytest.raises(InputError, match="out of range"):
        parse_sizes("1..10000000000")  # refused before anything is built
    assert time.monotonic() - start < 1
    results = tmp_path / "r.jsonl"
    for args in (["--n", "1..10000000000"], ["--n", f"{MAX_N + 1}"], ["--repeat", "100000000"],
                 ["--repeat", "1001"], ["--time-limit", "inf"], ["--n", "²"],
                 ["--n", "9" * 5000]):
        result = cli("bench", *args, "--results", results)
        assert result.code == 2, (args, result)
        assert len(result.err.strip().splitlines()) == 1, (args, result.err)
    assert not results.exists()
    directory = cli("bench", "--n", "2", "--solver", "kissat", "--results", tmp_path)
    assert directory.code == 2 and "is a directory" in directory.err
    assert len(directory.err.strip().splitlines()) == 1


def test_the_default_grid_holds_every_installed_open_mip_solver():
    import importlib.util

    from ilp_pyramid.bench.grid import default_solvers

    scip = ["scip"] if importlib.util.find_spec("pyscipopt") else []
    assert default_solvers().split(",") == ["highs", "cbc", *scip, "kissat"]


def test_the_bench_cases_modules_examples_hold():
    import doctest

    from ilp_pyramid.puzzles.bel import bench_cases as bel
    from ilp_pyramid.puzzles.sudoku_cube import bench_cases as cube

    for module in (bel, cube):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0 and outcome.failed == 0, module.__name__


def test_every_registered_puzzle_has_a_bench_grid_the_cube_runs(cli, tmp_path):
    from ilp_pyramid import protocol, puzzles

    for name in puzzles.names():
        assert protocol.bench_cases(puzzles.get(name)), name
    results = tmp_path / "cube.jsonl"
    result = cli("bench", "--puzzle", "sudoku-cube", "--n", "5", "--solver", "highs",
                 "--repeat", "2", "--time-limit", "60", "--results", results, "--json")
    assert result.code == 0, result.err
    records = read_results(results)
    assert [(r["params"]["scramble"], r["seed"], r["status"]) for r in records] == \
        [(5, 0, "solved"), (5, 1, "solved")]
    assert all(r["argv"][3:5] == ["sudoku-cube", "bench-one"] for r in records)
    assert all(r["model_options"]["parity"] == r["params"]["parity"] for r in records)
    (group,) = json.loads(result.out)["groups"]
    assert (group["puzzle"], group["scramble"], group["runs"], group["solved"]) == \
        ("sudoku-cube", 5, 2, 2)


def test_run_bench_gives_the_records_as_rows_and_resumes_a_results_file(tmp_path):
    import ilp_pyramid

    results = tmp_path / "r.jsonl"

    def bench():
        return ilp_pyramid.run_bench("bel", sizes=[2], solvers=["highs", "kissat"], repeats=2,
                                     time_limit=30, grid={"strategy": ["none"]},
                                     results=results)

    rows = bench()
    assert [(r["puzzle"], r["n"], r["strategy"], r["solver"], r["repeat"], r["status"])
            for r in rows] == [("bel", 2, "none", solver, repeat, "solved")
                               for solver in ("highs", "kissat") for repeat in (1, 2)]
    records = read_results(results)
    assert [r["key"] for r in records] == [r["key"] for r in rows]
    for row, record in zip(rows, records, strict=True):
        assert row["seconds"] == record["seconds"] > 0
        assert row["wall_seconds"] == record["wall_seconds"] > row["seconds"]
        assert record["argv"][3:] == ["solve", "2", "--strategy", "none", "--solver",
                                      row["solver"], "--seed", str(row["repeat"] - 1),
                                      "--time-limit", "30", "--json"]
    assert bench() == rows and len(read_results(results)) == 4  # nothing run twice
    with pytest.raises(InputError, match="unknown formulation"):
        ilp_pyramid.run_bench("bel", sizes=[2], grid={"formulation": ["nope"]})


def test_a_runs_wall_time_is_not_rounded_up_to_the_poll_step(monkeypatch):
    """The bench wakes when the child exits, not at its next poll: with a 60 s poll step a
    child that exits at once still measures well under the step (it measured in steps of
    the old 0.05 s step, too coarse for start-up times)."""
    from ilp_pyramid.bench import runner

    monkeypatch.setattr(runner, "POLL_SECONDS", 60.0)
    began = time.perf_counter()
    measured = runner.run_process([sys.executable, "-c", "import time; time.sleep(0.3)"],
                                  kill_after=600)
    assert measured.exit_code == 0
    # the child's start-up and sleep, however long a loaded machine makes them, not a step
    assert 0.3 <= measured.wall_seconds < 60
    assert time.perf_counter() - began < 60
