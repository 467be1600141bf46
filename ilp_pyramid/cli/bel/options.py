"""The options of Bel's `solve` and `export` (model, strategies, solver) and their checks:
each wrong value is one line on stderr and exit 2 before anything is built."""

from __future__ import annotations

import typer

from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.cli.options import check_memory, err_console, fail
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.footprint import model_bytes
from ilp_pyramid.puzzles.bel.geometry import MAX_N
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE, unsound_pairs

FormulationOpt = typer.Option("counts", "--formulation",
                              help="counts (cell-cube assignment linked by label counts) | "
                                   "rotations (one binary per cell x cube x rotation); "
                                   "SAT/CNF also: support (forward clauses only).")
CardOpt = typer.Option(None, "--card",
                       help="SAT/CNF: pysat.card encoding of 'one cell per cube' "
                            "(seqcounter, totalizer, ladder, pairwise, ...; default: the best "
                            "measured, docs/sat.md).")
SolverOptionOpt = typer.Option([], "--solver-option",
                               help="NAME=VALUE passed to the MIP solver as it is "
                                    "(repeatable): a SCIP parameter (misc/usesymmetry=0, "
                                    "emphasis=feasibility), a HiGHS option "
                                    "(mip_detect_symmetry=false), a Gurobi parameter "
                                    "(Symmetry=2), a CBC flag (cuts=off).")
StrategyOpt = typer.Option([], "--strategy", help="Add a strategy (repeatable, or A+B); see "
                           "`ilp-pyramid strategies`; `none` for no strategy at all.")

def split_strategies(names: list[str]) -> list[str]:
    """`--strategy A+B` is `--strategy A --strategy B`: a strategy set is one value (one value
    of a bench axis, `bench --grid strategy=none,A+B`)."""
    return [part for name in names for part in name.split("+") if part]


def check_strategies(names: list[str]) -> None:
    if "none" in names and len(names) > 1:
        fail("--strategy none cannot be combined with other strategies")
    for name in names:
        if name not in CATALOGUE and name != "none":
            fail(f"unknown strategy {name!r} (see `ilp-pyramid strategies`)")
    pairs = unsound_pairs([name for name in names if name != "none"])
    if pairs:
        listed = ", ".join(f"{a} + {b}" for a, b in pairs)
        err_console.print(f"warning: {listed} not known to combine soundly: an infeasible "
                          f"answer is not a proof", markup=False)


def chosen_strategies(names: list[str]) -> list[str] | None:
    """The strategies a run uses: as given, `none` for none; None when none is given, which
    `protocol.solve` reads as the solver's default (the puzzle's SOLVER_DEFAULTS)."""
    if names == ["none"]:
        return []
    return names or None


def check_n(n: int, where: str = "") -> None:
    """The one range check for N, from the command line or read from a file (`where`)."""
    if not 1 <= n <= MAX_N:
        fail(f"{where}N must be between 1 and {MAX_N} (got {n})")


def check_model_memory(n: int, formulation: str, form: str) -> None:
    check_memory(model_bytes(n, formulation, form), f"the N={n} {formulation} model")


def check_solver(solver: str) -> tuple[solvers.Solver, str]:
    """The solver and the form of Bel's model it takes; exit 2 for a solver that takes no
    form of it (dlx), or whose library is missing."""
    try:
        entry = protocol.solver_for(PUZZLE, solver)
        return entry, protocol.pick_form(PUZZLE, entry)
    except InputError as exc:
        fail(str(exc))


def parse_solver_options(items: list[str], solver: solvers.Solver) -> dict:
    """'name=value' items -> {name: value}, numbers and true/false read as such; for a
    solver whose table line takes `parameters` (the MIP ones) (the others take none by name)."""
    if items and not solver.parameters:
        fail(f"--solver-option is for the MIP solvers, the ones that take parameters by "
             f"name ({', '.join(solvers.names(can='parameters'))})")
    options: dict = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            fail(f"--solver-option {item!r}: expected NAME=VALUE")
        options[name.strip()] = _option_value(text.strip())
    return options


def _option_value(text: str) -> object:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def check_formulation(formulation: str, form: str = "mip") -> None:
    if form == "mip":
        from ilp_pyramid.puzzles.bel.model import FORMULATIONS as choices  # loads PuLP
    else:
        from ilp_pyramid.puzzles.bel.cnf import ENCODINGS as choices  # python-sat
    if formulation not in choices:
        fail(f"unknown formulation {formulation!r} (choose from {', '.join(choices)})")


def check_card(card: str | None) -> None:
    from ilp_pyramid.puzzles.bel.cnf import CARD_ENCODINGS  # python-sat

    if card is not None and card not in CARD_ENCODINGS:
        fail(f"unknown cardinality encoding {card!r} (choose from {', '.join(CARD_ENCODINGS)})")
