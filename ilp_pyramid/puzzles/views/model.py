"""The views puzzle as a 0-1 program: a minimum set cover of the set pixels.

- c_x{x}_y{y}_z{z}: a cube at (x, y, z). Only cells whose three projections are all set get a
  variable; every other cell is 0 before the model exists (a cube there would show a pixel
  that the views lack).
- every set pixel of every view: the cells on its ray sum to at least 1;
- objective: minimise the number of cubes.

The same cover as a weighted CNF (`build_wcnf`, for a MaxSAT solver): the same cells are the
variables 1..k, each set pixel's ray one hard clause, and each cell a soft clause (-cell) of
weight 1, so the cost of a model is its number of cubes.

Views no placement shows have a pixel with no cell on its ray: `build_model` refuses them
unless asked (`infeasible=True`), as no model is needed to say so; asked, that pixel's row
is 0 >= 1 (its hard clause unsatisfiable), an infeasible model for a benchmark file.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.views.geometry import Views

if TYPE_CHECKING:  # PuLP (a quarter second) and python-sat load with the form that needs them
    import pulp
    from pysat.formula import WCNF

_CELL_VAR = re.compile(r"^c_x(\d+)_y(\d+)_z(\d+)$")


def cell_var_name(x: int, y: int, z: int) -> str:
    return f"c_x{x}_y{y}_z{z}"


def problem_name(views: Views) -> str:
    return f"views_n{views.n}_{views.hex() or views.bits()}"


@dataclass
class ViewsModel:
    views: Views
    problem: pulp.LpProblem
    cells: dict[tuple[int, int, int], pulp.LpVariable]  # (x, y, z) -> binary
    build_seconds: float = 0.0

    @property
    def num_variables(self) -> int:
        return self.problem.numVariables()

    @property
    def num_constraints(self) -> int:
        return self.problem.numConstraints()

    def decode(self, values: Mapping[str, float]) -> np.ndarray:
        return decode_values(self.views.n, values)


Cell = tuple[int, int, int]  # (x, y, z)


def candidate_cells(views: Views) -> list[Cell]:
    """The cells a cube may take (all three projections set), in the models' one order."""
    return [(int(x), int(y), int(z))
            for z, y, x in zip(*np.nonzero(views.candidates()), strict=True)]


def pixel_rays(views: Views) -> list[tuple[str, list[Cell]]]:
    """(row name, the cells on its ray) for every set pixel of the three views."""
    n = views.n
    rays = [(f"top_r{y}_c{x}", [(x, y, z) for z in range(n)])
            for y, x in zip(*np.nonzero(views.top), strict=True)]
    rays += [(f"front_r{z}_c{x}", [(x, y, z) for y in range(n)])
             for z, x in zip(*np.nonzero(views.front), strict=True)]
    rays += [(f"side_r{z}_c{c}", [(x, n - 1 - c, z) for x in range(n)])
             for z, c in zip(*np.nonzero(views.side), strict=True)]
    return [(name, [(int(x), int(y), int(z)) for x, y, z in ray]) for name, ray in rays]


def _refuse_unsolvable(views: Views, infeasible: bool) -> None:
    if not infeasible and not views.solvable():
        raise InputError("the views are unsolvable: no model to build")


def build_model(views: Views, infeasible: bool = False) -> ViewsModel:
    """The minimum set cover as a PuLP problem (`infeasible`: of unsolvable views too)."""
    import pulp

    start = time.perf_counter()
    _refuse_unsolvable(views, infeasible)
    problem = pulp.LpProblem(problem_name(views), pulp.LpMinimize)
    cells = {cell: problem.add_variable(cell_var_name(*cell), cat=pulp.LpBinary)
             for cell in candidate_cells(views)}
    problem += pulp.LpAffineExpression([(var, 1) for var in cells.values()])
    for name, ray in pixel_rays(views):
        expression = pulp.LpAffineExpression([(cells[p], 1) for p in ray if p in cells])
        problem.addConstraint(pulp.LpConstraint(expression, pulp.LpConstraintGE, rhs=1), name)
    return ViewsModel(views, problem, cells, time.perf_counter() - start)


@dataclass
class ViewsWcnf:
    """The cover as a weighted CNF: cell `cells[i]` is variable i + 1."""

    views: Views
    wcnf: WCNF
    cells: list[Cell]
    build_seconds: float = 0.0

    @property
    def num_variables(self) -> int:
        return self.wcnf.nv

    @property
    def num_clauses(self) -> int:
        return len(self.wcnf.hard) + len(self.wcnf.soft)

    def decode(self, model: Sequence[int]) -> np.ndarray:
        """The placement [z, y, x] from a model's literals (true > 0); others are ignored."""
        n = self.views.n
        placement = np.zeros((n, n, n), dtype=bool)
        for lit in model:
            if 0 < lit <= len(self.cells):
                x, y, z = self.cells[lit - 1]
                placement[z, y, x] = True
        return placement


def build_wcnf(views: Views, infeasible: bool = False) -> ViewsWcnf:
    """The minimum set cover as a WCNF (`infeasible`: of unsolvable views too; a ray with no
    cell is then a fresh variable forced both ways, as no DIMACS reader must take an empty
    clause)."""
    from pysat.formula import WCNF

    start = time.perf_counter()
    _refuse_unsolvable(views, infeasible)
    cells = candidate_cells(views)
    var = {cell: i + 1 for i, cell in enumerate(cells)}
    wcnf = WCNF()
    top = len(cells)
    for _name, ray in pixel_rays(views):
        clause = [var[p] for p in ray if p in var]
        if clause:
            wcnf.append(clause)
        else:
            top += 1
            wcnf.extend([[top], [-top]])
    for v in range(1, len(cells) + 1):
        wcnf.append([-v], weight=1)
    wcnf.nv = top
    return ViewsWcnf(views, wcnf, cells, time.perf_counter() - start)


def decode_values(n: int, values: Mapping[str, float]) -> np.ndarray:
    """The placement [z, y, x] from variable values by name; other names are ignored."""
    placement = np.zeros((n, n, n), dtype=bool)
    for name, value in values.items():
        match = _CELL_VAR.match(name)
        if match and value > 0.5:
            x, y, z = (int(g) for g in match.groups())
            if max(x, y, z) >= n:
                raise InputError(f"variable {name} is outside an n = {n} grid")
            placement[z, y, x] = True
    return placement
