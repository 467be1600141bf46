"""Region repair: keep every line outside a region, let SAT re-label the region's lines.

Between one swap (the local search) and one whole family (`repair.py`): the region is the
set of lines through the cells that show a repeated cube, grown by lines that cross it
(sharing a cell with a region line), picked at random, up to a size. Lines of all three
families inside the region are free, or (`fixed_family`) one family stays as it is.

The model is the whole pyramid's CNF (`cnf.build_cnf`, every cube exactly once), built once
per process and loaded into ONE incremental solver (`backends.sat.SatSession`); a repair is
a solve under assumptions that hold the outside lines at their labels, so learnt clauses
carry over from repair to repair. The current labels of the free lines are the solver's
first phases. A model is a full solution (the CNF demands every cube exactly once), and is
verified by the caller like every other.
"""

from __future__ import annotations

import time

import numpy as np

from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.sat import SatSession
from ilp_pyramid.puzzles.bel.lns.arrays import arrays
from ilp_pyramid.puzzles.bel.lns.repair import INFEASIBLE, SOLVED, TIMEOUT, RepairResult


def conflict_lines(n: int, labels: np.ndarray) -> np.ndarray:
    """The lines through every cell that shows a repeated cube (sorted, unique)."""
    a = arrays(n)
    lab = np.asarray(labels)
    shown = a.cube_id[lab[a.cell_line[:, 0]], lab[a.cell_line[:, 1]], lab[a.cell_line[:, 2]]]
    counts = np.bincount(shown, minlength=int(a.cube_id.max()) + 1)
    cells = np.flatnonzero(counts[shown] > 1)
    return np.unique(a.cell_line[cells].ravel())


def region_lines(n: int, labels: np.ndarray, extra: int, rng: np.random.Generator,
                 fixed_family: int | None = None) -> np.ndarray:
    """The conflict lines plus `extra` random crossing lines (as many as there are); lines
    of `fixed_family` are never in it."""
    a = arrays(n)
    allowed = np.ones(a.num_lines, dtype=bool)
    if fixed_family is not None:
        allowed[a.family == fixed_family] = False
    seed = [int(i) for i in conflict_lines(n, labels) if allowed[i]]
    region = set(seed)
    size = len(seed) + extra
    frontier: set[int] = set()

    def cross(line: int) -> None:
        cells = a.line_cells[a.line_start[line]:a.line_start[line + 1]]
        for other in a.cell_line[cells].ravel().tolist():
            if allowed[other] and other not in region:
                frontier.add(other)

    for line in seed:
        cross(line)
    while len(region) < size and frontier:
        pick = sorted(frontier)[int(rng.integers(len(frontier)))]
        frontier.discard(pick)
        region.add(pick)
        cross(pick)
    return np.array(sorted(region), dtype=np.int64)


class RegionRepairer:
    """One N's CNF in one incremental solver; `repair` frees a region of lines."""

    def __init__(self, n: int, solver: str = "cadical195"):
        from ilp_pyramid.puzzles.bel.cnf import build_cnf

        a = arrays(n)
        cnf = build_cnf(n)
        self.n = n
        # lits[line, label]: the DIMACS variable "line carries label"
        self.lits = np.array([[cnf.line_var(i, label) for label in range(a.num_labels)]
                              for i in range(a.num_lines)], dtype=np.int64)
        self.session = SatSession(cnf.formula.clauses, solvers.solver(solver))

    def repair(self, labels: np.ndarray, free: np.ndarray, time_limit: float | None = None,
               phases: bool = True) -> RepairResult:
        """Re-label the lines `free` (indices), every other line kept, so that every cube
        shows exactly once: `solved` (with the labels), `infeasible` or `timeout`."""
        start = time.perf_counter()
        lab = np.asarray(labels, dtype=np.int64)
        mask = np.zeros(len(lab), dtype=bool)
        mask[np.asarray(free, dtype=np.int64)] = True
        rows = np.arange(len(lab))
        kept = self.lits[rows[~mask], lab[~mask]]
        hints = self.lits[rows[mask], lab[mask]] if phases else None
        result = self.session.solve(kept.tolist(), time_limit,
                                    None if hints is None else hints.tolist())
        seconds = time.perf_counter() - start
        if result.model is not None and result.status == SOLVED:
            model = np.asarray(result.model, dtype=np.int64)
            truth = model[self.lits - 1] > 0  # (lines, labels)
            out = lab.astype(np.int32).copy()
            out[mask] = np.argmax(truth[mask], axis=1)
            return RepairResult(SOLVED, seconds, out)
        if result.status == INFEASIBLE:
            return RepairResult(INFEASIBLE, seconds)
        return RepairResult(TIMEOUT, seconds, message=result.message)

    def close(self) -> None:
        self.session.close()


class RegionNeighbourhood:
    """Region repairs with a region that grows while the solver answers in time.

    After an answer (solved or infeasible) in under half the time limit the next region gets
    a quarter more crossing lines (at least 2); after a timeout 30% fewer. `two_free`: one
    family, drawn at random per repair, stays fixed inside the region as well.
    """

    def __init__(self, n: int, two_free: bool = False, extra: int = 10):
        self.n = n
        self.two_free = two_free
        self.extra = extra
        self._repairer: RegionRepairer | None = None  # built on first use (seconds at N=6)

    def attempt(self, labels: np.ndarray, rng: np.random.Generator,
                time_limit: float) -> RepairResult:
        if self._repairer is None:
            self._repairer = RegionRepairer(self.n)
        fixed = int(rng.integers(3)) if self.two_free else None
        free = region_lines(self.n, labels, self.extra, rng, fixed)
        result = self._repairer.repair(labels, free, time_limit)
        if result.status == TIMEOUT:
            self.extra = int(self.extra * 0.7)
        elif result.seconds < time_limit / 2:
            self.extra += max(2, self.extra // 4)
        return result

    def close(self) -> None:
        if self._repairer is not None:
            self._repairer.close()
            self._repairer = None
