"""Check a SAT model against its CNF: every clause must hold a true literal.

Independent of the solvers and of the package's DIMACS code: it takes the clauses and the
literals as plain integers and recomputes the verdict from them alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def unsatisfied(clauses: Iterable[Sequence[int]], model: Iterable[int], limit: int = 5
                ) -> list[int]:
    """Indices (from 0) of the first `limit` clauses with no true literal under `model`.

    `model` lists literals: v true, -v false. A variable the model leaves out is false, and a
    model that sets a variable both ways is no model: its clauses cannot be trusted either.
    """
    true = set()
    for lit in model:
        if -lit in true:
            raise ValueError(f"the model sets variable {abs(lit)} both true and false")
        true.add(lit)
    positive = {lit for lit in true if lit > 0}
    bad = []
    for index, clause in enumerate(clauses):
        if not any((lit in positive) if lit > 0 else (-lit not in positive) for lit in clause):
            bad.append(index)
            if len(bad) >= limit:
                break
    return bad
