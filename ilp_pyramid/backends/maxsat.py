"""MaxSAT through python-sat's RC2: a weighted CNF solved to a proved optimum.

The form is a `pysat.formula.WCNF`: hard clauses that must hold, soft clauses each with a
positive weight; the answer is the model that keeps the hard clauses and breaks the least
total weight of soft ones. RC2 is core-guided: it finds no model before the optimum, so
an answer is `solved` (optimum proved, `Result.objective` the broken weight), `infeasible`
(the hard clauses alone are unsatisfiable) or, at the time limit, `timeout` with nothing.

RC2 runs in Python with no time limit and no interrupt of its own (its SAT oracle is
called many times, and python-sat's `oracle_time` only measures them), so the solve runs in
a forked child (`process.solve_forked`), as the SAT backend's large formulas do: the
parent waits on a pipe for at most the limit, then kills the child; SIGINT/SIGTERM while
waiting kill it and raise `errors.Interrupted`. A fork costs some 20-40 ms, negligible
beside a solve worth a time limit, and the child's memory goes with it.

The exact-cover form is taken too, lowered by `backends.solve` to a WCNF of hard clauses
only (`lowering.to_wcnf`, the SAT solvers' clauses): RC2 then answers whether the cover
exists, with cost 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Result, SolveOptions
from ilp_pyramid.backends.sat import shuffled

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Solver


def run(form: object, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The backend's door (`backends.solve`): a WCNF."""
    return solve(form.hard, form.soft, form.wght, solver, options)  # type: ignore[attr-defined]


def solve(hard: list[list[int]], soft: list[list[int]], weights: list[int], solver: Solver,
          options: SolveOptions) -> Result:
    """The optimum of hard + weighted soft clauses; `solver.plugin` names RC2's SAT oracle
    (python-sat's name), `options.extra["oracle"]` another one."""
    import pysat.examples.rc2  # noqa: F401 - loaded here: the child imports nothing new

    oracle = options.extra.get("oracle", solver.plugin)
    args = (shuffled(hard, options.seed), soft, weights, oracle, options.verbose)
    return process.solve_forked(_search, args, solver.name, options)


def _search(hard, soft, weights, oracle: str, verbose: bool,
            send: Callable[[tuple], None]) -> None:
    # The forked child's work: RC2's log, if asked for, goes to the fd 1 the parent set up
    # (stderr or /dev/null); one answer, the optimum or UNSAT.
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    formula = WCNF()
    for clause in hard:
        formula.append(list(clause))
    for clause, weight in zip(soft, weights, strict=True):
        formula.append(list(clause), weight=weight)
    with RC2(formula, solver=oracle, verbose=2 if verbose else 0) as rc2:
        model = rc2.compute()
        if model is None:
            send((process.UNSAT, "the hard clauses are unsatisfiable"))
        else:
            send((process.SOLVED, (list(model), rc2.cost)))
