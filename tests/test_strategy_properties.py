"""Property test: for every rule of every strategy, the compiled MIP rows, the compiled CNF
clauses and the rule data (`strategies.holds`) give the same verdict on many labellings.

The labellings: images of known solutions under label permutations, slice swaps and the
transpose; random labellings (raw, and renumbered by first occurrence so that value precedence
holds); and, for every lexicographic chain, labellings whose prefix is equal up to each
position and then break (or strictly keep) the order there.

MIP rows are evaluated directly: with every x fixed, the auxiliary variables of a rule are
given their best values - "prefix equal" variables (lexeq_*) their smallest value allowed by
their defining >= rows (they only appear on the left of <= rows, so smaller never hurts), and
"label seen" variables (seen_*) their largest value allowed by their defining <= rows (they
only appear subtracted in <= rows). A few verdicts are cross-checked by HiGHS itself.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

import pulp
import pytest
from pysat.formula import IDPool
from pysat.solvers import Solver

from ilp_pyramid import protocol
from ilp_pyramid.backends import solve as mip_solve  # the one door, for a PuLP problem
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.mip_model import Orbitope, declare_orbitope, orbitopes
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE as BEL
from ilp_pyramid.puzzles.bel.rules_cnf import compile_clauses
from ilp_pyramid.puzzles.bel.rules_mip import compile_rules
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE, LexLeq, Rule, holds
from tests.test_strategies import labels_of, orbit_sample, published

# ---- compiled MIP rows, evaluated directly --------------------------------------------------


@dataclass
class MipRule:
    problem: pulp.LpProblem
    x: dict
    rows: list[tuple[str, list[tuple[str, float]], int, float]]  # tag, terms, sense, rhs
    aux: list[str]  # auxiliary variables, in the order the compiler created them
    defining: dict[str, list[int]]  # aux name -> indices of the rows that bound it
    declared: list[Orbitope]  # what the rule declares instead of rows (Orbitope rules)

    def accepts(self, labels: list[int]) -> bool:
        value: dict[str, float] = {
            var.name: float(labels[line] == label) for (line, label), var in self.x.items()}
        for name in self.aux:
            bounds = []
            for r in self.defining[name]:
                _, terms, sense, rhs = self.rows[r]
                rest = sum(c * value[v] for v, c in terms if v != name)
                bounds.append((sense, rhs - rest))
            if name.startswith("lexeq"):
                value[name] = max([0.0] + [b for s, b in bounds if s == pulp.LpConstraintGE])
            else:
                value[name] = min([1.0] + [b for s, b in bounds if s == pulp.LpConstraintLE])
        for _, terms, sense, rhs in self.rows:
            total = sum(c * value[v] for v, c in terms)
            if sense == pulp.LpConstraintLE and total > rhs + 1e-9:
                return False
            if sense == pulp.LpConstraintGE and total < rhs - 1e-9:
                return False
            if sense == pulp.LpConstraintEQ and abs(total - rhs) > 1e-9:
                return False
        return all(orbitope.holds(value) for orbitope in self.declared)

    def highs_accepts(self, labels: list[int]) -> bool:
        problem = self.problem.deepcopy()  # the same variables; declarations not copied
        for orbitope in self.declared:
            declare_orbitope(problem, orbitope)
        variables = {v.name: v for v in problem.variables()}
        for (line, label), var in self.x.items():
            fixed = variables.get(var.name)
            if fixed is not None:
                fixed.lowBound = fixed.upBound = 1 if labels[line] == label else 0
        # HiGHS refuses a declared orbitope; SCIP takes it (backends/scip.py).
        solver = "scip" if self.declared else "highs"
        result = mip_solve(problem, solver, SolveOptions(time_limit=60))
        assert result.status in (Status.SOLVED, Status.INFEASIBLE), result.status
        return result.status == Status.SOLVED


def compile_mip(n: int, rule: Rule) -> MipRule:
    geo = pyramid(n)
    problem = pulp.LpProblem("rule", pulp.LpMinimize)
    x = {(line, label): problem.add_variable(f"x_{line}_{label}", cat=pulp.LpBinary)
         for line in range(len(geo.lines)) for label in range(geo.num_labels)}
    problem += pulp.lpSum([])
    compile_rules(problem, x, [rule], geo.num_labels, geo.line_lengths)
    if orbitopes(problem):
        # A partitioning orbitope stands on the model's one-label-per-line rows (model.py):
        # every labelling meets them, and they put the matrix's variables in the problem.
        for line in range(len(geo.lines)):
            problem.addConstraint(pulp.lpSum(x[line, label] for label in range(
                geo.num_labels)) == 1, f"p{line}_line")
    rows, aux, defining = [], [], {}
    x_names = {var.name for var in x.values()}
    for constraint in problem.constraints():
        tag = constraint.name.split("_", 1)[1]
        terms = [(var.name, coef) for var, coef in constraint.items()]
        rows.append((tag, terms, constraint.sense, -constraint.constant))
        for var, coef in terms:
            if var in x_names:
                continue
            if var not in defining:
                aux.append(var)
                defining[var] = []
            if tag in ("lexeq", "seen") and coef == 1:
                defining[var].append(len(rows) - 1)
    assert all(defining[name] for name in aux), "an auxiliary variable with no defining row"
    return MipRule(problem, x, rows, aux, defining, orbitopes(problem))


# ---- compiled CNF clauses, as assumptions ---------------------------------------------------


class CnfRule:
    def __init__(self, n: int, rule: Rule):
        geo = pyramid(n)
        self.pool = IDPool()
        self.lits = {(line, label): self.pool.id(("x", line, label))
                     for line in range(len(geo.lines)) for label in range(geo.num_labels)}
        clauses = compile_clauses([rule], lambda line, label: self.lits[line, label], self.pool,
                                  geo.num_labels, geo.line_lengths)
        self.solver = Solver(name="minisat22", bootstrap_with=clauses)

    def accepts(self, labels: list[int]) -> bool:
        assumptions = [lit if labels[line] == label else -lit
                       for (line, label), lit in self.lits.items()]
        return self.solver.solve(assumptions=assumptions)


# ---- labellings -----------------------------------------------------------------------------


@cache
def known_solution_labels(n: int) -> tuple[tuple[int, ...], ...]:
    if n == 2:
        outcome = protocol.solve(BEL, 2, "minisat22", SolveOptions(time_limit=60),
                                 formulation="counts")
        base = [outcome.solution]
        images = orbit_sample(outcome.solution, 40, seed=3)
    else:
        base = [published({3: "n3-example.txt", 4: "n4-published.txt"}[n])]
        images = orbit_sample(base[0], 40, seed=n)
    return tuple(tuple(labels_of(s)) for s in base + images)


def first_occurrence(labels: list[int]) -> list[int]:
    names: dict[int, int] = {}
    return [names.setdefault(v, len(names)) for v in labels]


def random_labellings(n: int, count: int, rng: random.Random) -> list[list[int]]:
    geo = pyramid(n)
    out = []
    for _ in range(count):
        labels = [rng.randrange(geo.num_labels) for _ in geo.lines]
        out += [labels, first_occurrence(labels)]
        # Few lines far apart in value: a labelling most monotone/domain rules accept.
        out.append([min(v, 1) for v in labels])
    return out


def equal_classes(size: int, pairs: list[tuple[int, int]]) -> list[int]:
    """Union-find: a class id per line, lines in one pair sharing a class."""
    parent = list(range(size))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        parent[find(a)] = find(b)
    return [find(i) for i in range(size)]


def lex_cases(n: int, rule: LexLeq, rng: random.Random, positions: int | None
              ) -> list[list[int]]:
    """For each position k of the chain: prefix equal before k, then >, < and = at k."""
    geo = pyramid(n)
    pairs = [(a, b) for a, b in zip(rule.left, rule.right, strict=True) if a != b]
    chosen = range(len(pairs))
    if positions is not None and len(pairs) > positions:
        chosen = sorted(rng.sample(range(len(pairs)), positions))
    cases = []
    for k in chosen:
        root = equal_classes(len(geo.lines), pairs[:k])
        a, b = pairs[k]
        if root[a] == root[b]:
            continue  # an equal prefix forces position k equal: nothing to break there
        for relation in (">", "<", "="):
            label_of_class: dict[int, int] = {}
            labels = []
            for line in range(len(geo.lines)):
                labels.append(label_of_class.setdefault(root[line],
                                                        rng.randrange(geo.num_labels)))
            low, high = sorted(rng.sample(range(geo.num_labels), 2))
            left, right = {">": (high, low), "<": (low, high), "=": (low, low)}[relation]
            labels = [left if root[i] == root[a] else right if root[i] == root[b] else v
                      for i, v in enumerate(labels)]
            cases.append(labels)
    return cases


# ---- the property ---------------------------------------------------------------------------


def check_strategy(name: str, n: int, samples: int, positions: int | None,
                   highs_checks: int) -> tuple[int, int]:
    """Compare the three verdicts for every rule of `name`; returns (accepted, rejected)."""
    rng = random.Random(f"{name}-{n}")
    geo = pyramid(n)
    common = [list(v) for v in known_solution_labels(n)] + random_labellings(n, samples, rng)
    verdicts = {True: 0, False: 0}
    for index, rule in enumerate(CATALOGUE[name].rules(geo)):
        mip, cnf = compile_mip(n, rule), CnfRule(n, rule)
        cases = list(common)
        if isinstance(rule, LexLeq):
            cases += lex_cases(n, rule, rng, positions)
        for labels in cases:
            data = holds(rule, labels, geo.line_lengths)
            got = (mip.accepts(labels), cnf.accepts(labels))
            assert got == (data, data), (
                f"{name} rule {index} ({type(rule).__name__}) at N={n}: data says {data}, "
                f"MIP rows say {got[0]}, CNF says {got[1]} on {labels}")
            verdicts[data] += 1
        for labels in rng.sample(cases, min(highs_checks, len(cases))):
            assert mip.highs_accepts(labels) == holds(rule, labels, geo.line_lengths)
        cnf.solver.delete()
    return verdicts[True], verdicts[False]


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_compiled_forms_agree_with_the_data(name):
    totals = [0, 0]
    for n in (2, 3):
        accepted, rejected = check_strategy(name, n, samples=12, positions=None,
                                            highs_checks=1 if n == 3 else 0)
        totals[0] += accepted
        totals[1] += rejected
    assert totals[0] and totals[1], f"{name}: the sample should hold both verdicts {totals}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CATALOGUE))
def test_compiled_forms_agree_with_the_data_n4(name):
    check_strategy(name, 4, samples=40, positions=None, highs_checks=3)


def test_exported_lp_carries_the_working_lex_rows(cli, tmp_path):
    # Every lex row after the first position of a chain must add its "prefix equal" variable
    # (+ lexeq <= 1): with - lexeq it would never bind.
    path = tmp_path / "cake.lp"
    assert cli("export", 3, "-o", path, "--strategy", "CakeSliceOrdering").code == 0
    rows: list[str] = []
    for line in path.read_text().splitlines():  # PuLP wraps long rows onto more lines
        if re.match(r"^\w+:", line):
            rows.append(line)
        elif rows:
            rows[-1] += " " + line.strip()
    with_eq = [row for row in rows if re.match(r"^s\d+_lex:", row) and "lexeq" in row]
    assert with_eq, "the chains should use prefix-equal variables"
    assert not [row for row in with_eq if re.search(r"-\s*lexeq", row)], with_eq[:3]
    assert all(row.rstrip().endswith("<= 1") for row in with_eq)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_highs_automorphism_n3_keeps_the_lex_rules(seed):
    # The example: with the old "- eq" rows, HiGHS returned solutions breaking 4 and 1
    # of the Automorphism lex rules for seeds 0 and 1.
    from ilp_pyramid.puzzles.bel.strategies import satisfied

    outcome = protocol.solve(BEL, 3, "highs", SolveOptions(time_limit=600, seed=seed),
                             formulation="counts", strategies=["Automorphism"])
    assert outcome.status is Status.SOLVED
    assert satisfied(3, ["Automorphism"], labels_of(outcome.solution))
