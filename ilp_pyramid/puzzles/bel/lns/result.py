"""The hybrid search run and answered as a solve result (`protocol.Result`), for whoever
runs it: `solve N --method lns` and auto's hybrid engines on the command line
(commands/lns.py prints it), `ilp_pyramid.solve("bel", N)` where auto picks a search
(auto_solve.py).

The result's `to_json()` has the common keys of every solve, then the exact method's keys
(formulation "lns", no strategy, the line count as its "variables"), the search's own and
the race's; without a solution, `best` is the closest state (a hunt's best.json form).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, labels_to_solution
from ilp_pyramid.puzzles.bel.lns.race import RaceOutcome, process_cpu, race_lns, seeds

# The hybrid search as a solve result: its "form" is no model a solver takes, but the search.
FORM = "lns"


def run_search(n: int, repair: str, time_limit: float | None, seed: int | None, jobs: int = 1,
               progress: Callable | None = None, on_best: Callable | None = None
               ) -> RaceOutcome:
    """One search in this process (`jobs` 1, as ever), or `jobs` racing (lns/race.py).
    `on_best(conflicts, labels)`: every new best state (of any search of a race)."""
    from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, solve_lns  # numba

    if jobs > 1:
        return race_lns(n, repair, jobs, time_limit, seed, progress, on_best)
    cpu0 = process_cpu()
    outcome = solve_lns(n, repair, time_limit=time_limit, seed=seed, progress=progress,
                        on_best=on_best)
    return RaceOutcome(outcome, 1, 0 if outcome.status == SOLVED else None, seeds(seed, 1)[0],
                       process_cpu() - cpu0)


def lns_result(race: RaceOutcome, json_extra: dict | None = None) -> protocol.Result:
    """The search's answer as a solve result: `to_json()` gives the common keys of every
    solve, then the exact method's keys, the search's own and the race's."""
    outcome = race.outcome
    solved = outcome.solution is not None
    status = (Status.SOLVED if solved else
              Status.INTERRUPTED if outcome.status == Status.INTERRUPTED else Status.TIMEOUT)
    return protocol.Result(
        "bel", status, f"lns+{outcome.repair}", FORM,
        outcome.seconds, solution=outcome.solution, instance=outcome.n,
        solve_seconds=outcome.seconds, model_options=search_options(outcome.repair),
        keys={**outcome_json(outcome), **race_json(race), **(json_extra or {})})


def search_options(repair: str) -> dict[str, str]:
    """The hybrid search's "model_options": it builds no solver model, so its settings in the
    names of the exact method's (formulation "lns", as its --json says, and no strategy) and
    the exact-cover repair it runs."""
    return {"formulation": "lns", "strategy": "none", "repair": repair}


def race_json(race: RaceOutcome) -> dict:
    """The --json keys of a race (also of a single search: jobs 1, search 0)."""
    return {"jobs": race.jobs,
            "winner": None if race.winner is None else {"search": race.winner,
                                                        "seed": race.seed},
            "cpu_seconds": round(race.cpu_seconds, 3)}


def outcome_json(outcome: Any) -> dict:
    """The exact method's --json keys, then the search's own; `best`, the closest state, when
    there is no solution (None before the search had a state)."""
    solved = outcome.solution is not None
    interrupted = outcome.status == Status.INTERRUPTED and not solved
    return {
        "n": outcome.n,
        "formulation": "lns",
        "strategies": [],
        "build_seconds": 0.0,
        "solve_seconds": round(outcome.seconds, 4),
        "variables": arrays(outcome.n).num_lines,
        "constraints": 0,
        "solution": outcome.solution.to_dict() if solved else None,
        "message": (f"found by {outcome.solved_by}" if solved else
                    "interrupted" if interrupted else "time limit reached"),
        "method": "lns",
        "repair": outcome.repair,
        "best_conflicts": outcome.best_conflicts if outcome.best_conflicts >= 0 else None,
        "moves": outcome.moves,
        "moves_per_second": round(outcome.moves_per_second),
        "restarts": outcome.restarts,
        "repairs": outcome.repair_summary(),
        "repair_seconds": round(outcome.repair_seconds, 3),
        "slowest_repair_seconds": round(outcome.slowest_repair, 3),
        "solved_by": outcome.solved_by,
        "best": None if solved else best_json(outcome),
    }


def best_json(outcome: Any) -> dict | None:
    """The closest state of a search without a solution: N, its repeated cubes, its labels
    (as a hunt's best.json has them), or None if the search had none yet."""
    if outcome.best_conflicts < 0 or len(outcome.best_labels) == 0:
        return None
    return {"n": outcome.n, "conflicts": outcome.best_conflicts,
            "solution": labels_to_solution(outcome.n, outcome.best_labels).to_dict()}
