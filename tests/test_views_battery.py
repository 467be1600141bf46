"""`ilp-pyramid views battery`: the MD5 battery from the CLI, against independent recomputation."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.protocol import solve
from ilp_pyramid.puzzles.views.geometry import seed_views
from ilp_pyramid.puzzles.views.puzzle import PUZZLE
from ilp_pyramid.verify.views import verify_answer
from tests.proctools import gone, session_members

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def battery_json(cli, *args):
    result = cli("views", "battery", *args, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_small_battery_matches_the_mip_seed_by_seed(cli, tmp_path):
    out = tmp_path / "cases.txt"
    data = battery_json(cli, "--count", "4000", "--jobs", "2", "--output", out)
    for key in ("count", "solvable", "total_cubes", "seconds", "distribution", "slowest"):
        assert key in data
    assert data["count"] == 4000 and data["unproved"] == [] and data["verify_failed"] == []
    lines = out.read_text().splitlines()
    assert len(lines) == data["solvable"] > 0
    total = 0
    solvable = [s for s in range(4000) if seed_views(s).solvable()]
    assert [int(line.split()[0]) for line in lines] == solvable
    for line in lines:
        seed, cubes, answer = line.split()
        views = seed_views(int(seed))
        assert verify_answer(views.bits(), f"{int(answer, 16):064b}").valid
        mip = solve(PUZZLE, views, "highs", SolveOptions(time_limit=30), after={"check": False})
        assert mip.status is Status.SOLVED and mip.keys["proved_by"] == "mip", seed
        assert int(mip.solution.sum()) == int(cubes), seed
        total += int(cubes)
    assert data["total_cubes"] == total
    assert sum(data["distribution"].values()) == data["solvable"]


def test_jobs_and_start_do_not_change_the_result(cli):
    one = battery_json(cli, "--start", "340000", "--count", "10000", "--jobs", "1")
    two = battery_json(cli, "--start", "340000", "--count", "10000", "--jobs", "2")
    # The halves in this process: a pool costs a second to start, and jobs are `two`'s part.
    halves = [battery_json(cli, "--start", str(start), "--count", "5000", "--jobs", "1")
              for start in (340000, 345000)]
    for key in ("solvable", "total_cubes", "distribution"):
        assert one[key] == two[key]
    assert one["solvable"] == sum(h["solvable"] for h in halves)
    assert one["total_cubes"] == sum(h["total_cubes"] for h in halves)


def test_cross_check_and_text_report(cli):
    result = cli("views", "battery", "--count", "20000", "--cross-check", "10")
    assert result.code == 0, result.err
    for text in ("solvable", "total optimal cubes", "slowest case", "wall time", "10/10 agree"):
        assert text in result.out


def test_cases_the_branch_and_bound_leaves_open_go_to_the_mip(cli):
    full = battery_json(cli, "--count", "3000", "--jobs", "1")
    capped = battery_json(cli, "--count", "3000", "--node-limit", "1", "--jobs", "2")
    assert capped["unproved"] == [] and 0 < capped["proved_by_mip"] <= capped["solvable"]
    assert full["proved_by_mip"] == 0
    for key in ("solvable", "total_cubes", "distribution"):
        assert capped[key] == full[key]


@pytest.mark.parametrize("args", [["--start", "999999", "--count", "2"], ["--count", "0"],
                                  ["--jobs", "0"], ["--solver", "glpk"]])
def test_bad_battery_arguments(cli, args):
    result = cli("views", "battery", *args)
    assert result.code == 2 and result.err.count("\n") == 1


def cpu_of(pid: int) -> float | None:
    """The CPU seconds (user + system) process `pid` has used so far, None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # fields[0] is the state, the 3rd of stat
    return (int(fields[11]) + int(fields[12])) / TICK


def test_the_battery_returns_with_no_process_left_and_counts_its_workers_cpu(tmp_path):
    """A real `views battery` in its own session: while it runs, the CPU each process below
    it has used is sampled (a lower bound of what each used in all); once it exits, none of
    them may be left, and its CPU figure must hold at least their sum."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", "views", "battery",
                              "--count", "200", "--jobs", "2", "--json"], cwd=tmp_path,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    used: dict[int, float] = {}
    try:
        while child.poll() is None:
            for pid in session_members(child.pid) - {child.pid}:
                cpu = cpu_of(pid)
                if cpu is not None:
                    used[pid] = max(used.get(pid, 0.0), cpu)
            # Each look reads all of /proc: looking more often only takes a core from the
            # battery (a worker lives for the whole battery, so none is missed).
            time.sleep(0.02)
        left = session_members(child.pid)
    finally:
        stragglers = gone({child.pid}, within=2.0)
        child.kill()
        out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    assert left == set() and stragglers == set()
    data = json.loads(out)
    assert data["count"] == 200 and data["jobs"] == 2
    # The forkserver, the resource tracker and the pool's workers.
    assert len(used) >= 3, used
    assert data["cpu_seconds"] >= sum(used.values()) > 0, (data["cpu_seconds"], used)


@pytest.mark.slow
def test_full_battery(cli, tmp_path):
    out = tmp_path / "all.txt.gz"
    data = battery_json(cli, "--output", out, "--cross-check", "200")
    assert data["count"] == 1_000_000
    assert data["unproved"] == [] and data["verify_failed"] == []
    assert data["cross_check"]["agree"] == data["cross_check"]["checked"] == 200
    # The figures measured when the battery was first run (docs/views.md).
    assert (data["solvable"], data["total_cubes"]) == (5360, 69519)
