"""Compile strategy rules to linear constraints on the line-label binaries x[line, label].

An Orbitope rule is the exception: it becomes no row but an orbitope declared on the problem
(mip_model.Orbitope, the matrix x[line, label] with the rule's lines as rows and the labels as
columns), for the solver's own orbitope handling. Every other rule becomes plain linear rows
with 0/±1 coefficients (line lengths in LengthSum); auxiliary "prefix equal" and "label seen"
variables keep lex and precedence rules compact.
"""

from __future__ import annotations

from itertools import product

import pulp

from ilp_pyramid.mip_model import Orbitope as DeclaredOrbitope
from ilp_pyramid.mip_model import declare_orbitope
from ilp_pyramid.puzzles.bel.strategies import (
    Allowed,
    LengthSum,
    LexLeq,
    Monotone,
    Orbitope,
    Precedence,
    Rule,
)

Var = pulp.LpVariable


class _Rows:
    def __init__(self, problem: pulp.LpProblem, x: dict, num_labels: int, lengths: list[int]):
        self.problem, self.x, self.labels, self.lengths = problem, x, num_labels, lengths
        self.count = 0

    def add(self, terms: list[tuple[Var, float]], sense: int, rhs: float, tag: str) -> None:
        self.count += 1
        expression = pulp.LpAffineExpression(terms)
        self.problem.addConstraint(pulp.LpConstraint(expression, sense, rhs=rhs),
                                   f"s{self.count}_{tag}")

    def at_least(self, line: int, value: int) -> list[tuple[Var, float]]:
        """Terms of [label(line) >= value]."""
        return [(self.x[line, w], 1) for w in range(value, self.labels)]

    def not_greater(self, a: int, b: int, equal: Var | None, tag: str) -> None:
        """label(a) <= label(b), binding only while `equal` ("prefix equal so far") is 1.

        Cumulative form, per v >= 1: [a >= v] - [b >= v] <= 1 - equal, written
        [a >= v] - [b >= v] + equal <= 1. With equal = 0 the left side is at most 1 anyway.
        """
        for v in range(1, self.labels):
            terms = self.at_least(a, v) + [(var, -c) for var, c in self.at_least(b, v)]
            rhs = 0
            if equal is not None:
                terms.append((equal, 1))
                rhs = 1
            self.add(terms, pulp.LpConstraintLE, rhs, tag)


def compile_rules(problem: pulp.LpProblem, x: dict, rules: list[Rule], num_labels: int,
                  lengths: list[int]) -> int:
    """Add `rules` to `problem`; returns the number of rows added."""
    rows = _Rows(problem, x, num_labels, lengths)
    for index, rule in enumerate(rules):
        if isinstance(rule, Allowed):
            _allowed(rows, rule)
        elif isinstance(rule, Monotone):
            for a, b in zip(rule.lines, rule.lines[1:], strict=False):
                rows.not_greater(a, b, None, "mono")
        elif isinstance(rule, LexLeq):
            _lex(rows, rule, index)
        elif isinstance(rule, Orbitope):  # before Precedence: it is one
            # Every line's labels sum to 1 (model.py's line rows): a partitioning orbitope.
            matrix = tuple(tuple(x[line, label] for label in range(num_labels))
                           for line in rule.lines)
            declare_orbitope(problem, DeclaredOrbitope("partitioning", matrix,
                                                       f"labels_r{index}"))
        elif isinstance(rule, Precedence):
            _precedence(rows, rule, index)
        elif isinstance(rule, LengthSum):
            sense = pulp.LpConstraintEQ if rule.sense == "==" else pulp.LpConstraintLE
            rows.add([(x[i, rule.label], lengths[i]) for i in rule.lines], sense, rule.rhs,
                     f"len_l{rule.label}")
    return rows.count


def _allowed(rows: _Rows, rule: Allowed) -> None:
    domains = [sorted({t[k] for t in rule.tuples}) for k in range(len(rule.lines))]
    for line, domain in zip(rule.lines, domains, strict=True):
        banned = [(rows.x[line, v], 1) for v in range(rows.labels) if v not in domain]
        if banned:
            rows.add(banned, pulp.LpConstraintEQ, 0, "dom")
    if len(rule.lines) > 1:
        for combo in product(*domains):
            if combo not in rule.tuples:
                terms = [(rows.x[line, v], 1) for line, v in zip(rule.lines, combo, strict=True)]
                rows.add(terms, pulp.LpConstraintLE, len(combo) - 1, "nogood")


def _lex(rows: _Rows, rule: LexLeq, index: int) -> None:
    pairs = [(a, b) for a, b in zip(rule.left, rule.right, strict=True) if a != b]
    equal: Var | None = None  # prefix so far equal; None means "certainly" (position 0)
    for position, (a, b) in enumerate(pairs):
        rows.not_greater(a, b, equal, "lex")
        if position == len(pairs) - 1:
            break
        following = rows.problem.add_variable(f"lexeq_r{index}_{position}", 0, 1)
        # following >= equal + [a = v] + [b = v] - 2 for every v: forced to 1 while the
        # prefix stays equal, so the next position's rows bind.
        for v in range(rows.labels):
            terms = [(following, 1), (rows.x[a, v], -1), (rows.x[b, v], -1)]
            rhs = -1
            if equal is not None:
                terms.append((equal, -1))
                rhs = -2
            rows.add(terms, pulp.LpConstraintGE, rhs, "lexeq")
        equal = following


def _precedence(rows: _Rows, rule: Precedence, index: int) -> None:
    seen: dict[int, Var] = {}  # label -> "seen so far" for the prefix read
    for position, line in enumerate(rule.lines):
        for v in range(1, rows.labels):
            terms = [(rows.x[line, v], 1)]
            if v - 1 in seen:
                terms.append((seen[v - 1], -1))
            rows.add(terms, pulp.LpConstraintLE, 0, "prec")
        if position == len(rule.lines) - 1:
            break
        updated = {}
        for v in range(rows.labels - 1):
            s = rows.problem.add_variable(f"seen_r{index}_{position}_l{v}", 0, 1)
            terms = [(s, 1), (rows.x[line, v], -1)]
            if v in seen:
                terms.append((seen[v], -1))
            rows.add(terms, pulp.LpConstraintLE, 0, "seen")
            updated[v] = s
        seen = updated
