"""Compile strategy rules to clauses over the line-label literals of a CNF encoding.

`lit(line, label)` gives the DIMACS variable of "line carries label"; auxiliary variables
come from the encoding's `pysat.formula.IDPool`. Weighted length sums go through
python-sat's pseudo-Boolean encoder (its best encoding), via cardinality.pb_clauses.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

from pysat.formula import IDPool

from ilp_pyramid.cardinality import pb_clauses
from ilp_pyramid.puzzles.bel.strategies import (
    Allowed,
    LengthSum,
    LexLeq,
    Monotone,
    Precedence,
    Rule,
)

Clause = list[int]


def compile_clauses(rules: list[Rule], lit: Callable[[int, int], int], pool: IDPool,
                    num_labels: int, lengths: list[int]) -> list[Clause]:
    clauses: list[Clause] = []
    aux = 0

    def new_var() -> int:
        nonlocal aux
        aux += 1
        return pool.id(("strategy-aux", aux))

    labels = range(num_labels)

    def not_greater(a: int, b: int, guard: list[int]) -> None:
        # label(a) = v  ->  label(b) >= v, unless a guard literal releases it
        for v in range(1, num_labels):
            clauses.append(guard + [-lit(a, v)] + [lit(b, w) for w in range(v, num_labels)])

    for rule in rules:
        if isinstance(rule, Allowed):
            domains = [sorted({t[k] for t in rule.tuples}) for k in range(len(rule.lines))]
            for line, domain in zip(rule.lines, domains, strict=True):
                clauses += [[-lit(line, v)] for v in labels if v not in domain]
            if len(rule.lines) > 1:
                for combo in product(*domains):
                    if combo not in rule.tuples:
                        clauses.append([-lit(line, v)
                                        for line, v in zip(rule.lines, combo, strict=True)])
        elif isinstance(rule, Monotone):
            for a, b in zip(rule.lines, rule.lines[1:], strict=False):
                not_greater(a, b, [])
        elif isinstance(rule, LexLeq):
            pairs = [(a, b) for a, b in zip(rule.left, rule.right, strict=True) if a != b]
            equal: int | None = None
            for position, (a, b) in enumerate(pairs):
                not_greater(a, b, [] if equal is None else [-equal])
                if position == len(pairs) - 1:
                    break
                following = new_var()
                for v in labels:
                    guard = [] if equal is None else [-equal]
                    clauses.append(guard + [-lit(a, v), -lit(b, v), following])
                equal = following
        elif isinstance(rule, Precedence):
            seen: dict[int, int] = {}
            for position, line in enumerate(rule.lines):
                for v in range(1, num_labels):
                    clauses.append([-lit(line, v)] + ([seen[v - 1]] if v - 1 in seen else []))
                if position == len(rule.lines) - 1:
                    break
                updated = {}
                for v in range(num_labels - 1):
                    s = new_var()
                    clauses.append([-s, lit(line, v)] + ([seen[v]] if v in seen else []))
                    updated[v] = s
                seen = updated
        elif isinstance(rule, LengthSum):
            # pb_clauses: a missing pb extra is a one-line usage error, not a traceback.
            clauses += pb_clauses([lit(i, rule.label) for i in rule.lines],
                                  [lengths[i] for i in rule.lines], rule.sense, rule.rhs, pool)
    return clauses
