"""What runs in a counting child (count.py's methods, count_split.py's pieces): the process
set apart from the command's signals, and one formula's model count by an exact counter."""

from __future__ import annotations

import signal

from ilp_pyramid.backends.process import die_with_parent
from ilp_pyramid.puzzles.bel.count_cnf import d4_count, ganak_count, scip_count


def detach_child() -> None:
    """In a forked counting child: Ctrl-C and SIGTERM reach the whole process group, but only
    the parent decides (it kills the child on leaving `forked`). Blocked, not ignored: a
    solver library that installs its own SIGINT handler while it runs (python-sat does) would
    otherwise end the child first, and the parent would read a lost child, not a signal."""

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    die_with_parent()


# The exact counters ask a SAT solver first, and count only a formula it finds satisfiable:
# Ganak (pyganak 2.8) spends far longer on some unsatisfiable formulas than on satisfiable
# ones of the same size, most pieces of a split count (count_split.py) and most fixed-point
# formulas are unsatisfiable, and a SAT solver settles those at once. Such a formula's 0 is
# the SAT solver's, a different one for each counter, so the two columns stay independent.
# The cover count (count_cover.py) asks MiniSat first about each fixed-point formula: its
# search has no propagation of the (g, pi) constraints and spends long on an empty one.
SAT_FIRST = {"d4": "glucose4", "ganak": "cadical195", "cover": "minisat22"}


def satisfiable(method: str, clauses: list[list[int]]) -> bool:
    """The counter's SAT solver (SAT_FIRST; CaDiCaL for the others) on `clauses`."""
    from pysat.solvers import Solver

    with Solver(name=SAT_FIRST.get(method, "cadical195"), bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def model_count(method: str, clauses: list[list[int]], num_vars: int, decompose: bool) -> int:
    """The models of `clauses` by `method`'s counter (0 when its SAT solver finds none);
    `decompose` False skips D4's tree decomposition."""
    if method in SAT_FIRST and not satisfiable(method, clauses):
        return 0
    if method == "d4":
        return d4_count(clauses, num_vars, decompose)
    return {"ganak": ganak_count, "scip": scip_count}[method](clauses, num_vars)
