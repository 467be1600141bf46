"""Bel's Pyramid as a 0-1 integer program in the "bitflag" style.

Every choice is one binary and every consequence is computed here, in Python, and written as a
plain linear equality; the solver never sees an if/else or a big-M.

- x[line, l]: line carries label l (exactly one per line).
- "counts" (default): y[cell, k]: cell shows cube k (exactly one per cell, one cell per cube),
  linked by  x[X(c), l] + x[Y(c), l] + x[Z(c), l] = sum_k (times l occurs in k) * y[c, k].
- "rotations": r[cell, (a, b, c)]: cell shows labels a, b, c on its X, Y, Z lines;
  r <= each of the three matching x, and the rotations of cube k at a cell sum to y[c, k].
- "counts-mult": counts plus multiplicity rows on the y side: two of a cell's lines carrying
  l force a cube holding l at least twice there, all three a cube holding it three times:
  x[A(c), l] + x[B(c), l] - 1 <= sum_{k: l at least twice in k} y[c, k] for each pair of
  the cell's lines, x[X] + x[Y] + x[Z] - 2 <= sum_{k = (l, l, l)} y[c, k]. Valid for every
  solution; the counts link alone lets a fractional y mix cubes that hold l three times and
  not at all instead.
- "counts-sos1": counts with every one-of-k group (a line's labels, a cell's cubes, a cube's
  cells) also declared an SOS1 set, for solvers that branch on them (SCIP; the others
  ignore the declaration and solve plain counts).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import permutations

import pulp

from ilp_pyramid.errors import InputError
from ilp_pyramid.mip_model import ModelSize
from ilp_pyramid.puzzles.bel.geometry import Pyramid, pyramid
from ilp_pyramid.puzzles.bel.rules_mip import compile_rules
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.puzzles.bel.strategies import rules_for

FORMULATIONS = ("counts", "rotations", "counts-mult", "counts-sos1")

# At most 18 ASCII digits per number (parsing.MAX_DIGITS): longer is no name this package
# writes, and int() of thousands of digits raises.
_LINE_VAR = re.compile(r"^x_([XYZ])_([0-9]{1,18})_([0-9]{1,18})_l([0-9]{1,18})$")
_MODEL_NAME = re.compile(r"bel_n([0-9]{1,18})_([a-z]+)")


def line_var_name(line_name: str, label: int) -> str:
    return f"x_{line_name}_l{label}"


def problem_name(n: int, formulation: str) -> str:
    return f"bel_n{n}_{formulation}"


@dataclass
class BelModel(ModelSize):
    pyramid: Pyramid
    formulation: str
    problem: pulp.LpProblem
    line_vars: dict[tuple[int, int], pulp.LpVariable]
    build_seconds: float = 0.0
    extras: list[str] = field(default_factory=list)  # names of the strategies compiled in

    @property
    def n(self) -> int:
        return self.pyramid.n

    def decode(self, values: Mapping[str, float]) -> BelSolution:
        return decode_values(self.n, values)


def binary(problem: pulp.LpProblem, name: str) -> pulp.LpVariable:
    return problem.add_variable(name, cat=pulp.LpBinary)


def _equal(problem: pulp.LpProblem, terms: Iterable[tuple[pulp.LpVariable, float]], rhs: float,
           name: str) -> None:
    expression = pulp.LpAffineExpression(list(terms))
    problem.addConstraint(pulp.LpConstraint(expression, pulp.LpConstraintEQ, rhs=rhs), name)


def build_model(n: int, formulation: str = "counts",
                strategies: tuple[str, ...] | list[str] = ()) -> BelModel:
    if formulation not in FORMULATIONS:
        choices = ", ".join(FORMULATIONS)
        raise InputError(f"unknown formulation {formulation!r} (choose from {choices})")
    start = time.perf_counter()
    geo = pyramid(n)
    labels = range(geo.num_labels)
    problem = pulp.LpProblem(problem_name(n, formulation), pulp.LpMinimize)
    problem += pulp.LpAffineExpression()  # pure feasibility: objective 0

    x = {
        (i, label): binary(problem, line_var_name(line.name, label))
        for i, line in enumerate(geo.lines)
        for label in labels
    }
    for i, line in enumerate(geo.lines):
        _equal(problem, ((x[i, label], 1) for label in labels), 1, f"line_{line.name}")

    if formulation == "rotations":
        _rotations(problem, geo, x)
    else:
        y = _counts(problem, geo, x)
        if formulation == "counts-mult":
            _multiplicity(problem, geo, x, y)
        elif formulation == "counts-sos1":
            _sos1(problem, geo, x, y)
    if strategies:

        compile_rules(problem, x, rules_for(n, list(strategies)), geo.num_labels,
                      geo.line_lengths)
    model = BelModel(geo, formulation, problem, x, extras=list(strategies))
    model.build_seconds = time.perf_counter() - start
    return model


def _assignment(problem: pulp.LpProblem, geo: Pyramid) -> dict[tuple[int, int], pulp.LpVariable]:
    """y[cell, cube]: every cell shows one cube and every cube is shown by one cell."""
    cells, cubes = range(len(geo.cells)), range(len(geo.cubes))
    y = {(c, k): binary(problem, f"y_c{c}_k{k}") for c in cells for k in cubes}
    for c in cells:
        _equal(problem, ((y[c, k], 1) for k in cubes), 1, f"cell_c{c}")
    for k in cubes:
        _equal(problem, ((y[c, k], 1) for c in cells), 1, f"cube_k{k}")
    return y


def _counts(problem: pulp.LpProblem, geo: Pyramid, x) -> dict:
    y = _assignment(problem, geo)
    # occurrences[l] = [(k, times l occurs in cube k)], computed once for all cells.
    occurrences = {
        label: [(k, cube.count(label)) for k, cube in enumerate(geo.cubes) if label in cube]
        for label in range(geo.num_labels)
    }
    for c, lines in enumerate(geo.cell_lines):
        for label, uses in occurrences.items():
            terms = [(x[i, label], 1) for i in lines]
            terms += [(y[c, k], -times) for k, times in uses]
            _equal(problem, terms, 0, f"link_c{c}_l{label}")
    return y


def _multiplicity(problem: pulp.LpProblem, geo: Pyramid, x, y) -> None:
    for label in range(geo.num_labels):
        twice = [k for k, cube in enumerate(geo.cubes) if cube.count(label) >= 2]
        thrice = [k for k, cube in enumerate(geo.cubes) if cube.count(label) == 3]
        for c, lines in enumerate(geo.cell_lines):
            groups = [(pair, twice) for pair in ((0, 1), (0, 2), (1, 2))]
            groups.append(((0, 1, 2), thrice))
            for which, cubes in groups:
                terms = [(x[lines[i], label], 1) for i in which]
                terms += [(y[c, k], -1) for k in cubes]
                tag = "".join("XYZ"[i] for i in which)
                problem.addConstraint(pulp.LpConstraint(
                    pulp.LpAffineExpression(terms), pulp.LpConstraintLE, rhs=len(which) - 1),
                    f"mult_c{c}_l{label}_{tag}")


def _sos1(problem: pulp.LpProblem, geo: Pyramid, x, y) -> None:
    labels, cells, cubes = range(geo.num_labels), range(len(geo.cells)), range(len(geo.cubes))
    for i, line in enumerate(geo.lines):
        problem.sos1[f"sos_{line.name}"] = {x[i, label]: label + 1 for label in labels}
    for c in cells:
        problem.sos1[f"sos_c{c}"] = {y[c, k]: k + 1 for k in cubes}
    for k in cubes:
        problem.sos1[f"sos_k{k}"] = {y[c, k]: c + 1 for c in cells}


def _rotations(problem: pulp.LpProblem, geo: Pyramid, x) -> None:
    y = _assignment(problem, geo)
    rotations = [sorted(set(permutations(cube))) for cube in geo.cubes]
    for c, (line_x, line_y, line_z) in enumerate(geo.cell_lines):
        for k, turns in enumerate(rotations):
            placed = []
            for a, b, d in turns:
                r = binary(problem, f"r_c{c}_k{k}_{a}_{b}_{d}")
                placed.append((r, 1))
                for line, label, tag in ((line_x, a, "X"), (line_y, b, "Y"), (line_z, d, "Z")):
                    expression = pulp.LpAffineExpression([(r, 1), (x[line, label], -1)])
                    problem.addConstraint(
                        pulp.LpConstraint(expression, pulp.LpConstraintLE, rhs=0),
                        f"rot_c{c}_k{k}_{a}_{b}_{d}_{tag}",
                    )
            placed.append((y[c, k], -1))
            _equal(problem, placed, 0, f"turns_c{c}_k{k}")


def model_kind(name: str) -> tuple[int, str] | None:
    """(N, formulation) from a problem name such as 'bel_n5_counts', or None."""
    match = _MODEL_NAME.search(name)
    return (int(match.group(1)), match.group(2)) if match else None


def decode_values(n: int, values: Mapping[str, float]) -> BelSolution:
    """Line labels from variable values by name (x_<line>_l<label> = 1); other names ignored."""
    chosen: dict[tuple[str, int, int], list[int]] = {}
    for name, value in values.items():
        match = _LINE_VAR.match(name)
        if match and value > 0.5:
            family, a, b, label = match.groups()
            chosen.setdefault((family, int(a), int(b)), []).append(int(label))
    return BelSolution.from_choices(n, chosen, "solution")
