"""Bel's Pyramid CNFs made for counting: label renamings broken with an exact multiplier,
and the fixed points of one symmetry, for Burnside's lemma.

The base is the package's own CNF (`cnf.build_cnf`, "counts" encoding): every auxiliary
variable in it is determined by the line labels (y[cell, cube] is "the cell shows the cube";
the sequential counters' and the pairwise one-hots' aux variables are forced once exactly one
literal is true), so its models are the labelled pyramids one to one.

`precedence` adds "labels first appear in the order 0, 1, 2, ... along the lines in geometry
order": seen[p, v] <-> seen[p-1, v] or line p carries v, and "line p carries v >= 1 ->
seen[p-1, v-1]". The seen variables are defined by equivalences, so they too are determined
and the count stays a count of labellings. Every solution uses every label (each cube, (l, l,
l) too, is shown), so (2N-1)! renamings act freely on the solutions and exactly one renaming
of each puts its labels in first-appearance order: models x (2N-1)! = labelled pyramids.

`fixed_by(g, pi)` adds "line i carries l -> line g(i) carries pi(l)": with one label per
line, exactly the labellings s with pi(s) moved by g equal to s, the fixed points Burnside's
lemma sums.
"""

from __future__ import annotations

from collections.abc import Sequence

from ilp_pyramid.puzzles.bel.cnf import BelCnf, build_cnf

Clause = list[int]


def base_cnf(n: int) -> BelCnf:
    return build_cnf(n, encoding="counts")


def line_vars(cnf: BelCnf) -> list[int]:
    """Every x (line, label) variable: the projection ApproxMC counts on."""
    geo = cnf.pyramid
    return [cnf.line_var(i, v) for i in range(len(geo.lines)) for v in range(geo.num_labels)]


def precedence(cnf: BelCnf, order: Sequence[int] | None = None) -> tuple[list[Clause], int]:
    """The first-appearance clauses (module doc) along `order` (line indices; geometry order
    if None) and the new top variable."""
    geo = cnf.pyramid
    m = geo.num_labels
    top = cnf.num_variables
    clauses: list[Clause] = []
    previous: list[int] | None = None  # seen[p-1, v] for v = 0 .. m-2
    for p in range(len(geo.lines)) if order is None else order:
        for v in range(1, m):
            need = [] if previous is None else [previous[v - 1]]
            clauses.append([-cnf.line_var(p, v)] + need)
        seen = list(range(top + 1, top + m))
        top += m - 1
        for v, s in enumerate(seen):
            x = cnf.line_var(p, v)
            if previous is None:
                clauses += [[-s, x], [s, -x]]
            else:
                clauses += [[-s, previous[v], x], [s, -previous[v]], [s, -x]]
        previous = seen
    return clauses, top


def fixed_by(cnf: BelCnf, g: Sequence[int], pi: Sequence[int]) -> list[Clause]:
    """Clauses whose models are the solutions s with pi(s(i)) = s(g(i)) for every line i.
    A line and label both fixed give no clause (D4 does not take tautologies)."""
    geo = cnf.pyramid
    return [[-cnf.line_var(i, v), cnf.line_var(int(g[i]), int(pi[v]))]
            for i in range(len(geo.lines)) for v in range(geo.num_labels)
            if (int(g[i]), int(pi[v])) != (i, v)]


def d4_count(clauses: list[Clause], num_vars: int, decompose: bool = True) -> int:
    """The exact number of models, by D4 (the optional `d4Solver`), in this process.
    `decompose` False skips D4's tree decomposition of the formula, a fixed cost that
    dominates on the small fixed-point formulas and on a split count's pieces, and has D4
    search with its MiniSat."""
    import py_d4

    if decompose:
        return int(py_d4.Solver(clauses, num_vars).count().getIntResult())
    options = py_d4.dump_options_to_dict(py_d4.OptionDpllStyleMethod())
    options["branching"]["partialOrder"]["partialOrderMethod"] = "none"
    # D4's own MiniSat rather than its default Glucose: on four N=3 pieces ten lines deep
    # (0.26 to 3 million models each, each counted twice in both orders) 18.4 CPU s against
    # 25.1, the same counts (docs/counts.md).
    options["solver"]["solverName"] = "minisat"
    solver = py_d4.Solver(clauses, num_vars, py_d4.load_options_from_dict(options))
    return int(solver.count().getIntResult())


def ganak_count(clauses: list[Clause], num_vars: int) -> int:
    """The exact number of models, by Ganak (the optional `pyganak`), in this process: a
    counter written apart from D4 (its own search, caching and preprocessing), so the two
    agreeing is a check of each."""
    import pyganak

    counter = pyganak.Counter(verbose=0, seed=1)
    counter.new_vars(num_vars)
    counter.add_clauses(clauses)
    return int(counter.count())


def scip_count(clauses: list[Clause], num_vars: int) -> int:
    """The exact number of models, by SCIP's counting mode (the optional `pyscipopt`), in this
    process: the clauses as rows of a 0-1 program (at least one literal true), every solution
    counted without being kept, with the reductions that would drop solutions off (SCIP's own
    counting settings). The MIP side's column: a branch and bound, no #SAT counter's caching."""
    from pyscipopt import Model, quicksum

    model = Model()
    model.hideOutput()
    x = {v: model.addVar(vtype="B", name=f"x{v}") for v in range(1, num_vars + 1)}
    for clause in clauses:
        model.addCons(quicksum(x[lit] if lit > 0 else 1 - x[-lit] for lit in clause) >= 1)
    model.setParamsCountsols()
    model.setParam("constraints/countsols/collect", False)
    model.count()
    if model.getStatus() not in ("infeasible", "optimal"):  # counting ends on "infeasible"
        raise RuntimeError(f"SCIP's count stopped: {model.getStatus()}")
    return int(model.getNCountedSols())


def approxmc_count(clauses: list[Clause], sampling: list[int], epsilon: float, delta: float,
                   seed: int) -> int:
    """ApproxMC's (epsilon, delta) estimate of the models projected on `sampling`."""
    import pyapproxmc

    counter = pyapproxmc.Counter(epsilon=epsilon, delta=delta, seed=seed)
    for clause in clauses:
        counter.add_clause(clause)
    cells, hashes = counter.count(sampling)
    return int(cells) * 2 ** int(hashes)
