"""MaxSAT through python-sat's RC2: a weighted CNF solved to a proved optimum.

The form is a `pysat.formula.WCNF`: hard clauses that must hold, soft clauses each with a
positive weight; the answer is the model that keeps the hard clauses and breaks the least
total weight of soft ones. RC2 is core-guided: it finds no model before the optimum, so
an answer is `solved` (optimum proved, `Result.objective` the broken weight), `infeasible`
(the hard clauses alone are unsatisfiable) or, at the time limit, `timeout` with nothing.

RC2 runs in Python with no time limit and no interrupt of its own (its SAT oracle is
called many times, and python-sat's `oracle_time` only measures them), so the solve runs in
a forked child, as the SAT backend's large formulas do: the parent waits on a pipe for at
most the limit, then kills the child; SIGINT/SIGTERM while waiting kill it and raise
`errors.Interrupted`. A fork costs some 20-40 ms, negligible beside a solve worth a time
limit, and the child's memory goes with it.

The exact-cover form is taken too, lowered to hard clauses only (`lowering.to_cnf`, the
SAT solvers' lowering): RC2 then answers whether the cover exists, with cost 0.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

from ilp_pyramid.backends import lowering, process
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.backends.sat import shuffled

if TYPE_CHECKING:
    from ilp_pyramid.backends import ExactCoverForm
    from ilp_pyramid.backends.solvers import Solver



def run(form: object, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The solver table's door (`Solver.solve`): a WCNF, or an exact cover as hard clauses."""
    if what == "exact_cover":
        return _cover(form, solver, options)  # type: ignore[arg-type]
    return solve(form.hard, form.soft, form.wght, solver, options)  # type: ignore[attr-defined]


def _cover(form: ExactCoverForm, solver: Solver, options: SolveOptions) -> Result:
    start = time.perf_counter()
    result = solve(lowering.to_cnf(form), [], [], solver, options)
    result.seconds = time.perf_counter() - start
    if result.has_solution:
        result.rows = lowering.rows_from_model(form, result.model)
    return result


def solve(hard: list[list[int]], soft: list[list[int]], weights: list[int], solver: Solver,
          options: SolveOptions) -> Result:
    """The optimum of hard + weighted soft clauses; `solver.plugin` names RC2's SAT oracle
    (python-sat's name), `options.extra["oracle"]` another one."""
    import pysat.examples.rc2  # noqa: F401 - loaded here: the child imports nothing new

    oracle = options.extra.get("oracle", solver.plugin)
    args = (shuffled(hard, options.seed), soft, weights, oracle, options.verbose)
    with process.forked(_child, args) as child:
        answer = child.answer(options)
        if answer is None:
            return Result(solver.name, Status.TIMEOUT, child.seconds(),
                          message=f"no optimum within {options.time_limit:g} s; "
                                  f"solver stopped")
        outcome, payload = answer
        if outcome == process.ENDED:
            return Result(solver.name, Status.ERROR, child.seconds(),
                          message=f"the MaxSAT process ended without an answer (exit "
                                  f"code {payload})")
    seconds = child.seconds()
    if outcome == "optimum":
        model, cost = payload
        return Result(solver.name, Status.SOLVED, seconds, model=model, objective=cost)
    if outcome == "unsat":
        return Result(solver.name, Status.INFEASIBLE, seconds,
                      message="the hard clauses are unsatisfiable")
    return Result(solver.name, Status.ERROR, seconds, message=str(payload))


def _child(hard, soft, weights, oracle: str, verbose: bool, sender) -> None:
    # As the SAT backend's child: forked from a process that may run other threads, it takes
    # no lock, imports nothing new, prints only RC2's log to the fd 1 the parent set up
    # (stderr or /dev/null), and answers on its own pipe.
    process.die_with_parent()
    try:
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
                sender.send(("unsat", None))
            else:
                sender.send(("optimum", (list(model), rc2.cost)))
    except Exception as exc:  # noqa: BLE001 - any failure goes back as one message
        sender.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        sender.close()
        sys.stdout.flush()  # RC2's log, if asked for: os._exit flushes nothing
        os._exit(0)  # skip atexit handlers inherited from the parent (pytest, rich, ...)
