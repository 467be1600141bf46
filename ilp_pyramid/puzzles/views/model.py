"""The views puzzle as a 0-1 program: a minimum set cover of the set pixels.

- c_x{x}_y{y}_z{z}: a cube at (x, y, z). Only cells whose three projections are all set get a
  variable; every other cell is 0 before the model exists (a cube there would show a pixel
  that the views lack).
- every set pixel of every view: the cells on its ray sum to at least 1;
- objective: minimise the number of cubes.

Call only on solvable views (`Views.solvable()`): otherwise some pixel has no cell on its ray
and no model is needed to say so.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pulp

from ilp_pyramid.errors import InputError
from ilp_pyramid.mip_model import ModelSize
from ilp_pyramid.puzzles.views.geometry import Views

_CELL_VAR = re.compile(r"^c_x(\d+)_y(\d+)_z(\d+)$")


def cell_var_name(x: int, y: int, z: int) -> str:
    return f"c_x{x}_y{y}_z{z}"


def problem_name(views: Views) -> str:
    return f"views_n{views.n}_{views.hex() or views.bits()}"


@dataclass
class ViewsModel(ModelSize):
    views: Views
    problem: pulp.LpProblem
    cells: dict[tuple[int, int, int], pulp.LpVariable]  # (x, y, z) -> binary
    build_seconds: float = 0.0

    def decode(self, values: Mapping[str, float]) -> np.ndarray:
        return decode_values(self.views.n, values)


def _at_least_one(problem: pulp.LpProblem, ray: list[pulp.LpVariable], name: str) -> None:
    expression = pulp.LpAffineExpression([(var, 1) for var in ray])
    problem.addConstraint(pulp.LpConstraint(expression, pulp.LpConstraintGE, rhs=1), name)


def build_model(views: Views) -> ViewsModel:
    start = time.perf_counter()
    if not views.solvable():
        raise InputError("the views are unsolvable: no model to build")
    n = views.n
    problem = pulp.LpProblem(problem_name(views), pulp.LpMinimize)
    candidates = views.candidates()  # [z, y, x]
    cells = {
        (int(x), int(y), int(z)): problem.add_variable(cell_var_name(x, y, z), cat=pulp.LpBinary)
        for z, y, x in zip(*np.nonzero(candidates), strict=True)
    }
    problem += pulp.LpAffineExpression([(var, 1) for var in cells.values()])

    def ray(points) -> list[pulp.LpVariable]:
        return [cells[p] for p in points if p in cells]

    for y, x in zip(*np.nonzero(views.top), strict=True):
        _at_least_one(problem, ray((x, y, z) for z in range(n)), f"top_r{y}_c{x}")
    for z, x in zip(*np.nonzero(views.front), strict=True):
        _at_least_one(problem, ray((x, y, z) for y in range(n)), f"front_r{z}_c{x}")
    for z, c in zip(*np.nonzero(views.side), strict=True):
        _at_least_one(problem, ray((x, n - 1 - c, z) for x in range(n)), f"side_r{z}_c{c}")
    return ViewsModel(views, problem, cells, time.perf_counter() - start)


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
