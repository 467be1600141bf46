"""`ilp-pyramid bench`: the one benchmark runner of the package, and the source of every
measured table in the README.

- bel_grid.py: the Bel grid (sizes x solvers x formulations x strategy sets x repeats);
- commands.py: argv templates of any command, the package's or an outside program's;
- runner.py: one run in its own process group (wall, CPU, memory, hard kill, signals);
- session.py: runs in turn, each recorded and appended at once; resume; clean stop;
- records.py: the JSON-lines results file (machine facts per record, defensive reading);
- summary.py, render.py: tables and plots from records; README blocks regenerated;
- cli.py: the `bench`, `bench report` and `bench render` commands.

Names are loaded on first use, so that importing the runner does not import a puzzle.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "RunSpec": "bel_grid", "grid": "bel_grid", "parse_sizes": "bel_grid",
    "parse_list": "bel_grid",
    "parse_strategy_sets": "bel_grid", "CommandSpec": "commands", "Template": "commands",
    "command_grid": "commands", "parse_template": "commands", "run_one": "session",
    "run_all": "session", "read_results": "records", "latest_by_key": "records",
    "summarize": "summary", "summarize_records": "summary", "plot": "summary",
}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'ilp_pyramid.bench' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ilp_pyramid.bench.{_HOMES[name]}"), name)
