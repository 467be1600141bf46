"""A weighted CNF on a plain SAT solver: the SAT-UNSAT linear search for its optimum.

The SAT solvers (kissat, cadical, ...) take the MaxSAT form (`pysat.formula.WCNF`) this way:

1. every soft clause gets a relaxation literal, true when the clause may be broken: for a
   unit soft clause [l] that is -l itself, for a longer clause C a fresh variable r and the
   hard clause C or r;
2. a model of the hard clauses alone gives the first cost: the number of soft clauses it
   breaks (unsatisfiable hard clauses: `infeasible`);
3. an incremental totalizer (python-sat's `ITotalizer`, built up to that first cost) counts
   the relaxation literals, and each model's cost c adds the unit clause "at most c - 1";
4. the first UNSAT proves the last model optimal (`solved`, `Result.objective` its broken
   weight).

Only equal weights are taken (then the broken weight is the weight times the count); unequal
ones are an InputError. Each model found goes back to the parent at once, so the time limit
answers `feasible` with the last model and its broken weight (the proof of optimality is
what the limit stopped, as a MIP solver's incumbent), or `timeout` before any model.

The search runs in a forked child, as the SAT backend's large formulas do
(`process.solve_forked`): the parent waits on a pipe for at most the limit, then kills the
child; SIGINT/SIGTERM while waiting kill it and raise `errors.Interrupted`. A solver whose
line has no `reuse` (Kissat solves only once per solver object, Lingeling too) gets a fresh
solver with all the clauses at each step; the others keep one solver and its learnt clauses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Result, SolveOptions
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Solver


def unit_weight(weights: Sequence[int]) -> int:
    """The one weight all soft clauses share (1 without any); InputError otherwise."""
    if len(set(weights)) > 1:
        raise InputError("a SAT solver's linear search takes soft clauses of equal weights "
                         f"only (got {min(weights)}..{max(weights)}); use rc2")
    return int(weights[0]) if weights else 1


def relaxed(hard: Sequence[Sequence[int]], soft: Sequence[Sequence[int]],
            top: int) -> tuple[list[list[int]], list[int], int]:
    """(clauses, relaxation literals, highest variable): the hard clauses, and each soft
    clause's literal that is true where it may be broken (see the module docstring)."""
    clauses = [list(clause) for clause in hard]
    relax = []
    for clause in soft:
        if len(clause) == 1:
            relax.append(-clause[0])
        else:
            top += 1
            clauses.append([*clause, top])
            relax.append(top)
    return clauses, relax, top


def broken(soft: Sequence[Sequence[int]], model: Sequence[int]) -> int:
    """How many soft clauses `model` (its literals, true > 0) leaves false."""
    true = set(model)
    return sum(1 for clause in soft if not any(lit in true for lit in clause))


def solve(hard: list[list[int]], soft: list[list[int]], weights: list[int], solver: Solver,
          options: SolveOptions) -> Result:
    """The optimum of hard + equally weighted soft clauses by SAT-UNSAT linear search with
    `solver` (python-sat's `solver.plugin`). The SAT backend's door (sat.run) passes the
    hard clauses in its seeded order (`sat.shuffled`)."""
    import pysat.card  # noqa: F401 - loaded here: the child imports nothing new
    import pysat.solvers  # noqa: F401

    weight = unit_weight(weights)
    return process.solve_forked(_search, (hard, soft, weight, solver.plugin, solver.reuse),
                                solver.name, options)


def _search(hard, soft, weight: int, name: str, reuse: bool,
            send: Callable[[tuple], None]) -> None:
    # The forked child's work: (MODEL, (literals, broken weight)) for each better model,
    # then (SOLVED, the last of them), or UNSAT when the hard clauses have no model.
    from pysat.card import ITotalizer
    from pysat.solvers import Solver

    variables = max((abs(lit) for clause in (*hard, *soft) for lit in clause), default=0)
    clauses, relax, top = relaxed(hard, soft, variables)
    engine = Solver(name=name, bootstrap_with=clauses)
    bound = None  # the totalizer's outputs once the first model gave the search its range
    best = None
    try:
        while True:
            if not engine.solve():
                if best is None:
                    send((process.UNSAT, "the hard clauses are unsatisfiable"))
                else:
                    send((process.SOLVED, best))
                return
            model = [lit for lit in engine.get_model() if abs(lit) <= variables]
            cost = broken(soft, model)
            best = (model, cost * weight)
            send((process.MODEL, best))
            if cost == 0:
                send((process.SOLVED, best))
                return
            if bound is None:
                totalizer = ITotalizer(lits=relax, ubound=cost, top_id=top)
                bound = totalizer.rhs
                clauses += totalizer.cnf.clauses
                if reuse:
                    engine.append_formula(totalizer.cnf.clauses)
            # bound[k] is true when more than k relaxation literals are: at most cost - 1.
            tighter = [-bound[cost - 1]]
            clauses.append(tighter)
            if reuse:
                engine.add_clause(tighter)
            else:
                engine.delete()
                engine = Solver(name=name, bootstrap_with=clauses)
    finally:
        engine.delete()
