"""`ilp_pyramid.run_bench`: a puzzle's bench grid from Python, the records as rows.

The same runs as `ilp-pyramid bench --puzzle NAME` (bench/grid.py: each its own process,
with the same hard limit, wall and CPU seconds, memory), for a notebook:

    rows = ilp_pyramid.run_bench("bel", sizes=[2, 3], solvers=["highs", "kissat"])
    pandas.DataFrame(rows)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ilp_pyramid.bench.grid import default_solvers, parse_list, puzzle_runs
from ilp_pyramid.bench.records import check_results_path, latest_by_key, read_results
from ilp_pyramid.bench.runner import hard_limit


def run_bench(puzzle: str, sizes: Sequence[int] | None = None,
              solvers: Sequence[str] | None = None, repeats: int = 1,
              time_limit: float = 60.0, grid: Mapping[str, Sequence[str]] | None = None,
              results: str | Path | None = None, kill_after: float | None = None,
              solver_seeds: int = 0) -> list[dict]:
    """Run `puzzle`'s bench grid (its cases for `sizes` x `grid` axes x `solvers` x
    `repeats`) and return one row per run: the record `bench` writes, with the grid point's
    params as columns of their own (`n`, `formulation`, ...) beside `solver`, `repeat`,
    `seed`, `solver_seed`, `status`, `solve_seconds` (the solver's own), `wall_seconds`,
    `cpu_seconds`, ...

    `solvers` defaults to those of the bench's default list the puzzle takes; `grid` maps an
    option to its values (`{"formulation": ["counts", "rotations"]}`: each run gets
    `--formulation V`); `results` also appends every record to that JSON-lines file (and
    skips the runs it holds, as `bench --resume`); `solver_seeds` K runs each repeat once per
    solver seed 0..K-1 (`bench --solver-seeds`). InputError for a grid the puzzle refuses.
    """
    from ilp_pyramid.bench.session import run_all

    axes = [(name, [str(value) for value in values]) for name, values in (grid or {}).items()]
    runs = puzzle_runs(puzzle, sizes, list(solvers or parse_list(default_solvers(), "solver")),
                       axes, time_limit, repeats, default_solvers=solvers is None,
                       solver_seeds=solver_seeds)
    path = Path(results) if results is not None else None
    done: dict[str, dict] = {}
    if path is not None:
        check_results_path(path, writable=True)
        done = latest_by_key(read_results(path))
    pending = [run for run in runs if run.key() not in done]
    run_all(pending, kill_after or hard_limit(time_limit), path, done, quiet=True)
    return [_row(done[run.key()]) for run in runs if run.key() in done]


def _row(record: dict) -> dict:
    params = record.get("params") or {}
    row = {name: value for name, value in record.items() if name != "params"}
    return {"puzzle": row.pop("puzzle", None), **params, **row}
