"""A search without a solution keeps its closest state: `solve N` stopped by Ctrl-C (exit
130) or by its time limit (exit 3) prints the best state it reached, its labels and its count
of repeated cubes (--json: `best`, the form of a hunt's best.json), one race or one search."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from ilp_pyramid.progress import PROGRESS_FD_VARIABLE
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.verify.bel import verify_solution


def interrupted(args: list[str]) -> tuple[subprocess.CompletedProcess, int]:
    """`ilp-pyramid ARGS` stopped by SIGINT to its group (as Ctrl-C or the workbench's Stop)
    once its live measures show a best count; its answer and the last count seen."""
    reader, writer = os.pipe()
    child = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=(writer,),
                             env=dict(os.environ, **{PROGRESS_FD_VARIABLE: str(writer)}))
    os.close(writer)
    seen = None
    with os.fdopen(reader, "rb") as feed:
        deadline = time.monotonic() + 120
        for line in feed:  # one JSON object a line, a few a second
            seen = json.loads(line).get("best", seen)
            if seen is not None or time.monotonic() > deadline:
                break
        assert seen is not None, "no best count before the deadline"
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=30)
    return subprocess.CompletedProcess(args, child.returncode, out.decode(), err.decode()), seen


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_prints_the_best_state_as_the_one_json_object(jobs):
    done, seen = interrupted(["solve", "6", "--json", "--jobs", str(jobs),
                              "--time-limit", "300"])
    assert done.returncode == 130
    assert done.stderr.strip().splitlines()[-1] == "error: interrupted"
    data = json.loads(done.stdout)  # exactly one JSON object
    assert data["status"] == "interrupted" and data["message"] == "interrupted"
    assert data["solution"] is None and data["jobs"] == jobs
    best = data["best"]
    assert best["n"] == 6 and 0 < best["conflicts"] == data["best_conflicts"] <= seen
    # The labels are the state counted: the checker finds that many repeated cubes.
    assert verify_solution(parse_json(json.dumps(best))).conflicts == best["conflicts"]


def test_ctrl_c_in_text_mode_says_the_best_count():
    done, seen = interrupted(["solve", "6", "--jobs", "1", "--time-limit", "300"])
    assert done.returncode == 130
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("interrupted after ") and last.endswith(" repeated cubes")
    assert 0 < int(last.split("best state had ")[1].split()[0]) <= seen


def test_the_time_limit_keeps_the_best_state_too(cli):
    done = cli("solve", 6, "--method", "lns", "--jobs", 1, "--time-limit", 0.5, "--json")
    assert done.code == 3
    data = json.loads(done.out)
    assert data["status"] == "timeout" and data["message"] == "time limit reached"
    best = data["best"]
    assert best["n"] == 6 and best["conflicts"] == data["best_conflicts"] > 0
    assert verify_solution(parse_json(json.dumps(best))).conflicts == best["conflicts"]
