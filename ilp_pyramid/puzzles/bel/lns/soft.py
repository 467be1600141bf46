"""Soft region repair: the fewest repeated cubes a region of lines can reach, by MaxSAT.

The exact region repair (`region.py`) asks a region for no repeated cube at all, and near the
walk's best states the answer is UNSAT. This one asks for the best the region can do: its
lines are free, every other line keeps its label, and RC2 (python-sat's core-guided MaxSAT,
`backends/maxsat.py`) finds a labelling of the region that shows the most cubes.

Hard clauses: each free line carries exactly one label (`cnf.exactly_one`); the counting
condition (`cnf.pb_clauses`: each label's lines add up to N(2N+1) cells, over the free lines
what the fixed lines leave of it) when the state meets it, since the walk's single-line moves
break it at N=6 and forcing it there made the region's optimum far worse than the state; the
backward link of `cnf.py` (y[cell, cube] -> the cell shows the cube) for every cell a free
line touches, with the fixed lines' labels put in as constants, for the cubes the cell can
still show that no fully fixed cell shows. Since cells and cubes are as many, the cubes not
shown are the repeated cubes. Two forms of the rest:

- "cubes": soft clause (weight 1) per cube no fixed cell shows, "some touched cell shows it",
  plus the forward link (the cell's labels -> y). The optimum counts the missing cubes.
- "cells" (default): each cube claimed by at most one touched cell (hard, `cnf`'s
  cardinality encoding), soft clause per touched cell "it claims a cube". The optimum counts
  the touched cells left without a cube of their own; the missing cubes are that plus the
  unshown cubes beyond the touched cells. The same optimum, and with every soft clause
  assumed it is the exact CNF's "exactly one cell per cube" restricted to the region: at N=6
  around the 1-cube state RC2 proved regions of 36 lines optimal in 0.02-0.16 s this way,
  where the "cubes" form ran out of 20 s (docs/frontier.md).

RC2 runs through the MaxSAT backend (a forked child, killed at the time limit): it has no
time limit or interrupt of its own, and a child's CPU time is counted by `race.process_cpu`
once reaped. Core-guided, it finds no labelling before the optimum, so a timeout leaves the
state as it was.

Not a move of the walk: run on each stalled N=6 descent's best state (the lines through its
repeated cubes and crossing lines, `region.region_lines`), it proved 145 regions optimal and
none lower than the state, and 8 fresh descents with it ended at the same counts as 8
without it (2 once, 3 five times, 4 twice in both; docs/frontier.md, "A soft repair by
MaxSAT"; the move is in the history, commit a096a4e). It stays as a probe: what a region
of a state can reach, proved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.cardinality import CardEnc
from ilp_pyramid.puzzles.bel import cnf
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of

SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR
FORMS = ("cells", "cubes")


@dataclass
class SoftInstance:
    """The weighted CNF of one region (DIMACS literals, variable 1 is the constant true)."""

    hard: list[list[int]]
    soft: list[list[int]]
    offset: int  # repeated cubes the soft clauses leave out: the count is offset + optimum
    free: np.ndarray  # the free lines
    line_vars: np.ndarray  # (free lines, labels): "line carries label"
    num_variables: int
    feasible: bool = True  # False: the fixed lines alone already break the counting condition


@dataclass
class SoftResult:
    status: Status  # solved (optimum proved) | infeasible | timeout | error
    seconds: float
    labels: np.ndarray | None = None  # the state with the region re-labelled (when solved)
    count: int | None = None  # its repeated cubes, recounted by `conflicts_of`
    cost: int | None = None  # the optimum RC2 proved (plus the offset); equals `count`
    free_lines: int = 0
    message: str = ""


def soft_instance(n: int, labels: np.ndarray, free: np.ndarray,
                  counting: bool | None = None, form: str = "cells") -> SoftInstance:
    """The MaxSAT instance that re-labels the lines `free`, every other line kept.

    `counting`: the counting condition as hard clauses (None: when `labels` meet it, so the
    state itself is always a labelling of the region the instance allows). `form`: "cells"
    or "cubes" (the module doc)."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r} (choose from {', '.join(FORMS)})")
    from pysat.formula import IDPool

    a = arrays(n)
    geo = pyramid(n)
    lab = np.asarray(labels, dtype=np.int64)
    free = np.unique(np.asarray(free, dtype=np.int64))
    is_free = np.zeros(a.num_lines, dtype=bool)
    is_free[free] = True
    pool = IDPool()
    true = pool.id("true")
    line_vars = np.array([[pool.id(("x", int(i), label)) for label in range(a.num_labels)]
                          for i in free], dtype=np.int64).reshape(len(free), a.num_labels)
    # The encoders' x[line][label], a fixed line's as the constants true / false.
    x = [[true if label == lab[i] else -true for label in range(a.num_labels)]
         for i in range(a.num_lines)]
    for row, i in zip(line_vars.tolist(), free.tolist(), strict=True):
        x[i] = row
    clauses: list[list[int]] = [[true]]
    for i in free.tolist():
        clauses += cnf.exactly_one(x[i], pool, cnf.LINE_CARD)
    if counting is None:
        counting = bool((np.bincount(lab, weights=a.line_len, minlength=a.num_labels)
                         == geo.label_total).all())
    if counting:
        left = geo.label_total - np.bincount(lab[~is_free], weights=a.line_len[~is_free],
                                             minlength=a.num_labels).astype(np.int64)
        if (left < 0).any():
            return SoftInstance([], [], 0, free, line_vars, pool.top, feasible=False)
        lengths = a.line_len[free].tolist()
        for label in range(a.num_labels):
            clauses += cnf.pb_clauses(line_vars[:, label].tolist(), lengths, "==",
                                      int(left[label]), pool)

    touched_mask = is_free[a.cell_line].any(axis=1)
    fixed_cells = np.flatnonzero(~touched_mask)
    shown = np.zeros(len(geo.cubes), dtype=bool)
    cl = a.cell_line[fixed_cells]
    shown[a.cube_id[lab[cl[:, 0]], lab[cl[:, 1]], lab[cl[:, 2]]]] = True
    touched = np.flatnonzero(touched_mask)
    # y[cell][cube]: a variable for each cube the cell can show (its fixed lines' labels in
    # it) and no fixed cell shows; true otherwise, which drops those clauses below.
    y = [[true] * len(geo.cubes) for _ in touched]
    holders: list[list[int]] = [[] for _ in geo.cubes]
    for row, c in enumerate(touched.tolist()):
        lines = a.cell_line[c]
        fixed_labels = [int(lab[i]) for i in lines if not is_free[i]]
        if len(fixed_labels) == 2:
            candidates = np.unique(a.cube_id[fixed_labels[0], fixed_labels[1]])
        elif len(fixed_labels) == 1:
            candidates = np.unique(a.cube_id[fixed_labels[0]])
        else:
            candidates = np.arange(len(geo.cubes))
        candidates = candidates[~shown[candidates]].tolist()
        for k in candidates:
            y[row][k] = pool.id(("y", c, k))
            holders[k].append(y[row][k])
        # the converse (y -> the cell shows the cube), cell by cell for its candidates only
        cnf._backward(SimpleNamespace(cell_lines=[tuple(lines.tolist())],
                                      cubes=[geo.cubes[k] for k in candidates]),
                      x, [[y[row][k] for k in candidates]], clauses)
    if form == "cubes":
        cnf._forward(SimpleNamespace(cell_lines=[tuple(a.cell_line[c].tolist())
                                                 for c in touched],
                                     cubes=geo.cubes, num_labels=geo.num_labels), x, y, clauses)
        soft = [lits for k, lits in enumerate(holders) if lits and not shown[k]]
        offset = int(sum(1 for k, lits in enumerate(holders) if not lits and not shown[k]))
    else:
        for lits in holders:
            if len(lits) > 1:
                clauses += CardEnc.atmost(lits, bound=1, vpool=pool,
                                          encoding=cnf.CARD_ENCODINGS[cnf.DEFAULT_CARD]).clauses
        soft = [[v for v in row if v != true] for row in y]
        # the cubes no fixed cell shows, less the touched cells that could each claim one
        offset = int((~shown).sum()) - len(touched)
        offset += sum(1 for lits in soft if not lits)
        soft = [lits for lits in soft if lits]
    hard = _with_constants(clauses, true)
    return SoftInstance(hard, soft, offset, free, line_vars, pool.top)


