"""`bench --scheduler`: runs on a real Dask cluster (a `dask scheduler` and two `dask worker`
processes on 127.0.0.1: conftest's `dask_cluster`), records streamed into the results file
with the worker that ran them, --resume, and Ctrl-C that keeps the finished records and
leaves no run going on the workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED_DASK
from tests.proctools import descendants, left_alive, signal_and_time

pytest.importorskip("distributed", reason="Dask's distributed is not installed")

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def bench(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ilp_pyramid", "bench", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=ENV, **popen)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@SHARED_DASK
def test_the_clusters_workers_run_without_the_profiler_no_dashboard_shows(dask_cluster):
    """scheduler_and_workers' processes have no dashboard: their profiler would only spend
    CPU that a measurement of them counts (bench/dask_processes.py)."""
    import dask
    from distributed import Client

    with Client(dask_cluster[0], timeout="20s") as client:
        seen = client.run(lambda: (dask.config.get("distributed.worker.profile.enabled"),
                                   dask.config.get("distributed.admin.tick.interval")))
    assert len(seen) == 2 and set(seen.values()) == {(False, "1000ms")}


@SHARED_DASK
@pytest.mark.slow  # a Dask cluster's start-up
def test_bench_runs_on_the_cluster_and_resumes(dask_cluster, tmp_path):
    address, _ = dask_cluster
    results = tmp_path / "r.jsonl"
    grid = ["--n", "2", "--solver", "highs,kissat", "--repeat", "3", "--time-limit", "30",
            "--scheduler", address, "--results", str(results), "--json"]
    run = bench(*grid)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    summary = json.loads(out)
    assert summary["ran_now"] == 6
    found = records(results)
    assert len(found) == 6 and {r["status"] for r in found} == {"solved"}
    assert {r["host"] for r in found} == {socket.gethostname()}
    workers = {r["worker"] for r in found}
    assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
    for record in found:  # measured on the worker as on one machine
        assert record["wall_seconds"] > 0 and record["cpu_seconds"] > 0
        assert record["peak_rss_mb"] > 10 and record["solution"]
    again = bench(*grid, "--resume")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert json.loads(out)["ran_now"] == 0 and len(records(results)) == 6


@SHARED_DASK
@pytest.mark.slow  # seconds of wall time: the default suite keeps its budget
def test_ctrl_c_cancels_the_cluster_runs_and_keeps_the_finished(dask_cluster, tmp_path):
    """Two quick runs (N=2), then two that would take the whole 60 s limit (HiGHS, N=4):
    SIGINT once those run exits 130 within 2 s, keeps the two records and stops the two
    solves on the workers."""
    address, worker_pids = dask_cluster
    results = tmp_path / "r.jsonl"
    run = bench("--n", "2,4", "--solver", "highs", "--repeat", "2", "--time-limit", "60",
                "--scheduler", address, "--results", str(results))
    try:
        deadline = time.monotonic() + 60
        while (not results.exists() or len(records(results)) < 2) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(records(results)) == 2, run.stderr.read1().decode()
        solves: set[int] = set()
        while len(solves) < 2 and time.monotonic() < deadline:
            solves = {pid for worker in worker_pids for pid in descendants(worker)
                      if b"solve\x004" in Path(f"/proc/{pid}/cmdline").read_bytes()}
            time.sleep(0.1)
        assert len(solves) >= 2, "the N=4 runs did not start on the workers"
        code, took = signal_and_time(run, signal.SIGINT)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    err = run.stderr.read().decode()
    assert code == 130 and took < 2.0, (code, took, err)
    assert "2 finished runs of this session kept" in err.strip().splitlines()[-1]
    kept = records(results)
    assert len(kept) == 2 and {r["params"]["n"] for r in kept} == {2}
    # the workers look at the stop flag every 0.5 s; a killed run may take a while to die
    assert not (left := left_alive(solves)), f"runs left on the workers: {left}"
