"""`ilp-pyramid bench`: grid, subprocess runs, JSON lines, resume after a kill, table = file."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from ilp_pyramid.bench import parse_sizes, read_results
from ilp_pyramid.errors import InputError


def test_parse_sizes():
    assert parse_sizes("2..5") == [2, 3, 4, 5]
    assert parse_sizes("2,4, 3") == [2, 4, 3]
    assert parse_sizes("1..2,2,5") == [1, 2, 5]
    for bad in ("5..2", "a..b", "", "0", "2..99"):
        with pytest.raises(InputError):
            parse_sizes(bad)


def _bench_args(results, *extra):
    return ["bench", "--n", "1..2", "--solver", "highs,kissat", "--time-limit", "60",
            "--results", str(results), *extra]


def test_killed_bench_resumes_without_redoing_runs(cli, tmp_path):
    """Kill the bench (and its running child) after its first result line, resume it, and
    check: every run exactly once, the first records untouched, the table = the file."""
    results = tmp_path / "runs.jsonl"
    bench = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", *_bench_args(results)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and bench.poll() is None:
            if results.exists() and results.read_text().count("\n") >= 1:
                break
            time.sleep(0.02)
    finally:
        os.killpg(bench.pid, signal.SIGKILL)
        bench.wait()
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
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # The table is the file: recompute every group from the JSON lines.
    assert len(summary["groups"]) == 4
    for group in summary["groups"]:
        mine = [r for r in records if r["n"] == group["n"] and r["solver"] == group["solver"]]
        assert len(mine) == group["runs"] == 1
        record = mine[0]
        assert record["status"] == "solved"
        assert group["solved"] == 1 and group["timeouts"] == 0
        assert group["min_seconds"] == group["median_seconds"] == record["seconds"]
        assert group["variables"] == record["variables"] > 0
        assert group["constraints"] == record["constraints"] > 0
        assert record["peak_rss_mb"] > 1 and record["cpu_seconds"] > 0
        assert group["family"] == ("mip" if group["solver"] == "highs" else "sat")
        # every solved record carries its (verified) solution
        assert len(record["solution"]["Z"]) == 2 * record["n"] - 1

    # The text table shows the same rows.
    text = cli(*_bench_args(results, "--resume"))
    assert text.code == 0
    table_rows = [line.split() for line in text.out.splitlines()
                  if line.split()[:1] in (["1"], ["2"])]
    assert len(table_rows) == 4
    for row in table_rows:
        n, solver = int(row[0]), row[1]
        record = next(r for r in records if r["n"] == n and r["solver"] == solver)
        assert row[3] == "1/1"
        assert float(row[5]) == pytest.approx(record["seconds"], abs=0.006)


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
    bench = subprocess.Popen(
        [sys.executable, "-m", "ilp_pyramid", "bench", "--n", "5", "--solver", "kissat",
         "--time-limit", "60", "--results", str(tmp_path / "r.jsonl")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
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


def test_hung_run_is_killed_at_the_hard_limit(cli, tmp_path):
    results = tmp_path / "runs.jsonl"
    start = time.monotonic()
    result = cli("bench", "--n", "5", "--solver", "kissat", "--time-limit", "120",
                 "--kill-after", "3", "--results", str(results), "--json")
    assert time.monotonic() - start < 30
    assert result.code == 0, result.err
    (record,) = read_results(results)
    assert record["status"] == "killed" and "hard wall-clock limit" in record["message"]
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


def test_grid_skips_formulations_a_family_lacks_and_passes_options_through():
    from ilp_pyramid.bench import grid

    specs = grid([2, 3], ["highs", "kissat"], ["counts", "support"], ["AntiMirror"], "ladder",
                 30, 2)
    pairs = Counter((s.solver, s.formulation) for s in specs)
    assert pairs == {("highs", "counts"): 4, ("kissat", "counts"): 4, ("kissat", "support"): 4}
    assert len({s.key() for s in specs}) == len(specs)
    command = next(s for s in specs if s.solver == "kissat" and s.repeat == 2).command()
    assert command[1:4] == ["-m", "ilp_pyramid", "solve"]
    for option, value in (("--strategy", "AntiMirror"), ("--card", "ladder"),
                          ("--time-limit", "30"), ("--seed", "1"), ("--json", None)):
        assert option in command
        if value is not None:
            assert command[command.index(option) + 1] == value
    with pytest.raises(InputError, match="fits none"):
        grid([2], ["highs"], ["support"], [], None, 30, 1)
    with pytest.raises(InputError, match="unknown solver"):
        grid([2], ["highs", "zchaff"], ["counts"], [], None, 30, 1)


def test_strategy_sets_are_a_grid_dimension(cli, tmp_path):
    from ilp_pyramid.bench import grid, parse_strategy_sets

    sets = parse_strategy_sets("none;LabelPermutation+Automorphism;YStep")
    assert sets == [(), ("LabelPermutation", "Automorphism"), ("YStep",)]
    specs = grid([2], ["kissat"], ["counts"], [], None, 10.0, 1, sets)
    assert [spec.strategies for spec in specs] == sets
    results = tmp_path / "s.jsonl"
    result = cli("bench", "--n", "2", "--solver", "kissat", "--strategies", "none;YStep",
                 "--time-limit", "30", "--results", results, "--json")
    assert result.code == 0, result.err
    import json

    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(tuple(r["strategies"]) for r in records) == [(), ("YStep",)]
    assert all(r["status"] == "solved" for r in records)
    bad = cli("bench", "--n", "2", "--strategies", "Nope", "--results", tmp_path / "x.jsonl")
    assert bad.code == 2 and "unknown strategy" in bad.err


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
    from ilp_pyramid.puzzles.bel.geometry import MAX_N

    assert parse_sizes(f"1..{MAX_N}") == list(range(1, MAX_N + 1))
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

    from ilp_pyramid.bench.cli import default_solvers

    scip = ["scip"] if importlib.util.find_spec("pyscipopt") else []
    assert default_solvers().split(",") == ["highs", "cbc", *scip, "kissat"]
