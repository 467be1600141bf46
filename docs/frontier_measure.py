"""The comparisons behind docs/frontier.md: one JSON line per run on stdout.

    python docs/frontier_measure.py n6 METHOD SEED CPU_SECONDS [STATE_DIR]
    python docs/frontier_measure.py n5 METHOD SEED CPU_SECONDS

METHOD: fixed (the hunt's walk: single-line moves at T=0.3, kicked restarts near the best),
tempering (the same walk as replicas on a temperature ladder), dual (cubes placed, lines in
conflict: lns/dual.py), alternate (dual and line walk taking turns, each seeding the other).
n6: the best count after a CPU budget (this process's CPU time); n5: CPU seconds to a
verified solution, or null past the budget. Every figure is CPU time, so runs side by side
on a shared machine stay comparable; the load average is recorded before and after.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of, labels_to_solution
from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, Settings, solve_lns
from ilp_pyramid.puzzles.bel.lns.dual import DualSearch
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, random_labels
from ilp_pyramid.verify.bel import verify_solution

DUAL = {"temperature": 0.2, "p_turn": 0.2}  # measured on N=4/5 (docs/frontier.md)
CHUNK = 200_000


def cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_line_walk(n, schedule, seed, budget, start):
    began = cpu()
    outcome = solve_lns(n, seed=seed, start=start,
                        settings=Settings(restart_from_best=n >= 6, schedule=schedule),
                        should_stop=lambda: cpu() - began > budget)
    return {"best": outcome.best_conflicts, "moves": outcome.moves,
            "solved": outcome.status == SOLVED, "cpu": round(cpu() - began, 1)}


def run_dual(n, seed, budget, start):
    began = cpu()
    rng = np.random.default_rng(seed)
    dual = (DualSearch.from_labels(n, start, rng, seed, w_lines=0.0) if start is not None
            else DualSearch.random(n, rng, seed, w_lines=0.0))
    best_cubes = conflicts_of(n, dual.labels())
    while cpu() - began < budget and dual.lines_in_conflict > 0:
        dual.run(CHUNK, **DUAL)
        best_cubes = min(best_cubes, conflicts_of(n, dual.labels()))
    solved = dual.lines_in_conflict == 0 and verify_solution(
        labels_to_solution(n, dual.labels())).valid
    return {"best": best_cubes, "best_lines": dual.best_lines, "moves": dual.moves,
            "solved": solved, "cpu": round(cpu() - began, 1)}


def run_alternate(n, seed, budget, start, rounds_moves=(2_000_000, 5_000_000)):
    """Line walk for a round, its best state seeds the dual walk for a round, the dual's
    majority labels seed the line walk again, and so on."""
    began = cpu()
    rng = np.random.default_rng(seed)
    labels = start if start is not None else random_labels(n, rng)
    best = conflicts_of(n, labels)
    moves = 0
    single = Settings().single_share(n)
    r = 0
    while cpu() - began < budget and best > 0:
        walk = LocalSearch(n, labels, seed + r)
        walk.run(rounds_moves[0], 0.3, p_single=single)
        moves += walk.moves
        best = min(best, walk.best)
        dual = DualSearch.from_labels(n, walk.best_labels, rng, seed + r, w_lines=0.0)
        dual.run(rounds_moves[1], **DUAL)
        moves += dual.moves
        labels = dual.labels()
        best = min(best, conflicts_of(n, labels))
        r += 1
    return {"best": best, "moves": moves, "solved": best == 0, "cpu": round(cpu() - began, 1),
            "rounds": r}


def main() -> None:
    size, method, seed, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    n = 6 if size == "n6" else 5
    start = None
    if len(sys.argv) > 5:
        from pathlib import Path

        from ilp_pyramid.puzzles.bel.hunt import load_best

        start = load_best(Path(sys.argv[5]), n).labels
    load_before = os.getloadavg()[0]
    wall = time.perf_counter()
    if method in ("fixed", "tempering"):
        row = run_line_walk(n, method, seed, budget, start)
    elif method == "dual":
        row = run_dual(n, seed, budget, start)
    elif method == "alternate":
        row = run_alternate(n, seed, budget, start)
    else:
        raise SystemExit(f"unknown method {method}")
    row.update(n=n, method=method, seed=seed, budget=budget, resumed=start is not None,
               wall=round(time.perf_counter() - wall, 1), load_before=round(load_before, 2),
               load_after=round(os.getloadavg()[0], 2), date=time.strftime("%Y-%m-%d %H:%M"))
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
