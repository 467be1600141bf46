"""The one benchmark runner of the package (`ilp-pyramid bench`, `ilp_pyramid.run_bench`), and
the source of every measured table in the README.

- grid.py: a puzzle's grid (its bench cases from the registry x extra axes x solvers x
  repeats), and the parsing of those dimensions;
- commands.py: argv templates of any command, the package's or an outside program's;
- runner.py: one run in its own process group (wall, CPU, memory, hard kill, signals);
- session.py: runs in turn, each recorded and appended at once; clean stop;
- records.py: the JSON-lines results file (machine facts per record, defensive reading);
- summary.py, render.py: tables and plots from records; README blocks regenerated;
- scores.py, plots.py: the field's scores (PAR-2, the virtual best solver) and pictures
  (cactus plots, performance profiles) from records;
- the `bench`, `bench report`, `bench plot` and `bench render` commands (and --resume)
  are the command line's: ilp_pyramid/cli/bench.py. Nothing here imports ilp_pyramid.cli.

The bench imports no puzzle: it reaches one through the registry (`ilp_pyramid.puzzles.get`)
and the protocol. Names are loaded on first use, so that importing the runner stays light.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "PuzzleRun": "grid", "puzzle_grid": "grid", "puzzle_runs": "grid", "parse_sizes": "grid",
    "parse_list": "grid", "parse_axis": "grid", "CommandSpec": "commands",
    "Template": "commands", "command_grid": "commands", "parse_template": "commands",
    "run_one": "session", "run_all": "session", "read_results": "records",
    "latest_by_key": "records", "summarize_records": "summary", "plot": "summary",
}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'ilp_pyramid.bench' has no attribute {name!r}")
    return getattr(importlib.import_module(f"ilp_pyramid.bench.{_HOMES[name]}"), name)
