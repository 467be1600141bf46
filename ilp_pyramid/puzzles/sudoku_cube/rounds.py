"""How a cube model is solved: `Rounds` is the `protocol.Model.run` of the grid model, the
MIP (model.py) or the CNF (cnf.py) alike: both give their backend `form`, read an answer back
as a `Grid` (`grid`) and take a no-good cut (`add_parity_cut`: a row, or a clause).

With the parities in the model ("inversions") that is one solver call. In "cuts" mode the
model leaves the parities out: solve, and while the grid found has corner and edge
permutations of different parities (or centre turns that do not match them), forbid that
grid by a no-good cut and solve again, all within the one time limit. The rounds count their
solver calls; the cuts are counted by the model (`CubeModel.cuts`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ilp_pyramid import backends
from ilp_pyramid.backends.base import Result as BackendResult
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.solvers import Solver
from ilp_pyramid.puzzles.sudoku_cube.checks import PARITY_RULES, permutation_parity
from ilp_pyramid.puzzles.sudoku_cube.cnf import CubeCnf
from ilp_pyramid.puzzles.sudoku_cube.model import CubeModel

# A cube whose grids nearly all have the wrong parities (docs/sudoku_cube.md) would cut
# for ever; past this many cuts the rounds answer `error` instead.
MAX_CUT_ROUNDS = 500


@dataclass
class Rounds:
    """Solves `cube`, in rounds of cuts where its parity mode says so (callable as
    `Model.run(solver, options)`; the answer's `seconds` cover every round)."""

    cube: CubeModel | CubeCnf
    calls: int = 0
    gave_up: bool = False  # stopped at MAX_CUT_ROUNDS cuts: an error of the rounds' own

    @property
    def cuts(self) -> int:
        return self.cube.cuts

    @property
    def cutting(self) -> bool:
        return self.cube.parity == "cuts" and bool(self.cube.rules & PARITY_RULES)

    def __call__(self, solver: Solver, options: SolveOptions) -> BackendResult:
        start = time.perf_counter()
        while True:
            spent = time.perf_counter() - start
            answer = backends.solve(self.cube.form, solver, _within(options, spent))
            self.calls += 1
            spent = time.perf_counter() - start
            if not self.cutting or not answer.has_solution or self._parities_agree(answer):
                return replace(answer, seconds=spent)
            if self.cube.cuts >= MAX_CUT_ROUNDS:
                self.gave_up = True
                return BackendResult(solver.name, Status.ERROR, spent,
                                     message=f"no grid with matching parities after "
                                             f"{MAX_CUT_ROUNDS} cuts")
            if options.time_limit is not None and spent >= options.time_limit:
                return BackendResult(solver.name, Status.TIMEOUT, spent)

    def _parities_agree(self, answer: BackendResult) -> bool:
        """True if the grid of `answer` has one parity throughout; else cut it off."""
        grid = self.cube.grid(answer)
        corners = {i: j for i, (j, _) in grid.corners.items()}
        edges = {i: j for i, (j, _) in grid.edges.items()}
        cp, ep = permutation_parity(corners), permutation_parity(edges)
        if cp == ep == sum(grid.centres.values()) % 2:
            return True
        # Equal permutation parities: only the centre turns disagree, so the cut forbids
        # these permutations with these centre turns; otherwise the permutations, whatever
        # the centres do.
        self.cube.add_parity_cut(corners, edges, grid.centres if cp == ep else None)
        return False


def _within(options: SolveOptions, spent: float) -> SolveOptions:
    """`options` with what is left of the time limit after `spent` seconds."""
    if options.time_limit is None:
        return options
    return replace(options, time_limit=max(0.01, options.time_limit - spent))