def _with_constants(clauses: list[list[int]], true: int) -> list[list[int]]:
    """The clauses with the constant `true` propagated: satisfied ones dropped, the false
    literal taken out (the unit clause [true] kept, so the variable stays defined)."""
    out = [[true]]
    for clause in clauses:
        if true in clause:
            continue
        out.append([lit for lit in clause if lit != -true] if -true in clause else clause)
    return out


def soft_repair(n: int, labels: np.ndarray, free: np.ndarray, time_limit: float | None = None,
                counting: bool | None = None, form: str = "cells", oracle: str | None = None,
                seed: int | None = None) -> SoftResult:
    """Re-label the lines `free` (indices) for the fewest repeated cubes, every other line
    kept: `solved` with the labels and their count, `infeasible` (the counting condition
    cannot be met in the region), `timeout` or `error`."""
    from ilp_pyramid.backends import maxsat
    from ilp_pyramid.backends.solvers import solver

    start = time.perf_counter()
    lab = np.asarray(labels, dtype=np.int32)
    instance = soft_instance(n, lab, free, counting, form)
    size = len(instance.free)
    if not instance.feasible:
        return SoftResult(INFEASIBLE, time.perf_counter() - start, free_lines=size)
    left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
    options = SolveOptions(time_limit=left, seed=seed,
                           extra={} if oracle is None else {"oracle": oracle})
    answer = maxsat.solve(instance.hard, instance.soft, [1] * len(instance.soft),
                          solver("rc2"), options)
    seconds = time.perf_counter() - start
    if answer.status != SOLVED:
        return SoftResult(answer.status, seconds, free_lines=size, message=answer.message)
    truth = np.zeros(instance.num_variables + 1, dtype=bool)
    model = np.asarray(answer.model, dtype=np.int64)
    model = model[np.abs(model) <= instance.num_variables]
    truth[model[model > 0]] = True
    chosen = truth[instance.line_vars]  # (free lines, labels)
    out = lab.copy()
    out[instance.free] = np.argmax(chosen, axis=1)
    if size and not (chosen.sum(axis=1) == 1).all():  # pragma: no cover - the hard clauses
        return SoftResult(ERROR, seconds, free_lines=size,
                          message="a free line carries no label or two in the optimum")
    return SoftResult(SOLVED, seconds, out, conflicts_of(n, out),
                      int(round(answer.objective or 0)) + instance.offset, size)

