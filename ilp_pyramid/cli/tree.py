"""The command tree: one table of every command and group, built into a Typer app.

Modules are named here and imported only for the command that runs: `solve 3` need not load
the benchmark, Dask, plotting or the other puzzles (whole-process time is what a user
measures), and `--help` loads no command at all (the listing's lines are SUMMARIES).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import ilp_pyramid

if TYPE_CHECKING:
    import typer

HELP = ("Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC, SCIP) and SAT side "
        "by side.")

COMMAND, GROUP, PUZZLE = "command", "group", "puzzle"

# name -> (kind, "module:attribute"), commands and groups in help order, then the puzzles'
# groups. A COMMAND is a function, a GROUP a Typer app; a PUZZLE's entry is its hand-written
# group (a Typer app), completed with the standard commands it lacks (cli/puzzle.py). A
# registered puzzle without an entry gets the standard group alone: `puzzle_groups` lists
# every one, in the registry's order.
TREE: dict[str, tuple[str, str]] = {
    "solve": (COMMAND, "ilp_pyramid.cli.bel.solve:solve"),
    "verify": (COMMAND, "ilp_pyramid.cli.bel.files:verify"),
    "render": (COMMAND, "ilp_pyramid.cli.bel.pictures:render"),
    "export": (COMMAND, "ilp_pyramid.cli.bel.files:export"),
    "read-solution": (COMMAND, "ilp_pyramid.cli.bel.files:read_solution"),
    "models": (COMMAND, "ilp_pyramid.cli.models:models"),
    "solve-cnf": (COMMAND, "ilp_pyramid.cli.cnf:solve_cnf"),
    "strategies": (COMMAND, "ilp_pyramid.cli.bel.info:strategies"),
    "info": (COMMAND, "ilp_pyramid.cli.bel.info:info"),
    "count": (COMMAND, "ilp_pyramid.cli.bel.count:count"),
    "bench": (GROUP, "ilp_pyramid.cli.bench:app"),
    "hunt": (COMMAND, "ilp_pyramid.cli.bel.hunt:hunt"),
    "conquer": (COMMAND, "ilp_pyramid.cli.bel.conquer:conquer"),
    "ui": (COMMAND, "ilp_pyramid.cli.ui:ui"),
    "views": (PUZZLE, "ilp_pyramid.cli.views:app"),
    "iq": (PUZZLE, "ilp_pyramid.cli.iq:app"),
    "sudoku-cube": (PUZZLE, "ilp_pyramid.cli.sudoku_cube:app"),
}
# Bel's Pyramid, the flagship, has its commands at the top level rather than in a group.
TOP_LEVEL_PUZZLE = "bel"


def puzzle_groups() -> list[str]:
    """The registered puzzles that get a command group: every one but the flagship."""
    from ilp_pyramid import puzzles

    return [name for name in puzzles.names() if name != TOP_LEVEL_PUZZLE]


def entries() -> list[tuple[str, str, str | None]]:
    """(name, kind, "module:attribute" or None) of every command and group, in help order."""
    top = [(name, kind, spec) for name, (kind, spec) in TREE.items() if kind != PUZZLE]
    return top + [(name, PUZZLE, TREE[name][1] if name in TREE else None)
                  for name in puzzle_groups()]


# What `ilp-pyramid --help` lists for each entry (the first sentence of its own help), so the
# listing loads no command module and no puzzle (a puzzle group's line is its Puzzle's
# `title`, from `puzzles.TITLES`); tests/test_startup.py checks them against the commands.
SUMMARIES = {
    "solve": "Solve Bel's Pyramid of N levels and print the verified solution in Knuth's "
             "drawing.",
    "verify": 'Check a solution: exit 0 "valid", 1 with the reasons, 2 if the file is '
              'malformed.',
    "render": "Draw a solution (after verifying it): a PNG, an interactive HTML view, the build "
              "list.",
    "export": "Export the model as LP or MPS with readable, stable variable names, or as DIMACS "
              "CNF whose comment lines map every variable (`c x 17 Z 3 4 label 2`).",
    "read-solution": "Decode an outside solver's solution of an exported model by name, verify "
                     "and draw it.",
    "models": "(Re)generate a public benchmark set: Bel N=2..max-n as .mps.gz and .cnf.gz "
              "plus manifest.json, or with --puzzle all the library of every puzzle.",
    "solve-cnf": "Solve a DIMACS CNF file with one SAT solver: exit 0 SATISFIABLE (the model "
                 "checked against every clause), 1 UNSATISFIABLE, 3 time limit.",
    "strategies": "List every strategy: what it adds, and whether it can lose solutions.",
    "info": "Sizes of the pyramid and the order of its symmetry group (by formula, instantly).",
    "count": "Count Bel's Pyramids of N levels: labelled, and up to symmetry (the pyramid's "
             "4^N incidence automorphisms times the (2N-1)! label renamings).",
    "hunt": "Hunt for a Bel's Pyramid solution: one hybrid search per core, as long as it "
            "takes.",
    "conquer": "Cube-and-conquer Bel's Pyramid under a named hypothesis set, resumable, on a "
               "cluster.",
    "ui": "Start the local web workbench: one page per puzzle, enter it by clicking, watch "
          "it solve, stop it (docs/ui.md).",
    "bench": "Time runs, each in its own process: a puzzle's grid (its cases x solvers x "
             "repeats; Bel's by default), or --command / --external argv templates; tables "
             "from the records.",
}


def load(spec: str) -> Any:
    """The object a "module:attribute" names, its module imported now."""
    module, attribute = spec.split(":")
    return getattr(importlib.import_module(module), attribute)


def chosen(argv: list[str]) -> str | None:
    """The command or group the command line names first, if it names one."""
    first = argv[0] if argv else None
    return first if any(first == name for name, _, _ in entries()) else None


def build_app(only: str | None = None, listing: bool = False,
              then: str | None = None) -> typer.Typer:
    """The command tree: every command, or just `only` (same paths, same help). `listing`:
    stand-ins that carry only SUMMARIES, for a command line that names no command (the
    top-level help, a mistyped command), where no command can run. `then`: the word after
    `only`, the command of a puzzle's group that runs (cli/puzzle.py loads the others'
    modules only when they run)."""
    import typer

    # rich markup off: help texts hold square brackets ("ilp-pyramid[cpsat]").
    app = typer.Typer(name="ilp-pyramid", help=HELP, no_args_is_help=True,
                      pretty_exceptions_enable=False, add_completion=False,
                      rich_markup_mode=None)
    # Typer lists commands before groups: the stand-ins (all commands) keep that order.
    listed = entries()
    if listing:
        listed = sorted(listed, key=lambda entry: entry[1] != COMMAND)
    for name, kind, spec in listed:
        if only not in (None, name):
            continue
        if listing:
            app.command(name, help=_summary(name, kind))(_stand_in)
        elif kind == COMMAND:
            app.command(name)(load(spec))
        elif kind == GROUP:
            sub = load(spec)
            sub.rich_markup_mode = None
            app.add_typer(sub, name=name)
        else:
            from ilp_pyramid import puzzles
            from ilp_pyramid.cli.puzzle import app_for

            puzzle = puzzles.get(name)
            sub = app_for(puzzle, load(spec) if spec else None, then)
            sub.rich_markup_mode = None
            app.add_typer(sub, name=name, help=puzzle.title)
    # Also what keeps a one-command tree a group (a Typer with one command and no callback
    # would *be* that command, with no name to type).
    def root(version: bool = typer.Option(False, "--version", callback=_version,
                                          is_eager=True, help="Print the version and exit.")
             ) -> None:
        """Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC, SCIP) and SAT."""

    app.callback()(root)
    return app


def _summary(name: str, kind: str) -> str:
    if kind != PUZZLE:
        return SUMMARIES[name]
    from ilp_pyramid import puzzles

    return puzzles.TITLES[name]


def _stand_in() -> None:  # pragma: no cover - listed, never run (see build_app)
    raise RuntimeError("a listing stand-in ran")


def version_line() -> str:
    return f"ilp-pyramid {ilp_pyramid.__version__}"


def _version(value: bool) -> None:
    if value:
        import typer

        print(version_line())
        raise typer.Exit()
