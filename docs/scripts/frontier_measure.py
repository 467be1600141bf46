"""The comparisons behind docs/frontier.md: one JSON line per run on stdout.

    python docs/scripts/frontier_measure.py n6 METHOD SEED CPU_SECONDS [STATE_DIR] [--near DIR]
    python docs/scripts/frontier_measure.py n5 METHOD SEED CPU_SECONDS

--near DIR: the run's best state also goes to DIR/near.jsonl.gz, the near-solutions a hunt
keeps (hunt/near.py: kept if its count is among the two lowest there; several runs may feed
one directory side by side); `ilp-pyramid hunt 6 --state-dir DIR --near` lists them.

METHOD: fixed (the hunt's walk: single-line moves at T=0.3, kicked restarts near the best,
whole-family repairs by the default level: from N=6 at 1 repeated cube since commit 65850e6,
at 3 before), tempering (the same walk as replicas on a temperature ladder), no-repairs (the
fixed walk without its whole-family repairs: `Settings(repair_share=0)`), covers-at-1 and
covers-at-3 (the fixed walk with whole-family repairs at 1 or at <= 3 repeated cubes:
`Settings(repair_at=...)`; covers-at-3 is what fixed ran before 65850e6). The dual walk
and the alternation were measured with this script as of commit 85b9651 (methods dual and
alternate there), then deleted with lns/dual.py (docs/frontier.md); late acceptance as of
commit ebb417c (method late-L there), deleted with its schedule; tabu as of commit 94efe15
(method tabu-K there), deleted with its tenure; the soft repair by MaxSAT as a move of the
walk as of commit a096a4e (method soft there), deleted with lns/soft.py (docs/frontier.md).
n6: the best count after a CPU budget (this process's CPU time); n5: CPU seconds to a
verified solution, or null past the budget. Every figure is CPU time, so runs side by side
on a shared machine stay comparable; the load average is recorded before and after.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ilp_pyramid.puzzles.bel.hunt.near import update_near
from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, Settings, solve_lns
from ilp_pyramid.puzzles.bel.lns.race import process_cpu as cpu

# METHOD -> the Settings it changes from the fixed walk's
METHODS = {"fixed": {}, "tempering": {"schedule": "tempering"},
           "no-repairs": {"repair_share": 0.0}, "covers-at-1": {"repair_at": 1},
           "covers-at-3": {"repair_at": 3}}


def run_line_walk(n, method, seed, budget, start, near_dir=None):
    began = cpu()
    reached = {}  # repeated cubes -> the CPU second the run first stood there

    def on_best(count, labels):
        reached.setdefault(int(count), round(cpu() - began, 1))

    settings = Settings(restart_from_best=n >= 6, **METHODS[method])
    outcome = solve_lns(n, seed=seed, start=start, on_best=on_best, settings=settings,
                        should_stop=lambda: cpu() - began > budget)
    row = {"best": outcome.best_conflicts, "moves": outcome.moves,
           "solved": outcome.status == SOLVED, "cpu": round(cpu() - began, 1),
           "reached": {k: v for k, v in sorted(reached.items()) if k <= 6},
           "repair_seconds": round(outcome.repair_seconds, 1),
           "repairs": outcome.repair_summary()}
    if outcome.best_conflicts <= 1:  # lower than any state kept so far: keep its labels
        row["labels"] = outcome.best_labels.tolist()
    if near_dir is not None:
        store = update_near(Path(near_dir), n, [(outcome.best_labels, {
            "by": "measure", "method": method, "seed": seed, "run_seed": seed})])
        row["near_kept"] = len(store)
    return row


def main() -> None:
    args = sys.argv[1:]
    near_dir = None
    if "--near" in args:
        at = args.index("--near")
        near_dir = args[at + 1]
        del args[at:at + 2]
    size, method, seed, budget = args[0], args[1], int(args[2]), float(args[3])
    n = 6 if size == "n6" else 5
    start = None
    if len(args) > 4:
        from ilp_pyramid.puzzles.bel.hunt.state import load_best

        start = load_best(Path(args[4]), n).labels
    load_before = os.getloadavg()[0]
    wall = time.perf_counter()
    if method not in METHODS:
        raise SystemExit(f"unknown method {method}")
    row = run_line_walk(n, method, seed, budget, start, near_dir)
    row.update(n=n, method=method, seed=seed, budget=budget, resumed=start is not None,
               wall=round(time.perf_counter() - wall, 1), load_before=round(load_before, 2),
               load_after=round(os.getloadavg()[0], 2), date=time.strftime("%Y-%m-%d %H:%M"))
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
