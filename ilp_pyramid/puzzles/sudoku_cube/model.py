"""The Sudoku Cube's grid as a 0-1 program in the seed's "bitflag" style.

One binary per choice; every consequence (which digit a placement shows where, which way it
points) is computed here in Python and written as a plain linear constraint. No big-M.

Choices
- c[i, j, t]: the corner now in slot i goes to slot j with twist t (its facelet k lands on
  slot j's facelet (k + t) mod 3); e[i, j, f] likewise for edges with flip f;
  z[face, r]: the centre of `face` turns r quarter turns clockwise.
- w[face, d]: the common direction of the face's digits (0 ^, 1 >, 2 v, 3 <).
- v[facelet, g]: the facelet shows digit g.

Constraints
- assignment: every piece one (slot, orientation), every slot one piece; one turn per centre,
  one direction per face.
- shown: v[b, g] = sum of the placements that put a g on facelet b.
- faces: every face shows every digit once (sum over its nine facelets of v[b, g] = 1).
- upright, in two parts (UPRIGHT_FORMS; measured in docs/sudoku_cube.md):
  "imply": a placement that shows digit g pointing d on a facelet of a face forces that face's
  direction: c[i, j, t] <= w[face, d] (<= w[face, d] + w[face, d + 2] for a digit that looks
  the same after a half turn) -- one row of two non-zeros per placed facelet;
  "count": per face, digit and direction, the placements showing g pointing d on the face
  sum to w[face, d]: g shows once, pointing the face's way, and never another way.
  Either alone is exact; together they give CBC a far tighter relaxation (HiGHS's presolve
  solves the model outright either way). "facelet" is the first, weaker form kept for the
  measurement: w[face, d] <= sum of the placements at b whose digit fits d.
- reachable by face turns (the spec's invariants):
  twist: sum t * c = 3 k;  flip: sum f * e = 2 k  (k integer);
  parity: "inversions" (default) counts the inversions of both permutations with one binary per
  pair of pieces, inv[p, q] = [slot(q) < slot(p)], forced exactly by two constraints per slot
  j: inv >= at[p, j] + before[q, j] - 1 and inv <= 1 - at[p, j] + before[q, j], where
  before[q, j] = sum of at[q, k] for k < j. Then sum inv = 2 k + pi for corners and for edges
  (one shared parity bit pi: rule "parity"), and the centres' quarter turns sum to 2 k + pi
  (rule "centres").
  "cuts" leaves the parities out: the model's rounds (rounds.py) add a no-good cut for every
  grid whose parities disagree, solving again until one agrees.

The rules (RULES), the parity modes and their default are in checks.py, which imports no PuLP.
The same rules as CNF, for SAT solvers, are cnf.py's (upright: the "imply" form alone).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pulp

from ilp_pyramid.errors import InputError
from ilp_pyramid.mip_model import ModelSize
from ilp_pyramid.puzzles.sudoku_cube.checks import (
    DEFAULT_PARITY,
    DEFAULT_SYMMETRIC,
    PARITY_RULES,
    RULES,
    check_parity,
    known_rules,
)
from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    FACES,
    NUM_FACELETS,
    corner_placements,
    edge_placements,
    facelet_name,
    geometry,
)
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

UPRIGHT_FORMS = ("imply+count", "imply", "count", "facelet")
DEFAULT_UPRIGHT = "imply+count"


@dataclass
class CubeModel(ModelSize):
    state: CubeState
    symmetric: frozenset[int]
    parity: str
    rules: frozenset[str]
    problem: pulp.LpProblem
    corner_vars: dict[tuple[int, int, int], pulp.LpVariable]
    edge_vars: dict[tuple[int, int, int], pulp.LpVariable]
    centre_vars: dict[tuple[int, int], pulp.LpVariable]
    direction_vars: dict[tuple[int, int], pulp.LpVariable]
    corner_at: dict[tuple[int, int], pulp.LpVariable] = field(default_factory=dict)
    edge_at: dict[tuple[int, int], pulp.LpVariable] = field(default_factory=dict)
    build_seconds: float = 0.0
    cuts: int = 0

    @property
    def form(self) -> pulp.LpProblem:
        """What a MIP backend takes: the problem (the cuts add rows to it)."""
        return self.problem

    def grid(self, answer: Any) -> Grid:
        """The grid of a MIP answer's values (`answer`: a backend's Result)."""
        return decode(self, answer.values)

    def add_parity_cut(self, corners: Mapping[int, int], edges: Mapping[int, int],
                       centres: Mapping[int, int] | None) -> None:
        """Forbid this corner and edge permutation (and, if given, these centre turns)."""
        terms = [(v, 1) for v in cut_choices(self, corners, edges, centres)]
        self.cuts += 1
        _constrain(self.problem, terms, pulp.LpConstraintLE, len(terms) - 1,
                   f"parity_cut_{self.cuts}")


def binary(problem: pulp.LpProblem, name: str) -> pulp.LpVariable:
    return problem.add_variable(name, cat=pulp.LpBinary)


def integer(problem: pulp.LpProblem, name: str, high: int) -> pulp.LpVariable:
    return problem.add_variable(name, lowBound=0, upBound=high, cat=pulp.LpInteger)


def _constrain(problem: pulp.LpProblem, terms: Iterable[tuple[pulp.LpVariable, float]],
               sense: int, rhs: float, name: str) -> None:
    expression = pulp.LpAffineExpression(list(terms))
    problem.addConstraint(pulp.LpConstraint(expression, sense, rhs=rhs), name)


def _equal(problem, terms, rhs, name) -> None:
    _constrain(problem, terms, pulp.LpConstraintEQ, rhs, name)


def is_upright(digit: int, direction: int, face_direction: int, symmetric: frozenset[int]) -> bool:
    if direction % 4 == face_direction:
        return True
    return digit in symmetric and (direction - face_direction) % 4 == 2


def build_model(state: CubeState, symmetric: Iterable[int] = DEFAULT_SYMMETRIC,
                parity: str = DEFAULT_PARITY, rules: Iterable[str] = RULES,
                upright: str = DEFAULT_UPRIGHT) -> CubeModel:
    """The grid model for `state` with the turning invariants in `rules` (() for none: the
    seed's model, which may answer a grid that only a screwdriver reaches)."""
    rules = known_rules(rules)
    if upright not in UPRIGHT_FORMS:
        raise InputError(f"unknown upright form {upright!r} (choose from "
                         f"{', '.join(UPRIGHT_FORMS)})")
    check_parity(parity)
    start = time.perf_counter()
    symmetric = frozenset(symmetric) | DEFAULT_SYMMETRIC
    geo = geometry()
    corners, edges = corner_placements(), edge_placements()
    name = "sudoku_cube_" + ("_".join(r for r in RULES if r in rules) or "grid")
    if rules & PARITY_RULES:
        name += f"_{parity}"
    problem = pulp.LpProblem(name, pulp.LpMinimize)
    problem += pulp.LpAffineExpression()  # pure feasibility: objective 0

    cn, en = geo.corner_names, geo.edge_names
    c = {(i, j, t): binary(problem, f"c_{cn[i]}_{cn[j]}_t{t}") for i, j, t in corners}
    e = {(i, j, f): binary(problem, f"e_{en[i]}_{en[j]}_f{f}") for i, j, f in edges}
    z = {(k, r): binary(problem, f"z_{FACES[k]}_r{r}") for k in range(6) for r in range(4)}
    w = {(k, d): binary(problem, f"w_{FACES[k]}_d{d}") for k in range(6) for d in range(4)}

    _assignment(problem, c, len(cn), 3, "corner", cn)
    _assignment(problem, e, len(en), 2, "edge", en)
    for k, face in enumerate(FACES):
        _equal(problem, ((z[k, r], 1) for r in range(4)), 1, f"centre_{face}")
        _equal(problem, ((w[k, d], 1) for d in range(4)), 1, f"direction_{face}")

    landing = landed(state, c, e, z)
    shown: dict[tuple[int, int], pulp.LpVariable] = {}
    for b in range(NUM_FACELETS):
        fname = facelet_name(b)
        for g in sorted({digit for _, digit, _ in landing[b]}):
            shown[b, g] = binary(problem, f"v_{fname}_g{g}")
            terms = [(shown[b, g], 1)] + [(var, -1) for var, digit, _ in landing[b] if digit == g]
            _equal(problem, terms, 0, f"shown_{fname}_g{g}")
        if upright == "facelet":
            face = b // 9
            for d in range(4):
                fits = [(var, 1) for var, digit, direction in landing[b]
                        if is_upright(digit, direction, d, symmetric)]
                _constrain(problem, fits + [(w[face, d], -1)], pulp.LpConstraintGE, 0,
                           f"upright_{fname}_d{d}")
    if "imply" in upright:
        for b in range(NUM_FACELETS):
            k = b // 9
            for var, digit, direction in landing[b]:
                group = [direction, (direction + 2) % 4] if digit in symmetric else [direction]
                terms = [(var, 1)] + [(w[k, d], -1) for d in group]
                _constrain(problem, terms, pulp.LpConstraintLE, 0,
                           f"imply_{var.name}_{facelet_name(b)}")
    for k, face in enumerate(FACES):
        for g in range(1, 10):
            terms = [(shown[b, g], 1) for b in range(9 * k, 9 * k + 9) if (b, g) in shown]
            if not terms:
                raise_no_digit(face, g)
            _equal(problem, terms, 1, f"face_{face}_g{g}")
            if "count" in upright:
                _upright_digit(problem, landing, w, k, face, g, symmetric)

    model = CubeModel(state, symmetric, parity, rules, problem, c, e, z, w)
    model.corner_at = _slot_flags(problem, c, len(cn), 3, "corner", cn)
    model.edge_at = _slot_flags(problem, e, len(en), 2, "edge", en)
    if "twist" in rules:
        _orientation_sum(problem, c, 3, "twist")
    if "flip" in rules:
        _orientation_sum(problem, e, 2, "flip")
    if rules & PARITY_RULES and parity == "inversions":
        pi = binary(problem, "perm_parity")  # the corner permutation's parity
        _inversion_parity(problem, model.corner_at, cn, pi, "corner")
        if "parity" in rules:
            _inversion_parity(problem, model.edge_at, en, pi, "edge")
        if "centres" in rules:
            terms = [(z[k, r], r) for k in range(6) for r in range(1, 4)]
            half = integer(problem, "k_centre", 9)
            _equal(problem, terms + [(half, -2), (pi, -1)], 0, "parity_centre")
    model.build_seconds = time.perf_counter() - start
    return model


def _upright_digit(problem, landing, w, k, face, g, symmetric) -> None:
    """Digit g shows on the face exactly once pointing the face's way, and never another way:
    sum over the face of the placements showing g pointing d = w[face, d] (d and d + 2
    together for a digit that looks the same after a half turn)."""
    groups = [(d, d + 2) for d in range(2)] if g in symmetric else [(d,) for d in range(4)]
    for group in groups:
        terms = [(var, 1) for b in range(9 * k, 9 * k + 9)
                 for var, digit, direction in landing[b] if digit == g and direction in group]
        terms += [(w[k, d], -1) for d in group]
        _equal(problem, terms, 0, f"upright_{face}_g{g}_d{''.join(map(str, group))}")


class NoGrid(InputError):
    """The state cannot form six 1-9 faces, seen before any solving."""


def raise_no_digit(face: str, digit: int) -> None:
    # Any corner or edge can reach any face, so this happens only to a digit that sits on
    # centres alone (a centre never leaves its face).
    raise NoGrid(f"the digits cannot form six 1-9 faces: face {face} can never show a "
                 f"{digit} (every {digit} is on a centre of another face)")


def _assignment(problem, var, n, orientations, kind, names) -> None:
    for i in range(n):
        _equal(problem, ((var[i, j, t], 1) for j in range(n) for t in range(orientations)), 1,
               f"{kind}_{names[i]}_placed")
    for j in range(n):
        _equal(problem, ((var[i, j, t], 1) for i in range(n) for t in range(orientations)), 1,
               f"{kind}_slot_{names[j]}_filled")


def _slot_flags(problem, var, n, orientations, kind, names):
    """at[i, j] = the piece from slot i sits in slot j, whatever its orientation."""
    at = {}
    for i in range(n):
        for j in range(n):
            at[i, j] = binary(problem, f"{kind[0]}_{names[i]}_at_{names[j]}")
            terms = [(at[i, j], 1)] + [(var[i, j, t], -1) for t in range(orientations)]
            _equal(problem, terms, 0, f"{kind}_{names[i]}_at_{names[j]}")
    return at


def _orientation_sum(problem, var, modulus, what) -> None:
    terms = [(v, t) for (_, _, t), v in var.items() if t]
    pieces = len({i for i, _, _ in var})
    multiple = integer(problem, f"k_{what}", (modulus - 1) * pieces // modulus)
    _equal(problem, terms + [(multiple, -modulus)], 0, f"{what}_sum")


def _inversion_parity(problem, at, names, pi, kind) -> None:
    n = len(names)
    inversions = []
    for p, q in combinations(range(n), 2):
        inv = binary(problem, f"inv_{kind[0]}_{names[p]}_{names[q]}")
        inversions.append((inv, 1))
        for j in range(n):
            before = [(at[q, k], 1) for k in range(j)]
            # at[p, j] = 1 for exactly one j; there the two rows pin inv to [slot(q) < j].
            if j:
                _constrain(problem, [(inv, 1), (at[p, j], -1)] + [(v, -1) for v, _ in before],
                           pulp.LpConstraintGE, -1, f"inv_{kind[0]}_{names[p]}_{names[q]}_ge{j}")
            _constrain(problem, [(inv, 1), (at[p, j], 1)] + [(v, -1) for v, _ in before],
                       pulp.LpConstraintLE, 1, f"inv_{kind[0]}_{names[p]}_{names[q]}_le{j}")
    half = integer(problem, f"k_{kind}_perm", len(inversions) // 2)
    _equal(problem, inversions + [(half, -2), (pi, -1)], 0, f"parity_{kind}")


@dataclass(frozen=True)
class Grid:
    """A decoded answer: where every piece goes and how it turns."""

    corners: dict[int, tuple[int, int]]  # source slot -> (target slot, twist)
    edges: dict[int, tuple[int, int]]  # source slot -> (target slot, flip)
    centres: dict[int, int]  # face index -> quarter turns clockwise
    directions: dict[int, int]  # face index -> common direction


def decode(model: CubeModel, values: Mapping[str, float]) -> Grid:
    return chosen_grid(model, lambda v: values.get(v.name, 0.0) > 0.5)


# What the MIP (CubeModel) and the CNF (cnf.CubeCnf) share: their choices have the same keys,
# only the variables differ (PuLP variables, literal numbers).


def landed(state: CubeState, c: Mapping, e: Mapping, z: Mapping) -> list[list[tuple]]:
    """What lands on each facelet: (variable, digit, direction) for every choice that puts a
    sticker there, computed once from the placement tables (`c`, `e`, `z`: the corner, edge
    and centre choices' variables)."""
    stickers = state.stickers
    landing: list[list[tuple]] = [[] for _ in range(NUM_FACELETS)]
    for table, var in ((corner_placements(), c), (edge_placements(), e)):
        for key, placement in table.items():
            for a, b, turn in placement.moves:
                digit, direction = stickers[a]
                landing[b].append((var[key], digit, (direction + turn) % 4))
    for k, b in enumerate(geometry().centres):
        digit, direction = stickers[b]
        for r in range(4):
            landing[b].append((z[k, r], digit, (direction + r) % 4))
    return landing


def chosen_grid(cube: Any, is_set: Callable[[Any], bool]) -> Grid:
    """The grid of the choices whose variable `is_set` in an answer (`cube`: a CubeModel or
    a CubeCnf)."""

    def chosen(var: Mapping, what: str) -> dict:
        out: dict = {}
        for key, v in var.items():
            if is_set(v):
                if key[0] in out:
                    raise InputError(f"solution places {what} {key[0]} twice")
                out[key[0]] = key[1:] if len(key) == 3 else key[1]
        return out

    grid = Grid(chosen(cube.corner_vars, "corner"), chosen(cube.edge_vars, "edge"),
                chosen(cube.centre_vars, "centre"), chosen(cube.direction_vars, "face"))
    if (len(grid.corners), len(grid.edges), len(grid.centres), len(grid.directions)) != (
            8, 12, 6, 6):
        raise InputError("solution leaves a piece, centre or face direction unset")
    return grid


def cut_choices(cube: Any, corners: Mapping[int, int], edges: Mapping[int, int],
                centres: Mapping[int, int] | None) -> list:
    """The variables of a grid's permutations (and, if given, its centre turns) that a
    parity cut forbids together (`cube`: a CubeModel or a CubeCnf)."""
    chosen = [cube.corner_at[i, j] for i, j in corners.items()]
    chosen += [cube.edge_at[i, j] for i, j in edges.items()]
    if centres is not None:
        chosen += [cube.centre_vars[c, r] for c, r in centres.items()]
    return chosen
