"""A seed fixes the answer: the same command with the same seed prints the same solution,
however fast the machine runs it (a study stands on reruns)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ilp_pyramid.backends import sat
from ilp_pyramid.backends.solvers import solver

ROOT = Path(__file__).resolve().parents[1]


def _random_3sat(variables: int, clauses: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[v * rng.choice((1, -1)) for v in rng.sample(range(1, variables + 1), 3)]
            for _ in range(clauses)]


def _solve_with_clock(clauses: list[list[int]], tick: float, monkeypatch) -> list[int]:
    """A one-shot session whose clock advances `tick` seconds at every reading: a fast and a
    slow machine, as far as the session can tell."""
    now = [0.0]

    def clock() -> float:
        now[0] += tick
        return now[0]

    monkeypatch.setattr(sat.time, "perf_counter", clock)
    with sat.SatSession(clauses, solver("minisat22"), one_shot=True) as session:
        result = session.solve()
    assert result.status == sat.Status.SOLVED
    return result.model


def test_the_model_does_not_depend_on_how_fast_the_slices_run(monkeypatch):
    # Near the threshold: thousands of conflicts, so the solve runs in many slices.
    clauses = _random_3sat(220, 900, seed=7)
    fast = _solve_with_clock(clauses, 1e-5, monkeypatch)
    slow = _solve_with_clock(clauses, 0.5, monkeypatch)
    assert fast == slow


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
@pytest.mark.parametrize("n", [5])
def test_solve_with_a_seed_prints_the_same_solution_twice(n):
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "solve", str(n), "--seed",
                               "0", "--json"], capture_output=True, text=True, cwd=ROOT,
                              timeout=240, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(json.loads(done.stdout))
    assert outputs[0]["status"] == outputs[1]["status"] == "solved"
    assert outputs[0]["solution"] == outputs[1]["solution"]
