"""The decomposition by line family, its refutations fed back as clauses.

A SAT solver (the master) labels the X and Y lines only; for each labelling it proposes, the Z
family is an exact cover (`lns.repair`, the check the walk uses). When no cover exists, the
puzzle's own CNF (cnf.py, no hypothesis in it) under the X and Y labels as assumptions is
refuted again and its core, a subset of those labels that already leaves no Z cover, comes
back to the master as the clause that forbids it. Repeat until a cover exists (a solution) or
the master has no labelling left (a refutation).

The master starts with what the X and Y labels alone must satisfy in every solution:
- one label per line;
- on each Z line the cells' (X, Y) label pairs are distinct as multisets (two equal pairs show
  one cube twice whatever the Z label), which is exactly "every label of the Z line leaves
  its cells distinct cubes";
- every cube has a cell whose (X, Y) pair is part of it (the cell that shows it).

Soundness: every clause of the master holds in every solution; a learnt clause is the negation
of a set of labels under which the puzzle's CNF is unsatisfiable. So "refuted" with no
hypothesis in the master's final core is a proof about the puzzle; hypotheses (line labels
fixed by the caller) are assumptions of the master only, and the ones its core names are the
ones the refutation used. The solution is the caller's to verify (ilp_pyramid.verify).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations, product

import numpy as np

from ilp_pyramid.backends import sat, solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.puzzles.bel.cnf import LINE_CARD, BelCnf, build_cnf, exactly_one
from ilp_pyramid.puzzles.bel.lns.arrays import FAMILY_CODE, arrays
from ilp_pyramid.puzzles.bel.lns.repair import repair

# The master and the refuter: CaDiCaL, which keeps its learnt clauses across solves under
# assumptions and gives the core of a failed one.
SOLVER = "cadical195"
# A core is solved again under itself until it stops shrinking, at most this many times.
SHRINK_ROUNDS = 3


@dataclass
class Decomposition:
    status: Status  # solved | infeasible (refuted) | timeout
    labels: np.ndarray | None = None  # every line's label (geometry order) when solved
    rounds: int = 0  # X-Y labellings proposed, each checked as a Z cover
    learnt: int = 0  # clauses fed back
    reason_literals: int = 0  # their literals, all told
    hypotheses_used: list[int] = field(default_factory=list)  # lines, when refuted
    cpu_seconds: float = 0.0


def decompose(n: int, *, seed: int = 0, hypotheses: Mapping[int, int] | None = None,
              cpu_limit: float | None = None,
              on_round: Callable[[Decomposition], None] | None = None) -> Decomposition:
    """Solve or refute Bel's Pyramid with N levels by the decomposition with clause feedback.

    `hypotheses`: X or Y line (geometry index) -> its label, held by the master as
    assumptions. `cpu_limit`: CPU seconds of this process; past it, `timeout`.
    """
    start = time.process_time()
    a = arrays(n)
    hypotheses = dict(hypotheses or {})
    if any(a.family[line] == FAMILY_CODE["Z"] for line in hypotheses):
        raise ValueError("hypotheses name X and Y lines only")
    cnf = build_cnf(n)
    xy = [int(i) for i in np.flatnonzero(a.family != FAMILY_CODE["Z"])]
    engine = solvers.solver(SOLVER)
    out = Decomposition(Status.TIMEOUT)
    assumed = [cnf.line_var(line, label) for line, label in sorted(hypotheses.items())]
    clauses = master_clauses(cnf, xy)
    if not hypotheses:
        clauses += label_precedence(cnf, xy)
    # A seed also picks the label each line tries first: the first proposals differ by seed.
    rng = np.random.default_rng(seed)
    phases = [cnf.line_var(line, int(rng.integers(a.num_labels))) for line in xy] if seed \
        else None
    with sat.SatSession(sat.shuffled(clauses, seed), engine, seed=seed) \
            as master, sat.SatSession(cnf.formula.clauses, engine) as refuter:
        while True:
            left = None if cpu_limit is None else cpu_limit - (time.process_time() - start)
            proposed = master.solve(assumed, time_limit=left, clock=time.process_time,
                                    phases=phases)
            if proposed.status == Status.TIMEOUT:
                break
            if proposed.status == Status.INFEASIBLE:
                used = set(master.core())
                out.status = Status.INFEASIBLE
                out.hypotheses_used = [line for line, label in sorted(hypotheses.items())
                                       if cnf.line_var(line, label) in used]
                break
            out.rounds += 1
            labels = xy_labels(cnf, xy, proposed.model, a.num_lines)
            cover = repair(n, labels, "Z", "sat")
            if cover.status == Status.SOLVED:
                out.status, out.labels = Status.SOLVED, cover.labels
                break
            if cover.status != Status.INFEASIBLE:
                raise RuntimeError(f"the Z cover failed: {cover.message}")
            reason = refutation_core(refuter, [cnf.line_var(line, int(labels[line]))
                                               for line in xy])
            master.add_clause([-lit for lit in reason])
            out.learnt += 1
            out.reason_literals += len(reason)
            out.cpu_seconds = time.process_time() - start
            if on_round is not None:
                on_round(out)
    out.cpu_seconds = time.process_time() - start
    return out


def master_clauses(cnf: BelCnf, xy: list[int]) -> list[list[int]]:
    """The clauses over the X and Y labels that every solution satisfies (module doc)."""
    geo = cnf.pyramid
    labels = range(geo.num_labels)
    x = {line: [cnf.line_var(line, label) for label in labels] for line in xy}
    clauses: list[list[int]] = []
    for line in xy:
        clauses += exactly_one(x[line], cnf.pool, LINE_CARD)
    z = FAMILY_CODE["Z"]
    column: dict[int, list[int]] = {}
    for c, lines in enumerate(geo.cell_lines):
        column.setdefault(lines[z], []).append(c)
    for cells in column.values():
        for c1, c2 in combinations(cells, 2):
            (x1, y1, _), (x2, y2, _) = geo.cell_lines[c1], geo.cell_lines[c2]
            for u, v in product(labels, repeat=2):
                clauses.append([-x[x1][u], -x[y1][v], -x[x2][u], -x[y2][v]])
                if u != v:
                    clauses.append([-x[x1][u], -x[y1][v], -x[x2][v], -x[y2][u]])
    # q(c, u, v) -> the cell's X line carries u and its Y line v
    q = {}
    for c, (lx, ly, _) in enumerate(geo.cell_lines):
        for u, v in product(labels, repeat=2):
            q[c, u, v] = var = cnf.pool.id(("xy-pair", c, u, v))
            clauses += [[-var, x[lx][u]], [-var, x[ly][v]]]
    for cube in geo.cubes:
        pairs = {(cube[i], cube[j]) for i, j in product(range(3), repeat=2) if i != j}
        clauses.append([q[c, u, v] for c in range(len(geo.cells)) for u, v in sorted(pairs)])
    return clauses


def label_precedence(cnf: BelCnf, xy: list[int]) -> list[list[int]]:
    """Label l+1 is on no line before label l is on one (in the order of `xy`).

    Renaming the labels permutes the cubes, so every solution has a renamed twin whose labels
    first appear in order along `xy`: the clauses lose no solution up to renaming. A
    hypothesis names labels, so it and these clauses do not go together."""
    labels = cnf.pyramid.num_labels
    clauses: list[list[int]] = []
    seen_before = None  # seen_before[l]: label l is on a line before this one
    for line in xy:
        x = [cnf.line_var(line, label) for label in range(labels)]
        for label in range(1, labels):
            clauses.append([-x[label]] + ([seen_before[label - 1]] if seen_before else []))
        seen = [cnf.pool.id(("seen", line, label)) for label in range(labels)]
        for label in range(labels):
            before = [seen_before[label]] if seen_before else []
            clauses.append([-seen[label], x[label], *before])
            clauses.append([seen[label], -x[label]])
            clauses += [[seen[label], -b] for b in before]
        seen_before = seen
    return clauses


def xy_labels(cnf: BelCnf, xy: list[int], model: list[int], num_lines: int) -> np.ndarray:
    """Every line's label from the master's model (the Z lines 0: the cover sets them)."""
    true = {lit for lit in model if lit > 0}
    out = np.zeros(num_lines, dtype=np.int32)
    for line in xy:
        out[line] = next(label for label in range(cnf.pyramid.num_labels)
                         if cnf.line_var(line, label) in true)
    return out


def refutation_core(refuter: sat.SatSession, assumptions: list[int]) -> list[int]:
    """A subset of `assumptions` under which the puzzle's CNF is unsatisfiable, shrunk by
    solving again under the core until it stops shrinking."""
    core = assumptions
    for _ in range(SHRINK_ROUNDS):
        answer = refuter.solve(core)
        if answer.status != Status.INFEASIBLE:
            # the cover found none where the CNF finds one: never sound to go on
            raise RuntimeError(f"the puzzle's CNF is {answer.status} where no Z cover exists")
        smaller = refuter.core()
        if len(smaller) >= len(core):
            break
        core = smaller
    return core
